"""The lock (Door Lock, and the old Lock command class): its discovery rows, its state, door, alerts and
settings in words, its actions (lock, unlock) and what a write to it amounts to; and its operation
events in words ("was unlocked with the keypad by Dog Walker (user 4)").

Door Lock says a mode (255 secured, 254 unknown), the old Lock command class true or false: its one value
is both written and reported. An event is kept as `{"event": "keypad_unlock", "userId": 4, "userName":
"Dog Walker"}` (`gateway.lock_events.LockEvent.as_stored`: never a code); the name is the one the lock's
users had when it happened, else the one the user has now (`Names`: user id → name). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any, TypeVar

from zwave_mcp.answers import and_list
from zwave_mcp.devices import model as m
from zwave_mcp.devices.discovery import Found, Schema, housekeeping, match
from zwave_mcp.devices.kinds.base import KindSpec, Words, told_or_did
from zwave_mcp.devices.levels import as_int, is_number
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.readings import OPENING_STATES, Reading, readings, sentence_phrases
from zwave_mcp.devices.writes import ControlPlan, one_write, state_value
from zwave_mcp.gateway import lock_events
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.safetext import plain_text
from zwave_mcp.zwave.classes import CC, DoorLockProps, LockProps

T = TypeVar("T")

SECURED = 255  # Door Lock mode: secured
UNKNOWN = 254  # the lock itself does not know

_DOOR_PARTS = (
    (m.LOCK_DOOR, match(CC.DOOR_LOCK, DoorLockProps.DOOR)),
    (m.LOCK_BOLT, match(CC.DOOR_LOCK, DoorLockProps.BOLT)),
    (m.LOCK_LATCH, match(CC.DOOR_LOCK, DoorLockProps.LATCH)),
)
# The generic rows, first in the table after the models.
SCHEMAS: tuple[Schema, ...] = (
    Schema(
        name="lock: Door Lock",
        kind=Capability.LOCK,
        role=m.LOCK_TARGET,
        primary=match(CC.DOOR_LOCK, DoorLockProps.TARGET_MODE, writeable=True),
        companions=((m.LOCK_CURRENT, match(CC.DOOR_LOCK, DoorLockProps.CURRENT_MODE)), *_DOOR_PARTS),
    ),
    Schema(
        name="lock: Door Lock that publishes only its current mode (no target mode to write: its state, as "
        "Home Assistant shows it, and no lock command)",
        kind=Capability.LOCK,
        role=m.LOCK_CURRENT,
        primary=match(CC.DOOR_LOCK, DoorLockProps.CURRENT_MODE, type="number"),
        companions=_DOOR_PARTS,
    ),
    housekeeping(
        name="housekeeping: the old Lock command class beside Door Lock (Door Lock controls it)",
        primary=match(CC.LOCK, LockProps.LOCKED),
        needs_kind=Capability.LOCK,
        multi=False,
    ),
    Schema(
        name="lock: the old Lock command class alone (one value: locked or not, written and reported)",
        kind=Capability.LOCK,
        role=m.LOCK_TARGET,
        primary=match(CC.LOCK, LockProps.LOCKED, type="boolean", writeable=True),
    ),
)
_OLD_LOCK = match(CC.LOCK, LockProps.LOCKED)
_NOUNS = {
    m.LOCK_TARGET: "target lock state", m.LOCK_CURRENT: "lock state", m.LOCK_DOOR: "door state",
    m.LOCK_BOLT: "bolt state", m.LOCK_LATCH: "latch state",
}  # fmt: skip


def _settle(found: Found) -> None:
    """The state of a lock of the old Lock command class: the one value it is locked and unlocked by."""
    if Capability.LOCK not in found.capabilities or m.LOCK_CURRENT in found.values:
        return
    for values in (*found.readings.values(), list(found.values.values())):
        value = next((v for v in values if _OLD_LOCK.fits(v)), None)
        if value is not None:
            found.values[m.LOCK_CURRENT] = value
            return


def lock_state(device: Device) -> str | None:
    """ "locked" / "unlocked"; None when not reported (or the lock itself does not know). Door Lock says
    a mode (255 secured); the old Lock command class says true or false."""
    current = device.values.get(m.LOCK_CURRENT)
    return None if current is None else _locked_words(current.value)


def _locked_words(raw: Any) -> str | None:
    """ "locked" / "unlocked" for a reported mode or old Lock state; None when it tells nothing."""
    if isinstance(raw, bool):
        return "locked" if raw else "unlocked"
    if not is_number(raw) or raw == UNKNOWN:
        return None
    return "locked" if raw == SECURED else "unlocked"


def door_open(device: Device) -> bool | None:
    """What the lock says about its door: True open, False closed, None not reported."""
    door = device.values.get(m.LOCK_DOOR)
    if door is None or not isinstance(door.value, str):
        return None
    said = door.value.strip().casefold()  # zwave-js says "open" or "closed"; anything else tells nothing
    return True if said == "open" else False if said == "closed" else None


# What a lock says is wrong with it, by the Notification state's text (zwave-js's Access Control and
# Home Security states): said with its state, "locked and jammed".
_TROUBLE = {
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
        if text in _TROUBLE or r.sensor == "tamper":
            out.append(replace(r, text=_TROUBLE.get(text, r.text)))
    return out


def lock_troubles(device: Device) -> list[str]:
    """What is wrong with the lock now, in words ("jammed", "its cover has been removed"); [] for nothing."""
    return list(dict.fromkeys(r.text for r in _lock_alerts(device) if r.text))


def _summary(device: Device, spoken: bool = True) -> str | None:
    """ "locked, door closed", "locked and jammed, but the door is open", "lock state unknown; jammed"."""
    if not device.has(Capability.LOCK):
        return None
    state = lock_state(device)
    text = state or "lock state unknown"
    if alerts := lock_troubles(device):
        text = f"{text} and {and_list(alerts)}" if state else f"{text}; {and_list(alerts)}"
    opened = door_open(device)
    if opened is None:
        return text
    if opened:
        if state == "locked":
            return f"{text}, but the door is open"
        return f"{text}, and the door is open" if alerts else f"{text} and the door is open"
    return f"{text}, door closed"


def _sentence(device: Device, found: list[Reading]) -> str | None:
    """ "Front Door Lock is locked, door closed; battery 80 %; it locks itself again 30 seconds after it is
    unlocked." (a lock zwave-mcp failed on is said as any device it failed on)"""
    if not device.has(Capability.LOCK) or device.fault is not None:
        return None
    state, opened = lock_state(device), door_open(device)
    said = {r.value_id for r in _lock_alerts(device)} if state is not None else set()  # "locked and jammed"
    if (door := device.values.get(m.LOCK_DOOR)) is not None:
        said.add(door.value_id)  # the lock's state says its door
    # its intrusion alarm (a Schlage's forced entry) is said when it stands; at rest it is no news beside
    # whether the door is locked
    said |= {r.value_id for r in found if r.sensor == "intrusion" and r.alarm is False}
    power, others = sentence_phrases([r for r in found if r.value_id not in said])
    if opened is not None:
        others = [p for p in others if p not in OPENING_STATES]  # the lock said its door already
    if state is None:
        door_said = "" if opened is None else f", and the door is {'open' if opened else 'closed'}"
        text = f"{device.name} has not reported whether it is locked{door_said}"
        text += f"; it is {', '.join(power)}" if power else ""
    else:
        text = f"{device.name} is {_summary(device)}" + (f", {', '.join(power)}" if power else "")
    if others:
        text += f"; {and_list(others)}"
    relock = relock_words(device)
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


