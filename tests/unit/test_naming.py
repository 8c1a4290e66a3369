"""What a node may be renamed to, and a room called: names that would mean something else are refused."""

from __future__ import annotations

import pytest

from tests.unit.test_devices_build import house
from zwave_mcp.devices.naming import name_problem, room_problem
from zwave_mcp.devices.resolve import DeviceIndex

INDEX = DeviceIndex(house().values(), {"porch light": "Porch Double Switch 1", "upstairs": ["Bedroom"]})


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("   ", "blank"),
        ("!?", "blank"),
        ("2", "device number"),
        ("Node 11.2", "device number"),
        ("lights", "kind of device"),
        ("The Locks", "kind of device"),
        ("all lights", "every device"),
        ("Everything", "every device"),
        ("kitchen", "room or group"),
        ("Kitchen and Bedroom", "room or group"),
        ("upstairs", "room or group"),
        ("Living Room Lamp", "the name of Living Room Lamp (Living Room)"),
        ("porch light", "an alias of Porch Double Switch 1"),
    ],
)
def test_names_that_would_mean_something_else_are_refused(name: str, why: str) -> None:
    problem = name_problem(INDEX, name, [name], node_id=2)
    assert problem is not None and why in problem, problem


@pytest.mark.parametrize("name", ["Kitchen Light", "kitchen light", "Pantry Light", "Porch Lamp", "Light 2"])
def test_ordinary_names_and_a_node_keeping_its_own_are_allowed(name: str) -> None:
    assert name_problem(INDEX, name, [name], node_id=2) is None


def test_every_device_name_of_the_node_is_checked() -> None:
    """Node 11's devices are named after it with their endpoint: called "Kitchen Light" they would be
    "Kitchen Light 1" and "Kitchen Light 2", no one's names; node 3 (one device) called so would clash."""
    assert name_problem(INDEX, "Kitchen Light", ["Kitchen Light 1", "Kitchen Light 2"], node_id=11) is None
    clash = name_problem(INDEX, "Kitchen Light", ["Kitchen Light"], node_id=3)
    assert clash is not None and "already the name of Kitchen Light (Kitchen)" in clash


@pytest.mark.parametrize(
    ("room", "refused"), [("Lights", True), ("all", True), ("7", True), ("Pantry", False), ("", False)]
)
def test_rooms_named_like_kinds_or_numbers_are_refused(room: str, refused: bool) -> None:
    assert (room_problem(room) is not None) is refused
