"""Acceptance: the recorded topics alone rebuild the picture that `getNodes` reports.

For each capture the values are wiped, the capture is replayed up to its write session, and every value
is compared with `getNodes.json`. Where a value genuinely differs (b, c and fault were recorded after
other sessions had changed the house), the expected value is the last payload published on that
value's topic in the capture, decoded here by hand, independently of `payloads.py` and of the index.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.unit.test_replay_data import api_calls, capture, first_write_t, getnodes
from zwave_mcp.gateway.state import Inventory
from zwave_mcp.gateway.topics import GatewayTopics, TopicStyle

WIPED = object()
STYLE = {
    "a": TopicStyle.NAMED,
    "b": TopicStyle.VALUEID,
    "c": TopicStyle.VALUEID_NAMES,
    "fault": TopicStyle.NAMED,
}
PAYLOAD = {"a": "timevalue", "b": "raw", "c": "object", "fault": "timevalue"}
MISSING = object()


def _decode_by_hand(kind: str, text: str) -> Any:
    if kind == "raw":
        return None if text == "" else json.loads(text)
    obj = json.loads(text)
    return obj.get("value")  # timevalue and object: a missing key means undefined (None)


def _replay(key: str, until: float | None) -> Inventory:
    inv = Inventory(GatewayTopics())
    inv.load_nodes(getnodes())
    for node in inv.nodes.values():
        for value in node.values.values():
            value.value = WIPED
    for msg in capture(key):
        if until is not None and msg["t"] >= until:
            continue
        inv.apply(msg["topic"], msg["payload"].encode(), retain=False)
    return inv


@pytest.mark.parametrize("key", ["a", "b", "c", "fault"])
def test_replay_until_writes_rebuilds_every_value(key: str) -> None:
    cutoff = first_write_t(key)
    inv = _replay(key, cutoff)
    reference = Inventory(GatewayTopics())
    reference.load_nodes(getnodes())
    topics = GatewayTopics()

    last_payload: dict[str, str] = {}
    for msg in capture(key):
        if msg["t"] < cutoff:
            last_payload[msg["topic"]] = msg["payload"]

    genuine: dict[str, Any] = {}
    for node in inv.nodes.values():
        for value in node.values.values():
            assert value.value is not WIPED, f"{key}: {value.value_id} was never set from the topics"
            published = last_payload.get(topics.value_topic(node, value, STYLE[key]), MISSING)
            ref = reference.value(value.value_id)
            assert ref is not None
            by_hand = ref.value if published is MISSING else _decode_by_hand(PAYLOAD[key], str(published))
            expected = by_hand
            assert value.value == expected, f"{key}: {value.value_id}"
            if expected != ref.value:
                genuine[value.value_id] = expected
    assert inv.status.unmapped_count == 0
    assert inv.status.undecodable_count == 0
    if key == "a":
        assert genuine == {}, "getNodes.json was taken during capture a: nothing may differ"
    else:
        # Those captures ran after other write sessions; the house really changed in between.
        assert genuine, f"{key}: expected the differences the earlier sessions left behind"


def test_replay_b_shows_the_wake_up_interval_written_in_capture_a() -> None:
    # Capture a ends by writing wakeUpInterval 7200 to the sleeping node (answered at t=231.1).
    written = next(
        c
        for c in reversed(api_calls("a"))
        if c.get("api") == "writeValue" and "wakeUpInterval" in c["request_payload"]
    )
    target = json.loads(written["request_payload"])["args"][1]
    inv = _replay("b", first_write_t("b"))
    value = inv.value("4-132-0-wakeUpInterval")
    assert value is not None and value.value == target
    ref = Inventory(GatewayTopics())
    ref.load_nodes(getnodes())
    assert ref.value("4-132-0-wakeUpInterval").value != target  # type: ignore[union-attr]


def _last_status_texts(key: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for msg in capture(key):
        if (
            msg["topic"].endswith("/status")
            and "_CLIENTS" not in msg["topic"]
            and msg["payload"].startswith("{")
        ):
            obj = json.loads(msg["payload"])
            out[obj["nodeId"]] = obj["status"]
    return out


@pytest.mark.parametrize("key", ["0", "a", "b", "c", "fault"])
def test_whole_capture_replays_without_raising(key: str) -> None:
    inv = _replay(key, None)
    assert inv.status.messages_seen == len(capture(key))
    assert inv.status.undecodable_count == 0


@pytest.mark.parametrize("key", ["a", "c", "fault"])
def test_node_statuses_end_as_the_capture_says(key: str) -> None:
    inv = _replay(key, None)
    expected = _last_status_texts(key)
    assert expected
    assert {nid: inv.nodes[nid].status for nid in expected} == expected


def test_fault_capture_ends_with_dead_nodes_and_sleeping_sensor() -> None:
    inv = _replay("fault", None)
    dead = {nid for nid, text in _last_status_texts("fault").items() if text == "Dead"}
    assert dead, "the fault capture declares nodes dead"
    assert {n.id for n in inv.nodes.values() if n.status == "Dead"} == dead
    assert all(not inv.nodes[nid].available for nid in dead)
    assert inv.nodes[4].status == "Asleep"


def test_raw_capture_status_is_only_availability() -> None:
    # b publishes node status as bare true/false: nodes that stayed available must not turn Dead.
    inv = _replay("b", None)
    last_raw: dict[str, str] = {}
    for msg in capture("b"):
        if (
            msg["topic"].endswith("/status")
            and "_CLIENTS" not in msg["topic"]
            and "driver" not in msg["topic"]
        ):
            last_raw[msg["topic"]] = msg["payload"]
    assert set(last_raw.values()) <= {"true", "false"}
    assert all(n.status != "Dead" for n in inv.nodes.values()) == ("false" not in last_raw.values())


def test_gateway_status_follows_capture_a_restarts() -> None:
    msgs = capture("a")
    will_t = next(
        m["t"]
        for m in msgs
        if m["topic"].endswith("ZWAVE_GATEWAY-zwave-js-ui/status") and m["payload"] == '{"value":false}'
    )
    inv = _replay("a", will_t + 0.001)
    assert inv.status.client_online is False
    assert inv.status.will_received is True
    inv = _replay("a", None)
    last_driver = next(m["payload"] for m in reversed(msgs) if m["topic"] == "zwave/driver/status")
    assert inv.status.driver_ready is json.loads(last_driver)
    assert inv.status.client_online is True and inv.status.will_received is False
    assert inv.status.version == "11.22.2"
    assert inv.status.controller_status == "ready"  # status_changed [1] then [0] at t≈174


def test_rename_in_capture_a_is_followed() -> None:
    # t≈90: node 11 renamed "Porch Lights"; its next update is published under the new name only.
    msgs = capture("a")
    rename_t = next(
        c["t_request"]
        for c in api_calls("a")
        if c.get("api") == "setNodeName" and "Porch Lights" in c["request_payload"]
    )
    new_name_msgs = [m for m in msgs if "/Porch_Lights/" in m["topic"] and not m["topic"].endswith("/set")]
    assert new_name_msgs
    inv = Inventory(GatewayTopics())
    inv.load_nodes(getnodes())
    seen_names: list[str] = []
    for msg in msgs:
        inv.apply(msg["topic"], msg["payload"].encode())
        if rename_t < msg["t"] < rename_t + 10:
            seen_names.append(inv.nodes[11].name)
    assert "Porch Lights" in seen_names
    assert inv.nodes[11].name == "Porch Double Switch"  # renamed back at t≈101
    assert inv.status.unmapped_count == 0
