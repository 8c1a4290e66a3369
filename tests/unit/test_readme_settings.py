"""The settings table (docs/settings.md), the tools, resources and prompts (README and docs/) cannot drift
from the code."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from zwave_mcp.config import Settings, env_name

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def all_docs() -> str:
    """The README and every page of docs/, as one text."""
    pages = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
    return "\n".join(page.read_text(encoding="utf-8") for page in pages)


def settings_rows() -> dict[str, list[str]]:
    """Table rows of docs/settings.md, by the first env var named in the first cell."""
    section = (DOCS / "settings.md").read_text(encoding="utf-8")
    rows: dict[str, list[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        found = re.match(r"`(ZWAVE_MCP_[A-Z0-9_]+)`", cells[0]) if line.startswith("|") else None
        if found:
            rows[found.group(1)] = cells
    return rows


def shown_default(default: Any) -> str:
    if default is None:
        return "–"
    if isinstance(default, bool):
        return f"`{str(default).lower()}`"
    if isinstance(default, float) and default.is_integer():
        default = int(default)
    return f"`{default}`"


@pytest.mark.parametrize("name", list(Settings.model_fields))
def test_every_setting_has_a_row_with_its_default(name: str) -> None:
    rows = settings_rows()
    var = env_name(name)
    assert var in rows, f"docs/settings.md has no row for {var}"
    field = Settings.model_fields[name]
    assert rows[var][1] == shown_default(field.default), f"{var}: docs/settings.md says {rows[var][1]}"
    assert rows[var][2], f"{var} has no meaning in docs/settings.md"


def test_no_row_for_a_setting_that_does_not_exist() -> None:
    known = {env_name(n) for n in Settings.model_fields}
    assert set(settings_rows()) <= known, set(settings_rows()) - known


def test_secret_files_are_documented() -> None:
    rows = settings_rows()
    for secret in ("mqtt_password", "tls_key_password"):
        assert f"`{env_name(secret)}_FILE`" in rows[env_name(secret)][0]


def test_every_tool_resource_and_prompt_is_in_the_docs() -> None:
    from zwave_mcp.config import load_settings
    from zwave_mcp.server.build import build_server

    text = all_docs()
    server = build_server(load_settings({}, environ={}))
    names = [t.name for t in server._tool_manager.list_tools()]
    names += [p.name for p in server._prompt_manager.list_prompts()]
    names += [str(r.uri) for r in server._resource_manager.list_resources()]
    names += [t.uri_template for t in server._resource_manager.list_templates()]
    assert len(names) >= 12, names
    missing = [n for n in names if f"`{n}`" not in text]
    assert not missing, f"not in the README nor docs/: {missing}"


def test_the_action_table_is_the_one_in_the_code() -> None:
    """One action vocabulary: docs/devices.md's table lists exactly `zwave_mcp.policy.actions` (names and aliases)."""
    from zwave_mcp.policy.actions import ACTION_ALIASES, ACTIONS

    text = (DOCS / "devices.md").read_text(encoding="utf-8")
    section = text.split("<!-- actions:", 1)[1].split("\n\n", 1)[0]
    table: dict[str, set[str]] = {}
    for line in section.splitlines():
        found = re.match(r"\| `(\w+)` \|(.*)\|", line)
        if found:
            table[found.group(1)] = {w.strip() for w in found.group(2).split(",") if w.strip()}
    assert list(table) == list(ACTIONS)
    expected: dict[str, set[str]] = {a: set() for a in ACTIONS}
    for alias, action in ACTION_ALIASES.items():
        expected[action].add(alias.replace("_", " "))
    assert table == expected


def test_the_outcome_table_is_the_one_vocabulary() -> None:
    from zwave_mcp.policy.outcome import Outcome

    text = (DOCS / "security.md").read_text(encoding="utf-8")
    section = text.split("| outcome | meaning |", 1)[1].split("\n\n", 1)[0]
    listed = re.findall(r"^\| `(\w+)` \|", section, re.MULTILINE)
    assert listed == [o.value for o in Outcome]
