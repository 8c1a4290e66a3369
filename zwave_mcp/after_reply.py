"""Work that belongs to a tool call but need not come before its reply: the audit line, history rows, the
call's log line.

`later(fn, *args)` calls `fn(*args)` at once, unless the stdio transport has said it defers (`defer`):
then calls made on the loop's thread wait until the reply being worked on is written (`drain`, which the
transport calls right after each reply), or `FLUSH_S` at the latest. So the reply is not held up by work
whose result it does not carry, and nothing is lost: every held call runs, in order, and one that raises
is logged (with its traceback) without stopping the others. Only the stdio transport defers; in-process
servers (tests, `build_server`) run everything at once, as before.
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
"""Longest held work waits when no reply comes to release it sooner (as `logs.LOG_FLUSH_S`)."""

_held: deque[tuple[Callable[..., object], tuple[Any, ...]]] = deque()
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


def drain() -> None:
    """Run what is held, in order (work that holds more while draining runs in this drain too)."""
    global _timer
    if _timer is not None:
        _timer.cancel()
        _timer = None
    while _held:
        fn, args = _held.popleft()
        _run(fn, args)


def defer(loop: asyncio.AbstractEventLoop) -> None:
    """From now on, work asked for on this (the calling) thread waits for `drain`."""
    global _loop, _thread
    _loop, _thread = loop, threading.get_ident()


def stop() -> None:
    """Run what waits and stop deferring (the transport is done)."""
    global _loop, _thread
    drain()
    _loop = _thread = None


def _run(fn: Callable[..., object], args: tuple[Any, ...]) -> None:
    try:
        fn(*args)
    except Exception:
        log.exception("work after a reply failed", extra={"work": getattr(fn, "__qualname__", repr(fn))})
