"""A stored change as a spoken phrase ("was unlocked", "detected motion") and a state word to search for.

The phrase comes from the value's metadata (command class, label, states, unit) in the live picture; a
value the picture no longer has is described by its stored number or text. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from zwave_mcp.answers import capital
from zwave_mcp.devices.kinds.lock import lock_state_phrase
from zwave_mcp.devices.levels import is_number
from zwave_mcp.devices.presses import press_of
from zwave_mcp.devices.quantities import quantity_of
from zwave_mcp.devices.readings import alarm_state_words
from zwave_mcp.devices.sensor_types import alarm_state, sensor_type, triggered
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.safetext import outside_text
from zwave_mcp.zwave.classes import CC, DoorLockProps

OPENINGS = ("door", "window", "tilt")  # binary sensor types whose alarm is "opened"

# Words someone asks "when did it last …" with; each names a state a change can reach ("any": anything).
LastState = Literal[
    "any",
    "opened",
    "closed",
    "locked",
    "unlocked",
    "motion",
    "on",
    "off",
    "dead",
    "alive",
    "asleep",
    "awake",
    "online",
    "offline",
    "pressed",
    "smoke",
    "co",
    "co2",
    "heat",
    "freeze",
    "water_leak",
    "tamper",
    "jammed",
    "glass_break",
    "intrusion",
]
STATUS_PHRASES = {
    "Dead": ("went dead", "dead"),
    "Alive": ("came back", "alive"),
    "Asleep": ("fell asleep", "asleep"),
    "Awake": ("woke up", "awake"),
    "Unknown": ("lost its status", None),
}


@dataclass(frozen=True, slots=True)
class Phrase:
    text: str  # "was unlocked"
    state: str | None  # one of LastState's words, or None
    shown: Any  # the value in words or a number, for the structured result


def spoken_label(label: str) -> str:
    """'Electric Consumption [kWh]' → 'electric consumption' (the unit is said with the number)."""
    return re.sub(r"\s*\[[^\]]*\]", "", label).strip().lower() or label.lower()


def reading_label(value: ZValue) -> str:
    """A numeric reading's name: its quantity's ("Energy", "Air temperature"), else zwave-js's label."""
    quantity = quantity_of(value)
    if quantity is not None:
        return capital(quantity.label)
    return value.label or str(value.property)


def number(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".")
    return str(value)


def _open_close(text: str) -> str | None:
    lowered = text.lower()
    if "open" in lowered and "not open" not in lowered:
        return "opened"
    if "closed" in lowered or "close" in lowered:
        return "closed"
    return None


