"""The gateway's connection behaviour: loading as soon as zwave-js-ui comes online, and API replies that
never wait behind a flood of value updates (the control lane)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from zwave_mcp.config import Settings
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.simulator.simulator import Simulator

pytestmark = pytest.mark.integration


async def test_network_loads_within_a_second_when_zwave_js_ui_comes_online_after_us(
    mosquitto: Any, simulator_factory: Callable[..., Simulator]
) -> None:
    sim = simulator_factory(start=False)
    # A long API timeout, as in real use: the getNodes sent before zwave-js-ui was there is lost.
    gw = ZwaveGateway(Settings(mqtt_url=mosquitto.url, prefix=sim.config.prefix, api_timeout=10.0))
    gw.start()
    try:
        assert await gw.transport.wait_connected(5)
        await asyncio.sleep(0.3)  # our first getInfo/getNodes are out, and nobody listens
        assert not gw.loaded
        started = time.monotonic()
        await asyncio.to_thread(sim.start)
        assert await gw.wait_ready(3), gw.unavailable_reason()
        took = time.monotonic() - started
        assert took < 1.0, f"loaded {took:.2f} s after zwave-js-ui came online"
        assert len(gw.nodes) == len(sim.nodes)
    finally:
        await gw.stop()
