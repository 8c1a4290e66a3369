"""The public tools. Each family lives in its own module; `tool_specs(app)` gathers them for the server."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zwave_mcp.executor import ToolSpec

if TYPE_CHECKING:
    from zwave_mcp.app import App


def tool_specs(app: App) -> list[ToolSpec]:
    from zwave_mcp.tools.control import specs as control_specs
    from zwave_mcp.tools.devices import specs as device_specs
    from zwave_mcp.tools.events import specs as event_specs
    from zwave_mcp.tools.health import specs as health_specs
    from zwave_mcp.tools.scenes import specs as scene_specs

    return [*device_specs(app), *control_specs(app), *health_specs(app), *scene_specs(app), *event_specs(app)]
