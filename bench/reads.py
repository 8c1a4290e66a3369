"""3. Reads at scale: `get_device_state` and `list_zwave_devices` with the 10-, 232- and 4,000-node houses.

Calls go through the in-process client (`mcp.Client(server)`), so no pipe is involved. The baseline is
the bare SDK server's one tool over the same kind of in-process client, in alternating blocks: that is the
SDK's own cost of a call (JSON-RPC over memory streams, dispatch, validation, result), and "ours" minus
it is what our code adds. The stdio transport is measured apart (hello tool over a pipe vs in-process).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import Client
from mcp_types import LATEST_PROTOCOL_VERSION

from bench.common import (
    Row,
    SimProcess,
    bench_settings,
    mosquitto,
    p50,
    p99,
    say,
    skip_client_validation,
    spawn_hello_server,
)
from bench.hello_server import build_hello
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.server.build import build_server

HOUSES = (("captured", 10), ("generated:232", 232), ("generated:4000", 4000))
PREFIX = "benchreads"

Call = Callable[[], Awaitable[Any]]


async def _time(call: Call, n: int) -> list[float]:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        await call()
        times.append((time.perf_counter() - t) * 1000)
    return times


async def _alternate(ours: Call, base: Call, n: int, block: int = 25) -> tuple[list[float], list[float]]:
    await _time(ours, 5)
    await _time(base, 5)
    a: list[float] = []
    b: list[float] = []
    for _ in range(0, n, block):
        a += await _time(ours, block)
        b += await _time(base, block)
    return a, b


async def _house(port: int, house: str, calls: int) -> dict[str, tuple[list[float], list[float]]]:
    settings = bench_settings(port, PREFIX)
    gateway = ZwaveGateway(settings)
    server = build_server(settings, gateway)
    hello = build_hello()
    results: dict[str, tuple[list[float], list[float]]] = {}
    async with Client(server) as client, Client(hello) as bare:
        if not await gateway.wait_ready(300):
            raise RuntimeError(f"zwave-mcp did not load {house}")
        # Time the SDK client's own schema check of a 50-device list once, then leave it out.
        checked = await _time(lambda: client.call_tool("list_zwave_devices", {}), 10)
        skip_client_validation(client)
        skip_client_validation(bare)
        unchecked = await _time(lambda: client.call_tool("list_zwave_devices", {}), 10)
        results["client_check"] = (checked, unchecked)
        listing = await client.call_tool("list_zwave_devices", {"limit": 50})
        names = [d["name"] for d in listing.structured_content["result"]["devices"]][:20]  # type: ignore[index]
        if not names:
            raise RuntimeError(f"no devices listed for {house}: {listing.content}")
        turn = iter(range(10**9))

        async def state() -> None:
            result = await client.call_tool(
                "get_device_state", {"deviceName": names[next(turn) % len(names)]}
            )
            if result.is_error:
                raise RuntimeError(f"get_device_state failed: {result.content}")

        async def listed() -> None:
            result = await client.call_tool("list_zwave_devices", {})
            if result.is_error:
                raise RuntimeError(f"list_zwave_devices failed: {result.content}")

        async def baseline() -> None:
            await bare.call_tool("hello", {"name": "bench"})

        results["get_device_state"] = await _alternate(state, baseline, calls)
        results["list_zwave_devices"] = await _alternate(listed, baseline, max(50, calls // 3))
    return results


async def _stdio_vs_memory(calls: int) -> tuple[list[float], list[float]]:
    """The hello tool over a real stdio pipe and over the in-process client, alternating blocks."""
    proc = await spawn_hello_server()
    assert proc.stdin and proc.stdout
    rid = iter(range(1, 10**9))

    async def rpc(method: str, params: dict[str, Any]) -> None:
        assert proc.stdin and proc.stdout
        n = next(rid)
        proc.stdin.write(
            (json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n").encode()
        )
        await proc.stdin.drain()
        while json.loads(await proc.stdout.readline()).get("id") != n:
            pass

    init = {
        "protocolVersion": LATEST_PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "b", "version": "0"},
    }
    await rpc("initialize", init)
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    try:
        async with Client(build_hello()) as bare:

            async def piped() -> None:
                await rpc("tools/call", {"name": "hello", "arguments": {"name": "bench"}})

            async def memory() -> None:
                await bare.call_tool("hello", {"name": "bench"})

            return await _alternate(piped, memory, calls)
    finally:
        proc.stdin.close()
        await proc.wait()


def run(calls: int = 300) -> list[Row]:
    rows: list[Row] = []
    say(f"      reads at scale: {calls} get_device_state calls per house, in-process client")
    with mosquitto() as port:
        for house, size in HOUSES:
            say(f"      {house}: starting the simulator and loading")
            with SimProcess(port, house, PREFIX):
                results = asyncio.run(_house(port, house, calls))
            checked, unchecked = results.pop("client_check")
            rows.append(
                Row(
                    "3 reads",
                    f"list_zwave_devices @{size}: SDK client's schema check",
                    p50(checked),
                    p50(unchecked),
                    "ms",
                    note="with vs without mcp.Client's output-schema validation (the client's cost; off below)",
                )
            )
            for tool, (ours, base) in results.items():
                o50, b50 = p50(ours), p50(base)
                target = tool == "get_device_state" and size == 4000
                rows.append(
                    Row(
                        "3 reads",
                        f"{tool} @{size}: p50 (n={len(ours)})",
                        o50,
                        b50,
                        "ms",
                        "ours - SDK ≤ 1 ms" if target else "",
                        (o50 - b50 <= 1.0) if target else None,
                        f"ours - SDK = {o50 - b50:.3f} ms; baseline: SDK hello tool, in-process",
                    )
                )
                rows.append(Row("3 reads", f"{tool} @{size}: p99", p99(ours), p99(base), "ms"))
    say("      transport: hello tool over a stdio pipe vs in-process")
    piped, memory = asyncio.run(_stdio_vs_memory(calls))
    rows.append(
        Row(
            "3 reads",
            "stdio transport: tools/call p50",
            p50(piped),
            p50(memory),
            "ms",
            note=f"SDK hello tool over a pipe vs in-process: stdio adds {p50(piped) - p50(memory):.3f} ms",
        )
    )
    return rows
