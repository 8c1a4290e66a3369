"""8. Group changes: many devices at once, each confirmed by its own report.

- Ten switches off and on through `control_zwave_group` against one switch through `control_zwave_device`,
  both confirmed, on the simulator with the recorded delays (a write ~95 ms, a poll ~110 ms, a device's
  own report ~20 ms): the ten go as one multicast and are proven by their reports, the one by its poll.
  Target: the ten take at most 1.5 times as long as the one.
- 200 lights and plugs of the 4,000-node house with the simulator's fast delays (`--fast`, x0.02).
  Target: at most 3 s.

The groups are declared in an alias file (a list of device names), as a person would declare a floor.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import Client

from bench.common import Row, SimProcess, bench_settings, mosquitto, p50, say, skip_client_validation
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.server.build import build_server
from zwave_mcp.simulator.house import generate_house

PREFIX = "benchgroups"
SWITCHES = ("Light", "Plug")  # Binary Switch on endpoint 0: one multicast frame for all of them
LIGHTS_AND_PLUGS = ("Light", "Lamp", "Plug", "Color Bulb")  # Binary and Multilevel Switch: two frames


def _names(house: str, kinds: tuple[str, ...], count: int) -> list[str]:
    nodes = generate_house(int(house.split(":")[1]))
    wanted = re.compile(rf".* (?:{'|'.join(re.escape(k) for k in kinds)}) \d+")
    # Not in the garage: the policy asks before switching anything there (it may be a door opener).
    names = [str(n["name"]) for n in nodes if wanted.fullmatch(str(n.get("name", "")))]
    return [name for name in names if not name.startswith("Garage ")][:count]


async def _calls(
    client: Client, tool: str, args: dict[str, Any], n: int
) -> tuple[list[float], dict[str, int]]:
    times: list[float] = []
    outcomes: dict[str, int] = {}
    for i in range(n):
        t = time.perf_counter()
        result = await client.call_tool(tool, {**args, "action": ("off", "on")[i % 2]})
        times.append((time.perf_counter() - t) * 1000)
        if result.is_error:
            raise RuntimeError(f"{tool} failed: {result.content}")
        payload = (result.structured_content or {}).get("result", {}) or {}
        key = str(payload.get("outcome"))
        outcomes[key] = outcomes.get(key, 0) + 1
    return times, outcomes


async def _measure(port: int, aliases: Path, single: str, rounds: int, with_single: bool) -> dict[str, Any]:
    settings = bench_settings(port, PREFIX, aliases_file=aliases, confirm_timeout=10.0, tool_timeout=120.0)
    gateway = ZwaveGateway(settings)
    server = build_server(settings, gateway)
    out: dict[str, Any] = {}
    async with Client(server) as client:
        if not await gateway.wait_ready(300):
            raise RuntimeError("zwave-mcp did not load the inventory")
        skip_client_validation(client)
        await _calls(client, "control_zwave_group", {"target": "bench group"}, 2)  # warm-up
        group: list[float] = []
        one: list[float] = []
        seen: dict[str, int] = {}
        for _ in range(rounds):
            got, outcomes = await _calls(client, "control_zwave_group", {"target": "bench group"}, 2)
            group += got
            for k, v in outcomes.items():
                seen[k] = seen.get(k, 0) + v
            if with_single:
                one += (await _calls(client, "control_zwave_device", {"deviceName": single}, 2))[0]
        out = {"group": group, "one": one, "outcomes": seen}
    return out


def _alias_file(directory: str, names: list[str]) -> Path:
    path = Path(directory) / "aliases.json"
    path.write_text(json.dumps({"bench group": names}), encoding="utf-8")
    return path


def run(rounds: int = 10) -> list[Row]:
    rows: list[Row] = []
    ten = _names("generated:60", SWITCHES, 10)
    say(f"group changes: {len(ten)} switches vs one, recorded delays, {rounds} rounds of off+on")
    with tempfile.TemporaryDirectory() as tmp, mosquitto(nodelay=True) as port:
        with SimProcess(port, "generated:60", PREFIX, scale=1.0):
            got = asyncio.run(_measure(port, _alias_file(tmp, ten), ten[0], rounds, with_single=True))
        g50, o50 = p50(got["group"]), p50(got["one"])
        rows.append(
            Row(
                "8 groups",
                f"{len(ten)} switches off/on, confirmed, p50 (n={len(got['group'])})",
                g50,
                o50,
                "ms",
                "≤ 1.5x",
                g50 <= 1.5 * o50,
                "vs one switch's confirmed write; outcomes: "
                + ", ".join(f"{k} {v}" for k, v in sorted(got["outcomes"].items())),
            )
        )
        big = _names("generated:4000", LIGHTS_AND_PLUGS, 200)
        say(f"      {len(big)} lights and plugs of the 4,000-node house, simulator --fast")
        with SimProcess(port, "generated:4000", PREFIX, scale=0.02):
            many = asyncio.run(_measure(port, _alias_file(tmp, big), big[0], max(2, rounds // 3), False))
        m50 = p50(many["group"])
        rows.append(
            Row(
                "8 groups",
                f"{len(big)} of 4,000 devices off/on, confirmed, p50 (n={len(many['group'])})",
                m50,
                None,
                "ms",
                "≤ 3000 ms",
                m50 <= 3000,
                "outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(many["outcomes"].items())),
            )
        )
    return rows
