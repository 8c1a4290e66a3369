"""A rename through zwave-js-ui's API (`setNodeName`/`setNodeLocation`) publishes one Node Naming and Location
value event, as the real zwave-js-ui 11.22.2 does (checked with configs a, b and c): `node_value_added` the
first time zwave-js holds the value, `node_value_updated` with `prevValue` after it, a room cleared to "" being
still held; and nothing at all when the name is the one it holds already (zwave-js-ui then leaves zwave-js's
name alone)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import paho.mqtt.publish as publish
import pytest

from tests.conftest import MessageCollector
from zwave_mcp.simulator import Simulator, captured_house

pytestmark = pytest.mark.integration

GW = "_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui"
KITCHEN_LIGHT = 2  # named "Kitchen Light" in the Kitchen
PORCH = 11  # given no name here, as a node zwave-js-ui has never named


def house_with_an_unnamed_node() -> list[dict[str, Any]]:
    house = copy.deepcopy(captured_house())
    for node in house:
        if node["id"] == PORCH:
            node["name"] = ""
    return house


def naming_events(
    sim: Simulator, messages: MessageCollector, calls: list[tuple[str, list[Any]]]
) -> list[list[tuple[str, dict[str, Any]]]]:
    """For each API call (answered in turn), the naming events published for it: (event name, value args)."""
    prefix = sim.config.prefix
    found: list[list[tuple[str, dict[str, Any]]]] = []
    for api, args in calls:
        messages.clear()
        publish.single(
            f"{prefix}/{GW}/api/{api}/set",
            json.dumps({"args": args}),
            qos=1,
            hostname=sim.host,
            port=sim.port,
        )
        reply = messages.wait_topic(f"{prefix}/{GW}/api/{api}", timeout=3.0)  # the event comes before it
        assert reply.json()["result"] is True
        events = [
            (m.topic.rsplit("/", 1)[1], m.json()["data"])
            for m in messages.snapshot()
            if "/_EVENTS/" in m.topic
        ]
        found.append(
            [(name, data[1]) for name, data in events if len(data) > 1 and data[1].get("commandClass") == 119]
        )
    return found


def test_the_same_name_again_publishes_nothing_and_a_cleared_room_is_updated_from_empty(
    simulator_factory: Callable[..., Simulator], collector: Callable[[str], MessageCollector]
) -> None:
    sim = simulator_factory(house=house_with_an_unnamed_node())
    messages = collector(f"{sim.config.prefix}/#")
    events = naming_events(
        sim,
        messages,
        [
            ("setNodeName", [KITCHEN_LIGHT, "Kitchen Light"]),
            ("setNodeLocation", [KITCHEN_LIGHT, ""]),
            ("setNodeLocation", [KITCHEN_LIGHT, "Pantry"]),
            ("setNodeName", [PORCH, "Porch Switch"]),
            ("setNodeName", [PORCH, "Porch Switch"]),
        ],
    )
    update = "node_value_updated"
    assert events == [
        [],  # its name already: zwave-js-ui does not touch zwave-js's name
        [(update, _value("location", "", "Kitchen"))],
        [(update, _value("location", "Pantry", ""))],  # "" is a value zwave-js holds
        [("node_value_added", _value("name", "Porch Switch"))],  # never named before
        [],
    ]
    assert sim.nodes[KITCHEN_LIGHT]["loc"] == "Pantry" and sim.nodes[PORCH]["name"] == "Porch Switch"


def _value(prop: str, new: str, prev: str | None = None) -> dict[str, Any]:
    value: dict[str, Any] = {
        "commandClassName": "Node Naming and Location",
        "commandClass": 119,
        "property": prop,
        "newValue": new,
        "propertyName": prop,
    }
    if prev is not None:
        value["prevValue"] = prev
    return value
