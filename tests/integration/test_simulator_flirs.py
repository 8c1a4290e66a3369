"""Frequently listening devices (FLiRS: most locks, many sirens and blinds) wake for a beam within a
second: zwave-js sends to them at once, so the simulator answers their writes like a listening node's,
not queued until a wake-up as for sleeping battery devices."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import paho.mqtt.publish as publish
import pytest

from tests.conftest import MessageCollector
from tests.integration.mcp_harness import call, connected, settings_for, sim_value
from zwave_mcp.devices.gate import senders as gate_senders
from zwave_mcp.simulator import Simulator, captured_house

pytestmark = pytest.mark.integration

GW = "_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui"
LOCK = 5  # the captured house's Front Door Lock


def flirs_lock_house(frequent: Any) -> list[dict[str, Any]]:
    """The captured house with its lock a battery FLiRS lock, as most real locks are."""
    house = copy.deepcopy(captured_house())
    for node in house:
        if node["id"] == LOCK:
            node.update(isListening=False, isFrequentListening=frequent)
            for key in ("98-0-currentMode", "98-0-targetMode"):
                node["values"][key]["value"] = 0  # unsecured, so both tests change it
    return house


@pytest.mark.parametrize("frequent", [True, "1000ms", "250ms"])
def test_a_write_to_a_flirs_node_is_answered_at_once_not_queued(
    simulator_factory: Callable[..., Simulator],
    collector: Callable[[str], MessageCollector],
    frequent: Any,
) -> None:
    sim = simulator_factory(house=flirs_lock_house(frequent))
    prefix = sim.config.prefix
    replies = collector(f"{prefix}/{GW}/api/writeValue")
    value_id = {"nodeId": LOCK, "commandClass": 98, "endpoint": 0, "property": "targetMode"}
    payload = json.dumps({"args": [value_id, 255]})
    publish.single(f"{prefix}/{GW}/api/writeValue/set", payload, qos=1, hostname=sim.host, port=sim.port)
    reply = replies.wait_topic(f"{prefix}/{GW}/api/writeValue", timeout=2.0).json()
    assert reply["success"] is True and reply["result"]["status"] in (254, 255)
    assert sim.pending_writes(LOCK) == 0
    assert sim.nodes[LOCK]["status"] == "Alive"
    assert sim_value(sim, LOCK, 98, "currentMode") == 255


async def test_locking_a_flirs_lock_is_confirmed_not_queued(
    mosquitto: Any, simulator_factory: Callable[..., Simulator], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gate_senders, "QUEUED_AFTER_S", 0.2)  # a queued write would say so quickly
    sim = simulator_factory(house=flirs_lock_house("1000ms"))
    async with connected(settings_for(mosquitto, sim)) as client:
        locked = await call(
            client, "control_zwave_device", {"deviceName": "front door lock", "action": "lock"}
        )
        assert not locked.is_error, locked.text
        assert locked.outcome == "confirmed", locked.text
        assert sim_value(sim, LOCK, 98, "currentMode") == 255
