"""The packet reader: a broker's byte stream → QoS 0 PUBLISH decoded, every other packet whole, in order,
however the bytes are split across reads; a stream that is not MQTT raises instead of being guessed at."""

from __future__ import annotations

import logging

import paho.mqtt.client as paho
import pytest
from paho.mqtt import _packet
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tests.mqtt_wire import publish
from zwave_mcp.gateway import mqtt_reads
from zwave_mcp.gateway.mqtt_reads import MalformedPacket, PacketReader

CONNACK = b"\x20\x02\x00\x00"
PINGRESP = b"\xd0\x00"


class Collect:
    def __init__(self, keep_going: bool = True) -> None:
        self.publishes: list[tuple[str, bytes, bool]] = []
        self.others: list[bytes] = []
        self.keep_going = keep_going

    def publish(self, topic: str, payload: bytes, retain: bool) -> None:
        self.publishes.append((topic, payload, retain))

    def other(self, packet: bytes) -> bool:
        self.others.append(packet)
        return self.keep_going

    def drain(self, reader: PacketReader, limit: int = 1_000_000) -> int:
        return reader.drain(limit, self.publish, self.other)


STREAM = [
    CONNACK,
    publish(b"zwave/a/b", b'{"time":1,"value":2}'),
    publish(b"zwave/retained", b"r", retain=True),
    PINGRESP,
    publish(b"zwave/q1", b"one", qos=1),
    publish(b"zwave/empty", b""),
    publish("zwave/ünïcode".encode(), b"\x00\xff"),
]


def expected(collect: Collect) -> None:
    assert collect.publishes == [
        ("zwave/a/b", b'{"time":1,"value":2}', False),
        ("zwave/retained", b"r", True),
        ("zwave/empty", b"", False),
        ("zwave/ünïcode", b"\x00\xff", False),
    ]
    assert collect.others == [CONNACK, PINGRESP, STREAM[4]]  # QoS 1 goes to paho, which acks it


def test_many_packets_in_one_read_come_out_in_order() -> None:
    reader, collect = PacketReader(v5=False), Collect()
    reader.feed(b"".join(STREAM))
    assert reader.has_packet()
    assert collect.drain(reader) == len(STREAM)
    expected(collect)
    assert reader.buffered() == 0 and not reader.has_packet()


def test_packets_split_at_every_byte_come_out_the_same() -> None:
    stream = b"".join(STREAM)
    for cut in range(1, len(stream)):
        reader, collect = PacketReader(v5=False), Collect()
        reader.feed(stream[:cut])
        collect.drain(reader)
        reader.feed(stream[cut:])
        collect.drain(reader)
        expected(collect)


def test_one_byte_at_a_time() -> None:
    reader, collect = PacketReader(v5=False), Collect()
    for byte in b"".join(STREAM):
        reader.feed(bytes([byte]))
        collect.drain(reader)
    expected(collect)


def test_the_limit_bounds_a_batch_and_the_rest_waits() -> None:
    reader, collect = PacketReader(v5=False), Collect()
    reader.feed(b"".join(publish(b"t/%d" % i, b"%d" % i) for i in range(10)))
    assert collect.drain(reader, limit=4) == 4
    assert reader.has_packet()
    assert collect.drain(reader, limit=100) == 6
    assert [t for t, _, _ in collect.publishes] == [f"t/{i}" for i in range(10)]


@pytest.mark.parametrize("size", [0, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152])
def test_remaining_length_of_one_to_four_bytes(size: int) -> None:
    topic = b"zwave/big"
    payload = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    packet = publish(topic, payload[: max(0, size - len(topic) - 2)])
    reader, collect = PacketReader(v5=False), Collect()
    half = len(packet) // 2
    reader.feed(packet[:half])
    assert collect.drain(reader) == 0 and not reader.has_packet()
    reader.feed(packet[half:] + PINGRESP)
    assert collect.drain(reader) == 2
    assert collect.publishes == [("zwave/big", payload[: max(0, size - len(topic) - 2)], False)]
    assert collect.others == [PINGRESP]


def test_mqtt_5_properties_are_skipped_to_the_payload() -> None:
    props = Properties(PacketTypes.PUBLISH)
    props.PayloadFormatIndicator = 1
    props.MessageExpiryInterval = 30
    props.UserProperty = [("who", "gateway"), ("why", "x" * 200)]  # properties longer than 127 bytes
    packed = props.pack()
    packet = publish(b"zwave/v5", b'{"value":1}', retain=True, properties=packed)
    # paho's own decoder agrees on what the packet says.
    decoded = _packet.decode_publish(packet[0], packet[3:], MQTTProtocolVersion.MQTTv5)
    assert decoded.payload == b'{"value":1}'
    reader, collect = PacketReader(v5=True), Collect()
    reader.feed(packet + publish(b"zwave/none", b"2", properties=b"\x00"))
    assert collect.drain(reader) == 2
    assert collect.publishes == [("zwave/v5", b'{"value":1}', True), ("zwave/none", b"2", False)]


