"""Node data from zwave-js-ui (a getNodes reply, nodeinfo) with junk in it never breaks the house.

One node or value with a field of the wrong type or an absurd number must cost at most that field: the
rest of the reply still loads, every device is built, spoken, summarized and found by name. Before,
a `propertyKey` that was an object made every tool call crash (the device index could not be built), and
a `min` beyond any float lost the whole getNodes reply (the service stayed "unavailable").

The generated cases are seeded (the seed is in the test id), so a failure replays exactly.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tests.unit.test_devices_build import raw_nodes, raw_values
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.describe import sentence
from zwave_mcp.devices.resolve import DeviceIndex
from zwave_mcp.gateway.nodes import decode_with_values
from zwave_mcp.gateway.state import Inventory
from zwave_mcp.gateway.topics import GatewayTopics
from zwave_mcp.policy.text import check_text_argument
from zwave_mcp.server.tools.present import summarize
from zwave_mcp.server.tools.scenes import scenes_from

JUNK: list[Any] = [
    None,
    True,
    10**400,  # an integer no float can hold
    -(10**400),
    1e308,
    float("inf"),  # JSON Infinity, and what 1e400 reads as
    float("nan"),
    -1,
    "",
    "²",
    "\u202ex\n",
    {"a": 1},
    [1, [2]],
    [[[[{"a": "b"}]]]],
    "x" * 1000,
]
VALUE_KEYS = [
    "property",
    "propertyKey",
    "propertyName",
    "endpoint",
    "commandClass",
    "min",
    "max",
    "value",
    "label",
    "unit",
    "states",
    "ccSpecific",
    "lastUpdate",
    "type",
    "readable",
    "writeable",
    "default",
    "id",
]
NODE_KEYS = ["name", "loc", "status", "endpoints", "deviceClass", "lastActive", "values", "ready", "id"]


def _house_json(nodes: list[dict[str, Any]]) -> str:
    return json.dumps({"success": True, "result": nodes})


def _load(nodes: list[dict[str, Any]]) -> Inventory:
    """The reply as the gateway client loads it: decoded with its values, then into the picture."""
    decoded = decode_with_values(_house_json(nodes))
    inventory = Inventory(GatewayTopics("zwave"))
    inventory.load_nodes(decoded["result"])
    return inventory


def _speak_everything(inventory: Inventory) -> int:
    devices = build_devices(inventory.nodes.values())
    index = DeviceIndex(devices)
    for device in devices:
        assert sentence(device)
        json.dumps(summarize(device).model_dump(mode="json"))
        assert index.get(device.key) is device
    return len(devices)


def _mutated(seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    nodes = raw_nodes()
    for _ in range(12):
        node = rng.choice(nodes)
        raw = node.get("values")
        listed = list(raw.values()) if isinstance(raw, dict) else raw if isinstance(raw, list) else []
        values = [v for v in listed if isinstance(v, dict)]
        if values and rng.random() < 0.7:
            rng.choice(values)[rng.choice(VALUE_KEYS)] = rng.choice(JUNK)
        else:
            node[rng.choice(NODE_KEYS)] = rng.choice(JUNK)
    return nodes


def test_a_property_key_that_is_an_object_costs_only_that_value() -> None:
    nodes = raw_nodes()
    lamp = next(n for n in nodes if n["id"] == 3)
    raw_values(lamp)[0]["propertyKey"] = {"k": [1]}
    kitchen = next(n for n in nodes if n["id"] == 2)
    raw_values(kitchen)[0]["property"] = ["currentValue"]
    inventory = _load(nodes)
    assert _speak_everything(inventory) == _speak_everything(_load(raw_nodes()))


def test_times_no_clock_holds_are_no_times() -> None:
    """A 400-digit lastUpdate or lastActive was kept: every sentence about the device then raised."""
    nodes = raw_nodes()
    sensor = next(n for n in nodes if n["id"] == 4)
    for value in raw_values(sensor):
        value["lastUpdate"] = 10**400
    sensor["lastActive"] = 10**400
    inventory = _load(nodes)
    assert inventory.nodes[4].last_active_ms is None
    assert all(v.last_update_ms is None for v in inventory.nodes[4].values.values())
    _speak_everything(inventory)


def test_a_bound_beyond_any_float_costs_only_that_bound() -> None:
    nodes = raw_nodes()
    lamp = next(n for n in nodes if n["id"] == 3)
    level = next(v for v in raw_values(lamp) if v.get("property") == "targetValue")
    level["min"], level["max"] = 10**400, -(10**400)
    inventory = _load(nodes)
    assert set(inventory.nodes) == {n["id"] for n in raw_nodes()}, "the whole reply still loads"
    loaded = next(v for v in inventory.nodes[3].values.values() if v.property == "targetValue")
    assert loaded.min is None and loaded.max is None
    _speak_everything(inventory)


@pytest.mark.parametrize("seed", range(40))
def test_junk_anywhere_in_the_node_data_never_breaks_the_house(seed: int) -> None:
    inventory = _load(_mutated(seed))
    assert inventory.nodes, "the reply loaded"
    _speak_everything(inventory)


NAMES = {
    2: ("Lamp\u202eRTL\x00NUL\x07bell\nnew\tline", "Living\u200bRoom\u2028"),
    3: ("B" * 100_000, "X" * 100_000),
    4: ("\x00", "\x1b[31mred"),
    5: ("   ", " "),
}


def test_names_and_rooms_from_the_gateway_are_plain_text_people_can_type_back() -> None:
    """Control characters, bidirectional overrides and 100 kB names were spoken and offered as they
    came, and tool arguments refuse them: the name shown could not be said back."""
    nodes = raw_nodes()
    for node in nodes:
        if node["id"] in NAMES:
            node["name"], node["loc"] = NAMES[node["id"]]
    devices = build_devices(_load(nodes).nodes.values())
    index = DeviceIndex(devices)
    by_node = {d.node_id: d for d in devices}
    assert by_node[2].name == "LampRTLNULbell new line" and by_node[2].location == "Living\u200bRoom"
    assert by_node[4].name == "nodeID_4" and by_node[5].name == "nodeID_5"
    for device in devices:
        for text in (device.location, sentence(device)):  # no control characters, no overrides
            check_text_argument("text", text, max_len=10_000)
        check_text_argument("deviceName", device.name)  # and short enough to be said back
        if device.endpoint is None:
            assert index.resolve(device.name) is device


def test_scene_labels_from_the_gateway_are_plain_text() -> None:
    raw = [
        {"sceneid": 1, "label": "\u202eMovie\nNight\x00", "values": "not a list"},
        {"sceneid": 2, "label": "   "},
        {"sceneid": 3, "label": "N" * 100_000},
    ]
    labels = [scene.label for scene in scenes_from(raw, lambda _value_id: True)]
    assert labels == ["Movie Night", "Scene 2", "N" * 199 + "…"]
