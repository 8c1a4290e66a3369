"""manage_lock_users: who may open a keypad lock (its users, their PINs and cards), and changes to them
through the write gate (`zwave_mcp.devices.lock_users` plans, the gate judges, asks, limits, audits, sends).

Listed in read-only mode too (listing is a read; every change is then refused by the gate). A hidden lock's
users are hidden (no such device), a denied lock's users are readable and not changeable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from pydantic import BaseModel, BeforeValidator, Field

from zwave_mcp.devices.gate import Change, Effect
from zwave_mcp.devices.gate.senders import LockUserCalls
from zwave_mcp.devices.lock_schedules import WORDS as SCHEDULE_WORDS
from zwave_mcp.devices.lock_users import (
    WORDS,
    LockUserPlan,
    describe_user,
    describe_users,
    gate_action,
    lock_user_change,
    plan,
    rules_sentence,
)
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.errors import PolicyRefusal, UserError
from zwave_mcp.gateway.access import LockUsers, read_lock_users
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.server.app import App
from zwave_mcp.server.asking import asker_for
from zwave_mcp.server.tools.lock_log import LogEntry, lock_log
from zwave_mcp.server.tools.lock_schedules import LockScheduleList, ScheduleAsk
from zwave_mcp.server.tools.lock_schedules import change as change_schedule
from zwave_mcp.server.tools.lock_schedules import listing as schedules_listing
from zwave_mcp.server.tools.models import NAME_MAX, GateAnswer, ToolArgs, gate_answer
from zwave_mcp.server.tools.spec import CONTROL, tool

TOOL = "manage_lock_users"
LockAction = Literal[
    "list",
    "add",
    "rename",
    "enable",
    "disable",
    "change_pin",
    "remove",
    "schedules",
    "schedule",
    "unschedule",
    "log",
]
# Actions that only read: listed, and never audited as an attempt.
READS = ("list", "schedules", "log")


def _digits_as_text(value: Any) -> Any:
    """A PIN, user number or hour a model sent as a JSON number (5150, 3, 9) is the same as its text."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


class LockUsersArgs(ToolArgs):
    deviceName: str | None = Field(
        None, max_length=NAME_MAX, description="The lock ('back door'); leave out to list every lock's users"
    )
    action: LockAction = Field("list", description="list, or a change to one user")
    user: Annotated[str | None, BeforeValidator(_digits_as_text)] = Field(
        None, max_length=NAME_MAX, description="Who: a name ('Sam') or user number ('3')"
    )
    name: str | None = Field(None, max_length=NAME_MAX, description="add/rename: the person's name")
    pin: Annotated[str | None, BeforeValidator(_digits_as_text)] = Field(
        None, description="add/change_pin: the PIN the person chose (never repeated back)"
    )
    days: str | None = Field(None, max_length=NAME_MAX, description="schedule: 'Tuesday', 'Mon-Fri'")
    start: Annotated[str | None, BeforeValidator(_digits_as_text)] = Field(
        None, max_length=NAME_MAX, description="schedule: from '9'"
    )
    end: Annotated[str | None, BeforeValidator(_digits_as_text)] = Field(
        None, max_length=NAME_MAX, description="schedule: to '12', or until 'Sunday'"
    )
    period: str | None = Field(None, max_length=NAME_MAX, description="log: 'last night'")
    confirmationToken: str | None = Field(
        None, max_length=200, description="Only after the person agreed: the token a previous answer gave"
    )


class Credential(BaseModel):
    type: str = Field(description="PIN, password, RFID card, finger biometric, …")
    slot: int


class LockUser(BaseModel):
    userId: int
    name: str | None = None
    enabled: bool
    credentials: list[Credential]


class LockUserList(BaseModel):
    lock: str
    key: str
    rules: str
    users: list[LockUser]


class LockUsersResult(GateAnswer):
    action: str
    outcome: Outcome | None = None
    locks: list[LockUserList] = Field(default_factory=list)
    schedules: list[LockScheduleList] = Field(default_factory=list)
    log: list[LogEntry] = Field(default_factory=list)


