"""Issue 43 item 28: a node that finished its interview but has no values was said to be "still loading: …
ask again in a few seconds", which asking again never changes. It says what is known."""

from __future__ import annotations

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.describe import sentence
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.server.tools.present import sensor_summary, verify_summary


def test_an_interviewed_node_with_no_values_is_ready_and_has_told_nothing() -> None:
    node = parse_node(
        {"id": 12, "name": "Attic Sensor", "ready": True, "interviewStage": "Complete", "values": {}}
    )
    assert node is not None and not node.loading
    (device,) = build_devices([node])
    assert sentence(device) == "Attic Sensor has not reported anything yet."
    assert verify_summary(device, []) == (
        "Attic Sensor exists and is ready. It has not reported anything yet, so what it does is not known."
    )
    assert "ask again" not in sensor_summary(device, [])


def test_a_node_still_being_interviewed_with_no_values_is_still_loading() -> None:
    for raw in (
        {"id": 12, "ready": False, "interviewStage": "Complete", "values": {}},  # zwave-js-ui just restarted
        {"id": 12, "ready": True, "interviewStage": "NodeInfo", "values": {}},
    ):
        node = parse_node(raw)
        assert node is not None and node.loading, raw
