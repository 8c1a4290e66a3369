"""Work that belongs to a tool call but need not come before its reply: the audit line, history rows, the
call's log line.

`later(fn, *args)` calls `fn(*args)` at once, unless the stdio transport has said it defers (`defer`):
then calls made on the loop's thread are held and run at the server's next idle moment: when it has sent
a request to the gateway and waits for the answer (`network_wait`), or `SOON_S` after a reply is written
(`reply_written`), or `FLUSH_S` at the latest. So neither the reply nor the client's next request waits
behind work whose result the reply does not carry (a client that calls again at once used to find the
server busy writing the previous call's audit and log lines for ~0.3 ms). Nothing is lost: every held
call runs, in order, and one that raises is logged (with its traceback) without stopping the others.
Only the stdio transport defers; in-process servers (tests, `build_server`) run everything at once.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

FLUSH_S = 0.02
"""Longest held work waits when nothing releases it sooner (as `logs.LOG_FLUSH_S`)."""

SOON_S = 0.002
"""After a reply is written, how long held work leaves the loop to a client that calls again at once."""

_held: deque[tuple[Callable[..., object], tuple[Any, ...]]] = deque()
_also: Callable[[], object] | None = None  # another holder drained with ours (the log handler's records)
_loop: asyncio.AbstractEventLoop | None = None
_thread: int | None = None
_timer: asyncio.TimerHandle | None = None


def later(fn: Callable[..., object], *args: Any) -> None:
    """Run `fn(*args)` now, or after the reply being written when the transport defers on this thread."""
    global _timer
    if _loop is None or threading.get_ident() != _thread:
        _run(fn, args)
        return
    _held.append((fn, args))
    if _timer is None:
        _timer = _loop.call_later(FLUSH_S, drain)


def reply_written() -> None:
    """The transport wrote a reply: what is held runs within `SOON_S` (sooner if the server waits)."""
    global _timer
    if _loop is None:
        return
    due = _loop.time() + SOON_S
    if _timer is None or _timer.when() > due:
        if _timer is not None:
            _timer.cancel()
        _timer = _loop.call_at(due, drain)


def network_wait() -> None:
    """The server has sent a request and waits for the answer: the idle moment for what is held."""
    if _loop is not None and threading.get_ident() == _thread:
        drain()


def drain() -> None:
    """Run what is held, in order (work that holds more while draining runs in this drain too), then
    the other holders'."""
    global _timer
    if _timer is not None:
        _timer.cancel()
        _timer = None
    while _held:
        fn, args = _held.popleft()
        _run(fn, args)
    if _also is not None:
        _run(_also, ())


def defer(loop: asyncio.AbstractEventLoop, also: Callable[[], object] | None = None) -> None:
    """From now on, work asked for on this (the calling) thread is held; `also` is drained with it."""
    global _loop, _thread, _also
    _loop, _thread, _also = loop, threading.get_ident(), also


def stop() -> None:
    """Run what waits and stop deferring (the transport is done)."""
    global _loop, _thread, _also
    drain()
    _loop = _thread = _also = None


def _run(fn: Callable[..., object], args: tuple[Any, ...]) -> None:
    try:
        fn(*args)
    except Exception:
        log.exception("work after a reply failed", extra={"work": getattr(fn, "__qualname__", repr(fn))})
