"""Issue 36, item 4 for lock users: a keypad code waiting for the person's yes holds no device, so "lock
the side door" answers meanwhile, and the users are read again after the answer."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import mcp_types
import pytest
from mcp import Client

from tests.integration.mcp_harness import call, settings_for, wait_until_healthy
from tests.integration.test_lock_users import side_users
from zwave_mcp.server.build import build_server
from zwave_mcp.simulator import Simulator

pytestmark = pytest.mark.anyio


@pytest.fixture
def sim(simulator_factory: Any) -> Simulator:
    sim: Simulator = simulator_factory(house="captured+locks")
    return sim


async def test_the_lock_answers_while_a_new_code_waits_for_a_yes(mosquitto: Any, sim: Simulator) -> None:
    asked, answer = asyncio.Event(), asyncio.Event()

    async def person(_context: Any, _params: Any) -> mcp_types.ElicitResult:
        asked.set()
        await answer.wait()
        return mcp_types.ElicitResult(action="accept", content={"confirm": True})

    server = build_server(settings_for(mosquitto, sim))
    args = {"deviceName": "side door", "action": "add", "name": "Dave", "pin": "5150"}
    async with (
        Client(server, mode="legacy", elicitation_callback=person) as asking,
        Client(server) as other,
    ):
        await wait_until_healthy(other)
        adding = asyncio.create_task(call(asking, "manage_lock_users", args))
        with anyio.fail_after(10):
            await asked.wait()
        with anyio.fail_after(10):  # held by the waiting code before: no answer until the person's yes
            locked = await call(other, "control_zwave_device", {"deviceName": "side door", "action": "lock"})
        assert not locked.is_error and locked.outcome == "confirmed", locked.text
        answer.set()
        done = await adding
    assert done.outcome == "confirmed" and side_users(sim)[4]["pin"] == "5150", done.text
