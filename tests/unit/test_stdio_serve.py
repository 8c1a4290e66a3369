"""serve_stdio in-process over os.pipe() wires: bounded line length, ordering, client cancellation."""

import asyncio
import json
import os
import threading

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


async def test_stdin_is_read_on_a_thread_and_windows_runs_a_selector_loop() -> None:
    """The wire is read on a thread on every platform (a Windows event loop watches sockets only, never
    the stdin pipe); Windows' default (proactor) loop cannot watch the MQTT transport's sockets at all."""
    from zwave_mcp.stdio import transport as stdio

    in_r, in_w = os.pipe()
    reader = stdio._WireReader(in_r, asyncio.get_running_loop(), 1024)
    _write_all(in_w, b'{"jsonrpc":"2.0","method":"ping","id":1}\n')  # and closes it: the end of input
    async with asyncio.timeout(10):
        assert await reader.next_line() == b'{"jsonrpc":"2.0","method":"ping","id":1}'
        assert await reader.next_line() is stdio._EOF
    os.close(in_r)
    assert stdio.loop_options("win32") == {"loop_factory": asyncio.SelectorEventLoop}
    assert stdio.loop_options("linux") == {}


async def test_a_calls_log_lines_are_written_once_its_answer_is_on_the_wire() -> None:
    """Lines logged on the loop while a call is answered go to the log handlers after its answer (each
    write to stderr wakes the reader: it must not come before the reply); the rest go through at once."""
    import fcntl
    import logging
    import struct
    import termios

    server = MCPServer("logging")
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()  # nobody reads it while serving: what is written stays in the pipe
    seen: list[tuple[str, int]] = []

    def bytes_on_the_wire() -> int:
        return int(struct.unpack("i", fcntl.ioctl(out_r, termios.FIONREAD, b"\0\0\0\0"))[0])

    class Watching(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.name == "test.call":
                seen.append((record.getMessage(), bytes_on_the_wire()))

    @server.tool()
    async def act() -> str:  # async: on the loop's thread (a sync tool runs on a worker thread)
        """Logs while it works."""
        logging.getLogger("test.call").warning("audit line")
        return "done"

    root = logging.getLogger()
    watching = Watching()
    root.addHandler(watching)
    try:
        lines = [initialize(1), INITIALIZED, request(2, "tools/call", {"name": "act", "arguments": {}})]
        feeding = asyncio.to_thread(_write_all, in_w, b"".join(line + b"\n" for line in lines))
        serving = serve_stdio(server, drain_timeout=5, wire=StdioWire(in_r, out_w), handle_signals=False)
        async with asyncio.timeout(20):
            await asyncio.gather(feeding, serving)
        assert watching in root.handlers  # the transport gave the handlers back
        logging.getLogger("test.call").warning("after serving")
    finally:
        root.removeHandler(watching)
    os.close(out_w)
    os.close(in_r)
    received: list[bytes] = []
    _read_all(out_r, received)
    replies = b"".join(received).splitlines()
    assert [json.loads(r)["id"] for r in replies] == [1, 2]
    on_the_wire = len(replies[0]) + len(replies[1]) + 2
    assert seen == [("audit line", on_the_wire), ("after serving", on_the_wire)]
