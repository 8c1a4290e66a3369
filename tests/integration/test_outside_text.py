"""Text from outside is bounded and plain before it is kept or said (issue 44 item 7), through the tools.

One `driver_error` event of about 500 kB carrying an escape sequence, a bell and line breaks appeared whole
in every `get_recent_events` answer (500k characters, about 2 MB of JSON a call) and in health.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import paho.mqtt.publish as publish
import pytest

from tests.integration.mcp_harness import call, connected, settings_for
from zwave_mcp.safetext import MESSAGE_MAX
from zwave_mcp.simulator import Simulator

pytestmark = pytest.mark.integration

HUGE = "Serial port \x1b]0;owned\x07 failed\n" + "\x1b[31mX\x07\n" * 50_000  # ~500 kB


def controls(text: str) -> list[str]:
    return [c for c in text if c < " " or "\x7f" <= c <= "\x9f"]


async def test_a_huge_driver_error_is_kept_and_said_bounded_and_plain(
    mosquitto: Any, simulator_factory: Any
) -> None:
    sim: Simulator = simulator_factory()
    topic = f"{sim.config.prefix}/_EVENTS/ZWAVE_GATEWAY-{sim.config.name}/driver/driver_error"
    async with connected(settings_for(mosquitto, sim)) as client:
        payload = json.dumps({"data": [{"message": HUGE, "code": 100}]})
        assert len(payload) > 500_000
        publish.single(topic, payload, hostname=mosquitto.host, port=mosquitto.port)
        for _ in range(300):
            health = await call(client, "check_zwave_health")
            said = health.result["gateway"]["lastDriverError"]
            if said:
                break
            await anyio.sleep(0.01)
        assert said and said.startswith("Serial port ]0;owned failed"), health.result
        assert len(said) <= MESSAGE_MAX and not controls(said), said[:400]
        events = await call(client, "get_recent_events", {"minutes": 5})
        assert not events.is_error, events.text
        shown = json.dumps(events.envelope)
        assert len(shown) < 20_000, f"{len(shown)} characters of JSON"
        error = next(e for e in events.result["events"] if "driver reported an error" in e["what"])
        assert error["what"].startswith("the Z-Wave driver reported an error: Serial port ]0;owned failed")
        for text in (error["what"], error["value"], events.text):
            assert not controls(text), text[:400]
        assert len(error["value"]) <= MESSAGE_MAX
