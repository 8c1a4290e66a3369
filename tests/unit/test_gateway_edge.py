"""Data from MQTT is checked at the gateway's edge against zwave-js's types (issue 36, items 1 and 10).

Whatever zwave-js cannot have sent (text fields holding numbers, flags holding text, NaN, Infinity, integers
beyond JavaScript's numbers) is dropped with one log line naming the node and the value, in a getNodes
reply, a value topic and an event alike; the rest of the node and of the house loads and is described.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.control import available_actions
from zwave_mcp.devices.describe import sentence, state_summary
from zwave_mcp.devices.readings import readings
from zwave_mcp.gateway.nodes import decode_with_values
from zwave_mcp.gateway.payloads import Undecodable, decode_value
from zwave_mcp.gateway.state import Inventory
from zwave_mcp.gateway.topics import GatewayTopics

EVENTS = "zwave/_EVENTS/ZWAVE_GATEWAY-zwave-js-ui/node/"


def value(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "5-106-0-targetValue-23",
        "nodeId": 5,
        "commandClass": 106,
        "commandClassName": "Window Covering",
        "endpoint": 0,
        "property": "targetValue",
        "propertyKey": 23,
        "propertyName": "targetValue",
        "propertyKeyName": "Horizontal Slats Angle",
        "type": "number",
        "readable": True,
        "writeable": True,
        "label": "Target value - Horizontal Slats Angle",
        "min": 0,
        "max": 99,
        "value": 40,
    }
    return {**base, **extra}


def house(bad: dict[str, Any]) -> bytes:
    other = value(id="6-37-0-targetValue", nodeId=6, commandClass=37, property="targetValue", value=True)
    for key in ("propertyKey", "propertyKeyName", "min", "max"):
        other.pop(key)
    other.update(commandClassName="Binary Switch", type="boolean", label="Target value")
    nodes = [
        {"id": 1, "isControllerNode": True, "values": {}},
        {"id": 5, "name": "Study Blind", "ready": True, "values": {"106-0-targetValue-23": bad}},
        {"id": 6, "name": "Hall Switch", "ready": True, "values": {"37-0-targetValue": other}},
    ]
    return json.dumps({"success": True, "result": nodes}).encode()  # NaN and Infinity as Python writes them


def loaded(payload: bytes) -> Inventory:
    inventory = Inventory(GatewayTopics("zwave", "zwave-js-ui"))
    inventory.load_nodes(decode_with_values(payload)["result"])
    return inventory


def every_answer(inventory: Inventory) -> list[str]:
    said = []
    for device in build_devices(inventory.nodes.values()):
        said += [state_summary(device), sentence(device), *available_actions(device)]
        said += [r.label for r in readings(device, 0)]
        json.dumps([v.value for v in device.all_values()], allow_nan=False)  # what resources print
    return said


WRONG = [
    ("propertyKeyName", 5, "propertyKeyName is a number, zwave-js sends text"),
    ("label", ["x"], "label is a list, zwave-js sends text"),
    ("commandClassName", {"a": 1}, "commandClassName is an object, zwave-js sends text"),
    ("unit", 7, "unit is a number, zwave-js sends text"),
    ("type", False, "type is false, zwave-js sends text"),
    ("writeable", "yes", "writeable is text, zwave-js sends true or false"),
    ("readable", 0, "readable is a number, zwave-js sends true or false"),
    ("min", "0", "min is text that is no JavaScript number"),
    ("max", float("inf"), "max is a number that is no JavaScript number"),
    ("states", "open", "states is text, zwave-js-ui sends a list"),
    ("ccSpecific", [1], "ccSpecific is a list zwave-js cannot send"),
    ("value", float("nan"), "its value: nan is not a number JSON has"),
    ("value", {"value": float("-inf"), "unit": "seconds"}, "its value: -inf is not a number JSON has"),
    ("value", 10**400, "its value: an integer beyond any number zwave-js has"),
    ("default", float("inf"), "its default: inf is not a number JSON has"),
]


@pytest.mark.parametrize(("field", "wrong", "said"), WRONG, ids=[f"{f}={w!r}"[:40] for f, w, _ in WRONG])
def test_a_field_of_the_wrong_type_in_get_nodes_is_dropped_and_said(
    field: str, wrong: Any, said: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="zwave_mcp.gateway.nodes"):
        inventory = loaded(house(value(**{field: wrong})))
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        f"dropped what zwave-js cannot have sent: node 5, value 5-106-0-targetValue-23: {said}"
    ], lines
    kept = inventory.value("5-106-0-targetValue-23")
    assert kept is not None  # the value stays (its id is good); only the wrong field went
    assert inventory.value("6-37-0-targetValue") is not None
    answers = every_answer(inventory)
    assert any("Hall Switch" in a for a in answers)


def test_a_number_of_thousands_of_digits_drops_its_value_not_the_house(
    caplog: pytest.LogCaptureFixture,
) -> None:
    payload = house(value(value=0)).replace(b'"value": 0', b'"value": ' + b"9" * 5000)
    with caplog.at_level(logging.WARNING, logger="zwave_mcp.gateway.nodes"):
        inventory = loaded(payload)
    blind = inventory.value("5-106-0-targetValue-23")
    assert blind is not None and blind.value is None
    assert any("node 5, value 5-106-0-targetValue-23" in r.getMessage() for r in caplog.records)
    every_answer(inventory)


def test_a_value_topic_with_nan_is_not_json() -> None:
    for payload in (b"NaN", b'{"time": 1, "value": Infinity}', b'{"value": -Infinity, "nodeId": 2}'):
        assert isinstance(decode_value(payload), Undecodable), payload


def test_events_with_wrong_types_are_dropped_and_said(caplog: pytest.LogCaptureFixture) -> None:
    inventory = loaded(house(value()))
    added = {
        "data": [
            {"id": 5},
            {**value(newValue=3), "propertyKey": 13, "propertyKeyName": 5, "metadata": {"label": 9}},
        ]
    }
    updated = {"data": [{"id": 5}, {**value(), "newValue": 10**400}]}
    broken = {"data": [{"id": 5}, {**value(), "propertyKey": 22, "metadata": "x", "newValue": 1}]}
    with caplog.at_level(logging.WARNING):
        inventory.apply(EVENTS + "node_value_added", json.dumps(added).encode())
        inventory.apply(EVENTS + "node_value_updated", json.dumps(updated).encode())
        inventory.apply(EVENTS + "node_value_added", json.dumps(broken).encode())
        inventory.apply(EVENTS + "node_value_updated", b'{"data": [{"id": 5}, {"newValue": NaN}]}')
    lines = [r.getMessage() for r in caplog.records]
    assert any("value 5-106-0-targetValue-13: propertyKeyName is a number" in line for line in lines), lines
    assert any("value 5-106-0-targetValue-13: label is a number" in line for line in lines), lines
    assert any("value 5-106-0-targetValue-23: its new value: an integer beyond" in line for line in lines)
    assert any("value 5-106-0-targetValue-22: metadata is text" in line for line in lines), lines
    assert any("node_value_updated: not JSON" in line for line in lines), lines
    assert inventory.value("5-106-0-targetValue-23").value == 40  # type: ignore[union-attr]
    assert inventory.value("5-106-0-targetValue-13").property_key_name is None  # type: ignore[union-attr]
    every_answer(inventory)


def test_a_metadata_event_of_the_wrong_types_is_dropped_and_said(caplog: pytest.LogCaptureFixture) -> None:
    inventory = loaded(house(value()))
    event = {
        "data": [
            {"id": 5},
            {**value(), "metadata": {"label": 7, "min": "0", "writeable": "no", "unit": ["%"], "max": 50}},
        ]
    }
    with caplog.at_level(logging.WARNING, logger="zwave_mcp.gateway.nodes"):
        inventory.apply(EVENTS + "node_metadata_updated", json.dumps(event).encode())
    lines = [r.getMessage() for r in caplog.records]
    for said in ("metadata label is a number", "metadata min is text", "metadata writeable is text"):
        assert any(said in line and "value 5-106-0-targetValue-23" in line for line in lines), lines
    kept = inventory.value("5-106-0-targetValue-23")
    assert kept is not None and kept.label == "Target value - Horizontal Slats Angle" and kept.max == 50
    every_answer(inventory)
