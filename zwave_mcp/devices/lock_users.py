"""Who may come in: the planner in front of the write gate for a keypad lock's users and PINs.

A request ("add a code for the dog walker", "turn off the cleaner's code", "remove Sam's code") is read
against the lock's own users and rules (`zwave_mcp.gateway.access.LockUsers`, read just before) and becomes
one `Change` for the gate, whose sender (`LockUserCalls`) makes the access-control calls. Pure: no I/O.

What zwave-js-ui does that a person would not expect, and this planner does not repeat (captures, "Keypad
locks"):
- User Code lock, adding a user to a slot in use silently replaces that person's code: the plan says whose
  code it replaces, and the confirmation asks exactly that;
- User Credential lock, a user is created even when the lock refuses its PIN: the sender removes that user
  again and the answer says why the PIN was refused;
- deleting (or disabling) a user that does not exist answers OK: the planner says there is no such user and
  sends nothing;
- renaming a user of a User Code lock answers OK and is ignored (the lock keeps no names): zwave-mcp keeps
  the name itself (`gateway.lock_names`), nothing is sent;
- changes to User Credential users never show on MQTT: the sender reads the lock's users again as evidence.

The PIN: read as the inclusion PIN is (`gateway.dsk.ascii_digits`: "１２３４", "١٢٣٤"), checked against the
lock's own length, carried to the sender only, and bound into the confirmation as a keyed hash (the
process's token key), never as itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from zwave_mcp.answers import and_list, plural
from zwave_mcp.devices.gate import Change, Effect
from zwave_mcp.devices.gate.senders import LockOp, LockUserCalls
from zwave_mcp.devices.model import Device
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.access import PIN_CODE, LockUser, LockUsers
from zwave_mcp.gateway.dsk import ascii_digits
from zwave_mcp.names import normalize

# Names zwave-mcp keeps for users of locks that keep none (User Code).
GIVEN_NAME_MAX = 40
ACTIONS = ("list", "add", "rename", "enable", "disable", "change_pin", "remove")
# What each change amounts to, in the policy's words (`policy.sensitive`: granting asks, revoking asks).
WORDS = {
    "add": "add_code",
    "enable": "enable_code",
    "change_pin": "change_code",
    "disable": "disable_code",
    "remove": "remove_code",
    "rename": "rename_user",
}
_NUMBER = re.compile(r"(?:(?:user|slot|code|number|no\.?|#)\s*)?#?\s*(\d{1,4})", re.I)

Mac = Callable[[bytes], bytes]


@dataclass
class LockUserPlan:
    """One change to one lock's users, ready for the gate."""

    action: str
    summary: str  # lower-case first: "add a PIN for Dog Walker as user 4 on Side Door Lock"
    user_id: int
    endpoint: int
    ops: list[LockOp]
    binding: dict[str, Any]  # what the confirmation is bound to (the PIN only as a keyed hash)
    argument: dict[str, Any]  # what the audit line says: user (slot) and name, never the PIN
    pin: str | None = field(default=None, repr=False)
    undo: LockOp | None = None
    expect: dict[str, Any] = field(default_factory=dict)
    # (user, name or None): the name zwave-mcp keeps for a user of a lock that keeps none (User Code).
    given_name: tuple[int, str | None] | None = None
    who: str = ""  # the user as the answer names them ("Dog Walker (user 5)")
    values: bool = False  # through the User Code values (a zwave-js-ui without the access-control API)

    def __post_init__(self) -> None:
        self.who = self.who or f"user {self.user_id}"


def read_pin(text: Any, users: LockUsers, lock: str) -> str:
    """The PIN as ASCII digits, within the lock's own length; the error never repeats what was typed."""
    said = ascii_digits(str(text)) if isinstance(text, str | int) and not isinstance(text, bool) else ""
    said = re.sub(r"[\s-]", "", said)
    rules = users.rules
    low, high = (rules.pin_min, rules.pin_max) if rules is not None else (4, 10)
    if not said or not said.isascii() or not said.isdigit():
        raise UserError(f"A PIN for {lock} is {low} to {high} digits (0-9) and nothing else.")
    if not low <= len(said) <= high:
        raise UserError(f"{lock} takes PINs of {low} to {high} digits; that one has {len(said)}.")
    return said


def pin_hash(mac: Mac, node_id: int, pin: str) -> str:
    """The PIN as the confirmation binds it: a keyed hash (HMAC under the process's key), never the PIN."""
    return mac(f"lock-pin:{node_id}:{pin}".encode()).hex()[:32]


