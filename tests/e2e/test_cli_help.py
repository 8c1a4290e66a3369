"""The command line explains itself: `--help` lists every command, `--version`, each command's `--help`."""

from __future__ import annotations

import subprocess
import sys

import pytest

from zwave_mcp import __version__
from zwave_mcp.commands.cli import SUBCOMMANDS

pytestmark = pytest.mark.e2e

CLI = [sys.executable, "-m", "zwave_mcp"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_help_lists_every_command_with_one_line() -> None:
    done = run("--help")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for command in SUBCOMMANDS:
        # The command's name starts a line of the list, and a description follows it.
        at = next(i for i, line in enumerate(lines) if line.strip().split(" ")[0] == command)
        rest = lines[at].strip()[len(command) :].strip() or lines[at + 1].strip()
        assert len(rest) > 10, (command, done.stdout)
    assert "read-only tools only unless" in " ".join(done.stdout.split())


def test_version() -> None:
    done = run("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"zwave-mcp {__version__}"


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_command_has_help(command: str) -> None:
    done = run(command, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: zwave-mcp {command}"), done.stdout[:200]
    assert done.stderr == ""


def test_settings_flags_without_a_command_still_serve_help() -> None:
    """`zwave-mcp --mqtt-url … --help` is serve's help, as `zwave-mcp --mqtt-url …` is serve."""
    done = run("--mqtt-url", "mqtt://127.0.0.1:1", "--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: zwave-mcp serve")
