"""A device's state in words: short summaries for lists, readings with units and age, spoken sentences.

Everything here is read aloud by voice assistants: plain words, never zwave-js's labels ("Current value"),
enum names ("UnsecuredWithTimeout") or Python's `None`/`True`.
"""

from __future__ import annotations

from typing import Any

from zwave_mcp.answers import and_list
from zwave_mcp.devices import model as m
from zwave_mcp.devices.boundary import guarded
from zwave_mcp.devices.errors import still_loading
from zwave_mcp.devices.kinds import first_answer
from zwave_mcp.devices.kinds.base import KindSpec
from zwave_mcp.devices.levels import is_number
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.presses import press_of
from zwave_mcp.devices.quantities import quantity_of
from zwave_mcp.devices.readings import (
    LOW_BATTERY_PERCENT,
    change_words,
    pair_change_words,
    readings,
    sentence_phrases,
    siblings_power,
    spoken_readings,
)
from zwave_mcp.devices.readings import enum_words as _words
from zwave_mcp.devices.readings import number as _number
from zwave_mcp.devices.readings import unit_text as _unit
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.names import agreeing


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


def _state_summary(device: Device, with_slats: bool = False) -> str:
    if device.fault is not None or (not device.understood and device.unclaimed):
        return NOT_UNDERSTOOD
    if (by_kind := first_answer(lambda kind: kind.summary(device, with_slats))) is not None:
        return by_kind
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
    if (parts := siblings_power(device)) and not device.node.loading and device.fault is None:
        text = f"{text[:-1]}; {and_list(parts)}."  # the node by its own name: every channel's power
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
    summary = _state_summary(device, with_slats=True)
    if summary == NO_READINGS:  # no values at all yet (a node zwave-js-ui has not interviewed)
        return f"{name} has not reported anything yet."
    unknown = True
    if (opening := first_answer(lambda kind: kind.opening(device, summary))) is not None:
        primary = opening
    elif summary.startswith("unknown"):
        primary = "has not reported whether it is on"
    else:
        unknown = False
        primary = f"is {summary}"
    text = f"{name} {primary}"
    if power:
        text += f"; it is {', '.join(power)}" if unknown else f", {', '.join(power)}"
    if others:
        text += f"; {and_list(others)}"
    return text + "."


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
    if (move := first_answer(lambda kind: kind.moves.get(role) if role else None)) is not None:
        return f"started {move}" if new is True else f"stopped {move}"
    if (said := first_answer(lambda kind: kind.change_phrase(device, value, role, new))) is not None:
        return said
    if device is not None and (pair := pair_change_words(device, value, new)) is not None:
        return "reported " + pair  # a legacy alarm pair, as the event its model's map says
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


def _noun(role: str | None, value: ZValue) -> str:
    """What a value is, in words: "level", "heating setpoint", "power", "motion state"."""
    if role == m.BATTERY_LEVEL:
        return "battery level"

    def named(kind: KindSpec) -> str | None:
        if role in kind.moves:
            return "movement"
        return (kind.nouns.get(role) if role else None) or kind.noun(role, value)

    if (noun := first_answer(named)) is not None:
        return noun
    if (quantity := quantity_of(value)) is not None:
        return quantity.label
    return _words(value.label)


def after_change_note(device: Device, action: str, *, confirmed: bool) -> str:
    """What the device's state adds to a change, as a sentence ("" when nothing): the door stands open
    behind a lock (its kind says), a colour confirmed on a bulb that is off."""
    return first_answer(lambda kind: kind.after_change_note(device, action, confirmed)) or ""
