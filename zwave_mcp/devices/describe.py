"""A device's state in words: short summaries for lists, readings with units and age, spoken sentences.

Everything here is read aloud by voice assistants: plain words, never zwave-js's labels ("Current value"),
enum names ("UnsecuredWithTimeout") or Python's `None`/`True`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from zwave_mcp.devices import model as m
from zwave_mcp.devices.colors import color_name
from zwave_mcp.devices.control import MODE_SETPOINT
from zwave_mcp.devices.levels import is_number, to_percent
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.presets import fan_speed_at, tone_name
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.safetext import plain_text

# Meter readings are named by unit; zwave-js labels them "Electric Consumption [W]".
_METER_LABELS = {"W": "Power", "kWh": "Energy", "V": "Voltage", "A": "Current"}
# Binary Sensor types whose "on" means a thing was detected ("water detected" / "no water").
_CONTACT = frozenset({"Door/Window"})
# Notification states as people say them (zwave-js's texts otherwise, lower-cased).
_NOTIFICATION_WORDS = {
    "motion detection": "motion detected",
    "motion detection, location provided": "motion detected",
    "intrusion": "intrusion detected",
    "intrusion, location provided": "intrusion detected",
    "tampering, product cover removed": "its cover has been removed",
    "tampering, product moved": "it has been moved",
    "window/door is open": "open",
    "window/door is closed": "closed",
    "water leak detected": "water leak detected",
    "smoke detected": "smoke detected",
    "low battery level": "battery low",
    "replace battery soon": "battery needs replacing soon",
    "replace battery now": "battery needs replacing now",
}
# zwave-js ThermostatMode → how its state reads ("is heating to 21 °C").
_MODE_VERBS = {1: "heating to", 2: "cooling to", 11: "heating to", 12: "cooling to"}
LOCK_SECURED = 255
LOW_BATTERY_PERCENT = 20
LOCK_UNKNOWN = 254


@dataclass(frozen=True, slots=True)
class Reading:
    label: str  # "Air temperature", "Power", "Motion", "Battery"
    value: Any
    unit: str | None
    age_s: float | None  # seconds since the device reported it (zwave-js lastUpdate); None if unknown
    value_id: str
    text: str | None = None  # state in words: "motion detected", "idle", "open"
    idle: bool = False  # a notification at rest ("idle"): says nothing in a sentence

    def spoken(self) -> str:
        """ "air temperature 21.6 °C", "motion detected", "battery 87 %"."""
        if self.value is None:
            return f"{self.label.lower()} not reported yet"
        if self.text is not None:
            return self.text
        if isinstance(self.value, int | float) and not is_number(self.value):  # inf, NaN, 10**400
            return f"{self.label.lower()} not readable"
        return f"{self.label.lower()} {_number(self.value)}{_unit(self.unit)}"


def readings(device: Device, now_ms: int) -> list[Reading]:
    """Every sensor, binary sensor, notification state, meter and battery value of the device."""
    out: list[Reading] = []
    for value in device.readings.get(Capability.SENSOR, []):
        out.append(_reading(value, value.label, now_ms))
    for value in device.readings.get(Capability.BINARY_SENSOR, []):
        label = str(value.property) if isinstance(value.property, str) else value.label
        out.append(_reading(value, label, now_ms, _binary_text(label, value.value)))
    for value in device.readings.get(Capability.NOTIFICATION, []):
        text = notification_text(value, value.value)
        out.append(_reading(value, value.label, now_ms, text, idle=value.value == 0))
    for value in device.readings.get(Capability.METER, []):
        out.append(_reading(value, _METER_LABELS.get(value.unit or "", value.label), now_ms))
    if (battery := device.values.get(m.BATTERY_LEVEL)) is not None:
        out.append(_reading(battery, "Battery", now_ms))
    return out


def spoken_readings(found: list[Reading]) -> list[str]:
    """Readings as a sentence lists them: resting notifications left out, the same news said once."""
    said: list[str] = []
    for r in found:
        if r.idle and r.value is not None:
            continue
        phrase = r.spoken()
        if phrase not in said:
            said.append(phrase)
    return said


def _binary_text(label: str, value: Any) -> str | None:
    if value is None:
        return None
    if label in _CONTACT:
        return "open" if value else "closed"
    if label == "Any":
        return "triggered" if value else "clear"
    return f"{label.lower()} detected" if value else f"no {label.lower()}"


def notification_text(value: ZValue, raw: Any) -> str | None:
    """A Notification state in words: "motion detected", "idle"; None when never reported."""
    if raw is None:
        return None
    if raw == 0:
        return "idle"
    text = value.state_text(raw)
    if text is None:
        return f"{value.label.lower()} {_number(raw)}"
    return _NOTIFICATION_WORDS.get(text.casefold(), _words(text))


def _reading(value: ZValue, label: str, now_ms: int, text: str | None = None, idle: bool = False) -> Reading:
    age = None if value.last_update_ms is None else max(0.0, (now_ms - value.last_update_ms) / 1000)
    return Reading(label, value.value, value.unit, age, value.value_id, text, idle)


def state_summary(device: Device) -> str:
    """Short state for lists: "on", "30 %", "locked, door closed", "heating to 21 °C, 20.8 °C now";
    a low battery is added: "locked, door closed, battery low (8 %)"."""
    text = _state_summary(device)
    battery = _low_battery(device)
    return f"{text}, battery low ({battery})" if battery and "battery" not in text else text


def _low_battery(device: Device) -> str | None:
    value = device.values.get(m.BATTERY_LEVEL)
    if value is None or not is_number(value.value) or value.value > LOW_BATTERY_PERCENT:
        return None
    return f"{_number(value.value)}{_unit(value.unit)}"


def _without_battery(summary: str) -> str:
    return summary.split(", battery low (")[0]


NO_READINGS = "no readings"


def _state_summary(device: Device) -> str:
    v = device.values
    if not device.understood and device.unclaimed:
        return "not understood yet"
    if device.has(Capability.LOCK):
        return _lock_summary(device)
    if device.has(Capability.THERMOSTAT):
        mode, temperature = _thermostat_parts(device)
        return f"{mode}, {temperature} now" if temperature else mode
    if device.has(Capability.COVER):
        return _cover_summary(v[m.COVER_TARGET], v.get(m.COVER_CURRENT))
    if device.has(Capability.FAN) and m.LEVEL_TARGET in v:
        return _fan_summary(device)
    if m.VALVE_TARGET in v:
        opened = _truthy(v.get(m.VALVE_CURRENT) or v[m.VALVE_TARGET])
        return "unknown" if opened is None else ("open" if opened else "closed")
    if device.has(Capability.SIREN) and m.SWITCH_TARGET in v:
        sounding = _truthy(v.get(m.SWITCH_CURRENT) or v[m.SWITCH_TARGET])
        return "unknown" if sounding is None else ("sounding" if sounding else "silent")
    if m.SIREN_TONE in v:
        watch = v.get(m.SIREN_TONE_CURRENT) or v[m.SIREN_TONE]
        if not is_number(watch.value):
            return "unknown"
        tone = tone_name(device, watch.value)
        return "silent" if watch.value == 0 else (f"sounding {tone.lower()}" if tone else "sounding")
    if device.has(Capability.DIMMER):
        level = level_percent(v.get(m.LEVEL_CURRENT))
        text = "unknown" if level is None else ("off" if level == 0 else f"{level} %")
        colour = current_color(device)
        if colour is not None and level:
            text += f", {colour}"
        return text
    if device.has(Capability.SWITCH):
        on = is_on(device)
        text = "unknown" if on is None else ("on" if on else "off")
        power = next((r for r in device.readings.get(Capability.METER, []) if r.unit == "W"), None)
        if power is not None and isinstance(power.value, int | float):
            text += f", {_number(power.value)} W"
        return text
    found = readings(device, 0)
    if len(device.capabilities) > 1:
        found = [r for r in found if r.label != "Battery"]  # a sensor's battery is not its state
    return ", ".join(spoken_readings(found)) or NO_READINGS


def sentence(device: Device) -> str:
    """One sentence a voice assistant can say about the device."""
    name = device.name
    if device.has(Capability.THERMOSTAT):
        mode, temperature = _thermostat_parts(device)
        return f"{name} is {mode}; it is {temperature} now." if temperature else f"{name} is {mode}."
    if not device.understood and device.unclaimed:
        return f"{name} is not understood yet: zwave-mcp does not know what it does."
    summary = state_summary(device)
    if device.kind in m.SENSORS:
        return f"{name} reports {_and_last(summary)}."
    if summary == NO_READINGS:  # no values at all yet (a node zwave-js-ui has not interviewed)
        return f"{name} has not reported anything yet."
    battery = _low_battery(device)
    low = f"; its battery is low ({battery})" if battery else ""
    summary = _without_battery(summary)
    if device.has(Capability.LOCK) and lock_state(device) is None:
        opened = door_open(device)
        door = "" if opened is None else f", and the door is {'open' if opened else 'closed'}"
        return f"{name} has not reported whether it is locked{door}{low}."
    if device.has(Capability.COVER) and summary == "position unknown":
        return f"{name} has not reported its position yet{low}."
    if summary.startswith("unknown") and m.VALVE_TARGET in device.values:
        return f"{name} has not reported whether it is open{low}."
    if summary.startswith("unknown"):
        power = summary.partition(", ")[2]
        drawing = f"; it is drawing {power}" if power else ""
        return f"{name} has not reported whether it is on{drawing}{low}."
    if device.has(Capability.SWITCH) and not device.has(Capability.DIMMER) and summary.endswith(" W"):
        summary = summary.replace(", ", " and drawing ", 1)
    elif device.kind in (Capability.DIMMER, Capability.COLOR) and summary[:1].isdigit():
        summary = f"on at {summary}"
    return f"{name} is {summary}{low}."


def _fan_summary(device: Device) -> str:
    """ "off", "on at medium", "on at 40 %" (a fan's speed by name when its model says its speeds)."""
    current = device.values.get(m.LEVEL_CURRENT) or device.values[m.LEVEL_TARGET]
    level = level_percent(current)
    if level is None:
        return "unknown"
    speed = fan_speed_at(device, current.value) if device.data.get("fan_speeds") else None
    return "off" if level == 0 else (f"on at {speed.name} speed" if speed else f"on at {level} %")


def _truthy(value: ZValue) -> bool | None:
    if value.value is None:
        return None
    return value.value is True or (is_number(value.value) and value.value > 0)


def is_on(device: Device) -> bool | None:
    """Switched on (any level above 0)? None when the device has not said."""
    current = device.values.get(m.LEVEL_CURRENT) or device.values.get(m.SWITCH_CURRENT)
    if current is None or not (isinstance(current.value, bool) or is_number(current.value)):
        return None  # nothing, or something that is no switch state ("1", an object): not "off"
    return current.value is True or (is_number(current.value) and current.value > 0)


def current_color(device: Device) -> str | None:
    """The colour a bulb reports: "warm white", "red", "#ff5000"; None if it has not said."""
    current = device.values.get(m.COLOR_CURRENT)
    hex_value = device.values.get(m.COLOR_HEX)
    return color_name(
        current.value if current is not None else None, hex_value.value if hex_value is not None else None
    )


def lock_state(device: Device) -> str | None:
    """ "locked" / "unlocked"; None when not reported (or the lock itself does not know)."""
    current = device.values.get(m.LOCK_CURRENT)
    if current is None or not is_number(current.value) or current.value == LOCK_UNKNOWN:
        return None
    return "locked" if current.value == LOCK_SECURED else "unlocked"


def door_open(device: Device) -> bool | None:
    """What the lock says about its door: True open, False closed, None not reported."""
    door = device.values.get(m.LOCK_DOOR)
    if door is None or not isinstance(door.value, str):
        return None
    said = door.value.strip().casefold()  # zwave-js says "open" or "closed"; anything else tells nothing
    return True if said == "open" else False if said == "closed" else None


def _lock_summary(device: Device) -> str:
    state = lock_state(device)
    text = state or "lock state unknown"
    opened = door_open(device)
    if opened is None:
        return text
    if opened:
        return "locked, but the door is open" if state == "locked" else f"{text} and the door is open"
    return f"{text}, door closed"


def _thermostat_parts(device: Device) -> tuple[str, str | None]:
    """("heating to 20 °C", "20.8 °C"): what it is set to, and the room temperature it reports."""
    mode = device.values.get(m.THERMOSTAT_MODE)
    temperature = device.values.get(m.THERMOSTAT_TEMPERATURE)
    now = (
        f"{_number(temperature.value)}{_unit(temperature.unit)}"
        if temperature is not None and is_number(temperature.value)
        else None
    )
    if mode is None or mode.value is None:
        setpoints = [s for s in device.setpoints().values() if is_number(s.value)]
        if len(setpoints) == 1:
            return f"set to {_number(setpoints[0].value)}{_unit(setpoints[0].unit)}", now
        return "not reporting its mode yet", now
    if mode.value == 0:
        return "off", now
    setpoint = device.setpoints().get(MODE_SETPOINT.get(mode.value, -1))
    target = (
        f"{_number(setpoint.value)}{_unit(setpoint.unit)}"
        if setpoint is not None and is_number(setpoint.value)
        else None
    )
    verb = _MODE_VERBS.get(mode.value)
    if verb and target:
        return f"{verb} {target}", now
    mode_text = _words(mode.state_text() or f"mode {mode.value}")
    return (f"in {mode_text} mode at {target}" if target else f"in {mode_text} mode"), now


def _cover_summary(target: ZValue, current: ZValue | None) -> str:
    watch = current or target
    if watch.value is None:
        return "position unknown"
    if watch.property in ("currentState", "targetState"):  # Barrier Operator: Closed, Opening, Stopped…
        return _words(watch.state_text() or f"state {watch.value}")
    level = level_percent(watch)
    if level is None:
        return "position unknown"
    if level == 0:
        return "closed"
    return "open" if level == 100 else f"{level} % open"


def cover_open(device: Device) -> bool | None:
    """Is the cover (blind, garage door) open at all? None when not reported."""
    watch = device.values.get(m.COVER_CURRENT) or device.values.get(m.COVER_TARGET)
    if watch is None or not is_number(watch.value):
        return None
    if watch.property in ("currentState", "targetState"):
        return watch.value != 0  # 0 closed; opening, stopped part-way and open all let people in
    return watch.value > (watch.min or 0)


def level_percent(value: ZValue | None) -> int | None:
    if value is None or not is_number(value.value):
        return None
    return to_percent(value.value, value)


def _words(text: str) -> str:
    """An enum-like label as words: "UnsecuredWithTimeout" → "unsecured with timeout", "Auto changeover"."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text).replace("_", " ")
    return " ".join(spaced.split()).lower()


def _and_last(listing: str) -> str:
    """ "a, b, c" → "a, b and c" (for a sentence; lists keep the commas)."""
    head, sep, tail = listing.rpartition(", ")
    return f"{head} and {tail}" if sep else listing


def _number(x: Any) -> str:
    return f"{x:g}" if is_number(x) else plain_text(str(x)[:200], 40)  # what a broken gateway reports


def _unit(unit: str | None) -> str:
    return f" {unit}" if unit else ""


def change_phrase(device: Device | None, value: ZValue, new: Any) -> str:
    """What one reported change means, to follow the device's name: "turned on", "went to 40 %",
    "reported air temperature 21.7 °C". Uses the value's role in the device, never its zwave-js label
    when a plainer word exists."""
    role = (
        next((r for r, v in device.values.items() if v.value_id == value.value_id), None) if device else None
    )
    if new is None:
        return f"reported an unknown {_noun(role, value)}"
    if isinstance(new, int | float) and not isinstance(new, bool) and not is_number(new):  # inf, NaN
        return f"reported an unreadable {_noun(role, value)}"
    told = role is not None and role.endswith(".target")
    if role in _MOVES:
        start, stop = _MOVES[role]
        return start if new is True else stop
    if role == m.LEVEL_RESTORE:
        return "was told to go back to its last level"
    if role in (m.COLOR_CURRENT, m.COLOR_HEX, m.COLOR_TARGET):
        colour = color_name(new if isinstance(new, dict) else None, new if isinstance(new, str) else None)
        if role == m.COLOR_TARGET:
            return f"was told to change colour to {colour}" if colour else "was told to change colour"
        return f"reported its colour as {colour}" if colour else "reported no colour (all channels off)"
    if role in (m.SWITCH_CURRENT, m.SWITCH_TARGET):
        on = new is True or (is_number(new) and new > 0)
        return f"was told to turn {'on' if on else 'off'}" if told else f"turned {'on' if on else 'off'}"
    if role in (m.LEVEL_CURRENT, m.LEVEL_TARGET) and is_number(new):
        percent = to_percent(new, value)
        if told:
            return "was told to turn off" if percent == 0 else f"was told to go to {percent} %"
        return "turned off" if percent == 0 else f"went to {percent} %"
    if role in (m.COVER_CURRENT, m.COVER_TARGET):
        if value.property in ("currentState", "targetState") or not is_number(new):
            return f"is {_words(value.state_text(new) or f'state {new}')}"
        percent = to_percent(new, value)
        where = "closed" if percent == 0 else ("open" if percent == 100 else f"{percent} % open")
        return f"was told to be {where}" if told else ("closed" if percent == 0 else f"is now {where}")
    if role in (m.VALVE_CURRENT, m.VALVE_TARGET):
        opened = new is True or (is_number(new) and new > 0)
        return f"was told to {'open' if opened else 'close'}" if told else ("opened" if opened else "closed")
    if role in (m.SIREN_TONE, m.SIREN_TONE_CURRENT) and is_number(new):
        tone = tone_name(device, new) if device is not None else None
        if new == 0:
            return "was told to go quiet" if role == m.SIREN_TONE else "went quiet"
        return f"started sounding {tone.lower()}" if tone else "started sounding"
    if role == m.SIREN_VOLUME and is_number(new):
        return f"had its volume set to {_number(new)} %"
    if role == m.THERMOSTAT_FAN_MODE:
        return f"switched its fan to {_words(value.state_text(new) or str(new))}"
    if role == m.THERMOSTAT_FAN_STATE:
        return f"reported its fan {_words(value.state_text(new) or str(new))}"
    if role in (m.TILT_CURRENT, m.TILT_TARGET) and is_number(new):
        percent = to_percent(new, value)
        return f"was told to tilt its slats to {percent} %" if told else f"tilted its slats to {percent} %"
    if role in (m.LOCK_CURRENT, m.LOCK_TARGET) and is_number(new):
        state = "locked" if new == LOCK_SECURED else "unlocked"
        if new == LOCK_UNKNOWN:
            return "does not know whether it is locked"
        return f"was told to {state[:-2]}" if told else state
    if role == m.LOCK_DOOR and isinstance(new, str):
        return f"reported its door {new.lower()}"
    if role in (m.LOCK_BOLT, m.LOCK_LATCH) and isinstance(new, str):
        return f"reported its {role.split('.')[1]} {new.lower()}"
    if role == m.THERMOSTAT_MODE:
        return (
            "was switched off"
            if new == 0
            else f"switched to {_words(value.state_text(new) or str(new))} mode"
        )
    if role == m.THERMOSTAT_OPERATING:
        return f"is now {_words(value.state_text(new) or str(new))}"
    if role is not None and role.startswith(m.SETPOINT_PREFIX):
        name = (value.property_key_name or "").lower()
        return f"{name + ' ' if name else ''}setpoint set to {_number(new)}{_unit(value.unit)}"
    if role == m.BATTERY_LEVEL:
        return f"reported battery {_number(new)}{_unit(value.unit)}"
    if device is not None:
        for cap, found in device.readings.items():
            if any(v.value_id == value.value_id for v in found):
                return "reported " + _reading_phrase(cap, value, new)
    text = value.state_text(new)
    shown = (
        _words(text) if text else (_number(new) if not isinstance(new, bool) else ("on" if new else "off"))
    )
    return f"reported {_words(value.label)} {shown}{_unit(value.unit) if not text else ''}"


# Start/stop-level-change values: what writing true (start) or false (stop) to them means.
_MOVES = {
    m.LEVEL_UP: ("started brightening", "stopped brightening"),
    m.LEVEL_DOWN: ("started dimming", "stopped dimming"),
    m.COVER_UP: ("started opening", "stopped opening"),
    m.COVER_DOWN: ("started closing", "stopped closing"),
}
_ROLE_NOUNS = {
    m.SWITCH_TARGET: "target state",
    m.SWITCH_CURRENT: "state",
    m.LEVEL_TARGET: "target level",
    m.LEVEL_CURRENT: "level",
    m.COVER_TARGET: "target position",
    m.COVER_CURRENT: "position",
    m.LOCK_TARGET: "target lock state",
    m.LOCK_CURRENT: "lock state",
    m.LOCK_DOOR: "door state",
    m.LOCK_BOLT: "bolt state",
    m.LOCK_LATCH: "latch state",
    m.THERMOSTAT_MODE: "mode",
    m.THERMOSTAT_OPERATING: "operating state",
    m.THERMOSTAT_TEMPERATURE: "temperature",
    m.BATTERY_LEVEL: "battery level",
    m.COLOR_TARGET: "target colour",
    m.COLOR_CURRENT: "colour",
    m.COLOR_HEX: "colour",
    m.LEVEL_UP: "movement",
    m.LEVEL_DOWN: "movement",
    m.COVER_UP: "movement",
    m.COVER_DOWN: "movement",
    m.LEVEL_RESTORE: "last-level setting",
    m.TILT_TARGET: "target tilt",
    m.TILT_CURRENT: "tilt",
    m.VALVE_TARGET: "target valve state",
    m.VALVE_CURRENT: "valve state",
    m.SIREN_TONE: "tone",
    m.SIREN_TONE_CURRENT: "tone",
    m.SIREN_VOLUME: "volume",
    m.SIREN_DEFAULT_TONE: "default tone",
    m.THERMOSTAT_FAN_MODE: "fan mode",
    m.THERMOSTAT_FAN_STATE: "fan state",
}


def _noun(role: str | None, value: ZValue) -> str:
    """What a value is, in words: "level", "heating setpoint", "power", "motion state"."""
    if role in _ROLE_NOUNS:
        return _ROLE_NOUNS[role]
    if role is not None and role.startswith(m.SETPOINT_PREFIX):
        return f"{(value.property_key_name or '').lower()} setpoint".strip()
    if value.command_class == 50 and value.unit in _METER_LABELS:  # Meter
        return _METER_LABELS[value.unit].lower()
    if value.command_class == 48 and isinstance(value.property, str):  # Binary Sensor
        return f"{value.property.lower()} state"
    return _words(value.label)


def _reading_phrase(cap: Capability, value: ZValue, new: Any) -> str:
    if cap == Capability.BINARY_SENSOR:
        label = str(value.property) if isinstance(value.property, str) else value.label
        return _binary_text(label, new) or f"{label.lower()} not reported"
    if cap == Capability.NOTIFICATION:
        text = notification_text(value, new) or "nothing"
        return f"{value.label.lower()} back to idle" if text == "idle" else text
    label = _METER_LABELS.get(value.unit or "", value.label) if cap == Capability.METER else value.label
    return f"{label.lower()} {_number(new)}{_unit(value.unit)}"


def after_change_note(device: Device, action: str, *, confirmed: bool) -> str:
    """What the device's state adds to a change, as a sentence ("" when nothing): the door stands open
    behind a lock (whatever became of the command), a colour confirmed on a bulb that is off."""
    if action in ("lock", "unlock") and door_open(device):
        return "The door is open, so the lock cannot secure it." if action == "lock" else "The door is open."
    if action == "set_color" and confirmed and device.has(Capability.DIMMER):
        level = level_percent(device.values.get(m.LEVEL_CURRENT))
        if level == 0:
            return f"{device.name} is off, so the new colour shows when it is turned on."
    return ""
