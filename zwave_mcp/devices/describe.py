"""A device's state in words: short summaries for lists, readings with units and age, spoken sentences.

Everything here is read aloud by voice assistants: plain words, never zwave-js's labels ("Current value"),
enum names ("UnsecuredWithTimeout") or Python's `None`/`True`.
"""

from __future__ import annotations

from typing import Any

from zwave_mcp.answers import and_list, plural
from zwave_mcp.devices import model as m
from zwave_mcp.devices.boundary import guarded
from zwave_mcp.devices.colors import color_name
from zwave_mcp.devices.errors import still_loading
from zwave_mcp.devices.kinds import first_answer
from zwave_mcp.devices.levels import is_number, level_percent, to_percent
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.presets import model_speed_at
from zwave_mcp.devices.presses import press_of, press_values
from zwave_mcp.devices.quantities import quantity_of
from zwave_mcp.devices.readings import (
    LOW_BATTERY_PERCENT,
    OPENINGS,
    change_words,
    readings,
    sentence_phrases,
    spoken_readings,
)
from zwave_mcp.devices.readings import enum_words as _words
from zwave_mcp.devices.readings import number as _number
from zwave_mcp.devices.readings import unit_text as _unit
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.names import agreeing
from zwave_mcp.zwave.classes import CC

# What a door or window contact says (sensor_types): said as the state of the device it is.
_OPENINGS = frozenset(f"{thing} {state}" for thing in OPENINGS for state in ("open", "closed"))


@guarded("describing it", lambda device: NOT_UNDERSTOOD)
def state_summary(device: Device) -> str:
    """Short state for lists: "on", "30 %", "locked, door closed", "heating to 21 °C, 20.8 °C now";
    a low battery is added: "locked, door closed, battery low (8 %)"."""
    if device.node.loading:
        return STILL_LOADING
    text = _state_summary(device)
    battery = _low_battery(device)
    return f"{text}, battery low ({battery})" if battery and "battery" not in text else text


def _low_battery(device: Device) -> str | None:
    value = device.values.get(m.BATTERY_LEVEL)
    if value is None or not is_number(value.value) or value.value > LOW_BATTERY_PERCENT:
        return None
    return f"{_number(value.value)}{_unit(value.unit)}"


NO_READINGS = "no readings"
NOT_UNDERSTOOD = "not understood yet"
STILL_LOADING = "still loading"  # zwave-js-ui has not sent the device's values yet (ZNode.loading)


def _state_summary(device: Device, with_power: bool = True, with_slats: bool = False) -> str:
    v = device.values
    if device.fault is not None or (not device.understood and device.unclaimed):
        return NOT_UNDERSTOOD
    if (by_kind := first_answer(lambda kind: kind.summary(device, with_slats))) is not None:
        return by_kind
    if device.has(Capability.FAN) and m.LEVEL_TARGET in v:
        return _fan_summary(device)
    if device.has(Capability.DIMMER):
        level = level_percent(v.get(m.LEVEL_CURRENT))
        text = "unknown" if level is None else ("off" if level == 0 else f"{level} %")
        colour = current_color(device)
        if colour is not None and level:
            text += f", {colour}"
        return text
    if device.kind == Capability.COLOR:
        # A colour light with no brightness of its own (a multisensor's LED): its colour is its state.
        colour = current_color(device)
        reported = any(
            device.values.get(r) is not None and device.values[r].value is not None
            for r in (m.COLOR_CURRENT, m.COLOR_HEX)
        )
        return f"lit {colour}" if colour else ("off" if reported else "unknown")
    if device.has(Capability.SWITCH):
        on = is_on(device)
        text = "unknown" if on is None else ("on" if on else "off")
        power = next((r for r in readings(device, 0) if r.quantity == "power" and r.unit == "W"), None)
        if with_power and power is not None and is_number(power.value):
            text += f", {_number(power.value)} W"
        return text
    said = spoken_readings(readings(device, 0))
    if len(device.capabilities) > 1:
        state = [p for p in said if not p.startswith("battery ")]  # a sensor's battery is not its state
        said = state or said  # … unless it is all it reports (a remote)
    return ", ".join(said) or NO_READINGS


def _not_described(device: Device) -> str:
    return f"{device.name} is {NOT_UNDERSTOOD}: zwave-mcp could not describe it (the server log says why)."


@guarded("describing it", _not_described)
def sentence(device: Device, *, last_press: str | None = None) -> str:
    """One sentence a voice assistant can say about the device: its state first (with the power it draws:
    "is on, using 12.5 W, 3.2 kWh in total"), then every other reading it reports: alarms, the
    environment, battery. A sensor's readings in the same order, its power and energy before the battery.
    `last_press`: a remote's latest press in words with its time, said last where a clock is at hand
    ("the last press was button 2, held at 20:14")."""
    text = agreeing(device.name, _sentence(device))
    return f"{text[:-1]}; {last_press}." if last_press and not device.node.loading else text


