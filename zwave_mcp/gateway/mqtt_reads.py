"""How a connection's incoming packets are read: the one seam where zwave-mcp reads an MQTT socket itself.

Everything else of the MQTT session is paho's public API (mqtt.py). Reading is the exception, because
of what a value flood costs (bench 9, bench/RESULTS.md issue 34): paho's `loop_read` takes one packet
per call, with one `recv` per field and an `MQTTMessage` per PUBLISH: 22 µs of CPU per message on MQTT
3.1.1 and 46 µs on MQTT 5, against 1.1 and 1.4 µs here. Through it the value lane took in 14,900 and
11,500 msg/s of 25,000 offered (this reader: all of it), and the control call p99 under 10,000 msg/s
was 1.9x and 7.7x this reader's.

- `OwnReads`: one `recv` of up to 64 kB fills a buffer, up to READ_BATCH whole packets a turn are taken
  from it, and a QoS 0 PUBLISH (all a subscriber at QoS 0 receives) is decoded here in a few slices
  (`PacketReader`). Every other packet (CONNACK, SUBACK, PINGRESP, DISCONNECT, QoS 1/2 PUBLISH) and the
  socket's end go whole to paho, which reads them from memory through `Client._sock_recv`: paho's one
  private part we use (no public way to give paho bytes we have read).
- `PahoReads`: paho's own `loop_read`, up to READ_BATCH packets a turn. Used when `OWN_READS` is off
  (the benchmark compares both in one run) or when an installed paho no longer reads through
  `_sock_recv` (`own_reads_problem()`, logged once): slower under a flood, the same messages.

`reads_for(client, deliver, v5)` picks one for a paho client; `attach(sock)` on every new socket,
`detach()` when it is gone; `read_batch() -> bool` reads once per event-loop turn, True when whole
packets are left for the next turn (the socket may have nothing new to say); `MalformedPacket` means
the connection must go. Each message goes to `deliver(topic, payload, retain)`, on the loop thread.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Callable
from typing import Any, Protocol

import paho.mqtt.client as paho
from paho.mqtt.enums import MQTTErrorCode

log = logging.getLogger(__name__)

# Read the socket ourselves (see above); the benchmark turns it off to measure paho's own reader.
OWN_READS = True
# At most this many packets are handled per event-loop turn: one turn per packet costs more than the
# packet under a flood, and a bounded batch still lets the other lane and the MCP session have theirs.
READ_BATCH = 64
# Bytes asked of the socket per `recv`; reading stops once this much is buffered and a packet is whole.
RECV_BYTES = 1 << 16
# Compact the buffer once this many bytes at its front are consumed (one memmove per ~256 kB read).
COMPACT_AFTER = 1 << 18

Deliver = Callable[[str, bytes | bytearray, bool], None]


class MalformedPacket(ValueError):
    """The broker's byte stream is not MQTT; the text says what was wrong."""


class Reads(Protocol):
    def attach(self, sock: Any) -> None: ...

    def detach(self) -> None: ...

    def read_batch(self) -> bool: ...


def own_reads_problem() -> str | None:
    """Why paho cannot be fed from our buffer (None: it can): its packet reader must read through
    `Client._sock_recv`, which we replace per client."""
    packet_read = getattr(paho.Client, "_packet_read", None)
    if not callable(getattr(paho.Client, "_sock_recv", None)) or "_sock_recv" not in getattr(
        getattr(packet_read, "__code__", None), "co_names", ()
    ):
        return "paho-mqtt's Client no longer reads its packets through _sock_recv"
    return None


_told = False


def reads_for(client: paho.Client, deliver: Deliver, v5: bool) -> Reads:
    """The reader for `client`'s connections; also sets `client.on_message` (QoS 1/2 messages, and all
    of them with paho's reader)."""
    global _told
    problem = own_reads_problem() if OWN_READS else None
    if problem is not None and not _told:
        _told = True
        log.warning("%s: reading with paho's own reader, slower under a flood of value updates", problem)
    if OWN_READS and problem is None:
        return OwnReads(client, deliver, v5)
    return PahoReads(client, deliver)


def _deliver_paho_message(deliver: Deliver, message: paho.MQTTMessage) -> None:
    try:
        topic = message.topic
    except UnicodeDecodeError:
        log.debug("MQTT message with a topic that is not UTF-8 ignored")
        return
    deliver(topic, message.payload, bool(message.retain))


class PahoReads:
    """paho's public reader: `loop_read` reads one packet (or none) per call."""

    def __init__(self, client: paho.Client, deliver: Deliver) -> None:
        self._client = client
        self._deliver = deliver
        self._messages = 0
        client.on_message = self._on_message

    def _on_message(self, client: paho.Client, userdata: Any, message: paho.MQTTMessage) -> None:
        self._messages += 1
        _deliver_paho_message(self._deliver, message)

    def attach(self, sock: Any) -> None:
        pass

    def detach(self) -> None:
        pass

    def read_batch(self) -> bool:
        client = self._client
        sock = client.socket()
        for _ in range(READ_BATCH):
            seen = self._messages
            if client.loop_read() != MQTTErrorCode.MQTT_ERR_SUCCESS or client.socket() is not sock:
                return False  # paho closed the connection and said so (`on_disconnect`)
            if self._messages == seen:
                break  # nothing whole to read now, or a packet other than a message
        else:
            return True
        return isinstance(sock, ssl.SSLSocket) and sock.pending() > 0


