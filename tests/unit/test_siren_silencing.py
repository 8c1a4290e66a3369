"""Issue 36, item 3: anything that stops an alarm sounding is silencing it, whatever the path.

A FortrezZ siren sounds its tones by level (0 off, 33 strobe only, 66 siren only, 99 siren and strobe):
while it sounds, a tone that makes no sound (or whose sound cannot be told) is judged as switching it off,
through set_tone, a scene's value, a Basic Set of its endpoint or a level change down; a Sound Switch siren
likewise. Sounding a siren, or lighting the strobe of a silent one, asks nothing.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.unit.test_discovery_kinds import DUMPS, confirm_reason, devices_of, one
from tests.unit.test_gate_flow import Rig
from zwave_mcp.devices import model as m
from zwave_mcp.devices.control import control_change, plan_control
from zwave_mcp.devices.gate import value_effect
from zwave_mcp.devices.gate.evidence import spoken_value
from zwave_mcp.devices.group_control import group_change, plan_group
from zwave_mcp.devices.groups import Group, GroupTarget
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.scenes import scene_change
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.policy import Policy
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.simulator import captured_house
from zwave_mcp.simulator.dumps import load_house_file
from zwave_mcp.zwave.wire import value_key

ALARM = "it can switch off an alarm"
FORTREZZ = "fortrezz_ssa1_siren_state.json"


def siren_at(level: int | None) -> Device:
    siren = one(FORTREZZ, "Front Door Siren")
    siren.values[m.SIREN_TONE_CURRENT].value = level
    return siren


def judged(device: Device, value: ZValue, target: Any) -> str | None:
    effect = value_effect(device, value, target)
    decision = Policy().judge(device, effect.words, effect.argument, action_text="change it")
    return decision.why if decision.needs_confirmation else None


@pytest.mark.parametrize("tone", ["strobe only", "Strobe only"])
def test_a_sounding_siren_set_to_a_silent_tone_is_silenced(tone: str) -> None:
    assert confirm_reason(siren_at(99), "set_tone", value=tone) == ALARM
    assert confirm_reason(siren_at(66), "set_tone", value=tone) == ALARM


def test_a_siren_whose_state_is_not_known_may_be_sounding() -> None:
    assert confirm_reason(siren_at(None), "set_tone", value="strobe only") == ALARM


def test_sounding_and_lighting_a_silent_siren_ask_nothing() -> None:
    assert confirm_reason(siren_at(99), "set_tone", value="siren only") is None  # it still sounds
    assert confirm_reason(siren_at(0), "set_tone", value="strobe only") is None  # it silences nothing
    assert confirm_reason(siren_at(33), "set_tone", value="siren and strobe") is None
    assert confirm_reason(siren_at(0), "on") is None


def test_every_path_to_a_silent_level_is_judged_alike() -> None:
    siren = siren_at(99)
    tone = siren.values[m.SIREN_TONE]
    assert judged(siren, tone, 33) == ALARM  # a scene's value: the tone value itself
    assert judged(siren, tone, 40) == ALARM, "a level between the named tones: its sound cannot be told"
    assert judged(siren, tone, 0) == ALARM
    assert judged(siren, tone, 66) is None
    basic = ZValue("80-32-0-targetValue", 80, 32, "Basic", 0, "targetValue", type="number", writeable=True)
    assert judged(siren, basic, 33) == ALARM, "Basic Set is the same level"
    assert judged(siren, basic, 99) is None
    down = siren.node.find_value(38, "Down", 0)
    assert down is not None and judged(siren, down, True) == ALARM, "a level change down fades it out"
    assert judged(siren, down, False) is None, "stopping a level change silences nothing"


def test_a_group_silencing_sirens_asks() -> None:
    siren = siren_at(99)
    plan = plan_group(Group(GroupTarget(), "sirens", [siren]), "off", {}, Policy())
    (effect,) = group_change(plan).effects
    assert Policy().judge(siren, effect.words, effect.argument, action_text="x").why == ALARM


def test_a_sound_switch_siren_set_to_off_by_tone_is_silenced() -> None:
    siren = devices_of("aeotec_zw164_siren_state.json", "Indoor Siren")[1]
    siren.values[m.SIREN_TONE].value = 3  # sounding "03TRAD~1"
    assert confirm_reason(siren, "set_tone", value="off") == ALARM
    assert confirm_reason(siren, "set_tone", value="01DING~1 (5 sec)") is None


def test_the_reported_state_of_a_strobe_is_silent() -> None:
    siren = siren_at(33)
    current = siren.values[m.SIREN_TONE_CURRENT]
    assert spoken_value(siren, current, 33) == "silent (strobe only)"
    assert spoken_value(siren, current, 99) == "sounding siren and strobe"


# ---- through the gate: control and scene ------------------------------------------------------------------


def house_with_sounding_siren() -> list[Any]:
    node = next(n for n in load_house_file(DUMPS / FORTREZZ) if n["id"] == 80)
    node["values"][value_key(38, 0, "currentValue")]["value"] = 99
    node["values"][value_key(38, 0, "targetValue")]["value"] = 99
    return [*captured_house(), node]


def test_set_tone_and_a_scene_to_strobe_only_need_the_persons_yes() -> None:
    rig = Rig(house=house_with_sounding_siren())
    _plan, toned = asyncio.run(
        rig.devices.control("front door siren", "set_tone", params={"value": "strobe only"})
    )
    assert toned.outcome is Outcome.NEEDS_CONFIRMATION and ALARM in toned.sentence and rig.writes == []
    scene = {
        "sceneid": 7,
        "label": "Quiet",
        "values": [{"nodeId": 80, "commandClass": 38, "property": "targetValue", "value": 33}],
    }
    change = scene_change(scene, rig.gateway.nodes, rig.devices.device_of_value)
    result = asyncio.run(rig.gate.apply(change))
    assert result.outcome is Outcome.NEEDS_CONFIRMATION and ALARM in result.sentence and rig.calls == []
    quiet = control_change(plan_control(rig.device("front door siren"), "set_tone", value="siren only"))
    assert asyncio.run(rig.gate.apply(quiet)).outcome is not Outcome.NEEDS_CONFIRMATION