def _sentence(device: Device) -> str:
    name = device.name
    if device.node.loading:
        return still_loading(name)
    found = readings(device, 0)
    if (by_kind := first_answer(lambda kind: kind.sentence(device, found))) is not None:
        return by_kind
    if device.fault is not None:
        return _not_described(device)
    if not device.understood and device.unclaimed:
        return f"{name} is not understood yet: zwave-mcp does not know what it does."
    power, others = sentence_phrases(found)
    if not any(device.has(c) for c in m.ACTUATORS):  # a sensor or a remote
        if not power and not others:
            buttons = len(press_values(device))
            if buttons:  # a remote: its presses are events (recent and last events), not a state
                return f"{name} has {plural(buttons, 'button')} and reports no readings."
            return f"{name} has not reported anything yet."
        opening = next((p for p in others if p in _OPENINGS), None)
        if not power and opening:  # a door or window contact: "Back Door is closed"
            rest = [p for p in others if p != opening]
            tail = f"; it reports {and_list(rest)}" if rest else ""
            return f"{name} is {opening.split()[1]}{tail}."
        if power and power[0].startswith(("using", "producing")):
            tail = f"; it reports {and_list(others)}" if others else ""
            return f"{name} is {', '.join(power)}{tail}."
        battery = [p for p in others if p.startswith("battery ")]
        rest = [p for p in others if p not in battery]
        return f"{name} reports {and_list(rest + power + battery)}."  # alarms, environment, power, battery
    summary = _state_summary(device, with_power=False, with_slats=True)
    if summary == NO_READINGS:  # no values at all yet (a node zwave-js-ui has not interviewed)
        return f"{name} has not reported anything yet."
    unknown = True
    if (opening := first_answer(lambda kind: kind.opening(device, summary))) is not None:
        primary = opening
    elif summary.startswith("unknown"):
        primary = "has not reported whether it is on"
    else:
        unknown = False
        if device.kind in (Capability.DIMMER, Capability.COLOR) and summary[:1].isdigit():
            summary = f"on at {summary}"
        primary = f"is {summary}"
    text = f"{name} {primary}"
    if power:
        text += f"; it is {', '.join(power)}" if unknown else f", {', '.join(power)}"
    if others:
        text += f"; {and_list(others)}"
    return text + "."


def _fan_summary(device: Device) -> str:
    """ "off", "on at medium", "on at 40 %" (a fan's speed by name when its model says its speeds)."""
    current = device.values.get(m.LEVEL_CURRENT) or device.values[m.LEVEL_TARGET]
    level = level_percent(current)
    if level is None:
        return "unknown"
    speed = model_speed_at(device, current.value)
    return "off" if level == 0 else (f"on at {speed.name} speed" if speed else f"on at {level} %")


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


def change_phrase(device: Device | None, value: ZValue, new: Any) -> str:
    """What one reported change means, to follow the device's name: "turned on", "went to 40 %",
    "reported air temperature 21.7 °C". Uses the value's role in the device, never its zwave-js label
    when a plainer word exists."""
    if (press := press_of(value, new)) is not None:
        return press.words()  # "WallMote button 2 was held"
    roles = [r for r, v in device.values.items() if v.value_id == value.value_id] if device else []
    # A value that is both written and reported (an old lock's "locked") reports: its change is news.
    role = next((r for r in roles if not r.endswith(".target")), roles[0] if roles else None)
    if new is None:
        return f"reported an unknown {_noun(role, value)}"
    if isinstance(new, int | float) and not isinstance(new, bool) and not is_number(new):  # inf, NaN
        return f"reported an unreadable {_noun(role, value)}"
    told = role is not None and role.endswith(".target")
    if (said := first_answer(lambda kind: kind.change_phrase(device, value, role, new))) is not None:
        return said
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
    if role == m.BATTERY_LEVEL:
        return f"reported battery {_number(new)}{_unit(value.unit)}"
    if device is not None:
        for found in device.readings.values():
            if any(v.value_id == value.value_id for v in found):
                return "reported " + change_words(value, new)
    text = value.state_text(new)
    shown = (
        _words(text) if text else (_number(new) if not isinstance(new, bool) else ("on" if new else "off"))
    )
    return f"reported {_words(value.label)} {shown}{_unit(value.unit) if not text else ''}"


# Start/stop-level-change values: what writing true (start) or false (stop) to them means.
_MOVES = {
    m.LEVEL_UP: ("started brightening", "stopped brightening"),
    m.LEVEL_DOWN: ("started dimming", "stopped dimming"),
}
_ROLE_NOUNS = {
    m.SWITCH_TARGET: "target state",
    m.SWITCH_CURRENT: "state",
    m.LEVEL_TARGET: "target level",
    m.LEVEL_CURRENT: "level",
    m.BATTERY_LEVEL: "battery level",
    m.COLOR_TARGET: "target colour",
    m.COLOR_CURRENT: "colour",
    m.COLOR_HEX: "colour",
    m.LEVEL_UP: "movement",
    m.LEVEL_DOWN: "movement",
    m.LEVEL_RESTORE: "last-level setting",
}


def _noun(role: str | None, value: ZValue) -> str:
    """What a value is, in words: "level", "heating setpoint", "power", "motion state"."""
    if role in _ROLE_NOUNS:
        return _ROLE_NOUNS[role]
    if (noun := first_answer(lambda kind: kind.noun(role, value))) is not None:
        return noun
    if (quantity := quantity_of(value)) is not None:
        return quantity.label
    if value.command_class == CC.BINARY_SENSOR and isinstance(value.property, str):
        return f"{value.property.lower()} state"
    return _words(value.label)


def after_change_note(device: Device, action: str, *, confirmed: bool) -> str:
    """What the device's state adds to a change, as a sentence ("" when nothing): the door stands open
    behind a lock (its kind says), a colour confirmed on a bulb that is off."""
    if (note := first_answer(lambda kind: kind.after_change(device, action, confirmed))) is not None:
        return note
    if action == "set_color" and confirmed and device.has(Capability.DIMMER):
        level = level_percent(device.values.get(m.LEVEL_CURRENT))
        if level == 0:
            return f"{device.name} is off, so the new colour shows when it is turned on."
    return ""
