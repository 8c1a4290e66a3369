"""The 2026-07-28 rounds driven by hand: what a client that alters or replays the request state gets.

The SDK's `Client` runs the retry loop itself; here `allow_input_required=True` hands each round to the
test, which plays a client that is not well-behaved.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import mcp_types
import pytest
from mcp.shared.exceptions import MCPError

from tests.integration.mcp_harness import connected, settings_for, sim_value, wait_for_answer
from tests.integration.test_safety import lock_the_door
from zwave_mcp.simulator import FAST, Simulator, capture_config
from zwave_mcp.zwave.wire import value_key

pytestmark = pytest.mark.integration

C = "control_zwave_device"
YES = mcp_types.ElicitResult(action="accept", content={"confirm": True})


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(config=capture_config("a", timing=FAST, periodic=False))


async def person(_context: Any, _params: Any) -> mcp_types.ElicitResult:
    return YES  # declares elicitation; the rounds below are answered by the test


async def round_(client: Any, args: dict[str, Any], **retry: Any) -> Any:
    return await client.session.call_tool(C, args, allow_input_required=True, **retry)


def level_in(asked: mcp_types.InputRequiredResult) -> int:
    """The level a "set Living Room Lamp … to N?" question names."""
    message = next(iter((asked.input_requests or {}).values())).params.message
    return int(re.search(r" to (\d+)\?", message).group(1))  # type: ignore[union-attr]


def answer(asked: mcp_types.InputRequiredResult, reply: mcp_types.ElicitResult = YES) -> dict[str, Any]:
    (key,) = asked.input_requests or {}
    return {"input_responses": {key: reply}, "request_state": asked.request_state}


async def test_a_relative_change_that_now_means_another_level_is_asked_again(
    mosquitto: Any, sim: Simulator
) -> None:
    """ "+10" meant one level when asked; the lamp moved meanwhile, so it now means another: a new question."""
    settings = settings_for(mosquitto, sim, confirm_devices="Living Room Lamp")
    async with connected(settings, elicitation_callback=person) as client:
        dim = {"deviceName": "living room lamp", "action": "set_level", "level": "+10"}
        first = await round_(client, dim)
        assert isinstance(first, mcp_types.InputRequiredResult)
        assert "set Living Room Lamp" in next(iter(first.input_requests.values())).params.message
        asked_for = level_in(first)
        node = sim.nodes[3]
        sim.set_value(node, node["values"][value_key(38, 0, "currentValue")], 70)
        # Once the server has seen the new level, retry with the old answer.
        await wait_for_answer(
            client, "get_device_state", {"deviceName": "living room lamp"}, lambda a: "70 %" in a.text
        )
        second = await round_(client, dim, **answer(first))
        assert isinstance(second, mcp_types.InputRequiredResult), second
        now_means = level_in(second)
        assert now_means != asked_for and now_means > 70
        assert sim_value(sim, 3, 38, "currentValue") == 70, "nothing was written on the stale yes"
        done = await round_(client, dim, **answer(second))
        assert isinstance(done, mcp_types.CallToolResult) and not done.is_error, done
        assert done.structured_content["result"]["outcome"] == "confirmed"
        assert sim_value(sim, 3, 38, "currentValue") > 70
        assert done.content[0].text == f"Done: Living Room Lamp is now {now_means} %, as the device reported."


async def test_a_replayed_yes_does_not_act_twice(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim), elicitation_callback=person) as client:
        await lock_the_door(client, sim)
        unlock = {"deviceName": "front door", "action": "unlock"}
        first = await round_(client, unlock)
        assert isinstance(first, mcp_types.InputRequiredResult)
        done = await round_(client, unlock, **answer(first))
        assert isinstance(done, mcp_types.CallToolResult) and not done.is_error
        assert sim_value(sim, 5, 98, "currentMode") == 0
        replay = await round_(client, unlock, **answer(first))
        assert isinstance(replay, mcp_types.CallToolResult), "already unlocked: nothing to ask"
        assert replay.structured_content["result"]["outcome"] == "unchanged"  # type: ignore[index]
        await lock_the_door(client, sim)
        replay = await round_(client, unlock, **answer(first))
        assert isinstance(replay, mcp_types.InputRequiredResult), "the same state and yes are asked again"


async def test_changed_arguments_or_an_altered_state_never_reuse_the_yes(
    mosquitto: Any, sim: Simulator
) -> None:
    async with connected(settings_for(mosquitto, sim), elicitation_callback=person) as client:
        await lock_the_door(client, sim)
        unlock = {"deviceName": "front door", "action": "unlock"}
        first = await round_(client, unlock)
        # Another device with the same state: the SDK's own seal binds the arguments and refuses it.
        with pytest.raises(MCPError, match="Invalid or expired requestState"):
            await round_(client, {"deviceName": "garage", "action": "open"}, **answer(first))
        tampered = {**answer(first), "request_state": first.request_state[:-4] + "AAAA"}
        with pytest.raises(MCPError, match="Invalid or expired requestState"):
            await round_(client, unlock, **tampered)
        # An answer without the state is a new question, not a yes.
        bare = await round_(client, unlock, input_responses=answer(first)["input_responses"])
        assert isinstance(bare, mcp_types.InputRequiredResult)
        assert sim_value(sim, 5, 98, "currentMode") == 255
