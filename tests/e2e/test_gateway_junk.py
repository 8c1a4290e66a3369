"""Hostile or broken gateway traffic cannot crash or stall the real server (`python -m zwave_mcp` over
stdio, Mosquitto, the simulator).

Over stdio on purpose: the in-process client hands reply objects over without serializing them, and a
lone surrogate only kills the server where the stdio writer serializes a reply.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import paho.mqtt.client as paho
import pytest
from mcp import Client, StdioServerParameters
from paho.mqtt.enums import CallbackAPIVersion

from tests.integration.mcp_harness import call, wait_for_answer
from zwave_mcp.server.resource_updates import DEVICES_URI, device_uri
from zwave_mcp.simulator import Simulator, naming
from zwave_mcp.simulator.house import load_house

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

SERVER = [sys.executable, "-m", "zwave_mcp"]
TEN_MB = 10 * 1024 * 1024


def server_params(broker: Any, sim: Simulator, home: Path) -> StdioServerParameters:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "ZWAVE_MCP_MQTT_URL": broker.url,
        "ZWAVE_MCP_PREFIX": sim.config.prefix,
        "ZWAVE_MCP_CONFIRM_TIMEOUT": "2",
        "ZWAVE_MCP_TOOL_TIMEOUT": "10",
        "ZWAVE_MCP_RATE_LIMIT_DEVICE": "0",
        "ZWAVE_MCP_RATE_LIMIT_TOTAL": "0",
        "ZWAVE_MCP_LOG_LEVEL": "warning",
    }
    return StdioServerParameters(command=SERVER[0], args=SERVER[1:], env=env)


def _publisher(broker: Any) -> paho.Client:
    client = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv311)
    client.connect(broker.host, broker.port)
    client.loop_start()
    return client


@pytest.fixture
def raw_mqtt(mosquitto: Any) -> Iterator[paho.Client]:
    client = _publisher(mosquitto)
    yield client
    client.loop_stop()
    client.disconnect()


def _publish(client: paho.Client, topic: str, payload: bytes) -> None:
    client.publish(topic, payload, qos=1).wait_for_publish(timeout=10)


async def test_lone_surrogates_published_by_the_gateway_never_kill_the_server(
    mosquitto: Any, simulator_factory: Callable[..., Simulator], raw_mqtt: paho.Client, tmp_path: Path
) -> None:
    house = load_house()
    by_id = {node["id"]: node for node in house}
    by_id[3]["name"] = "Living Room Lamp \ud800"  # what getNodes and nodeinfo then carry, escaped
    sim = simulator_factory(house=house)
    sensor = sim.nodes[4]
    temperature = sensor["values"]["49-0-Air temperature"]
    topic = naming.value_topic(sensor, temperature, sim.config)
    # Retained before the server starts, so it meets them while the network loads.
    humidity = naming.value_topic(sensor, sensor["values"]["49-0-Humidity"], sim.config)
    raw_mqtt.publish(humidity, b'{"time":1,"value":"wet \\ud800"}', qos=1, retain=True).wait_for_publish(10)
    nodeinfo = naming.node_topic(sensor, sim.config) + "/nodeinfo"
    raw_mqtt.publish(nodeinfo, b'{"id":4,"name":"\\udc00"}', qos=1, retain=True).wait_for_publish(10)
    with anyio.fail_after(90):
        async with Client(server_params(mosquitto, sim, tmp_path)) as client:
            listed = await wait_for_answer(client, "list_zwave_devices", {}, lambda a: not a.is_error, 15)
            assert "Living Room Lamp \ufffd" in listed.text
            # A value with a lone surrogate escape, and one with UTF-8-encoded surrogate bytes.
            _publish(raw_mqtt, topic, b'{"time":1,"value":"hot \\udfff"}')
            _publish(raw_mqtt, topic, b'{"time":2,"value":"\xed\xa0\x80"}')
            await wait_for_answer(
                client, "get_device_state", {"device_name": "node 4"}, lambda a: "\ufffd" in a.text
            )
            lamp = await call(client, "get_device_state", {"device_name": "living room lamp"})
            assert not lamp.is_error, lamp.text
            devices = json.loads((await client.read_resource(DEVICES_URI)).contents[0].text)
            assert any(d["name"] == "Living Room Lamp \ufffd" for d in devices)
            assert (await client.read_resource(device_uri("4"))).contents
            assert not (await call(client, "check_zwave_health")).is_error


def _junk(prefix: str) -> list[bytes]:
    """Payloads no topic should carry: surrogates, invalid UTF-8, wrong JSON types, depth, emptiness."""
    return [
        b'"\\ud800"',
        b'{"time":1,"value":"\\udc00"}',
        b'{"value":"\\ud800","time":"\\udfff","status":"\\ud800","nodeId":"x","id":"\\ud800"}',
        b'{"nodeId":"\\ud800","commandClass":[],"property":{},"value":"\\ud800"}',
        b"\xed\xa0\x80",
        b"\xff\xfe\x00",
        b"[1,2,3]",
        b"null",
        b"3.5e400",
        b'{"data":"not a list"}',
        b'{"data":[{"id":"\\ud800"},null,7]}',
        b'{"success":true,"result":{"\\ud800":1},"origin":{"\\ud800":"\\udfff"}}',
        b"",
        prefix.encode(),
        # Numbers no float or clock holds: a 400-digit value and time, JSON's Infinity and NaN.
        b'{"time":1795312935204,"value":' + b"9" * 400 + b"}",
        b'{"time":' + b"9" * 400 + b',"value":5}',
        b'{"time":1795312935205,"value":Infinity}',
        b'{"time":1795312935206,"value":NaN}',
        b'{"id":"x","nodeId":4,"commandClass":49,"endpoint":0,"property":"Air temperature","value":1,'
        b'"min":' + b"9" * 400 + b',"propertyKey":{"k":1},"lastUpdate":' + b"9" * 400 + b"}",
    ]


def _topics_of(sim: Simulator) -> list[str]:
    """Every topic the gateway publishes on: values, node attributes, its client, driver, API replies
    and events (all under the one `<prefix>/#` subscription)."""
    topics = {f"{sim.config.prefix}/driver/status"}
    gateway = naming.clients_topic(sim.config, "")
    topics |= {gateway + "status", gateway + "version"}
    apis = ["getNodes", "writeValue", "getInfo", "_activateScene", "_getScenes", "sendCommand"]
    topics |= {gateway + f"api/{api}" for api in apis}
    events = [("node", "node_value_updated"), ("node", "node_dead"), ("driver", "all nodes ready")]
    topics |= {naming.events_topic(sim.config, kind, name) for kind, name in events}
    for node in sim.nodes.values():
        base = naming.node_topic(node, sim.config)
        topics |= {base + "/status", base + "/lastActive", base + "/nodeinfo"}
        topics |= {naming.value_topic(node, value, sim.config) for value in node["values"].values()}
    return sorted(topics)


def _one_of_each_kind(topics: list[str]) -> list[str]:
    """A value topic, a node's status, nodeinfo and lastActive, the gateway's status and version, the
    driver status, API replies and events."""
    ends = ["/currentValue", "/status", "/nodeinfo", "/lastActive", "/version", "/driver/status"]
    ends += ["/api/getNodes", "/api/writeValue", "/node_value_updated"]
    picked = [next(t for t in topics if t.endswith(end)) for end in ends]
    return [*picked, next(t for t in topics if "_CLIENTS" in t and t.endswith("/status"))]


async def test_junk_on_every_subscribed_topic_while_calls_run(
    mosquitto: Any, simulator_factory: Callable[..., Simulator], tmp_path: Path
) -> None:
    sim = simulator_factory()
    topics = _topics_of(sim)
    kinds = {topic.rsplit("/", 1)[-1] for topic in topics}
    assert {"status", "nodeinfo", "lastActive", "getNodes", "currentValue", "version"} <= kinds, kinds
    junk = _junk(sim.config.prefix)
    stop = threading.Event()
    published = [0]

    def flood() -> None:
        publisher = _publisher(mosquitto)
        try:
            # The heavy junk once on a topic of each kind: 10 MB, and JSON nested 50,000 deep.
            heavy = [b'{"value":"' + b"\\ud800" * (TEN_MB // 6) + b'"}', b"[" * 50_000 + b"]" * 50_000]
            for topic in _one_of_each_kind(topics):
                for payload in heavy:
                    if stop.is_set():
                        return
                    _publish(publisher, topic, payload)
                    published[0] += 1
            # Then small junk on every topic, round after round. Paced: this test is about junk, not
            # volume; how fast API replies pass a value flood is the control lane's business (bench/).
            while not stop.is_set():
                for topic in topics:
                    for payload in junk:
                        publisher.publish(topic, payload, qos=0)
                        published[0] += 1
                _publish(publisher, topics[0], b"null")
                stop.wait(1.0)
        finally:
            publisher.loop_stop()
            publisher.disconnect()

    with anyio.fail_after(120):
        async with Client(server_params(mosquitto, sim, tmp_path)) as client:
            await wait_for_answer(client, "list_zwave_devices", {}, lambda a: not a.is_error, 15)
            thread = threading.Thread(target=flood, daemon=True)
            thread.start()
            try:
                for round_ in range(6):
                    listed = await call(client, "list_zwave_devices")
                    assert not listed.is_error, listed.text
                    state = await call(client, "get_device_state", {"device_name": "kitchen light"})
                    assert "Kitchen Light" in state.text, state.text
                    action = "on" if round_ % 2 == 0 else "off"
                    done = await call(
                        client, "control_zwave_device", {"device_name": "kitchen light", "action": action}
                    )
                    assert not done.is_error, done.text
                    assert (await client.read_resource(DEVICES_URI)).contents
                    for tool in (
                        "check_zwave_health",
                        "get_recent_events",
                        "get_energy_usage",
                        "get_battery_report",
                    ):
                        answer = await call(client, tool, {})
                        assert "failed unexpectedly" not in answer.text, answer.text
                    history = await call(client, "get_device_history", {"device_name": "bedroom sensor"})
                    assert (
                        "failed unexpectedly" not in history.text and "closed database" not in history.text
                    ), history.text
            finally:
                stop.set()
                await anyio.to_thread.run_sync(thread.join, 30)
            assert published[0] > len(topics), "the junk went out while the calls ran"
            # The house survived the junk: a clean call still answers with every device.
            final = await wait_for_answer(client, "list_zwave_devices", {}, lambda a: not a.is_error, 15)
            assert final.result["total"] == 11, final.text
