"""The Claude Desktop bundle (issue 46): built by `mcpb/build.sh`, unpacked and started as Claude Desktop does.

The official MCPB CLI packs and unpacks it (`.ci/run` installs the pinned one into `mcpb/` with `npm ci`),
and the same package's `getMcpConfigForManifest`, which turns a manifest and a person's answers to its
`user_config` into the command to run, says how to start it: `uv run` in the unpacked folder, which makes the
bundle's own environment from its pyproject.toml (from PyPI, as on a person's machine; uv's cache makes it
quick after the first time). The server must answer `initialize` with the package's version and list its
tools as the settings asked. Locally, without Node, the MCPB CLI or uv, the test skips and says how to get
them; with `CI=true` it fails instead.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

import zwave_mcp

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
MCPB_TOOLS = REPO / "mcpb" / "node_modules"
MCPB = MCPB_TOOLS / ".bin" / "mcpb"
UV = Path(sys.executable).with_name("uv")  # the test extra's; Claude Desktop brings its own
# The first start resolves and installs the dependencies into the bundle's environment.
START_TIMEOUT_S = 300.0


def _missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not on PATH"
    if not MCPB.exists():
        return f"the MCPB CLI is not installed at {MCPB} (run: npm ci --ignore-scripts --prefix mcpb)"
    if not UV.exists():
        return f"uv is not installed next to {sys.executable} (install the test extra)"
    return None


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    reason = _missing()
    if reason is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must run the MCPB test: {reason}")
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("mcpb")
    subprocess.run([str(REPO / "mcpb" / "build.sh"), str(out)], check=True, capture_output=True, timeout=120)
    (bundle,) = out.glob("*.mcpb")
    assert bundle.name == f"zwave-mcp-{zwave_mcp.__version__}.mcpb"
    folder = out / "unpacked"
    subprocess.run(
        [str(MCPB), "unpack", str(bundle), str(folder)], check=True, capture_output=True, timeout=60
    )
    return folder


def claude_desktop_config(folder: Path, user_config: dict[str, Any]) -> dict[str, Any]:
    """The command, arguments and environment the MCPB package itself makes of the manifest and the answers."""
    script = f"""
        import {{ readFileSync }} from "node:fs";
        import {{ getMcpConfigForManifest }} from "{(MCPB_TOOLS / "@anthropic-ai" / "mcpb" / "dist" / "index.js").as_uri()}";
        const manifest = JSON.parse(readFileSync({json.dumps(str(folder / "manifest.json"))}, "utf8"));
        const config = await getMcpConfigForManifest({{
          manifest, extensionPath: {json.dumps(str(folder))}, systemDirs: {{}},
          userConfig: {json.dumps(user_config)}, pathSeparator: "/",
        }});
        process.stdout.write(JSON.stringify(config));
    """
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script], check=True, capture_output=True, text=True, timeout=60
    )
    return json.loads(done.stdout)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_manifest_asks_for_the_connection_in_plain_words_and_keeps_the_password_secret(
    unpacked: Path,
) -> None:
    manifest = json.loads((unpacked / "manifest.json").read_text("utf-8"))
    assert manifest["server"]["type"] == "uv" and manifest["version"] == zwave_mcp.__version__
    asked = manifest["user_config"]
    assert list(asked) == ["mqtt_url", "mqtt_password", "prefix", "gateway_name", "read_only"]
    assert [name for name, option in asked.items() if option.get("sensitive")] == ["mqtt_password"]
    assert all("zwave-js-ui: Settings, MQTT" in asked[name]["description"] for name in ("mqtt_url", "prefix"))
    # Every answer has a value when the person leaves it alone, so no `${user_config.…}` reaches the server.
    assert all("default" in option or option.get("required") for option in asked.values())


async def test_the_unpacked_bundle_starts_as_claude_desktop_starts_it(unpacked: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    answers = {"mqtt_url": f"mqtt://127.0.0.1:{closed_port()}", "read_only": True}
    config = claude_desktop_config(unpacked, answers)
    assert config["command"] == "uv" and str(unpacked) in config["args"]
    assert config["env"]["ZWAVE_MCP_MQTT_URL"] == answers["mqtt_url"]
    assert config["env"]["ZWAVE_MCP_READ_ONLY"] == "true" and config["env"]["ZWAVE_MCP_PREFIX"] == "zwave"
    assert "${" not in json.dumps(config)
    # Claude Desktop passes its own environment on; this one's venv must not stand in for the bundle's.
    environ = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    environ["PATH"] = os.pathsep.join([str(UV.parent), environ.get("PATH", "")])
    params = StdioServerParameters(
        command=config["command"], args=config["args"], env={**environ, **config["env"]}, cwd=str(unpacked)
    )
    with anyio.fail_after(START_TIMEOUT_S):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            hello = await session.initialize()
            tools = {tool.name for tool in (await session.list_tools()).tools}
    assert hello.server_info.name == "zwave-mcp"
    assert hello.server_info.version == zwave_mcp.__version__
    assert {"list_zwave_devices", "get_device_state", "check_zwave_health"} <= tools
    assert "control_zwave_device" not in tools, "read-only mode, as the person asked, lists no writes"
