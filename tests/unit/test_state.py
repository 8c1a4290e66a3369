"""Inventory: routing of topics and events into the picture, listeners, history, stale/unknown topics."""

from __future__ import annotations

import json
from typing import Any

from tests.unit.test_replay_data import getnodes
from zwave_mcp.gateway.model import InventoryEvent
from zwave_mcp.gateway.payloads import PayloadType
from zwave_mcp.gateway.state import Inventory
from zwave_mcp.gateway.topics import GatewayTopics

EV = "zwave/_EVENTS/ZWAVE_GATEWAY-zwave-js-ui"
LIGHT = "zwave/Kitchen/Kitchen_Light/switch_binary/endpoint_0/currentValue"


def _inv(payload_type: PayloadType = PayloadType.AUTO, **kw: Any) -> Inventory:
    inv = Inventory(GatewayTopics(), payload_type, **kw)
    inv.load_nodes(getnodes())
    return inv


def _event(scope: str, name: str, *data: Any) -> tuple[str, bytes]:
    return f"{EV}/{scope}/{name}", json.dumps({"data": list(data)}).encode()


def test_load_nodes_builds_the_picture() -> None:
    inv = _inv()
    assert set(inv.nodes) == {raw["id"] for raw in getnodes()}
    assert inv.node(2) is not None and inv.node(2).name == "Kitchen Light"  # type: ignore[union-attr]
    assert inv.value("8-50-0-value-66049") is not None
    assert inv.value("99-37-0-currentValue") is None and inv.value("garbage") is None


def test_value_update_sets_value_and_time_and_emits_change() -> None:
    inv = _inv()
    got: list[InventoryEvent] = []
    inv.add_listener(got.append)
    changes = inv.apply(LIGHT, b'{"time":1800000000000,"value":true}')
    assert changes == got and len(got) == 1
    value = inv.value("2-37-0-currentValue")
    assert value is not None and value.value is True and value.last_update_ms == 1800000000000
    assert (got[0].kind, got[0].old, got[0].new, got[0].value_id) == (
        "value",
        False,
        True,
        "2-37-0-currentValue",
    )
    # Same value and time again: nothing changed.
    assert inv.apply(LIGHT, b'{"time":1800000000000,"value":true}') == []
    # Same value, new report time: a waiter must see the fresh report.
    assert len(inv.apply(LIGHT, b'{"time":1800000001000,"value":true}')) == 1


def test_raw_empty_payload_removes_value() -> None:
    inv = _inv()
    topic = "zwave/Kitchen/8/50/0/value/66049"
    inv.apply(topic, b"1207.7")
    assert inv.value("8-50-0-value-66049").value == 1207.7  # type: ignore[union-attr]
    changes = inv.apply(topic, b"", retain=True)
    assert [(c.kind, c.old, c.new) for c in changes] == [("removed", 1207.7, None)]
    assert inv.value("8-50-0-value-66049").value is None  # type: ignore[union-attr]


def test_node_status_object_and_raw() -> None:
    inv = _inv()
    changes = inv.apply(
        "zwave/Bedroom/Bedroom_Color_Bulb/status", b'{"time":1,"value":false,"status":"Dead","nodeId":9}'
    )
    assert [(c.kind, c.node_id, c.new) for c in changes] == [("status", 9, "Dead")]
    assert inv.nodes[9].available is False
    inv.apply("zwave/Bedroom/9/status", b"true")  # raw: only availability
    assert inv.nodes[9].status == "Alive"
    inv.apply("zwave/Bedroom/4/status", b"true")
    assert inv.nodes[4].status == "Asleep"  # a raw `true` does not wake a sleeping node up
    inv.apply("zwave/Entry/5/status", b"false")
    assert inv.nodes[5].status == "Dead"


