"""Issue 42: `zwave-mcp serve --http` refuses what it must, in one line on stderr and nothing on stdout: a
bind other machines can reach without TLS or a proxy, and any start without its sign-in (OAuth needs a
passphrase; no flag turns it off). `demo --serve --http` passes the service's own reason on."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.test_service_http import free_port
from zwave_mcp.history.store import Store
from zwave_mcp.history.writer import Writer, this_host

pytestmark = pytest.mark.e2e

ZWAVE_MCP = [sys.executable, "-m", "zwave_mcp"]


def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_STATE_HOME": str(home / "state"),
        "ZWAVE_MCP_MQTT_URL": f"mqtt://127.0.0.1:{free_port()}",
    }
    return subprocess.run([*ZWAVE_MCP, *args], env=env, capture_output=True, text=True, timeout=60)


def test_a_bind_others_can_reach_needs_tls_or_a_proxy(tmp_path: Path) -> None:
    done = run(tmp_path, "serve", "--http", "0.0.0.0:8765")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("zwave-mcp: listening on 0.0.0.0 lets other machines connect: ")
    assert "--http-tls-cert" in done.stderr and "--behind-proxy URL" in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr


def test_one_service_a_history_file(tmp_path: Path) -> None:
    history = tmp_path / "history.sqlite3"
    store = Store.open(str(history), "home")
    now = int(time.time() * 1000)
    store.claim_writer(Writer(os.getpid(), this_host(), now, now), now)  # this test is a live service
    store.close()
    done = run(tmp_path, "serve", "--http", str(free_port()), "--history-path", str(history))
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert done.stderr.startswith(f"zwave-mcp: another zwave-mcp service (process {os.getpid()} on "), (
        done.stderr
    )
    assert "stop it first, or give this one its own ZWAVE_MCP_HISTORY_PATH" in done.stderr


def test_it_never_starts_without_its_sign_in(tmp_path: Path) -> None:
    done = run(tmp_path, "serve", "--http", str(free_port()))
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert done.stderr.startswith("zwave-mcp: the home service ") and len(done.stderr.splitlines()) == 1


def test_the_demo_says_why_its_home_service_did_not_start(tmp_path: Path) -> None:
    done = run(tmp_path, "demo", "--serve", "--http", f"127.0.0.1:{free_port()}")
    assert done.returncode == 1
    assert "zwave-mcp demo: the home service did not start:" in done.stderr
    assert "zwave-mcp: the home service " in done.stderr, done.stderr
