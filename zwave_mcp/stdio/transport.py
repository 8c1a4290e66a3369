"""Serve an `MCPServer` over stdin/stdout with the guarantees the SDK's stdio transport lacks.

- `protect_stdout()` moves the JSON-RPC wire to private descriptors and points fd 1 (and fd 0) away, so
  anything printed later - imports, `print()`, warnings, C extensions, tracebacks - lands on stderr.
- Every input line gets an answer: not JSON → -32700 (id null); JSON that is not a JSON-RPC message →
  -32600 (with the id when one can be read). The SDK drops such lines silently (python-sdk #2751).
- Lines are read with a bounded buffer: an over-long line is skipped (answered -32700), never held whole.
- Text read is made encodable (lone surrogates become U+FFFD, see safetext); a reply that still cannot be
  serialized becomes a -32603 error for its id, and serving goes on.
- A `tools/call` that needs nothing of the SDK's request context is answered here, without the SDK's
  dispatcher (zwave_mcp.stdio.direct): the same answer, 0.3-0.6 ms sooner.
- On stdin EOF, requests already read are answered (bounded by `drain_timeout`) before we return; requests
  still unanswered then get an error instead of silence. SIGTERM/SIGINT end the serving quietly.

Only the standard library is imported at module level: the CLI imports this before anything else so
stdout is protected before any dependency can print.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import queue
import select
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Self

from zwave_mcp.safetext import json_kind, loads_json

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from zwave_mcp.stdio.direct import ToolCall

logger = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603

MAX_LINE_BYTES = 8 * 1024 * 1024
"""Longest input line we parse; longer lines are discarded as they stream in (memory stays bounded)."""

ORDER_WAIT = 1.0
"""How long the answer to a malformed line waits for earlier requests to be answered first, so replies
keep the order of the lines that caused them; a slow tool call does not hold the reader up longer."""

_READ_CHUNK = 64 * 1024
_INBOX_SIZE = 16  # lines buffered between the reader thread and the event loop (backpressure)


# --------------------------------------------------------------------------------------------------
# stdout protection


@dataclass(frozen=True)
class StdioWire:
    """The private descriptors that carry JSON-RPC: read requests from `in_fd`, write replies to `out_fd`."""

    in_fd: int
    out_fd: int


_wire: StdioWire | None = None
_wire_lock = threading.Lock()


def _dup_private(fd: int) -> int:
    """Duplicate fd above the standard range, close-on-exec so child processes never inherit the wire."""
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


def protect_stdout() -> StdioWire:
    """Claim the process's stdin/stdout for the transport. Call it first thing; idempotent.

    fd 1 becomes a copy of stderr and fd 0 reads /dev/null, so stray writers (and child processes) can
    never touch the wire. `sys.stdout` is pointed at stderr too; whatever it had buffered goes there.
    """
    global _wire
    with _wire_lock:
        if _wire is not None:
            return _wire
        out_fd = _dup_private(1)
        in_fd = _dup_private(0)
        os.dup2(2, 1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(devnull, 0)
        finally:
            os.close(devnull)
        # Buffered text printed before this call now flushes into fd 1, which is stderr.
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        sys.stdout = sys.stderr
        with contextlib.suppress(Exception):
            sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
        _wire = StdioWire(in_fd=in_fd, out_fd=out_fd)
        return _wire


# --------------------------------------------------------------------------------------------------
# Line framing and classification (pure; shared with the stdio_check harness)


@dataclass(frozen=True)
class Oversize:
    """A line longer than the limit; its content was discarded while reading."""

    size: int


class LineSplitter:
    """Split a byte stream into lines without ever holding more than `max_line` bytes of one line."""

    def __init__(self, max_line: int = MAX_LINE_BYTES) -> None:
        self._max = max_line
        self._buf = bytearray()
        self._skipped: int | None = None  # bytes of the current over-long line seen so far

    def feed(self, chunk: bytes) -> list[bytes | Oversize]:
        out: list[bytes | Oversize] = []
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            piece = chunk[start:] if nl < 0 else chunk[start:nl]
            self._take(piece)
            if nl < 0:
                return out
            out.append(self._end_line())
            start = nl + 1

    def finish(self) -> list[bytes | Oversize]:
        """The last line when the stream ends without a newline."""
        if self._skipped is None and not self._buf:
            return []
        return [self._end_line()]

    def _take(self, piece: bytes) -> None:
        if self._skipped is not None:
            self._skipped += len(piece)
            return
        self._buf += piece
        if len(self._buf) > self._max:
            self._skipped = len(self._buf)
            self._buf = bytearray()

    def _end_line(self) -> bytes | Oversize:
        if self._skipped is not None:
            line: bytes | Oversize = Oversize(self._skipped)
            self._skipped = None
        else:
            line = bytes(self._buf)
        self._buf = bytearray()
        return line


def iter_lines(read: Callable[[], bytes], max_line: int = MAX_LINE_BYTES) -> Iterator[bytes | Oversize]:
    """Lines from a blocking `read()` that returns b"" at end of stream."""
    splitter = LineSplitter(max_line)
    while chunk := read():
        yield from splitter.feed(chunk)
    yield from splitter.finish()


Kind = Literal["blank", "message", "parse_error", "invalid"]


@dataclass(frozen=True)
class LineVerdict:
    """What one input line is, and (for bad lines) the JSON-RPC error that answers it."""

    kind: Kind
    value: Any = None
    request_id: int | str | None = None
    reason: str = ""

    def error_reply(self) -> bytes | None:
        if self.kind == "parse_error":
            return error_line(None, PARSE_ERROR, f"Parse error: {self.reason}")
        if self.kind == "invalid":
            return error_line(self.request_id, INVALID_REQUEST, f"Invalid Request: {self.reason}")
        return None


def error_line(request_id: int | str | None, code: int, message: str) -> bytes:
    reply = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return json.dumps(reply, separators=(",", ":")).encode() + b"\n"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_STRICT_JSON = json.JSONDecoder(parse_constant=_reject_constant)


def parse_json(line: bytes | str) -> Any:
    """json.loads that refuses NaN/Infinity and reports absurd nesting as a ValueError.

    Lone surrogates (`"\\ud800"`) become U+FFFD, so nothing read here can make a reply unserializable.
    """
    try:
        return loads_json(line, decoder=_STRICT_JSON, parse_constant=_reject_constant)
    except RecursionError as exc:
        raise ValueError("nested too deeply") from exc


def readable_id(value: Any) -> int | str | None:
    """The request id of a JSON object, when it has one MCP accepts (a string or an integer)."""
    if isinstance(value, dict):
        rid = value.get("id")
        if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)):
            return rid
    return None


def jsonrpc_problem(value: Any) -> str | None:
    """Why `value` is not a JSON-RPC 2.0 message (request, notification or response), or None if it is."""
    if isinstance(value, list):
        return "batches are not supported" if value else "empty array"
    if not isinstance(value, dict):
        return f"expected an object, got {json_kind(value)}"
    if value.get("jsonrpc") != "2.0":
        return 'missing "jsonrpc": "2.0"'
    has_id = "id" in value
    rid = value.get("id")
    if has_id and rid is not None and readable_id(value) is None:
        return "id must be a string or an integer"
    if "method" in value:
        if not isinstance(value["method"], str):
            return "method must be a string"
        if "result" in value or "error" in value:
            return "a request cannot carry result or error"
        if "params" in value and not isinstance(value["params"], dict | list):
            return "params must be an object or an array"
        if has_id and rid is None:
            return "a request id cannot be null"
        return None
    if ("result" in value) == ("error" in value):
        return "needs exactly one of method, result or error"
    if not has_id:
        return "a response needs an id"
    if "error" in value:
        err = value["error"]
        if not isinstance(err, dict) or not isinstance(err.get("code"), int) or "message" not in err:
            return "error must be an object with an integer code and a message"
    elif rid is None:
        return "a result needs a non-null id"
    return None


def classify_line(line: bytes | str | Oversize) -> LineVerdict:
    """Sort one input line: blank (ignored), a JSON-RPC message, unparsable, or an invalid message."""
    if isinstance(line, Oversize):
        return LineVerdict("parse_error", reason=f"line of {line.size} bytes is too long")
    if not line.strip():
        return LineVerdict("blank")
    try:
        value = parse_json(line)
    except ValueError as exc:  # includes UnicodeDecodeError
        return LineVerdict("parse_error", reason=_short(str(exc)))
    problem = jsonrpc_problem(value)
    if problem is not None:
        return LineVerdict("invalid", value=value, request_id=readable_id(value), reason=problem)
    return LineVerdict("message", value=value, request_id=readable_id(value))


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------------------------------
# Blocking I/O on daemon threads (a thread stuck in read/write must never keep the process alive)


_EOF = object()


class _WireReader:
    """Reads lines from the wire on a daemon thread into a bounded asyncio queue (for a wire the event loop
    cannot watch, such as a regular file)."""

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop, max_line: int) -> None:
        self.inbox: asyncio.Queue[bytes | Oversize | object] = asyncio.Queue(_INBOX_SIZE)
        self._fd, self._loop, self._max = fd, loop, max_line
        threading.Thread(target=self._run, name="mcp-stdin", daemon=True).start()

    async def next_line(self) -> bytes | Oversize | object:
        return await self.inbox.get()

    def close(self) -> None:
        """Nothing to undo: the daemon thread ends with the process (or at EOF)."""

    def _read(self) -> bytes:
        try:
            return os.read(self._fd, _READ_CHUNK)
        except OSError as exc:
            logger.debug("stdin read failed, treating as EOF: %s", exc)
            return b""

    def _deliver(self, item: bytes | Oversize | object) -> bool:
        try:
            asyncio.run_coroutine_threadsafe(self.inbox.put(item), self._loop).result()
            return True
        except Exception:  # loop closed or shutting down: nobody is listening any more
            return False

    def _run(self) -> None:
        for line in iter_lines(self._read, self._max):
            if not self._deliver(line):
                return
        self._deliver(_EOF)


class _LoopWireReader:
    """Reads lines from a wire the event loop can watch (a pipe, socket or tty) on the loop itself.

    A line reaches the server without a thread hop: each hop is a wake-up of another thread, which costs
    0.1-1 ms on a busy machine. The fd stays blocking (its open file may be shared with the client); it is
    only read when epoll says it is readable, so a read never blocks. Reading pauses while the inbox holds
    `_INBOX_SIZE` lines (backpressure), as with the thread.
    """

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop, max_line: int) -> None:
        self.inbox: asyncio.Queue[bytes | Oversize | object] = asyncio.Queue()
        # Takes a line as it is read, when nothing read earlier waits in the inbox: True when it was
        # taken (a `tools/call` for the direct lane), so it never waits for the reader's consumer.
        self.take: Callable[[bytes], bool] | None = None
        self._fd, self._loop = fd, loop
        self._splitter = LineSplitter(max_line)
        self._watching = False
        self._ended = False
        self._watch()  # PermissionError for a fd epoll cannot watch: the caller falls back to the thread

    async def next_line(self) -> bytes | Oversize | object:
        line = await self.inbox.get()
        if not self._watching and not self._ended and self.inbox.qsize() < _INBOX_SIZE:
            self._watch()
        return line

    def close(self) -> None:
        self._ended = True
        self._unwatch()

    def _watch(self) -> None:
        self._loop.add_reader(self._fd, self._readable)
        self._watching = True

    def _unwatch(self) -> None:
        if self._watching:
            self._watching = False
            self._loop.remove_reader(self._fd)

    def _readable(self) -> None:
        try:
            chunk = os.read(self._fd, _READ_CHUNK)
        except OSError as exc:
            logger.debug("stdin read failed, treating as EOF: %s", exc)
            chunk = b""
        if chunk:
            lines: list[bytes | Oversize | object] = list(self._splitter.feed(chunk))
        else:
            lines = [*self._splitter.finish(), _EOF]
            self.close()
        for line in lines:
            if self.take is not None and isinstance(line, bytes) and self.inbox.empty() and self._taken(line):
                continue
            self.inbox.put_nowait(line)
        if self.inbox.qsize() >= _INBOX_SIZE:
            self._unwatch()

    def _taken(self, line: bytes) -> bool:
        assert self.take is not None
        try:
            return self.take(line)
        except Exception:  # a bug there must not lose the line or stop the reading: the inbox has it
            logger.exception("taking a line as it was read failed; it is handled the usual way")
            return False


def _wire_reader(fd: int, loop: asyncio.AbstractEventLoop, max_line: int) -> _WireReader | _LoopWireReader:
    if sys.platform == "win32":  # a Windows loop watches sockets only, never a pipe
        return _WireReader(fd, loop, max_line)
    try:
        return _LoopWireReader(fd, loop, max_line)
    except (PermissionError, ValueError, OSError, NotImplementedError):  # a regular file, or a loop or fd
        return _WireReader(fd, loop, max_line)  # that cannot be watched


class _WireWriter:
    """Writes whole lines to the wire in submission order: straight from the event loop when the line is
    short and the wire has room (so the write cannot block, and no thread has to be woken for it),
    otherwise on a daemon thread, so a client that stops reading never stalls the loop."""

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop) -> None:
        self._fd, self._loop = fd, loop
        self._jobs: queue.SimpleQueue[tuple[bytes, asyncio.Future[None]]] = queue.SimpleQueue()
        self._broken = False
        self._queued = 0  # lines handed to the thread and not written yet: later lines must queue behind
        # Without poll() (Windows) every line goes through the thread.
        self._room = select.poll() if hasattr(select, "poll") else None
        if self._room is not None:
            self._room.register(fd, select.POLLOUT)
        threading.Thread(target=self._run, name="mcp-stdout", daemon=True).start()

    async def write(self, data: bytes) -> None:
        if not self._queued and len(data) <= select.PIPE_BUF and self._has_room():
            # A pipe that polls writable takes PIPE_BUF bytes at once without blocking.
            try:
                written = os.write(self._fd, data)
            except OSError as exc:
                self._break(exc)
                return
            if written == len(data):
                return
            data = data[written:]
        done: asyncio.Future[None] = self._loop.create_future()
        self._queued += 1
        self._jobs.put((data, done))
        await asyncio.shield(done)

    def _has_room(self) -> bool:
        if self._broken or self._room is None:
            return False
        return any(events == select.POLLOUT for _fd, events in self._room.poll(0))

    def _break(self, exc: OSError) -> None:
        # The client closed our stdout; keep serving until stdin ends.
        self._broken = True
        logger.debug("stdout write failed, dropping further replies: %s", exc)

    def _run(self) -> None:
        while True:
            data, done = self._jobs.get()
            if not self._broken:
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(self._fd, view) :]
                except OSError as exc:
                    self._break(exc)
            with contextlib.suppress(RuntimeError):  # loop already closed
                self._loop.call_soon_threadsafe(self._written, done)

    def _written(self, done: asyncio.Future[None]) -> None:
        self._queued -= 1
        if not done.done():
            done.set_result(None)


# --------------------------------------------------------------------------------------------------
# Requests read but not yet answered


@dataclass
class _Pending:
    ids: dict[int | str, str] = field(default_factory=dict)  # id → method
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def add(self, rid: int | str, method: str) -> None:
        self.ids[rid] = method

    def resolve(self, rid: Any) -> None:
        if self.ids.pop(rid, None) is not None:
            self._changed.set()
            self._changed = asyncio.Event()

    async def wait_answered(self, rids: Iterable[int | str], timeout: float) -> bool:
        """Wait until none of `rids` is pending; False if the timeout came first."""
        watched = set(rids)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                while watched & self.ids.keys():
                    await self._changed.wait()
        return not (watched & self.ids.keys())


# --------------------------------------------------------------------------------------------------
# The transport


async def serve_stdio(
    server: MCPServer,
    *,
    drain_timeout: float,
    wire: StdioWire | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    order_wait: float = ORDER_WAIT,
    handle_signals: bool = True,
    finish: Callable[[], object] | None = None,
    answers_unfinished: Callable[[str], bool] | None = None,
    finish_delay: Callable[[str], float] | None = None,
    direct_tool_call: Callable[[], ToolCall | None] | None = None,
) -> None:
    """Serve `server` over the protected stdio wire until stdin ends (or SIGTERM/SIGINT), then return.

    `finish` (once) completes a server that can so far only answer `initialize` (see
    `zwave_mcp.server.build.StagedServer`): it is called right after the `initialize` reply is written, or
    before any other message reaches the server, whichever comes first. `answers_unfinished(method)`
    names more messages the unfinished server takes itself, and `finish_delay(method)` how long after
    the reply to `method` the finishing waits (for one of those to come first). `direct_tool_call`
    (asked once the server is finished) runs the `tools/call` requests the transport may answer itself,
    without the SDK's dispatcher (see zwave_mcp.stdio.direct).

    Must run on the asyncio backend (`anyio.run(...)` default). Never raises for client misbehaviour.
    """
    import anyio
    import mcp_types
    from mcp.shared.message import SessionMessage
    from pydantic import ValidationError

    wire = wire or protect_stdout()
    loop = asyncio.get_running_loop()
    from zwave_mcp.logs import defer_log_lines
    from zwave_mcp.server.compat import lowlevel_server
    from zwave_mcp.stdio import after_reply
    from zwave_mcp.stdio.direct import DirectLane

    lowlevel = lowlevel_server(server)  # the SDK's only way in with our own streams (see run_stdio_async)
    reader = _wire_reader(wire.in_fd, loop, max_line_bytes)
    writer = _WireWriter(wire.out_fd, loop)
    pending = _Pending()
    unfinished = [finish] if finish is not None else []
    taken_early: list[int | str] = []  # requests the unfinished server takes itself (`answers_unfinished`)
    finishing: list[asyncio.TimerHandle] = []  # a finish put off (`finish_delay`): not after we return

    def finish_server() -> None:
        if unfinished:
            unfinished.pop()()

    def taken_unfinished(method: Any) -> bool:
        if method == "initialize":
            return True
        return answers_unfinished is not None and isinstance(method, str) and answers_unfinished(method)

    def finish_after(answered: str | None) -> None:
        delay = finish_delay(answered) if finish_delay is not None and answered is not None else 0.0
        if delay > 0:
            finishing.append(loop.call_later(delay, finish_server))
        else:
            finish_server()

    async def answer_locally(reply: bytes) -> None:
        # Earlier requests first, so replies keep the order of the lines that caused them.
        await pending.wait_answered(list(pending.ids), order_wait)
        await writer.write(reply)

    def take_direct(line: bytes) -> bool:
        """A `tools/call` the direct lane answers, taken as it is read: the hop through the inbox to
        `next_message` cost a loop turn. `jsonrpc_problem` checked all the SDK's message check would (a
        request with a string or integer id, a string method and object params is a `JSONRPCRequest`),
        and the lane checks the call's params (`stdio_direct.plain_call`, else the SDK's validation)."""
        if unfinished or not lane.open or b'"tools/call"' not in line:
            return False
        verdict = classify_line(line)
        if verdict.kind != "message" or verdict.value.get("method") != "tools/call":
            return False
        if not lane.inbound(verdict.value):
            return False
        _track_inbound(pending, verdict.value)
        return True

    async def next_message() -> Any:
        """The next MCP message from the wire for the server (malformed lines are answered here), or
        None at the end of input once the requests in flight are answered (bounded by drain_timeout)."""
        while (line := await reader.next_line()) is not _EOF:
            assert isinstance(line, bytes | Oversize)
            verdict = classify_line(line)
            if verdict.kind == "blank":
                continue
            if verdict.kind == "message":
                try:
                    message = mcp_types.jsonrpc_message_adapter.validate_python(verdict.value, by_name=False)
                except ValidationError as exc:
                    reason = _short(exc.errors()[0].get("msg", "not an MCP message"))
                    verdict = LineVerdict("invalid", request_id=verdict.request_id, reason=reason)
                else:
                    if unfinished and not taken_unfinished(verdict.value.get("method")):
                        # What the unfinished server took is answered by it first: clients ask tools/list,
                        # resources/list and prompts/list at once, and building holds the loop.
                        await pending.wait_answered(taken_early, order_wait)
                        finish_server()
                    elif unfinished and verdict.request_id is not None:
                        taken_early.append(verdict.request_id)
                    _track_inbound(pending, verdict.value)
                    if lane.inbound(verdict.value):  # a tools/call reaches it only on a finished server
                        continue
                    return SessionMessage(message)
            logger.debug("answering malformed input line: %s", verdict.reason)
            reply = verdict.error_reply()
            assert reply is not None
            await answer_locally(reply)
        if pending.ids:
            logger.info("stdin closed; finishing %d request(s) in flight", len(pending.ids))
            if not await pending.wait_answered(list(pending.ids), drain_timeout):
                logger.warning("gave up on %d request(s) after %.1f s", len(pending.ids), drain_timeout)
        return None

    async def write_message(session_message: Any) -> None:
        lane.outbound(session_message.message)
        await write_jsonrpc(session_message.message)

    async def write_jsonrpc(msg: Any) -> None:
        is_answer = isinstance(msg, mcp_types.JSONRPCResponse | mcp_types.JSONRPCError)
        await write_line(_message_line(msg, is_answer), msg.id if is_answer else None)

    async def write_line(data: bytes, answers: int | str | None) -> None:
        """One outgoing line (none if empty); `answers`: the id of the request it answers."""
        if data:
            await writer.write(data)
        after_reply.reply_written()  # the call's audit line, history rows and log lines, soon
        if answers is not None:
            answered = pending.ids.get(answers)
            pending.resolve(answers)
            if unfinished:  # the `initialize` reply is out: build the rest while the client reads
                finish_after(answered)

    async def watch_signals(scope: anyio.CancelScope) -> None:
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async for signum in signals:
                logger.info("received %s, stopping", signal.Signals(signum).name)
                scope.cancel()
                return

    lane = DirectLane(direct_tool_call or (lambda: None), write_line)
    if isinstance(reader, _LoopWireReader):  # the thread's reader hands lines over through its queue
        reader.take = take_direct

    # Log records and work that the reply does not carry wait until the reply they belong with is written
    # (see logs.LogHandler and zwave_mcp.stdio.after_reply).
    drain_logs, write_logs_through = defer_log_lines(loop)
    after_reply.defer(loop, also=drain_logs)  # log lines go out with the work (which logs too)
    try:
        async with anyio.create_task_group() as tg:
            if handle_signals and sys.platform != "win32":  # Windows: Ctrl-C is a KeyboardInterrupt
                tg.start_soon(watch_signals, tg.cancel_scope)
            # The SDK reads and writes through these directly: no task of ours between it and the wire.
            await lowlevel.run(
                _Source(next_message), _Sink(write_message), lowlevel.create_initialization_options()
            )
            lane.close()  # calls it still runs end here, so none answers after the error below
            # Whatever the drain could not finish still deserves an answer rather than silence.
            for rid, method in list(pending.ids.items()):
                await writer.write(
                    error_line(rid, INTERNAL_ERROR, f"Server stopped before finishing {method}")
                )
                pending.resolve(rid)
            tg.cancel_scope.cancel()
    finally:
        lane.close()
        for timer in finishing:
            timer.cancel()
        reader.close()  # the loop outlives us in tests: stop watching a fd the caller will close
        after_reply.stop()
        write_logs_through()


class _Closable:
    """What the SDK's streams share: `aclose` and `async with`."""

    _closed = False

    async def aclose(self) -> None:
        self._closed = True

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class _Source(_Closable):
    """The SDK's read stream (its `ReadStream` protocol) over `next_item()`, which returns None at the end.

    The SDK pulls each message straight from the wire reader: a memory stream and a task of ours between
    them cost a wake-up (an event-loop turn) per message."""

    def __init__(self, next_item: Callable[[], Awaitable[Any]]) -> None:
        self._next = next_item
        self._ended = False

    async def receive(self) -> Any:
        import anyio

        if self._closed:
            raise anyio.ClosedResourceError
        if not self._ended:
            item = await self._next()
            if item is not None:
                return item
            self._ended = True
        raise anyio.EndOfStream

    def __aiter__(self) -> _Source:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _Sink(_Closable):
    """The SDK's write stream (its `WriteStream` protocol): each message goes to the wire in `send`, in
    the task that answers (no task of ours to wake for it)."""

    def __init__(self, write: Callable[[Any], Awaitable[None]]) -> None:
        self._write = write

    async def send(self, item: Any, /) -> None:
        import anyio

        if self._closed:
            raise anyio.ClosedResourceError
        await self._write(item)


