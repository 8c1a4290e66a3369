"""Issue 36, item 4, as a rule of the code: only the write gate holds a device (`DeviceLocks.holding`), so
nothing can wait for a person's answer while holding one; a change planned from a device's state is a
planner handed to `Gate.run`, which lets go of the devices while it asks."""

from __future__ import annotations

import ast
from pathlib import Path

import zwave_mcp

PACKAGE = Path(zwave_mcp.__file__).parent


def _holds_devices(node: ast.AST) -> bool:
    """`….locks.holding(keys)` (not a value's `holding(report)`)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    owner = node.func.value
    name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
    return node.func.attr == "holding" and "lock" in str(name).lower()


def test_only_the_gate_takes_device_locks() -> None:
    holders = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if _holds_devices(node)
    ]
    assert holders == ["devices/gate/core.py"], holders
