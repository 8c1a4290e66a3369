"""The public tools. Each family lives in its own module; `tool_specs(app)` gathers them for the server."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zwave_mcp.server.executor import ToolSpec

if TYPE_CHECKING:
    from zwave_mcp.server.app import App


def tool_specs(app: App) -> list[ToolSpec]:
    from zwave_mcp.server.tools.control import specs as control_specs
    from zwave_mcp.server.tools.devices import specs as device_specs
    from zwave_mcp.server.tools.events import specs as event_specs
    from zwave_mcp.server.tools.health import specs as health_specs
    from zwave_mcp.server.tools.history import specs as history_specs
    from zwave_mcp.server.tools.locks import specs as lock_specs
    from zwave_mcp.server.tools.scenes import specs as scene_specs

    specs = [
        *device_specs(app),
        *control_specs(app),
        *health_specs(app),
        *scene_specs(app),
        *event_specs(app),
        *history_specs(app),
        *lock_specs(app),
    ]
    if app.settings.admin:  # network care: not even listed unless asked for (ZWAVE_MCP_ADMIN)
        from zwave_mcp.server.tools.admin import specs as admin_specs

        specs += admin_specs(app)
    return specs