def _message_line(msg: Any, is_answer: bool) -> bytes:
    """One outgoing message as a line. Text is made encodable where it enters; should anything still slip
    through, the request gets an error answer (anything else is dropped) instead of the process dying."""
    try:
        return msg.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
    except Exception as exc:
        return unserializable_line(getattr(msg, "id", None), is_answer, exc)


def unserializable_line(rid: Any, is_answer: bool, exc: Exception) -> bytes:
    """What goes out instead of a message that could not be serialized: an error answer to the request
    it answers, or nothing."""
    logger.error("outgoing message (id %r) could not be serialized: %s", rid, _short(str(exc)))
    if not is_answer or rid is None:
        return b""
    return error_line(rid, INTERNAL_ERROR, "Internal error: the reply could not be serialized")


def _track_inbound(pending: _Pending, value: dict[str, Any]) -> None:
    """Remember requests that await an answer; a client's cancellation means no answer will come."""
    method = value.get("method")
    if method is None:
        return
    if "id" in value:
        pending.add(value["id"], method)
    elif method == "notifications/cancelled":
        params = value.get("params")
        if isinstance(params, dict):
            pending.resolve(params.get("requestId"))


def run_stdio(server: MCPServer, *, drain_timeout: float, **options: Any) -> None:
    """Blocking wrapper for the CLI: serve until EOF or a signal, never leaking a traceback for Ctrl-C."""
    import anyio

    async def main() -> None:
        await serve_stdio(server, drain_timeout=drain_timeout, **options)

    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(main, backend_options=loop_options())


def loop_options(platform: str | None = None) -> dict[str, Any]:
    """anyio's asyncio options: on Windows a selector loop, since its default (proactor) loop cannot
    watch sockets with `add_reader`, which the MQTT transport does."""
    windows = (platform or sys.platform) == "win32"
    return {"loop_factory": asyncio.SelectorEventLoop} if windows else {}
