"""A 4,000-node house (~58k values) loads whole and every update lands on the value it names.

The house is generated from the captured nodes (getNodes.json), renamed per copy, so the value shapes
are real. The speed of the same load and ingest is measured in bench/ingest.py, against a baseline in
the same run; a unit test keeps no wall-clock budget (it failed on a busy 2-core machine at 1.08 s).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.unit.test_replay_data import getnodes
from zwave_mcp.gateway.state import Inventory
from zwave_mcp.gateway.topics import GatewayTopics, TopicStyle

NODES = 4000


def _big_house() -> list[dict[str, Any]]:
    templates = [n for n in getnodes() if n["id"] not in (1, 255)]
    house: list[dict[str, Any]] = []
    for i in range(NODES):
        node = copy.deepcopy(templates[i % len(templates)])
        old_id, new_id = node["id"], i + 2
        node["id"], node["name"], node["loc"] = new_id, f"{node['name']} {i}", f"Room {i % 97}"
        values = {}
        for value in node["values"].values():
            value["nodeId"] = new_id
            value["id"] = value["id"].replace(f"{old_id}-", f"{new_id}-", 1)
            values[value["id"]] = value
        node["values"] = values
        house.append(node)
    return house


def test_big_house_loads_whole_and_maps_every_update() -> None:
    house = _big_house()
    total_values = sum(len(n["values"]) for n in house)
    assert total_values > 50_000
    inv = Inventory(GatewayTopics())
    inv.load_nodes(house)
    assert len(inv.nodes) == NODES
    assert sum(len(n.values) for n in inv.nodes.values()) == total_values

    topics = GatewayTopics()
    messages: list[tuple[str, bytes, str]] = []
    nodes = list(inv.nodes.values())
    for i in range(20_000):
        node = nodes[(i * 7919) % len(nodes)]
        numeric = [v for v in node.values.values() if v.type in ("number", "any")]  # what `i` fits
        value = numeric[i % len(numeric)]
        style = (TopicStyle.NAMED, TopicStyle.VALUEID, TopicStyle.VALUEID_NAMES)[i % 3]
        payload = json.dumps({"time": 1_800_000_000_000 + i, "value": i}).encode()
        messages.append((topics.value_topic(node, value, style), payload, value.value_id))
    for topic, payload, _ in messages:
        inv.apply(topic, payload)
    assert inv.status.unmapped_count == 0
    for _topic, payload, value_id in messages[-50:]:
        assert inv.value(value_id).value == json.loads(payload)["value"]  # type: ignore[union-attr]
