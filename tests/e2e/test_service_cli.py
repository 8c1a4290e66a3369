"""Issue 42: `zwave-mcp serve --http` refuses what it must, in one line on stderr and nothing on stdout: a
bind other machines can reach without TLS or a proxy, and any start without its sign-in (OAuth needs a
passphrase; no flag turns it off). `demo --serve --http` passes the service's own reason on."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.e2e.test_service_http import free_port, stopped_at_the_end, wait_listening
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


def test_without_a_passphrase_it_listens_signs_nobody_in_and_says_so(tmp_path: Path) -> None:
    """No flag turns the sign-in off. With no passphrase set yet the service still starts (it records the
    home from the first minute; a unit started first does not crash-loop), its log says no client can be
    approved, and a call without a token is refused as ever."""
    port = free_port()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "ZWAVE_MCP_MQTT_URL": f"mqtt://127.0.0.1:{free_port()}",
    }
    log = tmp_path / "service.log"
    with log.open("wb") as err:
        process = subprocess.Popen(
            [*ZWAVE_MCP, "serve", "--http", f"127.0.0.1:{port}"], env=env, stdout=subprocess.PIPE, stderr=err
        )
    with stopped_at_the_end(process):
        wait_listening(process, port, log.read_text)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/mcp", timeout=10)
        assert refused.value.code == 401
    assert "no client can be approved yet" in log.read_text()
    assert process.stdout is not None and process.stdout.read() == b""


def test_the_demo_says_why_its_home_service_did_not_start(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))  # bound, not listening: the service cannot bind it, nobody answers there
        done = run(tmp_path, "demo", "--serve", "--http", f"127.0.0.1:{taken.getsockname()[1]}")
    assert done.returncode == 1
    assert "zwave-mcp demo: the home service did not start:" in done.stderr, done.stderr


def test_the_demos_home_service_signs_in_with_a_passphrase_of_its_own(tmp_path: Path) -> None:
    """A first try needs no `zwave-mcp passphrase`: the demo sets one for its run, in a folder of its own,
    and prints it; the person's own sign-in store is never written."""
    port = free_port()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    demo = subprocess.Popen(
        [*ZWAVE_MCP, "demo", "--serve", "--http", f"127.0.0.1:{port}"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert demo.stdout is not None
        said = ""
        while "Running until Ctrl-C" not in said:
            line = demo.stdout.readline()
            assert line, f"the demo stopped: {said}{demo.stderr.read() if demo.stderr else ''}"
            said += line
        assert f"at http://127.0.0.1:{port}/mcp" in said
        assert "sign in with this run's passphrase: " in said
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/mcp", timeout=10)
        assert refused.value.code == 401
    finally:
        demo.send_signal(signal.SIGINT)
        demo.wait(30)
    assert demo.returncode == 0
    assert not (tmp_path / "state").exists() or not list((tmp_path / "state").rglob("auth.sqlite3"))
