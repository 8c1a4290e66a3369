"""Binary sensors answered from their alarm state: "is there smoke?", "any leaks?", "which doors are open?",
on real devices (fixtures/devices: a First Alert ZCombo smoke/CO alarm, a ZP3111-5 motion sensor) and on
Notification values with zwave-js's own metadata (notifications.json) for the types no dump here carries."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.describe import sentence
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.questions import Question, answer
from zwave_mcp.devices.readings import readings
from zwave_mcp.devices.sensor_types import alarm_state, sensor_type
from zwave_mcp.gateway.model import ValueState, ZNode, ZValue
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"


def real(file: str, name: str) -> Device:
    parsed = (parse_node(raw) for raw in load_house_file(DEVICES / file))
    (found,) = build_devices([n for n in parsed if n is not None and not n.is_controller])
    return replace(found, name=name)


def notification(
    node_id: int, name: str, kind: int, variable: str, states: dict[int, str], value: Any
) -> Device:
    """A notification-only sensor as zwave-js describes it (property = type name, propertyKey = variable)."""
    prop = {5: "Water Alarm", 6: "Access Control"}[kind]
    zvalue = ZValue(
        f"{node_id}-113-0-{prop}-{variable}", node_id, 113, "Notification", 0, prop, variable,
        label=variable, type="number", cc_specific={"notificationType": kind},
        states=[ValueState(k, v) for k, v in states.items()], value=value,
    )  # fmt: skip
    node = ZNode(node_id, name=name, values={zvalue.value_id: zvalue})
    return Device(
        str(node_id), node_id, None, name, "", Capability.BINARY_SENSOR, (Capability.BINARY_SENSOR,), node,
        readings={Capability.NOTIFICATION: [zvalue]},
    )  # fmt: skip


def leak(node_id: int, name: str, value: Any) -> Device:
    return notification(node_id, name, 5, "Sensor status", {0: "idle", 2: "Water leak detected"}, value)


def door(node_id: int, name: str, value: Any) -> Device:
    states = {22: "Window/door is open", 23: "Window/door is closed"}
    return notification(node_id, name, 6, "Door state", states, value)


def sensor_value(device: Device, variable: str, prop: str | None = None) -> ZValue:
    return next(
        v for v in device.all_values() if v.property_key == variable and (prop is None or v.property == prop)
    )


def test_is_there_smoke_at_a_smoke_alarm() -> None:
    alarm = real("zcombo_smoke_co_alarm_state.json", "Hallway Smoke Alarm")
    assert answer(Question.SMOKE, [alarm], "Hallway Smoke Alarm", False).sentence == (
        "No smoke at Hallway Smoke Alarm."
    )
    assert sentence(alarm) == "Hallway Smoke Alarm reports no smoke, no carbon monoxide and battery 92 %."
    smoke = sensor_value(alarm, "Sensor status", "Smoke Alarm")
    smoke.value = 2  # zwave-js: "Smoke detected"
    got = answer(Question.SMOKE, [alarm], "Hallway Smoke Alarm", False)
    assert got.sentence == "There is smoke at Hallway Smoke Alarm." and got.matching == [alarm]
    assert sentence(alarm).startswith("Hallway Smoke Alarm reports smoke detected, no carbon monoxide")
    assert answer(Question.CO, [alarm], "Hallway Smoke Alarm", False).sentence == (
        "No carbon monoxide at Hallway Smoke Alarm."
    )
    smoke.value = None
    assert answer(Question.SMOKE, [alarm], "Hallway Smoke Alarm", False).sentence == (
        "Hallway Smoke Alarm has not reported smoke yet."
    )


def test_a_smoke_alarm_test_is_not_smoke() -> None:
    """The ZCombo's "Alarm status" variable (3: Smoke alarm test) is no smoke sensor."""
    alarm = real("zcombo_smoke_co_alarm_state.json", "Hallway Smoke Alarm")
    status = sensor_value(alarm, "Alarm status", "Smoke Alarm")
    assert sensor_type(status) is None
    status.value = 3
    assert answer(Question.SMOKE, [alarm], "Hallway Smoke Alarm", False).sentence == (
        "No smoke at Hallway Smoke Alarm."
    )


def test_smoke_anywhere_and_motion_in_a_house_of_real_sensors() -> None:
    alarm = real("zcombo_smoke_co_alarm_state.json", "Hallway Smoke Alarm")
    motion = real("zp3111-5_state.json", "Garage Motion")
    house = [alarm, motion, leak(40, "Laundry Leak Sensor", 0)]
    assert answer(Question.SMOKE, house, "devices", True).sentence == "No smoke anywhere (1 sensor checked)."
    assert (
        answer(Question.MOTION, house, "devices", True).sentence == "No motion anywhere (1 sensor checked)."
    )
    sensor_value(motion, "Motion sensor status").value = 8  # Motion detection
    assert answer(Question.MOTION, house, "devices", True).sentence == "There is motion at Garage Motion."
    assert (
        answer(Question.TAMPER, house, "devices", True).sentence
        == "No tampering anywhere (1 sensor checked)."
    )
    assert answer(Question.SMOKE, [motion], "garage devices", False).sentence == (
        "None of the garage devices can sense smoke."
    )


