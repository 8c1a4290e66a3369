"""The public tools. Each family lives in its own module; `tool_specs(app)` gathers them for the server."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zwave_mcp.server.executor import ToolSpec

if TYPE_CHECKING:
    from zwave_mcp.server.app import App


def tool_specs(app: App) -> list[ToolSpec]:
    from zwave_mcp.server.tools import control, devices, events, health, history, locks, scenes

    # tools/list lists them in this order.
    families = (devices, control, health, scenes, events, history, locks)
    specs = [spec for family in families for spec in family.specs(app)]
    if app.settings.admin:  # network care: not even listed unless asked for (ZWAVE_MCP_ADMIN)
        from zwave_mcp.server.tools.admin import specs as admin_specs

        specs += admin_specs(app)
    return specs
