"""Shared pieces of the benchmarks: statistics, the result table, a broker and a simulator process.

Every figure is printed next to a baseline measured in the same run, and as a ratio: the machine is
shared and noisy, so absolute numbers only mean something beside their baseline.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zwave_mcp.config import Settings, load_settings

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

# Every server of a run keeps its history and its cache under a directory of the run's own, removed at
# the end: never the user's real one (the bench would fill it with made-up switching), and never a file
# left by an earlier run (a store grown by every run before made each write cost more, so figures
# drifted). Children inherit it; on Linux the default places follow XDG_STATE_HOME and XDG_CACHE_HOME.
STATE_DIR = tempfile.mkdtemp(prefix="zwave-mcp-bench-state-")
os.environ["XDG_STATE_HOME"] = STATE_DIR
os.environ["XDG_CACHE_HOME"] = str(Path(STATE_DIR) / "cache")  # what libraries cache (matplotlib)
atexit.register(shutil.rmtree, STATE_DIR, ignore_errors=True)
_history_files = itertools.count(1)


def fresh_history_path() -> str:
    """A history file no server has used yet: each server starts with an empty store, as on a new machine."""
    return str(Path(STATE_DIR) / f"history-{next(_history_files)}.sqlite3")


def percentile(samples: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); what p50/p99 mean in the table."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def p50(samples: Sequence[float]) -> float:
    return statistics.median(samples) if samples else float("nan")


def p99(samples: Sequence[float]) -> float:
    return percentile(samples, 99)


@dataclass
class Row:
    """One line of the table: our figure, the baseline's, and the target it is judged against."""

    section: str
    metric: str
    ours: float
    base: float | None
    unit: str
    target: str = ""
    ok: bool | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.base is None or self.base == 0:
            return None
        return self.ours / self.base


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if abs(value) >= 1000 or unit in ("calls/s", "msg/s"):
        return f"{value:,.0f} {unit}"
    if abs(value) >= 100:
        return f"{value:.0f} {unit}"
    if abs(value) >= 10:
        return f"{value:.1f} {unit}"
    return f"{value:.3f} {unit}"


