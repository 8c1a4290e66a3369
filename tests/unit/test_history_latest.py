"""The history writer's compact memory of each series' last stored value, and the series id table."""

from __future__ import annotations

from zwave_mcp.history.latest import DENSE_MAX, LatestValues
from zwave_mcp.history.store import SeriesIds


def test_entries_read_back_as_written() -> None:
    latest = LatestValues()
    assert latest.get(1) is None
    latest.set(1, "22.5", 1_800_000_000_000, 1_800_000_000_500)
    latest.set(5, None, None, None)  # a stored null with no times is an entry, not a gap
    assert latest.get(1) == ("22.5", 1_800_000_000_000, 1_800_000_000_500)
    assert latest.get(5) == (None, None, None)
    assert latest.get(3) is None and latest.get(-1) is None
    assert len(latest) == 2


def test_ids_and_times_beyond_the_arrays_are_kept_too() -> None:
    latest = LatestValues()
    latest.set(DENSE_MAX + 7, "true", 1, 2)
    latest.set(2, '"on"', 2**70, 3)  # a time no 64-bit array holds (a junk report)
    assert latest.get(DENSE_MAX + 7) == ("true", 1, 2)
    assert latest.get(2) == ('"on"', 2**70, 3)
    latest.set(2, '"off"', 10, 11)  # back to a plain time: one entry, the newest
    assert latest.get(2) == ('"off"', 10, 11) and len(latest) == 2


def test_short_value_texts_are_shared() -> None:
    latest = LatestValues.of([(1, "".join(["2", "1"]), 1, 1), (2, "".join(["2", "1"]), 2, 2)])
    first, second = latest.get(1), latest.get(2)
    assert first is not None and second is not None and first[0] is second[0]


def test_series_ids_read_like_a_mapping_of_kind_and_key() -> None:
    ids = SeriesIds()
    ids[("value", "2-37-0-currentValue")] = 1
    ids[("status", "2")] = 2
    assert ids.get(("value", "2-37-0-currentValue")) == 1 and ids[("status", "2")] == 2
    assert ids.get(("gateway", "x")) is None and ("value", "nope") not in ids
    assert sorted(ids.items()) == [(("status", "2"), 2), (("value", "2-37-0-currentValue"), 1)]
    assert len(ids) == 2
