"""Issue 42: what the history file takes on disk stays within its bounds while a busy house writes for months."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zwave_mcp.gateway.model import InventoryEvent
from zwave_mcp.history import recorder as recorder_module
from zwave_mcp.history import store as store_module
from zwave_mcp.history.recorder import Recorder
from zwave_mcp.history.store import Store

NOW_MS = 1_800_000_000_000


def _fill(store: Store, series: int, rows: int) -> None:
    """One transaction touching page after page, as a flood's batch (or a prune) does."""
    sids = [store.series_id("value", f"{2 + i // 10}-50-0-value-{i}", 2 + i // 10) for i in range(series)]
    store.write([(sids[i % series], NOW_MS + i, str(i - 1), str(i), float(i)) for i in range(rows)], [], [])


def test_the_write_ahead_log_is_cut_back_after_a_big_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite reuses its WAL and never shrinks it: a big transaction (a prune of a tenth of the store) left a
    WAL of its size beside the store for good."""
    limit = 64 * 1024
    monkeypatch.setattr(store_module, "WAL_LIMIT_BYTES", limit, raising=False)
    path = tmp_path / "history.sqlite3"
    store = Store.open(str(path), "home")
    _fill(store, 500, 40_000)
    wal = Path(f"{path}-wal")
    assert wal.stat().st_size > 10 * limit  # the big transaction went through the log
    store.prune(3650, store.used_bytes() // 2, NOW_MS)  # deletes half: another big transaction
    assert wal.stat().st_size <= limit
    store.write([(1, NOW_MS + 10**6, "1", "2", 2.0)], [], [])
    assert wal.stat().st_size <= limit
    store.close()


def test_a_store_over_its_size_is_pruned_within_a_size_check_not_an_hour(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 2,000 changes a second an hourly prune let the file grow ~200 MB past ZWAVE_MCP_HISTORY_MAX_MB."""
    monkeypatch.setattr(recorder_module, "SIZE_CHECK_EVERY_S", 0.0, raising=False)
    path = tmp_path / "history.sqlite3"
    bound = 300_000
    rec = Recorder(str(path), max_bytes=bound, clock=lambda: NOW_MS / 1000)
    rec.start()
    assert rec.wait_open(5)
    for i in range(20_000):
        rec.on_change(InventoryEvent("value", 8, f"8-50-0-value-{i % 300}", i - 1, i, NOW_MS + i))
        if i % 2000 == 1999:
            assert rec.flush(10)
    assert rec.flush(10)  # a batch more: its size check comes after the last write
    assert rec.store is not None
    used = rec.store.used_bytes()
    rec.stop()
    assert used <= bound
    assert os.path.getsize(path) < 4 * bound  # pages freed by pruning are reused, not added


def test_a_stuck_writer_holds_a_bounded_backlog(tmp_path: Path) -> None:
    """Issue 42: a writer that cannot write held up to a million changes (~200 MB) in memory."""
    rec = Recorder(str(tmp_path / "history.sqlite3"))  # not started: nothing takes what is queued
    for i in range(250_010):
        rec.on_change(InventoryEvent("value", 8, "8-50-0-value-66049", i - 1, i, NOW_MS + i))
    assert len(rec._inbox) == 250_000 and rec.dropped == 10
