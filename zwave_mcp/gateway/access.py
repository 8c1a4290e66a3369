"""A keypad lock's users, read through zwave-js-ui's access-control API (11.22.0 and newer), codes dropped.

`accessControlGetState(nodeId)` answers from zwave-js's cache (no radio traffic, ~45 ms) with the lock's
capabilities, users and credentials, **PINs in clear** (`credentials[].data`). `parse_state` keeps what a
person may hear (who, enabled or not, which credential of which type in which slot) and drops every `data`
on the spot: nothing here ever holds a code.

Two kinds of lock, one interface (zwave-js's `accessControl`): User Code (command class 99: a user is a
slot, no names, users and codes stored together) and User Credential (131: named users, credentials in
slots of their own, users may exist without one). The results of the changing calls are zwave-js's
`SetUserResult` / `SetCredentialResult`, said here in words (`user_result_words`, `credential_result_words`).

Read-only: the changing APIs are the write gate's (`zwave_mcp.devices.gate.senders`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from zwave_mcp.gateway.api import ApiReply, GatewayError
from zwave_mcp.safetext import plain_text
from zwave_mcp.zwave.classes import CC

if TYPE_CHECKING:
    from zwave_mcp.gateway.model import ZNode


class _Gateway(Protocol):
    """What reading a lock's users needs of the gateway (`ZwaveGateway`): its API and its picture."""

    inventory: Any

    async def call(self, api: str, *args: Any, timeout: float | None = None) -> ApiReply: ...


STATE_API = "accessControlGetState"
# The zwave-js-ui release that brought the access-control API (`accessControl*`, zwave-js-ui #4638).
NEEDED_VERSION = "11.22.0"
UNKNOWN_API = "Unknown API"

# UserCredentialType (zwave-js): what a credential is, as people say it.
CREDENTIAL_TYPES = {
    1: "PIN",
    2: "password",
    3: "RFID card",
    4: "BLE",
    5: "NFC",
    6: "UWB",
    7: "eye biometric",
    8: "face",
    9: "finger biometric",
    10: "hand biometric",
    11: "unspecified biometric",
}
PIN_CODE = 1

# SetUserResult / SetCredentialResult (zwave-js), in words for "could not …: <words>".
_USER_RESULTS = {
    1: "the lock refused to add the user (that user number is taken)",
    2: "the lock refused to change the user (there is no such user)",
    255: "the lock did not say what happened",
}
_CREDENTIAL_RESULTS = {
    1: "the lock refused the PIN: its slot is taken",
    2: "the lock refused the PIN: there is no PIN in that slot to change",
    3: "the lock refused the PIN: another user already has that PIN",
    4: "the lock refused the PIN under its own security rules (too simple, such as 1234 or 1111)",
    5: "the lock refused the PIN: it is the lock's admin code",
    6: "the lock refused the PIN: that slot belongs to another user",
    255: "the lock did not take the PIN and did not say why (locks ignore a PIN they cannot use, such as one of the wrong length)",
}


class AccessControlUnavailable(GatewayError):
    """This zwave-js-ui has no access-control API (older than 11.22.0), or the node has no users."""


def user_result_words(code: Any) -> str | None:
    """None when the lock took it (SetUserResult 0), else what went wrong in words."""
    if code == 0:
        return None
    return _USER_RESULTS.get(code, f"the lock answered {code!r}")


def credential_result_words(code: Any) -> str | None:
    if code == 0:
        return None
    return _CREDENTIAL_RESULTS.get(code, f"the lock answered {code!r}")


@dataclass(frozen=True, slots=True)
class Credential:
    """One credential of a user: its type (1 PIN, 2 password, 3 RFID card, 9 fingerprint…) and slot."""

    type: int
    slot: int

    @property
    def kind(self) -> str:
        return CREDENTIAL_TYPES.get(self.type, f"credential type {self.type}")


@dataclass(frozen=True, slots=True)
class LockUser:
    user_id: int
    name: str | None
    active: bool
    credentials: tuple[Credential, ...] = ()

    @property
    def label(self) -> str:
        """ "Alice (user 1)", "user 3"."""
        return f"{self.name} (user {self.user_id})" if self.name else f"user {self.user_id}"

    def pin(self) -> Credential | None:
        return next((c for c in self.credentials if c.type == PIN_CODE), None)


@dataclass(frozen=True, slots=True)
class LockRules:
    """What the lock itself allows (its capabilities)."""

    max_users: int
    pin_slots: int
    pin_min: int
    pin_max: int
    max_name_length: int | None  # None: the lock keeps no names (User Code)
    requires_credential: bool  # users and codes stored together (User Code)

    @property
    def names(self) -> bool:
        return bool(self.max_name_length)


@dataclass(frozen=True, slots=True)
class LockUsers:
    """A lock's users as zwave-js knows them (its cache), without a single code."""

    node_id: int
    supported: bool
    endpoint: int = 0
    rules: LockRules | None = None
    users: tuple[LockUser, ...] = ()
    # Credentials of no user zwave-js knows (type, slot, user id), rare; kept to say the slots are taken.
    orphans: tuple[tuple[int, int, int], ...] = field(default=())
    # Read from the node's User Code values (a zwave-js-ui without the access-control API): list only.
    from_values: bool = False

    @property
    def user_code(self) -> bool:
        """A User Code lock (users are slots, no names) rather than a User Credential one."""
        return self.rules is not None and self.rules.requires_credential and not self.rules.names

    def with_names(self, names: Mapping[int, str]) -> LockUsers:
        """The users with the names zwave-mcp gives them (`gateway.lock_names`), for a lock that keeps none
        of its own (User Code); a lock with names of its own is left as it is."""
        if self.rules is None or self.rules.names:
            return self
        users = tuple(replace(u, name=names.get(u.user_id)) for u in self.users)
        return replace(self, users=users)

    def user(self, user_id: int) -> LockUser | None:
        return next((u for u in self.users if u.user_id == user_id), None)

    def pin_slot_owner(self, slot: int) -> int | None:
        """The user whose PIN is in this slot, if any."""
        for user in self.users:
            if any(c.type == PIN_CODE and c.slot == slot for c in user.credentials):
                return user.user_id
        return next((u for t, s, u in self.orphans if t == PIN_CODE and s == slot), None)