def find_user(users: LockUsers, said: str | None) -> LockUser | int | None:
    """The user a person means: a number ("3", "user 3", "slot 3", "#3") or a name ("Sam", "the cleaner").
    An int: a number that is no user (yet), or -1 for a name that fits no one; None: nothing given. Raises
    for a name that fits several."""
    if said is None or not str(said).strip():
        return None
    text = ascii_digits(str(said)).strip()
    number = _NUMBER.fullmatch(text)
    if number:
        user_id = int(number.group(1))
        return users.user(user_id) or user_id
    wanted = normalize(re.sub(r"^(the|our|my)\s+", "", text, flags=re.I))
    named = [u for u in users.users if u.name and normalize(u.name) == wanted]
    if not named:
        named = [u for u in users.users if u.name and wanted and wanted in normalize(u.name)]
    if len(named) == 1:
        return named[0]
    if len(named) > 1:
        raise UserError(
            f"Several users are called that: {', '.join(u.label for u in named)}; say the user number."
        )
    return -1


def _no_user(lock: str, said: str, users: LockUsers) -> UserError:
    numbers = (
        f"say a name or a user number (1 to {users.rules.max_users})" if users.rules else "say a user number"
    )
    return UserError(f"{lock} has no user called '{said[:40]}' ({numbers}); {describe_users(users, lock)}")


def describe_user(user: LockUser) -> str:
    """ "Alice (user 1, PIN in slot 1)", "user 4 (disabled, PIN in slot 4)"; never a code."""
    parts = [] if user.active else ["disabled"]
    parts += [f"{c.kind} in slot {c.slot}" for c in user.credentials] or ["no PIN or card"]
    head = f"{user.name} (user {user.user_id}" if user.name else f"user {user.user_id} ("
    joiner = ", " if user.name else ""
    return f"{head}{joiner}{', '.join(parts)})"


def describe_users(users: LockUsers, lock: str) -> str:
    """One sentence: the lock's users, who is enabled, which credentials (type and slot), never a code."""
    if not users.users:
        return f"{lock} has no users."
    text = and_list([describe_user(u) for u in users.users])
    where = (
        " (from its User Code values: this zwave-js-ui has no access-control API)"
        if users.from_values
        else ""
    )
    return f"{lock} has {plural(len(users.users), 'user')}{where}: {text}."


def rules_sentence(users: LockUsers, lock: str) -> str:
    rules = users.rules
    if rules is None:
        return ""
    names = f"names up to {rules.max_name_length} characters" if rules.names else "no names (User Code)"
    return f"{lock} takes {rules.max_users} users, PINs of {rules.pin_min} to {rules.pin_max} digits and {names}."


def _free_user_id(users: LockUsers) -> int | None:
    assert users.rules is not None
    taken = {u.user_id for u in users.users}
    return next((i for i in range(1, users.rules.max_users + 1) if i not in taken), None)


def _free_pin_slot(users: LockUsers, prefer: int, lock: str) -> int:
    assert users.rules is not None
    slots = range(1, users.rules.pin_slots + 1)
    if prefer in slots and users.pin_slot_owner(prefer) is None:
        return prefer
    free = next((s for s in slots if users.pin_slot_owner(s) is None), None)
    if free is None:
        raise UserError(f"All {users.rules.pin_slots} PIN slots of {lock} are taken; remove a PIN first.")
    return free