_LOCK_SETTINGS = frozenset({
    "operationType", "lockTimeoutConfiguration", "autoRelockTime", "holdAndReleaseTime", "twistAssist",
    "blockToBlock",
})  # fmt: skip


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


def _change_phrase(device: Device | None, value: ZValue, role: str | None, new: Any) -> str | None:
    if (said := lock_state_phrase(value.command_class, value.property, value.property_key, new)) is not None:
        return said  # "jammed", "disabled its keypad for a while after too many wrong codes"
    if role in (m.LOCK_CURRENT, m.LOCK_TARGET) and (is_number(new) or isinstance(new, bool)):
        if (state := _locked_words(new)) is None:
            return "does not know whether it is locked"
        return told_or_did(role == m.LOCK_TARGET, state[:-2], state)  # "was told to lock", "locked"
    if role == m.LOCK_DOOR and isinstance(new, str):
        return f"reported its door {new.lower()}"
    if role in (m.LOCK_BOLT, m.LOCK_LATCH) and isinstance(new, str):
        return f"reported its {role.split('.')[1]} {new.lower()}"
    return None


def _after_change_note(device: Device, action: str, confirmed: bool) -> str | None:
    """The door stands open behind the lock, whatever became of the command."""
    if action in ("lock", "unlock") and door_open(device):
        return "The door is open, so the lock cannot secure it." if action == "lock" else "The door is open."
    return None


