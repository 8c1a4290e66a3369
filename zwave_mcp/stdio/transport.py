"""Serve an `MCPServer` over stdin/stdout: the SDK's own dispatcher, and what its stdio transport lacks.

- `protect_stdout()` moves the JSON-RPC wire to private descriptors and points fd 1 (and fd 0) away, so
  anything printed later - imports, `print()`, warnings, C extensions, tracebacks - lands on stderr. The
  CLI calls it before it imports anything else.
- Every input line gets an answer: not JSON → -32700 (id null); JSON that is not a JSON-RPC message →
  -32600 (with the id when one can be read); the SDK drops such lines silently (python-sdk #2751). Lines
  longer than the cap are skipped as they stream in (answered -32700). See `zwave_mcp.stdio.wire`.
- A reply that cannot be serialized becomes a -32603 error for its id, and serving goes on.
- On stdin EOF, requests already read are answered (bounded by `drain_timeout`) before we return; requests
  still unanswered then get an error instead of silence. SIGTERM/SIGINT end the serving quietly.
- A call's audit and log lines reach stderr right after its answer (`_LogLines`, the root logger's one
  handler while serving): writing a line wakes the process reading stderr, which must not delay a reply.

Everything else (the handshake of either protocol era, dispatch, validation, cancellation, results) is
the SDK's: its server loop reads messages from `_Source` and writes them to `_Sink`.

Only the standard library is imported at module level, so the CLI can import this first.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import queue
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self

from zwave_mcp.stdio.wire import (
    INTERNAL_ERROR,
    MAX_LINE_BYTES,
    LineVerdict,
    Oversize,
    classify_line,
    error_line,
    iter_lines,
    short,
)

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

logger = logging.getLogger(__name__)

ORDER_WAIT = 1.0
"""How long the answer to a malformed line waits for earlier requests to be answered first, so replies
keep the order of the lines that caused them; a slow tool call does not hold the reader up longer."""

LOG_HOLD_S = 0.05
"""Longest a log record waits for an answer to be written (a call the client cancelled gets none)."""

_READ_CHUNK = 64 * 1024
_INBOX_SIZE = 16  # lines buffered between the reader and the server (backpressure)


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
# Reading and writing the wire without ever blocking the event loop


_EOF = object()
Line = bytes | Oversize | object


class _WireReader:
    """Reads lines on a daemon thread: one way for every wire (a pipe, a tty, a regular file, Windows),
    where watching the fd from the event loop works for some of them only. Reading pauses while
    `_INBOX_SIZE` lines wait (backpressure)."""

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop, max_line: int) -> None:
        self.inbox: asyncio.Queue[Line] = asyncio.Queue(_INBOX_SIZE)
        self._fd, self._loop, self._max = fd, loop, max_line
        threading.Thread(target=self._run, name="mcp-stdin", daemon=True).start()

    async def next_line(self) -> Line:
        return await self.inbox.get()

    def _run(self) -> None:
        for line in iter_lines(lambda: _read(self._fd), self._max):
            try:
                asyncio.run_coroutine_threadsafe(self.inbox.put(line), self._loop).result()
            except Exception:  # loop closed or shutting down: nobody is listening any more
                return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self.inbox.put(_EOF), self._loop).result()


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, _READ_CHUNK)
    except OSError as exc:
        logger.debug("stdin read failed, treating as EOF: %s", exc)
        return b""


class _WireWriter:
    """Writes whole lines to the wire in submission order on a daemon thread, so a client that stops
    reading never stalls the event loop."""

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop) -> None:
        self._fd, self._loop = fd, loop
        self._jobs: queue.SimpleQueue[tuple[bytes, asyncio.Future[None]]] = queue.SimpleQueue()
        self._broken = False
        threading.Thread(target=self._run, name="mcp-stdout", daemon=True).start()

    async def write(self, data: bytes) -> None:
        done: asyncio.Future[None] = self._loop.create_future()
        self._jobs.put((data, done))
        await asyncio.shield(done)

    def _run(self) -> None:
        while True:
            data, done = self._jobs.get()
            if not self._broken:
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(self._fd, view) :]
                except OSError as exc:  # the client closed our stdout; keep serving until stdin ends
                    self._broken = True
                    logger.debug("stdout write failed, dropping further replies: %s", exc)
            with contextlib.suppress(RuntimeError):  # loop already closed
                self._loop.call_soon_threadsafe(self._written, done)

    def _written(self, done: asyncio.Future[None]) -> None:
        if not done.done():
            done.set_result(None)


class _LogLines(logging.Handler):
    """The root logger's one handler while serving: records logged on the loop's thread while a request is
    being answered (a call's audit and log lines) wait until an answer is written, then go to the handlers
    configured before (`zwave_mcp.logs`). Each line written to stderr wakes the process reading it, which
    cost a call 0.1-0.5 ms before its answer was out (more on a busy machine). Other records, and anything
    held longer than `LOG_HOLD_S`, go through at once. Owned by the transport: nothing below knows it."""

    def __init__(self, busy: Callable[[], bool], loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._busy, self._loop, self._thread = busy, loop, threading.get_ident()
        self._root = logging.getLogger()
        self._handlers = list(self._root.handlers)
        self._held: list[logging.LogRecord] = []
        self._timer: asyncio.TimerHandle | None = None

    def __enter__(self) -> Self:
        self._root.handlers = [self]
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._root.handlers = self._handlers
        self.write_held()

    def emit(self, record: logging.LogRecord) -> None:
        if threading.get_ident() != self._thread or not self._busy():
            self._pass(record)
            return
        self._held.append(record)
        if self._timer is None:
            self._timer = self._loop.call_later(LOG_HOLD_S, self.write_held)

    def write_held(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        held, self._held = self._held, []
        for record in held:
            self._pass(record)

    def _pass(self, record: logging.LogRecord) -> None:
        for handler in self._handlers:
            if record.levelno >= handler.level:
                handler.handle(record)


@dataclass
class _Pending:
    """Requests read but not answered yet: id → method."""

    ids: dict[int | str, str] = field(default_factory=dict)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def track(self, value: dict[str, Any]) -> None:
        """Remember a request that awaits an answer; a client's cancellation means none will come."""
        method = value.get("method")
        if method is not None and "id" in value:
            self.ids[value["id"]] = method
        elif method == "notifications/cancelled" and isinstance(params := value.get("params"), dict):
            self.resolve(params.get("requestId"))

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
) -> None:
    """Serve `server` over the protected stdio wire until stdin ends (or SIGTERM/SIGINT), then return.

    Must run on the asyncio backend (`anyio.run(...)` default). Never raises for client misbehaviour.
    """
    import anyio
    import mcp_types
    from mcp.shared.message import SessionMessage
    from pydantic import ValidationError

    from zwave_mcp.server.compat import lowlevel_server

    wire = wire or protect_stdout()
    loop = asyncio.get_running_loop()
    lowlevel = lowlevel_server(server)  # the SDK's only way to serve over streams we supply
    reader = _WireReader(wire.in_fd, loop, max_line_bytes)
    writer = _WireWriter(wire.out_fd, loop)
    pending = _Pending()

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
                    reason = short(exc.errors()[0].get("msg", "not an MCP message"))
                    verdict = LineVerdict("invalid", request_id=verdict.request_id, reason=reason)
                else:
                    pending.track(verdict.value)
                    return SessionMessage(message)
            logger.debug("answering malformed input line: %s", verdict.reason)
            reply = verdict.error_reply()
            assert reply is not None
            # Earlier requests first, so replies keep the order of the lines that caused them.
            await pending.wait_answered(list(pending.ids), order_wait)
            await writer.write(reply)
        if pending.ids:
            logger.info("stdin closed; finishing %d request(s) in flight", len(pending.ids))
            if not await pending.wait_answered(list(pending.ids), drain_timeout):
                logger.warning("gave up on %d request(s) after %.1f s", len(pending.ids), drain_timeout)
        return None

    async def write_message(session_message: Any) -> None:
        msg = session_message.message
        is_answer = isinstance(msg, mcp_types.JSONRPCResponse | mcp_types.JSONRPCError)
        if data := _message_line(msg, is_answer):
            await writer.write(data)
        if is_answer:
            pending.resolve(msg.id)
            log_lines.write_held()  # the call's audit and log lines, now that its answer is out

    async def watch_signals(scope: anyio.CancelScope) -> None:
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async for signum in signals:
                logger.info("received %s, stopping", signal.Signals(signum).name)
                scope.cancel()
                return

    log_lines = _LogLines(lambda: bool(pending.ids), loop)
    with log_lines:
        async with anyio.create_task_group() as tg:
            if handle_signals and sys.platform != "win32":  # Windows: Ctrl-C is a KeyboardInterrupt
                tg.start_soon(watch_signals, tg.cancel_scope)
            # The SDK reads and writes through these directly: no task of ours between it and the wire.
            await lowlevel.run(
                _Source(next_message), _Sink(write_message), lowlevel.create_initialization_options()
            )
            # Whatever the drain could not finish still deserves an answer rather than silence.
            for rid, method in list(pending.ids.items()):
                await writer.write(
                    error_line(rid, INTERNAL_ERROR, f"Server stopped before finishing {method}")
                )
                pending.resolve(rid)
            tg.cancel_scope.cancel()


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
    """The SDK's read stream (its `ReadStream` protocol) over `next_item()`, which returns None at the end:
    the SDK pulls each message straight from the wire reader, with no memory stream or task between."""

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
    """The SDK's write stream (its `WriteStream` protocol): each message goes to the wire in `send`."""

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
        rid = getattr(msg, "id", None)
        logger.error("outgoing message (id %r) could not be serialized: %s", rid, short(str(exc)))
        if not is_answer or rid is None:
            return b""
        return error_line(rid, INTERNAL_ERROR, "Internal error: the reply could not be serialized")


def run_stdio(server: MCPServer, *, drain_timeout: float, **options: Any) -> None:
    """Blocking wrapper for the CLI: serve until EOF or a signal, never leaking a traceback for Ctrl-C."""
    import anyio

    serve = functools.partial(serve_stdio, server, drain_timeout=drain_timeout, **options)
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(serve, backend_options=loop_options())


def loop_options(platform: str | None = None) -> dict[str, Any]:
    """anyio's asyncio options: on Windows a selector loop, since its default (proactor) loop cannot
    watch sockets with `add_reader`, which the MQTT transport does."""
    windows = (platform or sys.platform) == "win32"
    return {"loop_factory": asyncio.SelectorEventLoop} if windows else {}