def test_a_topic_that_is_not_utf8_is_dropped_and_the_stream_goes_on() -> None:
    reader, collect = PacketReader(v5=False), Collect()
    reader.feed(publish(b"zwave/\xff\xfe", b"1") + publish(b"zwave/ok", b"2"))
    assert collect.drain(reader) == 2
    assert collect.publishes == [("zwave/ok", b"2", False)]
    assert reader.dropped_topics == 1


def test_mqtt_5_topic_alias_only_publish_is_dropped() -> None:
    # Never asked for (no Topic Alias Maximum in CONNECT); without the alias table it names nothing.
    reader, collect = PacketReader(v5=True), Collect()
    reader.feed(
        publish(b"", b"1", properties=b"\x03\x23\x00\x01") + publish(b"zwave/ok", b"2", properties=b"\x00")
    )
    assert collect.drain(reader) == 2
    assert collect.publishes == [("zwave/ok", b"2", False)]


def test_a_false_from_on_other_stops_the_drain() -> None:
    reader, collect = PacketReader(v5=False), Collect(keep_going=False)
    reader.feed(CONNACK + publish(b"zwave/a", b"1"))
    assert collect.drain(reader) == 1
    assert collect.publishes == [] and reader.has_packet()


@pytest.mark.parametrize(
    ("stream", "v5", "what"),
    [
        (b"\x30\xff\xff\xff\xff\x01", False, "longer than 4 bytes"),
        (b"\x30\x01\x00", False, "shorter than its topic length"),
        (b"\x30\x04\x00\x09ab", False, "topic runs past its end"),
        (b"\x36\x04\x00\x01a\x00", False, "QoS 3"),
        (b"\x30\x03\x00\x00x", False, "empty topic"),
        (b"\x30\x05\x00\x01a\x05x", True, "properties run past its end"),
        (b"\x30\x08\x00\x01a\xff\xff\xff\xff\x01", True, "properties length longer"),
    ],
)
def test_a_stream_that_is_not_mqtt_raises(stream: bytes, v5: bool, what: str) -> None:
    reader, collect = PacketReader(v5=v5), Collect()
    reader.feed(publish(b"zwave/before", b"ok", properties=b"\x00" if v5 else None) + stream)
    with pytest.raises(MalformedPacket, match=what):
        collect.drain(reader)
    assert collect.publishes == [("zwave/before", b"ok", False)]  # what came before was handed over


def test_the_buffer_is_compacted_as_it_is_consumed() -> None:
    reader, collect = PacketReader(v5=False), Collect()
    packet = publish(b"zwave/t", b"x" * 1000)
    for _ in range(2000):
        reader.feed(packet)
        collect.drain(reader)
    assert len(collect.publishes) == 2000
    assert len(reader._buf) < 2 * len(packet) + (1 << 18)


def test_a_paho_that_reads_elsewhere_gets_its_own_reader_back_and_it_is_said_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Our reader feeds paho through `Client._sock_recv`; a paho whose packet reader no longer calls it
    would wait forever for a CONNACK sitting in our buffer. Then paho reads for itself, and a person
    hears why once, not per connection."""

    def reads_elsewhere(self: paho.Client) -> None:
        self._sock.recv(1)

    client = paho.Client(CallbackAPIVersion.VERSION2)
    assert mqtt_reads.own_reads_problem() is None
    assert isinstance(mqtt_reads.reads_for(client, lambda *a: None, v5=False), mqtt_reads.OwnReads)
    monkeypatch.setattr(paho.Client, "_packet_read", reads_elsewhere)
    monkeypatch.setattr(mqtt_reads, "_told", False)
    caplog.set_level(logging.WARNING, logger="zwave_mcp.gateway.mqtt_reads")
    for _ in range(2):
        fresh = paho.Client(CallbackAPIVersion.VERSION2)
        assert isinstance(mqtt_reads.reads_for(fresh, lambda *a: None, v5=False), mqtt_reads.PahoReads)
        assert "_sock_recv" not in vars(fresh)  # paho's own socket read is left alone
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "no longer reads its packets through _sock_recv" in said[0], said


def test_paho_private_parts_are_used_only_in_the_read_seam() -> None:
    """The MQTT session is paho's public API; the seam is the one place that may reach past it."""
    import io
    import itertools
    import pathlib
    import tokenize

    import zwave_mcp

    # paho's own machinery (names as generic as `_sock` or `_loop` are our transport's attributes too).
    prefixes = ("_sock_", "_packet", "_handle_", "_in_", "_out_", "_send_", "_do_", "_call_", "_reset")
    private = {name for name in vars(paho.Client) if name.startswith(prefixes)}
    root = pathlib.Path(zwave_mcp.__file__).parent
    users = {}
    for path in root.rglob("*.py"):
        tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text("utf-8")).readline))
        used = {
            b.string
            for a, b in itertools.pairwise(tokens)
            if a.string == "." and b.type == tokenize.NAME and b.string in private
        }
        if used:
            users[str(path.relative_to(root))] = sorted(used)
    assert users == {"gateway/mqtt_reads.py": ["_sock_recv"]}, users
