"""manage_lock_users' code schedules (issue 45 item 3): "which codes have schedules?", "let the cleaner in
on Tuesdays from 9 to 12", "the guest's code works until Sunday", and taking a schedule away; each change
planned by `devices.lock_schedules` and passed through the write gate (the person's yes, audit, dry run,
the lock's schedules read again as evidence).

zwave-js-ui reads one lock's schedules at a time (it answers "Another request is in progress" to a second
read), so the locks are read one after the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from zwave_mcp.answers import and_list
from zwave_mcp.devices.gate import Change
from zwave_mcp.devices.gate.senders import ScheduleCalls
from zwave_mcp.devices.lock_schedules import (
    describe_schedules,
    plan_schedule,
    plan_unschedule,
    schedule_change,
    slot_words,
)
from zwave_mcp.devices.model import Device
from zwave_mcp.errors import PolicyRefusal, UserError
from zwave_mcp.gateway.access import LockUsers
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.gateway.lock_schedules import LockSchedules, SchedulesUnsupported, read_schedules
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.server.app import App
from zwave_mcp.server.asking import asker_for

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

CANNOT = "cannot keep code schedules"  # the command class's name is no word of the person's


class Schedule(BaseModel):
    userId: int
    kind: str = Field(description="weekly, yearly (dates) or daily (repeating)")
    slot: int
    inUse: bool
    when: str


class LockScheduleList(BaseModel):
    lock: str
    key: str
    schedules: list[Schedule]


async def schedules_of(app: App, device: Device) -> LockSchedules | None:
    """The lock's schedules as zwave-js-ui keeps them; None for a lock that cannot keep any."""
    try:
        return await read_schedules(app.gateway, device.node_id, timeout=app.settings.api_timeout)
    except SchedulesUnsupported:
        return None
    except GatewayError as exc:
        raise UserError(f"Could not read the schedules of {device.name}: {exc}.") from exc


def _model(device: Device, schedules: LockSchedules, app: App) -> LockScheduleList:
    now = app.history.service.now()
    return LockScheduleList(
        lock=device.name,
        key=device.key,
        schedules=[
            Schedule(userId=s.user_id, kind=s.kind, slot=s.slot_id, inUse=s.enabled, when=slot_words(s, now))
            for s in schedules.slots
        ],
    )


async def listing(app: App, locks: list[Device], users_of: Any) -> tuple[str, list[LockScheduleList]]:
    """Each lock's schedules in words; the locks that cannot schedule said in one phrase."""
    said: list[str] = []
    models: list[LockScheduleList] = []
    cannot: list[str] = []
    for device in locks:
        schedules = await schedules_of(app, device)
        if schedules is None:
            cannot.append(device.name)
            continue
        users: LockUsers = await users_of(app, device)
        said.append(describe_schedules(users, schedules, device.name, app.history.service.now()))
        models.append(_model(device, schedules, app))
    if cannot:
        said.append(f"{and_list(cannot)} {CANNOT}.")
    return " ".join(said), models


@dataclass(frozen=True)
class ScheduleAsk:
    """What manage_lock_users was asked: `action` "schedule" or "unschedule", whose code, and when."""

    action: str
    user: str | None
    days: str | None = None
    start: str | None = None
    end: str | None = None
    token: str | None = None


async def change(
    app: App, args: ScheduleAsk, ctx: Context | None, device: Device, users_of: Any
) -> tuple[str, Outcome | None, Any, list[LockScheduleList]]:
    """A schedule set or taken away, through the gate: (sentence, outcome, the gate's result, schedules
    read again)."""
    changes: list[Change] = []

    async def planner() -> Change:
        schedules = await schedules_of(app, device)
        if schedules is None:
            raise UserError(f"{device.name} {CANNOT}; its codes work at any time.")
        users = await users_of(app, device)
        if args.action == "schedule":
            planned = plan_schedule(
                device,
                users,
                schedules,
                user=args.user,
                days=args.days,
                start=args.start,
                end=args.end,
                now=app.history.service.now(),
            )
        else:
            planned = plan_unschedule(device, users, schedules, user=args.user)
        changes.append(schedule_change("manage_lock_users", device, planned))
        return changes[-1]

    result = await app.gate.run(
        planner, token=args.token, ask=asker_for(ctx, app.questions), holding=[device.key]
    )
    if result.outcome is Outcome.REFUSED:
        raise PolicyRefusal(result.sentence)
    sender = changes[-1].sender
    after = sender.after if isinstance(sender, ScheduleCalls) else None
    if result.outcome is Outcome.CONFIRMED and after is not None:
        users = await users_of(app, device)
        now = app.history.service.now()
        said = f"Done, as the lock's schedules read again show: {describe_schedules(users, after, device.name, now, slots=False)}"
    else:
        said = result.sentence
    return said, result.outcome, result, [_model(device, after, app)] if after is not None else []
