"""A lock of the old Lock command class alone, through the MCP tools, the gate and the simulator: locked
and unlocked by its one "locked" value, unlocking confirmed first, the state said from the device's report.

The lock is the Kwikset HC620 (a real dump, fixtures/devices) with its Door Lock values taken away: no
public dump of a lock with the Lock command class alone was found (see tests/unit/test_old_lock.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.integration.mcp_harness import call, connected, house_of_dumps, settings_for, sim_value
from zwave_mcp.simulator import SimConfig, Simulator
from zwave_mcp.zwave.classes import CC

pytestmark = pytest.mark.integration

C = "control_zwave_device"
NODE = 14


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    house = house_of_dumps([("lock_home_connect_620_state.json", "Back Door", "Kitchen")])
    for node in house:
        if node["id"] == NODE:
            node["values"] = {k: v for k, v in node["values"].items() if v["commandClass"] != CC.DOOR_LOCK}
    return simulator_factory(config=SimConfig.fast(), house=house)


async def test_the_old_lock_unlocks_once_confirmed_and_locks_freely(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        state = await call(client, "get_device_state", {"deviceName": "back door"})
        assert state.text.startswith("Back Door is locked"), state.text
        asked = await call(client, C, {"deviceName": "back door", "action": "unlock"})
        assert asked.outcome == "needs_confirmation", asked.text
        assert sim_value(sim, NODE, CC.LOCK, "locked") is True
        token = asked.result["confirmationToken"]
        unlocked = await call(
            client, C, {"deviceName": "back door", "action": "unlock", "confirmationToken": token}
        )
        assert unlocked.outcome == "confirmed", unlocked.text
        assert "unlocked" in unlocked.text and sim_value(sim, NODE, CC.LOCK, "locked") is False
        locked = await call(client, C, {"deviceName": "back door", "action": "lock"})
        assert locked.outcome == "confirmed", locked.text
        assert sim_value(sim, NODE, CC.LOCK, "locked") is True
