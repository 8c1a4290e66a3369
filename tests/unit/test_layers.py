"""Issue 34: the house shows its architecture. Each room (a package or a basic module at the root of
zwave_mcp/) imports only from the rooms below it, and no module imports one that imports it back, counting
imports inside functions and under TYPE_CHECKING too (a circle there is still a circle to a reader)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "zwave_mcp"

# Top to bottom; a room may import any room after it in this list, never one before it.
LAYERS = [
    "__main__",
    "commands",
    "service",
    "stdio",
    "server",
    "network",
    "history",
    "devices",
    "policy",
    "gateway",
    "config",
    "logs",
    "answers",
    "errors",
    "names",
    "safetext",
    "zwave",
    "__init__",
]
# Stands apart: started by the commands and the tests, it imports none of the product's rooms, only the
# ground floor's Z-Wave vocabulary (command classes and property names, shared so the two cannot drift apart).
APART = {"simulator"}
SIMULATOR_MAY_IMPORT = {"zwave_mcp", "zwave_mcp.safetext"}


def _simulator_may_import(module: str) -> bool:
    return (
        module in SIMULATOR_MAY_IMPORT or module == "zwave_mcp.zwave" or module.startswith("zwave_mcp.zwave.")
    )


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        dotted = ".".join(("zwave_mcp", *path.relative_to(PACKAGE).with_suffix("").parts))
        found[dotted.removesuffix(".__init__")] = path
    return found


def _imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules `module` imports (a name imported from a package counts as its module when it
    is one)."""
    out: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, *([base] if base else [])])
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module and not module.startswith(name + "."):
                out.add(name)
    return out


def _room(module: str) -> str:
    return module.split(".")[1] if "." in module else "__init__"


def test_each_room_imports_only_the_rooms_below_it() -> None:
    known = _modules()
    rank = {room: i for i, room in enumerate(LAYERS)}
    rooms = {_room(m) for m in known}
    assert rooms <= set(LAYERS) | APART, f"rooms missing from LAYERS: {sorted(rooms - set(LAYERS) - APART)}"
    upward = []
    for module, path in known.items():
        here = _room(module)
        for imported in _imports(module, path, known):
            there = _room(imported)
            if there == here:
                continue
            if here in APART or there in APART:
                if here in APART and not _simulator_may_import(imported):
                    upward.append(f"{module} -> {imported} (the simulator imports no product room)")
                continue
            if rank[there] <= rank[here]:
                upward.append(f"{module} -> {imported}")
    assert upward == [], "imports that go up or sideways:\n" + "\n".join(sorted(upward))


def test_no_import_circle() -> None:
    known = _modules()
    graph = {m: _imports(m, p, known) for m, p in known.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    assert circles == [], f"import circles: {circles}"


def test_the_root_keeps_only_the_basics() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(loose) <= 8, loose
