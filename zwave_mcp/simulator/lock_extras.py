"""A lock's code schedules and its own log, as zwave-js-ui 11.22.2 serves them (issue 45 items 3 and 5).

Schedules (`getSchedules`, `setSchedule`, `setEnabledSchedule` in `api/lib/ZwaveClient.ts`): zwave-js-ui
keeps them on the node (`node.schedule`, `node.userCodes`, shown by `getNodes` too), and so does the
simulator: the lock's slots and zwave-js's cache are one here, beside zwave-js's cache of each user's kind
and on/off (`LockSide.schedule_users`, which getSchedules says each user's slots `enabled` by). What it
answers and raises is zwave-js-ui's and zwave-js's (`ScheduleEntryLockCC`): its argument validation's
words (`zwave_validation`), a slot out of range, a stop before its start, a daily-repeating slot on a lock
of version 2, a second read while one runs, a node without the command class; the real test bed's lock
answered the same (docs/simulator.md). A Kwikset 910
uses no Supervision, so zwave-js-ui reads a slot back after setting it and answers `{"status": 255}`
(Success) or 2 (Fail); `setEnabledSchedule` then has no answer of the lock (`result` left out).

The lock's own log (`sendCommand` with Door Lock Logging, 76: `getRecordsCount`, `getRecord(n)`): the
records the lock holds, each with the code typed (`userCode`), as zwave-js parses them; an empty slot has
no result. Records are written as the simulated lock is used (`record`), from a few of its own at start.

What a lock can do comes from its model (`FEATURES`, by manufacturer, product type and product id), as
the command classes and versions of its real node dump say; what no dump holds (zwave-js keeps the number
of schedule slots and of log records internal) is the simulator's choice, said there.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from zwave_mcp.simulator import zwave_validation as v
from zwave_mcp.simulator.host import arg
from zwave_mcp.simulator.house import Node
from zwave_mcp.zwave.classes import CC
from zwave_mcp.zwave.wire import value_key

if TYPE_CHECKING:
    from zwave_mcp.simulator.admin_api import AdminHost
    from zwave_mcp.simulator.host import Respond, SimulatorHost

# Kwikset 910 (0x0090 0x0001 0x0001; `fixtures/devices/lock_kwikset_910_state.json`): Schedule Entry Lock
# version 2 (week-day and year-day, no daily repeating), Door Lock Logging version 1, User Code version 1
# with 30 slots. The slot and record counts are not in any dump: 7 week-day and 1 year-day slot per
# user, 20 records, chosen here.
FEATURES: dict[tuple[int, int, int], dict[str, Any]] = {
    (0x0090, 0x0001, 0x0001): {
        "scheduleVersion": 2,
        "slots": {"weekly": 7, "yearly": 1},
        "logRecords": 20,
    }
}
SUCCESS = 255  # SupervisionStatus.Success
WRONG_CODE = "5830291746"  # what someone typed at the lock that is no code of it (made up)
BUSY = "Another request is in progress, cancel it or wait..."
_KIND_WORDS = {"weekly": "day-of-week", "yearly": "day-of-year", "daily": "daily repeating"}
_KIND_COMMANDS = {"daily": "DailyRepeatingScheduleSet"}
# What zwave-js's ScheduleEntryLockCCAPI checks of a slot and of each kind's schedule (its _validateArgs).
_SLOT: dict[str, v.Check] = {"userId": "number", "slotId": "number"}
_TIME: dict[str, v.Check] = {"Hour": "number", "Minute": "number"}
_DATE: dict[str, v.Check] = {"Year": "number", "Month": "number", "Day": "number", **_TIME}
_WEEKDAY = v.Enum("ScheduleEntryLockWeekday")


def _prefixed(prefix: str, checks: dict[str, v.Check]) -> dict[str, v.Check]:
    return {prefix + k: c for k, c in checks.items()}


_SHAPES: dict[str, tuple[str, dict[str, v.Check]]] = {
    "weekly": (
        "ScheduleEntryLockWeekDaySchedule",
        {"weekday": _WEEKDAY, **_prefixed("start", _TIME), **_prefixed("stop", _TIME)},
    ),
    "yearly": ("ScheduleEntryLockYearDaySchedule", {**_prefixed("start", _DATE), **_prefixed("stop", _DATE)}),
    "daily": (
        "ScheduleEntryLockDailyRepeatingSchedule",
        {"weekdays": v.ArrayOf(_WEEKDAY), **_prefixed("start", _TIME), **_prefixed("duration", _TIME)},
    ),
}

# Events of the lock itself (DoorLockLoggingEventType) that the simulated lock writes when it is used.
LOGGED_EVENTS = {
    "keypad_unlock": 2,
    "keypad_lock": 1,
    "manual_unlock": 9,
    "manual_lock": 8,
    "rf_unlock": 15,
    "rf_lock": 14,
    "auto_lock": 10,
}
LOG_LABELS = {
    1: "Locked via Access Code",
    2: "Unlocked via Access Code",
    3: "Locked via Lock Button",
    7: "Illegal Access Code Entered",
    8: "Manually Locked",
    9: "Manually Unlocked",
    10: "Auto Locked",
    14: "Locked via Remote",
    15: "Unlocked via Remote",
}


def features(node: Node | None) -> dict[str, Any]:
    if node is None:
        return {}
    model = (node.get("manufacturerId"), node.get("productType"), node.get("productId"))
    return FEATURES.get(model, {})  # type: ignore[arg-type]


def _schedule_node(sim: AdminHost, node_id: Any) -> Node:
    node = sim.node(node_id)
    if node is None or not features(node).get("scheduleVersion"):
        raise RuntimeError(f"Schedule Entry Lock CC not supported on node {node_id}")
    return node


def _schedule(node: Node) -> dict[str, Any]:
    slots = features(node)["slots"]
    schedule: dict[str, Any] = node.setdefault("schedule", {})
    for kind in ("daily", "weekly", "yearly"):
        entry = schedule.setdefault(kind, {"slots": []})
        if kind in slots:
            entry["numSlots"] = slots[kind]
    return schedule


def _user_count(node: Node) -> int:
    return sum(1 for value in node.get("values", {}).values() if value.get("property") == "userIdStatus")


def _users_in_use(node: Node) -> list[int]:
    values = node.get("values", {})
    return [
        int(v["propertyKey"])
        for v in values.values()
        if v.get("commandClass") == CC.USER_CODE
        and v.get("property") == "userIdStatus"
        and v.get("value") in (1, 2)
    ]


def _get_schedules(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = _schedule_node(sim, arg(args, 0))
    opts = arg(args, 1) if isinstance(arg(args, 1), dict) else {"fromCache": True}
    if sim.lock_side.reading_schedules:
        raise RuntimeError(BUSY)
    schedule = _schedule(node)
    in_use = _users_in_use(node)
    users = sim.lock_side.schedule_users.get(node["id"], {})
    node["userCodes"] = {
        "total": _user_count(node),
        "available": in_use,
        "enabled": [u for u in in_use if users.get(u, {}).get("enabled")],
    }
    # zwave-js keeps one kind per user (the kind set last): each slot of a user in use is `enabled` when
    # it is of that kind. The slots of users not in use are left as zwave-js-ui's last change left them.
    for kind, entry in schedule.items():
        for slot in entry["slots"]:
            if slot["userId"] in in_use:
                slot["enabled"] = users.get(slot["userId"], {}).get("kind") == kind
    if opts.get("fromCache", False):
        respond(schedule, delay=sim.timing.api_reply)
        return
    # From the lock: one Get per user in use and slot of each kind.
    gets = len(in_use) * sum(e.get("numSlots", 0) for e in schedule.values())
    sim.lock_side.reading_schedules = True

    def done() -> None:
        sim.lock_side.reading_schedules = False
        respond(schedule)

    sim.radio.submit(sim.timing.poll * 0.5 * max(1, gets), done)


def _check_slot(node: Node, kind: str, slot: dict[str, Any], fields: dict[str, Any] | None) -> None:
    """What zwave-js checks before it sends: the arguments' shapes (its validation, first), that the lock
    has the command, the slot number, and that a slot ends after it starts."""
    type_name, shape = _SHAPES[kind]
    v.check(
        v.object_problem("slot", "ScheduleEntryLockSlotId", slot, _SLOT),
        v.object_problem(
            "schedule", type_name, v.missing() if fields is None else fields, shape, optional=True
        ),
    )
    if kind == "daily" and features(node)["scheduleVersion"] < 3:
        raise RuntimeError(
            f"Node #{node['id']} does not support the command {_KIND_COMMANDS['daily']}! (ZW0302)"
        )
    count = features(node)["slots"].get(kind, 0)
    if not 1 <= slot["slotId"] <= count:
        raise RuntimeError(
            f"The schedule slot # must be between 1 and the number of supported {_KIND_WORDS[kind]} slots {count}. (ZW0322)"
        )
    if fields and kind == "weekly":
        times = [fields[k] for k in ("startHour", "startMinute", "stopHour", "stopMinute")]
        if times[2:] <= times[:2]:
            raise RuntimeError("The stop time must be after the start time. (ZW0322)")
    if fields and kind == "yearly":
        keys = ("Year", "Month", "Day", "Hour", "Minute")
        if tuple(fields[f"stop{k}"] for k in keys) <= tuple(fields[f"start{k}"] for k in keys):
            raise RuntimeError("The stop date must be after the start date. (ZW0322)")


def _set_schedule(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = _schedule_node(sim, arg(args, 0))
    kind, raw = arg(args, 1), arg(args, 2)
    if not isinstance(raw, dict):
        raise RuntimeError("Cannot read properties of undefined (reading 'userId')")
    # zwave-js-ui takes the slot out of the schedule it was sent, in place (its reply's args show the
    # schedule without userId, slotId and enabled, as the real test bed's did); nothing left is a delete.
    slot = {k: raw[k] for k in ("userId", "slotId") if k in raw}
    for key in ("userId", "slotId", "enabled"):
        raw.pop(key, None)
    fields = dict(raw) or None
    if kind not in ("daily", "weekly", "yearly"):
        raise RuntimeError("Invalid schedule type")
    _check_slot(node, kind, slot, fields)
    user, slot_id = slot["userId"], slot["slotId"]

    def stored() -> None:  # the Set, then zwave-js-ui's Get to compare (no Supervision)
        sim.touch(node)
        if fields:  # zwave-js's cache: the user's schedules are on, of this kind (a delete changes neither)
            sim.lock_side.schedule_users.setdefault(node["id"], {})[user] = {"kind": kind, "enabled": True}
        schedule = _schedule(node)
        for entry in schedule.values():  # zwave-js-ui marks every slot of the kind just set in use
            for existing in entry["slots"]:
                existing["enabled"] = entry is schedule[kind]
        slots = schedule[kind]["slots"]
        slots[:] = [s for s in slots if not (s["userId"] == user and s["slotId"] == slot_id)]
        enabled = node.setdefault("userCodes", {"total": 0, "available": [], "enabled": []})["enabled"]
        if fields:
            slots.append({"userId": user, "slotId": slot_id, **fields, "enabled": True})
            if user not in enabled:
                enabled.append(user)
        elif user in enabled:
            enabled.remove(user)
        respond({"status": SUCCESS})

    sim.radio.submit(sim.timing.write_supervised + sim.timing.poll, stored)


def _set_enabled_schedule(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = sim.node(arg(args, 0))
    if node is None:
        raise RuntimeError("Node not found")
    if not features(node).get("scheduleVersion"):
        raise RuntimeError(
            f"Node {node['id']} does not support the Command Class Schedule Entry Lock! (ZW0302)"
        )
    on, user = (args[i] if i < len(args) else v.missing() for i in (1, 2))
    v.check(
        v.primitive_problem("enabled", "boolean", on),
        v.primitive_problem("userId", "number", user, optional=True),
    )
    users = sim.lock_side.schedule_users.setdefault(node["id"], {})
    chosen = [user] if isinstance(user, int) else range(1, _user_count(node) + 1)

    def sent() -> None:  # no Supervision: nothing to answer with (`result` undefined)
        sim.touch(node)
        for one in chosen:  # zwave-js's cache of whether each user's schedules are on
            users[one] = {**users.get(one, {}), "enabled": on}
        codes = node.setdefault("userCodes", {"total": 0, "available": [], "enabled": []})
        if isinstance(user, int):
            codes["enabled"] = sorted({*codes["enabled"], user} if on else set(codes["enabled"]) - {user})
        else:
            codes["enabled"] = list(codes.get("available", [])) if on else []
        respond()

    sim.radio.submit(sim.timing.write_supervised, sent)


# ---- the lock's own log ---------------------------------------------------------------------------------


def _stamp(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _code_of(node: Node, user: int | None) -> str | None:
    if user is None:
        return None
    value = node.get("values", {}).get(value_key(CC.USER_CODE, 0, "userCode", user))
    code = value.get("value") if value else None
    return code if isinstance(code, str) and code else None


def log_of(sim: SimulatorHost, node: Node) -> list[dict[str, Any]]:
    """The lock's records (the simulator's `lock_logs`), begun with a few of its own the first time."""
    logs = sim.lock_side.logs
    if node["id"] not in logs:
        now = time.time()
        start = [(14.0, 2, 1), (13.9, 10, None), (9.0, 2, 3), (8.95, 3, None), (5.0, 7, None), (1.0, 9, None)]
        logs[node["id"]] = [_record(node, now - hours * 3600, event, user) for hours, event, user in start]
    return logs[node["id"]]


def _record(node: Node, at: float, event: int, user: int | None) -> dict[str, Any]:
    record: dict[str, Any] = {
        "eventType": event,
        "label": LOG_LABELS.get(event, "Unknown"),
        "timestamp": _stamp(at),
    }
    if user is not None:
        record["userId"] = user
    code = _code_of(node, user) if event in (1, 2) else (WRONG_CODE if event == 7 else None)
    if code is not None:
        record["userCode"] = code  # what was typed, as zwave-js parses the report
    return record


def record(sim: SimulatorHost, node: Node, event: str, user: int | None) -> None:
    """The simulated lock writes one record of an event it played (`locks.lock_event`), oldest dropped."""
    size = features(node).get("logRecords")
    if not size or event not in LOGGED_EVENTS:
        return
    records = log_of(sim, node)
    records.append(_record(node, time.time(), LOGGED_EVENTS[event], user))
    del records[: max(0, len(records) - size)]


def door_lock_logging(
    sim: AdminHost, node: Node, endpoint: int, command: Any, args: list[Any], respond: Respond
) -> None:
    """`sendCommand` for Door Lock Logging: `getRecordsCount`, `getRecord(n)` (0: the latest)."""
    size = features(node).get("logRecords")
    if not size or endpoint != 0:
        where = f" Endpoint {endpoint}" if endpoint else ""
        raise RuntimeError(
            f"Node {node['id']}{where} does not support CC 76 or it has not been implemented yet"
        )
    if command not in ("getRecordsCount", "getRecord"):
        raise RuntimeError(f"The command {command} does not exist for CC 76")
    if command == "getRecordsCount":
        sim.radio.submit(sim.timing.poll, lambda: respond(size))
        return
    number = arg(args, 0)
    number = 0 if number is None else number
    if not isinstance(number, int) or isinstance(number, bool):
        raise RuntimeError(f"recordNumber: expected number, got {type(number).__name__}")
    records = log_of(sim, node)
    found = (
        records[-1]
        if number == 0 and records
        else records[number - 1]
        if 1 <= number <= len(records)
        else None
    )
    sim.radio.submit(sim.timing.poll * 0.5, lambda: respond() if found is None else respond(dict(found)))


HANDLERS = {
    "getSchedules": _get_schedules,
    "setSchedule": _set_schedule,
    "setEnabledSchedule": _set_enabled_schedule,
}
