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
