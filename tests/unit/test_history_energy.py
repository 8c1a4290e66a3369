"""kWh from meter readings: resets, gaps and the period's edges."""

from __future__ import annotations

import pytest

from zwave_mcp.history.energy import per_day, resets, used_between

H = 3_600_000  # one hour in ms


def test_plain_counting_up() -> None:
    readings = [(0, 10.0), (H, 10.5), (2 * H, 11.25)]
    assert used_between(readings, 0, 2 * H) == pytest.approx(1.25)


def test_a_reset_counts_what_the_meter_counted_since() -> None:
    # 10 → 12 (+2), reset, 0.5 (+0.5 since the reset), 1.0 (+0.5)
    readings = [(0, 10.0), (H, 12.0), (2 * H, 0.5), (3 * H, 1.0)]
    assert used_between(readings, 0, 3 * H) == pytest.approx(3.0)
    assert resets(readings) == 1


def test_edges_count_in_proportion() -> None:
    readings = [(0, 0.0), (4 * H, 4.0)]  # a gap of four hours, 1 kWh an hour on average
    assert used_between(readings, H, 3 * H) == pytest.approx(2.0)
    assert used_between(readings, 3 * H, 10 * H) == pytest.approx(1.0)
    assert used_between(readings, 5 * H, 6 * H) == 0.0  # after the last reading: nothing is known to be used


def test_too_few_readings_is_unknown_not_zero() -> None:
    assert used_between([], 0, H) is None
    assert used_between([(0, 5.0)], 0, H) is None


def test_per_day_splits_the_same_total() -> None:
    readings = [(0, 0.0), (24 * H, 2.4), (48 * H, 0.6)]  # a reset on the second day
    days = per_day(readings, [0, 24 * H], 48 * H)
    assert days == [pytest.approx(2.4), pytest.approx(0.6)]
    assert sum(d or 0 for d in days) == pytest.approx(used_between(readings, 0, 48 * H) or 0)