class OwnReads:
    """Our buffer and PUBLISH decoder, paho for every other packet (see the module text)."""

    def __init__(self, client: paho.Client, deliver: Deliver, v5: bool) -> None:
        self._client = client
        self._deliver = deliver
        self._v5 = v5
        self._paho_sees_end = False
        self.attach(None)  # no connection yet
        client.on_message = lambda _client, _userdata, message: _deliver_paho_message(deliver, message)
        client._sock_recv = self._paho_recv  # type: ignore[method-assign]

    def attach(self, sock: Any) -> None:
        """A new connection: nothing of the last one means anything on it."""
        self._sock: Any = sock
        self._packets = PacketReader(self._v5)
        self._for_paho = b""  # the packet paho is reading
        self._end: OSError | None = None  # ConnectionResetError etc.; EOF is `_eof`
        self._eof = False

    def detach(self) -> None:
        """The connection is gone (paho closed it, or we did): nothing more is read from it."""
        self._sock = None

    def read_batch(self) -> bool:
        """Fill the buffer (one `recv` is usually enough), then handle up to READ_BATCH packets."""
        sock = self._sock
        packets = self._packets
        while packets.buffered() < RECV_BYTES or not packets.has_packet():
            try:
                data = sock.recv(RECV_BYTES)
            except (BlockingIOError, InterruptedError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
                break
            except OSError as exc:
                self._end = exc
                break
            if not data:
                self._eof = True
                break
            packets.feed(data)
        packets.drain(READ_BATCH, self._deliver, self._to_paho)
        if self._sock is not sock:
            return False
        if packets.has_packet() or (isinstance(sock, ssl.SSLSocket) and sock.pending() > 0):
            return True
        if self._eof or self._end is not None:
            self._to_paho(b"", end=True)  # paho reads the end of the connection and says so
        return False

    def _to_paho(self, packet: bytes, end: bool = False) -> bool:
        """paho handles one whole packet, or with `end` the socket's end (EOF or its error); True while
        the connection is still paho's to read."""
        sock = self._sock
        self._for_paho = packet
        self._paho_sees_end = end
        try:
            self._client.loop_read()
        finally:
            self._for_paho = b""
            self._paho_sees_end = False
        return self._sock is sock and sock is not None

    def _paho_recv(self, bufsize: int) -> bytes:
        """paho's socket read, served from what `_to_paho` gave it."""
        data = self._for_paho
        if data:
            self._for_paho = data[bufsize:]
            return data[:bufsize]
        if self._paho_sees_end:
            if self._end is not None:
                raise self._end
            return b""
        raise BlockingIOError


class PacketReader:
    """One connection's incoming bytes → packets. Pure. `v5`: PUBLISH carries properties (skipped).

    `feed(data)`, `has_packet()`, `buffered()`, and `drain(limit, on_publish, on_other) -> int`: up to
    `limit` whole packets, in order; `on_publish(topic, payload, retain)` for each QoS 0 PUBLISH whose topic
    is UTF-8 (others are dropped and counted in `dropped_topics`), `on_other(packet)` with the whole
    packet for the rest (returning False stops the drain: the connection went away meanwhile).
    """

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

    def has_packet(self) -> bool:
        """A whole packet is buffered (the next `drain` hands at least one over)."""
        header = _varint(self._buf, self._pos + 1, len(self._buf), "remaining length")
        return header is not None and header[0] + header[1] <= len(self._buf)

    def drain(self, limit: int, on_publish: Deliver, on_other: Callable[[bytes], bool]) -> int:
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
                    header = _varint(buf, pos + 1, end, "remaining length")
                    if header is None:
                        break
                    length, body = header
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


def _varint(buf: bytearray, at: int, end: int, what: str) -> tuple[int, int] | None:
    """The MQTT variable byte integer at `at` (a remaining length, a properties length) and where it
    ends; None when `end` comes first."""
    value = 0
    shift = 0
    while at < end:
        byte = buf[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7
        if shift == 28:
            raise MalformedPacket(f"a {what} longer than 4 bytes")
    return None


def _skip_properties(buf: bytearray, at: int, stop: int) -> int:
    """Where the payload of an MQTT 5 PUBLISH starts: after the properties' length and the properties."""
    properties = _varint(buf, at, stop, "properties length")
    if properties is None or properties[0] + properties[1] > stop:
        raise MalformedPacket("a PUBLISH whose properties run past its end")
    return properties[0] + properties[1]