def test_last_active_and_nodeinfo() -> None:
    inv = _inv()
    assert inv.apply("zwave/Garage/7/lastActive", b"1795313777258") == []
    assert inv.nodes[7].last_active_ms == 1795313777258
    info = {"id": 7, "name": "Garage Sensor", "loc": "Garage", "status": "Alive", "ready": True}
    changes = inv.apply("zwave/Garage/Garage_Motion/nodeinfo", json.dumps(info).encode())
    assert [c.kind for c in changes] == ["node"]
    assert inv.nodes[7].name == "Garage Sensor"
    inv.apply("zwave/Garage/Garage_Sensor/sensor_binary/endpoint_0/Motion", b'{"time":5,"value":true}')
    assert inv.value("7-48-0-Motion").value is True  # type: ignore[union-attr]


def test_stale_topics_under_an_old_name_are_ignored() -> None:
    inv = _inv()
    inv.apply(
        *_event("node", "node_value_updated", {"id": 11, "name": "Porch Lights", "location": "Porch"}, {})
    )
    assert inv.nodes[11].name == "Porch Lights"
    old = "zwave/Porch/Porch_Double_Switch/switch_binary/endpoint_1/currentValue"
    assert inv.apply(old, b'{"time":1,"value":true}', retain=True) == []
    assert inv.status.stale_count == 1
    assert inv.value("11-37-1-currentValue").value is False  # type: ignore[union-attr]
    new = "zwave/Porch/Porch_Lights/switch_binary/endpoint_1/currentValue"
    assert len(inv.apply(new, b'{"time":2,"value":true}')) == 1


def test_live_object_payload_on_unknown_topic_teaches_the_new_name() -> None:
    inv = _inv(PayloadType.OBJECT)
    obj = {
        "id": "2-37-0-currentValue",
        "nodeId": 2,
        "commandClass": 37,
        "endpoint": 0,
        "property": "currentValue",
        "value": True,
        "lastUpdate": 9,
        "nodeName": "Pantry Light",
        "nodeLocation": "Kitchen",
    }
    topic = "zwave/Kitchen/Pantry_Light/37/0/currentValue"
    # Retained (possibly a stale leftover): not trusted.
    assert inv.apply(topic, json.dumps(obj).encode(), retain=True) == []
    assert inv.status.unmapped_count == 1 and inv.nodes[2].name == "Kitchen Light"
    # Live: mapped by its id, and the node's new name is learned.
    changes = inv.apply(topic, json.dumps(obj).encode(), retain=False)
    assert [c.kind for c in changes] == ["node", "value"]
    assert inv.nodes[2].name == "Pantry Light"
    assert inv.index.resolve("Kitchen/Pantry_Light/37/0/targetValue") is not None


def test_events_node_value_updated_and_added() -> None:
    inv = _inv()
    summary = {"id": 6, "name": "Hallway Thermostat", "location": "Hallway", "status": 4}
    args = {"commandClass": 67, "endpoint": 0, "property": "setpoint", "propertyKey": 1, "newValue": 21.5}
    changes = inv.apply(*_event("node", "node_value_updated", summary, args))
    assert [(c.value_id, c.new) for c in changes] == [("6-67-0-setpoint-1", 21.5)]
    added = {
        "commandClass": 119,
        "property": "name",
        "newValue": "Hallway Thermostat",
        "propertyName": "name",
    }
    inv.apply(*_event("node", "node_value_added", summary, added))
    assert inv.value("6-119-0-name").value == "Hallway Thermostat"  # type: ignore[union-attr]
    meta = {"commandClass": 119, "property": "name", "metadata": {"label": "Node name", "writeable": True}}
    inv.apply(*_event("node", "node_metadata_updated", summary, meta))
    assert inv.value("6-119-0-name").label == "Node name"  # type: ignore[union-attr]


def test_status_events() -> None:
    inv = _inv()
    for name, status in (
        ("node_dead", "Dead"),
        ("node_alive", "Alive"),
        ("node_wakeup", "Awake"),
        ("node_sleep", "Asleep"),
    ):
        inv.apply(*_event("node", name, {"id": 4}))
        assert inv.nodes[4].status == status
    inv.nodes[3].ready = False
    changes = inv.apply(*_event("node", "node_ready", {"id": 3, "status": 4}))
    assert inv.nodes[3].ready is True and any(c.kind == "node" for c in changes)
    assert inv.apply(*_event("node", "node_dead", {"id": 999})) == []


