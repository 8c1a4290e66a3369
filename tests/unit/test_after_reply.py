"""`after_reply`: work held while the stdio transport defers, run in order after the reply; never lost."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from zwave_mcp import after_reply


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
        with caplog.at_level(logging.ERROR, logger="zwave_mcp.after_reply"):
            after_reply.drain()
        assert done == ["audit", "history"]  # the failure stopped nothing after it
        failures = [r for r in caplog.records if r.name == "zwave_mcp.after_reply"]
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
