"""A client nobody here wrote, over HTTP: the MCP Inspector's CLI (`--transport http`) against a running home
service, each call a fresh Inspector process on one long-running service (the one-shot client that used to
start a fresh server per call, and so from nothing). Calls carry a bearer token as a signed-in client's
would (the SDK's bearer check with fixed tokens: tests/fixtures_servers/home_service.py)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_inspector import CALL_TIMEOUT_S, inspector, text_of
from tests.e2e.test_service_http import Service, running_service
from zwave_mcp.simulator import FAST, Simulator, capture_config

pytestmark = [pytest.mark.e2e, pytest.mark.integration]
__all__ = ["inspector"]  # the fixture (skips without Node or the pinned Inspector)


def inspect(
    binary: Path, service: Service, home: Path, token: str, *args: str
) -> subprocess.CompletedProcess[str]:
    command = [str(binary), "--cli", "--format", "json", service.url, "--transport", "http"]
    command += ["--header", f"Authorization: Bearer {token}", *args]
    env = {**os.environ, "HOME": str(home), "MCP_CATALOG_PATH": str(home / "mcp.json")}
    return subprocess.run(command, capture_output=True, text=True, timeout=CALL_TIMEOUT_S, env=env)


TOOL_IS_ERROR = 5  # the Inspector's exit code when the tool answered isError (the answer is still printed)


def result_of(done: subprocess.CompletedProcess[str], exit_code: int = 0) -> dict[str, Any]:
    assert done.returncode == exit_code, (
        f"exit {done.returncode}\n{done.stdout[-1000:]}\n{done.stderr[-2000:]}"
    )
    reply = json.loads(done.stdout)
    result: dict[str, Any] = reply["result"]
    return result


def test_the_inspector_reads_and_switches_through_the_running_service(
    inspector: Path, mosquitto: Any, simulator_factory: Any, tmp_path: Path
) -> None:
    sim: Simulator = simulator_factory(config=capture_config("a", timing=FAST, periodic=False))
    with running_service(mosquitto, sim, tmp_path, "stub-auth") as service:
        tools = result_of(inspect(inspector, service, tmp_path, "read-token", "--method", "tools/list"))
        assert "control_zwave_device" in {t["name"] for t in tools["tools"]}
        on = ["--method", "tools/call", "--tool-name", "control_zwave_device"]
        on += ["--tool-arg", "deviceName=kitchen light", "action=on"]
        refused = result_of(inspect(inspector, service, tmp_path, "read-token", *on), TOOL_IS_ERROR)
        assert refused["isError"] is True and "that needs the home:control scope" in text_of(refused)
        done = result_of(inspect(inspector, service, tmp_path, "doors-token", *on))
        assert text_of(done) == "Done: Kitchen Light is now on, as the device reported.", done
        assert sim.nodes[2]["values"]["37-0-currentValue"]["value"] is True
        read = ["--method", "resources/read", "--uri", "zwave://devices/2"]
        device = json.loads(
            result_of(inspect(inspector, service, tmp_path, "read-token", *read))["contents"][0]["text"]
        )
        assert device["device"]["state"] == "on", device
