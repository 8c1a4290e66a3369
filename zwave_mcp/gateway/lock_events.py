"""Lock operation events: what a lock's Access Control notifications say, read from zwave-js-ui's MQTT.

zwave-js-ui passes a node's notification on twice (`ZwaveClient._onNodeNotification` →
`Gateway._onNotification`, captures' README "Access Control notifications"):

- on a topic named after the event, not retained: named `<node>/notification/endpoint_0/Access_Control/
  Keypad_unlock_operation`, ValueID `<node>/113/0/Access_Control/Keypad_unlock_operation`; payload
  `{"time": <publish ms>, "value": <parameters>}` (time-value and value-object modes alike), the bare
  parameters in raw mode (`{"userId": 3}`), without parameters `{"time": …}` or an empty payload;
  not at all with manually configured topics;
- as the event `_EVENTS/…/node/node_notification` `[<node summary>, 113, {"type": 6, "event": 6, "label":
  "Access Control", "eventLabel": "Keypad unlock operation", "parameters": {"userId": 3}}]`, ~1 ms later.

Both say the same event: the picture takes the first and drops the other as its echo. States (jammed,
keypad disabled) are ordinary values (`Access Control` / `Lock state`, `Keypad state`), not events here.

Pure. `from_notification(cc, args)` and `from_topic(tail, payload)` give a `LockEvent` or None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zwave_mcp.gateway.secrets import notification_parameters
from zwave_mcp.safetext import loads_json_fast
from zwave_mcp.zwave.classes import CC, cc_topic_name

ACCESS_CONTROL = 6
MAX_PAYLOAD_BYTES = 4096  # `{"time": …, "value": {"userId": 3}}` is ~50 bytes
ACCESS_CONTROL_LABEL = "Access Control"


@dataclass(frozen=True, slots=True)
class Kind:
    """What one Access Control event means. `key` is stable (stored in history)."""

    key: str
    label: str  # zwave-js's eventLabel
    locked: bool | None  # locked (True), unlocked (False), neither (None)
    how: str | None  # keypad | manual | remote | auto | credential | None


# zwave-js's Access Control (type 6) events that are things a person or the lock did (not states).
KINDS: dict[int, Kind] = {
    0x01: Kind("manual_lock", "Manual lock operation", True, "manual"),
    0x02: Kind("manual_unlock", "Manual unlock operation", False, "manual"),
    0x03: Kind("rf_lock", "RF lock operation", True, "remote"),
    0x04: Kind("rf_unlock", "RF unlock operation", False, "remote"),
    0x05: Kind("keypad_lock", "Keypad lock operation", True, "keypad"),
    0x06: Kind("keypad_unlock", "Keypad unlock operation", False, "keypad"),
    0x07: Kind("manual_not_fully_locked", "Manual not fully locked operation", None, "manual"),
    0x08: Kind("rf_not_fully_locked", "RF not fully locked operation", None, "remote"),
    0x09: Kind("auto_lock", "Auto lock locked operation", True, "auto"),
    0x0A: Kind("auto_lock_not_fully_locked", "Auto lock not fully locked operation", None, "auto"),
    0x0B: Kind("jammed", "Lock jammed", None, None),
    0x0C: Kind("all_codes_deleted", "All user codes deleted", None, None),
    0x0D: Kind("code_deleted", "Single user code deleted", None, None),
    0x0E: Kind("code_added", "New user code added", None, None),
    0x0F: Kind("code_not_added", "New user code not added due to duplicate code", None, None),
    0x10: Kind("keypad_disabled", "Keypad temporary disabled", None, "keypad"),
    0x11: Kind("keypad_busy", "Keypad busy", None, "keypad"),
    0x13: Kind("code_limit_exceeded", "Manually enter user access code exceeds code limit", None, "keypad"),
    0x14: Kind("rf_unlock_invalid_code", "Unlock by RF with invalid user code", None, "remote"),
    0x15: Kind("rf_lock_invalid_code", "Locked by RF with invalid user code", None, "remote"),
    0x23: Kind("credential_lock", "Credential lock/open operation", True, "credential"),
    0x24: Kind("credential_unlock", "Credential unlock/close operation", False, "credential"),
    0x32: Kind("invalid_credential", "Invalid credential used", None, "credential"),
}
KINDS_BY_KEY = {kind.key: kind for kind in KINDS.values()}


def _squash(text: str) -> str:
    """A label as compared: letters and digits only, lower case ("Keypad_unlock_operation" →
    "keypadunlockoperation"), so a topic level (sanitized, `/` become `-`) finds its label."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


