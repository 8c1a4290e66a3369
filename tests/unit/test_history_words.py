"""How stored changes are said, and the state words `get_last_event` searches for."""

from __future__ import annotations

from typing import Any

import pytest

from zwave_mcp.gateway.model import ValueState, ZValue
from zwave_mcp.history.words import describe_gateway, describe_status, describe_value, spoken_label


def value(
    cc: int, prop: str, label: str, states: dict[Any, str] | None = None, unit: str | None = None
) -> ZValue:
    return ZValue(
        f"1-{cc}-0-{prop}",
        1,
        cc,
        "",
        0,
        prop,
        label=label,
        unit=unit,
        states=[ValueState(k, v) for k, v in (states or {}).items()],
    )


LOCK = value(98, "currentMode", "Current lock mode", {0: "Unsecured", 255: "Secured"})
MOTION = value(
    113, "Home Security-Motion sensor status", "Motion sensor status", {0: "idle", 8: "Motion detection"}
)


def notification(kind: int, prop: str, variable: str, states: dict[int, str]) -> ZValue:
    """A Notification value as zwave-js describes it (notifications.json): property, variable, type."""
    return ZValue(
        f"1-113-0-{prop}-{variable}", 1, 113, "Notification", 0, prop, variable, label=variable,
        cc_specific={"notificationType": kind}, states=[ValueState(k, v) for k, v in states.items()],
    )  # fmt: skip


SMOKE = notification(1, "Smoke Alarm", "Sensor status", {0: "idle", 2: "Smoke detected"})
LEAK = notification(5, "Water Alarm", "Sensor status", {0: "idle", 2: "Water leak detected"})
TYPED_MOTION = notification(7, "Home Security", "Motion sensor status", {0: "idle", 8: "Motion detection"})
TAMPER = notification(7, "Home Security", "Cover status", {0: "idle", 3: "Tampering, product cover removed"})
DOOR = value(
    113, "Access Control-Door state", "Door state", {22: "Window/door is open", 23: "Window/door is closed"}
)


@pytest.mark.parametrize(
    ("zvalue", "raw", "text", "state"),
    [
        (LOCK, 255, "was locked", "locked"),
        (LOCK, 0, "was unlocked", "unlocked"),
        (MOTION, 8, "detected motion", "motion"),
        (MOTION, 0, "motion sensor status went idle", None),  # no notification type: said as it is
        (SMOKE, 2, "detected smoke", "smoke"),
        (SMOKE, 0, "reported no smoke", None),
        (LEAK, 2, "detected a water leak", "water_leak"),
        (TYPED_MOTION, 8, "detected motion", "motion"),
        (TYPED_MOTION, 0, "stopped sensing motion", None),  # "Garage Motion motion stopped" it was
        (TAMPER, 3, "detected tampering", "tamper"),
        (DOOR, 22, "was opened", "opened"),
        (DOOR, 23, "was closed", "closed"),
        (value(37, "currentValue", "Current value"), True, "was turned on", "on"),
        (value(38, "currentValue", "Current value"), 0, "was turned off", "off"),
        (value(38, "currentValue", "Current value"), 45, "was set to 45 %", "on"),
        (value(48, "Motion", "Sensor state (Motion)"), True, "detected motion", "motion"),
        (value(48, "Motion", "Sensor state (Motion)"), False, "stopped sensing motion", None),
        # A lock's bolt and latch by their part (it was "reported current status of the bolt locked").
        (value(98, "boltStatus", "Current status of the bolt"), "locked", "reported its bolt locked", None),
        (value(98, "latchStatus", "Current status of the latch"), "open", "reported its latch open", None),
        (
            value(49, "Air temperature", "Air temperature", unit="°C"),
            21.25,
            "reported air temperature 21.25 °C",
            None,
        ),
        (
            value(50, "value", "Electric Consumption [kWh]", unit="kWh"),
            12.5,
            "reported energy 12.5 kWh",  # the quantity's word (quantities.py), not zwave-js's label
            None,
        ),
        (None, True, "reported on", None),
    ],
)
def test_values(zvalue: ZValue | None, raw: Any, text: str, state: str | None) -> None:
    phrase = describe_value(zvalue, raw)
    assert (phrase.text, phrase.state) == (text, state)
    assert "None" not in phrase.text and "True" not in phrase.text


def test_status_and_gateway() -> None:
    assert describe_status("Dead").text == "went dead" and describe_status("Dead").state == "dead"
    assert describe_status("Awake").state == "awake"
    assert describe_gateway("client_online", False).text == "zwave-js-ui went offline"
    assert describe_gateway("client_online", True).state == "online"


def test_spoken_label() -> None:
    assert spoken_label("Electric Consumption [kWh]") == "electric consumption"


@pytest.mark.parametrize("raw", [float("inf"), float("nan"), 10**400])
def test_a_number_no_float_holds_is_said_to_be_unreadable(raw: Any) -> None:
    """It was spoken as "reported remaining duration nan"; a level of 10**400 as "was set to 100 %"."""
    temperature = describe_value(value(49, "Air temperature", "Air temperature", unit="°C"), raw)
    assert temperature.text == "reported an unreadable air temperature"
    level = describe_value(value(38, "currentValue", "Current value"), raw)
    assert "%" not in level.text and "inf" not in level.text and "nan" not in level.text
