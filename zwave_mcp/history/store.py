"""The SQLite file behind history: schema, batched writes, retention and the queries. Blocking; no asyncio.

One writer connection (the recorder's thread) and one reader connection (tool queries, run in a worker
thread); WAL lets the reader see committed rows while the writer works. An in-memory store has one
connection for both, behind the same lock.

Rows are small on purpose (size per million changes is a benchmark figure): a `series` row names what
changed once (a value id, a node's status, a gateway fact) and `changes` rows refer to it by number.
The key `(series, at)` (one b-tree: the table is WITHOUT ROWID) makes a re-delivered report (the broker's retained copy after a reconnect, or a
second server on the same file) an insert that is ignored.

History is kept per home. One file (the default one in the user state directory) serves every
zwave-mcp of the user, and two homes both have a node 2 with value `2-37-0-currentValue`: so a series
belongs to a home (`series.home`: the controller's home id, or the broker, prefix and gateway name when
zwave-js-ui does not give it; see `homes.py`), and so does an outcome. The store answers for one home
at a time (`use_home`): its `series_ids` and `outcomes` are that home's alone.

A file from before homes (schema 2) is migrated in place, keeping every row: its rows get the legacy home
"" and the first home that opens the file afterwards adopts them (once, logged; `meta.legacy_home` says
which). Most files served one home, whose history then simply continues; a file two gateways shared
cannot be split after the fact, and its mixed rows age out with retention (`ZWAVE_MCP_HISTORY_DAYS`).
"""

from __future__ import annotations

import json
import logging
import math
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from zwave_mcp.gateway.secrets import is_secret_value
from zwave_mcp.history.latest import LatestValues
from zwave_mcp.history.writer import META_KEY as WRITER_KEY
from zwave_mcp.history.writer import Writer, is_live
from zwave_mcp.zwave.classes import CC

log = logging.getLogger(__name__)

SCHEMA_VERSION = 3
LEGACY_HOME = ""  # the rows of a file from before homes, until a home adopts them
MAX_VALUE_CHARS = 4000  # a value's JSON beyond this is cut (values from outside are not trusted)
CHUNK = 500  # series per statement (SQLite takes at most 32,766 parameters)
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS series(
    id INTEGER PRIMARY KEY, home TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL, key TEXT NOT NULL,
    node INTEGER, UNIQUE(home, kind, key));