def _int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def parse_state(node_id: int, result: Any) -> LockUsers:
    """`accessControlGetState`'s result → `LockUsers`; every credential's `data` is dropped here."""
    if not isinstance(result, dict) or not result.get("supported"):
        return LockUsers(node_id, supported=False)
    endpoints = [e for e in result.get("endpoints") or [] if isinstance(e, dict)]
    primary = result.get("primaryEndpoint")
    entry = next(
        (e for e in endpoints if e.get("endpointIndex") == primary), endpoints[0] if endpoints else None
    )
    if entry is None:
        return LockUsers(node_id, supported=False)
    raw_caps = entry.get("capabilities")
    caps: dict[str, Any] = raw_caps if isinstance(raw_caps, dict) else {}
    types = [t for t in caps.get("supportedCredentialTypes") or [] if isinstance(t, dict)]
    pin = next((t for t in types if t.get("type") == PIN_CODE), {})
    rules = LockRules(
        max_users=_int(caps.get("maxUsers")),
        pin_slots=_int(pin.get("numberOfCredentialSlots")),
        pin_min=_int(pin.get("minCredentialLength"), 4),
        pin_max=_int(pin.get("maxCredentialLength"), 10),
        max_name_length=_int(caps.get("maxUserNameLength")) or None,
        requires_credential=bool(caps.get("requiresCredentialAtUserCreation")),
    )
    held: dict[int, list[Credential]] = {}
    for c in entry.get("credentials") or []:
        if isinstance(c, dict):  # `data` (the code) is never read
            held.setdefault(_int(c.get("userId")), []).append(
                Credential(_int(c.get("type")), _int(c.get("slot")))
            )
    users = []
    for u in entry.get("users") or []:
        if not isinstance(u, dict) or _int(u.get("userId")) < 1:
            continue
        user_id = _int(u.get("userId"))
        name = u.get("userName")
        users.append(
            LockUser(
                user_id=user_id,
                name=plain_text(name, 64) or None if isinstance(name, str) else None,  # said and kept
                active=u.get("active") is not False,
                credentials=tuple(sorted(held.pop(user_id, []), key=lambda c: (c.type, c.slot))),
            )
        )
    orphans = tuple((c.type, c.slot, uid) for uid, creds in held.items() for c in creds)
    return LockUsers(
        node_id,
        supported=True,
        endpoint=_int(entry.get("endpointIndex")),
        rules=rules,
        users=tuple(sorted(users, key=lambda u: u.user_id)),
        orphans=orphans,
    )


# zwave-js's rule for User Code PINs (its `userCode` values say minLength 4, maxLength 10).
USER_CODE_PIN = (4, 10)


def users_from_values(node: ZNode) -> LockUsers:
    """A User Code lock's users from its `userIdStatus` values (1 enabled, 2 disabled; 0 a free slot), for
    a zwave-js-ui older than the access-control API: who is there and enabled, never a code (the `userCode`
    values are not read)."""
    statuses = {
        v.property_key: v.value
        for v in node.values.values()
        if v.command_class == CC.USER_CODE
        and v.property == "userIdStatus"
        and isinstance(v.property_key, int)
    }
    if not statuses:
        return LockUsers(node.id, supported=False)
    rules = LockRules(
        max_users=len(statuses),
        pin_slots=len(statuses),
        pin_min=USER_CODE_PIN[0],
        pin_max=USER_CODE_PIN[1],
        max_name_length=None,
        requires_credential=True,
    )
    users = tuple(
        LockUser(slot, None, status == 1, (Credential(PIN_CODE, slot),))
        for slot, status in sorted(statuses.items())
        if status in (1, 2)
    )
    return LockUsers(node.id, supported=True, rules=rules, users=users, from_values=True)


async def read_lock_users(gateway: _Gateway, node_id: int, timeout: float | None = None) -> LockUsers:
    """The lock's users now (zwave-js's cache, as `accessControlGetState` answers). Raises
    `AccessControlUnavailable` on a zwave-js-ui without the API, `GatewayError` for other problems."""
    reply = await gateway.call(STATE_API, node_id, timeout=timeout)
    if not reply.success:
        node = gateway.inventory.node(node_id)
        if reply.message == UNKNOWN_API and node is not None and users_from_values(node).supported:
            return gateway.inventory.set_access(node_id, users_from_values(node))
        if reply.message == UNKNOWN_API:
            raise AccessControlUnavailable(
                f"this zwave-js-ui has no access-control API: managing lock users needs zwave-js-ui "
                f"{NEEDED_VERSION} or newer"
            )
        raise GatewayError(
            f"zwave-js-ui could not read the lock's users: {reply.message or 'no reason given'}"
        )
    users = parse_state(node_id, reply.result)
    # The names the lock's next events are said with; a lock that keeps none gets zwave-mcp's own.
    return gateway.inventory.set_access(node_id, users)
