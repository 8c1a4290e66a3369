"""zwave-js's door and window variables (issue 43 item 5): "Opening state" (Closed/Open, and Tilted once the
node has reported a tilt; zwave-js 15.22, `packages/cc/src/cc/NotificationCC.ts`), the deprecated
"Door state (simple)" and "Door tilt state", and the "open in tilt position" state of "Door state". Read on
a real Zooz ZSE43 (which publishes all of Door state, Door state (simple) and Opening state) and on values
with the metadata zwave-js gives them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.describe import sentence
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.questions import Question, answer
from zwave_mcp.devices.readings import readings
from zwave_mcp.gateway.model import ValueState, ZNode, ZValue
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"
OPENING = {0: "Closed", 1: "Open"}
OPENING_TILT = {0: "Closed", 1: "Open", 2: "Tilted"}  # zwave-js adds state 2 once a tilt is reported
DOOR_STATE = {22: "Window/door is open", 23: "Window/door is closed", 5632: "Window/door is open in regular position", 5633: "Window/door is open in tilt position"}  # fmt: skip


def zse43(name: str = "Garage Side Door") -> Device:
    nodes = [parse_node(raw) for raw in load_house_file(DEVICES / "zooz_zse43_state.json")]
    (device,) = build_devices(n for n in nodes if n is not None)
    return replace(device, name=name)


def access_control(variable: str, states: dict[int, str], value: Any, node_id: int = 40) -> ZValue:
    return ZValue(
        f"{node_id}-113-0-Access Control-{variable}", node_id, 113, "Notification", 0, "Access Control",
        variable, label=variable, type="number", cc_specific={"notificationType": 6},
        states=[ValueState(k, v) for k, v in states.items()], value=value,
    )  # fmt: skip


def contact(name: str, *values: ZValue, node_id: int = 40) -> Device:
    """A battery door/window contact (device class Notification Sensor) with these Access Control values."""
    node = ZNode(
        node_id, name=name, generic_class=7, specific_class=1, values={v.value_id: v for v in values}
    )
    (device,) = build_devices([node])
    return device


def test_a_real_zse43_says_its_door_once() -> None:
    """The ZSE43 publishes Door state, Door state (simple) and Opening state: main said "is open; it
    reports open" (Opening state read as a notification of no type)."""
    door = zse43()
    assert sentence(door) == "Garage Side Door is open."
    opening = [r for r in readings(door, 0) if r.label == "Opening state"]
    assert [(r.sensor, r.alarm, r.text) for r in opening] == [("door", True, "door open")]
    assert answer(Question.OPEN, [door], "doors", False).sentence == "Garage Side Door is open."


def test_opening_state_closed_is_a_closed_door() -> None:
    door = contact("Back Door", access_control("Opening state", OPENING, 0))
    assert sentence(door) == "Back Door is closed."
    assert answer(Question.OPEN, [door], "doors", False).sentence == "No doors are open."


def test_opening_state_open_is_not_an_access_control_event() -> None:
    """Its 1 is "Open", not Access Control's event 1 (manual lock operation)."""
    door = contact("Back Door", access_control("Opening state", OPENING, 1))
    assert sentence(door) == "Back Door is open."


def test_a_tilted_window_is_said_tilted_and_counts_as_open() -> None:
    window = contact("Bathroom Window", access_control("Opening state", OPENING_TILT, 2))
    assert sentence(window) == "Bathroom Window is tilted."
    assert answer(Question.OPEN, [window], "Bathroom Window", False).sentence == "Bathroom Window is open."


def test_door_state_open_in_tilt_position_is_tilted() -> None:
    """Without Opening state (zwave-js before 15.22), Door state's 5633 is the tilt; "Door state (simple)"
    says only "open" for it, and the sentence says the more precise one."""
    window = contact(
        "Bathroom Window",
        access_control("Door state", DOOR_STATE, 5633),
        access_control("Door state (simple)", {22: "Window/door is open", 23: "Window/door is closed"}, 22),
    )
    assert sentence(window) == "Bathroom Window is tilted."


def test_the_deprecated_tilt_state_is_a_tilt_beside_the_old_door_state() -> None:
    """zwave-js before 15.22: "Door tilt state" (0 not tilted, 1 tilted) beside "Door state (simple)"."""
    window = contact(
        "Bathroom Window",
        access_control("Door state (simple)", {22: "Window/door is open", 23: "Window/door is closed"}, 22),
        access_control("Door tilt state", {0: "Window/door is not tilted", 1: "Window/door is tilted"}, 1),
    )
    assert {(r.sensor, r.text) for r in readings(window, 0)} == {("door", "door open"), ("tilt", "tilted")}
    assert sentence(window) == "Bathroom Window is open; it reports tilted."


def test_opening_state_supersedes_the_deprecated_variables() -> None:
    """Where zwave-js publishes Opening state, the deprecated variables say the same door again: left out."""
    window = contact(
        "Bathroom Window",
        access_control("Opening state", OPENING_TILT, 0),
        access_control("Door state (simple)", {22: "Window/door is open", 23: "Window/door is closed"}, 23),
        access_control("Door tilt state", {0: "Window/door is not tilted", 1: "Window/door is tilted"}, 0),
    )
    assert [r.label for r in readings(window, 0)] == ["Opening state"]
    assert sentence(window) == "Bathroom Window is closed."


def hoppe(handle: int | None) -> Device:
    """The real Hoppe eHandle with the "Door handle state" zwave-js 15.22 remaps its lock events to
    (Access Control 24 handle open, 25 handle closed; its metadata as `Notifications.ts` gives it)."""
    nodes = [parse_node(raw) for raw in load_house_file(DEVICES / "hoppe_ehandle_connectsense_state.json")]
    node = next(n for n in nodes if n is not None and not n.is_controller)
    states = {24: "Window/door handle is open", 25: "Window/door handle is closed"}
    value = access_control("Door handle state", states, handle, node_id=node.id)
    node.values[value.value_id] = value
    (device,) = build_devices([node])
    return replace(device, name="Bedroom Window")


def test_a_window_handle_says_its_handle_beside_its_window() -> None:
    """Main read the handle state as the window's (the Hoppe row took every Access Control value) and,
    knowing neither state, said nothing of it."""
    assert (
        sentence(hoppe(24))
        == "Bedroom Window is closed; it reports handle open, not tilted and battery 100 %."
    )
    assert (
        sentence(hoppe(25))
        == "Bedroom Window is closed; it reports not tilted, handle closed and battery 100 %."
    )
    assert answer(Question.OPEN, [hoppe(24)], "windows", False).sentence == "No windows are open."
