"""Helpers for tests that speak raw JSON-RPC lines to a stdio server subprocess."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent
GOOD_SERVER = [sys.executable, str(FIXTURES / "good_server.py")]
BANNER_SERVER = [sys.executable, str(FIXTURES / "banner_server.py")]
DYING_SERVER = [sys.executable, str(FIXTURES / "dying_server.py")]
HOSTILE_SERVER = [sys.executable, str(FIXTURES / "hostile_server.py")]


def initialize(rid: int | str = 1) -> bytes:
    params = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    }
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": params}).encode()


def request(rid: int | str, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'

# The acceptance input: not json, {"a":1}, [1,2], initialize, 5 MB of garbage, tools/list.
ACCEPTANCE_LINES = [
    b"not json",
    b'{"a":1}',
    b"[1,2]",
    initialize(1),
    b"#" * 5_000_000,
    INITIALIZED,
    request(2, "tools/list"),
]


def run_lines(
    command: list[str], lines: list[bytes], timeout: float = 30.0, env: dict[str, str] | None = None
):
    """Feed the lines, close stdin, wait for exit; returns the CompletedProcess (stdout/stderr bytes)."""
    data = b"".join(line + b"\n" for line in lines)
    return subprocess.run(command, input=data, capture_output=True, timeout=timeout, env=env)


def stdout_messages(stdout: bytes) -> list[dict[str, Any]]:
    """Every stdout line as JSON; fails loudly (with the line) if one is not."""
    messages = []
    for number, line in enumerate(stdout.split(b"\n")[:-1], 1):
        try:
            messages.append(json.loads(line))
        except ValueError:
            raise AssertionError(f"stdout line {number} is not JSON: {line[:200]!r}") from None
    assert stdout == b"" or stdout.endswith(b"\n"), f"stdout ends without a newline: {stdout[-200:]!r}"
    return messages


def without_log_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages but the server's log notifications (`notifications/message`: zwave-mcp sends its
    warnings, e.g. an unreachable broker, to a 2025-era client), for tests about the other ones."""
    return [m for m in messages if m.get("method") != "notifications/message"]


def shape(message: dict[str, Any]) -> tuple[Any, ...]:
    """(id, error code) for errors, (id, 'result') for results: what the acceptance order compares."""
    if "error" in message:
        return (message["id"], message["error"]["code"])
    return (message["id"], "result")


ACCEPTANCE_SHAPES = [
    (None, -32700),
    (None, -32600),
    (None, -32600),
    (1, "result"),
    (None, -32700),
    (2, "result"),
]
