"""Pure parts of the simulator: topic naming, payload encoding, houses, request parsing."""

from __future__ import annotations

from zwave_mcp.simulator import SimConfig, captured_house, generate_house
from zwave_mcp.simulator.api import parse_request
from zwave_mcp.simulator.naming import sanitize, value_topic
from zwave_mcp.simulator.payloads import value_payload
from zwave_mcp.simulator.simulator import parse_set_payload


def _node(node_id: int) -> dict:
    return next(n for n in captured_house() if n["id"] == node_id)


def test_topics_per_style() -> None:
    motion = _node(7)
    value = motion["values"]["113-0-Home Security-Motion sensor status"]
    assert (
        value_topic(motion, value, SimConfig())
        == "zwave/Garage/Garage_Motion/notification/endpoint_0/Home_Security/Motion_sensor_status"
    )
    assert (
        value_topic(motion, value, SimConfig(topics="valueid"))
        == "zwave/Garage/7/113/0/Home_Security/Motion_sensor_status"
    )
    blinds = _node(10)
    cur = blinds["values"]["106-0-currentValue-13"]
    assert (
        value_topic(blinds, cur, SimConfig(ignore_loc=True))
        == "zwave/Living_Room_Blinds/unknownClass_106/endpoint_0/currentValue/13"
    )
    assert sanitize("Air temperature (°C)/x") == "Air_temperature_C-x"


def test_payload_types() -> None:
    light = _node(2)
    cur = light["values"]["37-0-currentValue"]
    assert value_payload(cur, light, SimConfig(payload="raw")) == "false"
    assert value_payload({"lastUpdate": 5}, light, SimConfig(payload="raw")) == ""
    assert value_payload({"lastUpdate": 5}, light, SimConfig()) == '{"time":5}'
    obj = value_payload(cur, light, SimConfig(payload="object", include_node_info=True))
    assert '"nodeName":"Kitchen Light"' in obj and '"nodeLocation":"Kitchen"' in obj


def test_generated_house_is_deterministic_and_unique() -> None:
    house = generate_house(300, seed=3)
    assert house == generate_house(300, seed=3)
    ids = [n["id"] for n in house if not n.get("virtual") and n["id"] != 1]
    assert len(ids) == 300 and 255 not in ids and ids[0] == 2
    names = [n["name"] for n in house if n["id"] in ids]
    assert len(set(names)) == 300
    node = next(n for n in house if n["id"] == 300)
    assert all(v["nodeId"] == 300 and v["id"].startswith("300-") for v in node["values"].values())


def test_request_and_set_parsing() -> None:
    assert parse_request(b'{"args": 3}') == ({"args": 3}, None)
    assert parse_request(b'{"args": [') == ('{"args": [', [])
    assert parse_request(b"{}") == ({}, [])
    assert parse_set_payload(b"UNLOCK") == (False, None)
    assert parse_set_payload(b'{"value": 70, "options": {"transitionDuration": "2s"}}') == (
        70,
        {"transitionDuration": "2s"},
    )
