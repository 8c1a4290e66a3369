"""manage_lock_users' `log` (issue 45 item 5): "who opened the back door last night?" from the lock's own
records (Door Lock Logging), which cover the hours nobody was listening. Each record is said at its time in
local time, with its user's name at that time: the name history stored with that user's last event at the
lock up to then, else as the lock's users are named now (and zwave-mcp's names for a lock that keeps none).
The code a record may carry never gets this far (`gateway.lock_log`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from zwave_mcp.answers import and_list, plural
from zwave_mcp.devices.model import Device
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.access import LockUsers
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.gateway.lock_log import LockLog, LogRecord, LogUnsupported, read_lock_log
from zwave_mcp.history.periods import parse_period, when
from zwave_mcp.server.app import App
from zwave_mcp.server.tools.present import now_ms

# Records said in one answer when no period is asked for: the newest.
SAID_MAX = 8


class LogEntry(BaseModel):
    at: str
    event: str
    userId: int | None = None
    user: str | None = None


# A record is stamped to the second by the lock; the live event of it is stored in that second or just
# after (zwave-js-ui's time).
SAME_EVENT_MS = 1_500

Names = list[tuple[int, int, str]]  # (at ms, user id, name), oldest first


def _label(record: LogRecord, users: LockUsers | None, named: Names) -> str | None:
    """The record's user as named when it happened: the name history stored with that user's last event
    up to the record's time, else as the lock's users are named now; None for a record of no user."""
    if record.user_id is None:
        return None
    until = int(record.at.timestamp() * 1000) + SAME_EVENT_MS
    then = [name for at, user, name in named if user == record.user_id and at <= until]
    if then:
        return f"{then[-1]} (user {record.user_id})"
    user = users.user(record.user_id) if users is not None else None
    return user.label if user is not None else f"user {record.user_id}"


async def lock_log(app: App, device: Device, period: str | None, users_of: Any) -> tuple[str, list[LogEntry]]:
    """The lock's records in the period (else its newest), one sentence, oldest first."""
    try:
        log = await read_lock_log(app.gateway, device.node_id, timeout=app.settings.api_timeout)
    except LogUnsupported:
        # What would answer instead, not the command class it lacks.
        heard = "get_recent_events says what zwave-mcp heard from it"
        return f"{device.name} keeps no log of its own; {heard}.", []
    except GatewayError as exc:
        raise UserError(f"Could not read the log of {device.name}: {exc}.") from exc
    now = app.history.service.now()
    try:
        users: LockUsers | None = await users_of(app, device)
    except UserError:
        users = None  # the records are still worth saying, by user number
    records = list(log.records)
    if period:
        span = parse_period(period, now)
        records = [r for r in records if span.start <= r.at < span.end]
        words = span.words
    else:
        records = records[-SAID_MAX:]
        words = ""
    named: Names = []
    if records:
        first = int(records[0].at.timestamp() * 1000) - SAME_EVENT_MS
        named = await app.history.service.lock_user_names(device.node_id, first, now_ms() + 1)
    labels = [_label(r, users, named) for r in records]
    entries = [
        LogEntry(
            at=r.at.astimezone(now.tzinfo).isoformat(timespec="seconds"),
            event=r.words,
            userId=r.user_id,
            user=label,
        )
        for r, label in zip(records, labels, strict=True)
    ]
    return _sentence(device.name, log, list(zip(records, labels, strict=True)), words, now), entries


def _sentence(lock: str, log: LockLog, said: list[tuple[LogRecord, str | None]], words: str, now: Any) -> str:
    kept = f"it keeps {plural(log.count, 'record')}"
    if log.read < log.count:
        kept += f", of which the first {log.read} were read"
    if not said:
        held = (
            f"; the ones read run from {_at(log.records[0], now)} to {_at(log.records[-1], now)}"
            if log.records
            else ""
        )
        return f"{lock}'s own log has nothing {words or 'in it'} ({kept}{held})."
    times = [when(r.at, now) for r, _ in said]
    if words and all(t.startswith(f"{words} at ") for t in times):  # "yesterday: …, yesterday at …" once
        times = [t.removeprefix(f"{words} ") for t in times]
    phrases = and_list(
        [f"{r.words}{f' by {label}' if label else ''} {t}" for (r, label), t in zip(said, times, strict=True)]
    )
    head = f"{lock}'s own log, {words}: it " if words else f"{lock}'s own log, newest last: it "
    return f"{head}{phrases} ({kept})."


def _at(record: LogRecord, now: Any) -> str:
    return when(record.at, now).removeprefix("at ").removeprefix("on ")
