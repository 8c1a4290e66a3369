"""ZwaveGateway's load: messages that arrive before the getNodes reply are replayed after it, in order."""

from __future__ import annotations

import json
from pathlib import Path

from zwave_mcp.config import Settings
from zwave_mcp.gateway.client import ZwaveGateway

GET_NODES = json.loads(
    (Path(__file__).parents[2] / "fixtures" / "recorded" / "getNodes.json").read_text("utf-8")
)
SETPOINT = "zwave/Hallway/Hallway_Thermostat/thermostat_setpoint/endpoint_0/setpoint/1"


def test_messages_during_load_are_buffered_then_replayed_in_order() -> None:
    gw = ZwaveGateway(Settings())
    gw.sync.loading = True  # as right after a (re)connect, before getNodes has answered
    gw._on_message(SETPOINT, b'{"time":1795313500000,"value":21.5}', True)  # retained
    gw._on_message(SETPOINT, b'{"time":1795313600000,"value":23}', False)  # live, newer
    gw._on_message("zwave/driver/status", b"true", True)  # gateway topics apply at once
    assert gw.inventory.status.driver_ready is True
    assert gw.inventory.value("6-67-0-setpoint-1") is None, "nothing to map values onto before getNodes"
    gw.sync.load(GET_NODES)
    value = gw.inventory.value("6-67-0-setpoint-1")
    assert value is not None and value.value == 23, "the newest message must win after the replay"
    assert gw.loaded and not gw.sync.loading and not gw.sync.buffer
    gw._on_message(SETPOINT, b'{"time":1795313700000,"value":19}', False)  # live again, applied directly
    assert gw.inventory.value("6-67-0-setpoint-1").value == 19  # type: ignore[union-attr]


def test_garbage_and_foreign_replies_through_the_router_never_raise() -> None:
    gw = ZwaveGateway(Settings())
    gw.sync.load(GET_NODES)
    for topic in (
        SETPOINT,
        "zwave/_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui/api/getInfo",
        "zwave/a/b/set",
        "other/x",
    ):
        for payload in (b"", b"\xff\x00", b"{", b"[" * 10_000, b"9" * 2_000_000):
            gw._on_message(topic, payload, False)
    assert gw.inventory.value("6-67-0-setpoint-1") is not None
