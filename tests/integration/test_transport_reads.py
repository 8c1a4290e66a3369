"""The transport's read path (`mqtt_reads`: our reader with paho for the rest, or paho's own reader), on a
real broker and on a scripted one.

On the real broker, with either reader: bursts (many packets per read, packets split across reads), the retained flag, MQTT 5
PUBLISH properties and payloads whose remaining length takes 1 to 4 bytes all arrive intact and in order.
A scripted broker sends what no real broker would: a malformed packet (the connection is dropped and made
again, nothing crashes) and a topic that is not UTF-8 (ignored, the next message still arrives).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tests.mqtt_wire import publish
from zwave_mcp.config import Settings
from zwave_mcp.gateway import mqtt_reads
from zwave_mcp.gateway.mqtt import MqttTransport
from zwave_mcp.simulator.broker import find_mosquitto, free_port, wait_for_port

pytestmark = [pytest.mark.integration]

Received = tuple[str, bytes, bool]


@pytest.fixture(params=["own reader", "paho's reader"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both sides of the seam: what one reader delivers, the other must too."""
    monkeypatch.setattr(mqtt_reads, "OWN_READS", request.param == "own reader")
    return str(request.param)


def _transport(url: str, version: str, received: asyncio.Queue[Received], **kw: Any) -> MqttTransport:
    return MqttTransport(
        Settings(mqtt_url=url, mqtt_version=version),
        on_message=lambda t, p, r: received.put_nowait((t, bytes(p), r)),
        **kw,
    )


@pytest.mark.parametrize("version", ["3.1.1", pytest.param("5", marks=pytest.mark.mosquitto_only)])
async def test_bursts_retained_properties_and_long_payloads_arrive_intact(
    mosquitto: Any, version: str, reader: str
) -> None:
    received: asyncio.Queue[Received] = asyncio.Queue()
    connected = asyncio.Event()
    transport = _transport(mosquitto.url, version, received, on_connected=connected.set)
    base = f"transport_reads/{version}"
    protocol = MQTTProtocolVersion.MQTTv5 if version == "5" else MQTTProtocolVersion.MQTTv311
    sender = paho.Client(CallbackAPIVersion.VERSION2, protocol=protocol)
    sender.connect(mosquitto.host, mosquitto.port)
    sender.loop_start()
    try:
        sender.publish(f"{base}/kept", b"retained", qos=1, retain=True).wait_for_publish(5)
        transport.subscribe([f"{base}/#"])
        transport.start()
        await asyncio.wait_for(connected.wait(), 5)
        assert await asyncio.wait_for(received.get(), 5) == (f"{base}/kept", b"retained", True)

        properties = None
        if version == "5":
            properties = Properties(PacketTypes.PUBLISH)
            properties.UserProperty = [("who", "gateway"), ("pad", "p" * 300)]
            properties.MessageExpiryInterval = 60
        sizes = [0, 100, 200, 20_000, 2_200_000]  # remaining lengths of 1, 2, 2, 3 and 4 bytes
        burst = [(f"{base}/n{i}", b"%d" % i) for i in range(3000)]
        expected = [(f"{base}/size", bytes([s % 251]) * s, False) for s in sizes]
        expected += [(t, p, False) for t, p in burst]
        for _, payload, _ in expected[: len(sizes)]:
            sender.publish(f"{base}/size", payload, qos=1, properties=properties).wait_for_publish(5)
        for topic, payload in burst:
            sender.publish(topic, payload, properties=properties)
        got = [await asyncio.wait_for(received.get(), 10) for _ in expected]
        assert got == expected
    finally:
        sender.publish(f"{base}/kept", b"", qos=1, retain=True).wait_for_publish(5)
        sender.loop_stop()
        sender.disconnect()
        await transport.stop()


class ScriptedBroker:
    """Speaks just enough MQTT 3.1.1 (CONNACK, SUBACK) and then sends what the test scripts, per connection."""

    def __init__(self, scripts: list[bytes]) -> None:
        self.scripts = scripts
        self.connections = 0
        self.server: asyncio.Server | None = None
        self.port = 0

    async def _packet(self, reader: asyncio.StreamReader) -> tuple[int, bytes]:
        first = (await reader.readexactly(1))[0]
        length, shift = 0, 0
        while True:
            byte = (await reader.readexactly(1))[0]
            length |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        return first, await reader.readexactly(length)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        script = self.scripts[min(self.connections, len(self.scripts) - 1)]
        self.connections += 1
        with contextlib.suppress(Exception):
            first, _ = await self._packet(reader)
            assert first == 0x10
            writer.write(b"\x20\x02\x00\x00")
            first, body = await self._packet(reader)
            assert first == 0x82
            writer.write(b"\x90\x03" + body[:2] + b"\x00")
            writer.write(script)
            await writer.drain()
            while True:  # answer pings; read until the client goes
                first, _ = await self._packet(reader)
                if first == 0xC0:
                    writer.write(b"\xd0\x00")
        writer.close()

    async def __aenter__(self) -> ScriptedBroker:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()


@contextlib.asynccontextmanager
async def _scripted(scripts: list[bytes]) -> AsyncIterator[tuple[ScriptedBroker, MqttTransport, Any]]:
    received: asyncio.Queue[Received] = asyncio.Queue()
    lost: list[str] = []
    async with ScriptedBroker(scripts) as broker:
        transport = _transport(
            f"mqtt://127.0.0.1:{broker.port}", "3.1.1", received, on_disconnected=lost.append
        )
        transport.subscribe(["#"])
        transport.start()
        try:
            yield broker, transport, (received, lost)
        finally:
            await transport.stop()


