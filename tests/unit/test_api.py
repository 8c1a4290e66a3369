"""ApiClient: request shape, reply matching by correlation key, timeouts, foreign/garbage replies."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from zwave_mcp.gateway.api import (
    CORRELATION_KEY,
    REQUEST_QOS,
    ApiClient,
    ApiReply,
    ApiTimeout,
    ApiUnavailable,
    SetValueStatus,
    WriteResult,
)
from zwave_mcp.gateway.topics import GatewayTopics

TOPICS = GatewayTopics("zwave", "zwave-js-ui")


class FakeTransport:
    """Records publishes; `connected` can be flipped; never talks to a network."""

    def __init__(self, connected: bool = True) -> None:
        self.connected = connected
        self.sent: list[tuple[str, dict[str, Any], int]] = []

    def publish(self, topic: str, payload: bytes | str, qos: int = 0, retain: bool = False) -> None:
        if not self.connected:
            raise ConnectionError("cannot reach the MQTT broker at 127.0.0.1:1: connection refused")
        self.sent.append((topic, json.loads(payload), qos))

    async def wait_connected(self, timeout: float) -> bool:
        return self.connected

    def unavailable_text(self) -> str:
        return "cannot reach the MQTT broker at 127.0.0.1:1: connection refused"


def reply_for(
    request: dict[str, Any], result: Any = None, success: bool = True, message: str = "ok"
) -> bytes:
    body: dict[str, Any] = {
        "success": success,
        "message": message,
        "args": request["args"],
        "origin": request,
    }
    if result is not None:
        body["result"] = result
    return json.dumps(body).encode()


async def wait_sent(transport: FakeTransport, count: int) -> None:
    for _ in range(100):
        if len(transport.sent) >= count:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"expected {count} requests, saw {len(transport.sent)}")


async def test_request_topic_payload_and_qos() -> None:
    transport = FakeTransport()
    api = ApiClient(transport, TOPICS)
    task = asyncio.create_task(api.call("setNodeName", 2, "Lamp", timeout=1))
    await wait_sent(transport, 1)
    topic, payload, qos = transport.sent[0]
    assert topic == "zwave/_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui/api/setNodeName/set"
    assert payload["args"] == [2, "Lamp"]
    assert isinstance(payload[CORRELATION_KEY], str)
    assert qos == REQUEST_QOS == 0
    api.handle_reply("setNodeName", reply_for(payload, result=True))
    reply = await task
    assert reply == ApiReply(True, "ok", True, reply.raw)
    assert not api._pending, "nothing is left in flight"


async def test_same_api_calls_get_their_own_replies_in_any_order() -> None:
    transport = FakeTransport()
    api = ApiClient(transport, TOPICS)
    tasks = [asyncio.create_task(api.call("pollValue", n, timeout=1)) for n in range(5)]
    await wait_sent(transport, 5)
    for _, payload, _ in reversed(transport.sent):
        api.handle_reply("pollValue", reply_for(payload, result=payload["args"][0] * 10))
    assert [(await t).result for t in tasks] == [0, 10, 20, 30, 40]


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"\xff\xfe\x00binary",
        b"not json",
        b"[1,2,3]",
        b'{"success":true}',
        b'{"success":true,"origin":"raw string"}',
        b'{"success":true,"origin":{"args":[]}}',
        b'{"success":true,"origin":{"zwaveMcpId":"someone-else-1"}}',
        b'{"success":true,"origin":{"zwaveMcpId":17}}',
        b"[" * 100_000,
        b'{"x":"' + b"a" * 3_000_000 + b'"}',
    ],
)
async def test_foreign_and_garbage_replies_are_ignored(payload: bytes) -> None:
    transport = FakeTransport()
    api = ApiClient(transport, TOPICS)
    task = asyncio.create_task(api.call("getInfo", timeout=1))
    await wait_sent(transport, 1)
    api.handle_reply("getInfo", payload)  # must not raise nor resolve our call
    assert not task.done()
    api.handle_reply("getInfo", reply_for(transport.sent[0][1], result={"homeid": 1}))
    assert (await task).result == {"homeid": 1}


async def test_reply_on_another_api_topic_does_not_resolve() -> None:
    transport = FakeTransport()
    api = ApiClient(transport, TOPICS)
    task = asyncio.create_task(api.call("getInfo", timeout=0.2))
    await wait_sent(transport, 1)
    api.handle_reply("getNodes", reply_for(transport.sent[0][1], result=[]))
    with pytest.raises(ApiTimeout, match=r"zwave-js-ui did not answer getInfo within 0.2 s"):
        await task


async def test_no_reply_times_out_and_cleans_up() -> None:
    api = ApiClient(FakeTransport(), TOPICS)
    with pytest.raises(ApiTimeout, match=r"did not answer getNodes within 0\.05 s"):
        await api.call("getNodes", timeout=0.05)
    assert not api._pending, "nothing is left in flight"


async def test_disconnected_fails_fast_with_reason() -> None:
    api = ApiClient(FakeTransport(connected=False), TOPICS)
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(ApiUnavailable, match="connection refused"):
        await api.call("getInfo", timeout=5)
    assert loop.time() - started < 1


async def test_fail_all_wakes_calls_in_flight() -> None:
    transport = FakeTransport()
    api = ApiClient(transport, TOPICS)
    task = asyncio.create_task(api.call("writeValue", {"nodeId": 2}, True, timeout=5))
    await wait_sent(transport, 1)
    api.fail_all("lost the connection to 127.0.0.1:1883")
    with pytest.raises(ApiUnavailable, match="may still have been carried out"):
        await task


def _reply(result: Any, success: bool = True, message: str = "Success zwave api call") -> ApiReply:
    raw: dict[str, Any] = {"success": success, "message": message}
    if result is not None:
        raw["result"] = result
    return ApiReply(success, message, result, raw)


@pytest.mark.parametrize(
    ("result", "status", "succeeded"),
    [
        ({"status": 255}, SetValueStatus.SUCCESS, True),
        ({"status": 254}, SetValueStatus.SUCCESS_UNSUPERVISED, True),
        ({"status": 1, "remainingDuration": {"value": 1, "unit": "seconds"}}, SetValueStatus.WORKING, True),
        ({"status": 2}, SetValueStatus.FAIL, False),
        ({"status": 0}, SetValueStatus.NO_DEVICE_SUPPORT, False),
        ({"status": 3}, SetValueStatus.ENDPOINT_NOT_FOUND, False),
        ({"status": 4}, SetValueStatus.NOT_IMPLEMENTED, False),
        ({"status": 99}, None, False),
        ({}, None, False),
        (None, None, False),
        ("weird", None, False),
    ],
)
def test_write_result_reads_result_status_not_the_envelope(result: Any, status: Any, succeeded: bool) -> None:
    write = WriteResult.from_reply(_reply(result), {"nodeId": 2}, True)
    assert write.status == status
    assert write.succeeded is succeeded


def test_write_result_keeps_gateway_message_and_duration() -> None:
    text = 'Thermostat Setpoint: "setpoint" must be of type "number", received "string" (ZW0322)'
    write = WriteResult.from_reply(_reply({"status": 5, "message": text}), {"nodeId": 6}, "hot")
    assert write.status is SetValueStatus.INVALID_VALUE
    assert write.message == text
    working = WriteResult.from_reply(_reply({"status": 1, "remainingDuration": {"value": 2}}), {}, 50)
    assert working.working and working.remaining_duration == {"value": 2}


def test_write_result_envelope_failure() -> None:
    write = WriteResult.from_reply(_reply(None, success=False, message="Unknown API"), {}, 1)
    assert write.status is None and not write.succeeded and write.message == "Unknown API"


HOSTILE = "\u202e\x00refused\x1b[31m\n" * 2_000


async def test_zwave_js_ui_words_reach_a_person_as_one_plain_bounded_line() -> None:
    """A failure message with control characters, overrides and 30 kB was quoted as it came."""
    transport = FakeTransport()
    api = ApiClient(transport, TOPICS)
    call = asyncio.create_task(api.call("writeValue", {"nodeId": 2}, True, timeout=1))
    await wait_sent(transport, 1)
    api.handle_reply("writeValue", reply_for(transport.sent[0][1], success=False, message=HOSTILE))
    reply = await call
    write = WriteResult.from_reply(reply, {"nodeId": 2}, True)
    assert len(write.message) <= 300 and write.message.isprintable() and "refused" in write.message
    invalid = WriteResult.from_reply(_reply({"status": 5, "message": HOSTILE}), {"nodeId": 2}, True)
    assert len(invalid.message) <= 300 and invalid.message.isprintable()
    odd = WriteResult.from_reply(_reply({"status": "x" * 100_000}), {"nodeId": 2}, True)
    assert len(odd.message) < 120
