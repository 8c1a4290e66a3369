"""Periods as people say them, read against a fixed clock in a fixed zone (not the machine's)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from zwave_mcp.history.periods import PeriodError, parse_period, when

TZ = timezone(timedelta(hours=2))
NOW = datetime(2026, 11, 23, 9, 30, tzinfo=TZ)  # a Monday


def span(text: str) -> tuple[str, str, str]:
    p = parse_period(text, NOW)
    return p.start.isoformat(), p.end.isoformat(), p.words


@pytest.mark.parametrize(
    ("text", "start", "end", "words"),
    [
        ("last hour", "2026-11-23T08:30:00+02:00", "2026-11-23T09:30:00+02:00", "in the last hour"),
        ("Last 3 days", "2026-11-20T09:30:00+02:00", "2026-11-23T09:30:00+02:00", "in the last 3 days"),
        ("past 24 hours", "2026-11-22T09:30:00+02:00", "2026-11-23T09:30:00+02:00", "in the last 24 hours"),
        ("90m", "2026-11-23T08:00:00+02:00", "2026-11-23T09:30:00+02:00", "in the last 90 minutes"),
        ("last seven days", "2026-11-16T09:30:00+02:00", "2026-11-23T09:30:00+02:00", "in the last 7 days"),
        ("today", "2026-11-23T00:00:00+02:00", "2026-11-23T09:30:00+02:00", "today"),
        ("yesterday", "2026-11-22T00:00:00+02:00", "2026-11-23T00:00:00+02:00", "yesterday"),
        ("this week", "2026-11-23T00:00:00+02:00", "2026-11-23T09:30:00+02:00", "this week"),
        ("last week", "2026-11-16T00:00:00+02:00", "2026-11-23T00:00:00+02:00", "last week"),
        ("last month", "2026-10-01T00:00:00+02:00", "2026-11-01T00:00:00+02:00", "last month"),
        ("since 7:15", "2026-11-23T07:15:00+02:00", "2026-11-23T09:30:00+02:00", "since 07:15"),
        # "since 6 pm" said in the morning is last evening.
        ("since 6 pm", "2026-11-22T18:00:00+02:00", "2026-11-23T09:30:00+02:00", "since yesterday at 18:00"),
        ("since 12am", "2026-11-23T00:00:00+02:00", "2026-11-23T09:30:00+02:00", "since 00:00"),
        ("2026-11-20", "2026-11-20T00:00:00+02:00", "2026-11-21T00:00:00+02:00", "on 20 Nov"),
        (
            "2026-11-20T06:00/2026-11-20T09:00",
            "2026-11-20T06:00:00+02:00",
            "2026-11-20T09:00:00+02:00",
            "between 20 Nov 06:00 and 20 Nov 09:00",
        ),
        (
            "2026-11-20T04:00Z to 2026-11-21",
            "2026-11-20T04:00:00+00:00",
            "2026-11-22T00:00:00+02:00",
            "between 20 Nov 06:00 and 22 Nov 00:00",
        ),
        ("2026-11-22T10:00", "2026-11-22T10:00:00+02:00", "2026-11-23T09:30:00+02:00", "since 22 Nov 10:00"),
        ("this morning", "2026-11-23T06:00:00+02:00", "2026-11-23T09:30:00+02:00", "this morning"),
        ("last night", "2026-11-22T18:00:00+02:00", "2026-11-23T06:00:00+02:00", "last night"),
        ("Saturday", "2026-11-21T00:00:00+02:00", "2026-11-22T00:00:00+02:00", "on Saturday"),
        ("last monday", "2026-11-16T00:00:00+02:00", "2026-11-17T00:00:00+02:00", "on Monday"),
        ("monday", "2026-11-23T00:00:00+02:00", "2026-11-23T09:30:00+02:00", "today"),
        # Another year is said with its year; a range that ends after now is cut at now and says so.
        (
            "since 1970-01-01",
            "1970-01-01T00:00:00+02:00",
            "2026-11-23T09:30:00+02:00",
            "since 1 Jan 1970 at 00:00",
        ),
        ("1970-01-01", "1970-01-01T00:00:00+02:00", "1970-01-02T00:00:00+02:00", "on 1 Jan 1970"),
        (
            "2025-11-20T06:00/2025-11-20T09:00",
            "2025-11-20T06:00:00+02:00",
            "2025-11-20T09:00:00+02:00",
            "between 20 Nov 2025 06:00 and 20 Nov 2025 09:00",
        ),
        (
            "2026-11-20/9999-12-31",
            "2026-11-20T00:00:00+02:00",
            "2026-11-23T09:30:00+02:00",
            "between 20 Nov 00:00 and now",
        ),
        (
            "2026-11-20 to 2027-01-01",
            "2026-11-20T00:00:00+02:00",
            "2026-11-23T09:30:00+02:00",
            "between 20 Nov 00:00 and now",
        ),
        ("2026-11-23", "2026-11-23T00:00:00+02:00", "2026-11-23T09:30:00+02:00", "today"),
    ],
)
def test_periods(text: str, start: str, end: str, words: str) -> None:
    assert span(text) == (start, end, words)


@pytest.mark.parametrize(
    "text",
    [
        "fortnight-ish",
        "last 5 blorps",
        "since tomorrow",
        "2026-13-40",
        "since 25:00",
        "x" * 200,
        " ",
        "this evening",
    ],
)
def test_unreadable_periods_get_examples(text: str) -> None:
    with pytest.raises(PeriodError) as caught:
        parse_period(text, NOW)
    assert "Try 'last hour', 'last 3 days', 'today', 'yesterday', 'since 6 pm'" in caught.value.message


def test_a_range_ending_in_the_future_stops_now() -> None:
    assert span("2026-11-23/2026-11-30")[1] == NOW.isoformat()


def test_when_is_spoken_in_local_time() -> None:
    assert when(datetime(2026, 11, 23, 5, 42, tzinfo=UTC), NOW) == "at 07:42"
    assert when(datetime(2026, 11, 22, 7, 42, tzinfo=TZ), NOW) == "yesterday at 07:42"
    assert when(datetime(2026, 11, 18, 7, 42, tzinfo=TZ), NOW) == "on 18 Nov at 07:42"


@pytest.mark.parametrize(
    "text",
    [
        "0001-01-01T00:00:00+14:00",  # the year 0 in UTC: no timestamp holds it
        "since 0001-01-01T00:00:00+14:00",
        "0001-01-01T00:00:00-14:00",
        "0001-01-01",
        "0001-01-01/2026-01-01",
        "1969-12-31T23:00Z",
    ],
)
def test_times_history_cannot_hold_say_the_range_that_works(text: str) -> None:
    with pytest.raises(PeriodError) as caught:
        parse_period(text, NOW)
    assert caught.value.message.startswith(
        f"The period '{text}' is outside the times history can hold, from 1 Jan 1970 up to now. Try 'last hour'"
    )


@pytest.mark.parametrize(
    "text", ["9999-12-31", "since 9999-12-31", "9999-12-31T23:59:59-14:00", "2027-01-01/9999-12-31"]
)
def test_periods_in_the_future_say_so(text: str) -> None:
    with pytest.raises(PeriodError) as caught:
        parse_period(text, NOW)
    assert "starts in the future; history can hold times from 1 Jan 1970 up to now" in caught.value.message


def test_times_in_another_year_are_said_with_the_year() -> None:
    assert when(datetime(2025, 11, 20, 7, 42, tzinfo=TZ), NOW) == "on 20 Nov 2025 at 07:42"
    assert when(datetime(2026, 11, 20, 7, 42, tzinfo=TZ), NOW) == "on 20 Nov at 07:42"
