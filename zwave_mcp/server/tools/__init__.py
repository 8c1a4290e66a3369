"""The public tools. Each family's module holds one function per tool and lists them in `TOOLS`; `PUBLIC`
gathers the families in the order `tools/list` shows them, and `tool_specs(app)` binds them to the app."""

from __future__ import annotations

from dataclasses import replace

from zwave_mcp.server.app import App, bound
from zwave_mcp.server.executor import ToolSpec
from zwave_mcp.server.tools.control import TOOLS as CONTROL
from zwave_mcp.server.tools.devices import TOOLS as DEVICES
from zwave_mcp.server.tools.events import TOOLS as EVENTS
from zwave_mcp.server.tools.health import TOOLS as HEALTH
from zwave_mcp.server.tools.history import TOOLS as HISTORY
from zwave_mcp.server.tools.locks import TOOLS as LOCKS
from zwave_mcp.server.tools.scenes import TOOLS as SCENES

PUBLIC: list[ToolSpec] = [*DEVICES, *CONTROL, *HEALTH, *SCENES, *EVENTS, *HISTORY, *LOCKS]


def tool_specs(app: App) -> list[ToolSpec]:
    """Every tool the server lists, its function given the app: the executor calls it with `(args, ctx)`."""
    specs = [replace(spec, handler=bound(spec.handler, app)) for spec in PUBLIC]
    if app.settings.admin:  # network care: not even listed unless asked for (ZWAVE_MCP_ADMIN)
        from zwave_mcp.server.tools.admin import specs as admin_specs

        specs += admin_specs(app)
    return specs
