"""10. The home service over Streamable HTTP (issue 42): its read and write p50 beside stdio's, in one run,
and 20 clients reading at once while writes go on.

Both servers are real subprocesses on the same Mosquitto (TCP_NODELAY) and simulator process, each with
its own history file; the clients are the SDK's own (`mcp.Client` over stdio and over Streamable HTTP,
the handshake era). Calls alternate in blocks between the two, so the machine's drift hits both alike. A
write is `control_zwave_device` with the confirmation wait off (the write's own round trip, as section 2's
"confirm off"). The crowd: 20 HTTP clients call `get_device_state` in a loop while one more switches the
kitchen light; every call's time is kept, and any error or error answer counts. The readers run in 4
processes of 5 clients: in one process the clients' own work (the SDK client's parsing) was the limit, with
the service at 13 % of a core.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable
from itertools import count
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from bench.common import (
    PYTHON,
    REPO,
    Row,
    SimProcess,
    child_env,
    mosquitto,
    p50,
    p99,
    say,
    server_env,
    skip_client_validation,
)

PREFIX = "benchservice"
NAMES = ("Kitchen Light", "Living Room Lamp", "Front Door Lock", "Garage Motion", "Porch Double Switch 1")
CROWD = 20
CROWD_PROCESSES = 4
CROWD_WRITES_EVERY_S = 0.2
START_S = 30.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _env(port: int) -> dict[str, str]:
    return child_env(**server_env(port, PREFIX, ZWAVE_MCP_CONFIRM_TIMEOUT="0", ZWAVE_MCP_LOG_LEVEL="warning"))


def _start_service(broker: int) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    process = subprocess.Popen(  # its audit lines (INFO whatever the level) would flood the progress
        [PYTHON, "-m", "bench.service_server", f"127.0.0.1:{port}"],
        cwd=REPO,
        env=_env(broker),
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the home service exited ({process.returncode})")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("the home service never listened")


async def _ready(client: Client) -> None:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        result = await client.call_tool("list_zwave_devices", {})
        if not result.is_error:
            return
        await asyncio.sleep(0.1)
    raise RuntimeError("the house never loaded")


async def _timed(call: Callable[[], Awaitable[Any]], n: int) -> list[float]:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        result = await call()
        times.append((time.perf_counter() - t) * 1000)
        if result.is_error:
            raise RuntimeError(f"a benchmark call failed: {result.content}")
    return times


def _calls(client: Client) -> tuple[Callable[[], Awaitable[Any]], Callable[[], Awaitable[Any]]]:
    names, switches = count(), count()

    def read() -> Awaitable[Any]:
        return client.call_tool("get_device_state", {"deviceName": NAMES[next(names) % len(NAMES)]})

    def write() -> Awaitable[Any]:
        action = "on" if next(switches) % 2 else "off"
        return client.call_tool("control_zwave_device", {"deviceName": "kitchen light", "action": action})

    return read, write


async def _side_by_side(stdio: Client, http: Client, n: int, block: int = 25) -> dict[str, list[float]]:
    (s_read, s_write), (h_read, h_write) = _calls(stdio), _calls(http)
    for warm in (s_read, h_read, s_write, h_write):
        await _timed(warm, 5)
    out: dict[str, list[float]] = {"stdio read": [], "http read": [], "stdio write": [], "http write": []}
    for _ in range(0, n, block):
        out["stdio read"] += await _timed(s_read, block)
        out["http read"] += await _timed(h_read, block)
        out["stdio write"] += await _timed(s_write, block)
        out["http write"] += await _timed(h_write, block)
    return out


async def _readers(url: str, clients: int, reads_each: int) -> dict[str, Any]:
    """`clients` readers at once in this process: every read's ms and the errors."""
    times: list[float] = []
    errors: list[str] = []

    async def reader() -> None:
        async with Client(url, mode="legacy") as client:
            skip_client_validation(client)  # the client's jsonschema check is its cost, not the service's
            read, _ = _calls(client)
            for _ in range(reads_each):
                t = time.perf_counter()
                try:
                    result = await read()
                except Exception as exc:  # a transport failure is an error too, not a crash of the run
                    errors.append(f"{type(exc).__name__}: {exc}"[:120])
                    continue
                times.append((time.perf_counter() - t) * 1000)
                if result.is_error:
                    errors.append(str(result.content)[:120])

    async def opened() -> None:  # the sessions first, so the window below holds reads only
        await asyncio.gather(*(reader() for _ in range(clients)))

    started = time.time()
    await opened()
    return {"times": times, "errors": errors, "start": started, "end": time.time()}


