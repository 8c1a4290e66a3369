"""The README and docs/ say what works: the expansions of `make demo` and `make test` are the Makefile's, every
`make` target and `zwave-mcp` command and flag they show exists, every link leads somewhere, the Inspector
commands are written as each Inspector line parses them, and the README's first screen holds what a newcomer
needs, in order (issue 46)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

import zwave_mcp

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
PAGES = {
    path.relative_to(ROOT).as_posix(): path.read_text("utf-8")
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
}


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


def shell_lines(text: str) -> list[str]:
    """The commands of the ```sh blocks, continuation lines joined, comments cut off."""
    blocks = re.findall(r"^```sh\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    lines = (
        line.split("#")[0].strip() if line.lstrip().startswith("#") else line.split("  #")[0].strip()
        for line in "\n".join(blocks).replace("\\\n", " ").splitlines()
    )
    return [line for line in lines if line]


def test_make_demo_expansion_matches_the_makefile() -> None:
    assert recipe("demo") == [".venv/bin/zwave-mcp demo"]
    assert ".venv/bin/zwave-mcp demo" in expansion("demo")
    assert "python3 -m venv .venv" in recipe("$(PY)")[0].replace("$(VENV)", ".venv")
    assert "python3 -m venv .venv" in expansion("demo")
    assert '-e ".[test]"' in recipe("$(INSTALLED)")[0] and '-e ".[test]"' in expansion("demo")


def test_make_test_expansion_matches_the_makefile() -> None:
    (command,) = recipe("test")
    assert expansion("test").endswith(command), (command, expansion("test"))
    assert MAKEFILE.startswith("#") and "test: $(INSTALLED) mosquitto node-tools" in MAKEFILE
    assert "mosquitto" in expansion("test") and "npm ci --prefix .ci/node and --prefix mcpb" in expansion(
        "test"
    )
    assert (
        "NODE_TOOLS := .ci/node/node_modules/.package-lock.json mcpb/node_modules/.package-lock.json"
        in MAKEFILE
    )


def test_every_make_target_shown_exists() -> None:
    targets = set(re.findall(r"^([\w-]+):", MAKEFILE, re.MULTILINE))
    shown = {(page, t) for page, text in PAGES.items() for t in re.findall(r"`make ([\w-]+)", text)}
    shown |= {
        (page, line.split()[1])
        for page, text in PAGES.items()
        for line in shell_lines(text)
        if line.startswith("make ")
    }
    assert {"demo", "test", "mcpb", "release-check"} <= {t for _, t in shown}
    assert not [(page, t) for page, t in shown if t not in targets]


def zwave_mcp_commands() -> list[tuple[str, list[str]]]:
    """Each `zwave-mcp …` command shown (in sh blocks and in inline code), as its words from `zwave-mcp` up to
    a `--` (what follows is another command's), brackets of optional parts dropped."""
    found = []
    for page, text in PAGES.items():
        shown = shell_lines(text) + re.findall(r"`((?:ZWAVE_MCP_\w+=\S+ )*zwave-mcp [^`]+)`", text)
        for line in shown:
            words = line.replace("[", " ").replace("]", " ").split()
            if "zwave-mcp" in words and all(
                re.match(r"ZWAVE_MCP_\w+=", w) for w in words[: words.index("zwave-mcp")]
            ):
                words = words[words.index("zwave-mcp") :]
                found.append((page, words[: words.index("--")] if "--" in words else words))
    return found


