"""The transport's writes (paho's `publish`, written from the event loop). On a real broker, what it
publishes arrives intact and in the order it was published: a message bigger than the socket takes at
once (the rest goes out when the socket is writable), small ones published meanwhile, QoS 0 and QoS 1,
and a retained one.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from zwave_mcp.config import Settings
from zwave_mcp.gateway.mqtt import MqttTransport

pytestmark = [pytest.mark.integration]

# Several times what the sockets between the transport and the relay below hold (4.5 MB on Linux's defaults).
BIG = 24_000_000


@contextlib.asynccontextmanager
async def relay_on_this_loop(host: str, port: int) -> AsyncIterator[int]:
    """A TCP relay to the broker, run by the test's own event loop; yields its port. While `publish` writes
    (synchronously, on that loop) nothing reads the relay's end, so the transport's socket fills after a
    few MB whatever the machine's speed. Straight to a broker reading on another core, one `loop_write`
    handed over a whole 48 MB message under load (and the test then proved nothing)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # A fixed receive buffer: autotuned, it may grow to tens of MB (and each partial send copies the rest
    # of the message in paho, so a bigger message only makes the test slower).
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    listener.bind(("127.0.0.1", 0))
    pumps: set[asyncio.Task[None]] = set()

    async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(1 << 20):
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()

    async def connect(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        broker_r, broker_w = await asyncio.open_connection(host, port)
        for task in (pump(client_r, broker_w), pump(broker_r, client_w)):
            pumps.add(asyncio.create_task(task))

    server = await asyncio.start_server(connect, sock=listener)
    try:
        yield listener.getsockname()[1]
    finally:
        server.close()
        for task in pumps:
            task.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)


@pytest.mark.parametrize("version", ["3.1.1", pytest.param("5", marks=pytest.mark.mosquitto_only)])
async def test_what_is_published_arrives_intact_and_in_order(mosquitto: Any, version: str) -> None:
    base = f"transport_writes/{version}"
    received: asyncio.Queue[tuple[str, bytes, bool]] = asyncio.Queue()
    loop = asyncio.get_running_loop()
    protocol = MQTTProtocolVersion.MQTTv5 if version == "5" else MQTTProtocolVersion.MQTTv311
    watcher = paho.Client(CallbackAPIVersion.VERSION2, protocol=protocol)
    watcher.on_message = lambda _c, _u, m: loop.call_soon_threadsafe(
        received.put_nowait, (m.topic, m.payload, bool(m.retain))
    )
    subscribed = asyncio.Event()
    watcher.on_subscribe = lambda *_a: loop.call_soon_threadsafe(subscribed.set)
    watcher.connect(mosquitto.host, mosquitto.port)
    watcher.subscribe(f"{base}/#", qos=1)
    watcher.loop_start()
    async with relay_on_this_loop(mosquitto.host, mosquitto.port) as relay_port:
        connected = asyncio.Event()
        transport = MqttTransport(
            Settings(mqtt_url=f"mqtt://127.0.0.1:{relay_port}", mqtt_version=version),
            on_message=lambda *_a: None,
            on_connected=connected.set,
        )
        transport.start()
        try:
            await asyncio.wait_for(asyncio.gather(connected.wait(), subscribed.wait()), 10)
            expected: list[tuple[str, bytes, bool]] = []

            def send(topic: str, payload: bytes, qos: int = 0) -> None:
                transport.publish(f"{base}/{topic}", payload, qos=qos)
                expected.append((f"{base}/{topic}", payload, False))

            for size in (0, 100, 200, 20_000):  # remaining lengths of 1 to 3 bytes
                send("size", bytes([size % 251]) * size)
            send("big", b"b" * BIG)
            assert transport._client.want_write(), (
                "the socket took the big message at once: the test proves nothing"
            )
            for i in range(200):  # behind the rest of the big one, in order
                send(f"n{i}", b"%d" % i)
            send("acked", b"at QoS 1, after the rest", qos=1)
            send("text", "a str payload: Küche".encode())
            got = [await asyncio.wait_for(received.get(), 20) for _ in expected]
            assert [(t, len(p)) for t, p, _ in got] == [(t, len(p)) for t, p, _ in expected]
            assert got == expected
            assert not transport._client.want_write()
        finally:
            watcher.loop_stop()
            watcher.disconnect()
            await transport.stop()


async def test_a_retained_message_is_kept_by_the_broker(mosquitto: Any) -> None:
    topic = "transport_writes/kept"
    connected = asyncio.Event()
    transport = MqttTransport(
        Settings(mqtt_url=mosquitto.url, mqtt_version="3.1.1"),
        on_message=lambda *_a: None,
        on_connected=connected.set,
    )
    transport.start()
    try:
        await asyncio.wait_for(connected.wait(), 10)
        transport.publish(topic, b"kept", retain=True)
        received: asyncio.Queue[tuple[bytes, bool]] = asyncio.Queue()
        reader = MqttTransport(
            Settings(mqtt_url=mosquitto.url, mqtt_version="3.1.1"),
            on_message=lambda _t, p, r: received.put_nowait((bytes(p), r)),
            client_id_suffix="-reader",
        )
        reader.subscribe([topic])
        reader.start()
        try:
            assert await asyncio.wait_for(received.get(), 10) == (b"kept", True)
        finally:
            transport.publish(topic, b"", retain=True)
            await reader.stop()
    finally:
        await transport.stop()
