"""Issue 42: one writer of the history file (the home service), many readers; the stale-writer rule."""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import closing
from pathlib import Path

from zwave_mcp.history.recorder import Recorder
from zwave_mcp.history.store import Store
from zwave_mcp.history.writer import STALE_S, Writer, is_live, this_host

NOW = 1_800_000_000_000


def writer(pid: int = 4242, host: str = "homebox", beat_ms: int = NOW) -> Writer:
    return Writer(pid, host, NOW - 60_000, beat_ms)


def test_a_writer_is_live_while_it_beats_and_its_process_exists() -> None:
    assert is_live(writer(), NOW + 1000, host="homebox", alive=lambda pid: pid == 4242)


def test_a_writer_that_missed_its_beats_is_stale() -> None:
    late = NOW + int(STALE_S * 1000) + 1
    assert not is_live(writer(), late, host="homebox", alive=lambda _pid: True)
    assert not is_live(None, NOW)


def test_a_writer_on_this_host_whose_process_is_gone_is_stale_at_once() -> None:
    assert not is_live(writer(), NOW + 1000, host="homebox", alive=lambda _pid: False)
    # On another host its process cannot be checked: the heartbeat alone decides.
    assert is_live(writer(), NOW + 1000, host="laptop", alive=lambda _pid: False)


def test_a_row_that_does_not_fit_names_no_writer() -> None:
    assert Writer.from_json('{"pid": "x"}') is None and Writer.from_json(None) is None
    assert Writer.from_json(writer().to_json()) == writer()


def test_the_service_claims_the_file_once_and_gives_it_back(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "h.sqlite3"), "home")
    other = Writer(os.getppid(), this_host(), NOW, NOW)  # a live process on this host: the test's parent
    assert store.claim_writer(other, NOW + 1000) is None
    me = Writer(os.getpid(), this_host(), NOW + 2000, NOW + 2000)
    assert store.claim_writer(me, NOW + 2000) == other, "a live writer keeps the file"
    assert store.claim_writer(me, NOW + int(STALE_S * 1000) + 5000) is None, "a stale one gives it up"
    store.beat(me, NOW + 9000)
    assert store.writer() == Writer(me.pid, me.host, me.since_ms, NOW + 9000)
    store.release_writer(other)  # not its row any more: nothing happens
    assert store.writer() is not None
    store.release_writer(me)
    assert store.writer() is None
    store.close()


def test_a_reader_learns_the_series_the_writer_added(tmp_path: Path) -> None:
    path = str(tmp_path / "h.sqlite3")
    service, reader = Store.open(path, "home"), Store.open(path, "home")
    sid = service.series_id("lock", "13", 13)
    assert ("lock", "13") not in reader.series_ids
    reader.catch_up()
    assert reader.series_ids[("lock", "13")] == sid
    service.close()
    reader.close()


class Clock:
    def __init__(self) -> None:
        self.now = NOW / 1000

    def __call__(self) -> float:
        return self.now


def test_a_reader_writes_once_the_service_is_gone(tmp_path: Path) -> None:
    """A stdio server beside the service writes nothing; once the service stops beating it keeps the
    history itself (the file is never left without a writer while a server runs)."""
    path = str(tmp_path / "h.sqlite3")
    service = Store.open(path, "home")
    service.claim_writer(Writer(os.getppid(), this_host(), NOW, NOW), NOW)  # a live process: the parent
    service.close()
    clock = Clock()
    recorder = Recorder(path, clock=clock, home=lambda: "home", beat_s=0.01)
    recorder.start()
    try:
        assert recorder.wait_open(5) and recorder.reading is not None
        recorder.on_load([])  # the network loaded: the reader learns which home it is
        recorder.record_outcome({"tool": "t", "action": "on", "device_key": "2", "outcome": "confirmed"})
        assert recorder.flush() and recorder.written == 0 and _outcomes(path) == 0, "a reader writes none"
        clock.now += STALE_S + 1  # no heartbeat for longer than the rule allows
        deadline = time.monotonic() + 5
        while recorder.reading is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert recorder.reading is None, "it took the file over"
        recorder.record_outcome({"tool": "t", "action": "off", "device_key": "2", "outcome": "confirmed"})
        assert recorder.flush() and _outcomes(path) == 1
    finally:
        recorder.stop()


def _outcomes(path: str) -> int:
    with closing(sqlite3.connect(path)) as db:
        return int(db.execute("SELECT count(*) FROM outcomes").fetchone()[0])