def render_table(rows: Sequence[Row]) -> str:
    header = ("section", "metric", "zwave-mcp", "baseline", "ratio", "target", "ok", "note")
    lines = [
        (
            r.section,
            r.metric,
            _fmt(r.ours, r.unit),
            _fmt(r.base, r.unit),
            "-" if r.ratio is None else f"{r.ratio:.2f}x",
            r.target,
            {True: "yes", False: "NO", None: ""}[r.ok],
            r.note,
        )
        for r in rows
    ]
    widths = [max(len(str(c)) for c in col) for col in zip(header, *lines, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    out = [line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(cells) for cells in lines]
    return "\n".join(out)


def say(text: str) -> None:
    """Progress for the person running the benchmark (stderr, so the table on stdout stays clean)."""
    print(text, file=sys.stderr, flush=True)


def rss_mb(pid: int | None = None) -> float:
    """Resident set size in MB (Linux /proc)."""
    status = Path(f"/proc/{pid or 'self'}/status").read_text()
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bench_settings(broker_port: int, prefix: str, **overrides: Any) -> Settings:
    """Settings for an in-process server: no rate limits (we call one switch hundreds of times)."""
    values: dict[str, Any] = {
        "mqtt_url": f"mqtt://127.0.0.1:{broker_port}",
        "prefix": prefix,
        "history_path": fresh_history_path(),
        "rate_limit_device": 0,
        "rate_limit_total": 0,
        "rate_limit_client": 0,
        "log_level": "warning",
        # The simulator needs >10 s to answer getNodes for 4,000 nodes (it copies 36 MB of JSON 3 times).
        "api_timeout": 120,
    }
    values.update(overrides)
    return load_settings(values, environ={})


def server_env(broker_port: int, prefix: str, **extra: str) -> dict[str, str]:
    """`bench_settings` as the environment of a spawned `python -m zwave_mcp` (default log level)."""
    return {
        "ZWAVE_MCP_MQTT_URL": f"mqtt://127.0.0.1:{broker_port}",
        "ZWAVE_MCP_PREFIX": prefix,
        "ZWAVE_MCP_RATE_LIMIT_DEVICE": "0",
        "ZWAVE_MCP_RATE_LIMIT_TOTAL": "0",
        "ZWAVE_MCP_RATE_LIMIT_CLIENT": "0",
        "ZWAVE_MCP_API_TIMEOUT": "120",
        "ZWAVE_MCP_HISTORY_PATH": fresh_history_path(),
        **extra,
    }


class SimProcess:
    """The simulator in its own process (`python -m bench.simproc`), so its threads do not share our GIL."""

    def __init__(self, broker_port: int, house: str, prefix: str, scale: float = 0.0) -> None:
        self.args = [
            PYTHON,
            "-m",
            "bench.simproc",
            "--port",
            str(broker_port),
            "--house",
            house,
            "--prefix",
            prefix,
            "--scale",
            str(scale),
        ]
        self.proc: subprocess.Popen[str] | None = None

    def start(self, timeout: float = 180.0) -> SimProcess:
        self.proc = subprocess.Popen(
            self.args, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None, text=True
        )
        deadline = time.monotonic() + timeout
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()  # "ready" once start-up publishing is done
        if line.strip() != "ready" or time.monotonic() > deadline:
            self.stop()
            raise RuntimeError(f"simulator did not start: {line!r}")
        return self

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            assert proc.stdin is not None
            proc.stdin.close()  # simproc stops gracefully when its stdin closes
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)

    def __enter__(self) -> SimProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def mosquitto(nodelay: bool = False) -> Iterator[int]:
    """A Mosquitto with its default settings (anonymous listener on 127.0.0.1, no persistence).

    `nodelay` adds `set_tcp_nodelay true`. By default Mosquitto leaves Nagle on, and a request to the
    simulator then waits for the simulator's delayed ACK of the PUBACK sent just before it: every API
    round trip costs ~44 ms whatever the clients do, which hides sub-millisecond differences.
    """
    from zwave_mcp.simulator.broker import MosquittoBroker

    broker = MosquittoBroker()
    if nodelay:
        broker._conf.write_text(broker._conf.read_text() + "set_tcp_nodelay true\n")
    broker.start()
    try:
        yield broker.port
    finally:
        broker.close()


def skip_client_validation(client: Any) -> None:
    """Turn off the SDK *client's* re-validation of structured results against the output schema.

    It is the client's cost (jsonschema; ~25 ms for a 50-device list), not the server's, so it is left
    out of both sides of a comparison. `reads` measures it apart.
    """

    async def no_check(*_args: Any, **_kwargs: Any) -> None:
        return None

    client.session.validate_tool_result = no_check


def child_env(**extra: str) -> dict[str, str]:
    """A child process environment: ours minus any ZWAVE_MCP_* the caller has set, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZWAVE_MCP_")}
    env.update(extra)
    return env


async def end_process(proc: asyncio.subprocess.Process) -> None:
    """Close a spawned server's stdin (how an MCP client says goodbye); kill it if it lingers past 15 s."""
    assert proc.stdin is not None
    proc.stdin.close()
    try:
        await asyncio.wait_for(proc.wait(), 15)
    except TimeoutError:
        proc.kill()
        await proc.wait()


async def spawn_hello_server() -> asyncio.subprocess.Process:
    """The baseline server on a stdio pipe (stderr dropped), for start-up, RSS and transport baselines."""
    return await asyncio.create_subprocess_exec(
        PYTHON,
        "-m",
        "bench.hello_server",
        cwd=REPO,
        env=child_env(),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )


class PipeClient:
    """`python -m zwave_mcp` on pipes, spoken to in raw JSON-RPC lines with blocking reads and writes on the
    calling thread: the least a Python client can do for one request and its answer, as the raw MQTT
    client in section 2 blocks on a `threading.Event`. What is timed is the server and the pipe, not a
    client's event loop (an asyncio client adds its own wake-ups to every answer).

    stderr (the server's JSON log lines) is read and dropped as it comes by a thread, as a client would.
    """

    def __init__(self, env: dict[str, str], module: str = "zwave_mcp", *args: str) -> None:
        self.env = env
        self.argv = [PYTHON, "-m", module, *args]  # section 2's floor runs bench's own servers too
        self.proc: subprocess.Popen[bytes] | None = None
        self._next = 0
        self._unread = b""  # bytes read past the end of the last answer

    def start(self) -> PipeClient:
        self.proc = subprocess.Popen(
            self.argv,
            cwd=REPO,
            env=child_env(**self.env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )
        stderr = self.proc.stderr
        assert stderr is not None
        threading.Thread(target=_drop_all, args=(stderr,), name="bench-stderr", daemon=True).start()
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        )
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        data = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        fd = self.proc.stdin.fileno()
        while data:
            data = data[os.write(fd, data) :]

    def _line(self, deadline: float) -> bytes:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while (end := self._unread.find(b"\n")) < 0:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(fd, 1 << 20) if ready else b""
            if not chunk:
                raise RuntimeError("zwave-mcp closed stdout" if ready else "zwave-mcp did not answer in time")
            self._unread += chunk
        line, self._unread = self._unread[:end], self._unread[end + 1 :]
        return line

    def request(self, method: str, params: dict[str, Any], timeout: float = 60.0) -> dict[str, Any]:
        """Send one request and return its result (raises on a JSON-RPC error)."""
        self._next += 1
        rid = self._next
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self._line(deadline))
            if message.get("id") == rid:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return dict(message["result"])

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def wait_loaded(self, timeout: float = 120.0) -> None:
        """Until check_zwave_health says the network is loaded."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            result = self.call_tool("check_zwave_health", {})
            if (
                ((result.get("structuredContent") or {}).get("result") or {})
                .get("gateway", {})
                .get("inventoryLoaded")
            ):
                return
            time.sleep(0.1)
        raise RuntimeError("zwave-mcp did not load the inventory")

    def close(self) -> None:
        """Close stdin (how an MCP client says goodbye); kill the server if it lingers past 15 s."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _drop_all(stream: Any) -> None:
    while stream.read(65536):
        pass
