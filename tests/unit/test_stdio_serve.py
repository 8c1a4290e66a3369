"""serve_stdio in-process over os.pipe() wires: bounded line length, ordering, client cancellation."""

import asyncio
import json
import os
import threading
from collections.abc import Callable

import pytest
from mcp.server.mcpserver import MCPServer

from tests.fixtures_servers.toy_server import build_toy_server
from tests.fixtures_servers.wire import INITIALIZED, initialize, request, shape, without_log_messages
from zwave_mcp.stdio.transport import StdioWire, serve_stdio


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.close(fd)


def _read_all(fd: int, into: list[bytes]) -> None:
    while chunk := os.read(fd, 65536):
        into.append(chunk)
    os.close(fd)


async def serve_lines(lines: list[bytes], server: MCPServer | None = None, **options: object) -> list[dict]:
    """Serve the toy server (or `server`) over pipes fed with `lines` then EOF; the replies, parsed (the
    server's log notifications left out: zwave-mcp's say the broker in these tests is unreachable)."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    received: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(out_r, received), daemon=True)
    reader.start()
    feeding = asyncio.to_thread(_write_all, in_w, b"".join(line + b"\n" for line in lines))
    serving = serve_stdio(
        server or build_toy_server(),
        drain_timeout=5,
        wire=StdioWire(in_r, out_w),
        handle_signals=False,
        **options,
    )
    async with asyncio.timeout(20):
        await asyncio.gather(feeding, serving)
    os.close(out_w)
    os.close(in_r)
    await asyncio.to_thread(reader.join, 5)
    output = b"".join(received)
    return without_log_messages([json.loads(line) for line in output.splitlines()])


async def test_over_limit_line_is_answered_and_serving_continues() -> None:
    replies = await serve_lines(
        [
            initialize(1),
            b'{"jsonrpc":"2.0","id":9,"method":"ping","pad":"' + b"p" * 5000 + b'"}',
            request(2, "ping"),
        ],
        max_line_bytes=1024,
    )
    assert [shape(r) for r in replies] == [(1, "result"), (None, -32700), (2, "result")]
    assert "too long" in replies[1]["error"]["message"]


async def test_malformed_line_answer_waits_for_earlier_requests() -> None:
    slow = request(2, "tools/call", {"name": "slow", "arguments": {"seconds": 0.3}})
    replies = await serve_lines([initialize(1), INITIALIZED, slow, b"garbage", request(3, "ping")])
    assert [shape(r) for r in replies] == [(1, "result"), (2, "result"), (None, -32700), (3, "result")]


async def test_order_wait_bounds_how_long_a_slow_call_holds_up_the_error() -> None:
    slow = request(2, "tools/call", {"name": "slow", "arguments": {"seconds": 1.0}})
    replies = await serve_lines([initialize(1), INITIALIZED, slow, b"garbage"], order_wait=0.05)
    assert [shape(r) for r in replies] == [(1, "result"), (None, -32700), (2, "result")]


async def test_a_request_the_client_cancelled_is_not_waited_for_at_eof() -> None:
    slow = request(2, "tools/call", {"name": "slow", "arguments": {"seconds": 30}})
    cancel = json.dumps(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "test"}}
    ).encode()
    loop = asyncio.get_running_loop()
    started = loop.time()
    replies = await serve_lines([initialize(1), INITIALIZED, slow, cancel])
    assert [shape(r) for r in replies] == [(1, "result")]
    assert loop.time() - started < 4, "a cancelled request must not hold the drain until its timeout"


async def test_a_reply_that_cannot_be_serialized_becomes_an_error_and_serving_continues() -> None:
    server = build_toy_server()

    @server.tool()
    def unencodable() -> str:
        """Answer with a lone surrogate, made here rather than read, as a bug would."""
        return "half of a pair: " + chr(0xD800)

    replies = await serve_lines(
        [
            initialize(1),
            INITIALIZED,
            request(2, "tools/call", {"name": "unencodable", "arguments": {}}),
            request(3, "tools/call", {"name": "echo", "arguments": {"text": "still here"}}),
        ],
        server,
    )
    # The two calls run at once, so their answers may come in either order.
    assert sorted(shape(r) for r in replies) == [(1, "result"), (2, -32603), (3, "result")]
    error = next(r for r in replies if r["id"] == 2)
    assert "could not be serialized" in error["error"]["message"]


async def test_lone_surrogates_in_any_field_are_replaced_where_they_enter() -> None:
    echo = b'{"jsonrpc":"2.0","id":"a\\ud800","method":"tools/call","params":{"name":"echo","arguments":{"text":"x\\udfffy"}}}'
    replies = await serve_lines(
        [
            initialize(1),
            INITIALIZED,
            echo,
            b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo\\ud800","arguments":{}}}',
            b'{"jsonrpc":"2.0","id":5,"method":"x\\ud800"}',
            request(6, "ping"),
        ]
    )
    by_id = {r["id"]: r for r in replies}  # tool calls run concurrently: any order
    assert sorted(shape(r) for r in replies if r["id"] != "a\ufffd") == [
        (1, "result"),
        (4, "result"),
        (5, -32601),
        (6, "result"),
    ]
    assert by_id["a\ufffd"]["result"]["content"][0]["text"] == "x\ufffdy"


def _staged_server() -> tuple[MCPServer, list[str], Callable[[], None]]:
    """A server whose `finish` registers the tool `late`, and the record of finish calls."""
    server = MCPServer("staged")
    calls: list[str] = []

    def finish() -> None:
        calls.append("finish")

        @server.tool()
        def late() -> str:
            """Registered by finish."""
            return "late"

    return server, calls, finish


def _with_a_kept_list(finish: Callable[[], None]) -> dict[str, object]:
    """The transport's options for a staged server that answers tools/list itself (a kept tool list);
    after `initialize` it would wait a minute for tools/list before finishing."""
    return {
        "finish": finish,
        "answers_unfinished": lambda method: method in ("tools/list", "notifications/initialized"),
        "finish_delay": lambda answered: 60.0 if answered == "initialize" else 0.0,
    }


async def test_finish_runs_after_the_initialize_reply_and_before_any_other_request() -> None:
    server, calls, finish = _staged_server()
    replies = await serve_lines(
        [initialize(1), INITIALIZED, request(2, "tools/list")], server=server, finish=finish
    )
    assert calls == ["finish"]
    assert [shape(r) for r in replies] == [(1, "result"), (2, "result")]
    assert [t["name"] for t in replies[1]["result"]["tools"]] == ["late"]


async def test_what_the_unfinished_server_answers_itself_comes_before_finish() -> None:
    """With the last start's tool list, `tools/list` is answered before the server is built; finishing
    then follows that reply at once, not the long wait after `initialize`."""
    server, calls, finish = _staged_server()

    @server.tool()
    def early() -> str:
        """Stands for the tool list kept by the last start."""
        return "early"

    replies = await serve_lines(
        [initialize(1), INITIALIZED, request(2, "tools/list")], server=server, **_with_a_kept_list(finish)
    )
    assert [shape(r) for r in replies] == [(1, "result"), (2, "result")]
    assert [t["name"] for t in replies[1]["result"]["tools"]] == ["early"]
    assert calls == ["finish"]  # right after the tools/list reply: the 60 s wait was not needed


async def test_a_request_right_behind_an_early_answer_waits_for_it_then_meets_the_finished_server() -> None:
    """Clients send their list requests at once: tools/list is still answered by the unfinished server,
    and the call behind it reaches the finished one."""
    server, calls, finish = _staged_server()

    @server.tool()
    def early() -> str:
        """Stands for the tool list kept by the last start."""
        return "early"

    lines = [initialize(1), INITIALIZED, request(2, "tools/list"), request(3, "tools/call", {"name": "late"})]
    replies = await serve_lines(lines, server=server, **_with_a_kept_list(finish))
    assert calls == ["finish"]
    assert [shape(r) for r in replies] == [(1, "result"), (2, "result"), (3, "result")]
    assert [t["name"] for t in replies[1]["result"]["tools"]] == ["early"]
    assert replies[2]["result"]["isError"] is False


async def test_finish_runs_before_a_first_request_that_is_not_initialize() -> None:
    server = MCPServer("staged")
    seen: list[bool] = []
    finished: list[bool] = []

    @server.tool()
    def probe() -> str:
        """Says whether finish ran before this call reached the server."""
        seen.append(bool(finished))
        return "ok"

    call = request(
        1,
        "tools/call",
        {
            "name": "probe",
            "arguments": {},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    )
    await serve_lines([call], server=server, finish=lambda: finished.append(True))
    assert finished == [True]
    assert seen == [True]


async def test_a_wire_the_loop_cannot_watch_is_read_on_a_thread(tmp_path) -> None:
    """stdin redirected from a regular file (epoll refuses those): served the same, by the reader thread."""
    lines = tmp_path / "in.jsonl"
    lines.write_bytes(b"".join(line + b"\n" for line in (initialize(1), INITIALIZED, request(2, "ping"))))
    out_r, out_w = os.pipe()
    received: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(out_r, received), daemon=True)
    reader.start()
    in_fd = os.open(lines, os.O_RDONLY)
    try:
        async with asyncio.timeout(20):
            await serve_stdio(
                build_toy_server(), drain_timeout=5, wire=StdioWire(in_fd, out_w), handle_signals=False
            )
    finally:
        os.close(in_fd)
        os.close(out_w)
    await asyncio.to_thread(reader.join, 5)
    replies = [json.loads(line) for line in b"".join(received).splitlines()]
    assert [shape(r) for r in replies] == [(1, "result"), (2, "result")]


async def test_lines_keep_their_order_when_long_ones_go_through_the_writer_thread() -> None:
    """Short lines go straight from the loop, long ones through the thread: a short line written after a
    long one must still come after it on the wire, whole."""
    from zwave_mcp.stdio.transport import _WireWriter

    out_r, out_w = os.pipe()
    received: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(out_r, received), daemon=True)
    reader.start()
    writer = _WireWriter(out_w, asyncio.get_running_loop())
    lines = [b"short-1\n", b"L" * 300_000 + b"\n", b"short-2\n", b"short-3\n"]
    await asyncio.gather(*(writer.write(line) for line in lines))
    await writer.write(b"last\n")
    os.close(out_w)
    await asyncio.to_thread(reader.join, 5)
    assert b"".join(received) == b"".join([*lines, b"last\n"])


async def test_without_poll_windows_every_line_goes_through_the_writer_thread_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import select

    from zwave_mcp.stdio.transport import _WireWriter

    monkeypatch.delattr(select, "poll", raising=False)
    out_r, out_w = os.pipe()
    received: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(out_r, received), daemon=True)
    reader.start()
    writer = _WireWriter(out_w, asyncio.get_running_loop())
    lines = [b"short-1\n", b"L" * 300_000 + b"\n", b"short-2\n"]
    await asyncio.gather(*(writer.write(line) for line in lines))
    os.close(out_w)
    await asyncio.to_thread(reader.join, 5)
    assert b"".join(received) == b"".join(lines)


async def test_windows_reads_stdin_on_a_thread_and_runs_a_selector_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Windows event loop watches sockets only (the MQTT transport's), never the stdin pipe; its default
    (proactor) loop cannot watch sockets at all."""
    from zwave_mcp.stdio import transport as stdio

    monkeypatch.setattr(stdio.sys, "platform", "win32")
    in_r, in_w = os.pipe()
    reader = stdio._wire_reader(in_r, asyncio.get_running_loop(), 1024)
    assert isinstance(reader, stdio._WireReader)
    _write_all(in_w, b'{"jsonrpc":"2.0","method":"ping","id":1}\n')  # and closes it: the end of input
    async with asyncio.timeout(10):
        assert await reader.next_line() == b'{"jsonrpc":"2.0","method":"ping","id":1}'
        assert await reader.next_line() is stdio._EOF
    os.close(in_r)
    assert stdio.loop_options("win32") == {"loop_factory": asyncio.SelectorEventLoop}
    assert stdio.loop_options("linux") == {}


