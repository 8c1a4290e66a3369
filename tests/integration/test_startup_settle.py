"""A client's first call right after start waits for the first load instead of answering 'unavailable'."""

import json
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


async def test_the_first_health_check_after_start_waits_for_the_house(mosquitto, simulator_factory):
    # A one-shot client (the Inspector CLI) starts a server per call: its first call is the only one.
    sim = simulator_factory()
    settings = load_settings({"mqtt_url": mosquitto.url, "prefix": sim.config.prefix}, environ={})
    async with Client(build_server(settings)) as client:
        health = await client.call_tool("check_zwave_health", {})
    assert not health.is_error, health.content[0].text
    assert health.structured_content["result"]["healthy"] is True, health.content[0].text
    async with Client(build_server(settings)) as client:
        resource = json.loads((await client.read_resource("zwave://health")).contents[0].text)
    assert resource["ok"] is True and resource["zwaveJsUi"] == "online", resource


async def test_a_wrong_gateway_name_is_said_at_once_not_after_still_loading(mosquitto, simulator_factory):
    sim = simulator_factory()
    settings = load_settings(
        {"mqtt_url": mosquitto.url, "prefix": sim.config.prefix, "gateway_name": "not-my-gateway"},
        environ={},
    )
    started = time.monotonic()
    async with Client(build_server(settings)) as client:
        listed = await client.call_tool("list_zwave_devices", {})
        health = await client.call_tool("check_zwave_health", {})
    said = listed.content[0].text
    assert listed.is_error and "not answering on prefix" in said and "'not-my-gateway'" in said, said
    assert f"one named '{sim.config.name}' publishes on this prefix" in said, said
    assert "still loading" not in health.content[0].text, health.content[0].text
    assert time.monotonic() - started < 5  # the API timeout (10 s) no longer decides when it is said


async def test_a_wrong_prefix_is_said_at_once(mosquitto, simulator_factory):
    simulator_factory()
    settings = load_settings({"mqtt_url": mosquitto.url, "prefix": "nobody_here"}, environ={})
    started = time.monotonic()
    async with Client(build_server(settings)) as client:
        listed = await client.call_tool("list_zwave_devices", {})
    said = listed.content[0].text
    assert listed.is_error and "not answering on prefix 'nobody_here'" in said, said
    assert time.monotonic() - started < 5
