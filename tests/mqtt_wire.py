"""MQTT packets as a broker sends them, made by hand for tests of the transport's own packet reader."""

from __future__ import annotations


def remaining_length(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n % 128, n // 128
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def publish(
    topic: bytes, payload: bytes, retain: bool = False, qos: int = 0, properties: bytes | None = None
) -> bytes:
    """A PUBLISH packet; `properties` (MQTT 5) is the encoded property block, length included."""
    body = len(topic).to_bytes(2, "big") + topic
    if qos:
        body += (7).to_bytes(2, "big")  # packet id
    if properties is not None:
        body += properties
    body += payload
    return bytes([0x30 | qos << 1 | int(retain)]) + remaining_length(len(body)) + body
