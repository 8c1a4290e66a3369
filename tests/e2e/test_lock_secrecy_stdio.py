"""Codes are secrets, seen from outside (issue 37): `zwave-mcp check-stdio` run against `zwave-mcp` serving the
simulated keypad locks, codes in clear on MQTT, reports (stdout, stderr, its JSON report with every tool's
answer, the server's stderr log lines) without a single PIN."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.integration.test_lock_secrecy import PINS, secret_house
from zwave_mcp.simulator import FAST, Simulator, capture_config

ZWAVE_MCP = [sys.executable, "-m", "zwave_mcp"]


def test_check_stdio_reports_no_pin(mosquitto: Any, simulator_factory: Any, tmp_path: Path) -> None:
    sim: Simulator = simulator_factory(
        config=capture_config("b", timing=FAST, periodic=False), house="captured+locks", start=False
    )
    secret_house(sim)
    sim.start()
    script = tmp_path / "session.json"
    lock = {"deviceName": "back door lock"}
    script.write_text(
        json.dumps(
            {
                "tool_args": {
                    "get_device_state": lock,
                    "get_device_sensor_data": lock,
                    "verify_device": lock,
                    "get_recent_events": {"minutes": 60},
                    "get_zwave_node_details": lock,
                    "list_zwave_config_parameters": lock,
                },
            }
        )
    )
    env = {
        **os.environ,
        "ZWAVE_MCP_MQTT_URL": mosquitto.url,
        "ZWAVE_MCP_PREFIX": sim.config.prefix,
        "ZWAVE_MCP_HISTORY_PATH": "off",
        "ZWAVE_MCP_LOG_LEVEL": "debug",
        "ZWAVE_MCP_ADMIN": "true",  # the keeper's tools too: node details list a node's values
        "ZWAVE_MCP_TOOL_TIMEOUT": "10",
    }
    done = subprocess.run(
        [*ZWAVE_MCP, "check-stdio", "--json", "--script", str(script), "--", *ZWAVE_MCP],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    report = json.loads(done.stdout)
    assert "Back Door Lock" in report["tool_outcomes"]["get_device_state"], report["tool_outcomes"]
    for text in (done.stdout, done.stderr):
        assert [pin for pin in PINS if pin in text] == [], text[:500]