async def test_work_after_a_reply_runs_once_that_reply_is_on_the_wire() -> None:
    """A tool's deferred work (the gate's audit line, history rows) waits for the reply to be written."""
    import fcntl
    import struct
    import termios

    from zwave_mcp.stdio import after_reply

    server = MCPServer("deferring")
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()  # nobody reads it while serving: what is written stays in the pipe
    waiting: list[int] = []

    def bytes_on_the_wire() -> int:
        return int(struct.unpack("i", fcntl.ioctl(out_r, termios.FIONREAD, b"\0\0\0\0"))[0])

    @server.tool()
    async def act() -> str:  # async: on the loop's thread, where work is held (a sync tool runs on a worker)
        """Leaves work for after its reply."""
        waiting.append(bytes_on_the_wire())  # the initialize reply only
        after_reply.later(lambda: waiting.append(bytes_on_the_wire()))
        return "done"

    lines = [initialize(1), INITIALIZED, request(2, "tools/call", {"name": "act", "arguments": {}})]
    feeding = asyncio.to_thread(_write_all, in_w, b"".join(line + b"\n" for line in lines))
    serving = serve_stdio(server, drain_timeout=5, wire=StdioWire(in_r, out_w), handle_signals=False)
    async with asyncio.timeout(20):
        await asyncio.gather(feeding, serving)
    os.close(out_w)
    os.close(in_r)
    received: list[bytes] = []
    _read_all(out_r, received)
    replies = b"".join(received).splitlines()
    assert [json.loads(r)["id"] for r in replies] == [1, 2]
    assert waiting == [len(replies[0]) + 1, len(replies[0]) + len(replies[1]) + 2]
