"""Devices of the captured house (fixtures/recorded/getNodes.json): capabilities and the values they use."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from zwave_mcp.devices import model as m
from zwave_mcp.devices.build import BROADCAST_NODE_IDS, build_devices, devices_for_node
from zwave_mcp.devices.kinds.thermostat import setpoints
from zwave_mcp.devices.model import Capability as C
from zwave_mcp.devices.model import Device
from zwave_mcp.gateway.model import ZNode
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.zwave import classes as cc
from zwave_mcp.zwave.classes import CC

GET_NODES = Path(__file__).resolve().parents[2] / "fixtures" / "recorded" / "getNodes.json"


def raw_nodes() -> list[dict[str, Any]]:
    return json.loads(GET_NODES.read_text(encoding="utf-8"))


def raw_values(raw: dict[str, Any]) -> list[dict[str, Any]]:
    values = raw.get("values") or []
    return list(values.values()) if isinstance(values, dict) else list(values)


def house_nodes() -> list[ZNode]:
    return [n for n in (parse_node(raw) for raw in raw_nodes()) if n is not None]


def house() -> dict[str, Device]:
    return {d.key: d for d in build_devices(house_nodes())}


# The captures README's table of the simulated house, as devices.
EXPECTED = {
    "2": ("Kitchen Light", "Kitchen", C.SWITCH, (C.SWITCH,)),
    "3": ("Living Room Lamp", "Living Room", C.DIMMER, (C.DIMMER,)),
    "4": ("Bedroom Sensor", "Bedroom", C.SENSOR, (C.SENSOR, C.BATTERY)),
    "5": ("Front Door Lock", "Entry", C.LOCK, (C.LOCK, C.BATTERY)),
    "6": ("Hallway Thermostat", "Hallway", C.THERMOSTAT, (C.THERMOSTAT, C.SENSOR)),
    "7": ("Garage Motion", "Garage", C.BINARY_SENSOR, (C.BINARY_SENSOR, C.NOTIFICATION, C.BATTERY)),
    "8": ("Coffee Maker Plug", "Kitchen", C.SWITCH, (C.SWITCH, C.METER)),
    "9": ("Bedroom Color Bulb", "Bedroom", C.COLOR, (C.COLOR, C.DIMMER)),
    "10": ("Living Room Blinds", "Living Room", C.COVER, (C.COVER,)),
    "11.1": ("Porch Double Switch", "Porch", C.SWITCH, (C.SWITCH,)),  # its main part: the first relay
    "11.2": ("Porch Double Switch 2", "Porch", C.SWITCH, (C.SWITCH,)),
}


def test_the_captured_house_has_exactly_these_devices() -> None:
    devices = house()
    assert list(devices) == list(EXPECTED)
    for key, (name, location, kind, capabilities) in EXPECTED.items():
        d = devices[key]
        assert (d.name, d.location, d.kind, d.capabilities) == (name, location, kind, capabilities), key


def test_controller_and_broadcast_are_not_devices() -> None:
    nodes = {n.id: n for n in house_nodes()}
    assert nodes[1].is_controller and devices_for_node(nodes[1]) == []
    assert devices_for_node(nodes[255]) == []


def test_endpoint_devices_use_their_own_endpoint_values() -> None:
    devices = house()
    for ep in (1, 2):
        d = devices[f"11.{ep}"]
        assert (d.node_id, d.endpoint) == (11, ep)
        assert d.values[m.SWITCH_TARGET].value_id == f"11-37-{ep}-targetValue"
        assert d.values[m.SWITCH_CURRENT].value_id == f"11-37-{ep}-currentValue"
    # The root's Basic values mirror the endpoints: no device of their own.
    assert "11" not in devices


def test_every_writable_binary_switch_target_belongs_to_a_switch_device() -> None:
    """Data-driven: each Binary Switch targetValue of a user node is some device's switch target."""
    devices = list(house().values())
    targets = {d.values[m.SWITCH_TARGET].value_id for d in devices if m.SWITCH_TARGET in d.values}
    expected = {
        v["id"]
        for raw in raw_nodes()
        if raw["id"] not in (1, 255)
        for v in raw_values(raw)
        if v["commandClass"] == CC.BINARY_SWITCH and v["property"] == "targetValue"
    }
    assert targets == expected


def test_every_sensor_meter_and_battery_value_is_a_reading_of_its_device() -> None:
    devices = house()
    wanted_ccs = {CC.MULTILEVEL_SENSOR, CC.BINARY_SENSOR, CC.METER, CC.BATTERY}
    for raw in raw_nodes():
        if raw["id"] in (1, 255):
            continue
        device_values = {
            v.value_id for d in devices.values() if d.node_id == raw["id"] for v in d.all_values()
        }
        for v in raw_values(raw):
            if v["commandClass"] in wanted_ccs and (
                v["commandClass"] != CC.METER or v["property"] == "value"
            ):
                assert v["id"] in device_values, v["id"]


