"""compat: the SDK's private parts are all checked at start-up, and a missing one fails
loudly with what is installed and what was tested, instead of degrading silently."""

import subprocess
import sys

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.session import ServerSession

from zwave_mcp.server import compat


def test_the_installed_versions_have_every_part():
    compat.check(MCPServer("probe"))


def test_a_renamed_session_connection_fails_loudly(monkeypatch):
    original = ServerSession.__init__

    def renamed(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self._conn = self.__dict__.pop("_connection")

    monkeypatch.setattr(ServerSession, "__init__", renamed)
    with pytest.raises(compat.CompatError, match="elsewhere than _connection"):
        compat.check(MCPServer("probe"))


def test_a_missing_lowlevel_server_fails_loudly():
    server = MCPServer("probe")
    del server._lowlevel_server
    with pytest.raises(compat.CompatError, match="no _lowlevel_server"):
        compat.check(server)
    with pytest.raises(compat.CompatError, match="no _lowlevel_server"):
        compat.lowlevel_server(server)


def test_serve_refuses_to_start_with_one_line_when_a_part_is_missing(tmp_path):
    # The real command, with the SDK's session keeping its connection under another name.
    script = (
        "import sys\n"
        "from mcp.server.session import ServerSession\n"
        "original = ServerSession.__init__\n"
        "def renamed(self, *args, **kwargs):\n"
        "    original(self, *args, **kwargs)\n"
        "    self._conn = self.__dict__.pop('_connection')\n"
        "ServerSession.__init__ = renamed\n"
        "from zwave_mcp.commands.cli import main\n"
        "sys.exit(main(['serve']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input=b"", capture_output=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 1 and done.stdout == b""
    err = done.stderr.decode()
    assert "cannot run with the installed packages" in err and "_connection" in err, err
    assert "Traceback" not in err


def test_no_private_sdk_part_is_used_outside_compat():
    import pathlib
    import re

    root = pathlib.Path(compat.__file__).parent
    pattern = re.compile(r"_lowlevel_server|\._connection\b")
    users = sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if path.name != "compat.py" and pattern.search(path.read_text())
    )
    assert users == []


def test_the_server_is_built_without_the_sdks_logging_setup_and_a_changed_sdk_fails_loudly(monkeypatch):
    from mcp.server.mcpserver import server as module

    calls = []
    monkeypatch.setattr(module, "configure_logging", lambda *a, **k: calls.append(a))
    server = compat.mcp_server(name="probe")
    assert isinstance(server, MCPServer) and calls == []  # no rich import, no handler to drop
    MCPServer("probe")
    assert len(calls) == 1  # the SDK's own constructor still calls it: only ours is quiet

    monkeypatch.delattr(module, "configure_logging")
    with pytest.raises(compat.CompatError, match="configure_logging"):
        compat.check(server)


def test_the_check_command_names_each_part_and_what_broke(monkeypatch, capsys):
    """Issue 31: `make test-newest-mcp` runs `python -m zwave_mcp.server.compat --check` against the newest mcp
    2.x; it must say which private part broke, not only that something did."""
    assert compat.main(["--check"]) == 0
    fine = capsys.readouterr().out
    assert fine.count("\nok      ") == len(compat.PROBES) and "BROKEN" not in fine, fine

    original = ServerSession.__init__

    def renamed(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self._conn = self.__dict__.pop("_connection")

    monkeypatch.setattr(ServerSession, "__init__", renamed)
    assert compat.main(["--check"]) == 1
    out = capsys.readouterr().out
    broken = [line for line in out.splitlines() if line.startswith("BROKEN")]
    assert broken == [
        "BROKEN  mcp: ServerSession._connection: ServerSession keeps its connection elsewhere than _connection",
    ], out
    assert "1 part(s) broke" in out
