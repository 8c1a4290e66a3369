"""Every value is typed at the gateway's edge (issue 44 item 6), through the tools and across a restart."""

from __future__ import annotations

import json
from typing import Any

import anyio
import paho.mqtt.publish as publish
import pytest

from tests.integration.mcp_harness import call, connected, settings_for
from zwave_mcp.simulator import Simulator

pytestmark = pytest.mark.integration


async def test_an_object_on_a_locks_lock_state_is_dropped_and_the_house_keeps_answering(
    mosquitto: Any, simulator_factory: Any, tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 44 item 6: one report of an object on the lock's "Lock state" (a number) crashed
    get_recent_events and get_last_event for the whole house, the lock's history and its room's, and still
    did after a restart, because the object was stored."""
    sim: Simulator = simulator_factory(house="captured+locks")
    settings = settings_for(mosquitto, sim, history_path=str(tmp_path / "history.sqlite3"))
    events = f"{sim.config.prefix}/_EVENTS/ZWAVE_GATEWAY-{sim.config.name}/node/node_value_updated"
    report = {
        "data": [
            {"id": 12, "name": "Back Door Lock", "location": "Back Entry"},
            {
                "commandClass": 113,
                "endpoint": 0,
                "property": "Access Control",
                "propertyKey": "Lock state",
                "newValue": {"jammed": True},
                "prevValue": 0,
            },
        ]
    }
    for round_ in ("first", "after a restart"):
        async with connected(settings) as client:
            if round_ == "first":
                with caplog.at_level("WARNING", logger="zwave_mcp.gateway.nodes"):
                    publish.single(events, json.dumps(report), hostname=mosquitto.host, port=mosquitto.port)
                    for _ in range(300):
                        if any(
                            "12-113-0-Access Control-Lock state" in r.getMessage() for r in caplog.records
                        ):
                            break
                        await anyio.sleep(0.01)
                dropped = [r.getMessage() for r in caplog.records if "Lock state" in r.getMessage()]
                assert dropped == [
                    "dropped what zwave-js cannot have sent: node 12, value 12-113-0-Access Control-Lock state: "
                    "its new value: an object for a value of type 'number'"
                ], dropped
            for tool, args in (
                ("get_recent_events", {"minutes": 60}),
                ("get_last_event", {"deviceName": "Back Door Lock"}),
                ("get_device_history", {"deviceName": "Back Door Lock"}),
                ("get_device_history", {"deviceName": "Back Entry"}),
                ("get_device_sensor_data", {"deviceName": "Back Door Lock"}),
            ):
                answer = await call(client, tool, args)
                assert "failed unexpectedly" not in answer.text, f"{round_}: {tool}: {answer.text}"
                assert "jammed" not in answer.text.lower(), f"{round_}: {tool}: {answer.text}"
