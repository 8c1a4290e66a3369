"""Percent ↔ a device's own level, one mapping used both ways so 50 % set is 50 % reported.

zwave-js's Multilevel Switch and Window Covering levels run 0–99, where 99 means fully on/open: there are
100 levels for 101 percents. Level n is shown as n %, and 99 as 100 %; so every percent from 0 to 98 and
100 goes out and comes back unchanged (99 % is sent as 99 and reads back as 100 %). Scaling by 100/99
instead turns a 50 % request into level 50 and then reads it back as 51 %.

Other ranges (0–100, 0–255, …) scale linearly; with at least 100 steps that round-trips too.
"""

from __future__ import annotations

import math
from typing import Any

from zwave_mcp.gateway.model import ZValue

DEFAULT_MAX = 99


def is_number(x: Any) -> bool:
    """A finite int or float (not a bool): what a level, reading or setpoint can be. An integer beyond
    any float, infinity or NaN from a broken gateway is no reading: it could not be formatted or scaled."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def as_int(x: Any) -> int | None:
    """`x` when it is an int (a bool is no number here), else None."""
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def _bounds(value: ZValue) -> tuple[int, int]:
    low = int(value.min) if value.min is not None and is_number(value.min) else 0
    high = int(value.max) if value.max is not None and is_number(value.max) else DEFAULT_MAX
    return low, max(high, low + 1)


def to_level(percent: float, value: ZValue) -> int:
    """0–100 % → the value's own level."""
    low, high = _bounds(value)
    percent = max(0.0, min(100.0, float(percent)))
    if high - low == DEFAULT_MAX:
        return low + min(DEFAULT_MAX, round(percent))
    return low + round(percent * (high - low) / 100)


def to_percent(level: float, value: ZValue) -> int:
    """The value's own level → 0–100 % (clamped)."""
    low, high = _bounds(value)
    if high - low == DEFAULT_MAX:
        step = round(level - low)
        return 100 if step >= DEFAULT_MAX else max(0, step)
    return max(0, min(100, round((level - low) * 100 / (high - low))))


def target_percent(level: float, value: ZValue) -> int:
    """A level written to the value as 0-100 % of its own range (0-99 on Multilevel Switch)."""
    if level == 255:  # "on at the last level": where it lands is unknown, but it is on/open
        return 100
    return to_percent(level, value)


def level_percent(value: ZValue | None) -> int | None:
    """The level a value reports, in %; None when it has not reported one."""
    if value is None or not is_number(value.value):
        return None
    return to_percent(value.value, value)
