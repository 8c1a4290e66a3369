"""A client's first call right after start waits for the first load instead of answering 'unavailable'."""

import time

from mcp import Client

from zwave_mcp.config import load_settings
from zwave_mcp.server.build import build_server


async def test_first_call_after_start_gets_the_house_not_unavailable(mosquitto, simulator_factory):
    sim = simulator_factory()
    settings = load_settings({"mqtt_url": mosquitto.url, "prefix": sim.config.prefix}, environ={})
    async with Client(build_server(settings)) as client:
        result = await client.call_tool("list_zwave_devices", {})
    assert not result.is_error, result.content[0].text
    assert result.structured_content["result"]["total"] == 11


async def test_no_broker_is_reported_at_once_not_after_the_grace_period():
    settings = load_settings({"mqtt_url": "mqtt://127.0.0.1:1"}, environ={})
    started = time.monotonic()
    async with Client(build_server(settings)) as client:
        result = await client.call_tool("list_zwave_devices", {})
    assert result.is_error
    assert result.content[0].text.startswith("Z-Wave service unavailable: cannot reach the MQTT broker")
    assert time.monotonic() - started < 5
