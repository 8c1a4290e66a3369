"""Issue 30: changes that depend on the current state (toggle, "+10 %") are serialized per device, through
the whole stack (MCP client → server → gate → Mosquitto → simulator): two at once act one after the other,
each on the state the other left."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest

from tests.integration.mcp_harness import Answer, call, connected, settings_for, sim_value
from zwave_mcp.simulator import FAST, Simulator, capture_config

pytestmark = pytest.mark.integration

CONTROL = "control_zwave_device"
BINARY_SWITCH, MULTILEVEL_SWITCH = 37, 38


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(config=capture_config("a", timing=FAST, periodic=False))


async def at_once(client: Any, *calls: dict[str, Any]) -> list[Answer]:
    answers: list[Answer | None] = [None] * len(calls)

    async def one(i: int, args: dict[str, Any]) -> None:
        answers[i] = await call(client, CONTROL, args)

    async with anyio.create_task_group() as group:
        for i, args in enumerate(calls):
            group.start_soon(one, i, args)
    return [a for a in answers if a is not None]


async def test_two_toggles_at_once_turn_it_on_and_off_again(mosquitto: Any, sim: Simulator) -> None:
    assert sim_value(sim, 2, BINARY_SWITCH, "currentValue") is False
    toggle = {"deviceName": "kitchen light", "action": "toggle"}
    async with connected(settings_for(mosquitto, sim)) as client:
        answers = await at_once(client, toggle, toggle)
    assert [a.outcome for a in answers] == ["confirmed", "confirmed"], [a.text for a in answers]
    # One turned it on, the other off: as pressing the switch twice does.
    assert sorted(a.result["target"] for a in answers) == [False, True], [a.text for a in answers]
    assert sim_value(sim, 2, BINARY_SWITCH, "currentValue") is False


async def test_two_relative_dims_at_once_add_up(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        start = await call(client, CONTROL, {"deviceName": "living room lamp", "action": "dim", "level": 30})
        assert start.outcome == "confirmed", start.text
        brighter = {"deviceName": "living room lamp", "action": "dim", "level": "+10"}
        answers = await at_once(client, brighter, brighter)
    assert [a.outcome for a in answers] == ["confirmed", "confirmed"], [a.text for a in answers]
    assert sim_value(sim, 3, MULTILEVEL_SWITCH, "currentValue") == 50, [a.text for a in answers]


async def test_a_group_toggle_waits_for_a_device_toggle(mosquitto: Any, sim: Simulator) -> None:
    toggle = {"deviceName": "kitchen light", "action": "toggle"}
    async with connected(settings_for(mosquitto, sim)) as client, anyio.create_task_group() as group:
        group.start_soon(call, client, CONTROL, toggle)
        group.start_soon(call, client, "control_zwave_group", {"target": "kitchen light", "action": "toggle"})
    assert sim_value(sim, 2, BINARY_SWITCH, "currentValue") is False
