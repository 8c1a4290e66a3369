"""The simulator on Mosquitto: start-up publishing, getInfo/getNodes, switch writes, will, stop."""

from __future__ import annotations

import json
from typing import Any

import paho.mqtt.publish as publish
import pytest

from zwave_mcp.simulator import Simulator

# The simulator's fidelity to what zwave-js-ui does on Mosquitto (retain flags, QoS, the will): the
# embedded amqtt broker rewrites those flags, so there is nothing to learn from running these on it.
pytestmark = pytest.mark.mosquitto_only


def _api(sim: Simulator, collector: Any, name: str, payload: Any) -> dict[str, Any]:
    base = f"{sim.config.prefix}/_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui/api/{name}"
    sub = collector(base)
    text = payload if isinstance(payload, str) else json.dumps(payload)
    publish.single(base + "/set", text, qos=1, hostname=sim.host, port=sim.port)
    reply: dict[str, Any] = sub.wait_topic(base).json()
    return reply


def test_start_publishes_gateway_driver_and_values(simulator_factory, collector) -> None:
    sim = simulator_factory(start=False)
    sub = collector(f"{sim.config.prefix}/#")
    sim.start()
    p = sim.config.prefix
    sub.wait_topic(f"{p}/_EVENTS/ZWAVE_GATEWAY-zwave-js-ui/driver/all_nodes_ready")
    topics = [m.topic for m in sub.snapshot()]
    assert topics[:3] == [
        f"{p}/_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui/version",
        f"{p}/_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui/status",
        f"{p}/driver/status",
    ]
    light = sub.json_on(f"{p}/Kitchen/Kitchen_Light/switch_binary/endpoint_0/currentValue")
    assert set(light) == {"time", "value"} and light["value"] is False


def test_get_info_and_get_nodes(simulator_factory, collector) -> None:
    sim = simulator_factory()
    info = _api(sim, collector, "getInfo", {"args": []})
    assert info["success"] is True and info["result"]["appVersion"] == "11.22.2"
    nodes = _api(sim, collector, "getNodes", {"args": [], "corr": "x1"})
    assert [n["id"] for n in nodes["result"]] == [255, 1, *range(2, 12)]
    assert nodes["origin"] == {"args": [], "corr": "x1"}


def test_switch_write_is_unsupervised_and_repolled(simulator_factory, collector) -> None:
    sim = simulator_factory()
    value_topic = f"{sim.config.prefix}/Kitchen/Kitchen_Light/switch_binary/endpoint_0/currentValue"
    values = collector(value_topic)
    vid = {"nodeId": 2, "commandClass": 37, "endpoint": 0, "property": "targetValue"}
    reply = _api(sim, collector, "writeValue", {"args": [vid, True]})
    assert reply["result"] == {"status": 254}
    values.wait_for(
        lambda m: sum(1 for x in values.snapshot() if x.json().get("value") is True) >= 2,
        timeout=2,
        what="optimistic publish then the second poll",
    )
    trues = [m for m in values.snapshot() if m.json().get("value") is True]
    assert all(m.retain and m.qos == 1 for m in trues)


def test_crash_publishes_last_will_and_stop_does_not(simulator_factory, collector) -> None:
    crashed = simulator_factory()
    status = collector(f"{crashed.config.prefix}/_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui/status")
    status.wait_for(lambda m: m.json() == {"value": True} or m.json().get("value") is True)
    crashed.crash()
    will = status.wait_for(lambda m: m.json() == {"value": False}, what="last will")
    assert will.retain is True and will.qos == 1

    stopped = simulator_factory()
    p = stopped.config.prefix
    sub = collector(f"{p}/#")
    sub.wait_topic(f"{p}/driver/status")
    stopped.stop()
    sub.wait_for(
        lambda m: m.topic == f"{p}/driver/status" and m.payload == "false", what="driver/status false"
    )
    gateway = [m for m in sub.snapshot() if m.topic.endswith("_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui/status")]
    assert all(m.json().get("value") is True for m in gateway), "graceful stop must not publish the will"


def test_write_multicast_answers_like_zwave_js_ui(simulator_factory, collector) -> None:
    """ZwaveClient.writeMulticast returns nothing and only logs its errors: `success: true`, no `result`.
    Each node's value is echoed at once (zwave-js's optimistic update), then reported by the device."""
    sim = simulator_factory()
    p = sim.config.prefix
    light = collector(f"{p}/Kitchen/Kitchen_Light/switch_binary/endpoint_0/currentValue")
    plug = collector(f"{p}/Kitchen/Coffee_Maker_Plug/switch_binary/endpoint_0/currentValue")
    vid = {"commandClass": 37, "endpoint": 0, "property": "targetValue"}
    reply = _api(sim, collector, "writeMulticast", {"args": [[2, 8], vid, True]})
    assert reply["success"] is True and "result" not in reply
    assert reply["message"] == "Success zwave api call" and reply["args"] == [[2, 8], vid, True]
    for values in (light, plug):
        values.wait_for(
            lambda m, values=values: sum(1 for x in values.snapshot() if x.json().get("value") is True) >= 2,
            timeout=2,
            what="the echo, then the device's own report",
        )
    bad = _api(sim, collector, "writeMulticast", {"args": [[2], {"commandClass": 37}, True]})
    assert bad["success"] is True and "result" not in bad  # errors are logged, never answered
