"""A device's state in words: short summaries for lists, readings with units and age, spoken sentences.

Everything here is read aloud by voice assistants: plain words, never zwave-js's labels ("Current value"),
enum names ("UnsecuredWithTimeout") or Python's `None`/`True`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from zwave_mcp.answers import and_list
from zwave_mcp.devices import model as m
from zwave_mcp.devices.boundary import guarded
from zwave_mcp.devices.errors import still_loading
from zwave_mcp.devices.kinds import first_answer
from zwave_mcp.devices.levels import is_number, level_percent, to_percent
from zwave_mcp.devices.lock_words import lock_state_phrase
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.presets import tone_name
from zwave_mcp.devices.presses import press_of
from zwave_mcp.devices.quantities import quantity_of
from zwave_mcp.devices.readings import (
    LOW_BATTERY_PERCENT,
    Reading,
    change_words,
    readings,
    sentence_phrases,
    spoken_readings,
)
from zwave_mcp.devices.readings import OPENING_STATES as _OPENINGS
from zwave_mcp.devices.readings import enum_words as _words
from zwave_mcp.devices.readings import number as _number
from zwave_mcp.devices.readings import unit_text as _unit
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.names import agreeing
from zwave_mcp.zwave.classes import CC

LOCK_SECURED = 255
LOCK_UNKNOWN = 254


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
    v = device.values
    if device.fault is not None or (not device.understood and device.unclaimed):
        return NOT_UNDERSTOOD
    if device.has(Capability.LOCK):
        return _lock_summary(device)
    if (by_kind := first_answer(lambda kind: kind.summary(device, with_slats))) is not None:
        return by_kind
    if device.has(Capability.COVER) and m.COVER_TARGET in v:
        position = _cover_summary(v[m.COVER_TARGET], v.get(m.COVER_CURRENT))
        tilt = level_percent(v.get(m.TILT_CURRENT) or v.get(m.TILT_TARGET)) if with_slats else None
        if tilt is None or position == "position unknown":
            return position
        return f"{position}, slats tilted {tilt} %"  # the full answer says them, a list does not
    if device.has(Capability.COVER) and m.TILT_TARGET in v:  # slats only (a Window Covering tilt)
        slats = slat_words(device)
        return "slats not reported yet" if slats is None else f"slats {slats}"
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
    if (lock_door := device.values.get(m.LOCK_DOOR)) is not None:
        found = [r for r in found if r.value_id != lock_door.value_id]  # the lock's state says its door
    if device.has(Capability.LOCK) and lock_state(device) is not None:
        said = {r.value_id for r in _lock_alerts(device)}  # "locked and jammed": the state says them
        found = [r for r in found if r.value_id not in said]
    power, others = sentence_phrases(found)
    summary = _state_summary(device, with_slats=True)
    if summary == NO_READINGS:  # no values at all yet (a node zwave-js-ui has not interviewed)
        return f"{name} has not reported anything yet."
    unknown = True
    if device.has(Capability.LOCK) and lock_state(device) is None:
        opened = door_open(device)
        door = "" if opened is None else f", and the door is {'open' if opened else 'closed'}"
        primary = f"has not reported whether it is locked{door}"
    elif device.has(Capability.COVER) and summary == "position unknown":
        primary = "has not reported its position yet"
    elif summary.startswith("slats "):  # a blind that only tilts its slats
        slats = slat_words(device)
        primary = "has not reported its slats yet" if slats is None else f"has its slats {slats}"
    elif summary.startswith("unknown") and m.VALVE_TARGET in device.values:
        primary = "has not reported whether it is open"
    elif summary.startswith("unknown") and device.kind == Capability.SIREN:
        primary = "has not reported whether it is sounding"
    elif summary.startswith("unknown"):
        primary = "has not reported whether it is on"
    else:
        unknown = False
        primary = f"is {summary}"
    if device.has(Capability.LOCK) and door_open(device) is not None:
        others = [p for p in others if p not in _OPENINGS]  # the lock said its door already
    text = f"{name} {primary}"
    if power:
        text += f"; it is {', '.join(power)}" if unknown else f", {', '.join(power)}"
    if others:
        text += f"; {and_list(others)}"
    relock = relock_words(device) if device.has(Capability.LOCK) else None
    if relock and relock.startswith("it locks"):  # said when it does; "does not" is in the result
        text += f"; {relock}"
    return text + "."


_TIMED = 2  # Door Lock operationType: 1 constant, 2 timed


def lock_settings(device: Device) -> dict[str, Any]:
    """A Door Lock's own settings people ask about ("does it lock itself again?"), as it reports them:
    `operationType` (constant or timed), the timed mode's `lockTimeoutConfiguration` and `autoRelockTime`
    (seconds; Door Lock v4), `holdAndReleaseTime`, `twistAssist`, `blockToBlock`."""
    endpoint = device.endpoint or 0
    return {
        str(value.property): value.value
        for value in device.node.values.values()
        if value.command_class == CC.DOOR_LOCK
        and value.endpoint == endpoint
        and value.value is not None
        and value.property in _LOCK_SETTINGS
    }


_LOCK_SETTINGS = frozenset(
    {
        "operationType",
        "lockTimeoutConfiguration",
        "autoRelockTime",
        "holdAndReleaseTime",
        "twistAssist",
        "blockToBlock",
    }
)


def relock_words(device: Device) -> str | None:
    """ "it locks itself again 30 seconds after it is unlocked", "it does not lock itself again", or None
    when the lock does not say."""
    settings = lock_settings(device)
    relock = settings.get("autoRelockTime")
    timed = settings.get("lockTimeoutConfiguration") if settings.get("operationType") == _TIMED else None
    for seconds in (relock, timed):
        if isinstance(seconds, int | float) and is_number(seconds) and seconds > 0:
            return f"it locks itself again {_seconds(float(seconds))} after it is unlocked"
    if settings.get("operationType") == 1:
        return "it does not lock itself again (constant operation)"
    return None


def _seconds(seconds: float) -> str:
    if seconds >= 120 and seconds % 60 == 0:
        return f"{int(seconds // 60)} minutes"
    return f"{seconds:g} second{'' if seconds == 1 else 's'}"


def _truthy(value: ZValue) -> bool | None:
    if value.value is None:
        return None
    return value.value is True or (is_number(value.value) and value.value > 0)


def lock_state(device: Device) -> str | None:
    """ "locked" / "unlocked"; None when not reported (or the lock itself does not know). Door Lock says
    a mode (255 secured); the old Lock command class says true or false."""
    current = device.values.get(m.LOCK_CURRENT)
    if current is None:
        return None
    if isinstance(current.value, bool):
        return "locked" if current.value else "unlocked"
    if not is_number(current.value) or current.value == LOCK_UNKNOWN:
        return None
    return "locked" if current.value == LOCK_SECURED else "unlocked"


def door_open(device: Device) -> bool | None:
    """What the lock says about its door: True open, False closed, None not reported."""
    door = device.values.get(m.LOCK_DOOR)
    if door is None or not isinstance(door.value, str):
        return None
    said = door.value.strip().casefold()  # zwave-js says "open" or "closed"; anything else tells nothing
    return True if said == "open" else False if said == "closed" else None


# What a lock says is wrong with it, by the Notification state's text (zwave-js's Access Control and
# Home Security states): said with its state, "locked and jammed".
_LOCK_TROUBLE = {
    "lock jammed": "jammed",
    "manual not fully locked operation": "not fully locked",
    "rf not fully locked operation": "not fully locked",
    "auto lock not fully locked operation": "not fully locked",
    "tampering, product cover removed": "its cover has been removed",
    "tampering, invalid code": "tampered with (a wrong code was entered)",
    "tampering, product moved": "it has been moved",
}


def _lock_alerts(device: Device) -> list[Reading]:
    """The lock's jam and tamper notifications that stand now (not idle), with their words."""
    values = {v.value_id: v for v in device.all_values()}
    out = []
    for r in readings(device, 0):
        if r.command_class != CC.NOTIFICATION or r.idle or r.value in (None, 0):
            continue
        value = values.get(r.value_id)
        text = (value.state_text() or "").casefold() if value is not None else ""
        if text in _LOCK_TROUBLE or r.sensor == "tamper":
            out.append(replace(r, text=_LOCK_TROUBLE.get(text, r.text)))
    return out