def _effect_words(device: Device, value: ZValue, role: str | None, target: Any) -> Words | None:
    if value.command_class == CC.DOOR_LOCK:
        if value.property == "targetMode":
            return frozenset({"lock" if target == SECURED else "unlock"}), target
        return frozenset({"unlock", "set_value"}), target  # any other Door Lock setting can weaken it
    if value.command_class == CC.LOCK:
        return frozenset({"lock" if target is True else "unlock"}), target
    return None


def _spoken_value(device: Device, value: ZValue, role: str | None, raw: Any) -> str | None:
    if value.command_class == CC.DOOR_LOCK and value.property in ("currentMode", "targetMode"):
        return {SECURED: "locked", 0: "unlocked"}.get(raw, (value.state_text(raw) or str(raw)).lower())
    if value.command_class == CC.LOCK:
        return "locked" if raw is True else "unlocked"
    return None


def _actions(device: Device) -> set[str]:
    return {"lock", "unlock"} if m.LOCK_TARGET in device.values else set()


def _no_control(device: Device) -> str | None:
    if device.has(Capability.LOCK) and m.LOCK_TARGET not in device.values:
        return (
            f"{device.name} says whether it is locked, but it publishes no lock command zwave-mcp could "
            "send (its Door Lock has no target mode)."
        )
    return None


