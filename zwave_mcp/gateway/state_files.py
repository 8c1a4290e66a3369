"""The small files zwave-mcp keeps beside the history (`lock-names.json`), safe with two writers.

Two servers may share one state folder (Claude Desktop and Claude Code on one machine, each starting its
own zwave-mcp). A save that wrote its own picture of a file would undo the other's last change, so every
save is `update_json(path, change)`: under an exclusive lock on a sibling `<name>.lock` file (`fcntl.flock`),
it reads the file as it is now, lets `change` apply this server's edits to that, and writes the result to a
new file in the same folder that replaces the old one at once (`os.replace`), so a reader (who takes no
lock) sees the old file or the new one, never half of one.

On Windows (no `fcntl`) no lock is taken: the save still re-reads, merges and replaces at once, so only two
saves within the same few milliseconds can lose one's edit.

The history and the service's auth store (SQLite, which locks itself) and the audit file (appended with `O_APPEND`, one write a line) are
not written here. Here, in the gateway's room, so that every room that keeps a file can use it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from zwave_mcp.config import read_small_file
from zwave_mcp.safetext import loads_json

try:
    import fcntl
except ImportError:  # Windows: see the module docstring
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)


class StateFileError(OSError):
    """The file is there but cannot be read as what it should hold (too large, not JSON)."""


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the exclusive lock of `path` (its sibling `<name>.lock`) for the block; waits for another
    holder (another server's save, a few milliseconds)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if fcntl is None:
        yield
        return
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def read_json(path: Path, max_bytes: int) -> Any:
    """The file's JSON, None when there is no file. Raises `OSError` when it cannot be read and
    `StateFileError` when it is larger than `max_bytes` or not JSON."""
    try:
        raw = read_small_file(path, max_bytes)
    except FileNotFoundError:
        return None
    if len(raw) > max_bytes:
        raise StateFileError(f"larger than {max_bytes} bytes")
    try:
        return loads_json(raw)
    except (ValueError, RecursionError) as exc:
        raise StateFileError(f"not JSON ({exc})") from None


def update_json(path: Path, change: Callable[[Any], Any], max_bytes: int) -> Any:
    """Under the lock: `change(what the file holds now)` (None for no file) gives what it holds next,
    written atomically. Returns what was written. A file that cannot be read as JSON is replaced (after
    one log line: a broken file would otherwise stop every later save); `OSError` when it cannot be
    written."""
    with locked(path):
        try:
            current = read_json(path, max_bytes)
        except StateFileError as exc:
            log.warning("state file unreadable, written anew", extra={"path": str(path), "why": str(exc)})
            current = None
        body = change(current)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                json.dump(body, file, ensure_ascii=False, indent=1, sort_keys=True)
                file.flush()
                os.fsync(file.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return body
