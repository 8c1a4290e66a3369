"""5. Throughput: 50 calls in flight, calls/s, zwave-mcp against the bare SDK server.

Both over the in-process client (client-side schema checks off on both), alternating rounds of 50
concurrent calls. Ours: `get_device_state` on the captured house (a read: the gateway is not involved
beyond its inventory) and `control_zwave_device` on two switches (a write through Mosquitto and the
simulator, confirmation off). Baseline: the bare server's one tool.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import Client

from bench.common import Row, SimProcess, bench_settings, mosquitto, say, skip_client_validation
from bench.hello_server import build_hello
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.server.build import build_server

IN_FLIGHT = 50
PREFIX = "benchtput"
READ_NAMES = ("Kitchen Light", "Front Door Lock", "Hallway Thermostat", "Bedroom Sensor", "Coffee Maker Plug")


async def _round(call: Callable[[int], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    results = await asyncio.gather(*(call(i) for i in range(IN_FLIGHT)))
    elapsed = time.perf_counter() - started
    failed = [r for r in results if getattr(r, "is_error", False)]
    if failed:
        raise RuntimeError(f"{len(failed)} of {IN_FLIGHT} calls failed: {failed[0].content}")
    return IN_FLIGHT / elapsed


async def _measure(port: int, rounds: int) -> dict[str, list[float]]:
    settings = bench_settings(port, PREFIX, confirm_timeout=0)
    gateway = ZwaveGateway(settings)
    server = build_server(settings, gateway)
    rates: dict[str, list[float]] = {"read": [], "write": [], "base": []}
    async with Client(server) as client, Client(build_hello()) as bare:
        if not await gateway.wait_ready(60):
            raise RuntimeError("zwave-mcp did not load the inventory")
        skip_client_validation(client)
        skip_client_validation(bare)

        def read(i: int) -> Awaitable[Any]:
            return client.call_tool("get_device_state", {"deviceName": READ_NAMES[i % len(READ_NAMES)]})

        def write(i: int) -> Awaitable[Any]:
            device = ("Kitchen Light", "Coffee Maker Plug")[i % 2]
            return client.call_tool(
                "control_zwave_device", {"deviceName": device, "action": ("on", "off")[i // 2 % 2]}
            )

        def hello(i: int) -> Awaitable[Any]:
            return bare.call_tool("hello", {"name": f"bench {i}"})

        for call in (read, write, hello):  # warm-up
            await _round(call)
        for _ in range(rounds):
            rates["read"].append(await _round(read))
            rates["base"].append(await _round(hello))
            rates["write"].append(await _round(write))
    return rates


def run(rounds: int = 10) -> list[Row]:
    say(f"      throughput: {rounds} rounds of {IN_FLIGHT} calls in flight")
    from bench.common import p50

    with mosquitto(nodelay=True) as port, SimProcess(port, "captured", PREFIX):
        rates = asyncio.run(_measure(port, rounds))
    base = p50(rates["base"])
    read = p50(rates["read"])
    write = p50(rates["write"])
    return [
        Row(
            "5 throughput",
            f"get_device_state, {IN_FLIGHT} in flight (median of {rounds})",
            read,
            base,
            "calls/s",
            "≥ 0.9x",
            read / base >= 0.9,
            "baseline: bare SDK hello tool, same client",
        ),
        Row(
            "5 throughput",
            f"control_zwave_device, {IN_FLIGHT} in flight",
            write,
            base,
            "calls/s",
            note="two switches, writeValue + pollValue each, nodelay broker, zero simulator delays",
        ),
    ]
