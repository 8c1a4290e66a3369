"""The MCP `logging` capability: the server's log records sent to the client as `notifications/message`.

stderr keeps every JSON log line as before; this adds a copy, for the client to show, of the records at or
above the level the client asked for, as each protocol era allows:

- 2025 era (handshake): `logging/setLevel` sets the level of that connection (until then: `warning`, so a
  client that never asks still hears warnings and errors). Records are sent on the connection once the
  client has sent `notifications/initialized`, never before.
- 2026-07-28: there is no `logging/setLevel`; a request opts in with `_meta["io.modelcontextprotocol/
  logLevel"]`, and only records logged while that request is handled may be sent, before its answer and on
  its stream. The SDK's `allowed_log_levels` says what that request allows.

A client cannot make the server log more than `ZWAVE_MCP_LOG_LEVEL` lets it (records below it are never
made). A chatty gateway cannot flood the client: at most `BURST` notifications at once and `PER_SECOND`
a second after that per connection (in 2026, at most `BURST` per request), the rest counted and said in
one warning when sending resumes. Texts are redacted as the stderr lines are.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from mcp.server.connection import allowed_log_levels
from mcp_types import (
    EmptyResult,
    LoggingMessageNotification,
    LoggingMessageNotificationParams,
    SetLevelRequestParams,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from zwave_mcp.logs import record_fields, watch_task
from zwave_mcp.server.compat import connection_key, lowlevel_server

if TYPE_CHECKING:
    from mcp.server.context import CallNext, ServerRequestContext
    from mcp.server.mcpserver import MCPServer
    from mcp.server.session import ServerSession
    from mcp_types import LoggingLevel

log = logging.getLogger(__name__)

# MCP's levels (RFC 5424) as Python logging numbers: a record is sent when its number reaches the level's.
LEVELS: Final[dict[str, int]] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": 25,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL + 5,
    "emergency": logging.CRITICAL + 10,
}
DEFAULT_LEVEL: Final = "warning"
BURST = 20
PER_SECOND = 1.0
QUEUE = 200  # records waiting to be sent; beyond this the oldest are dropped (and counted)
# Records of these loggers below warning are never sent: the SDK and the transport log the sending itself.
QUIET_BELOW_WARNING = ("mcp", "mcp_types", "zwave_mcp.stdio.transport", "zwave_mcp.server.client_log")


def mcp_level(levelno: int) -> LoggingLevel:
    """The MCP level of a Python record: the highest whose number it reaches."""
    name: LoggingLevel = "debug"
    for candidate, number in LEVELS.items():
        if levelno >= number:
            name = candidate  # type: ignore[assignment]
    return name


@dataclass
class Budget:
    """A token bucket: `BURST` at once, then `PER_SECOND`; what it refuses is counted in `dropped`."""

    clock: Callable[[], float]
    tokens: float = BURST
    last: float | None = None
    dropped: int = 0

    def take(self) -> bool:
        now = self.clock()
        if self.last is not None:
            self.tokens = min(BURST, self.tokens + (now - self.last) * PER_SECOND)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.dropped += 1
        return False

    def take_dropped(self) -> int:
        dropped, self.dropped = self.dropped, 0
        return dropped


@dataclass
class Entry:
    levelno: int
    logger: str
    data: dict[str, Any]


@dataclass
class _Listener:
    """A 2025-era connection: its session (to send on), its level, its budget, and the records waiting
    for it (until it is initialized, or its budget allows)."""

    session: ServerSession
    levelno: int
    budget: Budget
    waiting: deque[Entry] = field(default_factory=lambda: deque(maxlen=QUEUE))
    overflow: int = 0  # records pushed out of `waiting` unsent

    def add(self, entry: Entry) -> None:
        if len(self.waiting) == self.waiting.maxlen:
            self.overflow += 1
        self.waiting.append(entry)


@dataclass
class _RequestLog:
    """A 2026-era request that opted in: the records logged while it is handled, sent before its answer."""

    levelno: int
    entries: list[Entry] = field(default_factory=list)
    dropped: int = 0


_REQUEST: contextvars.ContextVar[_RequestLog | None] = contextvars.ContextVar(
    "zwave_mcp_request_log", default=None
)


def _notification(entry: Entry) -> LoggingMessageNotification:
    level = mcp_level(entry.levelno)
    return LoggingMessageNotification(
        params=LoggingMessageNotificationParams(level=level, logger=entry.logger, data=entry.data)
    )


def _dropped_entry(count: int) -> Entry:
    message = f"{count} log message(s) were not sent to the client (too many at once); stderr has them"
    return Entry(logging.WARNING, __name__, {"message": message})


class ClientLog(logging.Handler):
    """The log records clients asked for, sent as `notifications/message` (see the module's docstring).

    `middleware` and `on_set_level` go on the server; `start()` (on the server's loop) hangs the handler on
    the root logger, `await stop()` takes it off.
    """

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self._listeners: weakref.WeakKeyDictionary[object, _Listener] = weakref.WeakKeyDictionary()
        # The lowest level any listener wants, kept on the loop thread: `emit` runs on any thread and
        # reads this one number instead of the dictionary (another thread may be changing it).
        self._floor: int | None = None
        self._users = 0  # lifespans using the handler (an in-process server may serve several clients)
        self._waiters: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: int | None = None
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    # -- the server's side ----------------------------------------------------------------------------

    def install(self, server: MCPServer[Any]) -> None:
        """Handle `logging/setLevel` (so the SDK declares the `logging` capability, in both eras) and run
        the middleware. The server's lifespan calls `start()` and `stop()`."""
        lowlevel_server(server).add_request_handler(
            "logging/setLevel", SetLevelRequestParams, self.on_set_level
        )
        server.middleware.append(self.middleware)

    async def on_set_level(
        self, ctx: ServerRequestContext[Any, Any], params: SetLevelRequestParams
    ) -> EmptyResult:
        """`logging/setLevel` (2025 era): from now on, this connection hears records at `level` and above."""
        self.listen(ctx.session).levelno = LEVELS[params.level]
        self._update_floor()
        log.debug("logging/setLevel", extra={"level": params.level})
        return EmptyResult()

    async def middleware(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        """SDK middleware: knows every 2025-era connection from its first request (`initialize`), and
        collects the records logged while a 2026 request that opted in is handled, sent before its answer."""
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self.listen(ctx.session)
            return await call_next(ctx)
        meta = ctx.meta if isinstance(ctx.meta, Mapping) else None
        allowed = allowed_log_levels(ctx.protocol_version, meta)
        if not allowed:
            return await call_next(ctx)
        request = _RequestLog(min(LEVELS[level] for level in allowed))
        token = _REQUEST.set(request)
        try:
            return await call_next(ctx)
        finally:
            _REQUEST.reset(token)
            await self.send_request_log(ctx, request)

    def listen(self, session: ServerSession) -> _Listener:
        key = connection_key(session)
        listener = self._listeners.get(key)
        if listener is None:
            listener = _Listener(session, LEVELS[DEFAULT_LEVEL], Budget(time.monotonic))
            self._listeners[key] = listener
            self._update_floor()
            if self._loop is not None and not _initialized(key):
                waiter = self._loop.create_task(self._wake_when_initialized(key))
                self._waiters.add(waiter)
                waiter.add_done_callback(self._waiters.discard)
        return listener

    def _update_floor(self) -> None:
        self._floor = min((listener.levelno for listener in list(self._listeners.values())), default=None)

    async def _wake_when_initialized(self, connection: Any) -> None:
        """Records logged before the client said `notifications/initialized` are sent once it has."""
        await connection.initialized.wait()
        if self._wake is not None:
            self._wake.set()

    # -- records in ------------------------------------------------------------------------------------

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno < logging.WARNING and record.name.startswith(QUIET_BELOW_WARNING):
            return  # the SDK and the transport log the sending itself: that would feed itself
        request = _REQUEST.get()
        to_request = request is not None and record.levelno >= request.levelno
        floor = self._floor
        to_listeners = floor is not None and record.levelno >= floor
        if not (to_request or to_listeners):
            return
        try:
            # JSON-safe: an extra field may hold any object (stderr's formatter writes those with str too).
            entry = Entry(
                record.levelno, record.name, json.loads(json.dumps(record_fields(record), default=str))
            )
        except Exception:
            self.handleError(record)
            return
        if request is not None and to_request:
            if len(request.entries) < BURST:
                request.entries.append(entry)
            else:
                request.dropped += 1
        if to_listeners:
            self._enqueue_threadsafe(entry)

    def _enqueue_threadsafe(self, entry: Entry) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        if threading.get_ident() == self._thread:
            self._enqueue(entry)
        else:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._enqueue, entry)

    def _enqueue(self, entry: Entry) -> None:
        for listener in list(self._listeners.values()):
            if entry.levelno >= listener.levelno:
                listener.add(entry)
        if self._wake is not None:
            self._wake.set()

    # -- notifications out -----------------------------------------------------------------------------

    def start(self) -> None:
        """On the server's event loop: from now on records reach the clients that listen."""
        self._users += 1
        if self._task is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._wake = asyncio.Event()
        self._task = watch_task(self._loop.create_task(self._run(), name="zwave-client-log"))
        logging.getLogger().addHandler(self)

    async def stop(self) -> None:
        self._users = max(0, self._users - 1)
        if self._users:
            return
        logging.getLogger().removeHandler(self)
        tasks = [*self._waiters, *([self._task] if self._task is not None else [])]
        self._task = None
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._loop = self._wake = None

    async def _run(self) -> None:
        wake = self._wake
        assert wake is not None
        while True:
            await wake.wait()
            wake.clear()
            for key, listener in list(self._listeners.items()):
                if not _initialized(key):
                    continue  # nothing may be sent before `notifications/initialized`; they wait
                try:
                    await self._send_waiting(listener)
                except Exception:  # one broken session must not end notifications for the others
                    log.debug("a log notification could not be sent", exc_info=True)
                    listener.waiting.clear()

    async def _send_waiting(self, listener: _Listener) -> None:
        while listener.waiting:
            entry = listener.waiting.popleft()
            if entry.levelno < listener.levelno or not listener.budget.take():
                continue  # set higher since, or over the budget (counted)
            dropped = listener.budget.take_dropped() + listener.overflow
            listener.overflow = 0
            if dropped:
                await listener.session.send_notification(_notification(_dropped_entry(dropped)))
            await listener.session.send_notification(_notification(entry))

    async def send_request_log(self, ctx: ServerRequestContext[Any, Any], request: _RequestLog) -> None:
        entries = request.entries + ([_dropped_entry(request.dropped)] if request.dropped else [])
        for entry in entries:
            try:
                await ctx.session.send_notification(_notification(entry), ctx.request_id)
            except Exception:
                log.debug("a log notification could not be sent", exc_info=True)
                return


def _initialized(connection: object) -> bool:
    """Whether the client has sent `notifications/initialized` (nothing may be sent before it)."""
    initialized = getattr(connection, "initialized", None)
    return bool(initialized is not None and initialized.is_set())