def test_gateway_status() -> None:
    inv = _inv()
    client = "zwave/_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui/status"
    inv.apply(client, b'{"value":true,"time":1795313421646}')
    assert inv.status.client_online is True and inv.status.client_status_time_ms == 1795313421646
    inv.apply(client, b'{"value":false}')
    assert inv.status.client_online is False and inv.status.will_received is True
    inv.apply("zwave/_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui/version", b'{"value":"11.22.2","time":1}')
    assert inv.status.version == "11.22.2"
    inv.apply("zwave/driver/status", b"false")
    assert inv.status.driver_ready is False
    inv.apply(*_event("driver", "driver_ready", {"homeid": 1}))
    assert inv.status.driver_ready is True
    inv.apply(*_event("driver", "driver_error", {"message": "Failed to open the serial port", "code": 100}))
    assert inv.status.last_driver_error == "Failed to open the serial port"
    inv.apply(*_event("controller", "status_changed", 1))
    assert inv.status.controller_status == "unresponsive"
    inv.apply(*_event("controller", "status_changed", 0))
    assert inv.status.controller_status == "ready"


def test_driver_evidence_from_the_api_and_all_nodes_ready_are_changes() -> None:
    inv = _inv()
    seen: list[InventoryEvent] = []
    inv.add_listener(seen.append)
    inv.apply("zwave/driver/status", b"true")  # maybe a stale retained one
    inv.set_driver_ready(False)  # the API answered "Z-Wave client not connected": newer, so it wins
    assert inv.status.driver_ready is False
    inv.set_driver_ready(False)  # no news, no change
    inv.apply(*_event("driver", "all_nodes_ready"))
    inv.apply(*_event("driver", "all_nodes_ready"))
    assert [(c.value_id, c.old, c.new) for c in seen] == [
        ("driver_ready", None, True),
        ("driver_ready", True, False),
        ("all_nodes_ready", False, True),
    ]


def test_ignored_and_garbage_messages_never_raise() -> None:
    inv = _inv()
    ignored = [
        ("zwave/_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui/api/getNodes", b'{"success":true}'),
        ("zwave/Kitchen/Kitchen_Light/switch_binary/endpoint_0/targetValue/set", b"true"),
        ("other/topic", b"x"),
        ("zwave/Nowhere/Nobody/status", b"true"),
    ]
    for topic, payload in ignored:
        assert inv.apply(topic, payload) == []
    for payload in (b"\xff", b"{", b"[]", b'{"data": 5}', b"1" * (2 << 20)):
        for topic in (
            LIGHT,
            "zwave/Kitchen/Kitchen_Light/status",
            f"{EV}/node/node_dead",
            "zwave/driver/status",
        ):
            inv.apply(topic, payload)
    assert inv.status.undecodable_count >= 3 * 4  # the three undecodable payloads on every topic
    assert inv.status.messages_seen == len(ignored) + 5 * 4
    # In AUTO mode `[]`/`{"data": 5}` on a value topic are well-formed raw values, but no boolean value
    # holds a list or an object: dropped at the edge (issue 44), the light stays as it was.
    assert inv.value("2-37-0-currentValue").value is False  # type: ignore[union-attr]
    pinned = _inv(PayloadType.TIMEVALUE)
    for payload in (b"[]", b'{"data": 5}', b"\xff"):
        assert pinned.apply(LIGHT, payload) == []
    assert pinned.value("2-37-0-currentValue").value is False  # type: ignore[union-attr]
    assert pinned.status.undecodable_count == 3


def test_listeners_unsubscribe_and_failures() -> None:
    inv = _inv()
    got: list[InventoryEvent] = []

    def broken(change: InventoryEvent) -> None:
        raise RuntimeError("listener bug")

    inv.add_listener(broken)
    unsubscribe = inv.add_listener(got.append)
    inv.apply(LIGHT, b'{"time":1,"value":true}')
    assert len(got) == 1
    unsubscribe()
    unsubscribe()  # twice is harmless
    inv.apply(LIGHT, b'{"time":2,"value":false}')
    assert len(got) == 1
    inv.load_nodes(getnodes())  # listeners survive a reload
    assert inv.value("2-37-0-currentValue").value is False  # type: ignore[union-attr]


