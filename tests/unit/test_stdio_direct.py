"""The stdio transport's direct lane for tools/call (zwave_mcp.stdio.direct): the calls it takes are
answered as the SDK answers them, and every call it must not take reaches the SDK."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from typing import Any

from mcp_types import INTERNAL_ERROR, JSONRPCResponse
from mcp_types.methods import serialize_server_result, validate_client_request
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from tests.fixtures_servers.wire import INITIALIZED, request, shape, without_log_messages
from tests.unit.test_stdio_serve import serve_lines
from zwave_mcp.config import Settings
from zwave_mcp.server.build import stage_server
from zwave_mcp.server.executor import ToolAnswer
from zwave_mcp.stdio.direct import ToolCall, answer_line, can_ask, plain_call
from zwave_mcp.stdio.transport import StdioWire, serve_stdio

# A broker nobody listens on: the tools that need zwave-js-ui answer that it is unavailable, at once.
SETTINGS: dict[str, Any] = {"mqtt_url": "mqtt://127.0.0.1:9", "history_path": "", "tool_timeout": 5}


def initialize(rid: int, capabilities: dict[str, Any], version: str = "2025-11-25") -> bytes:
    params = {
        "protocolVersion": version,
        "capabilities": capabilities,
        "clientInfo": {"name": "t", "version": "0"},
    }
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": params}).encode()


def cancel(rid: int) -> bytes:
    params = {"requestId": rid, "reason": "the person changed their mind"}
    return json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}).encode()


CALLS = [
    request(2, "tools/call", {"name": "check_zwave_health", "arguments": {}}),
    request(3, "tools/call", {"name": "no_such_tool", "arguments": {}}),
    request(4, "tools/call", {"name": "list_zwave_devices", "arguments": {"limit": "many"}}),
    request(5, "tools/call", {"name": "get_device_state"}),  # no arguments at all
    request(6, "tools/call", {"name": "get_device_state", "arguments": [1]}),  # not an object
    request(7, "tools/call", {"arguments": {}}),  # no name
]


def counted(factory: Callable[[], ToolCall | None], taken: list[str]) -> Callable[[], ToolCall | None]:
    """The staged server's direct tool call, recording the names of the calls the lane took."""

    def direct() -> ToolCall | None:
        call = factory()
        if call is None:
            return None

        async def run(name: str, arguments: Any) -> Any:
            taken.append(name)
            return await call(name, arguments)

        return run

    return direct


async def answers(capabilities: dict[str, Any], lines: list[bytes]) -> tuple[dict[Any, Any], list[str]]:
    staged = stage_server(Settings(**SETTINGS))
    taken: list[str] = []
    replies = await serve_lines(
        [initialize(1, capabilities), INITIALIZED, *lines],
        server=staged.server,
        finish=staged.finish,
        direct_tool_call=counted(staged.direct_tool_call, taken),
    )
    return {r["id"]: r for r in replies}, taken


def comparable(reply: dict[str, Any]) -> dict[str, Any]:
    """A reply without what differs between two runs of a call: its time, and whether the first connection
    attempt to the silent broker had failed yet when the call ran ("not connected yet" or "connection
    refused by …"); and without the 2026-era `resultType` the SDK leaves in an answer a middleware gives
    on a 2025-era connection (it removes it from its handlers' answers; the lane removes it from every
    answer, the same way)."""
    for text in ("not connected yet", "connection refused by 127.0.0.1:9"):
        reply = json.loads(json.dumps(reply).replace(text, "<the first attempt's state>"))
    result = reply.get("result") or {}
    result.pop("resultType", None)
    envelope = result.get("structuredContent")
    if isinstance(envelope, dict):
        envelope.pop("execution_time_ms", None)
    return reply


async def test_a_client_that_cannot_be_asked_gets_the_same_answers_through_the_lane() -> None:
    direct, taken = await answers({}, CALLS)
    through_sdk, not_taken = await answers({"elicitation": {}}, CALLS)

    assert taken == ["check_zwave_health", "no_such_tool", "list_zwave_devices", "get_device_state"]
    assert not_taken == []  # a client that can be asked: every call through the SDK
    assert sorted(direct) == sorted(through_sdk) == [1, 2, 3, 4, 5, 6, 7]
    for rid in range(2, 8):
        assert comparable(direct[rid]) == comparable(through_sdk[rid]), rid
    assert (
        direct[3]["result"]["isError"] is True and "Unknown tool" in direct[3]["result"]["content"][0]["text"]
    )
    assert "must be a JSON object" in direct[6]["result"]["content"][0]["text"]  # the SDK's path, refused
    assert direct[7]["result"]["isError"] is True  # no name: refused as an unknown tool, on either path