_BY_LABEL = {_squash(kind.label): kind for kind in KINDS.values()}
# Spellings other zwave-js versions used for the same events.
_BY_LABEL.update(
    {
        _squash("New user code not added (duplicate)"): KINDS[0x0F],
        _squash("Auto lock not fully operation"): KINDS[0x0A],
        _squash("Locked by RF with invalid user codes"): KINDS[0x15],
    }
)


@dataclass(frozen=True, slots=True)
class LockEvent:
    kind: Kind
    user_id: int | None = None  # the User Code slot (User Code locks) or the user (User Credential locks)
    time_ms: int | None = None  # zwave-js-ui's publish time (topic payloads in time-value/object modes)

    def as_stored(self, user_name: str | None = None) -> dict[str, Any]:
        """The event as the picture and history keep it: no code, ever (there is none in it)."""
        stored: dict[str, Any] = {"event": self.kind.key}
        if self.user_id is not None:
            stored["userId"] = self.user_id
        if user_name:
            stored["userName"] = user_name
        return stored


def _user_id(parameters: Any) -> int | None:
    """The user id of an event's parameters (`{"userId": 3}`); nothing else of them is kept."""
    kept = notification_parameters(CC.NOTIFICATION, parameters)
    raw = kept.get("userId") if kept else None
    if isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw <= 0xFFFF:
        return raw
    return None


def from_notification(cc: Any, args: Any) -> LockEvent | None:
    """A `node_notification` event's `data[1]`, `data[2]` → the lock event it is, if one."""
    if cc != CC.NOTIFICATION or not isinstance(args, dict):
        return None
    if args.get("type") != ACCESS_CONTROL and args.get("label") != ACCESS_CONTROL_LABEL:
        return None
    kind = _BY_LABEL.get(_squash(args["eventLabel"])) if isinstance(args.get("eventLabel"), str) else None
    if kind is None and isinstance(args.get("event"), int) and not isinstance(args["event"], bool):
        kind = KINDS.get(args["event"])
    if kind is None:
        return None
    return LockEvent(kind, _user_id(args.get("parameters")))


_NOTIFICATION_LEVELS = (
    cc_topic_name(CC.NOTIFICATION),
    str(CC.NOTIFICATION),
    f"unknownClass_{CC.NOTIFICATION}",
)


def from_topic(tail: str, payload: bytes) -> LockEvent | None:
    """A notification topic's value part (`notification/endpoint_0/Access_Control/Keypad_unlock_operation`
    or `113/0/Access_Control/…`) and payload → the lock event, if it is one."""
    parts = tail.split("/")
    if len(parts) != 4 or parts[0] not in _NOTIFICATION_LEVELS or _squash(parts[2]) != "accesscontrol":
        return None
    kind = _BY_LABEL.get(_squash(parts[3]))
    if kind is None:
        return None
    time_ms: int | None = None
    parameters: Any = None
    if len(payload) > MAX_PAYLOAD_BYTES:  # no real event says this much: the event, without who
        return LockEvent(kind)
    if payload.strip():
        try:
            body = loads_json_fast(payload)
        except (ValueError, RecursionError):
            return LockEvent(kind)
        if isinstance(body, dict) and isinstance(body.get("time"), int) and set(body) <= {"time", "value"}:
            time_ms = body["time"] if not isinstance(body["time"], bool) else None
            parameters = body.get("value")
        else:
            parameters = body
    return LockEvent(kind, _user_id(parameters), time_ms)