async def test_a_malformed_packet_drops_the_connection_and_it_is_made_again() -> None:
    scripts = [
        publish(b"t/first", b"1") + b"\x30\xff\xff\xff\xff\x01" + publish(b"t/never", b"x"),
        publish(b"t/second", b"2"),
    ]
    async with _scripted(scripts) as (broker, transport, (received, lost)):
        assert await asyncio.wait_for(received.get(), 5) == ("t/first", b"1", False)
        assert await asyncio.wait_for(received.get(), 10) == ("t/second", b"2", False)
        assert broker.connections == 2 and transport.connected
        assert len(lost) == 1 and "malformed packet" in lost[0], lost
        assert received.empty()


async def test_a_topic_that_is_not_utf8_is_ignored_and_the_connection_stays() -> None:
    scripts = [publish(b"t/\xff\xfe", b"bad") + publish(b"t/ok", b"good")]
    async with _scripted(scripts) as (broker, transport, (received, lost)):
        assert await asyncio.wait_for(received.get(), 5) == ("t/ok", b"good", False)
        assert transport.connected and broker.connections == 1 and lost == []


async def test_the_broker_hanging_up_mid_packet_is_a_lost_connection_then_a_new_one() -> None:
    # The first connection ends inside a packet (the scripted broker closes after a partial PUBLISH).
    class HangUp(ScriptedBroker):
        async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if self.connections:
                await super()._serve(reader, writer)
                return
            self.connections += 1
            await self._packet(reader)
            writer.write(b"\x20\x02\x00\x00")
            _, body = await self._packet(reader)
            writer.write(b"\x90\x03" + body[:2] + b"\x00" + publish(b"t/a", b"1") + publish(b"t/b", b"2")[:5])
            await writer.drain()
            writer.close()

    received: asyncio.Queue[Received] = asyncio.Queue()
    lost: list[str] = []
    async with HangUp([publish(b"t/again", b"3")]) as broker:
        transport = _transport(
            f"mqtt://127.0.0.1:{broker.port}", "3.1.1", received, on_disconnected=lost.append
        )
        transport.subscribe(["#"])
        transport.start()
        try:
            assert await asyncio.wait_for(received.get(), 5) == ("t/a", b"1", False)
            assert await asyncio.wait_for(received.get(), 10) == ("t/again", b"3", False)
            assert broker.connections == 2
            assert len(lost) == 1 and "lost the connection" in lost[0], lost
        finally:
            await transport.stop()


@pytest.fixture(scope="module")
def tls_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path]]:
    """A Mosquitto with a TLS listener, its certificate signed by a CA made here; (port, CA file)."""
    mosquitto = find_mosquitto()
    if mosquitto is None or shutil.which("openssl") is None:
        pytest.skip("needs mosquitto and openssl")
    d = Path(tmp_path_factory.mktemp("tls"))

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
            "-days", "2", "-subj", "/CN=zwave-mcp test CA")  # fmt: skip
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
            "-subj", "/CN=localhost")  # fmt: skip
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n", "utf-8")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.pem", "-days", "2", "-extfile", "san.ext")  # fmt: skip
    port = free_port()
    conf = d / "tls.conf"
    conf.write_text(
        # `user root`: started as root, Mosquitto would otherwise read its key as `mosquitto`, who cannot
        # see into pytest's private temporary directory (ignored when not started as root).
        f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\nuser root\n"
        f"cafile {d / 'ca.pem'}\ncertfile {d / 'server.pem'}\nkeyfile {d / 'server.key'}\n",
        "utf-8",
    )
    proc = subprocess.Popen(
        [str(mosquitto), "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for_port(port)
        yield port, d / "ca.pem"
    finally:
        proc.terminate()
        proc.wait(timeout=5)


@pytest.mark.parametrize("version", ["3.1.1", "5"])
async def test_over_tls_bursts_and_long_payloads_arrive_intact(
    tls_broker: tuple[int, Path], version: str, reader: str
) -> None:
    # TLS keeps decrypted records in user space, where the event loop cannot see them: the reader must
    # still hand over everything (a burst bigger than one record, a payload spanning many).
    port, ca = tls_broker
    received: asyncio.Queue[Received] = asyncio.Queue()
    connected = asyncio.Event()
    settings = Settings(mqtt_url=f"mqtts://127.0.0.1:{port}", tls_ca=ca, mqtt_version=version)
    transport = MqttTransport(
        settings, on_message=lambda t, p, r: received.put_nowait((t, bytes(p), r)), on_connected=connected.set
    )
    sender_connected = asyncio.Event()
    sender = MqttTransport(settings, on_message=lambda *a: None, on_connected=sender_connected.set)
    transport.subscribe(["tls/#"])
    transport.start()
    sender.start()
    try:
        await asyncio.wait_for(connected.wait(), 10)
        await asyncio.wait_for(sender_connected.wait(), 10)
        expected = [(f"tls/n{i}", b"%d" % i, False) for i in range(2000)] + [
            ("tls/big", b"b" * 1_000_000, False)
        ]
        for topic, payload, _ in expected:
            sender.publish(topic, payload)
        got = [await asyncio.wait_for(received.get(), 10) for _ in expected]
        assert got == expected
    finally:
        await sender.stop()
        await transport.stop()
