"""Lock codes are secrets: what zwave-js-ui publishes of them is dropped here, at the gateway's edge.

zwave-js-ui publishes a lock's codes in clear (see the captures' README, "Codes are published in clear"):
the User Code values (`userCode`, `adminCode`: retained value topics, `node_value_updated` events with the
new and the old code, `getNodes` values), the credentials of its access-control state (`data`), the PIN
echoed in API replies (`args`, `origin`), and, with other zwave-js settings or versions, the code inside
an Access Control notification's parameters or the code typed at an Entry Control keypad. Nothing of
these is ever kept: the picture holds a code value without its value, its changes are no changes, events
lose their codes before anyone (a listener, the picture, history) sees them, and API replies lose theirs
before the caller does. Whether a slot is in use stays known (`userIdStatus`, the users' list); the code
never is.

Pure; nothing here raises on odd input.
"""

from __future__ import annotations

import re
from typing import Any

from zwave_mcp.zwave import wire
from zwave_mcp.zwave.classes import CC

# The command classes whose values may hold a code: a tuple, as `in` must not hash what came from outside.
CODE_CLASSES = (CC.USER_CODE, CC.USER_CREDENTIAL)

# User Code CC: the code of each slot, the admin (master) code. Keypad Mode, User ID status are not secret.
_USER_CODE_SECRETS = frozenset({"userCode", "adminCode"})
# Keys that hold a code wherever they appear in what zwave-js-ui sends (objects of events, replies, states).
_SECRET_KEYS = frozenset({"userCode", "adminCode", "code", "pin", "pinCode", "credential", "data"})
HIDDEN = "<hidden>"  # what stands in a text where a code was


def is_secret_value(command_class: Any, prop: Any) -> bool:
    """A value whose value is a code: User Code `userCode`/`adminCode`, any User Credential value about
    credentials or the admin code (zwave-js keeps these internal today; a later version may not)."""
    if command_class == CC.USER_CODE:
        return prop in _USER_CODE_SECRETS
    if command_class == CC.USER_CREDENTIAL:
        text = str(prop).lower()
        return any(word in text for word in ("credential", "code", "pin", "admin", "data"))
    return False


def scrub_event(name: str, data: Any) -> Any:
    """`data` of an `_EVENTS` message, its codes dropped in place: a code value's `node_value_updated`
    (and added/removed) loses `newValue`, `prevValue` and `value`; a notification keeps only parameters
    that are no code. Returns `data`."""
    if not isinstance(data, list) or len(data) < 2:
        return data
    args = data[1]
    if name in ("node_value_updated", "node_value_added", "node_value_removed", "node_metadata_updated"):
        if isinstance(args, dict) and is_secret_value(args.get("commandClass"), args.get("property")):
            for key in ("newValue", "prevValue", "value"):
                args.pop(key, None)
            meta = args.get("metadata")
            if isinstance(meta, dict):
                meta.pop("default", None)
    elif name == "node_notification" and len(data) > 2 and isinstance(data[2], dict):
        note = data[2]
        cc = data[1]
        if cc == CC.ENTRY_CONTROL:
            note.pop("eventData", None)  # what was typed at the keypad
        elif "parameters" in note:
            kept = notification_parameters(cc, note["parameters"])
            if kept is None:
                note.pop("parameters")
            else:
                note["parameters"] = kept
    return data


def notification_parameters(cc: Any, parameters: Any) -> dict[str, Any] | None:
    """What may be kept of a notification's parameters: for a Notification CC event, the numbers and
    short words of a parameters object without codes (`{"userId": 3}`); raw bytes (given as hex text,
    possibly an embedded User Code report with its code) and anything from an Entry Control keypad are
    dropped (None)."""
    if cc == CC.ENTRY_CONTROL or not isinstance(parameters, dict):
        return None
    kept: dict[str, Any] = {}
    for key, value in parameters.items():
        if not isinstance(key, str) or key in _SECRET_KEYS or "code" in key.lower():
            continue
        if isinstance(value, bool | int | float) or value is None:
            kept[key] = value
    return kept


def _scrub_state(obj: Any) -> Any:
    """An access-control state or credentials list without `data` (copy)."""
    if isinstance(obj, list):
        return [_scrub_state(item) for item in obj]
    if isinstance(obj, dict):
        return {k: _scrub_state(v) for k, v in obj.items() if k not in _SECRET_KEYS}
    return obj


def scrub_api_reply(reply: wire.Reply, api: str, keep: str, *, holds_codes: bool = False) -> wire.Reply:
    """A reply envelope as kept, for an access-control API (`accessControl…`) or one whose result may
    hold a code (`holds_codes`: a Door Lock Logging record's `userCode`): `args` and `origin` (which echo
    the request, PIN and all) reduced to the correlation key `keep`, and every `data`, `userCode`, … of
    the result dropped. Other APIs' replies are returned as they are."""
    if not (api.startswith("accessControl") or holds_codes):
        return reply
    out = reply.copy()
    out.pop("args", None)
    origin = reply.get("origin")
    out["origin"] = {keep: origin[keep]} if isinstance(origin, dict) and keep in origin else {}
    if "result" in reply:
        out["result"] = _scrub_state(reply["result"])
    return out


def secret_strings(api: str, args: list[Any]) -> list[str]:
    """The strings of an access-control request that may be a code (to blank them in any text that comes
    back): every string argument and every string in a credential object, but names (`userName`)."""
    if not api.startswith("accessControl"):
        return []
    found: list[str] = []

    def walk(item: Any) -> None:
        if isinstance(item, str) and item:
            found.append(item)
        elif isinstance(item, list):
            for part in item:
                walk(part)
        elif isinstance(item, dict):
            for key, part in item.items():
                if key != "userName":
                    walk(part)

    walk(args)
    return found


def blank(text: str, secrets: list[str]) -> str:
    """`text` with every secret in it, as a word of its own, replaced by `HIDDEN` ("PIN 6060 is taken"
    → "PIN <hidden> is taken"; the "12" in "0123456789" is not a PIN said)."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret and secret in text:
            text = re.sub(rf"(?<![0-9A-Za-z]){re.escape(secret)}(?![0-9A-Za-z])", HIDDEN, text)
    return text