async def test_calls_with_meta_or_request_state_go_to_the_sdk() -> None:
    health = {"name": "check_zwave_health", "arguments": {}}
    lines = [
        request(2, "tools/call", {**health, "_meta": {"progressToken": "p1"}}),
        request(3, "tools/call", {**health, "requestState": "abc"}),
        request(4, "tools/call", health),  # the same call, plain: the lane's
    ]
    replies, taken = await answers({}, lines)
    assert taken == ["check_zwave_health"]
    assert shape(replies[2]) == (2, "result") and shape(replies[4]) == (4, "result")


async def test_an_earlier_handshake_version_is_served_by_the_lane_too() -> None:
    staged = stage_server(Settings(**SETTINGS))
    taken: list[str] = []
    replies = await serve_lines(
        [
            initialize(1, {}, version="2025-06-18"),
            INITIALIZED,
            request(2, "tools/call", {"name": "check_zwave_health", "arguments": {}}),
        ],
        server=staged.server,
        finish=staged.finish,
        direct_tool_call=counted(staged.direct_tool_call, taken),
    )
    assert replies[0]["result"]["protocolVersion"] == "2025-06-18"
    assert taken == ["check_zwave_health"] and shape(replies[1]) == (2, "result")


async def test_a_cancelled_call_is_not_answered_and_serving_goes_on() -> None:
    lane_took: list[str] = []
    finished: list[str] = []

    async def stuck(name: str, arguments: Any) -> Any:
        await asyncio.Event().wait()  # a write whose device never answers
        finished.append(name)

    def direct() -> ToolCall:
        lane_took.append("tools/call")  # asked only when the lane takes a call
        return stuck

    staged = stage_server(Settings(**SETTINGS))
    replies = await serve_lines(
        [
            initialize(1, {}),
            INITIALIZED,
            request(2, "tools/call", {"name": "control_zwave_device", "arguments": {}}),
            cancel(2),
            request(3, "ping"),
        ],
        server=staged.server,
        finish=staged.finish,
        direct_tool_call=direct,
    )
    assert lane_took == ["tools/call"] and finished == []
    assert [shape(r) for r in replies] == [(1, "result"), (3, "result")]


def test_what_counts_as_a_client_that_can_be_asked() -> None:
    assert can_ask({"capabilities": {"elicitation": {}}})
    assert can_ask({"capabilities": {"elicitation": {"url": {}}}})
    assert not can_ask({"capabilities": {}})
    assert not can_ask({"capabilities": {"sampling": {}, "roots": {}}})
    assert can_ask(None) and can_ask({"capabilities": "yes"})  # unreadable: the SDK's path


# -- a call taken as it is read (the stdio reader hands it to the lane, not to its inbox) ----------------


async def test_the_reader_hands_a_line_over_only_when_nothing_read_before_it_waits() -> None:
    from zwave_mcp.stdio.transport import _LoopWireReader

    in_r, in_w = os.pipe()
    offered: list[bytes] = []
    reader = _LoopWireReader(in_r, asyncio.get_running_loop(), 1 << 20)
    reader.take = lambda line: offered.append(line) or line.startswith(b"take")
    try:
        os.write(in_w, b"take 1\nkeep 2\ntake 3\n")  # one read: 1 is taken, 2 waits, so 3 waits behind it
        assert await reader.next_line() == b"keep 2"
        assert await reader.next_line() == b"take 3"
        os.write(in_w, b"take 4\nkeep 5\n")  # the inbox is empty again
        assert await reader.next_line() == b"keep 5"
        assert offered == [b"take 1", b"keep 2", b"take 4", b"keep 5"]
    finally:
        reader.close()
        os.close(in_w)
        os.close(in_r)


class Client:
    """Speaks to `serve_stdio` over pipes one line at a time, as a client does (each line is read alone,
    so a `tools/call` reaches the lane straight from the reader)."""

    def __init__(self) -> None:
        self.in_r, self.in_w = os.pipe()
        self.out_r, self.out_w = os.pipe()
        self._buffer = b""

    def send(self, line: bytes) -> None:
        os.write(self.in_w, line + b"\n")

    async def reply(self) -> dict[str, Any]:
        """The next answer (log notifications are passed over)."""
        while True:
            while b"\n" not in self._buffer:
                self._buffer += await asyncio.to_thread(os.read, self.out_r, 65536)
            line, _, self._buffer = self._buffer.partition(b"\n")
            message = dict(json.loads(line))
            if without_log_messages([message]):
                return message


