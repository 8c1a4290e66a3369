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


async def test_api_replies_do_not_wait_for_the_value_lane(
    mosquitto: Any, simulator_factory: Callable[..., Simulator]
) -> None:
    """A value lane that has fallen behind (here: not read at all) does not hold up API replies, and
    once it is read again the picture ends on the last published values."""
    sim = simulator_factory()
    gw = ZwaveGateway(Settings(mqtt_url=mosquitto.url, prefix=sim.config.prefix, api_timeout=3.0))
    gw.start()
    loop = asyncio.get_running_loop()
    try:
        assert await gw.wait_ready(10), gw.unavailable_reason()
        node = sim.nodes[8]
        meter = node["values"]["50-0-value-66049"]
        value_id = f"8-{meter['commandClass']}-0-value-66049"
        assert gw.inventory.value(value_id) is not None
        sock = gw.transport._sock
        loop.remove_reader(sock)  # the value lane stops reading: its backlog grows in the broker
        try:
            for watts in range(1, 501):
                sim.set_value(node, meter, float(watts))
            started = time.monotonic()
            reply = await gw.call("getInfo")
            assert reply.success and time.monotonic() - started < 2.0
        finally:
            loop.add_reader(sock, gw.transport._readable)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            current = gw.inventory.value(value_id)
            if current is not None and current.value == 500.0:
                break
            await asyncio.sleep(0.02)
        assert gw.inventory.value(value_id).value == 500.0  # type: ignore[union-attr]
    finally:
        await gw.stop()


async def test_every_log_line_of_a_connection_names_the_connection(
    mosquitto: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The value lane and the control lane log alike ("MQTT connected …", "MQTT disconnected: stopped"):
    each line says which connection it is about, in its `connection` field and in its text."""
    import logging

    caplog.set_level(logging.DEBUG, logger="zwave_mcp.gateway.mqtt")
    gw = ZwaveGateway(Settings(mqtt_url=mosquitto.url, prefix="nobody-home", api_timeout=0.5))
    gw.start()
    try:
        assert await gw.transport.wait_connected(5) and await gw.control.wait_connected(5)
    finally:
        await gw.stop()
    records = [r for r in caplog.records if r.name == "zwave_mcp.gateway.mqtt"]
    assert records
    for record in records:
        name = getattr(record, "connection", None)
        assert name in ("values", "api"), record.getMessage()
        assert record.getMessage().startswith(f"[{name}] MQTT "), record.getMessage()
    for line in ("MQTT connected to", "MQTT disconnected: stopped"):
        saying = sorted(r.connection for r in records if line in r.getMessage())  # type: ignore[attr-defined]
        assert saying == ["api", "values"], (line, saying)
