"""manage_lock_users' `log` (issue 45 item 5): "who opened the back door last night?" from the lock's own
records (Door Lock Logging), which cover the hours nobody was listening. Each record is said at its time in
local time, with its user as the lock's users name them now (and zwave-mcp's names for a lock that keeps
none); the code a record may carry never gets this far (`gateway.lock_log`).
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

# Records said in one answer when no period is asked for: the newest.
SAID_MAX = 8


class LogEntry(BaseModel):
    at: str
    event: str
    userId: int | None = None
    user: str | None = None


def _who(record: LogRecord, users: LockUsers | None) -> str:
    if record.user_id is None:
        return ""
    user = users.user(record.user_id) if users is not None else None
    return f" by {user.label if user is not None else f'user {record.user_id}'}"


async def lock_log(app: App, device: Device, period: str | None, users_of: Any) -> tuple[str, list[LogEntry]]:
    """The lock's records in the period (else its newest), one sentence, oldest first."""
    try:
        log = await read_lock_log(app.gateway, device.node_id, timeout=app.settings.api_timeout)
    except LogUnsupported:
        return f"{device.name} keeps no log of its own (it has no Door Lock Logging).", []
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
    entries = [
        LogEntry(
            at=r.at.astimezone(now.tzinfo).isoformat(timespec="seconds"),
            event=r.words,
            userId=r.user_id,
            user=(u.label if users is not None and (u := users.user(r.user_id or 0)) else None),
        )
        for r in records
    ]
    return _sentence(device.name, log, records, words, users, now), entries


def _sentence(
    lock: str, log: LockLog, records: list[LogRecord], words: str, users: LockUsers | None, now: Any
) -> str:
    kept = f"it keeps {plural(log.count, 'record')}"
    if log.read < log.count:
        kept += f", of which the first {log.read} were read"
    if not records:
        held = (
            f"; the ones read run from {_at(log.records[0], now)} to {_at(log.records[-1], now)}"
            if log.records
            else ""
        )
        return f"{lock}'s own log has nothing {words or 'in it'} ({kept}{held})."
    said = and_list([f"{r.words}{_who(r, users)} {when(r.at, now)}" for r in records])
    head = f"{lock}'s own log, {words}: it " if words else f"{lock}'s own log, newest last: it "
    return f"{head}{said} ({kept})."


def _at(record: LogRecord, now: Any) -> str:
    return when(record.at, now).removeprefix("at ").removeprefix("on ")
