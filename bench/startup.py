"""1. Start-up: spawn → `initialize` reply and → `tools/list` reply, zwave-mcp against a bare MCPServer.

Both are spawned the same way (`python -m …`, pipes, one JSON-RPC line at a time) alternately A/B, so
machine noise falls on both. For zwave-mcp the broker is reachable and the simulator running; we also
time spawn → "Z-Wave network loaded" (its log line on stderr). zwave-mcp builds its whole server (app,
tools and their schemas, resources, prompts) before it reads the first line; the target (issue 34) is
spawn → `tools/list` ≤ 1.5x the bare MCPServer's.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from mcp_types import LATEST_PROTOCOL_VERSION

from bench.common import PYTHON, REPO, Row, SimProcess, child_env, end_process, mosquitto, p50, say

PREFIX = "benchstart"


def _request(rid: int, method: str, params: dict[str, Any]) -> bytes:
    return (json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}) + "\n").encode()


async def _read_reply(stream: asyncio.StreamReader, rid: int) -> dict[str, Any]:
    while True:
        line = await stream.readline()
        if not line:
            raise RuntimeError(f"server closed stdout before answering request {rid}")
        message = json.loads(line)
        if message.get("id") == rid:
            return dict(message)


async def _watch_loaded(stderr: asyncio.StreamReader, started: float, box: dict[str, float]) -> None:
    while line := await stderr.readline():
        if b"Z-Wave network loaded" in line and "loaded" not in box:
            box["loaded"] = time.perf_counter() - started


async def spawn_once(argv: list[str], env: dict[str, str], wait_loaded: bool) -> dict[str, float]:
    """One spawn: seconds to the initialize reply, to the tools/list reply, and (optionally) to loaded."""
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=REPO,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdin and proc.stdout and proc.stderr
    box: dict[str, float] = {}
    watcher = asyncio.ensure_future(_watch_loaded(proc.stderr, started, box))
    try:
        init = {
            "protocolVersion": LATEST_PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        }
        proc.stdin.write(_request(1, "initialize", init))
        await proc.stdin.drain()
        await asyncio.wait_for(_read_reply(proc.stdout, 1), 30)
        box["initialize"] = time.perf_counter() - started
        proc.stdin.write(
            b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n' + _request(2, "tools/list", {})
        )
        await proc.stdin.drain()
        reply = await asyncio.wait_for(_read_reply(proc.stdout, 2), 30)
        box["tools_list"] = time.perf_counter() - started
        if not reply.get("result", {}).get("tools"):
            raise RuntimeError(f"tools/list answered without tools: {reply}")
        if wait_loaded:
            deadline = time.monotonic() + 30
            while "loaded" not in box and time.monotonic() < deadline:
                await asyncio.sleep(0.002)
            if "loaded" not in box:
                raise RuntimeError("zwave-mcp did not log 'Z-Wave network loaded' within 30 s")
    finally:
        await end_process(proc)
        watcher.cancel()
    return box


async def _run(spawns: int, broker_port: int) -> tuple[list[dict[str, float]], list[dict[str, float]]]:
    ours_argv = [PYTHON, "-m", "zwave_mcp"]
    ours_env = child_env(
        ZWAVE_MCP_MQTT_URL=f"mqtt://127.0.0.1:{broker_port}",
        ZWAVE_MCP_PREFIX=PREFIX,
        ZWAVE_MCP_LOG_LEVEL="info",
    )
    base_argv = [PYTHON, "-m", "bench.hello_server"]
    base_env = child_env()
    # One warm-up of each: the first spawn pays for cold page cache and .pyc writes.
    await spawn_once(ours_argv, ours_env, wait_loaded=True)
    await spawn_once(base_argv, base_env, wait_loaded=False)
    ours: list[dict[str, float]] = []
    base: list[dict[str, float]] = []
    for i in range(spawns):
        if i % 2 == 0:  # alternate which goes first, so neither always follows the other
            ours.append(await spawn_once(ours_argv, ours_env, wait_loaded=True))
            base.append(await spawn_once(base_argv, base_env, wait_loaded=False))
        else:
            base.append(await spawn_once(base_argv, base_env, wait_loaded=False))
            ours.append(await spawn_once(ours_argv, ours_env, wait_loaded=True))
    return ours, base


def run(spawns: int = 20) -> list[Row]:
    say(f"      start-up: {spawns} spawns each, alternating")
    with mosquitto() as port, SimProcess(port, "captured", PREFIX):
        ours, base = asyncio.run(_run(spawns, port))
    rows = []
    for key, label, limit in (
        ("initialize", "spawn → initialize", None),
        ("tools_list", "spawn → tools/list", 1.5),
    ):
        o = p50([s[key] * 1000 for s in ours])
        b = p50([s[key] * 1000 for s in base])
        # A spawn is 0.9-1.4 s and the VM's speed drifts within a run: the ratio of each pair (spawned one
        # after the other) is shown too, which drift moves less than the ratio of two medians.
        paired = p50([mine[key] / theirs[key] for mine, theirs in zip(ours, base, strict=True)])
        rows.append(
            Row(
                "1 start-up",
                f"{label} (median of {spawns})",
                o,
                b,
                "ms",
                f"≤ {limit:.2f}x" if limit else "",
                o / b <= limit if limit else None,
                f"median of the {spawns} pairs' ratios {paired:.2f}x",
            )
        )
    loaded = p50([s["loaded"] * 1000 for s in ours])
    rows.append(
        Row(
            "1 start-up",
            "spawn → inventory loaded (captured house)",
            loaded,
            p50([s["tools_list"] * 1000 for s in ours]),
            "ms",
            note="baseline: our own spawn → tools/list",
        )
    )
    return rows
