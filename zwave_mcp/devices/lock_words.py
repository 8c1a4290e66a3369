"""A lock's operation event in words: "was unlocked with the keypad by Dog Walker (user 4)". Pure.

An event is kept as `{"event": "keypad_unlock", "userId": 4, "userName": "Dog Walker"}`
(`gateway.lock_events.LockEvent.as_stored`: never a code); the name is the one the lock's users had when
it happened, else the one the user has now (`names`: user id → name, from the lock's access control).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from zwave_mcp.devices.levels import as_int
from zwave_mcp.gateway.lock_events import KINDS_BY_KEY, Kind
from zwave_mcp.safetext import plain_text
from zwave_mcp.zwave.classes import CC

Names = Callable[[int], str | None]

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


def event_kind(stored: Any) -> Kind | None:
    event = stored.get("event") if isinstance(stored, dict) else None
    return KINDS_BY_KEY.get(event) if isinstance(event, str) else None


def user_of(stored: Any) -> int | None:
    return as_int(stored.get("userId")) if isinstance(stored, dict) else None


def name_of(stored: Any, names: Names | None = None) -> str | None:
    """The user's name: kept with the event, else the one the user has now; None when unnamed."""
    kept = stored.get("userName") if isinstance(stored, dict) else None
    if isinstance(kept, str) and plain_text(kept):
        return plain_text(kept)
    uid = user_of(stored)
    return names(uid) if names is not None and uid is not None else None


def who(stored: Any, names: Names | None = None) -> str | None:
    """ "Dog Walker (user 4)", "user 4", or None when the lock did not say who."""
    uid = user_of(stored)
    if uid is None:
        return None
    name = name_of(stored, names)
    return f"{name} (user {uid})" if name else f"user {uid}"


def lock_phrase(stored: Any, names: Names | None = None) -> tuple[str, str | None]:
    """(words after the lock's name, the state it reached: "locked", "unlocked" or None)."""
    kind = event_kind(stored)
    if kind is None:
        return "reported a lock event", None
    person = who(stored, names)
    if kind.locked is not None:
        verb = "locked" if kind.locked else "unlocked"
        if kind.how == "auto":
            text = f"{verb} itself"
        else:
            text = f"was {verb} {_HOW.get(kind.how or '', '')}".rstrip()
        return (f"{text} by {person}" if person else text), verb
    text = _OTHER.get(kind.key, kind.label.lower())
    return (f"{text} ({person})" if person else text), "jammed" if kind.key == "jammed" else None


def fold(name: str) -> str:
    """A name as compared: case and spacing ignored ("the cleaner" is asked as "Cleaner")."""
    words = name.casefold().split()
    if words and words[0] in ("the", "our", "my"):
        words = words[1:]
    return " ".join(words)


def by_user(stored: Any, wanted: str, names: Names | None = None) -> bool:
    """Was this event by the user named `wanted` (`fold`ed alike)?"""
    name = name_of(stored, names)
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
    if command_class != CC.NOTIFICATION or prop != "Access Control" or isinstance(new, bool):
        return None
    return _STATES.get((prop_key, new))