def lock_alerts(device: Device) -> list[str]:
    """What a lock reports wrong with it now, in words: "jammed", "its cover has been removed"."""
    return list(dict.fromkeys(r.text for r in _lock_alerts(device) if r.text))


def _lock_summary(device: Device) -> str:
    """ "locked, door closed", "locked and jammed, but the door is open", "lock state unknown; jammed"."""
    state = lock_state(device)
    text = state or "lock state unknown"
    if alerts := lock_alerts(device):
        text = f"{text} and {and_list(alerts)}" if state else f"{text}; {and_list(alerts)}"
    opened = door_open(device)
    if opened is None:
        return text
    if opened:
        if state == "locked":
            return f"{text}, but the door is open"
        return f"{text}, and the door is open" if alerts else f"{text} and the door is open"
    return f"{text}, door closed"


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


def slat_words(device: Device) -> str | None:
    """Where a blind's slats are: "open", "closed (up)", "tilted to 40 %"; None when not reported."""
    watch = device.values.get(m.TILT_CURRENT) or device.values.get(m.TILT_TARGET)
    if watch is None or not is_number(watch.value):
        return None
    text = watch.state_text()
    if text:
        return _words(text)
    return f"tilted to {to_percent(watch.value, watch)} %"


def cover_open(device: Device) -> bool | None:
    """Is the cover (blind, garage door) open at all? None when not reported."""
    watch = device.values.get(m.COVER_CURRENT) or device.values.get(m.COVER_TARGET)
    if watch is None or not is_number(watch.value):
        return None
    if watch.property in ("currentState", "targetState"):
        return watch.value != 0  # 0 closed; opening, stopped part-way and open all let people in
    return watch.value > (watch.min or 0)


