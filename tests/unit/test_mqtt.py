"""Transport pieces that need no broker: backoff, error words, client ids, TLS set-up, no secrets in logs."""

from __future__ import annotations

import asyncio
import itertools
import logging
import socket
import ssl

import pytest

from zwave_mcp.config import Settings, build_tls_context
from zwave_mcp.gateway import mqtt, mqtt_reads
from zwave_mcp.gateway.mqtt import MqttTransport, MqttUnavailable, backoff_delay, describe_connect_error


def test_backoff_grows_from_base_by_factor_up_to_cap() -> None:
    delays = [backoff_delay(n) for n in range(1, 12)]
    assert delays[0] == 0.0, "the first attempt does not wait"
    assert delays[1] == mqtt.RECONNECT_BASE_S
    assert delays[2] == pytest.approx(mqtt.RECONNECT_BASE_S * mqtt.RECONNECT_FACTOR)
    assert all(b >= a for a, b in itertools.pairwise(delays))
    assert max(delays) == mqtt.RECONNECT_CAP_S
    assert mqtt.RECONNECT_CAP_S <= 2.0, "a returning broker must be used again within 2 s"


def test_connect_errors_read_like_sentences() -> None:
    addr = "127.0.0.1:1883"
    assert describe_connect_error(ConnectionRefusedError(111, "Connection refused"), addr) == (
        "connection refused by 127.0.0.1:1883"
    )
    assert "within" in describe_connect_error(TimeoutError(), addr)
    assert "resolve" in describe_connect_error(socket.gaierror(-2, "Name or service not known"), addr)
    cert = ssl.SSLCertVerificationError(1, "certificate verify failed")
    cert.verify_message = "self-signed certificate"
    assert (
        describe_connect_error(cert, addr)
        == "TLS certificate of 127.0.0.1:1883 not trusted: self-signed certificate"
    )
    assert describe_connect_error(ssl.SSLError(1, "wrong version"), addr).startswith(
        "TLS error with 127.0.0.1:1883"
    )


def test_client_id_unique_unless_configured() -> None:
    a = MqttTransport(Settings(), on_message=lambda *a: None)
    b = MqttTransport(Settings(), on_message=lambda *a: None)
    assert a.client_id != b.client_id and a.client_id.startswith("zwave-mcp-")
    fixed = MqttTransport(Settings(mqtt_client_id="kitchen-pi"), on_message=lambda *a: None)
    assert fixed.client_id == "kitchen-pi"


def test_tls_insecure_turns_verification_off_and_warns(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="zwave_mcp.config"):
        context = build_tls_context(Settings(mqtt_url="mqtts://127.0.0.1", tls_insecure=True))
    assert context.verify_mode == ssl.CERT_NONE and not context.check_hostname
    assert any("verification is switched off" in r.getMessage() for r in caplog.records)
    strict = build_tls_context(Settings(mqtt_url="mqtts://127.0.0.1"))
    assert strict.verify_mode == ssl.CERT_REQUIRED and strict.check_hostname


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_refused_broker_keeps_trying_logs_attempts_never_the_password(
    caplog: pytest.LogCaptureFixture,
) -> None:
    port = _closed_port()
    settings = Settings(mqtt_url=f"mqtt://alice@127.0.0.1:{port}", mqtt_password="hunter2-secret")
    transport = MqttTransport(settings, on_message=lambda *a: None)
    caplog.set_level(logging.DEBUG)
    loop = asyncio.get_running_loop()
    started = loop.time()
    transport.start()
    assert loop.time() - started < 0.05, "start() must return at once"
    try:
        for _ in range(300):
            if len([r for r in caplog.records if "connection attempt" in r.getMessage()]) >= 3:
                break
            await asyncio.sleep(0.01)
        attempts = [r for r in caplog.records if "connection attempt" in r.getMessage()]
        assert len(attempts) >= 3, "it must keep trying"
        assert [getattr(r, "attempt", None) for r in attempts[:3]] == [1, 2, 3]
        assert getattr(attempts[1], "delay_s", None) is not None
        assert transport.last_error == f"connection refused by 127.0.0.1:{port}"
        assert not transport.connected
        with pytest.raises(MqttUnavailable) as refused:
            transport.publish("x/y", b"1")
        # The broker's address is said once (it was "… at 127.0.0.1:N: connection refused by 127.0.0.1:N").
        assert str(refused.value) == f"cannot reach the MQTT broker: connection refused by 127.0.0.1:{port}"
    finally:
        await transport.stop()
    text = caplog.text + " ".join(str(vars(r)) for r in caplog.records)
    assert "hunter2-secret" not in text


def _publish_packet(topic: bytes, payload: bytes) -> bytes:
    body = len(topic).to_bytes(2, "big") + topic + payload
    return b"\x30" + bytes([len(body)]) + body


async def test_a_flood_read_at_once_is_handled_a_bounded_batch_per_loop_turn() -> None:
    """Many packets arrive in one read: at most READ_BATCH are handled per event-loop turn (the other
    lane and the MCP session get theirs in between), and the rest follow with no new bytes needed."""
    got: list[str] = []
    transport = MqttTransport(Settings(mqtt_version="3.1.1"), on_message=lambda t, p, r: got.append(t))
    ours, broker = socket.socketpair()
    ours.setblocking(False)
    count = 10 * mqtt_reads.READ_BATCH + 5
    broker.sendall(b"".join(_publish_packet(b"t/%d" % i, b"x") for i in range(count)))
    loop = asyncio.get_running_loop()
    transport._loop = loop
    transport._attach(ours)
    per_turn: list[int] = []
    try:
        for _ in range(100):  # one sleep(0) is one loop turn
            seen = len(got)
            await asyncio.sleep(0)
            per_turn.append(len(got) - seen)
            if len(got) == count:
                break
        assert got == [f"t/{i}" for i in range(count)]
        assert max(per_turn) <= mqtt_reads.READ_BATCH
    finally:
        transport._detach()
        ours.close()
        broker.close()
