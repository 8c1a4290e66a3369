"""A fan's preset mode is said and set by its name (issue 43 item 7, fans with preset modes), on the real
Inovelli LZW36 (`fixtures/devices/inovelli_lzw36_state.json`, its fan on endpoint 2): Inovelli's level 1 is
breeze, which cycles its speeds (Home Assistant's preset mode since core PR #60947); 2-33 low, 34-66
medium, 67-99 high. A percentage is a speed, never the preset."""

from __future__ import annotations

from pathlib import Path

import pytest

from zwave_mcp.devices import model as m
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.control import plan_control
from zwave_mcp.devices.describe import sentence
from zwave_mcp.devices.errors import InvalidValue
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"


def fan() -> Device:
    parsed = (parse_node(raw) for raw in load_house_file(DEVICES / "inovelli_lzw36_state.json"))
    built = build_devices([n for n in parsed if n is not None and not n.is_controller])
    (found,) = [d for d in built if d.kind == Capability.FAN]
    return found


def test_level_one_is_breeze_mode_not_one_percent() -> None:
    device = fan()
    current = device.values[m.LEVEL_CURRENT]
    current.value = 1
    assert sentence(device) == "family_room_combo 2 is on in breeze mode."
    current.value = 20
    assert sentence(device) == "family_room_combo 2 is on at low speed."


def test_breeze_is_set_by_its_name() -> None:
    plan = plan_control(fan(), "set_speed", value="breeze")
    assert plan.summary == "set family_room_combo 2 to breeze mode"
    assert [(w.value.value_id, w.target) for w in plan.writes] == [("19-38-2-targetValue", 1)]
    assert plan_control(fan(), "set_speed", value="Breeze mode").writes[0].target == 1


def test_a_percentage_is_a_speed_never_the_preset() -> None:
    plan = plan_control(fan(), "set_speed", value=1)
    assert plan.writes[0].target != 1
    assert plan.summary == "set family_room_combo 2 to low (1 %)"


def test_a_refusal_names_the_preset() -> None:
    with pytest.raises(InvalidValue) as refused:
        plan_control(fan(), "set_speed", value="turbo")
    assert str(refused.value) == (
        "family_room_combo 2 has speeds low, medium and high, a breeze mode, or a percentage from 1 to 100; "
        "'turbo' is neither."
    )
