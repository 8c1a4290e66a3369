"""Resources say what the tools say when the service is down: no empty list, no stale "Alive"."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from tests.integration.mcp_harness import call, connected, settings_for
from zwave_mcp.server.resource_updates import DEVICES_URI, device_uri

pytestmark = pytest.mark.integration


async def test_after_a_last_will_reads_fail_like_the_tools_and_statuses_are_unknown(
    mosquitto: Any, simulator_factory: Any
) -> None:
    sim = simulator_factory()
    async with connected(settings_for(mosquitto, sim)) as client:
        listed = await client.read_resource(DEVICES_URI)
        assert '"Alive"' in listed.contents[0].text

        await asyncio.to_thread(sim.crash)  # the broker publishes zwave-js-ui's last will
        for _ in range(100):
            health = await call(client, "check_zwave_health")
            if not health.result["healthy"]:
                break
            await asyncio.sleep(0.02)
        tool = await call(client, "list_zwave_devices")
        assert tool.is_error and "last will" in tool.error

        for uri in (DEVICES_URI, device_uri("3")):
            with pytest.raises(MCPError) as caught:
                await client.read_resource(uri)
            assert str(caught.value) == tool.error, uri

        # The picture itself no longer claims anything about the nodes (health, history, everything reads it).
        nodes = health.result
        assert "Alive" not in str(nodes.get("nodes", nodes)), nodes

        await asyncio.to_thread(sim.start)  # back: the reload and its node statuses bring "Alive" again
        text = ""
        for _ in range(250):
            with contextlib.suppress(MCPError):
                text = (await client.read_resource(DEVICES_URI)).contents[0].text
            if '"Alive"' in text:
                break
            await asyncio.sleep(0.02)
        assert '"Alive"' in text