def plan(
    device: Device,
    users: LockUsers,
    action: str,
    *,
    user: str | None = None,
    name: str | None = None,
    pin: Any = None,
    mac: Mac,
) -> LockUserPlan:
    """The change `action` makes to the lock's users, checked against its rules; `UserError` says what
    breaks a rule or names no one (nothing is sent then). Users read from a User Code lock's values (a
    zwave-js-ui without the access-control API) are changed through those values."""
    lock = device.name
    rules = users.rules
    if not users.supported or rules is None:
        raise UserError(f"{lock} has no keypad users to manage (no User Code or User Credential support).")
    node, ep = users.node_id, users.endpoint
    found = find_user(users, user)
    if action == "add":
        return _plan_add(device, users, found, user, name, pin, mac)
    if found is None:
        raise UserError(f"Say which user of {lock} to {action.replace('_', ' ')}: a name or a user number.")
    if isinstance(found, int):
        if found == -1:
            raise _no_user(lock, str(user), users)
        # zwave-js-ui answers OK for a user that does not exist: say there is none, send nothing.
        raise UserError(
            f"There is no user {found} on {lock}, so there is nothing to {action.replace('_', ' ')}; {describe_users(users, lock)}"
        )
    target = found
    who = target.label
    base = {"lock": device.key, "user": target.user_id, "action": action}

    def change(
        summary: str, ops: list[LockOp], shown: dict[str, Any], expect: dict[str, Any], **more: Any
    ) -> LockUserPlan:
        """The plan for `target`: `shown` in the audit line and the binding (a `pin` of `more` only as a keyed
        hash), `expect` read back after it."""
        bound = {"pin": pin_hash(mac, node, more["pin"])} if "pin" in more else {}
        return LockUserPlan(
            action,
            summary,
            target.user_id,
            ep,
            ops,
            {**base, **shown, **bound},
            {"user": target.user_id, **shown},
            expect={"user": target.user_id, **expect},
            values=users.from_values,
            **more,
        )

    if action == "rename":
        new = (name or "").strip()
        if not new:
            raise UserError(f"Give the new name for {who} on {lock}.")
        if not rules.names:
            # zwave-js-ui would answer OK and change nothing: the lock keeps no names, zwave-mcp keeps it.
            if len(new) > GIVEN_NAME_MAX:
                raise UserError(
                    f"Names of {lock}'s users are at most {GIVEN_NAME_MAX} characters; '{new[:40]}' has {len(new)}."
                )
            return change(
                f"call user {target.user_id} of {lock} {new} ({lock} keeps no names: zwave-mcp keeps this one)",
                [],
                {"name": new},
                {"name": new},
                given_name=(target.user_id, new),
            )
        if rules.max_name_length and len(new) > rules.max_name_length:
            raise UserError(
                f"{lock} takes names of at most {rules.max_name_length} characters; '{new[:40]}' has {len(new)}."
            )
        op = LockOp("set_user", target.user_id, {"userName": new})
        return change(f"rename {who} on {lock} to {new}", [op], {"name": new}, {"name": new})
    if action in ("enable", "disable"):
        active = action == "enable"
        if target.active is active:
            raise UserError(
                f"{who} on {lock} is already {'enabled' if active else 'disabled'}; nothing to do."
            )
        if active and not target.credentials:
            raise UserError(
                f"{who} on {lock} has no PIN or card, so enabling would let no one in; add a PIN with change_pin."
            )
        verb = "turn on" if active else "turn off"
        op = LockOp("set_user", target.user_id, {"active": active})
        return change(f"{verb} the code of {who} on {lock}", [op], {}, {"active": active})
    if action == "change_pin":
        code = read_pin(pin, users, lock)
        held = target.pin()
        slot = (
            held.slot
            if held is not None
            else (target.user_id if users.user_code else _free_pin_slot(users, target.user_id, lock))
        )
        op = LockOp("set_pin", target.user_id, slot=slot)
        return change(
            f"change the PIN of {who} on {lock}", [op], {"slot": slot}, {"pin_slot": slot}, pin=code
        )
    if action == "remove":
        return change(
            f"remove {who} and {'its code' if users.user_code else 'every PIN and card of theirs'} from {lock}",
            [LockOp("delete_user", target.user_id)],
            {},
            {"gone": True},
            given_name=(target.user_id, None) if users.user_code else None,
            who=who,
        )
    raise UserError(f"Unknown action '{action[:40]}'; use one of: {', '.join(ACTIONS)}.")


