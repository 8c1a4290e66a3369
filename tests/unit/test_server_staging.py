"""The staged server answers `initialize` with the finished server's capabilities, and staging it imports
none of what only the finished server needs (that is what makes `initialize` as fast as a bare SDK's)."""

from __future__ import annotations

import subprocess
import sys

from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from zwave_mcp.config import load_settings
from zwave_mcp.server.build import stage_server
from zwave_mcp.server.compat import lowlevel_server

SETTINGS = {"mqtt_url": "mqtt://127.0.0.1:9", "prefix": "staging"}


def _capabilities(staged: object) -> list[dict[str, object]]:
    lowlevel = lowlevel_server(staged.server)  # type: ignore[attr-defined]
    handshake = lowlevel.create_initialization_options().capabilities
    modern = [lowlevel.get_capabilities(protocol_version=v) for v in sorted(MODERN_PROTOCOL_VERSIONS)]
    return [c.model_dump(exclude_none=True) for c in (handshake, *modern)]


def test_staged_and_finished_servers_announce_the_same_capabilities_in_both_eras() -> None:
    staged = stage_server(load_settings(SETTINGS, environ={}))
    before = _capabilities(staged)
    staged.finish()
    after = _capabilities(staged)
    assert before == after
    assert before[0]["completions"] == {} and before[0]["resources"]["subscribe"] is True


def test_finish_replaces_every_stand_in_and_is_done_once() -> None:
    staged = stage_server(load_settings(SETTINGS, environ={}))
    server = staged.finish()
    assert staged.finish() is server
    lowlevel = lowlevel_server(server)
    for method in ("completion/complete", "resources/subscribe", "resources/unsubscribe"):
        handler = lowlevel.get_request_handler(method)
        assert handler is not None
        assert "_stand_in" not in handler.handler.__qualname__, method


def test_staging_imports_nothing_only_the_finished_server_needs() -> None:
    code = (
        "import sys\n"
        "from zwave_mcp.config import load_settings\n"
        "from zwave_mcp.server.build import stage_server\n"
        f"stage_server(load_settings({SETTINGS!r}, environ={{}}))\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('zwave_mcp'))))\n"
    )
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    later = {
        "zwave_mcp.server.app",
        "zwave_mcp.server.tools",
        "zwave_mcp.gateway.client",
        "zwave_mcp.devices.gate",
        "zwave_mcp.server.executor",
        "zwave_mcp.simulator",
        "zwave_mcp.commands.demo",
        "zwave_mcp.commands.export",
        "zwave_mcp.gateway.mqtt",
    }
    assert loaded & later == set()
    assert "zwave_mcp.server.build" in loaded
