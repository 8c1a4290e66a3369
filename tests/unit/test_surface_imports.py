"""The MCP surface modules (server, app, tools, resources, prompts) import each other without a cycle, even
counting imports made only for type checking: `App` lives in `zwave_mcp/server/app.py`, below all of them."""

from __future__ import annotations

import ast
from pathlib import Path

import zwave_mcp

PACKAGE = Path(zwave_mcp.__file__).parent
SURFACE = (
    "zwave_mcp.server.build",
    "zwave_mcp.server.app",
    "zwave_mcp.server.tools",
    "zwave_mcp.server.resources",
    "zwave_mcp.server.prompts",
)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("zwave_mcp"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("zwave_mcp"))
    return found


def test_no_import_cycle_between_the_mcp_surface_modules() -> None:
    graph = {
        module_name(p): {m for m in imports_of(p) if m.startswith(SURFACE)}
        for p in PACKAGE.rglob("*.py")
        if module_name(p).startswith(SURFACE)
    }
    assert "zwave_mcp.server.app" in graph and "zwave_mcp.server.tools.control" in graph

    def cycle_from(start: str) -> list[str] | None:
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in graph.get(node, ()):
                if nxt == start:
                    return [*path, nxt]
                if nxt not in path:
                    stack.append((nxt, [*path, nxt]))
        return None

    cycles = [c for c in (cycle_from(m) for m in graph) if c]
    assert cycles == [], cycles
    assert not graph["zwave_mcp.server.app"], "App depends on nothing of the surface"
