"""`mqtt_version`: auto speaks 5 where it can and 3.1.1 where the broker refuses 5; explicit is honoured."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from zwave_mcp.config import Settings
from zwave_mcp.gateway import mqtt
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.gateway.mqtt import MqttTransport
from zwave_mcp.simulator.broker import EmbeddedBroker

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def fresh_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test finds out the version on its own (the process remembers it per broker otherwise)."""
    monkeypatch.setattr(mqtt, "_versions_in_use", {})


@pytest.fixture(scope="module")
def amqtt_broker() -> Iterator[EmbeddedBroker]:
    """A broker that speaks MQTT 3.1.1 only (like some home brokers), whatever the session's broker is."""
    broker = EmbeddedBroker()
    broker.start()
    yield broker
    broker.stop()


async def _connect(settings: Settings, timeout: float = 5.0) -> MqttTransport:
    transport = MqttTransport(settings, on_message=lambda *a: None)
    transport.start()
    await transport.wait_connected(timeout)
    return transport


async def test_auto_falls_back_to_3_1_1_and_says_so_once(
    amqtt_broker: EmbeddedBroker, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="zwave_mcp.gateway.mqtt")
    settings = Settings(mqtt_url=amqtt_broker.url)
    assert settings.mqtt_version == "auto"
    first = await _connect(settings)
    second = await _connect(settings)  # a second connection (the control lane) knows already
    try:
        assert first.connected and second.connected, first.last_error
        assert first.protocol == second.protocol == "3.1.1"
        in_use = [r for r in caplog.records if "in use with the broker" in r.getMessage()]
        assert len(in_use) == 1 and "MQTT 3.1.1" in in_use[0].getMessage(), in_use
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING], "a fallback is no failure"
    finally:
        await first.stop()
        await second.stop()


async def test_auto_also_falls_back_when_the_broker_says_nothing(amqtt_broker: EmbeddedBroker) -> None:
    # amqtt neither accepts nor refuses an MQTT 5 CONNECT with a login: it stays silent.
    settings = Settings(mqtt_url=f"mqtt://someone:secret@127.0.0.1:{amqtt_broker.port}")
    transport = await _connect(settings, timeout=12)
    try:
        assert transport.connected and transport.protocol == "3.1.1", transport.last_error
    finally:
        await transport.stop()


async def test_explicit_5_is_honoured_and_the_refusal_says_why(amqtt_broker: EmbeddedBroker) -> None:
    transport = MqttTransport(Settings(mqtt_url=amqtt_broker.url, mqtt_version="5"), lambda *a: None)
    transport.start()
    try:
        for _ in range(300):
            if transport.last_error and "refused" in transport.last_error:
                break
            await asyncio.sleep(0.01)
        assert not transport.connected
        assert "does not speak MQTT 5" in (transport.last_error or ""), transport.last_error
    finally:
        await transport.stop()


async def test_explicit_3_1_1_is_honoured_on_a_broker_that_speaks_5(mosquitto: Any) -> None:
    if not mosquitto.is_mosquitto:
        pytest.skip("needs a broker that speaks MQTT 5")
    transport = await _connect(Settings(mqtt_url=mosquitto.url, mqtt_version="3.1.1"))
    try:
        assert transport.protocol == "3.1.1"
    finally:
        await transport.stop()


async def test_health_shows_the_version_in_use(mosquitto: Any) -> None:
    gateway = ZwaveGateway(Settings(mqtt_url=mosquitto.url, prefix="t_version_health"))
    gateway.start()
    try:
        assert await gateway.transport.wait_connected(5) and await gateway.control.wait_connected(5)
        # With auto the value lane prefers 3.1.1 (paho parses it for half the cost); the control lane 5.
        expected = "5 (value lane 3.1.1)" if mosquitto.is_mosquitto else "3.1.1"
        assert gateway.health().broker_protocol == expected
    finally:
        await gateway.stop()
    assert gateway.health().broker_protocol is None


def test_config_shows_auto_and_what_it_means() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "zwave_mcp", "config"],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert json.loads(out.stdout)["mqtt_version"].startswith("auto (MQTT 5, or 3.1.1")