async def _crowd(url: str, reads_each: int) -> dict[str, Any]:
    """CROWD readers at once (in CROWD_PROCESSES processes: a client's own cost is not the service's) and one
    writer until they are done: every read's ms, the errors, the writes."""
    errors: list[str] = []
    done = asyncio.Event()
    writes = 0

    async def writer() -> None:
        nonlocal writes
        async with Client(url, mode="legacy") as client:
            _, write = _calls(client)
            while not done.is_set():
                result = await write()
                writes += 1
                if result.is_error:
                    errors.append(str(result.content)[:120])
                await asyncio.sleep(CROWD_WRITES_EVERY_S)

    async def worker() -> dict[str, Any]:
        proc = await asyncio.create_subprocess_exec(
            PYTHON, "-m", "bench.service", url, str(CROWD // CROWD_PROCESSES), str(reads_each),
            cwd=REPO, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, _ = await proc.communicate()
        if proc.returncode != 0:
            return {"times": [], "errors": [f"a reader process exited {proc.returncode}"]}
        result: dict[str, Any] = json.loads(out)
        return result

    writing = asyncio.create_task(writer())
    started = time.perf_counter()
    parts = await asyncio.gather(*(worker() for _ in range(CROWD_PROCESSES)))
    wall = time.perf_counter() - started
    done.set()
    await writing
    times = [t for part in parts for t in part["times"]]
    errors += [e for part in parts for e in part["errors"]]
    window = max((p["end"] for p in parts if "end" in p), default=0) - min(
        (p["start"] for p in parts if "start" in p), default=0
    )
    return {"times": times, "errors": errors, "writes": writes, "wall": wall, "window": window}


def _cpu_s(pid: int) -> float:
    """The process's CPU time so far (user + system, all threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _measure(broker: int, url: str, calls: int, reads_each: int, pid: int) -> dict[str, Any]:
    stdio_params = StdioServerParameters(command=PYTHON, args=["-m", "zwave_mcp"], env=_env(broker))
    async with Client(stdio_params, mode="legacy") as stdio, Client(url, mode="legacy") as http:
        await _ready(stdio)
        await _ready(http)
        say(f"  side by side, {calls} calls each")
        pairs = await _side_by_side(stdio, http, calls)
    say(f"  {CROWD} clients reading at once, {reads_each} reads each, writes going on")
    cpu = _cpu_s(pid)
    crowd = await _crowd(url, reads_each)
    crowd["service_cpu_s"] = _cpu_s(pid) - cpu
    return {"pairs": pairs, "crowd": crowd}


def run(calls: int = 200, reads_each: int = 50) -> list[Row]:
    with mosquitto(nodelay=True) as broker, SimProcess(broker, "captured", PREFIX):
        process, url = _start_service(broker)
        try:
            figures = asyncio.run(_measure(broker, url, calls, reads_each, process.pid))
        finally:
            process.terminate()
            process.wait(20)
    pairs, crowd = figures["pairs"], figures["crowd"]
    rows = []
    for kind in ("read", "write"):
        http, stdio = pairs[f"http {kind}"], pairs[f"stdio {kind}"]
        tool = "get_device_state" if kind == "read" else "control_zwave_device, confirm off"
        rows.append(
            Row(
                "10 service",
                f"HTTP vs stdio, a {kind} ({tool}), p50 (n={len(http)})",
                p50(http),
                p50(stdio),
                "ms",
                note=f"p99 {p99(http):.1f} / {p99(stdio):.1f} ms; baseline: the same calls over stdio, alternating blocks",
            )
        )
    times, errors = crowd["times"], crowd["errors"]
    rows.append(
        Row(
            "10 service",
            f"{CROWD} HTTP clients reading at once, writes going on: read p99 (n={len(times)})",
            p99(times),
            p50(times),
            "ms",
            note=(
                f"baseline: the same reads' p50; {len(times) / crowd['window']:,.0f} reads/s, {crowd['writes']} "
                f"writes meanwhile; the service's CPU {crowd['service_cpu_s'] * 1000 / max(len(times), 1):.1f} ms "
                f"a read (all it did in the run, over the reads; {CROWD_PROCESSES} reader processes)"
            ),
        )
    )
    rows.append(
        Row(
            "10 service",
            f"{CROWD} HTTP clients reading at once: errors",
            float(len(errors)),
            None,
            "",
            target="0",
            ok=not errors,
            note="; ".join(sorted(set(errors))[:3]),
        )
    )
    return rows


if __name__ == "__main__":  # one crowd worker: `python -m bench.service URL CLIENTS READS` → JSON on stdout
    import sys

    url, clients, reads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    print(json.dumps(asyncio.run(_readers(url, clients, reads))))
