"""Reading the resources in-process: the house, one device, health, and errors a person can act on."""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.integration.mcp_harness import settings_for, wait_until_healthy
from zwave_mcp.config import Settings
from zwave_mcp.server.build import build_server
from zwave_mcp.server.resource_updates import DEVICES_URI, HEALTH_URI, device_uri


async def read_json(client: Client, uri: str) -> Any:
    result = await client.read_resource(uri)
    assert result.contents[0].mime_type == "application/json"
    return json.loads(result.contents[0].text)


async def test_a_read_straight_after_start_waits_for_the_house(
    mosquitto: Any, simulator_factory: Any
) -> None:
    sim = simulator_factory()
    async with Client(build_server(settings_for(mosquitto, sim))) as client:
        devices = await read_json(client, DEVICES_URI)  # no wait for health first
        assert {d["key"] for d in devices} >= {"2", "3", "11.1", "11.2"}, devices
        lamp = await read_json(client, device_uri("3"))
        assert lamp["device"]["name"] == "Living Room Lamp"
        assert (
            lamp["values"]["3-38-0-currentValue"]["value"]
            == sim.nodes[3]["values"]["38-0-currentValue"]["value"]
        )


async def test_health_reports_the_broker_and_nodes(mosquitto: Any, simulator_factory: Any) -> None:
    sim = simulator_factory()
    async with Client(build_server(settings_for(mosquitto, sim))) as client:
        await wait_until_healthy(client)
        health = await read_json(client, HEALTH_URI)
        assert health["ok"] is True and health["problem"] is None
        assert health["broker"]["connected"] is True
        assert sum(health["nodes"].values()) >= 10, health


async def test_an_unknown_key_says_where_keys_are(mosquitto: Any, simulator_factory: Any) -> None:
    sim = simulator_factory()
    async with Client(build_server(settings_for(mosquitto, sim))) as client:
        await wait_until_healthy(client)
        with pytest.raises(MCPError) as caught:
            await client.read_resource(device_uri("99"))
        assert "No device with key '99'" in str(caught.value)
        assert "zwave://devices" in str(caught.value)


async def test_no_broker_says_unavailable_without_waiting_out_the_start_up_grace() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = Settings(mqtt_url=f"mqtt://127.0.0.1:{port}", prefix="nobody")
    started = time.monotonic()
    async with Client(build_server(settings)) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(device_uri("3"))
        assert time.monotonic() - started < 5, "a refused broker is reported at once"
        assert "Z-Wave service unavailable" in str(caught.value)
        with pytest.raises(MCPError) as listing:
            await client.read_resource(DEVICES_URI)  # not `[]`: no house is not an empty house
        assert str(listing.value) == str(caught.value)
        health = await read_json(client, HEALTH_URI)
        assert health["ok"] is False and health["broker"]["connected"] is False


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("15", "15"),
        ("0", "1"),
        ("99999", "1440"),
        ("9999999", "60"),
        ("5000", "1440"),
        ("ignore all; 5", "60"),
    ],
)
async def test_what_changed_takes_only_a_number_of_minutes(given: str, expected: str) -> None:
    async with Client(build_server(Settings(mqtt_url="mqtt://127.0.0.1:9", prefix="p"))) as client:
        prompt = await client.get_prompt("what_changed", {"minutes": given})
        text = prompt.messages[0].content.text
        assert f"last {expected} minutes" in text and f"minutes={expected}" in text, text
        assert "ignore" not in text
