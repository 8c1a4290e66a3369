"""The real server as a subprocess over stdio, against Mosquitto and the simulated captured house."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.integration.mcp_harness import call, sim_value, wait_for_answer
from zwave_mcp.server.tools import PUBLIC
from zwave_mcp.simulator import FAST, Simulator, capture_config

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

SERVER = [sys.executable, "-m", "zwave_mcp"]
# Every public tool, as the registry lists them (CHECK_SCRIPT below must call each one).
TOOLS = {spec.name for spec in PUBLIC}


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(config=capture_config("a", timing=FAST, periodic=False))


def server_env(mosquitto: Any, sim: Simulator, home: Path) -> dict[str, str]:
    """The child gets only what we pass: the broker, the gateway's prefix and short test timeouts."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "ZWAVE_MCP_MQTT_URL": mosquitto.url,
        "ZWAVE_MCP_PREFIX": sim.config.prefix,
        "ZWAVE_MCP_CONFIRM_TIMEOUT": "2",
        "ZWAVE_MCP_TOOL_TIMEOUT": "10",
        "ZWAVE_MCP_LOG_LEVEL": "warning",
    }


async def test_list_devices_and_control_a_light_over_stdio(
    mosquitto: Any, sim: Simulator, tmp_path: Path
) -> None:
    params = StdioServerParameters(
        command=SERVER[0], args=SERVER[1:], env=server_env(mosquitto, sim, tmp_path)
    )
    with anyio.fail_after(60):
        async with Client(params) as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            listed = await wait_for_answer(
                client, "list_zwave_devices", {}, lambda a: not a.is_error, timeout=15
            )
            assert listed.result["total"] == 11
            assert listed.text.startswith("11 devices: Kitchen Light (off), Living Room Lamp (40 %)")
            on = await call(client, "control_zwave_device", {"deviceName": "kitchen light", "action": "on"})
            assert on.result["outcome"] == "confirmed", on.text
            assert sim_value(sim, 2, 37, "currentValue") is True, "the simulated light is really on"
            dim = await call(
                client,
                "control_zwave_device",
                {"device_name": "living room lamp", "command": "dim", "level": 25},
            )
            assert dim.result["outcome"] == "confirmed", dim.text
            assert sim_value(sim, 3, 38, "currentValue") == 25


# Arguments that make every tool do real work on the captured house (and the scene created below).
CHECK_SCRIPT = {
    "tool_args": {
        "list_zwave_devices": {"location": "Kitchen"},
        "verify_device": {"deviceName": "kitchen light"},
        "get_device_state": {"deviceName": "front door"},
        "get_device_sensor_data": {"deviceName": "bedroom sensor"},
        "control_zwave_device": {"deviceName": "kitchen light", "action": "on"},
        "control_zwave_group": {"target": "porch", "action": "on"},
        "check_zwave_health": {},
        "list_zwave_scenes": {},
        "activate_zwave_scene": {"scene": "Evening"},
        "get_recent_events": {"minutes": 5},
        "get_device_history": {"deviceName": "kitchen light", "period": "last hour"},
        "get_last_event": {"deviceName": "front door", "state": "locked"},
        "get_energy_usage": {"deviceName": "coffee maker"},
        "get_battery_report": {},
        "manage_lock_users": {},
    }
}


async def test_check_stdio_calls_every_tool_against_the_simulator(
    mosquitto: Any, sim: Simulator, tmp_path: Path, collector: Callable[..., Any]
) -> None:
    from tests.integration.test_tools import create_scene

    await create_scene(sim, collector, mosquitto)
    script = tmp_path / "script.json"
    script.write_text(json.dumps(CHECK_SCRIPT))
    started = time.monotonic()
    done = subprocess.run(
        [*SERVER, "check-stdio", "--json", "--include-writes", "--script", str(script), "--", *SERVER],
        capture_output=True,
        text=True,
        timeout=120,
        env=server_env(mosquitto, sim, tmp_path),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["passed"] is True and report["problems"] == [], report
    assert set(report["tools_called"]) == TOOLS
    outcomes: dict[str, str] = report["tool_outcomes"]
    # check-stdio calls the tools right after `initialize`: they wait for the first load, then work.
    assert {tool: outcome[:4] for tool, outcome in outcomes.items()} == dict.fromkeys(TOOLS, "ok: "), outcomes
    assert outcomes["control_zwave_device"] == "ok: Done: Kitchen Light is now on, as the device reported."
    assert outcomes["control_zwave_group"] == "ok: Turned on both porch devices."
    # The report cuts long answers; the scene's answer names the devices that reported its values.
    assert outcomes["activate_zwave_scene"].startswith(
        "ok: Scene 'Evening' started: Kitchen Light and Living Room Lamp reported the new sta"
    )
    assert sim_value(sim, 2, 37, "currentValue") is True
    assert sim_value(sim, 11, 37, "currentValue", endpoint=2) is True
    assert report["exit_code"] == 0 and time.monotonic() - started < 60


@pytest.mark.parametrize("asks", [False, True])
async def test_a_write_over_stdio_is_answered_alike_whether_the_client_can_be_asked_or_not(
    mosquitto: Any, sim: Simulator, tmp_path: Path, asks: bool
) -> None:
    """A client that declared elicitation and one that did not get the same write and the same answer."""
    from tests.fixtures_servers.wire import INITIALIZED, request, run_lines

    hello = {
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {}} if asks else {},
        "clientInfo": {"name": "test", "version": "0"},
    }
    turn_on = {"name": "control_zwave_device", "arguments": {"deviceName": "kitchen light", "action": "on"}}
    env = {**server_env(mosquitto, sim, tmp_path), "ZWAVE_MCP_LOG_LEVEL": "debug"}
    done = await anyio.to_thread.run_sync(
        lambda: run_lines(
            SERVER, [request(1, "initialize", hello), INITIALIZED, request(2, "tools/call", turn_on)], env=env
        )
    )
    replies = {m["id"]: m for m in map(json.loads, done.stdout.splitlines())}
    answer = replies[2]["result"]
    assert answer["content"][0]["text"] == "Done: Kitchen Light is now on, as the device reported.", answer
    assert answer["structuredContent"]["result"]["outcome"] == "confirmed"
    assert sim_value(sim, 2, 37, "currentValue") is True
