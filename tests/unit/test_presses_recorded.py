"""Central Scene presses as the real zwave-js-ui 11.22.2 sent them (fixtures/recorded/realgw_central_scene_presses.json):
each press on the value topic (not retained) and then as a `node_value_updated` event (`stateless: true`, a
`value`, no `endpoint` and no `prevValue`), and the value cleared 1 s later (`{"time": …}` with no value in
time-value payloads, an empty payload in raw ones). Every press, a repeated one too, is one momentary change."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.unit.test_history_recorder import Clock
from zwave_mcp.devices.presses import press_of
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.gateway.state import Inventory
from zwave_mcp.gateway.topics import GatewayTopics

RECORDED = Path(__file__).resolve().parents[2] / "fixtures" / "recorded" / "realgw_central_scene_presses.json"
DATA: dict[str, Any] = json.loads(RECORDED.read_text(encoding="utf-8"))


def replay(config: str) -> tuple[Inventory, list[tuple[str | None, Any, str]]]:
    """The recorded messages of one gateway config through an inventory: (value id, new, topic kind) of
    every momentary change."""
    recorded = DATA["presses"][config]
    node = copy.deepcopy(DATA["node"])
    node.update({k: recorded[k] for k in ("name", "loc") if k in recorded})
    clock = Clock()
    inv = Inventory(GatewayTopics(), clock=clock)
    inv.load_nodes([node])
    start = clock.now
    presses = []
    for at, topic, payload in recorded["messages"]:
        clock.now = start + at
        kind = "event" if "/_EVENTS/" in topic else "topic"
        for change in inv.apply(topic, payload.encode()):
            assert change.momentary, change
            presses.append((change.value_id, change.new, kind))
    return inv, presses


def test_named_time_value_topics_every_press_once_the_event_and_the_reset_are_no_press() -> None:
    inv, presses = replay("a")
    assert presses == [
        ("12-91-0-scene-001", 0, "topic"),
        ("12-91-0-scene-001", 0, "topic"),  # pressed again: the same value, a new press
        ("12-91-0-scene-002", 2, "topic"),
        ("12-91-0-scene-002", 1, "topic"),  # released 4 ms after held: its own press
        ("12-91-0-scene-002", 3, "topic"),
    ]
    button = inv.value("12-91-0-scene-002")
    assert isinstance(button, ZValue) and button.value == 3  # the reset 1 s later leaves the last press
    assert press_of(button, 3).words() == "button 2 was pressed twice"  # type: ignore[union-attr]


@pytest.mark.parametrize("config", ["a", "b"])
def test_the_events_alone_are_the_presses_too(config: str) -> None:
    """With the value topics missed (a client subscribed to events only), each event is one press."""
    recorded = DATA["presses"][config]
    events_only = [m for m in recorded["messages"] if "/_EVENTS/" in m[1]]
    node = copy.deepcopy(DATA["node"])
    clock = Clock()
    inv = Inventory(GatewayTopics(), clock=clock)
    inv.load_nodes([node])
    start = clock.now
    news = []
    for at, topic, payload in events_only:
        clock.now = start + at
        news += [c.new for c in inv.apply(topic, payload.encode()) if c.momentary]
    assert news == [json.loads(p)["data"][1]["value"] for _, _, p in events_only]


def test_raw_valueid_topics_the_empty_reset_is_no_press() -> None:
    _, presses = replay("b")
    assert presses == [("12-91-0-scene-001", 0, "topic")]
