"""Builds the MCP server: the app's parts, the executor, the tools, resources and prompts. Thin by design.

`build_server(settings)` gives the `MCPServer`; its lifespan starts the gateway, which connects in the
background, so `initialize` and `tools/list` are answered at once even with no broker; tools answer
"Z-Wave service unavailable: <why>" until it is up.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus

from zwave_mcp import __version__
from zwave_mcp.config import Settings
from zwave_mcp.logs import watch_task
from zwave_mcp.server.app import bound, build_app
from zwave_mcp.server.client_log import ClientLog
from zwave_mcp.server.compat import mcp_server
from zwave_mcp.server.completions import complete
from zwave_mcp.server.executor import ToolExecutor, WhoCalls
from zwave_mcp.server.prompts import register_prompts
from zwave_mcp.server.resource_updates import CountingBus
from zwave_mcp.server.resources import register_resources
from zwave_mcp.server.tools import tool_specs

if TYPE_CHECKING:
    from mcp.server.auth.provider import OAuthAuthorizationServerProvider
    from mcp.server.auth.settings import AuthSettings

    from zwave_mcp.gateway.client import ZwaveGateway

log = logging.getLogger(__name__)

HISTORY_START_DELAY_S = 0.3

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


class ZwaveServer:
    """The `MCPServer` for these settings (`server`), with the app behind it and what its lifespan starts."""

    def __init__(
        self,
        settings: Settings,
        gateway: ZwaveGateway | None = None,
        *,
        service: bool = False,
        auth: AuthSettings | None = None,
        auth_server_provider: OAuthAuthorizationServerProvider[Any, Any, Any] | None = None,
        who_calls: WhoCalls | None = None,
    ) -> None:
        """`service`: the always-on home service (`serve --http`), the one writer of the history file; a
        server beside it reads that file and writes none. `auth`/`auth_server_provider`: the SDK's OAuth
        parts, given only over HTTP. `who_calls`: each request's caller (default: the one stdio client)."""
        # Our bus, not the SDK's default, so inventory changes can be published outside any request.
        self.bus = CountingBus(InMemorySubscriptionBus())
        self.server: MCPServer[ZwaveServer] = mcp_server(
            name="zwave-mcp",
            title="Z-Wave (zwave-js-ui)",
            version=__version__,
            instructions=INSTRUCTIONS,
            lifespan=self._lifespan,
            subscriptions=self.bus,
            auth=auth,
            auth_server_provider=auth_server_provider,
        )
        self.client_log = ClientLog()
        self.client_log.install(self.server)
        self.app = app = build_app(settings, gateway, service=service)
        self.executor = ToolExecutor(
            timeout_s=settings.tool_timeout,
            slow_call_ms=settings.slow_call_ms,
            read_only=app.policy.read_only,  # also set by a policy file
            unavailable=app.gateway.unavailable_reason,
            settle=app.gateway.settle,
            attempts=app.gate,  # mutating calls that end before the gate still leave their audit line
            **({"who_calls": who_calls} if who_calls is not None else {}),
        )
        for spec in tool_specs(app):
            self.executor.register(self.server, spec)
        self.updates = register_resources(self.server, app, self.bus)
        register_prompts(self.server, app)
        self.server.completion()(bound(complete, app))

    @asynccontextmanager
    async def _lifespan(self, _server: MCPServer[ZwaveServer]) -> AsyncIterator[ZwaveServer]:
        app = self.app
        app.gateway.start()  # returns at once; the connection is made in the background
        self.updates.start()
        entries = watch_task(
            asyncio.create_task(app.devices.check_policy_entries_when_loaded(), name="policy-entries")
        )
        # The history store opens in its own thread a moment later, off the path of the first calls.
        opening = asyncio.get_running_loop().call_later(HISTORY_START_DELAY_S, app.history.recorder.start)
        self.client_log.start()
        try:
            yield self
        finally:  # in reverse order; the history writer is stopped off the event loop (it flushes)
            opening.cancel()
            await asyncio.to_thread(app.history.recorder.stop)
            entries.cancel()
            await self.updates.stop()
            await app.gateway.stop()
            await self.client_log.stop()


def build_server(settings: Settings, gateway: ZwaveGateway | None = None) -> MCPServer[ZwaveServer]:
    """The complete MCP server for these settings (pass a gateway to share one across servers in tests)."""
    return ZwaveServer(settings, gateway).server
