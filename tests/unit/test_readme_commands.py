"""The README's one-line expansions of `make demo` and `make test` say what the Makefile does."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def recipe(target: str) -> list[str]:
    """The commands of one Makefile target, with $(PY) and $(VENV) expanded to their defaults."""
    match = re.search(rf"^{re.escape(target)}:[^\n]*\n((?:\t[^\n]*\n)+)", MAKEFILE, re.MULTILINE)
    assert match, f"no target {target}"
    lines = [line.strip() for line in match.group(1).splitlines()]
    return [line.replace("$(PY)", ".venv/bin/python").replace("$(VENV)", ".venv") for line in lines]


def expansion(target: str) -> str:
    """The README's `# = …` comment after `make <target>`, with its continuation lines (`#   …`) joined."""
    match = re.search(rf"^make {target}\s+# = (.*(?:\n\s+#   .*)*)$", README, re.MULTILINE)
    assert match, f"the README has no expansion of make {target}"
    return " ".join(part.strip().removeprefix("#").strip() for part in match.group(1).splitlines())


def test_make_demo_expansion_matches_the_makefile() -> None:
    assert recipe("demo") == [".venv/bin/zwave-mcp demo"]
    assert ".venv/bin/zwave-mcp demo" in expansion("demo")
    assert "python3 -m venv .venv" in recipe("$(PY)")[0].replace("$(VENV)", ".venv")
    assert "python3 -m venv .venv" in expansion("demo")
    assert '-e ".[test]"' in recipe("$(INSTALLED)")[0] and '-e ".[test]"' in expansion("demo")


def test_make_test_expansion_matches_the_makefile() -> None:
    (command,) = recipe("test")
    assert expansion("test").endswith(command), (command, expansion("test"))
    assert MAKEFILE.startswith("#") and "test: $(INSTALLED) mosquitto inspector" in MAKEFILE
    assert "mosquitto" in expansion("test") and "npm ci --prefix .ci/node" in expansion("test")


def test_the_inspector_commands_pin_the_tested_inspector_and_say_its_node() -> None:
    import json

    section = README[README.index("### MCP Inspector") : README.index("### Docker")]
    pinned = json.loads((ROOT / ".ci" / "node" / "package.json").read_text("utf-8"))["dependencies"][
        "@modelcontextprotocol/inspector"
    ]
    lock = json.loads((ROOT / ".ci" / "node" / "package-lock.json").read_text("utf-8"))
    needs = lock["packages"]["node_modules/@modelcontextprotocol/inspector"]["engines"]["node"]  # ">=22.19.0"
    commands = [line for line in section.splitlines() if line.startswith("npx ")]
    assert commands and all(f"@modelcontextprotocol/inspector@{pinned} " in c for c in commands), commands
    assert f"Node.js {needs.removeprefix('>=').removesuffix('.0')} or newer" in section
    assert "…" not in "\n".join(commands)  # commands work as written: no placeholder left in them
    assert "confirmation token" in section and "cannot use it" in section
