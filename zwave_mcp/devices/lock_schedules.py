"""When a lock user's code works: the planner in front of the write gate for code schedules (Schedule Entry
Lock, issue 45 item 3), and the schedules in words. Pure: `now` (aware, the home's local time) is given.

"Let the cleaner in on Tuesdays from 9 to 12" is a week-day schedule (one slot per day; a lock of Schedule
Entry Lock version 3 takes several days in one daily-repeating slot); "the guest's code works until Sunday"
is a year-day schedule from today to the end of Sunday. A lock keeps one kind of schedule per user: setting
one of a kind switches the user to it (zwave-js, zwave-js-ui), which the question says. Once a user has a
schedule their code works only within it; `unschedule` erases every slot of theirs and turns their
schedules off, so the code works at any time again. The times are the lock's own clock, which zwave-js
sets to the home's local time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from zwave_mcp.answers import and_list
from zwave_mcp.devices.gate import Change, Effect
from zwave_mcp.devices.gate.senders import ScheduleCalls, ScheduleOp
from zwave_mcp.devices.lock_users import find_user
from zwave_mcp.devices.model import Device
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.access import LockUser, LockUsers
from zwave_mcp.gateway.lock_schedules import DAILY, WEEKLY, YEARLY, LockSchedules, ScheduleSlot

# Policy words (`policy.sensitive`): when a code lets someone in is the person's call.
WORDS = {"schedule": "schedule_code", "unschedule": "unschedule_code"}
# zwave-js's weekday numbers: 0 is Sunday.
DAY_NAMES = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
_GROUPS = {
    **dict.fromkeys(("weekdays", "workdays"), (1, 2, 3, 4, 5)),
    **dict.fromkeys(("weekends", "weekend"), (0, 6)),
    **dict.fromkeys(("every day", "everyday", "daily", "all week"), (0, 1, 2, 3, 4, 5, 6)),
}
_CLOCK = re.compile(r"^(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$")
_CLOCK_WORD = re.compile(r"^(from|at|to|until|till|til) ")
# "9-12", "9 to 12": both hours in the start, as people say them
_HOURS = re.compile(r"(.+?)\s*(?:-|–|\bto\b|\buntil\b|\btill\b)\s*(.+)")
DAYS_EXAMPLES = "'Tuesday', 'Mon-Fri', 'weekdays', 'Monday and Thursday'"
TIME_EXAMPLES = "'9', '9:30', '5 pm', '17:30'"
DATE_EXAMPLES = "'Sunday', 'tomorrow', '2026-12-24', '2026-12-24 18:00'"


@dataclass
class SchedulePlan:
    action: str
    summary: str
    user_id: int
    ops: list[ScheduleOp]
    binding: dict[str, Any]
    argument: dict[str, Any]
    slots: list[ScheduleSlot] = field(default_factory=list)  # what the lock must show after it
    who: str = ""


# ---- reading what a person says --------------------------------------------------------------------


def read_clock(text: str | None, what: str) -> time:
    said = (text or "").strip().lower().replace("noon", "12 pm").replace("midnight", "0:00")
    found = _CLOCK.match(_CLOCK_WORD.sub("", said))  # "from 9", "to 12": the tool's own examples say so
    if found is None:
        raise UserError(f"I cannot read the {what} time '{(text or '')[:20]}'; say it like {TIME_EXAMPLES}.")
    hour, minute = int(found.group(1)), int(found.group(2) or 0)
    suffix = (found.group(3) or "").replace(".", "")
    if (suffix and not 1 <= hour <= 12) or hour > 23 or minute > 59:
        raise UserError(f"The {what} time '{text}' is no time of day; say it like {TIME_EXAMPLES}.")
    if suffix == "pm" and hour != 12:
        hour += 12
    elif suffix == "am" and hour == 12:
        hour = 0
    return time(hour, minute)


def read_days(text: str) -> list[int]:
    """zwave-js weekday numbers (0 Sunday) of "Tuesday", "tuesdays", "Mon-Fri", "weekdays", "mon, wed and fri"."""
    said = " ".join(text.lower().split()).removeprefix("on ")
    if said in _GROUPS:
        return sorted(_GROUPS[said])
    said = said.removeprefix("every ")
    days: set[int] = set()
    for part in re.split(r"\s*(?:,|\band\b|&|\+|/)\s*", said):
        if not part:
            continue
        if "-" in part or " to " in part:
            first, last = (_day(p) for p in re.split(r"\s*(?:-|to)\s*", part, maxsplit=1))
            number = first
            days.add(number)
            while number != last:
                number = (number + 1) % 7
                days.add(number)
        elif part in _GROUPS:
            days.update(_GROUPS[part])
        else:
            days.add(_day(part))
    if not days:
        raise UserError(f"Say which days, like {DAYS_EXAMPLES}.")
    return sorted(days)


def _day(word: str) -> int:
    """A day's number from its name or the name's start ("tue", "tues", "tuesdays")."""
    said = word.strip().removesuffix(".")
    said = said[:-1] if said.endswith("days") else said
    number = next(
        (n for n, name in enumerate(DAY_NAMES) if len(said) >= 3 and name.lower().startswith(said)), None
    )
    if number is None:
        raise UserError(f"I cannot read the day '{word[:20]}'; say days like {DAYS_EXAMPLES}.")
    return number


_LEAD_WORD = re.compile(r"^(on|until|till|til|through|thru|to|by) ")


def read_moment(text: str, now: datetime, *, end: bool) -> datetime:
    """A day and maybe a time ("Sunday", "tomorrow 18:00", "2026-12-24"), in `now`'s zone; a day alone is
    its first minute, or its last for an `end`. A weekday is the next one (today, if it is today)."""
    # "until Sunday" is what people say (and what the tool's own description shows); the word adds nothing
    said = _LEAD_WORD.sub("", " ".join(text.strip().lower().split()))
    parts = said.split(" ", 1)
    day_word, clock_word = parts[0], parts[1] if len(parts) > 1 else ""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", day_word):
        try:
            day = date.fromisoformat(day_word)
        except ValueError:
            raise UserError(f"'{text[:30]}' is no date; say it like {DATE_EXAMPLES}.") from None
    elif day_word in ("today", "tonight"):
        day = now.date()
    elif day_word == "tomorrow":
        day = now.date() + timedelta(days=1)
    else:
        try:
            number = _day(day_word)
        except UserError:
            raise UserError(f"I cannot read '{text[:30]}' as a day; say it like {DATE_EXAMPLES}.") from None
        python_weekday = (number - 1) % 7  # Python's Monday is 0
        day = now.date() + timedelta(days=(python_weekday - now.weekday()) % 7)
    at = read_clock(clock_word, "end" if end else "start") if clock_word else time(23, 59) if end else time(0)
    return datetime.combine(day, at, now.tzinfo)


# ---- words ------------------------------------------------------------------------------------------


def _hm(hour: int, minute: int) -> str:
    return f"{hour:02d}:{minute:02d}"


def _plural_days(days: list[int]) -> str:
    if days == [1, 2, 3, 4, 5]:
        return "on weekdays"
    if days == [0, 1, 2, 3, 4, 5, 6]:
        return "every day"
    if days == [0, 6]:
        return "at weekends"
    return "on " + and_list([f"{DAY_NAMES[d]}s" for d in sorted(days, key=lambda d: (d - 1) % 7)])


def _day_text(day: date, now: datetime) -> str:
    return f"{day.day} {day:%b}" if day.year == now.year else f"{day.day} {day:%b} {day.year}"


def slot_words(slot: ScheduleSlot, now: datetime) -> str:
    """ "on Tuesdays from 09:00 to 12:00", "from 2 Dec 09:00 to 6 Dec 23:59"."""
    f = slot.fields
    if slot.kind == WEEKLY:
        return f"{_plural_days([f['weekday']])} from {_hm(f['startHour'], f['startMinute'])} to {_hm(f['stopHour'], f['stopMinute'])}"
    if slot.kind == DAILY:
        start = f["startHour"] * 60 + f["startMinute"]
        stop = start + f["durationHour"] * 60 + f["durationMinute"]
        later = " the next day" if stop >= 24 * 60 else ""
        stop %= 24 * 60
        return f"{_plural_days(f['weekdays'])} from {_hm(f['startHour'], f['startMinute'])} to {_hm(stop // 60, stop % 60)}{later}"
    try:
        first = date(f["startYear"], f["startMonth"], f["startDay"])
        last = date(f["stopYear"], f["stopMonth"], f["stopDay"])
    except ValueError:
        return "on dates the lock keeps that are no dates"
    return (
        f"from {_day_text(first, now)} {_hm(f['startHour'], f['startMinute'])} "
        f"to {_day_text(last, now)} {_hm(f['stopHour'], f['stopMinute'])}"
    )


def slots_words(slots: list[ScheduleSlot], now: datetime) -> str:
    """Several slots in one phrase: week-day slots of the same hours said as one ("on Mondays and
    Tuesdays from 09:00 to 12:00")."""
    weekly: dict[tuple[int, ...], list[int]] = {}
    said: list[str] = []
    for slot in slots:
        if slot.kind == WEEKLY:
            f = slot.fields
            weekly.setdefault((f["startHour"], f["startMinute"], f["stopHour"], f["stopMinute"]), []).append(
                f["weekday"]
            )
        else:
            said.append(slot_words(slot, now))
    for (sh, sm, eh, em), days in weekly.items():
        said.insert(0, f"{_plural_days(sorted(set(days)))} from {_hm(sh, sm)} to {_hm(eh, em)}")
    return and_list(said)


def describe_schedules(
    users: LockUsers, schedules: LockSchedules, lock: str, now: datetime, *, slots: bool = True
) -> str:
    """One sentence: whose codes work only at set times, and when; the others work at any time; with
    `slots`, how many schedule slots the lock keeps."""
    parts: list[str] = []
    kept: list[str] = []
    for user in users.users:
        mine = schedules.of_user(user.user_id)
        used = [s for s in mine if s.enabled]
        if used:
            parts.append(f"the code of {user.label} works only {slots_words(used, now)}")
        if len(used) < len(mine):
            kept.append(user.label)
    if not parts:
        head = f"No code of {lock} has a schedule: every code works at any time"
    else:
        rest = " (every other code works at any time)" if len(parts) < len(users.users) else ""
        head = f"On {lock}, {'; '.join(parts)}{rest}"
    unused = f"; it also keeps schedules of another kind for {and_list(kept)}, not in use" if kept else ""
    return f"{head}{unused}. {capacity(schedules, lock)}" if slots else f"{head}{unused}."


def capacity(schedules: LockSchedules, lock: str) -> str:
    kinds = {WEEKLY: "week-day", YEARLY: "year-day", DAILY: "daily repeating"}
    held = [f"{n} {kinds[k]}" for k, n in schedules.slots_of.items() if n > 0]
    if not held:
        return f"{lock} has no schedule slots."
    return f"{lock} keeps {and_list(held)} schedule slots per user."


# ---- the plan ---------------------------------------------------------------------------------------


def _target(users: LockUsers, said: str | None, lock: str, verb: str) -> LockUser:
    found = find_user(users, said)
    if isinstance(found, LockUser):
        return found
    if found is None:
        raise UserError(f"Say whose code on {lock} to {verb}: a name or a user number.")
    raise UserError(
        f"{lock} has no user '{str(said)[:40]}' with a code; a schedule is for a code the lock has."
    )


def plan_schedule(
    device: Device,
    users: LockUsers,
    schedules: LockSchedules,
    *,
    user: str | None,
    days: str | None,
    start: str | None,
    end: str | None,
    now: datetime,
) -> SchedulePlan:
    """The slots a schedule needs, checked against the lock's slots; `UserError` says what does not fit
    (nothing is sent then)."""
    lock = device.name
    target = _target(users, user, lock, "schedule")
    hours = _HOURS.fullmatch(start.strip()) if days and start and not end else None
    if hours:
        start, end = hours.groups()
    base = {"lock": device.key, "user": target.user_id, "action": "schedule"}
    if days:
        slots = _weekly_slots(schedules, target.user_id, read_days(days), start, end, lock)
    elif end:
        slots = [_year_slot(schedules, target.user_id, start, end, now, lock)]
    else:
        raise UserError(
            f"Say when {target.label} may come in: days and hours ('Tuesday', 9 to 12) or until when ('Sunday')."
        )
    mine = schedules.of_user(target.user_id)
    if all(any(s.same_times(m) for m in mine if m.enabled) for s in slots):
        raise UserError(f"{target.label} on {lock} already has that schedule; nothing to do.")
    words = slots_words(slots, now)
    switched = sorted({m.kind for m in mine if m.enabled and m.kind != slots[0].kind})
    note = ""
    if switched:
        old = slots_words([m for m in mine if m.kind in switched], now)
        note = f" (their schedule {old} stops applying: a lock uses one kind of schedule per user)"
    summary = f"let {target.label} open {lock} with their code only {words}{note}"
    argument = {"user": target.user_id, "schedule": words}
    binding = {**base, "slots": [[s.kind, s.slot_id, s.fields] for s in slots]}
    ops = [ScheduleOp(s.kind, s.user_id, s.slot_id, dict(s.fields)) for s in slots]
    return SchedulePlan("schedule", summary, target.user_id, ops, binding, argument, slots, target.label)


def _weekly_slots(
    schedules: LockSchedules, user_id: int, days: list[int], start: str | None, end: str | None, lock: str
) -> list[ScheduleSlot]:
    begin, stop = read_clock(start, "start"), read_clock(end, "end")
    if stop <= begin:
        raise UserError(f"The end ({stop:%H:%M}) must come after the start ({begin:%H:%M}) on the same day.")
    if len(days) > 1 and schedules.slots_of.get(DAILY, 0) > 0:
        slot = schedules.free_slot(DAILY, user_id)
        if slot is None:
            raise UserError(f"Every daily schedule slot of {lock} for this user is taken; unschedule first.")
        minutes = (stop.hour * 60 + stop.minute) - (begin.hour * 60 + begin.minute)
        fields = {
            "weekdays": days,
            **_clock_fields("start", begin),
            "durationHour": minutes // 60,
            "durationMinute": minutes % 60,
        }
        return [ScheduleSlot(DAILY, user_id, slot, fields)]
    if schedules.slots_of.get(WEEKLY, 0) <= 0:
        raise UserError(
            f"{lock} keeps no week-day schedules; it can only limit a code to dates ('until Sunday')."
        )
    taken: set[int] = set()
    slots = []
    for day in days:
        slot = schedules.free_slot(WEEKLY, user_id, taken)
        if slot is None:
            raise UserError(
                f"{lock} keeps {schedules.slots_of[WEEKLY]} week-day schedule slots per user, too few for "
                f"{len(days)} days with what this user has; unschedule first or name fewer days."
            )
        taken.add(slot)
        fields = {"weekday": day, **_clock_fields("start", begin), **_clock_fields("stop", stop)}
        slots.append(ScheduleSlot(WEEKLY, user_id, slot, fields))
    return slots


def _year_slot(
    schedules: LockSchedules, user_id: int, start: str | None, end: str, now: datetime, lock: str
) -> ScheduleSlot:
    if schedules.slots_of.get(YEARLY, 0) <= 0:
        raise UserError(f"{lock} keeps no date schedules; it can limit a code to days of the week only.")
    # From today's first minute when no start is said: the same slot when the yes comes minutes later (a
    # start of "now" would change the request, and the yes is bound to it).
    first = read_moment(start, now, end=False) if start else read_moment("today", now, end=False)
    last = read_moment(end, now, end=True)
    if last <= first:
        raise UserError(f"The end ({last:%d %b %H:%M}) must come after the start ({first:%d %b %H:%M}).")
    if last <= now:
        raise UserError(f"{last:%d %b %H:%M} has passed; a schedule that has ended lets no one in.")
    slot = schedules.free_slot(YEARLY, user_id)
    if slot is None:
        raise UserError(f"Every date schedule slot of {lock} for this user is taken; unschedule first.")
    fields = {**_moment_fields("start", first), **_moment_fields("stop", last)}
    return ScheduleSlot(YEARLY, user_id, slot, fields)


def _clock_fields(prefix: str, at: time | datetime) -> dict[str, int]:
    """A slot's time as zwave-js's fields: `startHour`, `startMinute` (or `stop…`)."""
    return {f"{prefix}Hour": at.hour, f"{prefix}Minute": at.minute}


def _moment_fields(prefix: str, at: datetime) -> dict[str, int]:
    """A slot's day and time as zwave-js's fields: `startYear`, `startMonth`, `startDay`, `startHour`, …"""
    return {
        f"{prefix}Year": at.year,
        f"{prefix}Month": at.month,
        f"{prefix}Day": at.day,
        **_clock_fields(prefix, at),
    }


def plan_unschedule(
    device: Device, users: LockUsers, schedules: LockSchedules, *, user: str | None
) -> SchedulePlan:
    """Every slot of the user erased and their schedules turned off: their code works at any time again."""
    lock = device.name
    target = _target(users, user, lock, "unschedule")
    mine = schedules.of_user(target.user_id)
    if not mine:
        raise UserError(f"{target.label} on {lock} has no schedule: their code already works at any time.")
    ops = [ScheduleOp(s.kind, s.user_id, s.slot_id, None) for s in mine]
    ops.append(ScheduleOp("", target.user_id, enable=False))
    # In brackets: the question goes on "… because it changes when a code lets someone into the house".
    summary = f"take away the schedule of {target.label} on {lock} (their code then works at any time)"
    binding = {"lock": device.key, "user": target.user_id, "action": "unschedule"}
    return SchedulePlan(
        "unschedule", summary, target.user_id, ops, binding, {"user": target.user_id}, [], target.label
    )


def verify(planned: SchedulePlan) -> Callable[[LockSchedules], str | None]:
    def check(after: LockSchedules) -> str | None:
        mine = after.of_user(planned.user_id)
        if planned.action == "unschedule":
            return f"the lock still lists a schedule for {planned.who}" if mine else None
        missing = [
            s for s in planned.slots if not any(s.same_times(m) and m.slot_id == s.slot_id for m in mine)
        ]
        return f"the lock does not list the new schedule of {planned.who}" if missing else None

    return check


def schedule_change(tool: str, device: Device, planned: SchedulePlan) -> Change:
    """The gate's `Change`: one effect on the lock, bound to the exact slots."""
    word = WORDS[planned.action]
    effect = Effect(
        device, None, planned.binding, frozenset({word}), argument=planned.argument, text=planned.summary
    )
    sender = ScheduleCalls(node_id=device.node_id, ops=planned.ops, verify=verify(planned))
    return Change(tool, word, planned.summary, [effect], sender, argument=planned.argument)
