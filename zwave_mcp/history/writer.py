"""Who writes the history file: one writer (the home service), many readers (stdio servers beside it).

The service claims the file with a row in the store's `meta` table (`Writer`: its pid, host, since when
it has been watching, its last heartbeat) and beats every `BEAT_S` while it runs. A server that opens the
file and finds a live writer there reads the service's history and writes none of its own. The rule for a
stale writer (`is_live`): no heartbeat for `STALE_S`, or a writer on this host whose process is gone (a
service killed with SIGKILL, a crashed container); then the file is free again. Pure, no I/O but the
process check, which is injectable.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable
from dataclasses import asdict, dataclass

BEAT_S = 10.0
STALE_S = 3 * BEAT_S  # three missed heartbeats: the writer is gone (a host asleep, a process frozen)
META_KEY = "writer"


@dataclass(frozen=True, slots=True)
class Writer:
    """The process writing the file. Times are ms since the epoch."""

    pid: int
    host: str
    since_ms: int  # since when it has been watching the home
    beat_ms: int

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | None) -> Writer | None:
        """The writer a meta row names; None for none or a row that does not fit (nobody holds it)."""
        if not text:
            return None
        try:
            body = json.loads(text)
            return cls(int(body["pid"]), str(body["host"]), int(body["since_ms"]), int(body["beat_ms"]))
        except (ValueError, KeyError, TypeError):
            return None

    def is_me(self) -> bool:
        return self.pid == os.getpid() and self.host == this_host()


def this_host() -> str:
    return socket.gethostname()


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def is_live(
    writer: Writer | None,
    now_ms: int,
    *,
    host: str | None = None,
    alive: Callable[[int], bool] = pid_alive,
) -> bool:
    """Does `writer` still hold the file at `now_ms`? (See the module's stale-writer rule.)"""
    if writer is None or now_ms - writer.beat_ms > STALE_S * 1000:
        return False
    return writer.host != (host or this_host()) or alive(writer.pid)