def _users_model(device: Device, users: LockUsers) -> LockUserList:
    return LockUserList(
        lock=device.name,
        key=device.key,
        rules=rules_sentence(users, device.name),
        users=[
            LockUser(
                userId=u.user_id,
                name=u.name,
                enabled=u.active,
                credentials=[Credential(type=c.kind, slot=c.slot) for c in u.credentials],
            )
            for u in users.users
        ],
    )


def _done(planned: LockUserPlan, device: Device, after: LockUsers | None) -> str:
    """The confirmed change, said from the lock's users as read again after it."""
    user = after.user(planned.user_id) if after is not None else None
    if planned.action == "remove" or user is None:
        return f"Done: {planned.who} is no longer on {device.name}, as its users read again show."
    return f"Done: {device.name} now lists {describe_user(user)}, as its users read again show."


async def _users_of(app: App, device: Device) -> LockUsers:
    try:
        return await read_lock_users(app.gateway, device.node_id, timeout=app.settings.api_timeout)
    except GatewayError as exc:
        raise UserError(f"Could not read the users of {device.name}: {exc}.") from exc


def _lock_named(app: App, name: str, *, for_mutation: bool) -> Device:
    device = app.devices.resolve(name, for_mutation=for_mutation)
    if Capability.LOCK not in device.capabilities:
        raise UserError(f"{device.name} is not a lock, so it has no keypad users.")
    return device


async def _listing(app: App, args: LockUsersArgs) -> LockUsersResult:
    if args.deviceName is not None:
        device = _lock_named(app, args.deviceName, for_mutation=False)
        users = await _users_of(app, device)
        if not users.supported:  # an answer, not an error: "which codes are on it?" "none"
            return LockUsersResult(
                summary=f"{device.name} keeps no keypad users (no User Code or User Credential support).",
                action="list",
            )
        return LockUsersResult(
            summary=describe_users(users, device.name), action="list", locks=[_users_model(device, users)]
        )
    locks = [d for d in app.devices.devices() if Capability.LOCK in d.capabilities]
    read = await asyncio.gather(*(_users_of(app, d) for d in locks), return_exceptions=True)
    found = [(d, u) for d, u in zip(locks, read, strict=True) if isinstance(u, LockUsers) and u.supported]
    if not found:
        failed = next((u for u in read if isinstance(u, UserError)), None)
        if failed is not None:
            raise failed
        return LockUsersResult(summary="No lock here keeps keypad users.", action="list")
    summary = " ".join(describe_users(u, d.name) for d, u in found)
    return LockUsersResult(summary=summary, action="list", locks=[_users_model(d, u) for d, u in found])


def _gate_action(action: str) -> str:
    """What the gate records: "add" → "add_user", "schedule" → "schedule_code"."""
    return SCHEDULE_WORDS.get(action) or gate_action(action)


def _refused_early(app: App, device: Device, action: str) -> None:
    """Read-only, hidden, denied: refused (and audited) before the lock is even read."""
    words = frozenset({WORDS.get(action) or SCHEDULE_WORDS[action]})
    # A schedule changes when codes work, not who the users are: the refusal says which was asked.
    what = "change when codes work on" if action in SCHEDULE_WORDS else "change the users of"
    early = app.policy.judge(device, words, None, action_text=f"{what} {device.label}")
    if early.refused:
        stub = Change(
            TOOL,
            _gate_action(action),
            f"{what} {device.name}",
            [Effect(device, None, None, words, text=f"{what} {device.label}")],
            LockUserCalls(device.node_id),
        )
        raise PolicyRefusal(app.gate.refuse(stub, early.message).sentence)


