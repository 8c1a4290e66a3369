"""The recorder: hears the live picture's changes and the write gate's outcomes, writes them in batches.

The listener runs on the event loop and only puts a tuple on a queue; one thread opens the store, turns
reports into rows and writes them a batch per transaction, so a tool call never waits for the disk.

What becomes a row: a value that reports something other than its last stored value (a re-report of the
same value only moves the "last heard" time), node status changes, gateway facts, lock operations (series
kind "lock", one per lock node: who and how, never a code), and gate outcomes; under a hide list only
what `Visibility` lets through (never a hidden device's values). After
every (re)load of the network, the picture is compared with the store, so a change made while the broker
or this server was away is recorded from zwave-js-ui's own `lastUpdate` once it is back.

Every row belongs to a home (see `store.py`). Each load names the home it is of (`home`, read when the
load comes: the controller's home id is known by then), and what follows is that home's; what is heard
before the first load waits for it. A recorder without `home` (tests, benchmarks) keeps one home,
`DEFAULT_HOME`.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from zwave_mcp.gateway.model import InventoryEvent, ZNode
from zwave_mcp.history.latest import LatestValues
from zwave_mcp.history.writer import BEAT_S, Writer, is_live, this_host

if TYPE_CHECKING:
    from zwave_mcp.history.store import Store

log = logging.getLogger(__name__)

BATCH_MAX = 50_000  # items per transaction
BATCH_WINDOW_S = 0.5  # a change waits at most this long to be written (unless a flush asks sooner)
# Beyond this many items waiting the writer is stuck (a locked or failing disk: 2 minutes behind a flood of
# 2,000 changes a second, days behind a home), and more are dropped and counted rather than held: an item is
# ~200 bytes, so a million held ~200 MB for as long as the writer could not catch up; this bounds it to ~50 MB.
MAX_PENDING = 250_000
PRUNE_EVERY_S = 3600.0  # by age (a scan of the whole table: hourly is enough for days)
# By size, more often: at a flood's 2,000 changes a second (60 kB/s) an hour overshot ZWAVE_MCP_HISTORY_MAX_MB by
# ~200 MB; asking the page count costs nothing, so the store is over its bound by a minute's growth at most.
SIZE_CHECK_EVERY_S = 60.0
WRITE_ATTEMPTS = 3
WRITER_NICE = 5  # nice value of the writer thread (Linux), above the process's 0
YIELD_EVERY = 128  # items handled between two voluntary releases of the GIL
WRITE_CHUNK = 2000
"""A load's snapshot is written in transactions of about this many changes: ~50,000 values at 4,000 nodes
in one list of row tuples left ~8 MB of holes in the heap between the series ids made meanwhile; in
chunks the next chunk reuses the blocks of the last. (Live changes stay one transaction a batch: their
series exist, and writing each dirty series' latest row once a chunk cost 40 % of the writer's speed.)"""
# Later report times are junk (a broken gateway): recorded as of now. 9999-12-30 00:00 UTC, a day before
# the last time a `datetime` holds, so every stored time can be said in every zone (2**53, the bound
# before, is the year 285,000: an answer that met it failed).
MAX_TIME_MS = 253_402_128_000_000

_STOP = object()
_BEAT = "beat"  # the service's heartbeat on the file (see writer.py)
DEFAULT = "<default>"  # the store file in the user state directory
DEFAULT_HOME = "default"  # the one home of a recorder told no home
FILE_NAME = "history.sqlite3"


class Inbox:
    """What the writer thread is handed, in order, with one wake-up of the writer per batch.

    A queue wakes its reader on every put: at ~10 changes a tool call, the writer woke ~10 times a call,
    and each time took the GIL from the event loop to append one item. Here only the first item after the
    writer took a batch wakes it; it then gathers for the batch window, which `put_urgent` (a flush, a
    stop) ends at once. Any thread may put; one thread takes.
    """

    def __init__(self) -> None:
        self._items: deque[Any] = deque()
        self._idle = True  # the writer waits for a first item: the next put must wake it
        self._arrived = threading.Event()
        self._urgent = threading.Event()

    def __len__(self) -> int:
        return len(self._items)

    def put(self, item: Any) -> None:
        self._items.append(item)
        if self._idle:
            self._wake()

    def put_urgent(self, item: Any) -> None:
        self._items.append(item)
        self._wake(urgent=True)

    def take(self, window_s: float, limit: int) -> list[Any]:
        """Block until an item comes, gather for `window_s` (less if urgent), return up to `limit` items
        (possibly none, when a wake-up's items went with the batch before)."""
        self._arrived.wait()
        self._urgent.wait(window_s)
        self._arrived.clear()
        self._urgent.clear()
        self._idle = True  # before taking: an item put from now on wakes the next take, or is taken now
        items = self.take_all(limit)
        if self._items:  # behind by more than a batch: the next batch starts at once
            self._wake(urgent=True)
        return items

    def take_all(self, limit: int | None = None) -> list[Any]:
        """What is there now (up to `limit` items), without waiting."""
        items: list[Any] = []
        while self._items and (limit is None or len(items) < limit):
            items.append(self._items.popleft())
        return items

    def _wake(self, urgent: bool = False) -> None:
        if urgent:
            self._urgent.set()
        self._idle = False
        self._arrived.set()


class Visibility(Protocol):
    """What the hide policy lets the file keep (the device service answers both). One object rather than two
    callables: the two answers are one rule, and a value of no device falls back to its node's."""

    def visible_node(self, node_id: int | None) -> bool: ...

    def visible_value(self, value_id: str) -> bool: ...


def default_path() -> str:
    import platformdirs  # the platform's convention (XDG on Linux, Application Support on macOS, …)

    return str(platformdirs.user_state_path("zwave-mcp", appauthor=False) / FILE_NAME)


class Recorder:
    """`path` None: history is off. States: off, opening, ready, failed (`reason` says why)."""

    def __init__(
        self,
        path: str | None,
        *,
        keep_days: float = 30.0,
        max_bytes: int | None = None,
        visible: Visibility | None = None,
        clock: Callable[[], float] = time.time,
        home: Callable[[], str] | None = None,
        service: bool = False,
        beat_s: float = BEAT_S,
    ) -> None:
        self.path = path
        # The home service claims the file as its one writer; any other server reads a live service's
        # file and writes none (see writer.py). `writer`: our claim; `reading`: the service read from.
        self._service = service
        self._beat_s = beat_s
        self.writer: Writer | None = None
        self.reading: Writer | None = None
        self.started_ms = int(clock() * 1000)  # this server's own memory starts here
        self._stopping = threading.Event()
        self._home = home  # the home of the picture just loaded (read at each load)
        self._visible = visible  # the hide policy; None (no hide list): everything is kept, nothing asked
        self.keep_days = keep_days
        self.max_bytes = max_bytes
        self._clock = clock
        self.state = "off" if path is None else "opening"
        self.reason: str | None = (
            "history is turned off (ZWAVE_MCP_HISTORY_PATH=off)" if path is None else None
        )
        self.store: Store | None = None
        self.dropped = 0
        self.written = 0
        self._inbox = Inbox()
        self._accepting = path is not None
        self._thread: threading.Thread | None = None
        self._opened = threading.Event()
        # series id → (last value as JSON, its time ms, last report time ms); the writer thread's alone.
        self._latest = LatestValues()

    # ---- lifecycle -----------------------------------------------------------------------------

    def start(self) -> None:
        if self.path is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="zwave-history", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Write what is queued and close the file."""
        if self._thread is None:
            return
        self._stopping.set()
        self._inbox.put_urgent(_STOP)
        self._thread.join(timeout)
        self._thread = None

    def wait_open(self, timeout: float) -> bool:
        """Wait (blocking) until the store is open or has failed; True when it can answer."""
        self._opened.wait(timeout)
        return self.state == "ready"

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait (blocking) until everything queued before this call is written; a reader of the service's
        file learns what the service added instead."""
        if self.reading is not None and self.store is not None:
            self.store.catch_up()
            return True
        if not self._accepting or self._thread is None:
            return False
        done = threading.Event()
        self._inbox.put_urgent(done)
        return done.wait(timeout)

    # ---- what is heard (any thread; cheap) -----------------------------------------------------

    def _put(self, item: tuple[Any, ...]) -> None:
        if not self._accepting:
            return
        if len(self._inbox) >= MAX_PENDING:
            self.dropped += 1
            return
        self._inbox.put(item)

    def on_change(self, change: InventoryEvent) -> None:
        """Inventory listener."""
        kind = change.kind
        if self._visible is not None and not _kept(change, self._visible):
            return
        if kind in ("value", "status", "gateway"):
            key = change.value_id if kind != "status" else str(change.node_id)
            tag = "press" if change.momentary else kind  # a press is news even when it repeats the last
            self._put((tag, key, change.node_id, change.old, change.new, change.at_ms))
        elif kind == "lock":  # a lock operation (who, how): each is news, like a press; never a code
            self._put(("lock", str(change.node_id), change.node_id, None, change.new, change.at_ms))

    def on_load(self, nodes: Iterable[ZNode]) -> None:
        """After a (re)load: a snapshot of every value and status, compared with the store by the writer."""
        if self.reading is not None and self._home is not None:  # a reader only follows which home it is
            self._inbox.put(("home", self._home()))
        if not self._accepting:
            return
        nodes = list(nodes)
        visible = self._visible
        values = [(node.id, _flat_values(node, visible)) for node in nodes]
        statuses = [
            (node.id, node.status)
            for node in nodes
            if not node.is_controller and (visible is None or visible.visible_node(node.id))
        ]
        if self._home is not None:
            self._put(("home", self._home()))
        self._put(("snapshot", values, statuses, int(self._clock() * 1000)))

    def record_outcome(self, record: Mapping[str, Any]) -> None:
        """One final outcome of the write gate: a plain mapping with `tool`, `action`, `device_key`,
        `device` (label), `value`, `outcome`, `reason` and `time` (epoch seconds; default now)."""
        self._put(("outcome", dict(record), int(self._clock() * 1000)))

    # ---- the writer thread ---------------------------------------------------------------------

    def _run(self) -> None:
        from zwave_mcp.history.store import Store, StoreUnavailable

        _lower_priority()

        assert self.path is not None
        try:
            if self.path == DEFAULT:
                self.path = default_path()
            store = Store.open(self.path, DEFAULT_HOME if self._home is None else None)
            if not self._take_role(store):
                store.close()
                return
            if self.reading is None:
                self._latest = store.latest()
                store.prune(self.keep_days, self.max_bytes, int(self._clock() * 1000))
        except StoreUnavailable as exc:
            self._fail(str(exc))
            return
        except Exception as exc:  # never let a history problem reach the server
            log.warning("history store failed to open", exc_info=True)
            self._fail(f"the history store failed to open {self.path} ({str(exc) or type(exc).__name__})")
            return
        self.store = store
        self.state = "ready"
        self._opened.set()
        log.info("history store open", extra={"path": self.path})
        try:
            if self.reading is None or self._follow(store):
                self._loop(store)
        finally:
            if self.writer is not None:
                self._guard(functools.partial(store.release_writer, self.writer))
            store.close()
            log.info("history store closed", extra={"path": self.path, "written": self.written})

    def _take_role(self, store: Store) -> bool:
        """Writer or reader of this file (see writer.py); False when another service already writes it."""
        now_ms = int(self._clock() * 1000)
        if self._service:
            me = Writer(os.getpid(), this_host(), now_ms, now_ms)
            holder = store.claim_writer(me, now_ms)
            if holder is not None:
                self._fail(
                    f"another zwave-mcp service (process {holder.pid} on {holder.host}) is writing "
                    f"{self.path}; one service per history file"
                )
                return False
            self.writer = me
            threading.Thread(target=self._beat, name="zwave-history-beat", daemon=True).start()
            log.info("watching the home since %s", _clock_time(now_ms), extra={"path": self.path})
            return True
        holder = store.writer()
        if holder is not None and not holder.is_me() and is_live(holder, now_ms):
            self.reading, self._accepting = holder, False
            log.info(
                "history is read from the zwave-mcp service writing it, watching since %s; this server "
                "writes none",
                _clock_time(holder.since_ms),
                extra={"path": self.path, "writer_pid": holder.pid},
            )
            threading.Thread(target=self._beat, name="zwave-history-watch", daemon=True).start()
        return True

    def _beat(self) -> None:
        """Every BEAT_S: the service's heartbeat on the file; a reader's look at whether the service still
        writes it."""
        while not self._stopping.wait(self._beat_s):
            self._inbox.put_urgent((_BEAT,))

    def _follow(self, store: Store) -> bool:
        """A reader's thread: it follows which home the picture is until stopped (False), or until the
        service no longer holds the file (True): then this server writes it from now on."""
        while True:
            items = self._inbox.take(BATCH_WINDOW_S, BATCH_MAX)
            for item in items:
                if isinstance(item, tuple) and item[0] == "home" and item[1] != store.home:
                    self._guard(functools.partial(store.use_home, item[1], adopt=False))
                elif isinstance(item, threading.Event):
                    item.set()
            if any(item is _STOP for item in items):
                return False
            if (_BEAT,) in items and not is_live(store.writer(), int(self._clock() * 1000)):
                self._take_over(store)
                return True

    def _take_over(self, store: Store) -> None:
        """The service stopped (or went stale): this server keeps the history from now on. What changed
        while it only read is not in the file until the next load compares the picture with it."""
        log.warning(
            "the zwave-mcp service no longer writes the history file; this server writes it from now on",
            extra={"path": self.path},
        )
        self._latest = store.latest()
        self.reading, self._accepting = None, True

    def _fail(self, reason: str) -> None:
        self.state = "failed"
        self.reason = reason
        self._accepting = False
        self._opened.set()
        log.warning("history is unavailable: %s", reason)
        for item in self._inbox.take_all():  # nothing will read the inbox any more; let waiting flushes go
            if isinstance(item, threading.Event):
                item.set()

    def _loop(self, store: Store) -> None:
        next_prune = time.monotonic() + PRUNE_EVERY_S
        next_size_check = time.monotonic() + SIZE_CHECK_EVERY_S
        homeless: list[tuple[Any, ...]] = []  # heard before the first load named the home
        has_home = self._home is None or store.named  # a reader that took over knows its home already
        while True:
            # Gather for a moment: one transaction rewrites every page it touches, so a few large ones
            # cost far less than many small ones. A flush or a stop ends the wait at once.
            items = self._inbox.take(BATCH_WINDOW_S, BATCH_MAX)
            stop = any(item is _STOP for item in items)
            if self.writer is not None and any(i == (_BEAT,) for i in items):
                self._guard(functools.partial(store.beat, self.writer, int(self._clock() * 1000)))
            writes = [i for i in items if isinstance(i, tuple) and i != (_BEAT,)]
            if not has_home:
                first = next((n for n, i in enumerate(writes) if i[0] == "home"), None)
                if first is None:
                    homeless += writes[: MAX_PENDING - len(homeless)]
                    writes = []
                else:  # the home first, then what waited for it
                    has_home = True
                    writes = [writes[first], *homeless, *writes[:first], *writes[first + 1 :]]
                    homeless = []
            try:
                self._write(store, writes)
            except Exception:  # one bad batch costs that batch, never the writer (nor history after it)
                log.warning("history batch dropped", exc_info=True)
                self.dropped += len(writes)
            for item in items:
                if isinstance(item, threading.Event):
                    item.set()
            if stop:
                return
            if time.monotonic() >= next_prune:
                next_prune = time.monotonic() + PRUNE_EVERY_S
                next_size_check = time.monotonic() + SIZE_CHECK_EVERY_S
                self._guard(lambda: store.prune(self.keep_days, self.max_bytes, int(self._clock() * 1000)))
            elif self.max_bytes is not None and time.monotonic() >= next_size_check:
                next_size_check = time.monotonic() + SIZE_CHECK_EVERY_S
                self._guard(lambda: store.prune_size(self.max_bytes))

    def _guard(self, work: Callable[[], object]) -> bool:
        import sqlite3

        from zwave_mcp.history.store import explain

        for attempt in range(WRITE_ATTEMPTS):
            try:
                work()
                return True
            except sqlite3.Error as exc:
                reason = explain(exc, self.path or "")
                log.warning("history write failed (attempt %d): %s", attempt + 1, reason)
                if "locked" not in reason:
                    self.reason = reason
                    break
                time.sleep(0.5)
        return False

    def _write(self, store: Store, items: list[tuple[Any, ...]]) -> None:
        from zwave_mcp.history.store import number_of, outcome_row, to_json

        changes: list[tuple[int, int, str | None, str | None, float | None]] = []
        dirty: set[int] = set()
        outcomes: list[tuple[Any, ...]] = []
        latest = self._latest
        now_ms = int(self._clock() * 1000)
        series_ids = store.series_ids  # the current home's; a "home" item changes both

        def report(
            kind: str,
            key: str,
            node: int | None,
            old: Any,
            new: Any,
            at: int | None,
            touch: bool = True,
            press: bool = False,
        ) -> None:
            at = _time_ms(at, now_ms)
            sid = series_ids.get((kind, key)) or store.series_id(kind, key, node)
            new_json = to_json(new)
            cur = latest.get(sid)
            # The same button press again (at another time) is a new event, not a re-report.
            again = press and cur is not None and cur[1] != at
            if cur is not None and cur[0] == new_json and not again:  # the same value reported again
                if touch and (cur[2] is None or at > cur[2]):
                    latest.set(sid, cur[0], cur[1], at)
                    dirty.add(sid)
                return
            if cur is not None and cur[1] is not None and at < cur[1]:
                return  # older than what is stored (a stale retained copy): the present stands
            old_json = cur[0] if cur is not None else (None if old is None else to_json(old))
            changes.append((sid, at, old_json, new_json, number_of(new)))
            latest.set(sid, new_json, at, at)
            dirty.add(sid)

        def flush() -> None:
            """Write what is gathered (one transaction) and start gathering afresh."""
            if not (changes or dirty or outcomes):
                return
            rows = [(sid, entry[1], entry[0], entry[2]) for sid in dirty if (entry := latest.get(sid))]
            if self._guard(lambda: store.write(changes, rows, outcomes)):
                self.written += len(changes)
            else:
                self.dropped += len(changes) + len(outcomes)
            changes.clear()
            dirty.clear()
            outcomes.clear()

        for n, item in enumerate(items):
            if n % YIELD_EVERY == YIELD_EVERY - 1:
                # Let the event loop's thread have the GIL: otherwise it could wait a whole switch
                # interval (5 ms) for it behind this loop, and tool calls would feel it.
                time.sleep(0)
            tag = item[0]
            if tag == "home":
                if item[1] != store.home:
                    flush()  # what came before is the previous home's
                    if not self._guard(functools.partial(store.use_home, item[1])):
                        raise RuntimeError("the history store could not switch homes")
                    series_ids = store.series_ids
                continue
            if tag in ("value", "status", "gateway", "press", "lock"):
                _, key, node, old, new, at = item
                if key is not None:
                    press = tag in ("press", "lock")
                    report("value" if tag == "press" else tag, str(key), node, old, new, at, press=press)
            elif tag == "snapshot":
                _, values, statuses, at = item
                for node, parts in values:
                    for vid, value, updated in zip(parts[::3], parts[1::3], parts[2::3], strict=True):
                        # A value without zwave-js's time is recorded (once) as of now, but says nothing
                        # about when the device last spoke.
                        report("value", vid, node, None, value, updated or at, touch=updated is not None)
                    if len(changes) >= WRITE_CHUNK:
                        flush()
                for node, status in statuses:
                    sid = store.series_id("status", str(node), node)
                    cur = latest.get(sid)
                    if cur is None or cur[0] != to_json(status):
                        report("status", str(node), node, None, status, at)
            elif tag == "outcome":
                outcomes.append(outcome_row(item[1], item[2]))
        flush()


def _time_ms(at: Any, now_ms: int) -> int:
    """A report time (ms since the epoch) as stored: one no SQLite integer holds, a negative one, NaN or
    none at all is no usable time, so the change is recorded as of now."""
    if isinstance(at, int | float) and not isinstance(at, bool) and 0 <= at <= MAX_TIME_MS:
        return int(at)
    return now_ms


def _kept(change: InventoryEvent, visible: Visibility) -> bool:
    """Under the hide policy a value is kept by its device, the rest (a node's status, a lock's operations)
    by its node: a node with a hidden part stays hidden whole there, as in health and recent events."""
    if change.kind == "value" and change.value_id is not None:
        return visible.visible_value(change.value_id)
    return visible.visible_node(change.node_id)


def _flat_values(node: ZNode, visible: Visibility | None) -> list[Any]:
    """A node's values, flat (value id, value, time, value id, …): references to what the picture holds, not
    a tuple per value (~50,000 at 4,000 nodes, which also left the heap fragmented once freed). Without a
    hide list no value is asked about."""
    return [
        part
        for v in node.values.values()
        if v.value is not None and (visible is None or visible.visible_value(v.value_id))
        for part in (v.value_id, v.value, v.last_update_ms)
    ]


def _lower_priority() -> None:
    """On Linux a thread has its own nice value: the writer gives way to the thread answering tool calls
    when the CPUs are busy. Elsewhere (no per-thread nice) nothing changes."""
    if sys.platform != "linux":
        return
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WRITER_NICE)
    except OSError:  # not allowed or not supported: the writer keeps the process's priority
        log.debug("could not lower the history writer's priority", exc_info=True)


def _clock_time(at_ms: int) -> str:
    """A time as the log says it: the machine's local time with its offset."""
    from datetime import datetime

    return datetime.fromtimestamp(at_ms / 1000).astimezone().isoformat(timespec="seconds")
