"""Periods as people say them ("last hour", "today", "since 6 pm", "yesterday", ISO 8601) → a time range.

Pure: `now` is passed in (an aware datetime in the local zone), so tests choose the clock and the zone.
Sentences speak local time, with the year when it is not this year; structured results carry ISO 8601
with the offset.

History holds report times from 1970-01-01 (the epoch; the store keeps nothing older) up to now. A period
that starts before that, or in the future, or names a date Python cannot hold once turned into a time
(0001-01-01T00:00+14:00 is in the year 0 in UTC), gets a sentence with the range that works, never an
exception; a range that ends after now is cut at now and says so ("between 20 Nov 06:00 and now").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from zwave_mcp.devices.resolve import echo
from zwave_mcp.errors import UserError

EXAMPLES = "'last hour', 'last 3 days', 'today', 'yesterday', 'since 6 pm', 'this week', '2026-11-20', or an ISO range '2026-11-20T06:00/2026-11-20T09:00'"
MAX_TEXT = 80

_UNITS = {
    name: seconds
    for seconds, names in (
        (60, ("m", "min", "mins", "minute", "minutes")),
        (3600, ("h", "hr", "hrs", "hour", "hours")),
        (86400, ("d", "day", "days")),
        (604800, ("w", "week", "weeks")),
    )
    for name in names
}
_NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "ten": 10,
    "twelve": 12,
}
_RELATIVE = re.compile(
    r"^(?:(?:in\s+)?(?:the\s+)?(?:last|past|previous)\s+)?(?:(\d+(?:\.\d+)?|[a-z]+)\s+)?([a-z]+)$"
)
_CLOCK = re.compile(r"^(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$")


# Parts of a day: (first hour, end hour, days back from today).
_PARTS_OF_DAY = {
    "this morning": (6, 12, 0),
    "this afternoon": (12, 18, 0),
    "this evening": (18, 24, 0),
    "tonight": (18, 24, 0),
    "last night": (18, 30, 1),
}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


HELD_FROM = date(1970, 1, 1)
HELD_WORDS = "history can hold times from 1 Jan 1970 up to now"
OUTSIDE = "is outside the times history can hold, from 1 Jan 1970 up to now"


class PeriodError(UserError):
    """A period we cannot read; the message lists examples that work."""


def _outside(raw: str) -> PeriodError:
    return PeriodError(f"The period '{echo(raw)}' {OUTSIDE}. Try {EXAMPLES}.")


def _held(at: datetime) -> bool:
    """Whether `at` is a time history can hold: not before 1970 where it is said, and one the clock can
    turn into a timestamp (the year 1 at +14:00 is the year 0 in UTC)."""
    try:
        at.timestamp()
    except (OverflowError, ValueError, OSError):
        return False
    return at.date() >= HELD_FROM


@dataclass(frozen=True, slots=True)
class Period:
    start: datetime
    end: datetime
    words: str  # "today", "in the last hour", "since 18:00"

    @property
    def start_ms(self) -> int:
        return int(self.start.timestamp() * 1000)

    @property
    def end_ms(self) -> int:
        return int(self.end.timestamp() * 1000)


def _midnight(day: date, tz: tzinfo | None) -> datetime:
    return datetime.combine(day, time(0), tz)


def clock_text(at: datetime) -> str:
    return at.strftime("%H:%M")


def day_text(day: date, now: datetime) -> str:
    """'20 Nov', or '20 Nov 2025' when it is not this year."""
    return f"{day.day} {day:%b}" if day.year == now.year else f"{day.day} {day:%b} {day.year}"


def when(at: datetime, now: datetime) -> str:
    """'at 07:42', 'yesterday at 07:42', 'on 20 Nov at 07:42', 'on 20 Nov 2025 at 07:42' (local time of
    `now`'s zone)."""
    at = at.astimezone(now.tzinfo)
    days = (now.date() - at.date()).days
    if days == 0:
        return f"at {clock_text(at)}"
    if days == 1:
        return f"yesterday at {clock_text(at)}"
    return f"on {day_text(at.date(), now)} at {clock_text(at)}"


def _parse_clock(text: str, now: datetime) -> datetime | None:
    text = text.replace("noon", "12 pm").replace("midnight", "0:00").strip()
    found = _CLOCK.match(text)
    if found is None:
        return None
    hour, minute = int(found.group(1)), int(found.group(2) or 0)
    suffix = (found.group(3) or "").replace(".", "")
    if suffix and not 1 <= hour <= 12:
        return None
    if suffix == "pm" and hour != 12:
        hour += 12
    elif suffix == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return None
    at = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    return at - timedelta(days=1) if at > now else at  # "since 11 pm" said at 1 am means last night


class _Beyond(Exception):
    """A date that reads but that no time can hold (9999-12-31's end, the day after it)."""


def _parse_iso(text: str, now: datetime, *, end: bool = False) -> datetime | None:
    """The time `text` names (a date: its midnight, or the next one for an `end`); None when it is not
    ISO 8601; `_Beyond` when it is, but no time holds it."""
    text = text.strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            return _midnight(day + timedelta(days=1) if end else day, now.tzinfo)
        at = datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T", 1))
    except OverflowError:
        raise _Beyond(text) from None
    except ValueError:
        return None
    return at if at.tzinfo is not None else at.replace(tzinfo=now.tzinfo)


def _since(rest: str, now: datetime) -> datetime | None:
    if rest in ("yesterday", "today", "midnight"):
        return _midnight(now.date() - timedelta(days=1 if rest == "yesterday" else 0), now.tzinfo)
    if rest == "this morning":
        return now.replace(hour=6, minute=0, second=0, microsecond=0)
    return _parse_clock(rest, now) or _parse_iso(rest, now)


def parse_period(text: str | None, now: datetime, default: str = "today") -> Period:
    """The range `text` names, ending no later than `now`; `PeriodError` with examples when unreadable,
    and with the range history holds when it names times outside it."""
    raw = (text or default).strip()
    said = " ".join(raw.lower().split())
    if len(said) > MAX_TEXT or not said:
        raise PeriodError(f"The period is too long to read. Try {EXAMPLES}.")
    try:
        period = _parse(raw, said, now)
    except (_Beyond, OverflowError):
        raise _outside(raw) from None
    if not (_held(period.start) and _held(period.end)):
        raise _outside(raw)
    return period


def _parse(raw: str, said: str, now: datetime) -> Period:
    tz = now.tzinfo
    today = _midnight(now.date(), tz)
    if said in ("today", "so far today"):
        return Period(today, now, "today")
    if said in ("yesterday", "all of yesterday"):
        return Period(_midnight(now.date() - timedelta(days=1), tz), today, "yesterday")
    if said in ("this week", "week"):
        return Period(_midnight(now.date() - timedelta(days=now.weekday()), tz), now, "this week")
    if said == "last week":
        monday = now.date() - timedelta(days=now.weekday())
        return Period(_midnight(monday - timedelta(days=7), tz), _midnight(monday, tz), "last week")
    if said in ("this month", "month"):
        return Period(_midnight(now.date().replace(day=1), tz), now, "this month")
    if said == "last month":
        first = now.date().replace(day=1)
        previous = (first - timedelta(days=1)).replace(day=1)
        return Period(_midnight(previous, tz), _midnight(first, tz), "last month")
    part = _PARTS_OF_DAY.get(said)
    if part is not None:
        part_start = today + timedelta(hours=part[0] - 24 * part[2])
        part_end = today + timedelta(hours=part[1] - 24 * part[2])
        if part_start <= now:
            return Period(part_start, min(part_end, now), said)
    weekday = said.removeprefix("on ").removeprefix("last ")
    if weekday in _WEEKDAYS:
        back = (now.weekday() - _WEEKDAYS.index(weekday)) % 7 or (7 if said.startswith("last ") else 0)
        day = _midnight(now.date() - timedelta(days=back), tz)
        return Period(
            day, min(day + timedelta(days=1), now), "today" if back == 0 else f"on {weekday.title()}"
        )
    if said.startswith(("since ", "from ")) and " to " not in said:
        start = _since(said.split(" ", 1)[1].strip(), now)
        if start is not None:
            _not_future(start, raw, now)
            shown = clock_text(start) if start.date() == now.date() else when(start, now).removeprefix("on ")
            return Period(start, now, f"since {shown}")
    relative = _relative(said, now)
    if relative is not None:
        return relative
    for sep in ("/", " to ", "..", " until "):
        if sep in said:
            left, right = raw.split(sep, 1) if sep in raw else said.split(sep, 1)
            left = re.sub(r"^(from|between)\s+", "", left.strip(), flags=re.I)
            start = _parse_iso(left, now)
            try:
                end = _parse_iso(right, now, end=True)
            except _Beyond:  # an end past any time (9999-12-31's midnight after) is past now too
                end = now if start is not None else None
            if start is not None and end is not None:
                _not_future(start, raw, now)
            if start is not None and end is not None and start < end:
                until = "now" if end >= now else _stamp(end, now)
                return Period(start, min(end, now), f"between {_stamp(start, now)} and {until}")
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", said):
        start = _parse_iso(said, now)
        if start is not None:
            _not_future(start, raw, now)
            if start.date() == now.date():
                return Period(start, now, "today")
            return Period(start, start + timedelta(days=1), f"on {day_text(start.date(), now)}")
    start = _parse_iso(raw, now)
    if start is not None:
        _not_future(start, raw, now)
        return Period(start, now, f"since {_stamp(start, now)}")
    raise PeriodError(f"I cannot read the period '{echo(raw)}'. Try {EXAMPLES}.")


def _not_future(start: datetime, raw: str, now: datetime) -> None:
    if start > now:
        raise PeriodError(f"The period '{echo(raw)}' starts in the future; {HELD_WORDS}. Try {EXAMPLES}.")


def _stamp(at: datetime, now: datetime) -> str:
    """'07:15' today, else '20 Nov 07:15' ('20 Nov 2025 07:15' in another year), in `now`'s zone."""
    at = at.astimezone(now.tzinfo)
    return clock_text(at) if at.date() == now.date() else f"{day_text(at.date(), now)} {clock_text(at)}"


def _relative(said: str, now: datetime) -> Period | None:
    compact = re.fullmatch(r"(\d+)\s*([a-z]+)", said)
    found = compact or _RELATIVE.match(said)
    if found is None:
        return None
    count_text, unit = found.group(1), found.group(2)
    if unit not in _UNITS:
        return None
    try:  # no count: one ("last hour")
        count = float(_NUMBER_WORDS.get(count_text or "one", count_text))
    except ValueError:
        return None
    seconds = count * _UNITS[unit]
    if not 0 < seconds <= 366 * 86400:
        return None
    unit_word = {60: "minute", 3600: "hour", 86400: "day", 604800: "week"}[_UNITS[unit]]
    span = unit_word if count == 1 else f"{count:g} {unit_word}s"
    return Period(now - timedelta(seconds=seconds), now, f"in the last {span}")