def _lock(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    target = device.values[m.LOCK_TARGET]
    locking = action == "lock"
    watch = device.values.get(m.LOCK_CURRENT)
    if target.type == "boolean":  # the old Lock command class: locked true or false
        return one_write(device, action, None, target, locking, f"{action} {device.name}", watch=watch)
    mode = state_value(target, "secured", SECURED) if locking else state_value(target, "unsecured", 0)
    return one_write(device, action, None, target, mode, f"{action} {device.name}", watch=watch)


KIND = KindSpec(
    name="lock",
    actions=_actions,
    planners={"lock": _lock, "unlock": _lock},
    summary=_summary,
    sentence=_sentence,
    change_phrase=_change_phrase,
    nouns=_NOUNS,
    effect_words=_effect_words,
    spoken_value=_spoken_value,
    settle=_settle,
    no_control=_no_control,
    after_change_note=_after_change_note,
)

# Its operation events in words (the history and the events tool say them). A past event is said with the
# name its user had when it happened, kept with it (`LockEvent.as_stored`), or as "user 3": never with the
# name the user has now. A slot is given again (the cleaner's 3 becomes the dog walker's), and a name read
# later would put the new person at the old door (issue 44).

_HOW = {
    "keypad": "with the keypad",
    "manual": "by hand",
    "remote": "remotely",
    "credential": "with a credential",
}
# Events that are not a locking or unlocking, in words (after the lock's name).
_OTHER = {
    "manual_not_fully_locked": "was turned by hand but did not lock fully",
    "rf_not_fully_locked": "was locked remotely but did not lock fully",
    "auto_lock_not_fully_locked": "tried to lock itself but did not lock fully",
    "jammed": "jammed",
    "all_codes_deleted": "had all its codes deleted",
    "code_deleted": "had a code deleted",
    "code_added": "had a code added",
    "code_not_added": "refused a new code that duplicates one it has",
    "keypad_disabled": "disabled its keypad for a while after too many wrong codes",
    "keypad_busy": "said its keypad was busy",
    "code_limit_exceeded": "refused a code: too many wrong codes were entered",
    "rf_unlock_invalid_code": "refused a remote unlock with a wrong code",
    "rf_lock_invalid_code": "refused a remote lock with a wrong code",
    "invalid_credential": "was tried with a wrong code or credential",
}


def event_kind(stored: Any) -> lock_events.Kind | None:
    event = stored.get("event") if isinstance(stored, dict) else None
    return lock_events.KINDS_BY_KEY.get(event) if isinstance(event, str) else None


def user_of(stored: Any) -> int | None:
    return as_int(stored.get("userId")) if isinstance(stored, dict) else None


def name_of(stored: Any) -> str | None:
    """The name the user had when the event happened, kept with it; None when unnamed then."""
    kept = stored.get("userName") if isinstance(stored, dict) else None
    return plain_text(kept) or None if isinstance(kept, str) else None


def who(stored: Any) -> str | None:
    """ "Dog Walker (user 4)", "user 4", or None when the lock did not say who."""
    uid = user_of(stored)
    if uid is None:
        return None
    name = name_of(stored)
    return f"{name} (user {uid})" if name else f"user {uid}"


def lock_phrase(stored: Any) -> tuple[str, str | None]:
    """(words after the lock's name, the state it reached: "locked", "unlocked" or None)."""
    kind = event_kind(stored)
    if kind is None:
        return "reported a lock event", None
    person = who(stored)
    if kind.locked is not None:
        verb = "locked" if kind.locked else "unlocked"
        if kind.how == "auto":
            text = f"{verb} itself"
        else:
            text = f"was {verb} {_HOW.get(kind.how or '', '')}".rstrip()
        return (f"{text} by {person}" if person else text), verb
    text = _OTHER.get(kind.key, kind.label.lower())
    return (f"{text} ({person})" if person else text), "jammed" if kind.key == "jammed" else None


LOCK_ECHO_MS = 2000  # a lock's own mode change this close to its lock event says the same thing


def lock_echoes(
    events: Iterable[tuple[Any, float, Any]], modes: Iterable[tuple[T, Any, float, Any]]
) -> set[T]:
    """The Door Lock mode changes that only repeat a lock event of the same lock ("unlocked" beside "was
    unlocked with the keypad by Cleaner (user 3)"): the event says more, and once. `events` are (node, time
    in ms, stored lock event), `modes` (key, node, time in ms, new mode); the keys of the echoes."""
    said = [(node, at, lock_phrase(stored)[1]) for node, at, stored in events]
    echoes: set[T] = set()
    for key, node, at, mode in modes:
        state = "locked" if mode == 255 else "unlocked"
        if any(n == node and s == state and abs(a - at) < LOCK_ECHO_MS for n, a, s in said):
            echoes.add(key)
    return echoes


def fold(name: str) -> str:
    """A name as compared: case and spacing ignored ("the cleaner" is asked as "Cleaner")."""
    words = name.casefold().split()
    if words and words[0] in ("the", "our", "my"):
        words = words[1:]
    return " ".join(words)


_USER_NUMBER = re.compile(r"(?:user|slot|code)?\s*#?\s*(\d{1,4})")


def user_number(said: str) -> int | None:
    """The user a person names by number: "user 3", "slot 3", "#3", "3"; None for a name."""
    found = _USER_NUMBER.fullmatch(said.strip().casefold())
    return int(found.group(1)) if found else None


def by_user(stored: Any, wanted: str) -> bool:
    """Was this event by the user `wanted`: by the name they had when it happened (`fold`ed alike), or by
    their number ("user 3")?"""
    number = user_number(wanted)
    if number is not None:
        return user_of(stored) == number
    name = name_of(stored)
    return name is not None and fold(name) == fold(wanted)


# A keypad lock's Access Control states (values, not events): (property key, state) → words after its name.
_STATES = {
    ("Lock state", 11): "jammed",
    ("Lock state", 0): "is no longer jammed",
    ("Keypad state", 16): "disabled its keypad for a while after too many wrong codes",
    ("Keypad state", 0): "has its keypad working again",
}


def lock_state_phrase(command_class: int, prop: Any, prop_key: Any, new: Any) -> str | None:
    """A lock's jam or keypad state change in words ("jammed", "is no longer jammed"); None for others."""
    if command_class != CC.NOTIFICATION or prop != "Access Control" or type(new) not in (int, str):
        return None  # a flag, or an object or list (unhashable) a broken gateway reported: no lock state
    return _STATES.get((prop_key, new))