def test_any_leaks() -> None:
    sensors = [
        leak(40, "Laundry Leak Sensor", 0),
        leak(41, "Kitchen Leak Sensor", 0),
        leak(42, "Attic Leak", None),
    ]
    assert answer(Question.WATER_LEAK, sensors, "devices", True).sentence == (
        "No water leak anywhere (2 sensors checked); Attic Leak has not reported."
    )
    sensors[1].readings[Capability.NOTIFICATION][0].value = 2
    got = answer(Question.WATER_LEAK, sensors, "devices", True)
    assert got.sentence == (
        "There is a water leak at Kitchen Leak Sensor; 1 other sensor reports none; Attic Leak has not reported."
    )
    assert sentence(sensors[1]) == "Kitchen Leak Sensor reports water leak detected."


def test_a_door_sensor_of_notification_door_state_is_open_or_closed() -> None:
    front, back = door(50, "Front Door Sensor", 23), door(51, "Back Door Sensor", 22)
    assert [alarm_state(d.readings[Capability.NOTIFICATION][0], d.readings[Capability.NOTIFICATION][0].value) for d in (front, back)] == [False, True]  # fmt: skip
    assert answer(Question.OPEN, [front, back], "doors", False).sentence == (
        "1 of the 2 doors is open: Back Door Sensor."
    )
    assert (
        answer(Question.CLOSED, [front], "Front Door Sensor", False).sentence
        == "Front Door Sensor is closed."
    )
    assert sentence(back) == "Back Door Sensor is open."
    assert [r.sensor for r in readings(back, 0)] == ["door"]


def test_the_ecolink_door_sensor_is_a_door_by_its_discovery_row() -> None:
    """Ecolink DWZWAVE2: its door state is the Binary Sensor "Any" (the discovery table's quirk row says
    so); its Home Security "Cover status" lost its metadata in the dump, and still reads as tamper."""
    sensor = real("ecolink_door_sensor_state.json", "Back Door")
    assert {r.sensor for r in readings(sensor, 0)} >= {"door", "tamper"}
    assert sentence(sensor) == "Back Door is closed; it reports tampering detected and battery 61 %."
    assert answer(Question.OPEN, [sensor], "Back Door", False).sentence == "Back Door is not open."
    any_value = next(v for v in sensor.all_values() if v.property == "Any")
    any_value.value = True
    assert answer(Question.OPEN, [sensor], "doors", False).sentence == "Back Door is open."


def test_a_low_battery_is_said_once() -> None:
    """ZP3111-5 at 0 %: its level and its "Low battery level" flag say the same thing."""
    sensor = real("zp3111-5_state.json", "Hall Motion")
    low = next(v for v in sensor.all_values() if v.property == "isLow")
    low.value = True
    assert sentence(sensor).endswith("humidity 51.98 % and battery low (0 %).")


def test_a_lock_reports_its_door_and_a_window_handle_its_window() -> None:
    """August ASL-03: Door Lock "doorStatus" is its door sensor (as Home Assistant has it); the Hoppe
    eHandle's Access Control door state can be "open in tilt position": only a window tilts."""
    lock = real("lock_august_asl03_state.json", "Front Door")
    assert [(r.sensor, r.alarm, r.text) for r in readings(lock, 0) if r.sensor] == [
        ("door", False, "door closed")
    ]
    assert sentence(lock) == "Front Door is locked, door closed; battery 100 %."  # the door said once
    handle = real("hoppe_ehandle_connectsense_state.json", "Bedroom Window")
    assert {r.sensor for r in readings(handle, 0)} == {"window", "tilt", None}  # None: the battery
    assert sentence(handle) == "Bedroom Window is closed; it reports not tilted and battery 100 %."
    assert answer(Question.OPEN, [handle], "windows", False).sentence == "No windows are open."


def test_resting_statuses_are_no_news() -> None:
    """Zooz ZAC36 valve: "AC mains re-connected" and Battery values never reported are not said; its
    alarms (a jammed valve, a disconnected backup battery) are."""
    valve = real("zooz_zac36_titan_valve_actuator_state.json", "Water Main")
    said = sentence(valve)
    assert said.startswith("Water Main is closed; no heat alarm, no leak, back-up battery disconnected")
    assert "valve jammed" in said and "re-connected" not in said and "not reported" not in said


def test_a_scene_controller_with_nothing_else_to_say() -> None:
    controller = real("central_scene_node_state.json", "Hall Buttons")
    assert sentence(controller) == "Hall Buttons have 2 buttons and report no readings."


def test_a_variable_naming_two_sensors_equally_is_the_one_its_first_state_names() -> None:
    """Heat Alarm's "Heat sensor status" names overheating and underheating once each: the sensor is the one
    its first named state is, whatever the process's string hashing (it was a set's order, so the same node
    was a heat alarm in one run and a freeze alarm in the next)."""

    def heat_status(states: dict[int, str]) -> ZValue:
        return ZValue(
            "78-113-0-Heat Alarm-Heat sensor status", 78, 113, "Notification", 0, "Heat Alarm",
            "Heat sensor status", label="Heat sensor status", type="number",
            cc_specific={"notificationType": 4}, states=[ValueState(k, v) for k, v in states.items()],
        )  # fmt: skip

    overheat_first = heat_status({0: "idle", 2: "Overheat detected", 6: "Underheat detected"})
    underheat_first = heat_status({0: "idle", 6: "Underheat detected", 2: "Overheat detected"})
    kinds = [sensor_type(v) for v in (overheat_first, underheat_first)]
    assert [k.word if k else None for k in kinds] == ["heat", "freeze"]
