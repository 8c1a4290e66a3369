"""Fault modes and garbage input: dead nodes, sleeping-node queueing, value-topic writes, junk on API topics."""

from __future__ import annotations

import json
import time
from typing import Any

import paho.mqtt.publish as publish

from zwave_mcp.simulator import Simulator

GW = "_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui"


def _send(sim: Simulator, topic: str, payload: str) -> None:
    publish.single(f"{sim.config.prefix}/{topic}", payload, qos=1, hostname=sim.host, port=sim.port)


def test_dead_node_status_event_and_failed_write(simulator_factory, collector) -> None:
    sim = simulator_factory()
    p = sim.config.prefix
    sub = collector(f"{p}/#")
    sim.kill_node(9)
    status = sub.wait_for(
        lambda m: m.topic == f"{p}/Bedroom/Bedroom_Color_Bulb/status" and m.json().get("status") == "Dead"
    )
    assert status.json()["value"] is False and status.json()["nodeId"] == 9
    event = sub.wait_topic(f"{p}/_EVENTS/ZWAVE_GATEWAY-zwave-js-ui/node/node_dead")
    assert event.json()["data"][0]["id"] == 9 and event.json()["data"][0]["status"] == 3
    vid = {"nodeId": 9, "commandClass": 38, "endpoint": 0, "property": "targetValue"}
    _send(sim, f"{GW}/api/writeValue/set", json.dumps({"args": [vid, 50]}))
    reply = sub.wait_topic(f"{p}/{GW}/api/writeValue").json()
    assert reply["success"] is True and reply["result"] == {"status": 2}


def test_sleeping_node_write_waits_for_wake_up(simulator_factory, collector) -> None:
    sim = simulator_factory()
    p = sim.config.prefix
    sub = collector(f"{p}/{GW}/api/writeValue")
    vid = {"nodeId": 4, "commandClass": 132, "endpoint": 0, "property": "wakeUpInterval"}
    _send(sim, f"{GW}/api/writeValue/set", json.dumps({"args": [vid, 7200]}))
    statuses = collector(f"{p}/Bedroom/Bedroom_Sensor/status")
    statuses.wait_for(lambda m: m.json().get("status") == "Asleep")
    deadline = time.monotonic() + 5
    while sim.pending_writes(4) == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sim.pending_writes(4) == 1, "the write was not queued for the sleeping node"
    assert sub.snapshot() == [], "a write to a sleeping node must not be answered before it wakes"
    sim.wake_up(4)
    assert sub.wait_topic(f"{p}/{GW}/api/writeValue").json()["result"] == {"status": 254}
    statuses.wait_for(lambda m: m.json().get("status") == "Awake")
    statuses.wait_for(
        lambda m: m.json().get("status") == "Asleep" and m.json()["time"] > 0, what="Asleep again"
    )


def test_value_topic_writes(simulator_factory, collector) -> None:
    sim = simulator_factory()
    p = sim.config.prefix
    lamp = f"{p}/Entry/Front_Door_Lock/door_lock/endpoint_0"
    sub = collector(f"{lamp}/currentMode")
    publish.single(f"{lamp}/targetMode/set", "lock", qos=1, hostname=sim.host, port=sim.port)
    sub.wait_for(lambda m: m.json().get("value") == 255, what="lock → 255")
    light = f"{p}/Kitchen/Kitchen_Light/switch_binary/endpoint_0"
    values = collector(f"{light}/currentValue")
    publish.single(f"{light}/currentValue/set", '{"value": true}', qos=1, hostname=sim.host, port=sim.port)
    values.wait_for(
        lambda m: m.json().get("value") is True, what="currentValue/set redirected to targetValue"
    )


def test_garbage_on_api_topics_gets_recorded_replies(simulator_factory, collector) -> None:
    sim = simulator_factory()
    p = sim.config.prefix
    sub = collector(f"{p}/{GW}/api/+")
    cases: list[tuple[str, str, dict[str, Any]]] = [
        (
            "pingNode",
            '{"args": 3}',
            {"success": False, "message": "Args must be an array", "origin": {"args": 3}},
        ),
        (
            "fooBar",
            '{"args": []}',
            {"success": False, "message": "Unknown API", "args": [], "origin": {"args": []}},
        ),
        (
            "pingNode",
            "3",
            {
                "success": False,
                "message": "Cannot read properties of undefined (reading 'ping')",
                "args": [],
                "origin": 3,
            },
        ),
    ]
    for api, payload, expected in cases:
        sub.clear()
        _send(sim, f"{GW}/api/{api}/set", payload)
        assert sub.wait_topic(f"{p}/{GW}/api/{api}").json() == expected
    for junk in ["\xff\xfe", "null", "[1,2]", '{"args": {"a": 1}}', "", "true"]:
        _send(sim, f"{GW}/api/writeValue/set", junk)
        publish.single(
            f"{p}/Kitchen/Kitchen_Light/switch_binary/endpoint_0/targetValue/set",
            junk,
            hostname=sim.host,
            port=sim.port,
        )
    sub.clear()
    _send(sim, f"{GW}/api/getInfo/set", '{"args": [')
    reply = sub.wait_topic(f"{p}/{GW}/api/getInfo").json()
    assert reply["success"] is True and reply["origin"] == '{"args": ['
