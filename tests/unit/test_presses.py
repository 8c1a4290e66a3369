"""Central Scene presses of a real remote (fixtures/devices: Aeotec WallMote Quad) as zwave-js-ui sends them:
on the value topic (unretained, cleared 1 s later) and as a `node_value_updated` event with `stateless`.
Each press is one event, a repeated press too; in words "button 2 was held"; stored by the recorder."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.unit.test_history_recorder import Clock
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.describe import change_phrase
from zwave_mcp.devices.presses import press_of
from zwave_mcp.gateway.model import InventoryEvent, ZValue
from zwave_mcp.gateway.state import Inventory
from zwave_mcp.gateway.topics import GatewayTopics
from zwave_mcp.history.recorder import Recorder
from zwave_mcp.history.words import describe_value
from zwave_mcp.simulator.dumps import load_house_file

WALLMOTE = Path(__file__).resolve().parents[2] / "fixtures" / "devices" / "wallmote_central_scene_state.json"
NODE = 35
TOPIC = f"zwave/{NODE}/91/0/scene/002"  # ValueID topics: <node>/<cc>/<endpoint>/<property>/<propertyKey>
EVENT = "zwave/_EVENTS/ZWAVE_GATEWAY-zwave-js-ui/node/node_value_updated"
BUTTON_2 = f"{NODE}-91-0-scene-002"


def inventory() -> tuple[Inventory, Clock]:
    clock = Clock()
    inv = Inventory(GatewayTopics(), clock=clock)
    inv.load_nodes(load_house_file(WALLMOTE))
    return inv, clock


def topic_press(inv: Inventory, value: int, time_ms: int) -> list[InventoryEvent]:
    return inv.apply(TOPIC, json.dumps({"time": time_ms, "value": value}).encode())


def event_press(inv: Inventory, value: int) -> list[InventoryEvent]:
    args: dict[str, Any] = {
        "commandClass": 91,
        "endpoint": 0,
        "property": "scene",
        "propertyKey": "002",
        "newValue": value,
        "prevValue": value,
        "stateless": True,
    }
    return inv.apply(EVENT, json.dumps({"data": [{"id": NODE, "name": "mbr_wallmote_quad"}, args]}).encode())


def test_every_press_is_one_momentary_change_even_a_repeated_one() -> None:
    inv, clock = inventory()
    first = topic_press(inv, 0, 1_800_000_000_000)
    assert [(c.value_id, c.new, c.momentary) for c in first] == [(BUTTON_2, 0, True)]
    assert event_press(inv, 0) == []  # the event zwave-js-ui sends right after the topic: the same press
    assert inv.apply(TOPIC, b'{"time":1800000001000}') == []  # zwave-js-ui's reset 1 s later: no report
    assert inv.value(BUTTON_2).value == 0  # type: ignore[union-attr]  # the last press stays
    clock.now += 5
    again = topic_press(inv, 0, 1_800_000_005_000)  # pressed again: the same value, a new press
    assert [(c.old, c.new, c.momentary) for c in again] == [(0, 0, True)]
    assert topic_press(inv, 0, 1_800_000_005_000) == []  # the same message redelivered
    clock.now += 5
    assert [c.new for c in event_press(inv, 2)] == [2]  # events alone (value topics off) count too
    clock.now += 5
    assert [c.new for c in event_press(inv, 2)] == [2]  # held again, later: a new press
    assert inv.apply(TOPIC, b'{"time":1800000009000,"value":1}', retain=True) == []  # a retained copy


def test_a_press_in_words() -> None:
    inv, _ = inventory()
    value = inv.value(BUTTON_2)
    assert isinstance(value, ZValue)
    assert [press_of(value, k).words() for k in (0, 1, 2, 3, 4)] == [  # type: ignore[union-attr]
        "button 2 was pressed",
        "button 2 was released",
        "button 2 was held",
        "button 2 was pressed twice",
        "button 2 was pressed 3 times",
    ]
    assert press_of(value, None) is None and press_of(value, True) is None
    (remote,) = [d for d in build_devices(list(inv.nodes.values())) if d.node_id == NODE]
    assert change_phrase(remote, value, 2) == "button 2 was held"
    phrase = describe_value(value, 2)
    assert (phrase.text, phrase.state, phrase.shown) == ("button 2 was held", "pressed", "held")


def test_the_recorder_stores_a_repeated_press(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    recorder = Recorder(str(path), clock=Clock())
    recorder.start()
    assert recorder.wait_open(5)
    try:
        inv, clock = inventory()
        inv.add_listener(recorder.on_change)
        topic_press(inv, 0, 1_800_000_000_000)
        clock.now += 5
        topic_press(inv, 0, 1_800_000_005_000)
        clock.now += 5
        topic_press(inv, 2, 1_800_000_010_000)
        assert recorder.flush()
    finally:
        recorder.stop()
    with sqlite3.connect(path) as conn:
        stored = conn.execute(
            "SELECT c.at, c.new FROM changes c JOIN series s ON s.id = c.series WHERE s.key = ? ORDER BY c.at",
            (BUTTON_2,),
        ).fetchall()
    assert stored == [(1_800_000_000_000, "0"), (1_800_000_005_000, "0"), (1_800_000_010_000, "2")]
