"""A start keeps its tool list for the next one, which answers `tools/list` with it before building;
the list is the same either way, and the server built right after works as usual."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fixtures_servers.wire import (
    INITIALIZED,
    initialize,
    request,
    run_lines,
    shape,
    stdout_messages,
    without_log_messages,
)

pytestmark = pytest.mark.e2e

SERVER = [sys.executable, "-m", "zwave_mcp"]
EARLY = b"tools/list answered with the list kept by the last start"


def _start(env: dict[str, str], *then: bytes) -> tuple[list[dict], bytes]:
    done = run_lines(
        SERVER, [initialize(1), INITIALIZED, request(2, "tools/list"), *then], timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return without_log_messages(stdout_messages(done.stdout)), done.stderr


def test_the_next_start_lists_the_kept_tools_before_building(
    no_broker_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**no_broker_env, "XDG_CACHE_HOME": str(tmp_path), "ZWAVE_MCP_LOG_LEVEL": "debug"}
    first, first_log = _start(env)
    assert EARLY not in first_log  # nothing kept yet: built, then answered
    assert list((tmp_path / "zwave-mcp").glob("tools-*.json")), "the first start keeps its list"

    second, second_log = _start(env)
    assert EARLY in second_log
    assert b"out of date" not in second_log  # the kept list is the built one: nothing to replace
    assert [shape(m) for m in second] == [(1, "result"), (2, "result")]
    assert second[1]["result"]["tools"] == first[1]["result"]["tools"]

    # Built right after: a tool call that follows works as on any start.
    third, _ = _start(env, request(3, "tools/call", {"name": "check_zwave_health", "arguments": {}}))
    assert third[2]["result"]["structuredContent"]["tool_name"] == "check_zwave_health"

    read_only = {**env, "ZWAVE_MCP_READ_ONLY": "true"}  # another configuration: its own list
    hidden, hidden_log = _start(read_only)
    assert EARLY not in hidden_log
    names = {t["name"] for t in hidden[1]["result"]["tools"]}
    assert "control_zwave_device" not in names and names < {t["name"] for t in first[1]["result"]["tools"]}
