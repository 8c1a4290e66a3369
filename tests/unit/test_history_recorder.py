"""The recorder and its store on a temporary file: what becomes a row, what does not, and failures."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path

import pytest

from zwave_mcp.gateway.model import InventoryEvent, ZNode, ZValue
from zwave_mcp.history.recorder import Inbox, Recorder
from zwave_mcp.history.store import Store, StoreUnavailable

VID = "8-50-0-value-65537"
NOW_S = 1_800_000_000.0
LATER = int(NOW_S * 1000) + 1000  # after a load at NOW_S


class Clock:
    def __init__(self) -> None:
        self.now = NOW_S

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "history.sqlite3"


@pytest.fixture
def recorder(path: Path) -> Iterator[Recorder]:
    rec = Recorder(str(path), clock=Clock())
    rec.start()
    assert rec.wait_open(5)
    yield rec
    rec.stop()


def rows(path: Path) -> list[tuple[str, int, str | None, str | None]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(
            "SELECT s.key, c.at, c.old, c.new FROM changes c JOIN series s ON s.id = c.series ORDER BY c.at"
        ).fetchall()


def value_change(new: object, at: int, old: object = None) -> InventoryEvent:
    return InventoryEvent("value", 8, VID, old, new, at)


def test_changes_are_rows_and_a_re_report_is_not(recorder: Recorder, path: Path) -> None:
    recorder.on_change(value_change(12.0, 1000, old=11.0))
    recorder.on_change(value_change(12.0, 2000, old=12.0))  # the same value reported again
    recorder.on_change(value_change(12.5, 3000, old=12.0))
    recorder.on_change(value_change(9.0, 2500, old=12.5))  # older than what is stored: the present stands
    assert recorder.flush()
    assert rows(path) == [(VID, 1000, "11.0", "12.0"), (VID, 3000, "12.0", "12.5")]
    assert recorder.store is not None
    sid = recorder.store.series_ids[("value", VID)]
    assert recorder.store.latest_of([sid]) == {sid: (12.5, 3000, 3000)}


def test_statuses_gateway_and_outcomes(recorder: Recorder, path: Path) -> None:
    recorder.on_change(InventoryEvent("status", 7, None, "Alive", "Dead", 1000))
    recorder.on_change(InventoryEvent("gateway", None, "client_online", True, False, 1500))
    recorder.on_change(InventoryEvent("node", 7, None, {"name": "a"}, {"name": "b"}, 1600))  # not history
    recorder.record_outcome(
        {
            "tool": "control_zwave_device",
            "action": "unlock",
            "outcome": "confirmed",
            "device": "Front Door Lock (Entry)",
            "device_key": "5",
            "value": None,
            "time": 2.0,
        }
    )
    assert recorder.flush()
    assert rows(path) == [("7", 1000, '"Alive"', '"Dead"'), ("client_online", 1500, "true", "false")]
    assert recorder.store is not None
    (outcome,) = recorder.store.outcomes(["5"], 0, 10_000, 10)
    assert (outcome.at, outcome.action, outcome.outcome, outcome.device) == (
        2000,
        "unlock",
        "confirmed",
        "Front Door Lock (Entry)",
    )


def test_a_restart_and_a_re_published_retained_value_add_nothing(path: Path) -> None:
    first = Recorder(str(path), clock=Clock())
    first.start()
    at = int(NOW_S * 1000) - 5000  # recent: the second recorder's retention keeps it
    first.on_change(value_change(12.0, at))
    first.stop()
    second = Recorder(str(path), clock=Clock())
    second.start()
    second.on_change(value_change(12.0, at))  # the broker's retained copy, same time
    second.on_change(value_change(12.0, at + 4000))  # raw payloads carry no time: same value, new receipt
    assert second.flush()
    second.stop()
    assert rows(path) == [(VID, at, None, "12.0")]


def test_a_load_records_what_changed_while_away(recorder: Recorder, path: Path) -> None:
    recorder.on_change(value_change(12.0, 1000))
    node = ZNode(id=8, status="Alive")
    node.values[VID] = ZValue(VID, 8, 50, "Meter", 0, "value", 65537, value=13.5, last_update_ms=9000)
    node.values["8-37-0-currentValue"] = ZValue(
        "8-37-0-currentValue", 8, 37, "Binary Switch", 0, "currentValue", value=True, last_update_ms=8000
    )
    recorder.on_load([node])
    recorder.on_load([node])  # a second load of the same picture adds nothing
    assert recorder.flush()
    stored = rows(path)
    assert (VID, 9000, "12.0", "13.5") in stored
    assert ("8-37-0-currentValue", 8000, None, "true") in stored
    assert ("8", int(NOW_S * 1000), None, '"Alive"') in stored  # the status first seen, as of the load
    assert len(stored) == 4


class HidesRelay2:
    """The hide policy of a two-relay node 25 with its second relay hidden (the device service's rule)."""

    def visible_node(self, node_id: int | None) -> bool:
        return node_id != 25

    def visible_value(self, value_id: str) -> bool:
        if value_id.startswith("25-37-"):  # the relays' own values
            return not value_id.startswith("25-37-2-")
        return self.visible_node(int(value_id.split("-")[0]))  # a value of no device: its node's rule


def relays() -> ZNode:
    """Node 25: relay 1 and relay 2 (endpoints 1, 2) and a value of no device (the manufacturer)."""
    node = ZNode(id=25, status="Alive")
    for vid, cc, endpoint in (
        ("25-37-1-currentValue", 37, 1),
        ("25-37-2-currentValue", 37, 2),
        ("25-114-0-manufacturerId", 114, 0),
    ):
        node.values[vid] = ZValue(vid, 25, cc, "", endpoint, "x", value=1, last_update_ms=7000)
    return node


def test_the_hide_policy_keeps_a_visible_part_and_leaves_out_the_hidden_one(path: Path) -> None:
    """A value is kept by its device (the visible relay of a node with a hidden one is recorded); what is
    about the node as a whole (status, lock operations) by the node, hidden whole with a hidden part."""
    rec = Recorder(str(path), clock=Clock(), visible=HidesRelay2())
    rec.start()
    try:
        assert rec.wait_open(5)
        other = ZNode(id=8, status="Alive")
        other.values[VID] = ZValue(VID, 8, 50, "Meter", 0, "value", 65537, value=13.5, last_update_ms=9000)
        rec.on_load([relays(), other])
        rec.on_change(InventoryEvent("value", 25, "25-37-1-currentValue", 1, 0, 8000))
        rec.on_change(InventoryEvent("value", 25, "25-37-2-currentValue", 1, 0, 8000))
        rec.on_change(
            InventoryEvent("value", 25, "25-114-0-manufacturerId", 1, 2, 8000)
        )  # no device: the node rule
        rec.on_change(InventoryEvent("status", 25, None, "Alive", "Dead", 8000))
        rec.on_change(InventoryEvent("lock", 25, None, None, {"event": "keypad_unlock"}, 8000))
        rec.on_change(InventoryEvent("status", 8, None, "Alive", "Dead", LATER))
        rec.on_change(InventoryEvent("gateway", None, "client_online", True, False, 8000))
        assert rec.flush()
    finally:
        rec.stop()
    stored = {(key, at) for key, at, _old, _new in rows(path)}
    assert stored == {
        ("25-37-1-currentValue", 7000),
        ("25-37-1-currentValue", 8000),
        (VID, 9000),
        ("8", int(NOW_S * 1000)),
        ("8", LATER),
        ("client_online", 8000),
    }


def test_without_a_hide_list_every_value_and_status_is_kept(path: Path) -> None:
    rec = Recorder(str(path), clock=Clock())
    rec.start()
    try:
        assert rec.wait_open(5)
        rec.on_load([relays()])
        assert rec.flush()
    finally:
        rec.stop()
    assert {key for key, *_ in rows(path)} == {
        "25-37-1-currentValue",
        "25-37-2-currentValue",
        "25-114-0-manufacturerId",
        "25",
    }


def test_a_damaged_file_fails_with_a_reason_and_hears_nothing(path: Path) -> None:
    path.write_bytes(b"not a database" * 500)
    rec = Recorder(str(path))
    rec.start()
    assert rec.wait_open(5) is False
    assert rec.state == "failed"
    assert rec.reason is not None and rec.reason.startswith("the history file is damaged")
    rec.on_change(value_change(1.0, 1))
    assert rec.flush() is False
    rec.stop()
    with pytest.raises(StoreUnavailable, match="damaged"):
        Store.open(str(path))


def test_an_unwritable_place_fails_with_a_reason(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    rec = Recorder(str(blocker / "history.sqlite3"))  # a directory that cannot be made
    rec.start()
    assert rec.wait_open(5) is False
    assert rec.state == "failed"
    assert rec.reason is not None and str(blocker) in rec.reason and "Traceback" not in rec.reason
    # Issue 31 (Docker's home /nonexistent): where, why and what to do, in words.
    assert rec.reason == (
        f"the history file {blocker / 'history.sqlite3'} cannot be created ({blocker} is a file, not a folder); "
        "set ZWAVE_MCP_HISTORY_PATH to a file in a writable folder, or to off"
    ), rec.reason
    rec.stop()


def test_an_unforeseen_failure_to_open_says_where_and_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31: the answer was "the history store failed to open: RuntimeError", neither where nor why."""

    def broken(*args: object, **kwargs: object) -> Store:
        raise RuntimeError("the disk said no")

    monkeypatch.setattr(Store, "open", broken)
    rec = Recorder(str(tmp_path / "history.sqlite3"))
    rec.start()
    assert rec.wait_open(5) is False
    assert rec.reason == f"the history store failed to open {tmp_path / 'history.sqlite3'} (the disk said no)"
    rec.stop()


def test_off_and_memory() -> None:
    off = Recorder(None)
    off.start()
    off.on_change(value_change(1.0, 1))
    assert off.state == "off" and off.reason is not None and "turned off" in off.reason
    memory = Recorder(":memory:")
    memory.start()
    assert memory.wait_open(5)
    memory.on_change(value_change(1.0, 1))
    assert memory.flush()
    assert memory.store is not None and memory.store.count() == 1
    memory.stop()


def test_retention_by_days_and_by_size(path: Path) -> None:
    store = Store.open(str(path))
    sid = store.series_id("value", VID, 8)
    day = 86_400_000
    now = 100 * day
    store.write([(sid, now - 40 * day, None, "1", 1.0), (sid, now - day, "1", "2", 2.0)], [], [])
    assert store.prune(30, None, now) == 1
    assert store.count() == 1
    filler = [(sid, now + i, None, "x" * 200, None) for i in range(5000)]
    store.write(filler, [], [])
    before = store.count()
    store.prune(30, 200_000, now)
    assert store.count() < before and store.used_bytes() <= 200_000
    store.close()


def test_values_and_times_no_float_holds_cost_nothing_but_themselves(recorder: Recorder, path: Path) -> None:
    """A 400-digit value ended the writer thread (a raw traceback on stderr, then 'closed database' for
    every history question until a restart); so did a report time no SQLite integer holds."""
    recorder.on_change(value_change(10**400, 1000))
    recorder.on_change(InventoryEvent("value", 8, "8-49-0-Air temperature", None, float("nan"), 1500))
    recorder.on_change(InventoryEvent("value", 8, "8-49-0-Humidity", None, 40, 10**400))
    recorder.on_change(value_change(12.0, 2000))
    assert recorder.flush()
    assert recorder.state == "ready"
    stored = {key: at for key, at, _old, _new in rows(path)}
    assert stored[VID] == 2000 and "8-49-0-Air temperature" in stored
    assert stored["8-49-0-Humidity"] == int(NOW_S * 1000)  # no usable time: recorded as of now
    recorder.on_change(value_change(13.0, 3000))
    assert recorder.flush() and [r for r in rows(path) if r[0] == VID][-1][3] == "13.0"


def test_a_load_larger_than_a_write_chunk_is_written_whole_in_several_transactions(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zwave_mcp.history import recorder as recorder_module

    monkeypatch.setattr(recorder_module, "WRITE_CHUNK", 4)
    transactions: list[int] = []
    write = Store.write

    def counted(self: Store, changes: list[object], *rest: object) -> None:
        transactions.append(len(changes))
        write(self, changes, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "write", counted)
    rec = Recorder(str(path), clock=Clock())
    rec.start()
    try:
        assert rec.wait_open(5)
        nodes = []
        for node_id in range(2, 6):
            node = ZNode(id=node_id, status="Alive")
            for prop in ("a", "b", "c"):
                vid = f"{node_id}-49-0-{prop}"
                node.values[vid] = ZValue(
                    vid, node_id, 49, "Sensor", 0, prop, value=node_id, last_update_ms=5
                )
            nodes.append(node)
        rec.on_load(nodes)
        assert rec.flush()
    finally:
        rec.stop()
    assert len(rows(path)) == 4 * 3 + 4  # every value and every status, nothing lost between chunks
    assert len(transactions) > 1 and max(transactions) <= 4 + 3  # a chunk, plus at most one node's values
    assert rec.written == len(rows(path))


def _take_in_thread(inbox: Inbox, window_s: float, limit: int) -> list[object]:
    """`inbox.take` on another thread, failing (not hanging) when it blocks where it must not."""
    got: list[list[object]] = []
    taker = threading.Thread(target=lambda: got.append(inbox.take(window_s, limit)), daemon=True)
    taker.start()
    taker.join(10)
    assert got, "take blocked"
    return got[0]


class CountingEvent(threading.Event):
    def __init__(self) -> None:
        super().__init__()
        self.sets = 0

    def set(self) -> None:
        self.sets += 1
        super().set()


def test_the_inbox_wakes_the_writer_once_a_batch_not_once_an_item() -> None:
    """A queue woke the writer for every change (~10 a tool call), each time taking the GIL from the loop."""
    inbox = Inbox()
    inbox._arrived = arrived = CountingEvent()
    for n in range(100):
        inbox.put(("value", n))
    assert arrived.sets == 1
    assert _take_in_thread(inbox, 0, 1000) == [("value", n) for n in range(100)]
    inbox.put("next")  # the writer took its batch: the next item wakes it again
    assert arrived.sets == 2
    assert _take_in_thread(inbox, 0, 1000) == ["next"]


def test_a_flush_ends_the_gathering_at_once_and_a_backlog_is_taken_batch_after_batch() -> None:
    inbox = Inbox()
    for n in range(5):
        inbox.put(n)
    inbox.put_urgent("flush")  # with a window of a minute, only the urgent item can end the wait
    assert _take_in_thread(inbox, 60, 4) == [0, 1, 2, 3]
    assert _take_in_thread(inbox, 60, 4) == [4, "flush"]  # the rest at once, not after the window
    assert len(inbox) == 0


def test_a_report_time_no_date_holds_is_recorded_as_of_now(recorder: Recorder, path: Path) -> None:
    """Every stored time must be one a date can say in every zone (the answers turn it into one)."""
    from datetime import datetime, timedelta, timezone

    last = int(datetime(9999, 12, 29, tzinfo=UTC).timestamp() * 1000)
    recorder.on_change(value_change(1.0, last))  # far, but a date holds it in every zone
    recorder.on_change(
        InventoryEvent("value", 8, "8-49-0-Air temperature", None, 2.0, 2**52)
    )  # the year 144,683
    assert recorder.flush()
    stored = rows(path)
    assert [(at, new) for _, at, _, new in stored] == [(int(NOW_S * 1000), "2.0"), (last, "1.0")]
    for _, at, _, _ in stored:
        datetime.fromtimestamp(at / 1000, timezone(timedelta(hours=14)))


def test_a_home_that_does_not_exist_is_explained_where_why_and_what_to_do() -> None:
    """Docker's user had the home /nonexistent: the folder of the default path cannot be made."""
    from zwave_mcp.history.store import explain

    path = "/nonexistent/.local/state/zwave-mcp/history.sqlite3"
    reason = explain(PermissionError(13, "Permission denied", "/nonexistent"), path)
    assert reason == (
        f"the history file {path} cannot be created (permission denied on /nonexistent); "
        "set ZWAVE_MCP_HISTORY_PATH to a file in a writable folder, or to off"
    )
