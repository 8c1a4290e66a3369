"""A keypad lock's code schedules (Schedule Entry Lock), read through zwave-js-ui's `getSchedules`.

zwave-js-ui 11.22.2 (`api/lib/ZwaveClient.ts`) keeps a lock's schedules on its node (`node.schedule`,
what `getNodes` shows too) and answers `getSchedules(nodeId, {mode?, fromCache})` with it:
`{"daily" | "weekly" | "yearly": {"numSlots": n, "slots": [{userId, slotId, enabled, ...the slot}]}}`.
It reads the slots of the User Code users that are in use (enabled or disabled) only, from zwave-js's cache
with `fromCache: true` (no radio traffic) or from the lock, one Get per user and slot, without it. A slot's
`enabled` says whether that kind is the one the lock uses for that user: a lock keeps one kind per user,
and setting a slot of one kind switches the user to it.

Its errors, as zwave-js-ui words them: "Schedule Entry Lock CC not supported on node N" (also for a
node that does not exist), "Another request is in progress, cancel it or wait..." (one read at a time,
across every lock).

The slots, in zwave-js's shapes (`ScheduleEntryLockCC`, weekday 0 = Sunday):
- week day: `weekday`, `startHour`, `startMinute`, `stopHour`, `stopMinute`;
- year day: `startYear`…`startMinute`, `stopYear`…`stopMinute` (the lock's local time);
- daily repeating (version 3): `weekdays` [..], `startHour`, `startMinute`, `durationHour`, `durationMinute`.

Read-only: `setSchedule` and `setEnabledSchedule` are the write gate's (`devices.gate.senders`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from zwave_mcp.gateway.api import ApiReply, GatewayError

SCHEDULES_API = "getSchedules"
NOT_SUPPORTED = "Schedule Entry Lock CC not supported"
BUSY = "Another request is in progress"
WEEKLY, YEARLY, DAILY = "weekly", "yearly", "daily"
KINDS = (WEEKLY, YEARLY, DAILY)

# The fields of each kind's slot and their ranges (zwave-js's ScheduleEntryLock*Schedule).
_HOUR, _MINUTE, _DAY = (0, 23), (0, 59), (0, 6)
_DATE = {"Year": (2000, 2255), "Month": (1, 12), "Day": (1, 31), "Hour": _HOUR, "Minute": _MINUTE}
FIELDS: dict[str, dict[str, tuple[int, int]]] = {
    WEEKLY: {
        "weekday": _DAY,
        "startHour": _HOUR,
        "startMinute": _MINUTE,
        "stopHour": _HOUR,
        "stopMinute": _MINUTE,
    },
    YEARLY: {edge + part: span for edge in ("start", "stop") for part, span in _DATE.items()},
    DAILY: {"startHour": _HOUR, "startMinute": _MINUTE, "durationHour": _HOUR, "durationMinute": _MINUTE},
}


class _Gateway(Protocol):
    async def call(self, api: str, *args: Any, timeout: float | None = None) -> ApiReply: ...


class SchedulesUnsupported(GatewayError):
    """The lock has no Schedule Entry Lock (or zwave-js-ui has no schedule API)."""


@dataclass(frozen=True, slots=True)
class ScheduleSlot:
    """One schedule slot of one user: `kind` (weekly, yearly, daily), `fields` in zwave-js's shape."""

    kind: str
    user_id: int
    slot_id: int
    fields: dict[str, Any] = field(default_factory=dict, hash=False)
    enabled: bool = True  # the kind the lock uses for this user

    def same_times(self, other: ScheduleSlot) -> bool:
        return self.kind == other.kind and self.fields == other.fields


@dataclass(frozen=True, slots=True)
class LockSchedules:
    node_id: int
    supported: bool
    slots_of: dict[str, int] = field(default_factory=dict, hash=False)  # kind → the lock's number of slots
    slots: tuple[ScheduleSlot, ...] = ()

    def of_user(self, user_id: int) -> list[ScheduleSlot]:
        return [s for s in self.slots if s.user_id == user_id]

    def free_slot(self, kind: str, user_id: int, taken: set[int] | None = None) -> int | None:
        used = {s.slot_id for s in self.slots if s.kind == kind and s.user_id == user_id} | (taken or set())
        return next((i for i in range(1, self.slots_of.get(kind, 0) + 1) if i not in used), None)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_slot(kind: str, raw: Any) -> ScheduleSlot | None:
    """One slot of `getSchedules`' result, checked against zwave-js's shape; None when it does not fit."""
    if not isinstance(raw, dict):
        return None
    user, slot = _int(raw.get("userId")), _int(raw.get("slotId"))
    if user is None or slot is None or user < 1 or slot < 1:
        return None
    fields: dict[str, Any] = {}
    for name, (low, high) in FIELDS[kind].items():
        number = _int(raw.get(name))
        if number is None or not low <= number <= high:
            return None
        fields[name] = number
    if kind == DAILY:
        days = raw.get("weekdays")
        if not isinstance(days, list) or not days or any(_int(d) is None or not 0 <= d <= 6 for d in days):
            return None
        fields["weekdays"] = sorted(set(days))
    return ScheduleSlot(kind, user, slot, fields, enabled=raw.get("enabled") is not False)


def parse_schedules(node_id: int, result: Any) -> LockSchedules:
    """`getSchedules`' result → `LockSchedules`; a slot that does not fit zwave-js's shape is left out."""
    if not isinstance(result, dict):
        return LockSchedules(node_id, supported=False)
    counts: dict[str, int] = {}
    slots: list[ScheduleSlot] = []
    for kind in KINDS:
        entry = result.get(kind)
        if not isinstance(entry, dict):
            continue
        counts[kind] = max(0, _int(entry.get("numSlots")) or 0)
        for raw in entry.get("slots") or []:
            slot = parse_slot(kind, raw)
            if slot is not None:
                slots.append(slot)
    slots.sort(key=lambda s: (s.user_id, KINDS.index(s.kind), s.slot_id))
    return LockSchedules(node_id, supported=True, slots_of=counts, slots=tuple(slots))


def schedule_request(kind: str, user_id: int, slot_id: int, fields: dict[str, Any] | None) -> dict[str, Any]:
    """The schedule argument of `setSchedule`: the slot and its fields; the slot alone erases it."""
    return {"userId": user_id, "slotId": slot_id, **(fields or {})}


async def read_schedules(gateway: _Gateway, node_id: int, *, timeout: float | None = None) -> LockSchedules:
    """The lock's schedules as zwave-js-ui keeps them (zwave-js's cache, which a schedule set through it
    updates; asking the lock itself costs a Get per user and slot). Raises `SchedulesUnsupported` for a
    lock without Schedule Entry Lock, `GatewayError` otherwise."""
    reply = await gateway.call(SCHEDULES_API, node_id, {"fromCache": True}, timeout=timeout)
    if not reply.success:
        if reply.message.startswith(NOT_SUPPORTED) or reply.message == "Unknown API":
            raise SchedulesUnsupported(reply.message)
        if reply.message.startswith(BUSY):
            raise GatewayError("zwave-js-ui is reading another lock's schedules; try again in a moment")
        raise GatewayError(f"zwave-js-ui could not read the schedules: {reply.message or 'no reason given'}")
    return parse_schedules(node_id, reply.result)
