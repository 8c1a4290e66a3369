"""Fixtures for the e2e tests that run `python -m zwave_mcp` as a subprocess."""

import os
import socket

import pytest


@pytest.fixture
def no_broker_env() -> dict[str, str]:
    """The parent's environment with the MQTT URL pointing at a closed 127.0.0.1 port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # A short tool timeout bounds each tool call (and the EOF drain) while the gateway is unavailable.
    return {**os.environ, "ZWAVE_MCP_MQTT_URL": f"mqtt://127.0.0.1:{port}", "ZWAVE_MCP_TOOL_TIMEOUT": "5"}
