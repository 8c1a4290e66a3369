"""A siren of several tones says and takes its tones as a person would (issue 43 item 7), on the real Aeotec
ZW164 Siren 6 (`fixtures/devices/aeotec_zw164_siren_state.json`): its endpoints name their 30 tones by their
sound files' 8.3 names and lengths ("03TRAD~1 (11 sec)"), which is said "tone 3 (11 seconds)"; a tone is
chosen by its number, "tone 3", the device's own name or a word of it. Tones with names of words (FortrezZ's
"Siren only") are said as the device names them."""

from __future__ import annotations

from pathlib import Path

from zwave_mcp.devices import model as m
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.control import plan_control
from zwave_mcp.devices.describe import change_phrase, sentence
from zwave_mcp.devices.kinds.siren import siren_tones
from zwave_mcp.devices.model import Device
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"


def devices(file: str) -> list[Device]:
    parsed = (parse_node(raw) for raw in load_house_file(DEVICES / file))
    return build_devices([n for n in parsed if n is not None and not n.is_controller])


def chime() -> Device:
    return devices("aeotec_zw164_siren_state.json")[1]  # endpoint 2, the doorbell sounds


def test_a_playing_tone_is_said_by_its_number_and_length() -> None:
    device = chime()
    tone = device.values[m.SIREN_TONE]
    tone.value = 3  # "03TRAD~1 (11 sec)"
    assert sentence(device) == "nodeID_2 2 is sounding tone 3 (11 seconds)."
    assert change_phrase(device, tone, 27) == "started sounding tone 27 (1 second)"
    tone.value = 0
    assert sentence(device) == "nodeID_2 2 is silent."


def test_a_tone_is_chosen_by_number_by_its_words_or_by_the_device_name() -> None:
    for said in ("5", "tone 5", "Tone 5 (13 seconds)", "05WEST~1 (13 sec)", "west"):
        plan = plan_control(chime(), "set_tone", value=said)
        assert plan.writes[0].target == 5, said
        assert plan.summary == "sound tone 5 (13 seconds) on nodeID_2 2"


def test_the_list_of_tones_says_numbers_not_file_names() -> None:
    spoken = [t.spoken for t in siren_tones(chime())]
    assert spoken[:3] == ["tone 1 (5 seconds)", "tone 2 (9 seconds)", "tone 3 (11 seconds)"]
    assert not any("~" in s for s in spoken)


def test_tones_named_in_words_are_said_as_named() -> None:
    (siren,) = devices("fortrezz_ssa1_siren_state.json")
    assert [t.spoken for t in siren_tones(siren)] == ["Strobe only", "Siren only", "Siren and strobe"]