def _plan_add(
    device: Device,
    users: LockUsers,
    found: LockUser | int | None,
    said: str | None,
    name: str | None,
    pin: Any,
    mac: Mac,
) -> LockUserPlan:
    lock = device.name
    rules = users.rules
    assert rules is not None
    node, ep = users.node_id, users.endpoint
    new = (name or "").strip() or None
    if new is None and isinstance(found, int) and found == -1 and said:
        new, found = str(said).strip(), None  # "add a code for the dog walker": the user is the new name
    code = read_pin(pin, users, lock)
    if new is not None and rules.names and rules.max_name_length and len(new) > rules.max_name_length:
        raise UserError(
            f"{lock} takes names of at most {rules.max_name_length} characters; '{new[:40]}' has {len(new)}."
        )
    replacing: LockUser | None = None
    if isinstance(found, LockUser):
        if not users.user_code:
            raise UserError(
                f"User {found.user_id} of {lock} is {found.label} already; choose a free user number or "
                f"change {found.name or 'their'} PIN with change_pin."
            )
        replacing = found  # zwave-js-ui would silently replace this person's code: say so, and ask
        user_id = found.user_id
    elif isinstance(found, int) and found > 0:
        if not 1 <= found <= rules.max_users:
            raise UserError(f"{lock} has users 1 to {rules.max_users}; there is no user {found}.")
        user_id = found
    else:
        free = _free_user_id(users)
        if free is None:
            raise UserError(f"All {rules.max_users} users of {lock} are taken; remove one first.")
        user_id = free
    # User Code: the user is the slot
    slot = user_id if users.user_code else _free_pin_slot(users, user_id, lock)
    options: dict[str, Any] = {"active": True}
    if new is not None and rules.names:
        options = {"userName": new, "active": True, "userType": 0}
    named = f"{new} as user {user_id}" if new is not None and rules.names else f"user {user_id}"
    if replacing is not None:
        summary = (
            f"give {replacing.label} on {lock} a new PIN, replacing the PIN {replacing.label} has now "
            f"(user {user_id} is taken: a User Code lock keeps one code per user)"
        )
    else:
        summary = f"add a PIN for {named} on {lock}"
    note = ""
    if new is not None and not rules.names:
        if len(new) > GIVEN_NAME_MAX:
            raise UserError(
                f"Names of {lock}'s users are at most {GIVEN_NAME_MAX} characters; '{new[:40]}' has {len(new)}."
            )
        note = f" ({lock} keeps no names: zwave-mcp will call user {user_id} {new})"
    replaces = replacing.user_id if replacing else None
    argument = {"user": user_id, "slot": slot, "name": new, "replaces": replaces}
    return LockUserPlan(
        "add",
        summary + note,
        user_id,
        ep,
        [LockOp("add_user", user_id, options, slot=slot)],
        {"lock": device.key, "action": "add", **argument, "pin": pin_hash(mac, node, code)},
        argument,
        pin=code,
        # A User Credential lock keeps the user even when it refuses the PIN: remove it again.
        undo=None if users.user_code else LockOp("delete_user", user_id),
        # A User Code lock keeps no names: zwave-mcp keeps the new one (or forgets the replaced person's).
        given_name=(user_id, new) if users.user_code else None,
        values=users.from_values,
        expect={
            "user": user_id,
            "pin_slot": slot,
            **({"name": new} if new is not None and rules.names else {}),
        },
    )


def verify(expect: dict[str, Any]) -> Callable[[LockUsers], str | None]:
    """What the lock's users must show after the change (None: they show it), read again as evidence."""

    def check(users: LockUsers) -> str | None:
        user = users.user(int(expect["user"]))
        if expect.get("gone"):
            return None if user is None else f"user {expect['user']} is still on the lock"
        if user is None:
            return f"the lock does not list user {expect['user']}"
        if "name" in expect and user.name != expect["name"]:
            return f"the lock still calls user {user.user_id} {user.name or 'nothing'}"
        if "active" in expect and user.active is not expect["active"]:
            return f"the lock still has {user.label} {'disabled' if user.active is False else 'enabled'}"
        if "pin_slot" in expect and not any(
            c.type == PIN_CODE and c.slot == expect["pin_slot"] for c in user.credentials
        ):
            return f"the lock shows no PIN for {user.label}"
        return None

    return check


def gate_action(action: str) -> str:
    """The action the gate records for a planned change to a user: "add" → "add_user"."""
    return action if action == "change_pin" else f"{action}_user"


def lock_user_change(tool: str, device: Device, planned: LockUserPlan) -> Change:
    """The gate's `Change`: one effect on the lock, bound to the exact request (PIN as a keyed hash)."""
    effect = Effect(
        device,
        None,
        planned.binding,
        frozenset({WORDS[planned.action]}),
        argument=planned.argument,
        text=planned.summary,
    )
    sender = LockUserCalls(
        node_id=device.node_id,
        endpoint=planned.endpoint,
        ops=planned.ops,
        pin=planned.pin,
        undo=planned.undo,
        verify=verify(planned.expect),
        given_name=planned.given_name,
        values=planned.values,
    )
    return Change(
        tool,
        gate_action(planned.action),
        planned.summary,
        [effect],
        sender,
        argument=planned.argument,
    )
