"""The tools. Each family's module holds one function per tool and lists them in `TOOLS` (`spec.tool`);
`PUBLIC` gathers the families in the order `tools/list` shows them, `admin_tools()` the network-care ones,
and `tool_specs(app)` binds them: a new tool is one function and one entry in its family's `TOOLS`."""

from __future__ import annotations

from dataclasses import replace

from zwave_mcp.policy.caller import Reach
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


def admin_tools() -> list[ToolSpec]:
    """The network-care tools (ZWAVE_MCP_ADMIN), imported only when asked for (their models take ~80 ms to
    build, a tenth of the server's start)."""
    from zwave_mcp.server.tools.admin import TOOLS as ADMIN
    from zwave_mcp.server.tools.admin_associations import TOOLS as ASSOCIATIONS
    from zwave_mcp.server.tools.admin_firmware import TOOLS as FIRMWARE
    from zwave_mcp.server.tools.admin_inclusion import TOOLS as INCLUSION

    # Network care needs the network's access (home:admin over HTTP) before anything else is judged.
    return [replace(spec, reach=Reach.ADMIN) for spec in [*ADMIN, *ASSOCIATIONS, *INCLUSION, *FIRMWARE]]


def tool_specs(app: App) -> list[ToolSpec]:
    """Every tool the server lists, its function given the app: the executor calls each with `(args, ctx)`."""
    admin = admin_tools() if app.settings.admin else []  # network care: not even listed unless asked for
    return [replace(spec, handler=bound(spec.handler, app)) for spec in [*PUBLIC, *admin]]