def test_history_is_bounded_and_timestamped() -> None:
    now = [1000.0]
    inv = _inv(history_size=3, clock=lambda: now[0])
    for i in range(5):
        now[0] += 10
        inv.apply(LIGHT, json.dumps({"time": i, "value": i % 2 == 0}).encode())
    assert len(inv.history) == 3
    assert [r.at for r in inv.history] == [1030.0, 1040.0, 1050.0]


def test_getnodes_decoded_with_values_loads_the_same_picture():
    """The memory-saving decoder (values become ZValues while decoding) gives the same inventory."""
    import json as _json
    from pathlib import Path as _Path

    from zwave_mcp.gateway.nodes import decode_with_values
    from zwave_mcp.gateway.state import Inventory as _Inventory
    from zwave_mcp.gateway.topics import GatewayTopics as _Topics

    text = (_Path(__file__).parents[2] / "fixtures" / "recorded" / "getNodes.json").read_text()
    plain, hooked = _Inventory(_Topics()), _Inventory(_Topics())
    plain.load_nodes(_json.loads(text))
    hooked.load_nodes(decode_with_values(text))
    assert plain.nodes.keys() == hooked.nodes.keys()
    for node_id, node in plain.nodes.items():
        assert hooked.nodes[node_id].values == node.values
        assert hooked.nodes[node_id].name == node.name
    assert sum(len(n.values) for n in hooked.nodes.values()) > 100


def test_metadata_with_absurd_numbers_and_text_is_applied_not_lost(caplog: Any) -> None:
    """A bound beyond any float or a state key int() refuses ("²") threw the whole message away with a
    traceback in the log; a label or unit with control characters reached spoken sentences."""
    inv = _inv()
    summary = {"id": 6, "name": "Hallway Thermostat", "location": "Hallway", "status": 4}
    metadata = {
        "min": 10**400,
        "max": 30,
        "states": {"\u00b2": "two", "--5": "x", "1": "one\n"},
        "label": "\u202eSetpoint\x00",
        "unit": "°C\n\x1b[31m",
    }
    meta = {"commandClass": 67, "endpoint": 0, "property": "setpoint", "propertyKey": 1, "metadata": metadata}
    with caplog.at_level("WARNING"):
        inv.apply(*_event("node", "node_metadata_updated", summary, meta))
    # No traceback: one line for the bound no JavaScript number can be (the edge drops it), nothing else.
    assert [r.getMessage() for r in caplog.records] == [
        "dropped what zwave-js cannot have sent: node 6, value 6-67-0-setpoint-1: metadata min is an "
        "integer beyond any number zwave-js has"
    ]
    assert all(r.exc_info is None for r in caplog.records)
    value = inv.value("6-67-0-setpoint-1")
    assert value is not None
    assert (value.min, value.max) == (None, 30.0)
    assert [(s.value, s.text) for s in value.states] == [("\u00b2", "two"), ("--5", "x"), (1, "one")]
    assert value.label == "Setpoint" and value.unit == "°C [31m"


def test_a_room_cleared_in_zwave_js_ui_is_learned_from_the_naming_value() -> None:
    """zwave-js-ui publishes a rename only as a Node Naming and Location value event; its node summary
    leaves "location" out when the room is cleared, so only the value says the room is gone."""
    inv = _inv()
    assert inv.nodes[6].location == "Hallway"
    summary = {"id": 6, "name": "Hallway Thermostat", "status": 4}
    cleared = {"commandClass": 119, "property": "location", "newValue": "", "prevValue": "Hallway"}
    changes = inv.apply(*_event("node", "node_value_updated", summary, cleared))
    assert inv.nodes[6].location == ""
    assert [c.new for c in changes if c.kind == "node"] == [{"name": "Hallway Thermostat", "location": ""}]
