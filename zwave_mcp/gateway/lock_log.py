"""A lock's own log (Door Lock Logging), read through zwave-js-ui's `sendCommand`, codes dropped.

zwave-js's `DoorLockLoggingCCAPI` (`packages/cc/src/cc/DoorLockLoggingCC.ts`): `getRecordsCount()` answers
how many records the lock keeps (or nothing, when it did not answer); `getRecord(n)` one record (n from 1;
0 is the latest), or nothing for an empty one:
`{"eventType": 2, "label": "Unlocked via Access Code", "timestamp": "<ISO, UTC>", "userId": 3,
"userCode": "…"}`. The timestamp is the lock's own clock read as the zwave-js host's local time. The
`userCode` is the code that was typed: the API client drops it from the reply (`gateway.secrets`), and
`parse_record` never reads it. zwave-js-ui's errors: "Node N does not support CC 76 or it has not been
implemented yet", "Node N was not found!".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from zwave_mcp.gateway.api import ApiReply, GatewayError
from zwave_mcp.safetext import plain_text
from zwave_mcp.zwave.classes import CC

if TYPE_CHECKING:
    from zwave_mcp.gateway.client import ZwaveGateway

NOT_SUPPORTED = "does not support CC"
# Records read at most in one answer: each is a round trip over the radio.
READ_MAX = 40

# DoorLockLoggingEventType (zwave-js) → what happened, as a sentence says it after the lock's name.
EVENT_WORDS = {
    1: "was locked with a code",
    2: "was unlocked with a code",
    3: "was locked with its lock button",
    4: "was unlocked with its unlock button",
    5: "refused a code to lock outside its schedule",
    6: "refused a code to unlock outside its schedule",
    7: "refused a wrong code",
    8: "was locked by hand",
    9: "was unlocked by hand",
    10: "locked itself",
    11: "unlocked itself",
    12: "was locked with a remote code",
    13: "was unlocked with a remote code",
    14: "was locked remotely",
    15: "was unlocked remotely",
    16: "refused a remote code to lock outside its schedule",
    17: "refused a remote code to unlock outside its schedule",
    18: "refused a wrong remote code",
    19: "was locked by hand",
    20: "was unlocked by hand",
    21: "was secured",
    22: "was unsecured",
    23: "had a code added",
    24: "had a code deleted",
    25: "had every code deleted",
    26: "had its admin code changed",
    27: "had a code changed",
    28: "was reset",
    29: "had its settings changed",
    30: "reported a low battery",
    31: "had a new battery put in",
}


class LogUnsupported(GatewayError):
    """The lock keeps no log of its own (no Door Lock Logging)."""


@dataclass(frozen=True, slots=True)
class LogRecord:
    at: datetime  # aware, UTC
    event: int
    user_id: int | None

    @property
    def words(self) -> str:
        return EVENT_WORDS.get(self.event, f"logged event {self.event}")


@dataclass(frozen=True, slots=True)
class LockLog:
    node_id: int
    count: int  # records the lock keeps
    read: int  # records asked for
    records: tuple[LogRecord, ...]  # the non-empty ones, oldest first


def parse_record(raw: Any) -> LogRecord | None:
    """One `getRecord` result → a record (its `userCode`, if any reached here, is never read)."""
    if not isinstance(raw, dict):
        return None
    event, stamp, user = raw.get("eventType"), raw.get("timestamp"), raw.get("userId")
    if not isinstance(event, int) or isinstance(event, bool) or not isinstance(stamp, str):
        return None
    try:
        at = datetime.fromisoformat(plain_text(stamp, 40).replace("Z", "+00:00"))
    except ValueError:
        return None
    at = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    user_id = user if isinstance(user, int) and not isinstance(user, bool) and user > 0 else None
    return LogRecord(at.astimezone(UTC), event, user_id)


def _result(reply: ApiReply) -> Any:
    if reply.success:
        return reply.result
    if NOT_SUPPORTED in reply.message:
        raise LogUnsupported(reply.message)
    raise GatewayError(f"zwave-js-ui could not read the lock's log: {reply.message or 'no reason given'}")


async def read_lock_log(
    gateway: ZwaveGateway, node_id: int, endpoint: int = 0, *, timeout: float | None = None
) -> LockLog:
    """The lock's records (at most `READ_MAX`, from record 1), oldest first. Raises `LogUnsupported` for a
    lock without Door Lock Logging, `GatewayError` otherwise."""
    cc = CC.DOOR_LOCK_LOGGING
    counted = _result(await gateway.read_cc(node_id, endpoint, cc, "getRecordsCount", timeout=timeout))
    count = counted if isinstance(counted, int) and not isinstance(counted, bool) else 0
    records: list[LogRecord] = []
    wanted = min(max(count, 0), READ_MAX)
    for number in range(1, wanted + 1):
        answer = await gateway.read_cc(node_id, endpoint, cc, "getRecord", number, timeout=timeout)
        record = parse_record(_result(answer))
        if record is not None:
            records.append(record)
    records.sort(key=lambda r: r.at)
    return LockLog(node_id, count, wanted, tuple(records))
