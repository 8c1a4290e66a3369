"""Issue 41: a kind is one room. The thermostat's actions and setpoint words are named in its own module
and nowhere else in devices/ (the shared modules find them in the kind table), and every kind module
hands its parts over as one `KindSpec` in `KINDS`."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.source_code import docstring_ids
from zwave_mcp.devices import kinds
from zwave_mcp.devices.kinds import fan, light, sensor, switch, thermostat
from zwave_mcp.devices.kinds.base import KindSpec

DEVICES = Path(__file__).resolve().parents[2] / "zwave_mcp" / "devices"
# What only the thermostat may say: its actions, its setpoint roles and words, its fan's spoken prefix.
THERMOSTAT_WORDS = re.compile(
    r"set_temperature|set_mode|set_fan_mode|SETPOINT_|^setpoint\.|heating to|cooling to|FAN_SAID"
)


def _said_in_code(path: Path) -> list[tuple[int, str]]:
    """The names and strings a module's code uses (docstrings and comments are prose: left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = docstring_ids(tree)
    said = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            said.append((node.lineno, node.value))
        elif isinstance(node, ast.Name | ast.alias | ast.Attribute):
            name = (
                node.id
                if isinstance(node, ast.Name)
                else node.name
                if isinstance(node, ast.alias)
                else node.attr
            )
            said.append((getattr(node, "lineno", 0), name))
    return said


def test_only_the_thermostat_names_its_actions_and_setpoints() -> None:
    found = [
        f"{path.relative_to(DEVICES)}:{n}: {text}"
        for path in sorted(DEVICES.rglob("*.py"))
        if path.name != "thermostat.py"
        for n, text in _said_in_code(path)
        if THERMOSTAT_WORDS.search(text)
    ]
    assert found == []


def test_every_kind_module_is_in_the_table_once() -> None:
    modules = (thermostat, fan, light, switch, sensor)
    assert all(isinstance(module.KIND, KindSpec) for module in modules)
    assert {module.KIND.name for module in modules} <= {kind.name for kind in kinds.KINDS}
    assert len({kind.name for kind in kinds.KINDS}) == len(kinds.KINDS)
