"""Issue 36, item 7 on the broker: a deny entry written as people say the device covers it, and an entry
that covers nothing is said by check_zwave_health, zwave://health and `zwave-mcp config`, not only on
stderr."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.integration.mcp_harness import call, connected, settings_for
from zwave_mcp.simulator import FAST, Simulator, capture_config

pytestmark = pytest.mark.integration

UNMATCHED = "'Frnt Dor' on the deny list (ZWAVE_MCP_DENY) matches no device"


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(config=capture_config("a", timing=FAST, periodic=False))


async def test_spoken_entries_cover_their_devices_and_unmatched_ones_are_said(
    mosquitto: Any, sim: Simulator
) -> None:
    from zwave_mcp.commands.config_check import policy_entry_report

    settings = settings_for(mosquitto, sim, deny="front door, Frnt Dor")
    async with connected(settings) as client:
        refused = await call(client, "control_zwave_device", {"deviceName": "front door", "action": "unlock"})
        assert refused.is_error and "'front door' is on the deny list" in refused.error, refused.text
        health = await call(client, "check_zwave_health", {})
        assert health.result["policyEntriesMatchingNoDevice"] == [UNMATCHED]
        assert health.text.endswith(f"; the policy entry {UNMATCHED}."), health.text
        read = await client.read_resource("zwave://health")
        document = json.loads(read.contents[0].text)  # type: ignore[union-attr]
        assert document["policyEntriesMatchingNoDevice"] == [UNMATCHED]
    report = await policy_entry_report(settings, timeout=5.0)
    assert report == {"policy_entries_matching_no_device": [UNMATCHED]}
