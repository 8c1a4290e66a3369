"""Builds the MCP server: the app's parts, the executor, the tools, resources and prompts. Thin by design.

Two steps, so the stdio transport can answer `initialize` before the expensive part exists:
`stage_server` makes the `MCPServer` itself (identity, instructions, lifespan, the capabilities it will
have); `StagedServer.finish` imports and builds the rest (app, gateway, tools with their schemas,
resources, prompts, completions). `build_server` does both at once, for everything that is not the stdio
transport (in-process clients, `zwave-mcp tools`). The transport calls `finish` before it hands the server
anything but `initialize`, so `tools/list` and friends always see the complete server, in both eras; with
a `ToolListCache` that holds this build's list, the staged server also answers `tools/list` (and hears
`notifications/initialized`) itself and is finished right after (see `answers_unfinished`).

The gateway connects in the background once the server is built, so `initialize` and `tools/list` are
answered at once even with no broker; tools answer "Z-Wave service unavailable: <why>" until it is up.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CompleteRequestParams, SubscribeRequestParams, UnsubscribeRequestParams

from zwave_mcp import __version__
from zwave_mcp.config import Settings
from zwave_mcp.server.client_log import ClientLog
from zwave_mcp.server.compat import lowlevel_server, mcp_server

if TYPE_CHECKING:
    from mcp_types import Tool

    from zwave_mcp.gateway.client import ZwaveGateway
    from zwave_mcp.server.app import App
    from zwave_mcp.server.executor import ToolExecutor
    from zwave_mcp.server.tool_list_cache import ToolListCache
    from zwave_mcp.stdio.direct import ToolCall

log = logging.getLogger(__name__)

HISTORY_START_DELAY_S = 0.3
KEEP_LIST_TIMEOUT_S = 5.0  # how long stopping waits for the tool list to be stored
LIST_WAIT_S = 0.05
"""With a cached tool list, how long after the `initialize` reply the server waits for `tools/list`
before it builds anyway (building holds the event loop for a few hundred ms)."""

INSTRUCTIONS = (
    "Controls a Z-Wave home through zwave-js-ui. Call list_zwave_devices first to learn device names. "
    "Refer to devices by the names people use ('kitchen light', 'front door'). For many devices at once "
    "('turn off the kitchen', 'all lights off') use control_zwave_group with a room, a kind or 'everything'; "
    "to ask about many ('is anything on in the kitchen?') use list_zwave_devices with target and state. "
    "Every answer says what the "
    "device actually reported: 'confirmed' means the device reported the new state; 'unconfirmed' means it "
    "did not report in time; 'unknown' means zwave-js-ui did not answer, so it may still have happened. "
    "Unlocking and opening doors needs the person's yes: the server asks them through the client when the "
    "client can ask; otherwise the answer carries a confirmationToken: pass it back only after the person "
    "has agreed."
)

ANNOUNCED_METHODS: dict[str, type[Any]] = {
    "completion/complete": CompleteRequestParams,
    "resources/subscribe": SubscribeRequestParams,
    "resources/unsubscribe": UnsubscribeRequestParams,
}
"""Request methods that `finish` registers and whose presence alone changes the capabilities the SDK
announces in `initialize` (the MCPServer constructor already registers tools, resources, prompts and
subscriptions/listen). The staged server holds a stand-in for each, so the capabilities it answers with
before `finish` are the finished server's; tests/unit/test_server_staging.py keeps this list true."""


