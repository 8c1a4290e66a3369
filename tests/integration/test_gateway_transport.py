"""MqttTransport on a real Mosquitto: refused logins, MQTT 3.1.1 and 5, TCP_NODELAY, round trips."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from zwave_mcp.config import Settings
from zwave_mcp.gateway.mqtt import MqttTransport
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
    sender_connected = asyncio.Event()
    transport = MqttTransport(
        Settings(mqtt_url=mosquitto.url, mqtt_version=version),
        on_message=lambda t, p, r: received.put_nowait((t, bytes(p), r)),
        on_connected=connected.set,
    )
    # Another client publishes: with MQTT 5 our own publishes do not come back (noLocal).
    sender = MqttTransport(
        Settings(mqtt_url=mosquitto.url, mqtt_version=version),
        on_message=lambda t, p, r: None,
        on_connected=sender_connected.set,
    )
    topic, probe = f"transport_test/{version}/echo", f"transport_test/{version}/probe"
    transport.subscribe([topic, probe])  # one SUBSCRIBE: once the probe arrives, the topic is subscribed too
    transport.start()
    sender.start()
    try:
        await asyncio.wait_for(connected.wait(), 5)
        await asyncio.wait_for(sender_connected.wait(), 5)
        sock = transport._sock
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        # on_connected comes once the SUBSCRIBE is queued, not acknowledged: the sender's publishes (another
        # connection) can reach the broker first and be dropped (CI: one run in many, on MQTT 5). Probe first.
        for _ in range(50):
            sender.publish(probe, b"", qos=0)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(received.get(), 0.1)
                break
        payloads = [b"", b"\x00\xff binary", b"x" * 300_000]
        for payload in payloads:
            sender.publish(topic, payload, qos=0)
        got: list[tuple[str, bytes, bool]] = []
        while len(got) < len(payloads):  # a late probe (sent before the payloads) comes first, if at all
            message = await asyncio.wait_for(received.get(), 5)
            if message[0] == topic:
                got.append(message)
        assert [p for _, p, _ in got] == payloads
        assert all(t == topic and not r for t, _, r in got)
    finally:
        await sender.stop()
        await transport.stop()
    assert not transport.connected


async def test_our_own_publishes_do_not_come_back_on_mqtt_5(mosquitto: Any) -> None:
    """Each API request would otherwise arrive back just before its reply, to be read and thrown away."""
    received: asyncio.Queue[tuple[str, bytes, bool]] = asyncio.Queue()
    connected = asyncio.Event()
    transport = MqttTransport(
        Settings(mqtt_url=mosquitto.url, mqtt_version="5"),
        on_message=lambda t, p, r: received.put_nowait((t, bytes(p), r)),
        on_connected=connected.set,
    )
    transport.subscribe(["transport_test/nolocal/#"])
    transport.start()
    try:
        await asyncio.wait_for(connected.wait(), 5)
        transport.publish("transport_test/nolocal/mine", b"1")
        # A retained message set by us is still delivered on the next subscription; a fresh publish is not.
        transport.publish("transport_test/nolocal/marker", b"2", retain=True)
        transport.subscribe(["transport_test/nolocal/marker"])
        topic, payload, retained = await asyncio.wait_for(received.get(), 5)
        assert (topic, payload, retained) == ("transport_test/nolocal/marker", b"2", True)
        assert received.empty()
    finally:
        transport.publish("transport_test/nolocal/marker", b"", retain=True)
        await transport.stop()
