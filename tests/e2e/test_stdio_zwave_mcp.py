"""The issue's acceptance checks against the real server, `python -m zwave_mcp`, with no broker reachable."""

import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from tests.fixtures_servers.wire import (
    ACCEPTANCE_LINES,
    ACCEPTANCE_SHAPES,
    INITIALIZED,
    initialize,
    request,
    run_lines,
    shape,
    stdout_messages,
    without_log_messages,
)

pytestmark = pytest.mark.e2e

# Until the lead's server module lands, its absence is reported as a skip, not a transport failure.
pytest.importorskip("zwave_mcp.server.build", reason="zwave_mcp.server.build is not importable yet")

SERVER = [sys.executable, "-m", "zwave_mcp"]


def test_acceptance_sequence_against_python_m_zwave_mcp(no_broker_env: dict[str, str]) -> None:
    done = run_lines(SERVER, ACCEPTANCE_LINES, timeout=60, env=no_broker_env)
    assert done.returncode == 0, done.stderr[-3000:]
    messages = without_log_messages(stdout_messages(done.stdout))
    assert [shape(m) for m in messages] == ACCEPTANCE_SHAPES, done.stderr[-3000:]
    assert messages[5]["result"]["tools"], "the real server lists its tools"


def test_check_stdio_passes_python_m_zwave_mcp(no_broker_env: dict[str, str]) -> None:
    done = subprocess.run(
        # Every tool is called: safe, nothing is reachable.
        [*SERVER, "check-stdio", "--include-writes", "--", *SERVER],
        capture_output=True,
        text=True,
        timeout=180,
        env=no_broker_env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "PASS" in done.stderr


class _Lines:
    """A pipe read line by line in a thread; `wait_for` blocks until a line matches."""

    def __init__(self, pipe: Any) -> None:
        self.lines: list[bytes] = []
        self._changed = threading.Condition()
        threading.Thread(target=self._read, args=(pipe,), daemon=True).start()

    def _read(self, pipe: Any) -> None:
        for line in pipe:
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()

    def wait_for(self, fragment: bytes, timeout: float = 15.0) -> None:
        with self._changed:
            if not self._changed.wait_for(lambda: any(fragment in line for line in self.lines), timeout):
                raise AssertionError(f"no line with {fragment!r} in {timeout} s: {self.lines[-5:]}")


def test_warnings_reach_a_2025_client_as_log_notifications_after_initialized_only(
    no_broker_env: dict[str, str],
) -> None:
    """The broker is unreachable: the warnings that say so reach the client as `notifications/message`
    (stdout stays JSON-RPC only), none before `notifications/initialized`, none below the level set."""
    env = {**no_broker_env, "ZWAVE_MCP_LOG_LEVEL": "debug"}
    proc = subprocess.Popen(
        SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert proc.stdin is not None
    out, err = _Lines(proc.stdout), _Lines(proc.stderr)
    try:
        proc.stdin.write(initialize(1) + b"\n")
        proc.stdin.flush()
        out.wait_for(b'"id":1')
        err.wait_for(b"MQTT connection failed")  # a warning logged before the client is initialized
        time.sleep(0.2)
        before_initialized = list(out.lines)
        for line in (INITIALIZED, request(2, "logging/setLevel", {"level": "warning"})):
            proc.stdin.write(line + b"\n")
        proc.stdin.flush()
        out.wait_for(b'"id":2')
        out.wait_for(b"notifications/message")
        err.wait_for(b'"level": "DEBUG"')
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert proc.returncode == 0
    assert len(before_initialized) == 1, before_initialized  # the initialize answer, no notification
    messages = stdout_messages(b"".join(out.lines))
    assert {"jsonrpc": "2.0", "id": 2, "result": {}} in messages  # setLevel is answered
    logs = [m["params"] for m in messages if m.get("method") == "notifications/message"]
    assert logs and {p["level"] for p in logs} <= {"warning", "error", "critical"}, logs
    assert any(
        p["logger"] == "zwave_mcp.gateway.mqtt"
        and "MQTT connection failed: connection refused" in p["data"]["message"]
        and p["data"]["connection"] in ("values", "api")
        for p in logs
    ), logs
