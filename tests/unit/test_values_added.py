"""Issue 44, item 10: a flood of made-up `node_value_added` events cannot grow the picture without end."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from tests.unit.test_replay_data import getnodes
from zwave_mcp.gateway.state import ADDED_DROPS_TOLD_EVERY_S, MAX_VALUES_ADDED, Inventory
from zwave_mcp.gateway.topics import GatewayTopics

EV = "zwave/_EVENTS/ZWAVE_GATEWAY-zwave-js-ui/node"


def _added(node_id: int, n: int, event: str = "node_value_added") -> tuple[str, bytes]:
    args = {"commandClass": 49, "endpoint": 0, "property": f"Made-up {n}", "newValue": n}
    return f"{EV}/{event}", json.dumps({"data": [{"id": node_id}, args]}).encode()


def _flood(inv: Inventory, node_id: int, count: int, start: int = 0, event: str = "node_value_added") -> None:
    for n in range(start, start + count):
        inv.apply(*_added(node_id, n, event))


@pytest.fixture
def now() -> list[float]:
    return [1_800_000_000.0]


@pytest.fixture
def inv(now: list[float]) -> Inventory:
    inventory = Inventory(GatewayTopics(), clock=lambda: now[0])
    inventory.load_nodes(getnodes())
    return inventory


def test_a_node_gains_at_most_the_bound_from_events(inv: Inventory) -> None:
    loaded = len(inv.nodes[8].values)
    _flood(inv, 8, 3 * MAX_VALUES_ADDED)
    assert len(inv.nodes[8].values) == loaded + MAX_VALUES_ADDED
    assert inv.status.added_dropped_count == 2 * MAX_VALUES_ADDED
    # Every other node keeps its own room: a flood on one node does not starve the others.
    before = len(inv.nodes[2].values)
    _flood(inv, 2, 3)
    assert len(inv.nodes[2].values) == before + 3


def test_updates_and_metadata_of_unknown_values_count_too(inv: Inventory) -> None:
    loaded = len(inv.nodes[8].values)
    _flood(inv, 8, MAX_VALUES_ADDED, event="node_value_updated")
    _flood(inv, 8, 10, start=MAX_VALUES_ADDED, event="node_metadata_updated")
    assert len(inv.nodes[8].values) == loaded + MAX_VALUES_ADDED


def test_values_the_picture_has_are_still_updated_past_the_bound(inv: Inventory) -> None:
    _flood(inv, 8, MAX_VALUES_ADDED + 5)
    assert inv.value("8-49-0-Made-up 3").value == 3  # type: ignore[union-attr]
    changes = inv.apply(*_added(8, 3))  # the same value again, now with 3: no change
    assert changes == []
    topic, payload = _added(8, 3, "node_value_updated")
    inv.apply(topic, payload.replace(b'"newValue": 3', b'"newValue": 33'))
    assert inv.value("8-49-0-Made-up 3").value == 33  # type: ignore[union-attr]


def test_a_load_gives_every_node_its_room_again(inv: Inventory) -> None:
    _flood(inv, 8, MAX_VALUES_ADDED + 1)
    inv.load_nodes(getnodes())  # what the node really has
    loaded = len(inv.nodes[8].values)
    _flood(inv, 8, 10, start=10_000)
    assert len(inv.nodes[8].values) == loaded + 10


def test_drops_are_told_in_one_line_a_minute(
    inv: Inventory, now: list[float], caplog: pytest.LogCaptureFixture
) -> None:
    def lines() -> list[logging.LogRecord]:
        return [r for r in caplog.records if "beyond" in r.getMessage()]

    with caplog.at_level(logging.WARNING, logger="zwave_mcp.gateway.state"):
        _flood(inv, 8, MAX_VALUES_ADDED + 1000)
        assert len(lines()) == 1  # a thousand dropped, one line
        assert "dropped 1 value" in lines()[0].getMessage()
        now[0] += ADDED_DROPS_TOLD_EVERY_S - 1
        _flood(inv, 8, 500, start=5_000)
        assert len(lines()) == 1
        now[0] += 1
        _flood(inv, 8, 1, start=9_000)
        told: Any = lines()
        assert len(told) == 2
        assert "dropped 1500 value(s)" in told[1].getMessage()  # 999 + 500 untold before, and this one


def test_a_load_forgets_the_presses_heard_before_it(inv: Inventory, now: list[float]) -> None:
    """Each press heard is kept a second to tell its echo; the ids of values gone stayed for good."""
    for n in range(50):
        topic, payload = _added(8, n)
        inv.apply(topic, payload.replace(b'"newValue"', b'"stateless": true, "newValue"'))
    assert len(inv._presses_heard) == 50
    now[0] += 2
    inv.load_nodes(getnodes())
    assert inv._presses_heard == {}
