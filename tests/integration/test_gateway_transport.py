"""MqttTransport on a real Mosquitto: refused logins, MQTT 3.1.1 and 5, TCP_NODELAY, round trips."""

from __future__ import annotations

import asyncio
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from zwave_mcp.config import Settings
from zwave_mcp.mqtt import MqttTransport
from zwave_mcp.simulator.broker import find_mosquitto, free_port, wait_for_port

pytestmark = [
    pytest.mark.integration,
    pytest.mark.mosquitto_only,
    pytest.mark.skipif(find_mosquitto() is None, reason="mosquitto is not installed"),
]


@pytest.fixture(scope="module")
def closed_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A Mosquitto that accepts TCP but refuses every login (no anonymous access, no users)."""
    port = free_port()
    conf = Path(tmp_path_factory.mktemp("mosq")) / "closed.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous false\npersistence false\n", "utf-8")
    proc = subprocess.Popen(
        [str(find_mosquitto()), "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for_port(port)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=5)


@pytest.mark.parametrize("version", ["3.1.1", "5"])
async def test_refused_login_is_explained(closed_broker: int, version: str) -> None:
    settings = Settings(
        mqtt_url=f"mqtt://bob@127.0.0.1:{closed_broker}", mqtt_password="pw", mqtt_version=version
    )
    transport = MqttTransport(settings, on_message=lambda *a: None)
    transport.start()
    try:
        for _ in range(300):
            if transport.last_error and "refused the connection" in transport.last_error:
                break
            await asyncio.sleep(0.01)
        assert not transport.connected
        assert transport.last_error is not None and "not authorized" in transport.last_error, (
            transport.last_error
        )
    finally:
        await transport.stop()


@pytest.mark.parametrize("version", ["3.1.1", "5"])
async def test_round_trip_on_the_loop_with_nodelay(mosquitto: Any, version: str) -> None:
    received: asyncio.Queue[tuple[str, bytes, bool]] = asyncio.Queue()
    connected = asyncio.Event()
    transport = MqttTransport(
        Settings(mqtt_url=mosquitto.url, mqtt_version=version),
        on_message=lambda t, p, r: received.put_nowait((t, bytes(p), r)),
        on_connected=connected.set,
    )
    topic = f"transport_test/{version}/echo"
    transport.subscribe([topic])
    transport.start()
    try:
        await asyncio.wait_for(connected.wait(), 5)
        sock = transport._sock
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        # Subscriptions go out in on_connect; our publish after them comes back to us, in order.
        payloads = [b"", b"\x00\xff binary", b"x" * 300_000]
        for payload in payloads:
            transport.publish(topic, payload, qos=0)
        got = [await asyncio.wait_for(received.get(), 5) for _ in payloads]
        assert [p for _, p, _ in got] == payloads
        assert all(t == topic and not r for t, _, r in got)
    finally:
        await transport.stop()
    assert not transport.connected
