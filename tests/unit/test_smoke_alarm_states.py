"""A smoke/CO alarm's test, silenced and end-of-life states are said with the alarm they belong to, not as
zwave-js's labels (issue 43 item 7), on the real First Alert ZCombo-G (`fixtures/devices/
zcombo_smoke_co_alarm_state.json`), set to the states its own metadata lists: Smoke Alarm "Alarm status" 3
Smoke alarm test and 6 Alarm silenced, CO Alarm "Alarm status" 6 Alarm silenced, CO Alarm "Maintenance
status" 5 Replacement required, End-of-life, System "Hardware status" 1 System hardware failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.describe import sentence
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.questions import Question, answer
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.history.words import describe_value
from zwave_mcp.simulator.dumps import load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"


def alarm() -> Device:
    parsed = (parse_node(raw) for raw in load_house_file(DEVICES / "zcombo_smoke_co_alarm_state.json"))
    (found,) = build_devices([n for n in parsed if n is not None and not n.is_controller])
    return found


def variable(device: Device, notification: str, key: str) -> ZValue:
    return next(
        v
        for v in device.node.values.values()
        if v.command_class == 113 and v.property == notification and v.property_key == key
    )


@pytest.mark.parametrize(
    ("notification", "key", "state", "said"),
    [
        ("Smoke Alarm", "Alarm status", 3, "its smoke alarm is being tested"),
        ("Smoke Alarm", "Alarm status", 6, "its smoke alarm is silenced"),
        ("CO Alarm", "Alarm status", 6, "its carbon monoxide alarm is silenced"),
        ("CO Alarm", "Maintenance status", 5, "its carbon monoxide sensor has reached the end of its life"),
        ("System", "Hardware status", 1, "a hardware failure"),
    ],
)
def test_each_state_is_said_with_its_alarm(notification: str, key: str, state: int, said: str) -> None:
    device = alarm()
    variable(device, notification, key).value = state
    assert sentence(device) == f"nodeID_3 reports no smoke, no carbon monoxide, {said} and battery 92 %."


def test_a_test_is_neither_smoke_nor_news_once_it_ends() -> None:
    device = alarm()
    status = variable(device, "Smoke Alarm", "Alarm status")
    status.value = 3
    assert answer(Question.SMOKE, [device], "nodeID_3", False).sentence == "No smoke at nodeID_3."
    status.value = 0
    assert sentence(device) == "nodeID_3 reports no smoke, no carbon monoxide and battery 92 %."


def test_the_history_says_them_as_the_state_does() -> None:
    device = alarm()
    phrase = describe_value(variable(device, "Smoke Alarm", "Alarm status"), 3)
    assert phrase.text == "reported that its smoke alarm is being tested"
    end = describe_value(variable(device, "CO Alarm", "Maintenance status"), 5)
    assert end.text == "reported that its carbon monoxide sensor has reached the end of its life"