def describe_value(value: ZValue | None, raw: Any) -> Phrase:
    """How a value's new state is said."""
    if value is None:
        shown = "on" if raw is True else "off" if raw is False else raw
        return Phrase(f"reported {number(shown)}", None, shown)
    if (press := press_of(value, raw)) is not None:  # "button 2 was held"
        return Phrase(press.words(), "pressed", press.kind)
    if (
        lock_said := lock_state_phrase(value.command_class, value.property, value.property_key, raw)
    ) is not None:
        state = "jammed" if lock_said == "jammed" else None
        return Phrase(lock_said, state, value.state_text(raw) or raw)  # "jammed", "is no longer jammed"
    cc = value.command_class
    label = (value.label or str(value.property)).strip()
    lowered_label = spoken_label(label)
    text = value.state_text(raw)
    unit = f" {value.unit}" if value.unit else ""
    if cc == CC.DOOR_LOCK and value.property == "currentMode":
        if raw == 255 or (text and text.lower() == "secured"):
            return Phrase("was locked", "locked", "locked")
        if raw == 0 or (text and "unsecured" in text.lower()):
            return Phrase("was unlocked", "unlocked", "unlocked")
    if cc == CC.LOCK and value.property == "locked" and isinstance(raw, bool):  # the old Lock command class
        state = "locked" if raw else "unlocked"
        return Phrase(f"was {state}", state, state)
    if cc == CC.DOOR_LOCK and value.property == "doorStatus" and isinstance(raw, str):
        state = _open_close(raw)
        if state:
            return Phrase(f"was {state}", state, state)
    if (
        cc == CC.DOOR_LOCK
        and value.property in (DoorLockProps.BOLT, DoorLockProps.LATCH)
        and isinstance(raw, str)
    ):
        part = "bolt" if value.property == DoorLockProps.BOLT else "latch"  # not "current status of the bolt"
        return Phrase(f"reported its {part} {raw.lower()}", None, raw)
    if cc == CC.BINARY_SWITCH and isinstance(raw, bool):
        return Phrase(f"was turned {'on' if raw else 'off'}", "on" if raw else "off", "on" if raw else "off")
    if cc == CC.MULTILEVEL_SWITCH and is_number(raw):
        if raw == 0:
            return Phrase("was turned off", "off", 0)
        return Phrase(f"was set to {min(int(raw), 100)} %", "on", raw)
    if cc == CC.BARRIER_OPERATOR and text:
        state = _open_close(text)
        return Phrase(f"was {state or text.lower()}", state, text)
    if cc in (CC.NOTIFICATION, CC.BINARY_SENSOR) and (said := _binary_sensor(value, raw, text)) is not None:
        return said
    if cc == CC.NOTIFICATION:
        if text:
            lowered = text.lower()
            if "motion" in lowered and "idle" not in lowered:
                return Phrase("detected motion", "motion", text)
            state = _open_close(text)
            if state and ("door" in lowered or "window" in lowered):
                return Phrase(f"was {state}", state, state)
            if raw == 0 or "idle" in lowered:
                return Phrase(f"{lowered_label} went idle", None, text)
            if (words := alarm_state_words(value, raw)) is not None:  # "its smoke alarm is being tested"
                return Phrase(f"reported that {words}", None, text)
            return Phrase(f"reported {lowered}", None, text)
        if raw == 0:
            return Phrase(f"{lowered_label} went idle", None, 0)
    if cc == CC.BINARY_SENSOR and isinstance(raw, bool):
        if "motion" in lowered_label:
            return Phrase(
                "detected motion" if raw else "stopped sensing motion", "motion" if raw else None, raw
            )
        if "door" in lowered_label or "window" in lowered_label:
            state = "opened" if raw else "closed"
            return Phrase(f"was {state}", state, state)
        return Phrase(f"{lowered_label} turned {'on' if raw else 'off'}", None, raw)
    if text:
        return Phrase(f"{lowered_label} became {text}", None, text)
    if isinstance(raw, bool):
        return Phrase(f"{lowered_label} turned {'on' if raw else 'off'}", "on" if raw else "off", raw)
    if is_number(raw):
        quantity = quantity_of(value)  # "energy", not zwave-js's "Electric Consumption [kWh]"
        return Phrase(
            f"reported {quantity.label if quantity else lowered_label} {number(raw)}{unit}", None, raw
        )
    if isinstance(raw, int | float):  # infinity, NaN, an integer beyond any float: no reading at all
        return Phrase(f"reported an unreadable {lowered_label}", None, None)
    if raw is None:
        return Phrase(f"{lowered_label} was cleared", None, None)
    return Phrase(f"reported {lowered_label} {outside_text(raw, 60)}", None, outside_text(raw, 60))


def _binary_sensor(value: ZValue, raw: Any, text: str | None) -> Phrase | None:
    """A binary sensor of a known type (sensor_types): "detected smoke", "was opened", "stopped sensing
    motion" (each follows the device's name, "Garage Motion stopped sensing motion")."""
    kind = sensor_type(value)
    alarm = alarm_state(value, raw)
    if kind is None or alarm is None:
        return None
    if kind.word in OPENINGS:
        state = "opened" if alarm else "closed"
        return Phrase(f"was {state}", state, state)
    if alarm:
        hit = triggered(value, raw) or kind
        return Phrase(f"detected {hit.noun}", hit.word, text or raw)
    idle = "stopped sensing motion" if kind.word == "motion" else f"reported {kind.idle}"
    return Phrase(idle, None, text or raw)


def describe_status(status: Any) -> Phrase:
    text, state = STATUS_PHRASES.get(str(status), (f"became {status}", None))
    return Phrase(text, state, status)


def describe_gateway(fact: str, value: Any) -> Phrase:
    if fact == "client_online":
        return Phrase(
            "zwave-js-ui came online" if value else "zwave-js-ui went offline",
            "online" if value else "offline",
            value,
        )
    if fact == "driver_ready":
        return Phrase("the Z-Wave driver became ready" if value else "the Z-Wave driver stopped", None, value)
    # What zwave-js-ui said, as the history kept it (a row from before the edge bounded it may be huge).
    said = outside_text(value) if isinstance(value, str) else value
    if fact == "controller_status":
        return Phrase(f"the Z-Wave controller became {said}", None, said)
    return Phrase(f"zwave-js-ui reported {fact.replace('_', ' ')} {outside_text(said, 60)}", None, said)
