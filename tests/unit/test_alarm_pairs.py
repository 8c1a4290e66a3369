"""Older smoke/CO alarms that report only the legacy Alarm v1 pair (issue 43 item 26): a First Alert (BRK)
ZCOMBO of Home Assistant issue #46080 (fixtures/devices/smoke_co_brk_zcombo_alarm_v1_state.json), read as
zwave-js's device file for the model maps each pair (`compat.alarmMapping` of
`packages/config/config/devices/0x0138/zcombo.json`). Main said "Bedroom has not reported anything yet."
and listed both values as unused."""

from __future__ import annotations

from pathlib import Path

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.describe import change_phrase, sentence
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.questions import Question, answer
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"


def zcombo() -> Device:
    nodes = [parse_node(raw) for raw in load_house_file(DEVICES / "smoke_co_brk_zcombo_alarm_v1_state.json")]
    (device,) = build_devices(n for n in nodes if n is not None and not n.is_controller)
    return device


def pair(device: Device) -> tuple[ZValue, ZValue]:
    values = {v.property: v for v in device.node.values.values()}
    return values["alarmType"], values["alarmLevel"]


def test_the_real_zcombo_reports_its_state_from_its_alarm_pair() -> None:
    """Its last pair, 13/255, is the power-up report the map reads as no smoke."""
    alarm = zcombo()
    assert alarm.kind is not None and alarm.kind.value == "binary_sensor"
    assert sentence(alarm) == "Bedroom reports no smoke."
    assert answer(Question.SMOKE, [alarm], "Bedroom", False).sentence == "No smoke at Bedroom."
    assert not [v for v in alarm.unclaimed if v.property in ("alarmType", "alarmLevel")]


def test_each_mapped_pair_is_what_the_file_says() -> None:
    alarm = zcombo()
    kind, level = pair(alarm)
    kind.value, level.value = 1, 255
    assert sentence(alarm) == "Bedroom reports smoke detected."
    assert answer(Question.SMOKE, [alarm], "Bedroom", False).sentence == "There is smoke at Bedroom."
    kind.value = 2
    assert sentence(alarm) == "Bedroom reports carbon monoxide detected."
    assert answer(Question.CO, [alarm], "Bedroom", False).sentence == "There is carbon monoxide at Bedroom."
    kind.value = 12  # the test button
    assert sentence(alarm) == "Bedroom reports its smoke alarm is being tested."
    assert answer(Question.SMOKE, [alarm], "Bedroom", False).sentence != "There is smoke at Bedroom."
    kind.value, level.value = 2, 0
    assert sentence(alarm) == "Bedroom reports no carbon monoxide."


def test_a_pair_the_file_does_not_map_says_nothing_raw() -> None:
    alarm = zcombo()
    kind, level = pair(alarm)
    kind.value, level.value = 0, 0
    assert sentence(alarm) == "Bedroom has not reported anything yet."
    kind.value = 7
    assert "7" not in sentence(alarm)


def test_a_change_of_the_pair_is_said_as_its_event() -> None:
    alarm = zcombo()
    kind, level = pair(alarm)
    assert change_phrase(alarm, kind, 1) == "reported smoke detected"  # with the level it holds, 255
    kind.value = 12
    assert change_phrase(alarm, level, 0) == "reported no smoke"
    assert change_phrase(alarm, kind, 9) == "reported an alarm code not known for this model"
