"""The first minutes on the simulated house (issue 36, item 15): one motion is one event, and a house started
a minute ago does not have a battery "read 5 days ago"."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from tests.integration.mcp_harness import call, connected, settings_for
from zwave_mcp.simulator import Simulator

pytestmark = pytest.mark.integration


async def test_one_motion_is_one_event(mosquitto: Any, simulator_factory: Any) -> None:
    sim: Simulator = simulator_factory()
    async with connected(settings_for(mosquitto, sim)) as client:
        sim._set_motion(sim.nodes[7], True)  # the Garage Motion sensor: its notification and binary sensor
        args = {"minutes": 1, "deviceName": "garage motion"}

        async def both_values_heard() -> list[dict[str, Any]]:
            state = await call(client, "get_device_state", {"deviceName": "garage motion"})
            values = {v["valueId"]: v["value"] for v in state.result["values"]}
            if (
                values.get("7-48-0-Motion") is True
                and values.get("7-113-0-Home Security-Motion sensor status") == 8
            ):
                return list((await call(client, "get_recent_events", args)).result["events"])
            return []

        events: list[dict[str, Any]] = []
        for _ in range(300):
            events = await both_values_heard()
            if events:
                break
            await anyio.sleep(0.01)
        motion = [e for e in events if "motion" in e["what"]]
        assert len(motion) == 1, events


async def test_a_battery_of_a_house_started_now_was_read_minutes_ago_not_days(
    mosquitto: Any, simulator_factory: Any
) -> None:
    sim: Simulator = simulator_factory()
    async with connected(settings_for(mosquitto, sim)) as client:
        answer = await call(client, "get_device_sensor_data", {"deviceName": "bedroom sensor"})
        battery = next(r for r in answer.result["readings"] if r["quantity"] == "battery")
        assert battery["ageSeconds"] is not None and battery["ageSeconds"] < 3600, battery
