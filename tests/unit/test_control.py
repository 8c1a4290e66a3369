"""Intent → plan on every device of the captured house: exact writes, expectations and error messages."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.test_devices_build import house
from zwave_mcp.devices import model as m
from zwave_mcp.devices.control import available_actions, control_change, plan_control
from zwave_mcp.devices.describe import after_change_note
from zwave_mcp.devices.errors import ActionNotSupported, InvalidValue, StateUnknown
from zwave_mcp.devices.kinds.thermostat import setpoints
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.writes import ControlPlan, Expectation
from zwave_mcp.gateway.model import ValueState
from zwave_mcp.policy import Policy
from zwave_mcp.policy.actions import ACTIONS


@pytest.fixture
def d() -> dict[str, Device]:
    return house()  # fresh per test: some tests change values


ACTIONS_BY_DEVICE = {
    "2": ["on", "off", "toggle"],
    "3": ["on", "off", "toggle", "dim", "set_level", "stop"],
    "4": [],
    "5": ["lock", "unlock"],
    "6": ["set_temperature", "set_mode"],
    "7": [],
    "8": ["on", "off", "toggle"],
    "9": ["on", "off", "toggle", "dim", "set_level", "stop", "set_color"],
    "10": ["open", "close", "stop", "set_position", "set_tilt"],  # Window Covering with slats
    "11.1": ["on", "off", "toggle"],
    "11.2": ["on", "off", "toggle"],
}


def test_available_actions_of_every_device(d: dict[str, Device]) -> None:
    assert {k: available_actions(v) for k, v in d.items()} == ACTIONS_BY_DEVICE


W = tuple[str, Any]  # (value id, target)
E = tuple[str, Any, str]  # (value id, expected, match)

# (device key, action, kwargs) → (writes, expectations, summary, sensitive)
PLANS: list[tuple[str, str, dict[str, Any], list[W], list[E], str, bool]] = [
    (
        "2",
        "on",
        {},
        [("2-37-0-targetValue", True)],
        [("2-37-0-currentValue", True, "equals")],
        "turn on Kitchen Light",
        False,
    ),
    (
        "2",
        "off",
        {},
        [("2-37-0-targetValue", False)],
        [("2-37-0-currentValue", False, "equals")],
        "turn off Kitchen Light",
        False,
    ),
    (
        "2",
        "toggle",
        {},
        [("2-37-0-targetValue", True)],
        [("2-37-0-currentValue", True, "equals")],
        "turn on Kitchen Light",
        False,
    ),  # captured currentValue is false
    (
        "8",
        "on",
        {},
        [("8-37-0-targetValue", True)],
        [("8-37-0-currentValue", True, "equals")],
        "turn on Coffee Maker Plug",
        False,
    ),
    (
        "11.1",
        "on",
        {},
        [("11-37-1-targetValue", True)],
        [("11-37-1-currentValue", True, "equals")],
        "turn on Porch Double Switch",
        False,
    ),
    (
        "11.2",
        "off",
        {},
        [("11-37-2-targetValue", False)],
        [("11-37-2-currentValue", False, "equals")],
        "turn off Porch Double Switch 2",
        False,
    ),
    (
        "3",
        "on",
        {},
        [("3-38-0-restorePrevious", True)],
        [("3-38-0-currentValue", None, "nonzero")],
        "turn on Living Room Lamp",
        False,
    ),
    (
        "3",
        "off",
        {},
        [("3-38-0-targetValue", 0)],
        [("3-38-0-currentValue", 0, "equals")],
        "turn off Living Room Lamp",
        False,
    ),
    (
        "3",
        "toggle",
        {},
        [("3-38-0-targetValue", 0)],
        [("3-38-0-currentValue", 0, "equals")],
        "turn off Living Room Lamp",
        False,
    ),  # captured currentValue is 40
    (
        "3",
        "dim",
        {"level": 30},
        [("3-38-0-targetValue", 30)],
        [("3-38-0-currentValue", 30, "equals")],
        "set Living Room Lamp to 30 %",
        False,
    ),
    (
        "3",
        "set_level",
        {"level": 100},
        [("3-38-0-targetValue", 99)],
        [("3-38-0-currentValue", 99, "equals")],
        "set Living Room Lamp to 100 %",
        False,
    ),
    (
        "3",
        "set_level",
        {"level": "50%"},
        [("3-38-0-targetValue", 50)],
        [("3-38-0-currentValue", 50, "equals")],
        "set Living Room Lamp to 50 %",
        False,
    ),
    (
        "3",
        "dim",
        {"level": "+10"},
        [("3-38-0-targetValue", 50)],
        [("3-38-0-currentValue", 50, "equals")],
        "set Living Room Lamp to 50 %",
        False,
    ),  # 40 of 99 = 40 %, +10
    (
        "3",
        "dim",
        {"level": "-20"},
        [("3-38-0-targetValue", 20)],
        [("3-38-0-currentValue", 20, "equals")],
        "set Living Room Lamp to 20 %",
        False,
    ),
    (
        "3",
        "dim",
        {"level": "+90"},
        [("3-38-0-targetValue", 99)],
        [("3-38-0-currentValue", 99, "equals")],
        "set Living Room Lamp to 100 %",
        False,
    ),  # relative changes stop at 100 %
    (
        "3",
        "dim",
        {"value": 5},
        [("3-38-0-targetValue", 5)],
        [("3-38-0-currentValue", 5, "equals")],
        "set Living Room Lamp to 5 %",
        False,
    ),
    ("3", "stop", {}, [("3-38-0-Up", False)], [], "stop Living Room Lamp", False),
    (
        "9",
        "dim",
        {"level": 50},
        [("9-38-0-targetValue", 50)],
        [("9-38-0-currentValue", 50, "equals")],
        "set Bedroom Color Bulb to 50 %",
        False,
    ),
    (
        "9",
        "set_color",
        {"color": "#ff5000"},
        [("9-51-0-targetColor", {"warmWhite": 0, "coldWhite": 0, "red": 255, "green": 80, "blue": 0})],
        [
            (
                "9-51-0-currentColor",
                {"warmWhite": 0, "coldWhite": 0, "red": 255, "green": 80, "blue": 0},
                "contains",
            )
        ],
        "set Bedroom Color Bulb to #ff5000",
        False,
    ),
    (
        "9",
        "set_color",
        {"color": "FF5000"},
        [("9-51-0-targetColor", {"warmWhite": 0, "coldWhite": 0, "red": 255, "green": 80, "blue": 0})],
        [
            (
                "9-51-0-currentColor",
                {"warmWhite": 0, "coldWhite": 0, "red": 255, "green": 80, "blue": 0},
                "contains",
            )
        ],
        "set Bedroom Color Bulb to #ff5000",
        False,
    ),
    (
        "9",
        "set_color",
        {"value": "Red"},
        [("9-51-0-targetColor", {"warmWhite": 0, "coldWhite": 0, "red": 255, "green": 0, "blue": 0})],
        [
            (
                "9-51-0-currentColor",
                {"warmWhite": 0, "coldWhite": 0, "red": 255, "green": 0, "blue": 0},
                "contains",
            )
        ],
        "set Bedroom Color Bulb to red (#ff0000)",
        False,
    ),
    (
        "9",
        "set_color",
        {"color": "warm white"},
        [("9-51-0-targetColor", {"warmWhite": 255, "coldWhite": 0, "red": 0, "green": 0, "blue": 0})],
        [
            (
                "9-51-0-currentColor",
                {"warmWhite": 255, "coldWhite": 0, "red": 0, "green": 0, "blue": 0},
                "contains",
            )
        ],
        "set Bedroom Color Bulb to warm white",
        False,
    ),
    (
        "5",
        "lock",
        {},
        [("5-98-0-targetMode", 255)],
        [("5-98-0-currentMode", 255, "equals")],
        "lock Front Door Lock",
        False,
    ),
    (
        "5",
        "unlock",
        {},
        [("5-98-0-targetMode", 0)],
        [("5-98-0-currentMode", 0, "equals")],
        "unlock Front Door Lock",
        True,
    ),
    (
        "6",
        "set_temperature",
        {"value": 21.5},
        [("6-67-0-setpoint-1", 21.5)],
        [("6-67-0-setpoint-1", 21.5, "equals")],
        "set Hallway Thermostat heating to 21.5 °C",
        False,
    ),  # mode is Heat
    (
        "6",
        "set_temperature",
        {"value": "+1.5"},
        [("6-67-0-setpoint-1", 21.5)],
        [("6-67-0-setpoint-1", 21.5, "equals")],
        "set Hallway Thermostat heating to 21.5 °C",
        False,
    ),
    (
        "6",
        "set_temperature",
        {"value": 25, "setpoint": "cooling"},
        [("6-67-0-setpoint-2", 25)],
        [("6-67-0-setpoint-2", 25, "equals")],
        "set Hallway Thermostat cooling to 25 °C",
        False,
    ),
    (
        "6",
        "set_temperature",
        {"value": "22", "setpoint": 1},
        [("6-67-0-setpoint-1", 22)],
        [("6-67-0-setpoint-1", 22, "equals")],
        "set Hallway Thermostat heating to 22 °C",
        False,
    ),
    (
        "6",
        "set_mode",
        {"mode": "heat"},
        [("6-64-0-mode", 1)],
        [("6-64-0-mode", 1, "equals")],
        "set Hallway Thermostat to heat mode",
        False,
    ),
    (
        "6",
        "set_mode",
        {"mode": "AUTO"},
        [("6-64-0-mode", 3)],
        [("6-64-0-mode", 3, "equals")],
        "set Hallway Thermostat to auto mode",
        False,
    ),
    (
        "10",
        "open",
        {},
        [("10-106-0-targetValue-13", 99)],
        [("10-106-0-currentValue-13", 99, "equals")],
        "open Living Room Blinds",
        False,
    ),
    (
        "10",
        "close",
        {},
        [("10-106-0-targetValue-13", 0)],
        [("10-106-0-currentValue-13", 0, "equals")],
        "close Living Room Blinds",
        False,
    ),
    (
        "10",
        "set_position",
        {"position": 50},
        [("10-106-0-targetValue-13", 50)],
        [("10-106-0-currentValue-13", 50, "equals")],
        "set Living Room Blinds to 50 % open",
        False,
    ),
    ("10", "stop", {}, [("10-106-0-levelChangeUp-13", False)], [], "stop Living Room Blinds", False),
]


def needs_confirmation(plan: ControlPlan) -> bool:
    """Sensitivity is the gate's judgement of the plan's effects (what it does), with no configuration."""
    policy = Policy()
    return any(
        policy.judge(e.device, e.words, e.argument, unit=e.unit, action_text="x").needs_confirmation
        for e in control_change(plan).effects
    )


@pytest.mark.parametrize(("key", "action", "kwargs", "writes", "expectations", "summary", "sensitive"), PLANS)
def test_plans(
    d: dict[str, Device],
    key: str,
    action: str,
    kwargs: dict[str, Any],
    writes: list[W],
    expectations: list[E],
    summary: str,
    sensitive: bool,
) -> None:
    plan = plan_control(d[key], action, **kwargs)
    assert [(w.value.value_id, w.target) for w in plan.writes] == writes
    assert [(e.value_id, e.expected, e.match) for e in plan.expectations] == expectations
    assert (plan.summary, needs_confirmation(plan), plan.action) == (summary, sensitive, action)
    # Writes go to writable values of this very device, found in the inventory.
    for w in plan.writes:
        assert w.value.writeable and w.value in d[key].node.values.values()


def test_every_available_action_of_every_device_is_planned(d: dict[str, Device]) -> None:
    needs = {
        "dim": {"level": 10},
        "set_level": {"level": 10},
        "set_position": {"position": 10},
        "set_temperature": {"value": 21},
        "set_mode": {"mode": "Off"},
        "set_color": {"color": "blue"},
        "set_tilt": {"position": 10},
    }
    for device in d.values():
        for action in available_actions(device):
            plan = plan_control(device, action, **needs.get(action, {}))
            assert plan.writes, (device.key, action)
            assert plan.expectations or action == "stop", (device.key, action)


@pytest.mark.parametrize(
    ("said", "meant"), [("Turn On", "on"), ("switch-off", "off"), ("brightness", "set_level")]
)
def test_action_words(d: dict[str, Device], said: str, meant: str) -> None:
    assert plan_control(d["3"], said, level=20).action == meant


def test_unsupported_action_lists_what_the_device_can(d: dict[str, Device]) -> None:
    with pytest.raises(ActionNotSupported) as err:
        plan_control(d["2"], "unlock")
    assert str(err.value) == "Kitchen Light cannot unlock; it can: on, off, toggle."
    assert err.value.actions == ["on", "off", "toggle"]
    with pytest.raises(ActionNotSupported) as err:
        plan_control(d["2"], "dim", level=30)
    assert str(err.value) == "Kitchen Light cannot dim; it can: on, off, toggle."
    with pytest.raises(ActionNotSupported) as err:
        plan_control(d["4"], "on")
    assert str(err.value) == "Bedroom Sensor cannot be controlled; it only reports readings."
    with pytest.raises(ActionNotSupported) as err:
        plan_control(d["5"], "zwave/+/#\x00" + "x" * 500)
    assert str(err.value) == "Front Door Lock cannot zwave/+/#?" + "x" * 49 + "…; it can: lock, unlock."


@pytest.mark.parametrize(
    ("key", "action", "kwargs", "message"),
    [
        ("3", "dim", {"level": 150}, "Living Room Lamp level must be from 0 to 100 %; got 150."),
        ("3", "dim", {"level": -1}, "Living Room Lamp level must be from 0 to 100 %; got -1."),
        (
            "3",
            "dim",
            {"level": "bright"},
            "Living Room Lamp level must be a number, or a change like +10 or -20; got 'bright'.",
        ),
        ("3", "dim", {}, "Say what to set Living Room Lamp level to: a number, or a change like +10 or -20."),
        ("3", "dim", {"level": float("nan")}, "Living Room Lamp level must be a number; got nan."),
        (
            "10",
            "set_position",
            {"position": 101},
            "Living Room Blinds position must be from 0 to 100 %; got 101.",
        ),
        (
            "6",
            "set_temperature",
            {"value": 35},
            "Hallway Thermostat heating setpoint must be from 5 to 30 °C; got 35.",
        ),
        (
            "6",
            "set_temperature",
            {"value": 10, "setpoint": "cooling"},
            "Hallway Thermostat cooling setpoint must be from 16 to 32 °C; got 10.",
        ),
        (
            "6",
            "set_temperature",
            {"value": "+11"},
            "Hallway Thermostat heating setpoint must be from 5 to 30 °C; got 31.",
        ),
        (
            "6",
            "set_temperature",
            {"value": 20, "setpoint": "eco"},
            "Hallway Thermostat has no 'eco' setpoint; it has: heating, cooling.",
        ),
        (
            "6",
            "set_mode",
            {"mode": "turbo"},
            "Hallway Thermostat has no mode 'turbo'; it has: Off, Heat, Cool, Auto.",
        ),
        ("6", "set_mode", {}, "Say which mode to set Hallway Thermostat to: Off, Heat, Cool, Auto."),
        (
            "9",
            "set_color",
            {"color": "blurple"},
            "Bedroom Color Bulb cannot be set to 'blurple'; give a colour name like red or warm white, "
            "or a hex code like #ff5000.",
        ),
        (
            "9",
            "set_color",
            {"color": "#ff50"},
            "Bedroom Color Bulb cannot be set to '#ff50'; give a colour name like red or warm white, "
            "or a hex code like #ff5000.",
        ),
    ],
)
def test_invalid_values_name_the_allowed_range(
    d: dict[str, Device], key: str, action: str, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidValue) as err:
        plan_control(d[key], action, **kwargs)
    assert str(err.value) == message


def test_ranges_come_from_the_metadata(d: dict[str, Device]) -> None:
    heating = setpoints(d["6"])[1]
    assert plan_control(d["6"], "set_temperature", value=heating.max).writes[0].target == heating.max
    with pytest.raises(InvalidValue):
        plan_control(d["6"], "set_temperature", value=(heating.max or 0) + 0.5)


def test_setpoint_follows_the_mode(d: dict[str, Device]) -> None:
    mode = d["6"].values[m.THERMOSTAT_MODE]
    mode.value = 2  # Cool
    assert plan_control(d["6"], "set_temperature", value=24).writes[0].value.value_id == "6-67-0-setpoint-2"
    mode.value = 3  # Auto: both setpoints apply, so the caller must say which
    with pytest.raises(InvalidValue) as err:
        plan_control(d["6"], "set_temperature", value=24)
    assert (
        str(err.value)
        == "Hallway Thermostat is in Auto mode, so say which setpoint to set: heating, cooling."
    )


def test_toggle_and_relative_need_a_known_state(d: dict[str, Device]) -> None:
    d["2"].values[m.SWITCH_CURRENT].value = None
    with pytest.raises(StateUnknown) as err:
        plan_control(d["2"], "toggle")
    assert (
        str(err.value)
        == "Kitchen Light has not reported whether it is on, so it cannot be toggled; say on or off."
    )
    d["3"].values[m.LEVEL_CURRENT].value = None
    with pytest.raises(StateUnknown) as err:
        plan_control(d["3"], "dim", level="+10")
    assert str(err.value) == (
        "Living Room Lamp has not reported its level, so it cannot be changed by +10 %; "
        "give a level from 0 to 100 instead."
    )


def test_toggle_follows_the_current_state(d: dict[str, Device]) -> None:
    d["2"].values[m.SWITCH_CURRENT].value = True
    assert plan_control(d["2"], "toggle").writes[0].target is False
    d["3"].values[m.LEVEL_CURRENT].value = 0
    assert plan_control(d["3"], "toggle").writes[0].value.value_id == "3-38-0-restorePrevious"


def test_expectation_matching(d: dict[str, Device]) -> None:
    v = d["3"].values[m.LEVEL_CURRENT]
    assert Expectation(v, 30).is_met(30) and not Expectation(v, 30).is_met(29)
    assert Expectation(v, 21.5).is_met(21.5000001)
    assert Expectation(v, True).is_met(True) and not Expectation(v, True).is_met(1)
    assert Expectation(v, None, "nonzero").is_met(40) and not Expectation(v, None, "nonzero").is_met(0)
    color = Expectation(v, {"red": 255, "green": 80}, "contains")
    assert color.is_met({"warmWhite": 0, "red": 255, "green": 80, "blue": 0})
    assert not color.is_met({"red": 255, "green": 0}) and not color.is_met("ff5000")


def test_entry_covers_are_sensitive_to_open(d: dict[str, Device]) -> None:
    blinds = d["10"]
    blinds.is_entry = True  # what a garage door (Barrier Operator or a cover named "Garage Door") gets
    assert needs_confirmation(plan_control(blinds, "open"))
    assert needs_confirmation(plan_control(blinds, "set_position", position=10))
    assert not needs_confirmation(plan_control(blinds, "close"))


def test_actions_constant_covers_every_planner() -> None:
    seen = {a for actions in ACTIONS_BY_DEVICE.values() for a in actions}
    assert seen | {"unlock"} <= set(ACTIONS)


def test_a_thermostat_that_is_off_sets_its_one_usable_setpoint_and_says_it_is_off(
    d: dict[str, Device],
) -> None:
    """Issue 43 item 6: a thermostat in off mode, told "set it to 22". With one setpoint its modes use, that
    one is set and the answer says the mode is off; with several, the question lists only those."""
    thermostat = d["6"]
    mode = thermostat.values[m.THERMOSTAT_MODE]
    mode.value = 0
    with pytest.raises(InvalidValue) as asked:
        plan_control(thermostat, "set_temperature", value=22)
    assert str(asked.value).endswith("is in Off mode, so say which setpoint to set: heating, cooling.")
    # A heat-only thermostat that publishes a cooling setpoint too (zwave-js makes one per reported type).
    mode.update_meta(states=(ValueState(0, "Off"), ValueState(1, "Heat")))
    plan = plan_control(thermostat, "set_temperature", value=22)
    assert plan.writes[0].value.value_id == setpoints(thermostat)[1].value_id
    assert after_change_note(thermostat, "set_temperature", confirmed=True) == (
        "Hallway Thermostat is in off mode, so it works to it once it is switched on."
    )
