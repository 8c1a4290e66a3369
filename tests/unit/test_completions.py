"""Completion values: ranking by what was typed, and names that resolve even where two devices share one."""

from __future__ import annotations

from dataclasses import replace

from tests.unit.test_devices_build import house
from zwave_mcp.devices.resolve import DeviceIndex
from zwave_mcp.server.completions import device_names, rank


def test_names_starting_with_what_was_typed_come_first() -> None:
    names = ["Living Room Lamp", "Lamp Post", "Kitchen Light"]
    assert rank(names, "lamp") == ["Lamp Post", "Living Room Lamp"]
    assert rank(names, "") == ["Kitchen Light", "Lamp Post", "Living Room Lamp"]
    assert rank(names, "  LIVING-room ") == ["Living Room Lamp"]
    assert rank(names, "kitchen", also={"Living Room Lamp": "Kitchen"}) == [
        "Kitchen Light",
        "Living Room Lamp",
    ]


def test_a_shared_name_is_offered_with_its_room_and_resolves() -> None:
    devices = list(house().values())
    lamp = next(d for d in devices if d.name == "Living Room Lamp")
    twin = replace(lamp, key="99", node_id=99, name="Kitchen Light", location="Garage")
    devices.append(twin)
    names = device_names(devices)
    assert "Kitchen Light in Kitchen" in names and "Kitchen Light in Garage" in names
    assert "Kitchen Light" not in names
    index = DeviceIndex(devices)
    assert index.resolve("Kitchen Light in Garage", for_mutation=True).key == "99"
    assert index.resolve("Kitchen Light in Kitchen", for_mutation=True).key == "2"
