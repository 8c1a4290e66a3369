"""Periods as people say them ("last hour", "today", "since 6 pm", "yesterday", ISO 8601) → a time range.

Pure: `now` is passed in (an aware datetime in the local zone), so tests choose the clock and the zone.
Sentences speak local time; structured results carry ISO 8601 with the offset.
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
    "m": 60,
    "min": 60,
    "mins": 60,
    "minute": 60,
    "minutes": 60,
    "h": 3600,
    "hr": 3600,
    "hrs": 3600,
    "hour": 3600,
    "hours": 3600,
    "d": 86400,
    "day": 86400,
    "days": 86400,
    "w": 604800,
    "week": 604800,
    "weeks": 604800,
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
    "24": 24,
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


class PeriodError(UserError):
    """A period we cannot read; the message lists examples that work."""


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


def when(at: datetime, now: datetime) -> str:
    """'at 07:42', 'yesterday at 07:42', 'on 20 Nov at 07:42' (local time of `now`'s zone)."""
    at = at.astimezone(now.tzinfo)
    days = (now.date() - at.date()).days
    if days == 0:
        return f"at {clock_text(at)}"
    if days == 1:
        return f"yesterday at {clock_text(at)}"
    return f"on {at.day} {at:%b} at {clock_text(at)}"


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


def _parse_iso(text: str, now: datetime, *, end: bool = False) -> datetime | None:
    text = text.strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            return _midnight(day + timedelta(days=1) if end else day, now.tzinfo)
        at = datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T", 1))
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
    """The range `text` names, ending no later than `now`; `PeriodError` with examples when unreadable."""
    raw = (text or default).strip()
    said = " ".join(raw.lower().split())
    if len(said) > MAX_TEXT or not said:
        raise PeriodError(f"The period is too long to read. Try {EXAMPLES}.")
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
        if start is not None and start <= now:
            shown = clock_text(start) if start.date() == now.date() else when(start, now).removeprefix("on ")
            return Period(start, now, f"since {shown}")
    relative = _relative(said, now)
    if relative is not None:
        return relative
    for sep in ("/", " to ", "..", " until "):
        if sep in said:
            left, right = raw.split(sep, 1) if sep in raw else said.split(sep, 1)
            left = re.sub(r"^(from|between)\s+", "", left.strip(), flags=re.I)
            start, end = _parse_iso(left, now), _parse_iso(right, now, end=True)
            if start is not None and end is not None and start < end:
                return Period(start, min(end, now), f"between {_stamp(start, now)} and {_stamp(end, now)}")
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", said):
        start = _parse_iso(said, now)
        if start is not None and start <= now:
            return Period(start, min(start + timedelta(days=1), now), f"on {start.day} {start:%b}")
    start = _parse_iso(raw, now)
    if start is not None and start <= now:
        return Period(start, now, f"since {_stamp(start, now)}")
    raise PeriodError(f"I cannot read the period '{echo(raw)}'. Try {EXAMPLES}.")


def _stamp(at: datetime, now: datetime) -> str:
    at = at.astimezone(now.tzinfo)
    return clock_text(at) if at.date() == now.date() else f"{at.day} {at:%b} {clock_text(at)}"


def _relative(said: str, now: datetime) -> Period | None:
    compact = re.fullmatch(r"(\d+)\s*([a-z]+)", said)
    found = compact or _RELATIVE.match(said)
    if found is None:
        return None
    count_text, unit = found.group(1), found.group(2)
    if unit not in _UNITS:
        return None
    if count_text is None:
        count = 1.0
    elif count_text in _NUMBER_WORDS:
        count = float(_NUMBER_WORDS[count_text])
    else:
        try:
            count = float(count_text)
        except ValueError:
            return None
    seconds = count * _UNITS[unit]
    if not 0 < seconds <= 366 * 86400:
        return None
    unit_word = {60: "minute", 3600: "hour", 86400: "day", 604800: "week"}[_UNITS[unit]]
    span = unit_word if count == 1 else f"{count:g} {unit_word}s"
    return Period(now - timedelta(seconds=seconds), now, f"in the last {span}")
