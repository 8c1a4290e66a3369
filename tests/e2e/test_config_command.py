"""`zwave-mcp config` as a person runs it (issue 31): where history goes, and a broker that refuses
reported once, at once, as a JSON log line."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def run_config(env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "zwave_mcp", "config"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done, time.monotonic() - started


def test_a_refusing_broker_is_one_json_line_at_once(tmp_path: Path) -> None:
    port = closed_port()
    done, took = run_config(
        {
            "ZWAVE_MCP_MQTT_URL": f"mqtt://127.0.0.1:{port}",
            "ZWAVE_MCP_DENY": "front door",
            "ZWAVE_MCP_ALLOW": "kitchen light,front door",
            "XDG_STATE_HOME": str(tmp_path),
        }
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["policy_entries_not_checked"].startswith("cannot reach the MQTT broker"), shown
    assert took < 5, f"config took {took:.1f} s with a broker that refuses at once"
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    line = json.loads(lines[0])  # the JSON logs stderr is meant to carry, not plain text
    assert line["level"] == "WARNING" and f"127.0.0.1:{port}" in line["message"], line


def test_config_shows_where_history_really_goes(tmp_path: Path) -> None:
    done, _ = run_config(
        {"XDG_STATE_HOME": str(tmp_path), "ZWAVE_MCP_MQTT_URL": f"mqtt://127.0.0.1:{closed_port()}"}
    )
    assert json.loads(done.stdout)["history_path"] == str(tmp_path / "zwave-mcp" / "history.sqlite3")
    done, _ = run_config({"ZWAVE_MCP_HISTORY_PATH": "off"})
    assert json.loads(done.stdout)["history_path"] == "off"
    done, _ = run_config({"ZWAVE_MCP_HISTORY_PATH": "~/h.sqlite3", "HOME": str(tmp_path)})
    assert json.loads(done.stdout)["history_path"] == str(tmp_path / "h.sqlite3")