def test_the_zwave_mcp_commands_shown_name_real_commands_and_flags(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from zwave_mcp.commands.cli import SUBCOMMANDS, main

    commands = zwave_mcp_commands()
    assert len(commands) > 20 and {"config", "demo", "explain", "check-stdio", "simulate", "tools"} <= {
        words[1] for _, words in commands if len(words) > 1
    }
    for page, words in commands:
        sub = words[1] if len(words) > 1 and not words[1].startswith("-") else "serve"
        if sub == "COMMAND":  # `zwave-mcp COMMAND --help`: the syntax, not a command
            continue
        assert sub in SUBCOMMANDS, (page, words)
        flags = [w.split("=")[0] for w in words[1:] if w.startswith("--")]
        with pytest.raises(SystemExit):
            main([sub, "--help"])
        helped = capsys.readouterr().out
        assert all(flag in helped or flag in ("--help", "--version") for flag in flags), (page, words)


def test_every_link_leads_to_a_page_that_exists_and_every_page_is_linked() -> None:
    for page, text in PAGES.items():
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
            assert (ROOT / page).parent.joinpath(target).exists(), (page, target)
    linked = set(re.findall(r"\]\(docs/([\w-]+\.md)", README))
    assert linked == {p.removeprefix("docs/") for p in PAGES if p.startswith("docs/")}


def test_the_readme_first_screen_holds_install_connect_a_client_and_the_two_commands_in_order() -> None:
    """Issue 46: how to install started at line 102, the zwave-js-ui settings at 133, the client entry at 160."""
    screen = README.splitlines()[:60]
    headings = [line for line in screen if line.startswith("## ")]
    assert headings == ["## Install", "## Connect", "## Add it to a client", "## Ask", "## The two commands"]
    first = "\n".join(screen)
    # What it does, in three lines, before anything else.
    intro = first.split("\n## Install")[0].splitlines()
    assert [line for line in intro if line and not line.startswith(("#", "<!--"))].__len__() == 3
    # One install line; the three zwave-js-ui settings with where to find them; three clients; three questions.
    install = first.split("## Install")[1].split("## Connect")[0]
    assert len(shell_lines(install)) == 1 and "PyPI" in install
    connect = first.split("## Connect")[1].split("## Add it to a client")[0]
    for setting, where in (
        ("ZWAVE_MCP_MQTT_URL", "*Host*"),
        ("ZWAVE_MCP_PREFIX", "*Prefix*"),
        ("ZWAVE_MCP_GATEWAY_NAME", "*Name*"),
    ):
        (row,) = [line for line in connect.splitlines() if f"`{setting}`" in line]
        assert where in row
    assert "*Settings → MQTT*" in connect
    clients = first.split("## Add it to a client")[1].split("## Ask")[0]
    assert all(f"**{client}**" in clients for client in ("Claude Desktop", "Claude Code", "VS Code"))
    asks = first.split("## Ask")[1].split("## The two commands")[0]
    assert len([line for line in asks.splitlines() if line.startswith('- "')]) == 3
    assert "make demo          # =" in first and "make test          # =" in first


def test_the_readme_says_what_the_pypi_release_brings_and_what_works_until_then() -> None:
    text = "\n".join(PAGES.values())
    assert "uvx zwave-mcp" in README and "claude mcp add zwave -- uvx zwave-mcp" in PAGES["docs/install.md"]
    assert "Not on PyPI yet" in README and "install from the source" in README
    assert f"dist/zwave-mcp-{zwave_mcp.__version__}.mcpb" in README
    # Versions written in file names are the package's.
    for name in re.findall(r"zwave[-_]mcp-(\d[\w.]*?)(?:-py3-none-any\.whl|\.mcpb)", text):
        assert name == zwave_mcp.__version__


def inspector_commands(version: str) -> list[list[str]]:
    section = PAGES["docs/clients.md"].split("## MCP Inspector")[1].split("\n## ")[0]
    return [
        shlex.split(line)
        for line in shell_lines(section)
        if f"@modelcontextprotocol/inspector@{version} " in line
    ]


def test_the_inspector_commands_are_written_as_each_inspector_parses_them() -> None:
    """Issue 46: the 0.15 example failed with "Invalid parameter format: zwave-mcp. Use key=value format.":
    0.x's --tool-arg takes every word after it, so there the server command comes first."""
    pinned = json.loads((ROOT / ".ci" / "node" / "package.json").read_text("utf-8"))["dependencies"][
        "@modelcontextprotocol/inspector"
    ]
    lock = json.loads((ROOT / ".ci" / "node" / "package-lock.json").read_text("utf-8"))
    needs = lock["packages"]["node_modules/@modelcontextprotocol/inspector"]["engines"]["node"]  # ">=22.19.0"
    section = PAGES["docs/clients.md"].split("## MCP Inspector")[1].split("\n## ")[0]
    assert f"Node.js {needs.removeprefix('>=').removesuffix('.0')} or newer" in section
    assert "Node.js 20" in section and "0.15.0" in section
    new, old = inspector_commands(pinned), inspector_commands("0.15.0")
    assert len(new) == len(old) == 3
    for words in new:  # 2.x: the server command last, after --
        assert words[-2:] == ["--", "zwave-mcp"], words
    for words in old:  # 0.x: the server command first; nothing after the tool arguments but more of them
        start = words.index("--cli") + 1 if "--cli" in words else 3
        assert words[start] == "zwave-mcp" and "--" not in words, words
        if "--tool-arg" in words:
            assert all("=" in w for w in words[words.index("--tool-arg") + 1 :]), words
    assert "…" not in "\n".join(shell_lines(section))  # commands work as written: no placeholder left in them
    assert "confirmation token" in section and "cannot use it" in section
