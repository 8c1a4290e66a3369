"""A real client: the MCP Inspector's CLI drives the installed `zwave-mcp` against the simulator.

`.ci/run` installs the pinned Inspector into `.ci/node` (`npm ci`), so nothing is downloaded here. Locally,
without Node or that folder, the tests skip and say how to get them; with `CI=true` they fail instead.
Each call is a fresh `zwave-mcp` process launched by the Inspector over stdio, with the MQTT settings
passed as `-e KEY=VALUE`, exactly as a person's client config would.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
INSPECTOR = Path(
    os.environ.get("ZWAVE_MCP_INSPECTOR", REPO / ".ci" / "node" / "node_modules" / ".bin" / "mcp-inspector")
)
ZWAVE_MCP = Path(sys.executable).with_name("zwave-mcp")
CALL_TIMEOUT_S = 90.0
# A fresh server answers at once but loads the house in the background; a call that lands first is told
# "Z-Wave service unavailable", and is retried (bounded) in a new process until the house is there.
READY_ATTEMPTS = 5
UNAVAILABLE = "Z-Wave service unavailable"


def _missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not on PATH"
    if not INSPECTOR.exists():
        return f"the MCP Inspector is not installed at {INSPECTOR} (run: npm ci --ignore-scripts --prefix .ci/node)"
    if not ZWAVE_MCP.exists():
        return f"the zwave-mcp console script is not installed next to {sys.executable}"
    return None


@pytest.fixture(scope="module")
def inspector() -> Path:
    reason = _missing()
    if reason is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must run the Inspector test: {reason}")
        pytest.skip(reason)
    return INSPECTOR


class Inspector:
    """Runs `mcp-inspector --cli … -- zwave-mcp` with the settings for one simulator."""

    def __init__(self, binary: Path, env_vars: dict[str, str], home: Path, sim: Any) -> None:
        self.binary = binary
        self.sim = sim  # the simulator the server talks to (to check the device itself)
        self.env_vars = env_vars
        # The Inspector keeps a catalog and client config under HOME; keep them out of the real one.
        self.env = {**os.environ, "HOME": str(home), "MCP_CATALOG_PATH": str(home / "mcp.json")}

    def run(self, *args: str) -> dict[str, Any]:
        """The `result` of one method call; retried (bounded) while the fresh server is still loading."""
        for _ in range(READY_ATTEMPTS):
            result = self._run_once(*args)
            if result is not None:
                return result
        raise AssertionError(
            f"{' '.join(args)}: Z-Wave service still unavailable after {READY_ATTEMPTS} tries"
        )

    def _run_once(self, *args: str) -> dict[str, Any] | None:
        command = [str(self.binary), "--cli", "--format", "json"]
        for key, value in self.env_vars.items():
            command += ["-e", f"{key}={value}"]
        command += [*args, "--", str(ZWAVE_MCP)]
        started = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, timeout=CALL_TIMEOUT_S, env=self.env)
        took = time.monotonic() - started
        where = f"{' '.join(args)} (exit {done.returncode}, {took:.1f} s)\nstderr:\n{done.stderr[-3000:]}"
        if UNAVAILABLE in done.stdout or (done.returncode != 0 and UNAVAILABLE in done.stderr):
            return None
        assert done.returncode == 0, where
        try:
            reply = json.loads(done.stdout)
        except json.JSONDecodeError as exc:
            raise AssertionError(
                f"stdout is not one JSON document: {exc}: {done.stdout[:500]!r}\n{where}"
            ) from None
        assert isinstance(reply, dict) and isinstance(reply.get("result"), dict), f"{reply}\n{where}"
        result: dict[str, Any] = reply["result"]
        return result

    def call_tool(self, tool: str, **arguments: str) -> dict[str, Any]:
        args = ["--method", "tools/call", "--tool-name", tool]
        for key, value in arguments.items():
            args += ["--tool-arg", f"{key}={value}"]
        return self.run(*args)


@pytest.fixture
def client(inspector: Path, mosquitto: Any, simulator_factory: Any, tmp_path: Path) -> Inspector:
    sim = simulator_factory()
    env_vars = {
        "ZWAVE_MCP_MQTT_URL": mosquitto.url,
        "ZWAVE_MCP_PREFIX": sim.config.prefix,
        "ZWAVE_MCP_GATEWAY_NAME": sim.config.name,
        "ZWAVE_MCP_LOG_LEVEL": "info",
    }
    return Inspector(inspector, env_vars, tmp_path, sim)


def text_of(result: dict[str, Any]) -> str:
    texts = [c["text"] for c in result.get("content", []) if c.get("type") == "text"]
    assert len(texts) == 1, result
    return str(texts[0])


def test_tools_list_shows_the_public_tools(client: Inspector) -> None:
    tools = {t["name"]: t for t in client.run("--method", "tools/list")["tools"]}
    for name in (
        "list_zwave_devices",
        "control_zwave_device",
        "get_device_sensor_data",
        "check_zwave_health",
    ):
        assert name in tools, sorted(tools)
    control = tools["control_zwave_device"]
    assert "deviceName" in control["inputSchema"]["properties"]
    assert control["inputSchema"]["required"][:2] == ["deviceName", "action"]


def test_control_then_read_the_device_resource(client: Inspector) -> None:
    sim = client.sim
    result = client.call_tool("control_zwave_device", deviceName="kitchen light", action="on")
    assert result["isError"] is False, result
    assert result["structuredContent"]["result"]["outcome"] == "confirmed", result
    assert text_of(result) == "Done: Kitchen Light is now on, as the device reported."
    # The simulated device really switched (the truth, not the server's belief) ...
    assert sim.nodes[2]["values"]["37-0-currentValue"]["value"] is True
    # ... and another client process reads it back through the resource.
    contents = client.run("--method", "resources/read", "--uri", "zwave://devices/2")["contents"]
    assert contents[0]["uri"] == "zwave://devices/2" and contents[0]["mimeType"] == "application/json"
    device = json.loads(contents[0]["text"])
    assert device["device"]["state"] == "on", device
    assert device["values"]["2-37-0-currentValue"]["value"] is True


def test_resources_read_lists_the_house(client: Inspector) -> None:
    # Read straight after launch: the resource waits for the first load rather than answer an empty house.
    contents = client.run("--method", "resources/read", "--uri", "zwave://devices")["contents"]
    devices = json.loads(contents[0]["text"])
    names = {d["name"] for d in devices}
    assert {"Kitchen Light", "Living Room Lamp", "Front Door Lock", "Porch Double Switch 2"} <= names, names
    assert all({"key", "type", "state", "status"} <= set(d) for d in devices)


def test_prompts_and_resources_are_listed(client: Inspector) -> None:
    prompts = {p["name"] for p in client.run("--method", "prompts/list")["prompts"]}
    assert {"home_status_summary", "what_changed"} <= prompts
    resources = {r["uri"] for r in client.run("--method", "resources/list")["resources"]}
    assert {"zwave://devices", "zwave://health"} <= resources
    templates = client.run("--method", "resources/templates/list")["resourceTemplates"]
    assert [t["uriTemplate"] for t in templates] == ["zwave://devices/{key}", "zwave://devices/{key}/history"]