async def _change(app: App, args: LockUsersArgs, ctx: Context | None) -> LockUsersResult:
    if args.deviceName is None:
        raise UserError(f"Say which lock to {args.action.replace('_', ' ')} a user on.")
    args.check_text("user", "name", "days", "start", "end")
    device = _lock_named(app, args.deviceName, for_mutation=True)
    _refused_early(app, device, args.action)
    if args.action in SCHEDULE_WORDS:
        asked = ScheduleAsk(args.action, args.user, args.days, args.start, args.end, args.confirmationToken)
        said, outcome, result, schedules = await change_schedule(app, asked, ctx, device, _users_of)
        return LockUsersResult(
            summary=said, action=args.action, outcome=outcome, schedules=schedules, **gate_answer(result)
        )
    planned_changes: list[tuple[Any, Change]] = []

    async def planner() -> Change:
        # The users as the lock reports them now: read with the lock held, and read again after the
        # person's answer (the gate holds no device while it asks).
        users = await _users_of(app, device)
        planned = plan(
            device,
            users,
            args.action,
            user=args.user,
            name=args.name,
            pin=args.pin,
            mac=app.policy.tokens.mac,
        )
        gate_change = lock_user_change(TOOL, device, planned)
        planned_changes.append((planned, gate_change))
        return gate_change

    result = await app.gate.run(
        planner, token=args.confirmationToken, ask=asker_for(ctx, app.questions), holding=[device.key]
    )
    planned, gate_change = planned_changes[-1]
    if result.outcome is Outcome.REFUSED:
        raise PolicyRefusal(result.sentence)
    sender = gate_change.sender
    after = sender.after if isinstance(sender, LockUserCalls) else None
    said = _done(planned, device, after) if result.outcome is Outcome.CONFIRMED else result.sentence
    return LockUsersResult(
        summary=said,
        action=args.action,
        outcome=result.outcome,
        locks=[_users_model(device, after)] if after is not None else [],
        **gate_answer(result),
    )


async def manage_lock_users(app: App, args: LockUsersArgs, ctx: Context | None) -> LockUsersResult:
    """Who may open a keypad lock: list its users (name, enabled, PIN/card slots; never the codes), or add a
    user with a PIN, rename, enable, disable, change_pin, remove. Uses the lock's own rules (PIN length, user
    count). A code added, enabled, changed, disabled or removed needs the person's confirmation, as does a
    schedule (when a code works). `log`: the lock's own records."""
    if args.action == "list":
        return await _listing(app, args)
    if args.action == "schedules":
        return await _schedules(app, args)
    if args.action == "log":
        return await _log(app, args)
    return await _change(app, args, ctx)


async def _schedules(app: App, args: LockUsersArgs) -> LockUsersResult:
    """ "Which codes have schedules?": every lock's, or the one named."""
    if args.deviceName is not None:
        locks = [_lock_named(app, args.deviceName, for_mutation=False)]
    else:
        locks = [d for d in app.devices.devices() if Capability.LOCK in d.capabilities]
    if not locks:
        return LockUsersResult(summary="There is no lock here.", action="schedules")
    said, schedules = await schedules_listing(app, locks, _users_of)
    return LockUsersResult(summary=said, action="schedules", schedules=schedules)


async def _log(app: App, args: LockUsersArgs) -> LockUsersResult:
    """ "Who opened the back door last night?": the lock's own records."""
    if args.deviceName is None:
        raise UserError("Say which lock's own log to read.")
    args.check_text("period")
    device = _lock_named(app, args.deviceName, for_mutation=False)
    said, entries = await lock_log(app, device, args.period, _users_of)
    return LockUsersResult(summary=said, action="log", log=entries)


def _attempt(arguments: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A call that is not a listing is an attempt on a lock, an action no lock knows included: the executor
    audits it by the action the gate records ("add" → "add_user")."""
    action = arguments.get("action", "list")
    if action in READS:
        return None
    known = isinstance(action, str) and (action in WORDS or action in SCHEDULE_WORDS)
    return {"action": _gate_action(action) if known else action}


TOOLS = [tool(manage_lock_users, annotations=CONTROL, title="Lock users and codes", attempt=_attempt)]