def change_phrase(device: Device | None, value: ZValue, new: Any) -> str:
    """What one reported change means, to follow the device's name: "turned on", "went to 40 %",
    "reported air temperature 21.7 °C". Uses the value's role in the device, never its zwave-js label
    when a plainer word exists."""
    if (press := press_of(value, new)) is not None:
        return press.words()  # "WallMote button 2 was held"
    if (
        lock_said := lock_state_phrase(value.command_class, value.property, value.property_key, new)
    ) is not None:
        return lock_said  # "jammed", "disabled its keypad for a while after too many wrong codes"
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
    if role in (m.TILT_CURRENT, m.TILT_TARGET) and is_number(new):
        percent = to_percent(new, value)
        return f"was told to tilt its slats to {percent} %" if told else f"tilted its slats to {percent} %"
    if role in (m.LOCK_CURRENT, m.LOCK_TARGET) and (is_number(new) or isinstance(new, bool)):
        state = "locked" if new is True or (is_number(new) and new == LOCK_SECURED) else "unlocked"
        if new == LOCK_UNKNOWN:
            return "does not know whether it is locked"
        return f"was told to {state[:-2]}" if told else state
    if role == m.LOCK_DOOR and isinstance(new, str):
        return f"reported its door {new.lower()}"
    if role in (m.LOCK_BOLT, m.LOCK_LATCH) and isinstance(new, str):
        return f"reported its {role.split('.')[1]} {new.lower()}"
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
    m.COVER_UP: ("started opening", "stopped opening"),
    m.COVER_DOWN: ("started closing", "stopped closing"),
}
_ROLE_NOUNS = {
    m.COVER_TARGET: "target position",
    m.COVER_CURRENT: "position",
    m.LOCK_TARGET: "target lock state",
    m.LOCK_CURRENT: "lock state",
    m.LOCK_DOOR: "door state",
    m.LOCK_BOLT: "bolt state",
    m.LOCK_LATCH: "latch state",
    m.BATTERY_LEVEL: "battery level",
    m.COVER_UP: "movement",
    m.COVER_DOWN: "movement",
    m.TILT_TARGET: "target tilt",
    m.TILT_CURRENT: "tilt",
    m.VALVE_TARGET: "target valve state",
    m.VALVE_CURRENT: "valve state",
    m.SIREN_TONE: "tone",
    m.SIREN_TONE_CURRENT: "tone",
    m.SIREN_VOLUME: "volume",
    m.SIREN_DEFAULT_TONE: "default tone",
}


def _noun(role: str | None, value: ZValue) -> str:
    """What a value is, in words: "level", "heating setpoint", "power", "motion state"."""
    if role in _ROLE_NOUNS:
        return _ROLE_NOUNS[role]
    if (noun := first_answer(lambda kind: kind.noun(role, value))) is not None:
        return noun
    if (quantity := quantity_of(value)) is not None:
        return quantity.label
    return _words(value.label)


def after_change_note(device: Device, action: str, *, confirmed: bool) -> str:
    """What the device's state adds to a change, as a sentence ("" when nothing): the door stands open
    behind a lock (whatever became of the command), a colour confirmed on a bulb that is off."""
    if action in ("lock", "unlock") and door_open(device):
        return "The door is open, so the lock cannot secure it." if action == "lock" else "The door is open."
    said = first_answer(lambda kind: kind.after_change_note(device, action, confirmed))
    return said or ""
