"""Energy used from a meter's kWh readings: resets and gaps handled, periods cut proportionally. Pure.

A meter counts up. Between two readings a and b the device used `b - a`; when b < a the meter was reset
(or rolled over) in between, and b is what it counted since. A span that crosses the period's edge counts
in proportion to the part inside (readings are sparse; a day's edge rarely falls on one).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence


def used_between(readings: Sequence[tuple[int, float]], start_ms: int, end_ms: int) -> float | None:
    """kWh used in [start, end) from (time ms, kWh) readings sorted by time; None without two readings."""
    if len(readings) < 2:
        return None
    total = 0.0
    counted = False
    for (a_at, a), (b_at, b) in itertools.pairwise(readings):
        if b_at <= start_ms or a_at >= end_ms or b_at <= a_at:
            continue
        used = b - a if b >= a else b  # a drop is a reset: b counts from zero
        inside = (min(b_at, end_ms) - max(a_at, start_ms)) / (b_at - a_at)
        total += used * inside
        counted = True
    return round(total, 6) if counted else 0.0


def resets(readings: Sequence[tuple[int, float]]) -> int:
    """How many times the meter went back (reset or replaced) in these readings."""
    return sum(1 for (_, a), (_, b) in itertools.pairwise(readings) if b < a)


def per_day(
    readings: Sequence[tuple[int, float]], day_starts_ms: Sequence[int], end_ms: int
) -> list[float | None]:
    """kWh of each day (day_starts_ms ascending, the last day ending at end_ms)."""
    edges = [*day_starts_ms, end_ms]
    return [used_between(readings, a, b) for a, b in itertools.pairwise(edges)]
