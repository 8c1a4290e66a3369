"""Splitting the bytes a broker sends into MQTT packets, and decoding QoS 0 PUBLISH. Pure, no I/O.

Why not paho for this: paho reads a packet with one `recv` per field (the command byte, each byte of the
remaining length, then the body) and builds an `MQTTMessage` (a lock, a properties object on MQTT 5)
and matches callback filters for every PUBLISH; under a value flood that was about 40 % of the cost
of a message (bench/RESULTS.md, section 9). Here one `recv` fills a buffer, many packets are taken
from it, and a QoS 0 PUBLISH (all a subscriber at QoS 0 ever receives) costs a few slices. Every other
packet (CONNACK, SUBACK, PINGRESP, DISCONNECT, AUTH, QoS 1/2 PUBLISH) is handed back whole, for paho to
handle as it always does (mqtt.py feeds it through `compat.feed_reads`).

- `PacketReader(v5)`: `feed(data)`, `has_packet()`, `buffered()`, and
  `drain(limit, on_publish, on_other) -> int`: up to `limit` complete packets, in order;
  `on_publish(topic, payload, retain)` for each QoS 0 PUBLISH whose topic is UTF-8 (others are dropped
  and counted in `dropped_topics`), `on_other(packet)` with the whole packet for the rest (returning
  False stops the drain: the connection went away meanwhile).
- `encode_publish(topic, payload, retain, v5) -> bytes`: one QoS 0 PUBLISH, ready for the socket (what
  the API requests go out as; paho's `publish` queues a message object and a write callback for it).
- `MalformedPacket`: the stream cannot be a broker's (remaining length over 4 bytes, a PUBLISH whose
  topic or properties run past its end, QoS 3, an empty topic on MQTT 3.1.1); the connection must go.
"""

from __future__ import annotations

from collections.abc import Callable

# Compact the buffer once this many bytes at its front are consumed (one memmove per ~256 kB read).
COMPACT_AFTER = 1 << 18
# The largest remaining length MQTT can express (4 bytes of 7 bits).
MAX_REMAINING = (1 << 28) - 1

PublishHandler = Callable[[str, bytes, bool], None]
OtherHandler = Callable[[bytes], bool]


class MalformedPacket(ValueError):
    """The broker's byte stream is not MQTT; the text says what was wrong."""


class PacketReader:
    """One connection's incoming bytes → packets. `v5`: PUBLISH carries properties (skipped here)."""

    def __init__(self, v5: bool) -> None:
        self.v5 = v5
        self.dropped_topics = 0  # QoS 0 PUBLISH with a topic that is not UTF-8
        self._buf = bytearray()
        self._pos = 0  # start of the first packet not yet handed over

    def feed(self, data: bytes | bytearray) -> None:
        if self._pos and (self._pos == len(self._buf) or self._pos >= COMPACT_AFTER):
            del self._buf[: self._pos]
            self._pos = 0
        self._buf += data

    def buffered(self) -> int:
        """Bytes received and not yet handed over."""
        return len(self._buf) - self._pos

    def _header(self, pos: int) -> tuple[int, int] | None:
        """(start of the body, its length) of the packet at `pos`; None until the header is complete."""
        buf = self._buf
        end = len(buf)
        i = pos + 1
        length = 0
        shift = 0
        while True:
            if i >= end:
                return None
            byte = buf[i]
            i += 1
            length |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return i, length
            shift += 7
            if shift == 28:
                raise MalformedPacket("a remaining length longer than 4 bytes")

    def has_packet(self) -> bool:
        """A whole packet is buffered (the next `drain` hands at least one over)."""
        header = self._header(self._pos)
        return header is not None and header[0] + header[1] <= len(self._buf)

    def drain(self, limit: int, on_publish: PublishHandler, on_other: OtherHandler) -> int:
        """Hand over up to `limit` whole packets in order; returns how many. Raises `MalformedPacket`."""
        buf = self._buf
        end = len(buf)
        pos = self._pos
        v5 = self.v5
        count = 0
        try:
            while count < limit:
                # The fixed header, inline: this loop runs for every message of a flood.
                if pos + 1 >= end:
                    break
                first = buf[pos]
                byte = buf[pos + 1]
                if byte < 0x80:
                    body, length = pos + 2, byte
                else:
                    header = self._header(pos)
                    if header is None:
                        break
                    body, length = header
                stop = body + length
                if stop > end:
                    break
                if first & 0xF6 == 0x30:  # PUBLISH at QoS 0 (any DUP/RETAIN bits; QoS bits 0)
                    if length < 2:
                        raise MalformedPacket("a PUBLISH shorter than its topic length")
                    start = body + 2
                    topic_end = start + (buf[body] << 8 | buf[body + 1])
                    if topic_end > stop:
                        raise MalformedPacket("a PUBLISH whose topic runs past its end")
                    payload_at = _skip_properties(buf, topic_end, stop) if v5 else topic_end
                    if topic_end == start and not v5:
                        raise MalformedPacket("a PUBLISH with an empty topic on MQTT 3.1.1")
                    pos = stop
                    count += 1
                    try:
                        topic = buf[start:topic_end].decode()
                    except UnicodeDecodeError:
                        self.dropped_topics += 1
                        continue
                    if topic:  # MQTT 5 topic alias only: never asked for (no Topic Alias Maximum)
                        on_publish(topic, bytes(buf[payload_at:stop]), bool(first & 1))
                elif first & 0xF6 == 0x36:
                    raise MalformedPacket("a PUBLISH with QoS 3")
                else:
                    packet = bytes(buf[pos:stop])
                    pos = stop
                    count += 1
                    if not on_other(packet):
                        break
        finally:
            self._pos = pos
        return count


def encode_publish(topic: str, payload: bytes, retain: bool, v5: bool) -> bytes:
    """A QoS 0 PUBLISH of `payload` on `topic`. Raises ValueError for what paho would refuse too: an empty
    topic, a wildcard or NUL in it, a topic over 65,535 bytes, a packet over MQTT's size limit."""
    name = topic.encode()
    if not name or len(name) > 0xFFFF or b"+" in name or b"#" in name or b"\0" in name:
        raise ValueError(f"not a topic to publish on: {topic[:80]!r}")
    # Variable header: the topic; on MQTT 5 an empty property list (no packet id at QoS 0).
    remaining = 2 + len(name) + v5 + len(payload)
    if remaining > MAX_REMAINING:
        raise ValueError(f"a message of {len(payload)} bytes is over MQTT's packet size limit")
    header = bytearray((0x31 if retain else 0x30,))
    while True:
        byte = remaining & 0x7F
        remaining >>= 7
        header.append(byte | 0x80 if remaining else byte)
        if not remaining:
            break
    header += len(name).to_bytes(2, "big")
    header += name
    if v5:
        header.append(0)
    return bytes(header + payload)


def _skip_properties(buf: bytearray, at: int, stop: int) -> int:
    """Where the payload of an MQTT 5 PUBLISH starts: after the properties' length and the properties."""
    length = 0
    shift = 0
    while True:
        if at >= stop:
            raise MalformedPacket("a PUBLISH whose properties run past its end")
        byte = buf[at]
        at += 1
        length |= (byte & 0x7F) << shift
        if not byte & 0x80:
            break
        shift += 7
        if shift == 28:
            raise MalformedPacket("a properties length longer than 4 bytes")
    if at + length > stop:
        raise MalformedPacket("a PUBLISH whose properties run past its end")
    return at + length
