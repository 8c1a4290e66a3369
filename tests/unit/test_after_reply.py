"""`after_reply`: work held while the stdio transport defers, run in order after the reply; never lost."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from zwave_mcp.stdio import after_reply


async def test_without_a_deferring_transport_work_runs_at_once() -> None:
    done: list[int] = []
    after_reply.later(done.append, 1)
    assert done == [1]


async def test_held_work_runs_in_order_on_drain_and_a_failure_is_logged_not_lost(
    caplog: pytest.LogCaptureFixture,
) -> None:
    done: list[str] = []

    def broken() -> None:
        raise RuntimeError("boom")

    after_reply.defer(asyncio.get_running_loop())
    try:
        after_reply.later(done.append, "audit")
        after_reply.later(broken)
        after_reply.later(done.append, "history")
        assert done == []  # held: the reply is not written yet
        with caplog.at_level(logging.ERROR, logger="zwave_mcp.stdio.after_reply"):
            after_reply.drain()
        assert done == ["audit", "history"]  # the failure stopped nothing after it
        failures = [r for r in caplog.records if r.name == "zwave_mcp.stdio.after_reply"]
        assert len(failures) == 1 and failures[0].exc_info is not None
        after_reply.drain()
        assert done == ["audit", "history"]  # each runs once
    finally:
        after_reply.stop()


async def test_work_from_another_thread_is_not_held_and_stop_runs_what_waits() -> None:
    done: list[str] = []
    after_reply.defer(asyncio.get_running_loop())
    try:
        after_reply.later(done.append, "loop")
        thread = threading.Thread(target=after_reply.later, args=(done.append, "thread"))
        thread.start()
        thread.join()
        assert done == ["thread"]
    finally:
        after_reply.stop()
    assert done == ["thread", "loop"]
    after_reply.later(done.append, "after stop")
    assert done[-1] == "after stop"  # no longer deferring


class _Clock:
    """A loop stand-in for `defer`: its own time, and the timers asked for (nothing runs by itself)."""

    def __init__(self) -> None:
        self.now = 100.0
        self.timers: list[asyncio.TimerHandle] = []
        self.loop = asyncio.new_event_loop()  # what a TimerHandle belongs to; it never runs

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, fn: object) -> asyncio.TimerHandle:
        return self.call_at(self.now + delay, fn)

    def call_at(self, when: float, fn: object) -> asyncio.TimerHandle:
        handle = asyncio.TimerHandle(when, fn, (), self.loop)  # type: ignore[arg-type]
        self.timers.append(handle)
        return handle

    def due(self) -> list[float]:
        return [round(t.when() - self.now, 6) for t in self.timers if not t.cancelled()]


def test_after_a_reply_held_work_leaves_the_loop_to_the_next_request_until_the_server_waits() -> None:
    clock = _Clock()
    done: list[str] = []
    after_reply.defer(clock, also=lambda: done.append("log lines"))  # type: ignore[arg-type]
    try:
        after_reply.later(done.append, "audit")
        assert clock.due() == [after_reply.FLUSH_S]
        after_reply.reply_written()
        # Not at once: a client that calls again right away is served first.
        assert done == [] and clock.due() == [after_reply.SOON_S]
        after_reply.reply_written()
        assert clock.due() == [after_reply.SOON_S]  # one timer, never pushed back
        after_reply.network_wait()  # the next call sent its request: the idle moment
        assert done == ["audit", "log lines"] and clock.due() == []
    finally:
        after_reply.stop()
        clock.loop.close()