async def test_calls_taken_as_they_are_read_are_answered_and_cancelled_like_the_rest() -> None:
    staged = stage_server(Settings(**SETTINGS))
    taken: list[str] = []
    client = Client()
    stuck = asyncio.Event()

    def direct() -> ToolCall | None:
        call = counted(staged.direct_tool_call, taken)()
        if call is None:
            return None

        async def run(name: str, arguments: Any) -> Any:
            if name == "control_zwave_device":
                stuck.set()
                await asyncio.Event().wait()  # a write whose device never answers
            return await call(name, arguments)

        return run

    serving = asyncio.ensure_future(
        serve_stdio(
            staged.server,
            drain_timeout=5,
            wire=StdioWire(client.in_r, client.out_w),
            handle_signals=False,
            finish=staged.finish,
            direct_tool_call=direct,
        )
    )
    try:
        async with asyncio.timeout(20):
            client.send(initialize(1, {}))
            assert shape(await client.reply()) == (1, "result")
            client.send(INITIALIZED)
            for rid, line in enumerate(CALLS, start=2):
                client.send(line)
                assert (await client.reply())["id"] == rid
            assert taken == ["check_zwave_health", "no_such_tool", "list_zwave_devices", "get_device_state"]
            client.send(request(20, "tools/call", {"name": "control_zwave_device", "arguments": {}}))
            await stuck.wait()
            client.send(cancel(20))
            client.send(request(21, "ping"))
            assert shape(await client.reply()) == (21, "result")  # 20 is never answered
    finally:
        os.close(client.in_w)  # the end of input: serving ends
        await asyncio.wait_for(serving, 10)
        for fd in (client.in_r, client.out_w, client.out_r):
            os.close(fd)


async def test_a_line_whose_taking_fails_is_still_read_in_order() -> None:
    from zwave_mcp.stdio.transport import _LoopWireReader

    in_r, in_w = os.pipe()
    reader = _LoopWireReader(in_r, asyncio.get_running_loop(), 1 << 20)

    def broken(line: bytes) -> bool:
        raise RuntimeError("a bug in the lane")

    reader.take = broken
    try:
        os.write(in_w, b"one\ntwo\n")
        assert [await reader.next_line(), await reader.next_line()] == [b"one", b"two"]
    finally:
        reader.close()
        os.close(in_w)
        os.close(in_r)


# -- the lane's own checks and answers, against the SDK's --------------------------------------------------

PLAIN_PARAMS = [
    {"name": "get_device_state"},
    {"name": "control_zwave_device", "arguments": {"deviceName": "Kitchen Light", "action": "on"}},
    {"name": "", "arguments": {}},
    {"name": "x", "arguments": {"nested": {"deep": [1, None, "ü"]}}},
]
NOT_PLAIN_PARAMS = [
    {"name": "x", "arguments": None},  # valid, but left to the SDK's validation
    {"name": "x", "arguments": [1]},
    {"name": 5, "arguments": {}},
    {"arguments": {}},
    {"name": "x", "arguments": {}, "task": {"ttl": 1000}},
]


def test_a_plain_call_is_one_the_sdk_validates_in_every_era() -> None:
    for params in PLAIN_PARAMS:
        assert plain_call(params), params
        for version in HANDSHAKE_PROTOCOL_VERSIONS:
            validate_client_request("tools/call", version, params)  # raises if the lane were wrong
    for params in NOT_PLAIN_PARAMS:
        assert not plain_call(params), params


ANSWERS = [
    ToolAnswer(
        text="Kitchen Light is on.",
        envelope={
            "success": True,
            "tool_name": "t",
            "execution_time_ms": 0.5,
            "result": {"a": None},
            "error": None,
        },
        is_error=False,
    ),
    ToolAnswer(  # the same shape as the first: its answer comes from the shape kept for the first
        text='Die Küchenlampe ist "aus".',
        envelope={"success": True, "tool_name": "t", "execution_time_ms": 0.2, "result": {}, "error": None},
        is_error=False,
    ),
    ToolAnswer(
        text="No device is called Attic Fan; try list_zwave_devices.",
        envelope={
            "success": False,
            "tool_name": "t",
            "execution_time_ms": 1.0,
            "result": None,
            "error": "No",
        },
        is_error=True,
    ),
    ToolAnswer(
        text="Energy over the week, with a chart.",
        envelope={"success": True, "tool_name": "t", "execution_time_ms": 2.0, "result": {"n": [1.5, 2]}},
        is_error=False,
        images=((b"\x89PNG\r\n", "image/png"),),
    ),
]


def test_the_lanes_answer_line_is_the_sdks_answer_in_every_era() -> None:
    for answer in ANSWERS:
        for version in HANDSHAKE_PROTOCOL_VERSIONS:
            dumped = answer.result().model_dump(by_alias=True, mode="json", exclude_none=True)
            sdk = JSONRPCResponse(
                jsonrpc="2.0", id=7, result=serialize_server_result("tools/call", version, dumped)
            ).model_dump_json(by_alias=True, exclude_unset=True)
            assert answer_line(7, answer, version) == sdk.encode() + b"\n", (answer.text, version)


def test_an_answer_that_cannot_be_encoded_becomes_an_error_answer() -> None:
    broken = ToolAnswer(text="a lone surrogate \ud800", envelope={}, is_error=False)
    reply = json.loads(answer_line("r1", broken, "2025-11-25"))
    assert reply["id"] == "r1" and reply["error"]["code"] == INTERNAL_ERROR
    assert "could not be serialized" in reply["error"]["message"]