CREATE TABLE IF NOT EXISTS changes(
    series INTEGER NOT NULL, at INTEGER NOT NULL, old TEXT, new TEXT, num REAL, PRIMARY KEY(series, at)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS latest(series INTEGER PRIMARY KEY, at INTEGER, new TEXT, seen INTEGER);
CREATE TABLE IF NOT EXISTS outcomes(
    at INTEGER NOT NULL, tool TEXT, action TEXT, device_key TEXT, device TEXT, value TEXT, outcome TEXT,
    reason TEXT, home TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS outcomes_key_at ON outcomes(device_key, at);
"""
OUTCOME_COLUMNS = "at, tool, action, device_key, device, value, outcome, reason"
# Schema 2 → 3: series gain a home (their unique key with it: a table rebuilt, ids kept, so `changes` and
# `latest` still refer to them), outcomes a home column.
MIGRATE_2_TO_3 = """
CREATE TABLE series_v3(
    id INTEGER PRIMARY KEY, home TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL, key TEXT NOT NULL,
    node INTEGER, UNIQUE(home, kind, key));
INSERT INTO series_v3(id, home, kind, key, node) SELECT id, '', kind, key, node FROM series;
DROP TABLE series;
ALTER TABLE series_v3 RENAME TO series;
ALTER TABLE outcomes ADD COLUMN home TEXT NOT NULL DEFAULT '';
UPDATE meta SET value = '3' WHERE key = 'schema';
"""


def _is_code_key(key: str) -> bool:
    """Is a value series' key (`"12-99-0-userCode-5"`) a lock code's?"""
    parts = key.split("-", 3)
    if len(parts) < 4 or not parts[1].isdigit():
        return False
    cc, prop = int(parts[1]), parts[3]
    if cc == CC.USER_CODE:
        return prop.startswith(("userCode", "adminCode"))
    return is_secret_value(cc, prop)


class StoreUnavailable(Exception):
    """The file cannot be used; the message says why in words a person reads."""


# What a person can do about a history file that cannot be made or written.
ELSEWHERE = "set ZWAVE_MCP_HISTORY_PATH to a file in a writable folder, or to off"


def explain(exc: BaseException, path: str) -> str:
    """Why a database error stops history (where, why, what to do), without a traceback."""
    text = str(exc).lower()
    where = "in memory" if path == ":memory:" else f"in {path}"
    if isinstance(exc, OSError):  # its folder cannot be made: a home that does not exist, no permission
        if isinstance(exc, (FileExistsError, NotADirectoryError)) and exc.filename is not None:
            why = f"{exc.filename} is a file, not a folder"
        else:
            why = (exc.strerror or str(exc)).lower()
            if exc.filename is not None and str(exc.filename) != path:
                why += f" on {exc.filename}"
        return f"the history file {path} cannot be created ({why}); {ELSEWHERE}"
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return f"the history file is damaged ({path}); move it away and history starts afresh"
    if "locked" in text or "busy" in text:
        return f"the history file is locked by another program ({path})"
    if "readonly" in text or "read-only" in text or "permission" in text or "unable to open" in text:
        return f"the history file {path} cannot be written ({exc}); {ELSEWHERE}"
    if "disk" in text and "full" in text:
        return f"the disk is full {where}"
    return f"the history store failed {where}: {exc}"


def to_json(value: Any) -> str:
    # The common cases without json.dumps (the writer thread does this for every change).
    kind = type(value)
    if kind is float and math.isfinite(value):
        return repr(value)
    if kind is int:
        return str(value)
    if kind is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    return text if len(text) <= MAX_VALUE_CHARS else text[:MAX_VALUE_CHARS]  # read back as plain text


def number_of(value: Any) -> float | None:
    """The value as a number for sums and charts; None when it is none (or no finite float holds it)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an integer beyond any float (a broken gateway)
            return None
        return number if math.isfinite(number) else None
    return None


@dataclass(frozen=True, slots=True)
class Row:
    """One stored change: `at` ms since the epoch (the device's report time), values decoded from JSON."""

    series: int
    at: int
    old: Any
    new: Any


@dataclass(frozen=True, slots=True)
class Outcome:
    at: int
    tool: str
    action: str
    device_key: str | None
    device: str | None
    value: Any
    outcome: str
    reason: str | None


def _decode(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


CACHE_KIB = 1024  # SQLite page cache per connection
# The write-ahead log keeps the size of the largest transaction since it was made (SQLite reuses the file,
# never shrinks it): a prune that deletes a tenth of a 500 MB store left a WAL of ~50 MB for good, beside
# the store and not counted in ZWAVE_MCP_HISTORY_MAX_MB. Beyond this it is cut back once checkpointed.
WAL_LIMIT_BYTES = 8 * 1024 * 1024


@contextmanager
def transaction(conn: sqlite3.Connection, begin: str = "BEGIN") -> Iterator[sqlite3.Connection]:
    """One transaction on an autocommit connection: committed, or rolled back on any exception."""
    conn.execute(begin)
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


class SeriesIds(Mapping[tuple[str, str], int]):
    """(kind, key) → series id, kept per kind: ~50,000 value series at 4,000 nodes need no key tuple each.

    Written by the history writer thread, read by tool calls: iterating goes over snapshots.
    """

    def __init__(self) -> None:
        self._by_kind: dict[str, dict[str, int]] = {}

    def __getitem__(self, kind_key: tuple[str, str]) -> int:
        kind, key = kind_key
        return self._by_kind[kind][key]

    def __setitem__(self, kind_key: tuple[str, str], sid: int) -> None:
        kind, key = kind_key
        self._by_kind.setdefault(kind, {})[key] = sid

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for kind, ids in list(self._by_kind.items()):
            for key in list(ids):
                yield kind, key

    def __len__(self) -> int:
        return sum(len(ids) for ids in list(self._by_kind.values()))


class Store:
    """Open with `Store.open(path)`; raises `StoreUnavailable` for a file that cannot be used."""

    def __init__(self, path: str, writer: sqlite3.Connection, reader: sqlite3.Connection) -> None:
        self.path = path
        self.home = LEGACY_HOME  # `use_home` names the home this store answers for
        self._writer = writer
        self._reader = reader
        self._write_lock = threading.Lock()
        self._read_lock = self._write_lock if writer is reader else threading.Lock()
        self.series_ids = SeriesIds()

    @classmethod
    def open(cls, path: str, home: str | None = None) -> Store:
        try:
            if path == ":memory:":
                conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
                store = cls(path, conn, conn)
            else:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
                writer = sqlite3.connect(path, timeout=2.0, check_same_thread=False, isolation_level=None)
                writer.execute("PRAGMA journal_mode=WAL")
                writer.execute("PRAGMA synchronous=NORMAL")
                writer.execute(f"PRAGMA journal_size_limit={WAL_LIMIT_BYTES}")
                reader = sqlite3.connect(path, timeout=2.0, check_same_thread=False, isolation_level=None)
                for conn in (writer, reader):
                    # 1 MB of page cache each (SQLite's default is 2 MB): the OS caches the file anyway,
                    # and a home server's memory is better spent elsewhere (bench sections 4 and 7).
                    conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
                store = cls(path, writer, reader)
            store._create()
            if home is not None:
                store.use_home(home)
            return store
        except (sqlite3.Error, OSError) as exc:
            raise StoreUnavailable(explain(exc, path)) from None

    def _create(self) -> None:
        w = self._writer
        w.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID")
        # The version is read and the file migrated under one write lock: two servers starting on an old
        # file at once migrate it once.
        with transaction(w, "BEGIN IMMEDIATE"):
            row = w.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is not None and row[0] == "2":
                for statement in MIGRATE_2_TO_3.split(";"):
                    if statement.strip():
                        w.execute(statement)
                log.info("history store migrated to schema 3 (homes)", extra={"path": self.path})
            elif row is not None and row[0] != str(SCHEMA_VERSION):
                raise sqlite3.DatabaseError(f"schema version {row[0]} is not {SCHEMA_VERSION}")
        w.executescript(SCHEMA)
        if row is None:
            w.execute("INSERT OR IGNORE INTO meta VALUES('schema', ?)", (str(SCHEMA_VERSION),))
        w.execute("PRAGMA quick_check(1)").fetchone()  # a damaged file fails here, not on the first query
        self._forget_codes()
        self._load_series()

    def _forget_codes(self) -> None:
        """Lock codes an earlier zwave-mcp kept (User Code `userCode`/`adminCode` values: every code of the
        lock, and each change's old and new code) are erased from the file: their rows deleted, the pages
        they were on zeroed (`secure_delete`) and the write-ahead log emptied. Nothing writes them anymore
        (the picture never holds a code), so this finds something once at most."""
        w = self._writer
        candidates = w.execute(
            f"SELECT id, key FROM series WHERE kind='value' AND (key GLOB '*-{CC.USER_CODE}-*' OR key GLOB '*-{CC.USER_CREDENTIAL}-*')"
        ).fetchall()
        doomed = [(sid,) for sid, key in candidates if _is_code_key(key)]
        if not doomed:
            return
        w.execute("PRAGMA secure_delete=ON")
        try:
            with transaction(w):
                w.executemany("DELETE FROM changes WHERE series=?", doomed)
                w.executemany("DELETE FROM latest WHERE series=?", doomed)
                w.executemany("DELETE FROM series WHERE id=?", doomed)
        finally:
            w.execute("PRAGMA secure_delete=OFF")
        if self.path != ":memory:":
            w.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        log.warning(
            "lock codes kept by an earlier version were erased from the history file",
            extra={"series": len(doomed)},
        )

    def _load_series(self) -> None:
        ids = SeriesIds()
        with self._write_lock:
            for sid, kind, key in self._writer.execute(
                "SELECT id, kind, key FROM series WHERE home=?", (self.home,)
            ):
                ids[(kind, key)] = sid
        self.series_ids = ids  # one assignment: a reader sees the old home's ids or the new one's

    def use_home(self, home: str, *, adopt: bool = True) -> None:
        """Answer for `home` from now on (the writer's thread); the first home adopts a legacy file's rows
        (not when `adopt` is False: a reader of another writer's file changes nothing in it)."""
        with self._write_lock:
            w = self._writer
            adopted = w.execute("SELECT value FROM meta WHERE key='legacy_home'").fetchone()
            if adopt and adopted is None and home != LEGACY_HOME:
                with transaction(w):
                    moved = w.execute(
                        "UPDATE OR IGNORE series SET home=? WHERE home=?", (home, LEGACY_HOME)
                    ).rowcount
                    w.execute("UPDATE outcomes SET home=? WHERE home=?", (home, LEGACY_HOME))
                    w.execute("INSERT INTO meta VALUES('legacy_home', ?)", (home,))
                if moved:
                    log.info(
                        "history rows from before homes were kept now belong to this home",
                        extra={"home": home, "series": moved},
                    )
            self.home = home
        self._load_series()

    @property
    def named(self) -> bool:
        """Has a load named the home this store answers for?"""
        return self.home != LEGACY_HOME

    def catch_up(self) -> None:
        """A reader's store learns the series another process (the service) added since it last looked."""
        with self._read_lock:
            known = max(self.series_ids.values(), default=0)
            added = self._reader.execute(
                "SELECT id, kind, key FROM series WHERE home=? AND id>?", (self.home, known)
            ).fetchall()
        for sid, kind, key in added:
            self.series_ids[(kind, key)] = sid

    # ---- who writes (see writer.py) -----------------------------------------------------------

    @staticmethod
    def writer_of(path: str) -> Writer | None:
        """The writer a history file names, read without opening it for writing (None: no file, no row,
        or one that cannot be read: the store's own opening will say why)."""
        if path == ":memory:" or not Path(path).is_file():
            return None
        try:
            with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2.0)) as conn:
                row = conn.execute("SELECT value FROM meta WHERE key=?", (WRITER_KEY,)).fetchone()
        except sqlite3.Error:
            return None
        return Writer.from_json(row[0] if row else None)

    def writer(self) -> Writer | None:
        with self._read_lock:
            row = self._reader.execute("SELECT value FROM meta WHERE key=?", (WRITER_KEY,)).fetchone()
        return Writer.from_json(row[0] if row else None)

    def claim_writer(self, me: Writer, now_ms: int) -> Writer | None:
        """Become the file's one writer, unless another live one holds it: then that one is returned."""
        with self._write_lock, transaction(self._writer, "BEGIN IMMEDIATE") as w:
            row = w.execute("SELECT value FROM meta WHERE key=?", (WRITER_KEY,)).fetchone()
            holder = Writer.from_json(row[0] if row else None)
            if holder is not None and not holder.is_me() and is_live(holder, now_ms):
                return holder
            w.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (WRITER_KEY, me.to_json()))
        return None

    def beat(self, me: Writer, now_ms: int) -> None:
        """The writer's heartbeat (only while the row is still its own)."""
        self._mine("UPDATE meta SET value=?", (replace(me, beat_ms=now_ms).to_json(),), me)

    def release_writer(self, me: Writer) -> None:
        self._mine("DELETE FROM meta", (), me)

    def _mine(self, statement: str, params: tuple[Any, ...], me: Writer) -> None:
        """`statement` on the writer row, if it is `me`'s."""
        with self._write_lock:
            self._writer.execute(
                f"{statement} WHERE key=? AND json_extract(value, '$.pid')=? AND json_extract(value, '$.host')=?",
                (*params, WRITER_KEY, me.pid, me.host),
            )

    def close(self) -> None:
        for conn in {id(self._writer): self._writer, id(self._reader): self._reader}.values():
            with suppress(sqlite3.Error):
                conn.close()

    # ---- writing (one thread) ------------------------------------------------------------------

    def series_id(self, kind: str, key: str, node: int | None) -> int:
        sid = self.series_ids.get((kind, key))
        if sid is None:
            home = self.home
            self._writer.execute(
                "INSERT OR IGNORE INTO series(home, kind, key, node) VALUES(?, ?, ?, ?)",
                (home, kind, key, node),
            )
            sid = int(
                self._writer.execute(
                    "SELECT id FROM series WHERE home=? AND kind=? AND key=?", (home, kind, key)
                ).fetchone()[0]
            )
            self.series_ids[(kind, key)] = sid
        return sid

    def latest(self) -> LatestValues:
        """Per series (new as JSON, at, seen): what the recorder compares new reports with."""
        with self._read_lock:
            return LatestValues.of(self._reader.execute("SELECT series, new, at, seen FROM latest"))

    def write(
        self,
        changes: Sequence[tuple[int, int, str | None, str | None, float | None]],
        latest: Iterable[tuple[int, int | None, str | None, int | None]],
        outcomes: Sequence[tuple[Any, ...]],
    ) -> None:
        """One transaction: changes (series, at, old, new, num), latest (series, at, new, seen), outcomes."""
        with self._write_lock, transaction(self._writer) as w:
            if changes:
                w.executemany("INSERT OR IGNORE INTO changes VALUES(?, ?, ?, ?, ?)", changes)
            w.executemany("INSERT OR REPLACE INTO latest VALUES(?, ?, ?, ?)", latest)
            if outcomes:
                w.executemany(
                    f"INSERT INTO outcomes({OUTCOME_COLUMNS}, home) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(*row, self.home) for row in outcomes],
                )

    def used_bytes(self) -> int:
        w = self._writer
        page_size = w.execute("PRAGMA page_size").fetchone()[0]
        pages = (
            w.execute("PRAGMA page_count").fetchone()[0] - w.execute("PRAGMA freelist_count").fetchone()[0]
        )
        return int(pages * page_size)

    def prune(self, keep_days: float, max_bytes: int | None, now_ms: int | None = None) -> int:
        """Delete changes older than `keep_days`, then the oldest tenth at a time while over `max_bytes`."""
        now_ms = int(time.time() * 1000) if now_ms is None else now_ms
        cutoff = now_ms - int(keep_days * 86_400_000)
        with self._write_lock, transaction(self._writer) as w:
            aged = w.execute("DELETE FROM changes WHERE at < ?", (cutoff,)).rowcount
            aged += w.execute("DELETE FROM outcomes WHERE at < ?", (cutoff,)).rowcount
        return self._cut_log(aged + self._delete_oldest(max_bytes))

    def prune_size(self, max_bytes: int | None) -> int:
        """Delete the oldest changes, a tenth at a time, while the store is over `max_bytes`."""
        return self._cut_log(self._delete_oldest(max_bytes))

    def _delete_oldest(self, max_bytes: int | None) -> int:
        deleted = 0
        while max_bytes is not None and self.used_bytes() > max_bytes:
            with self._write_lock, transaction(self._writer) as w:
                total = w.execute("SELECT count(*) FROM changes").fetchone()[0]
                if total == 0:
                    break
                # The oldest reports go first.
                edge = w.execute(
                    "SELECT at FROM changes ORDER BY at LIMIT 1 OFFSET ?", (max(1, total // 10),)
                ).fetchone()
                cut = edge[0] if edge else 2**62
                gone = w.execute("DELETE FROM changes WHERE at < ?", (cut,)).rowcount
                if gone == 0:  # one instant holds a tenth of everything: take that instant too
                    gone = w.execute("DELETE FROM changes WHERE at <= ?", (cut,)).rowcount
                deleted += gone
        return deleted

    def _cut_log(self, deleted: int) -> int:
        """After a prune (a transaction as big as what it deleted): the log written back and emptied now, not
        left at that size until the next checkpoint (`WAL_LIMIT_BYTES` cuts it then). Nothing deleted,
        nothing to cut; returns `deleted`."""
        if deleted and self.path != ":memory:":
            with self._write_lock:
                self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        return deleted

    # ---- reading (any thread) ------------------------------------------------------------------

    def rows(
        self,
        series: Sequence[int],
        start_ms: int,
        end_ms: int,
        *,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[Row]:
        """Changes of these series with start ≤ at < end, oldest first (or newest first)."""
        order = "DESC" if newest_first else "ASC"
        found: list[tuple[int, int, str | None, str | None]] = []
        # A whole house has more series than one statement takes parameters: ask in chunks (each uses
        # the (series, at) key), then merge.
        for i in range(0, len(series), CHUNK):
            chunk = series[i : i + CHUNK]
            sql = (
                f"SELECT series, at, old, new FROM changes WHERE series IN ({','.join('?' * len(chunk))}) "
                f"AND at >= ? AND at < ? ORDER BY at {order}"
            )
            params: list[Any] = [*chunk, start_ms, end_ms]
            if limit is not None:
                sql += " LIMIT ?"
                params.append(limit)
            with self._read_lock:
                found += self._reader.execute(sql, params).fetchall()
        if len(series) > CHUNK:
            found.sort(key=lambda r: r[1], reverse=newest_first)
            if limit is not None:
                found = found[:limit]
        return [Row(s, at, _decode(old), _decode(new)) for s, at, old, new in found]

    def numbers(self, series: int, start_ms: int, end_ms: int) -> list[tuple[int, float]]:
        """(at, number) of one numeric series in [start, end), plus the last one before start (a baseline)."""
        with self._read_lock:
            before = self._reader.execute(
                "SELECT at, num FROM changes WHERE series=? AND at < ? AND num IS NOT NULL "
                "ORDER BY at DESC LIMIT 1",
                (series, start_ms),
            ).fetchall()
            inside = self._reader.execute(
                "SELECT at, num FROM changes WHERE series=? AND at >= ? AND at < ? AND num IS NOT NULL "
                "ORDER BY at",
                (series, start_ms, end_ms),
            ).fetchall()
        return [(int(a), float(n)) for a, n in before + inside]

    def latest_of(self, series: Sequence[int]) -> dict[int, tuple[Any, int | None, int | None]]:
        """series → (last value, its time, last report time)."""
        found: list[tuple[int, str | None, int | None, int | None]] = []
        for i in range(0, len(series), CHUNK):
            chunk = list(series[i : i + CHUNK])
            with self._read_lock:
                found += self._reader.execute(
                    f"SELECT series, new, at, seen FROM latest WHERE series IN ({','.join('?' * len(chunk))})",
                    chunk,
                ).fetchall()
        return {s: (_decode(new), at, seen) for s, new, at, seen in found}

    def outcomes(
        self, device_keys: Sequence[str] | None, start_ms: int, end_ms: int, limit: int
    ) -> list[Outcome]:
        params: list[Any] = [self.home, start_ms, end_ms]
        where = "home = ? AND at >= ? AND at < ?"
        wanted = None if device_keys is None else set(device_keys)
        if wanted is not None and len(wanted) <= CHUNK:
            where += f" AND device_key IN ({','.join('?' * len(wanted))})"
            params += list(wanted)
        with self._read_lock:
            found = self._reader.execute(
                f"SELECT {OUTCOME_COLUMNS} FROM outcomes WHERE {where} ORDER BY at DESC", params
            ).fetchall()
        # Many keys (a whole house): the outcomes of the period, filtered here.
        found = [row for row in found if wanted is None or row[3] in wanted][:limit]
        return [
            Outcome(at, tool, action, key, device, _decode(value), outcome, reason)
            for at, tool, action, key, device, value, outcome, reason in found
        ]

    def count(self) -> int:
        with self._read_lock:
            return int(self._reader.execute("SELECT count(*) FROM changes").fetchone()[0])


def outcome_row(record: Mapping[str, Any], now_ms: int) -> tuple[Any, ...]:
    """An outcome mapping (see `Recorder.record_outcome`) as an `outcomes` row."""
    at = record.get("time")
    at_ms = int(at * 1000) if isinstance(at, int | float) and not isinstance(at, bool) else now_ms

    def text(name: str) -> str | None:
        value = record.get(name)
        return None if value is None else str(value)[:300]

    return (
        at_ms,
        text("tool") or "",
        text("action") or "",
        text("device_key"),
        text("device"),
        to_json(record.get("value")),
        text("outcome") or "",
        text("reason"),
    )
