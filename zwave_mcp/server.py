"""Builds the MCP server: the app's parts, the executor, the tools, resources and prompts. Thin by design.

The gateway connects in the background from the lifespan, so `initialize` and `tools/list` are answered at
once even with no broker; tools answer "Z-Wave service unavailable: <why>" until it is up.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server.mcpserver import MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus

from zwave_mcp import __version__
from zwave_mcp.app import App, build_app
from zwave_mcp.config import Settings
from zwave_mcp.executor import ToolExecutor
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


def build_server(settings: Settings, gateway: ZwaveGateway | None = None) -> MCPServer[App]:
    """The MCP server for these settings (pass a gateway to share one across servers in tests)."""
    from zwave_mcp.completions import register_completions
    from zwave_mcp.prompts import register_prompts
    from zwave_mcp.resource_updates import CountingBus
    from zwave_mcp.resources import register_resources
    from zwave_mcp.tools import tool_specs

    app = build_app(settings, gateway)
    executor = ToolExecutor(
        timeout_s=settings.tool_timeout,
        slow_call_ms=settings.slow_call_ms,
        read_only=app.policy.read_only,  # also set by a policy file
        unavailable=app.gateway.unavailable_reason,
        settle=app.gateway.settle,
        attempts=app.gate,  # mutating calls that end before the gate still leave their audit line
    )

    # Ours, not the SDK's default, so inventory changes can be published outside any request.
    bus = CountingBus(InMemorySubscriptionBus())

    @asynccontextmanager
    async def lifespan(_server: MCPServer[App]) -> AsyncIterator[App]:
        app.gateway.start()  # returns at once; the connection is made in the background
        # The store opens in its own thread a moment later: `initialize` is answered first.
        opening = asyncio.get_running_loop().call_later(HISTORY_START_DELAY_S, app.history.recorder.start)
        updates.start()
        entries = asyncio.create_task(app.devices.check_policy_entries_when_loaded(), name="policy-entries")
        try:
            yield app
        finally:
            entries.cancel()
            await updates.stop()
            await app.gateway.stop()
            opening.cancel()
            await asyncio.to_thread(app.history.recorder.stop)

    server: MCPServer[App] = MCPServer(
        name="zwave-mcp",
        title="Z-Wave (zwave-js-ui)",
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        middleware=[executor.middleware],
        subscriptions=bus,
    )
    for spec in tool_specs(app):
        executor.register(server, spec)
    updates = register_resources(server, app, bus)
    register_prompts(server, app)
    register_completions(server, app)
    return server