class StagedServer:
    """An `MCPServer` whose app, tools, resources, prompts and completions are built on `finish()`."""

    def __init__(
        self,
        settings: Settings,
        gateway: ZwaveGateway | None = None,
        tool_list_cache: ToolListCache | None = None,
    ) -> None:
        self.settings = settings
        self._gateway = gateway
        self._tool_list_cache = tool_list_cache
        self._cached_tools: list[Tool] | None = None
        self._cache_read = tool_list_cache is None
        self._keeping: asyncio.Task[None] | None = None
        self.app: App | None = None
        self.executor: ToolExecutor | None = None
        self._finished = asyncio.Event()
        self._started: list[Any] = []  # what the lifespan started: stopped in reverse order
        self.server: MCPServer[StagedServer] = mcp_server(
            name="zwave-mcp",
            title="Z-Wave (zwave-js-ui)",
            version=__version__,
            instructions=INSTRUCTIONS,
            lifespan=self._lifespan,
            subscriptions=self._bus(),
        )
        lowlevel = lowlevel_server(self.server)
        # The `logging` capability (declared because `logging/setLevel` has a handler): cheap, so staged.
        self.client_log = ClientLog()
        self.client_log.install(self.server)
        for method, params_type in ANNOUNCED_METHODS.items():
            lowlevel.add_request_handler(method, params_type, self._stand_in(method))
        if tool_list_cache is not None:
            listing = lowlevel.get_request_handler("tools/list")
            assert listing is not None  # the MCPServer constructor registers it
            lowlevel.add_request_handler("tools/list", listing.params_type, self._list_tools(listing.handler))

    def _bus(self) -> Any:
        # Ours, not the SDK's default, so inventory changes can be published outside any request.
        from mcp.server.subscriptions import InMemorySubscriptionBus

        from zwave_mcp.server.resource_updates import CountingBus

        self.bus = CountingBus(InMemorySubscriptionBus())
        return self.bus

    def _stand_in(self, method: str) -> Any:
        """A handler that finishes the server, then hands the request to the real one `finish` put there."""

        async def handle(ctx: Any, params: Any) -> Any:
            self.finish()
            entry = lowlevel_server(self.server).get_request_handler(method)
            if entry is None or entry.handler is handle:
                raise RuntimeError(f"zwave-mcp registered no handler for {method}")
            return await entry.handler(ctx, params)

        return handle

    def _list_tools(self, built: Any) -> Any:
        """`tools/list`: the cached list while the server is not built yet, then the SDK's own answer."""

        async def handle(ctx: Any, params: Any) -> Any:
            from mcp_types import ListToolsResult

            tools = self.cached_tools()
            if not self.finished and tools is not None and getattr(params, "cursor", None) is None:
                log.debug("tools/list answered with the list kept by the last start")
                return ListToolsResult(tools=tools)
            self.finish()
            return await built(ctx, params)

        return handle

    def cached_tools(self) -> list[Tool] | None:
        """The tool list stored by an earlier start of this very build and settings (read once)."""
        if not self._cache_read:
            self._cache_read = True
            assert self._tool_list_cache is not None
            self._cached_tools = self._tool_list_cache.load()
        return self._cached_tools

    def answers_unfinished(self, method: str) -> bool:
        """Whether the server answers (or hears) `method` before it is built; `initialize` always."""
        if method == "initialize":
            return True
        return method in ("tools/list", "notifications/initialized") and self.cached_tools() is not None

    def finish_delay(self, answered: str) -> float:
        """How long after answering `answered` unfinished the transport waits before `finish()`."""
        return LIST_WAIT_S if answered == "initialize" and self.cached_tools() is not None else 0.0

    def direct_tool_call(self) -> ToolCall | None:
        """What the stdio transport's direct lane runs a `tools/call` with (zwave_mcp.stdio.direct), or
        None to leave every call to the SDK: before `finish`, or when middleware could act on such a call."""
        from zwave_mcp.stdio.direct import middleware_acting_on_direct_calls

        if self.executor is None:
            return None
        acting = middleware_acting_on_direct_calls(self.server)
        if acting:
            log.info("every tools/call goes through the SDK's dispatcher", extra={"because": acting})
            return None
        return self.executor.call_without_context

    @property
    def finished(self) -> bool:
        return self.app is not None

    def finish(self) -> MCPServer[StagedServer]:
        """Build the app and register everything on the server (once; later calls return at once)."""
        if self.app is not None:
            return self.server
        from zwave_mcp.server.app import build_app
        from zwave_mcp.server.completions import register_completions
        from zwave_mcp.server.executor import ToolExecutor
        from zwave_mcp.server.prompts import register_prompts
        from zwave_mcp.server.resources import register_resources
        from zwave_mcp.server.tools import tool_specs

        settings = self.settings
        app = build_app(settings, self._gateway)
        executor = ToolExecutor(
            timeout_s=settings.tool_timeout,
            slow_call_ms=settings.slow_call_ms,
            read_only=app.policy.read_only,  # also set by a policy file
            unavailable=app.gateway.unavailable_reason,
            settle=app.gateway.settle,
            attempts=app.gate,  # mutating calls that end before the gate still leave their audit line
            subscriptions=self.bus,
        )
        self.executor = executor
        self.server.middleware.append(executor.middleware)
        for spec in tool_specs(app):
            executor.register(self.server, spec)
        self.updates = register_resources(self.server, app, self.bus)
        register_prompts(self.server, app)
        register_completions(self.server, app)
        self.app = app
        self._finished.set()
        return self.server

    def _start(self) -> None:
        assert self.app is not None
        app = self.app
        app.gateway.start()  # returns at once; the connection is made in the background
        self._started.append(app.gateway)
        self.updates.start()
        self._started.append(self.updates)
        entries = asyncio.create_task(app.devices.check_policy_entries_when_loaded(), name="policy-entries")
        self._started.append(entries)
        # The history store opens in its own thread a moment later, off the path of the first calls.
        opening = asyncio.get_running_loop().call_later(HISTORY_START_DELAY_S, app.history.recorder.start)
        self._started.append(_HistoryRun(app, opening))
        self._keep_tool_list_soon()

    def _keep_tool_list_soon(self) -> None:
        if self._tool_list_cache is not None and self._keeping is None and self.finished:
            self._keeping = asyncio.create_task(self._keep_tool_list(), name="tool-list-cache")

    async def _keep_tool_list(self) -> None:
        """Store the list this server really has, when the cache does not hold it already."""
        from zwave_mcp.server.tool_list_cache import dump_tools

        assert self._tool_list_cache is not None
        built = await self.server.list_tools()
        cached = self.cached_tools()
        if cached is not None and dump_tools(cached) == dump_tools(built):
            return
        if cached is not None:
            log.warning("the cached tool list was out of date; it is replaced for the next start")
        await asyncio.to_thread(self._tool_list_cache.store, built)

    async def _start_when_finished(self) -> None:
        await self._finished.wait()
        self._start()

    @asynccontextmanager
    async def _lifespan(self, _server: MCPServer[StagedServer]) -> AsyncIterator[StagedServer]:
        # Entered before the first message is read: when the server is not finished yet, start the
        # gateway as soon as it is (the transport finishes it right after answering `initialize`).
        waiting = None if self.finished else asyncio.create_task(self._start_when_finished())
        if waiting is None:
            self._start()
        self.client_log.start()
        try:
            yield self
        finally:
            if waiting is not None:
                waiting.cancel()
                with suppress(asyncio.CancelledError):
                    await waiting
            await self._stop()
            await self.client_log.stop()

    async def _stop(self) -> None:
        self._keep_tool_list_soon()  # a session that ended before the start was done keeps its list too
        if self._keeping is not None:
            with suppress(Exception):
                await asyncio.wait_for(self._keeping, KEEP_LIST_TIMEOUT_S)
            self._keeping = None
        started, self._started = self._started, []
        for part in reversed(started):
            if isinstance(part, asyncio.Task):
                part.cancel()
            else:
                await part.stop()


@dataclass
class _HistoryRun:
    """The history store's life in a server: its delayed start is cancelled, then the writer thread is
    stopped off the event loop (it flushes what it holds)."""

    app: App
    opening: asyncio.TimerHandle

    async def stop(self) -> None:
        self.opening.cancel()
        await asyncio.to_thread(self.app.history.recorder.stop)


def stage_server(
    settings: Settings, gateway: ZwaveGateway | None = None, tool_list_cache: ToolListCache | None = None
) -> StagedServer:
    """The server, not yet finished: enough to answer `initialize` (call `finish()` before anything else,
    except what `answers_unfinished` allows)."""
    return StagedServer(settings, gateway, tool_list_cache)


def build_server(settings: Settings, gateway: ZwaveGateway | None = None) -> MCPServer[StagedServer]:
    """The complete MCP server for these settings (pass a gateway to share one across servers in tests)."""
    return stage_server(settings, gateway).finish()
