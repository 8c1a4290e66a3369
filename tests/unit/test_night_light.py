"""A plug's colour night light (issue 43 item 3): the Aeotec Smart Switch 6's LED ring and the Smart Switch
7's night light are Color Switch (with a Multilevel Switch for their brightness) on the relay's own
endpoint. Main left them out as housekeeping: neither said nor controllable. Each is now a light of its
own, "<plug> night light", beside the plug, which stays a switch. Real dumps: fixtures/devices/
aeon_smart_switch_6_state.json and aeotec_smart_switch_7_state.json."""

from __future__ import annotations

from pathlib import Path

import pytest

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.control import available_actions, plan_control
from zwave_mcp.devices.describe import sentence
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"


def devices(file: str) -> dict[str, Device]:
    nodes = [parse_node(raw) for raw in load_house_file(DEVICES / file)]
    return {d.name: d for d in build_devices(n for n in nodes if n is not None and not n.is_controller)}


def test_the_smart_switch_6_ring_is_said_beside_the_plug() -> None:
    found = devices("aeon_smart_switch_6_state.json")
    assert sorted(found) == ["nodeID_102", "nodeID_102 night light"]
    plug, ring = found["nodeID_102"], found["nodeID_102 night light"]
    assert plug.kind == Capability.SWITCH and ring.kind == Capability.COLOR
    assert sentence(ring) == "nodeID_102 night light is on at 100 %, #1b141b."
    assert sentence(plug).startswith("nodeID_102 is on, using 0 W")


@pytest.mark.parametrize("file", ["aeon_smart_switch_6_state.json", "aeotec_smart_switch_7_state.json"])
def test_the_night_light_takes_a_colour_and_the_plug_keeps_its_relay(file: str) -> None:
    found = devices(file)
    (plug,) = [d for d in found.values() if d.part is None]
    (light,) = [d for d in found.values() if d.part == "night light"]
    assert "set_color" in available_actions(light) and "set_color" not in available_actions(plug)
    colour = plan_control(light, "set_color", color="red")
    assert {w.value.command_class for w in colour.writes} == {51}  # Color Switch, nothing of the relay
    on = plan_control(plug, "on")
    assert {w.value.command_class for w in on.writes} == {37}  # the relay's Binary Switch
    dim = plan_control(light, "set_level", level=30)
    assert {w.value.command_class for w in dim.writes} == {38}  # the light's brightness