def test_roles_of_the_actuators() -> None:
    d = house()
    assert d["3"].values[m.LEVEL_TARGET].value_id == "3-38-0-targetValue"
    assert d["3"].values[m.LEVEL_UP].value_id == "3-38-0-Up"
    assert d["3"].values[m.LEVEL_RESTORE].value_id == "3-38-0-restorePrevious"
    assert d["5"].values[m.LOCK_TARGET].value_id == "5-98-0-targetMode"
    assert d["5"].values[m.LOCK_CURRENT].value_id == "5-98-0-currentMode"
    assert d["5"].values[m.LOCK_DOOR].value_id == "5-98-0-doorStatus"
    assert setpoints(d["6"]) == {
        1: d["6"].node.values["6-67-0-setpoint-1"],
        2: d["6"].node.values["6-67-0-setpoint-2"],
    }
    assert d["6"].values[m.THERMOSTAT_TEMPERATURE].value_id == "6-49-0-Air temperature"
    assert d["9"].values[m.COLOR_TARGET].value_id == "9-51-0-targetColor"
    assert d["9"].values[m.COLOR_HEX].value_id == "9-51-0-hexColor"
    # Window Covering: the cover's own movement (13 Outbound Bottom), not the slats (23).
    assert d["10"].values[m.COVER_TARGET].value_id == "10-106-0-targetValue-13"
    assert d["10"].values[m.COVER_CURRENT].value_id == "10-106-0-currentValue-13"
    assert d["10"].values[m.COVER_UP].value_id == "10-106-0-levelChangeUp-13"
    assert d["10"].values[m.COVER_DOWN].value_id == "10-106-0-levelChangeDown-13"
    assert not d["10"].is_entry


def test_legacy_alarm_bytes_are_not_readings() -> None:
    readings = house()["7"].readings[C.NOTIFICATION]
    assert [v.property_key for v in readings] == ["Cover status", "Motion sensor status"]


def _lamp_as(generic: int, specific: int, name: str = "Lamp") -> Device:
    node = next(n for n in house_nodes() if n.id == 3)
    node.generic_class, node.specific_class, node.name = generic, specific, name
    (device,) = devices_for_node(node)
    return device


def test_multilevel_switch_with_a_motor_device_class_is_a_cover() -> None:
    d = _lamp_as(cc.GENERIC_MULTILEVEL_SWITCH, 0x07, name="Garage Door")
    assert d.capabilities == (C.COVER,)
    assert d.values[m.COVER_TARGET].value_id == "3-38-0-targetValue"
    assert d.values[m.COVER_UP].value_id == "3-38-0-Up"
    assert d.is_entry  # a garage door: opening it is sensitive
    assert _lamp_as(cc.GENERIC_MULTILEVEL_SWITCH, 0x01).capabilities == (C.DIMMER,)


@pytest.mark.parametrize(
    ("name", "entry"),
    [("Driveway Gate", True), ("Garage Doors", True), ("Outdoor Blinds", False), ("Indoor Shade", False)],
)
def test_a_cover_is_a_way_in_when_its_name_says_so_in_whole_words(name: str, entry: bool) -> None:
    assert _lamp_as(cc.GENERIC_MULTILEVEL_SWITCH, 0x07, name=name).is_entry is entry


def test_multilevel_switch_with_open_close_values_is_a_cover() -> None:
    node = next(n for n in house_nodes() if n.id == 3)
    for v in node.values.values():
        if v.property in ("Up", "Down"):
            v.property = "Open" if v.property == "Up" else "Close"
    (d,) = devices_for_node(node)
    assert d.kind == C.COVER
    assert d.values[m.COVER_UP].property == "Open"


def test_node_with_only_basic_is_switched_through_basic() -> None:
    node = next(n for n in house_nodes() if n.id == 11)
    node.values = {k: v for k, v in node.values.items() if v.command_class == CC.BASIC}
    (d,) = devices_for_node(node)
    assert (d.key, d.capabilities) == ("11", (C.SWITCH,))
    assert d.values[m.SWITCH_TARGET].value_id == "11-32-0-targetValue"


def test_unnamed_node_uses_zwave_js_ui_placeholder_name() -> None:
    node = next(n for n in house_nodes() if n.id == 2)
    node.name = ""
    assert devices_for_node(node)[0].name == "nodeID_2"


@pytest.mark.parametrize("count", [4000])
def test_building_a_large_house_is_cheap(count: int) -> None:
    template = raw_nodes()
    raws = []
    ids = [i for i in range(2, count + 4) if i not in BROADCAST_NODE_IDS][:count]
    for i in range(count):
        raw = json.loads(json.dumps(template[2 + i % 10]))
        raw["values"] = raw_values(raw)
        raw["id"] = ids[i]
        for v in raw["values"]:
            v["nodeId"] = raw["id"]
            v.pop("id", None)
        raws.append(raw)
    nodes = [n for n in (parse_node(r) for r in raws) if n is not None]
    started = time.perf_counter()
    devices = build_devices(nodes)
    elapsed = time.perf_counter() - started
    assert len(devices) == count + count // 10  # each Porch-like node gives two devices
    assert elapsed < 2.0, f"build_devices took {elapsed:.2f} s for {count} nodes"
