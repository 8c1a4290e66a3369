"""Topic grammar: sanitizing, fixed topics, classification and the value-topic index, against the captures."""

from __future__ import annotations

import json

import pytest

from tests.unit.test_replay_data import api_calls, capture, getnodes
from zwave_mcp.gateway.model import ZNode
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.gateway.topics import (
    GatewayTopics,
    TopicInfo,
    TopicKind,
    TopicStyle,
    ValueTopicIndex,
    sanitize_level,
)
from zwave_mcp.zwave.classes import cc_topic_name

STYLE = {"a": TopicStyle.NAMED, "b": TopicStyle.VALUEID, "c": TopicStyle.VALUEID_NAMES}


def _nodes() -> dict[int, ZNode]:
    out = {}
    for raw in getnodes():
        node = parse_node(raw)
        assert node is not None
        out[node.id] = node
    return out


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Air temperature", "Air_temperature"),
        ("Living Room", "Living_Room"),
        ("Motion sensor status", "Motion_sensor_status"),
        ("in/out", "in-out"),
        ("Café Ñandú", "Café_Ñandú"),
        ("a\tb\nc", "a_b_c"),
        ("lamp (1) #2 ×", "lamp_1_2_"),
        ("€uro—dash", "urodash"),
        (66049, "66049"),
        ("zwave-js-ui", "zwave-js-ui"),
    ],
)
def test_sanitize_level(raw: object, expected: str) -> None:
    assert sanitize_level(raw) == expected


def test_fixed_topics_match_the_captures() -> None:
    t = GatewayTopics()
    call = next(c for c in api_calls("a") if c.get("api") == "getInfo")
    assert t.api_request("getInfo") == call["request_topic"]
    assert t.api_reply("getInfo") == call["response_topic"]
    topics = {m["topic"] for m in capture("a")}
    assert {t.client_status, t.client_version, t.driver_status} <= topics
    assert any(x.startswith(t.events_prefix + "/node/") for x in topics)
    assert t.subscriptions() == ["zwave/#"]


def test_gateway_name_and_prefix_are_sanitized_and_trimmed() -> None:
    t = GatewayTopics(prefix="home/zw/", gateway_name="My GW!")
    assert t.client_status == "home/zw/_CLIENTS/ZWAVE_GATEWAY-My_GW/status"
    assert t.classify("home/zw/_CLIENTS/ZWAVE_GATEWAY-My_GW/api/getNodes").name == "getNodes"
    assert t.classify("zwave/Kitchen/2/status").kind is TopicKind.FOREIGN


def _expected_kind(topic: str) -> TopicKind:
    if not topic.startswith("zwave/"):
        return TopicKind.FOREIGN
    if topic.endswith("/set"):
        return TopicKind.SET_REQUEST
    if "/api/" in topic:
        return TopicKind.API_REPLY
    if topic.startswith("zwave/_CLIENTS/"):
        last = topic.rsplit("/", 1)[-1]
        return {"status": TopicKind.CLIENT_STATUS, "version": TopicKind.CLIENT_VERSION}.get(
            last, TopicKind.FOREIGN
        )
    if topic.startswith("zwave/_EVENTS/"):
        return TopicKind.EVENT
    if topic == "zwave/driver/status":
        return TopicKind.DRIVER_STATUS
    return TopicKind.NODE


@pytest.mark.parametrize("key", ["0", "a", "b", "c", "fault"])
def test_classify_every_topic_in_the_captures(key: str) -> None:
    t = GatewayTopics()
    for topic in {m["topic"] for m in capture(key)}:
        info = t.classify(topic)
        assert info.kind is _expected_kind(topic), topic
        if info.kind is TopicKind.API_REPLY:
            assert info.name == topic.rsplit("/", 1)[-1]
        if info.kind is TopicKind.EVENT:
            assert (info.scope, info.name) == tuple(topic.split("/")[-2:])
        if info.kind is TopicKind.NODE:
            assert f"zwave/{info.rest}" == topic


@pytest.mark.parametrize("key", ["a", "b", "c"])
def test_built_value_topics_are_exactly_the_published_ones(key: str) -> None:
    t = GatewayTopics()
    nodes = _nodes()
    published = {m["topic"] for m in capture(key) if t.classify(m["topic"]).kind is TopicKind.NODE}
    built = {t.value_topic(n, v, STYLE[key]) for n in nodes.values() for v in n.values.values()}
    node_attrs = {
        f"{t.node_topic(n, STYLE[key])}/{a}"
        for n in nodes.values()
        for a in ("status", "lastActive", "nodeinfo")
    }
    renamed = {x for x in published if "/Porch_Lights/" in x}  # capture a renames node 11 for a while
    assert published - renamed <= built | node_attrs
    assert built <= published  # every value was published at start-up


@pytest.mark.parametrize("key", ["a", "b", "c", "fault"])
def test_index_maps_every_published_node_topic(key: str) -> None:
    t = GatewayTopics()
    nodes = _nodes()
    index = ValueTopicIndex(nodes)
    for msg in capture(key):
        info = t.classify(msg["topic"])
        if info.kind is not TopicKind.NODE or "/Porch_Lights/" in msg["topic"]:
            continue
        hit = index.resolve(info.rest)
        assert hit is not None and not hit.stale, msg["topic"]
        if key == "c" and hit.value_id is not None:
            assert hit.value_id == json.loads(msg["payload"])["id"]  # object payloads name their value
        if key == "c" and hit.attribute in ("status", "nodeinfo"):
            obj = json.loads(msg["payload"])
            assert hit.node_id == obj.get("nodeId", obj.get("id"))


def test_round_trip_for_every_value_in_every_style() -> None:
    t = GatewayTopics()
    nodes = _nodes()
    index = ValueTopicIndex(nodes)
    for style in TopicStyle:
        for ignore_loc in (False, True):
            for node in nodes.values():
                for value in node.values.values():
                    rest = t.value_topic(node, value, style, ignore_loc).removeprefix("zwave/")
                    hit = index.resolve(rest)
                    assert hit is not None and hit.value_id == value.value_id, (style, rest)


def test_property_key_rendering_as_captured() -> None:
    t = GatewayTopics()
    nodes = _nodes()
    assert t.value_topic(nodes[6], nodes[6].values["6-67-0-setpoint-1"], TopicStyle.NAMED).endswith(
        "thermostat_setpoint/endpoint_0/setpoint/1"
    )
    assert t.value_topic(nodes[8], nodes[8].values["8-50-0-value-66049"], TopicStyle.VALUEID) == (
        "zwave/Kitchen/8/50/0/value/66049"
    )
    motion = nodes[7].values["7-113-0-Home Security-Motion sensor status"]
    assert t.value_topic(nodes[7], motion, TopicStyle.NAMED) == (
        "zwave/Garage/Garage_Motion/notification/endpoint_0/Home_Security/Motion_sensor_status"
    )
    assert cc_topic_name(106) == "unknownClass_106" and cc_topic_name(37) == "switch_binary"


def test_secondary_spellings_map_when_unambiguous() -> None:
    index = ValueTopicIndex(_nodes())
    hit = index.resolve("Kitchen/Coffee_Maker_Plug/meter/endpoint_0/value/Electric_W_Consumed")
    assert hit is not None and hit.value_id == "8-50-0-value-66049"
    hit = index.resolve("Living_Room/Living_Room_Blinds/window_covering/endpoint_0/currentValue/13")
    assert hit is None  # not a spelling zwave-js-ui uses for CC 106


def test_unnamed_node_uses_node_id_prefix() -> None:
    nodes = _nodes()
    nodes[5].name = ""
    nodes[5].location = ""
    index = ValueTopicIndex(nodes)
    hit = index.resolve("nodeID_5/door_lock/endpoint_0/currentMode")
    assert hit is not None and hit.value_id == "5-98-0-currentMode"
    assert index.resolve("nodeID_5/status") == index.resolve("5/status")


def test_rename_makes_old_topics_stale_and_back_again() -> None:
    nodes = _nodes()
    index = ValueTopicIndex(nodes)
    old = "Porch/Porch_Double_Switch/switch_binary/endpoint_1/currentValue"
    new = "Porch/Porch_Lights/switch_binary/endpoint_1/currentValue"
    assert index.resolve(new) is None
    nodes[11].name = "Porch Lights"
    index.update_node(nodes[11])
    hit_new, hit_old = index.resolve(new), index.resolve(old)
    assert hit_new is not None and not hit_new.stale and hit_new.node_id == 11
    assert hit_old is not None and hit_old.stale and hit_old.value_id == "11-37-1-currentValue"
    assert index.resolve("Porch/11/37/1/currentValue") == hit_new  # numeric ids survive a rename
    nodes[11].name = "Porch Double Switch"
    index.update_node(nodes[11])
    assert not index.resolve(old).stale  # type: ignore[union-attr]
    assert index.resolve(new).stale  # type: ignore[union-attr]


def test_two_nodes_with_the_same_name_and_location_are_not_guessed() -> None:
    nodes = _nodes()
    nodes[8].name = "Kitchen Light"
    index = ValueTopicIndex(nodes)
    assert index.resolve("Kitchen/Kitchen_Light/status") is None
    # ...but a value only one of them has is still unambiguous.
    hit = index.resolve("Kitchen/Kitchen_Light/meter/endpoint_0/value/66049")
    assert hit is not None and hit.node_id == 8


def test_unknown_topics_resolve_to_none() -> None:
    index = ValueTopicIndex(_nodes())
    for rest in ("Kitchen/No_Such_Node/switch_binary/endpoint_0/targetValue", "Kitchen", "", "a/b/c/d/e/f/g"):
        assert index.resolve(rest) is None


def test_remembered_answers_follow_new_values_and_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from zwave_mcp.gateway import topics
    from zwave_mcp.gateway.model import ZValue

    nodes = _nodes()
    index = ValueTopicIndex(nodes)
    rest = "Porch/Porch_Double_Switch/switch_binary/endpoint_9/currentValue"
    assert index.resolve(rest) is None  # remembered as unknown...
    value = ZValue(
        value_id="11-37-9-currentValue",
        node_id=11,
        command_class=37,
        command_class_name="Binary Switch",
        endpoint=9,
        property="currentValue",
        property_name="currentValue",
    )
    nodes[11].values[value.value_id] = value
    index.invalidate_values(11)  # ...until the node's values change
    hit = index.resolve(rest)
    assert hit is not None and hit.value_id == "11-37-9-currentValue"

    monkeypatch.setattr(topics, "RESOLVED_CACHE_SIZE", 10)
    for i in range(25):
        index.resolve(f"Nowhere/{i}/status")
    index.resolve("x/" + "y" * topics.RESOLVED_CACHE_TOPIC_LEN)
    assert len(index._resolved) <= 10
    assert all(len(rest) <= topics.RESOLVED_CACHE_TOPIC_LEN for rest in index._resolved)


def test_classification_is_remembered_within_bounds() -> None:
    """A write brings ~10 messages on a handful of topics: their classification is looked up, not redone,
    and topics from outside can neither grow the memory without end nor fill it with absurd ones."""
    from zwave_mcp.gateway import topics as topics_module

    t = GatewayTopics("zwave")
    value_topic = "zwave/Kitchen/Light/switch_binary/endpoint_0/currentValue"
    first = t.classify(value_topic)
    assert first == TopicInfo(TopicKind.NODE, rest="Kitchen/Light/switch_binary/endpoint_0/currentValue")
    assert t.classify(value_topic) is first  # remembered, not classified again
    for n in range(topics_module.CLASSIFIED_MAX + 10):
        assert t.classify(f"zwave/Room/Dev{n}/status").kind is TopicKind.NODE
    assert len(t._classified) <= topics_module.CLASSIFIED_MAX
    long_topic = "zwave/" + "x" * topics_module.CLASSIFIED_TOPIC_MAX
    assert t.classify(long_topic).kind is TopicKind.NODE
    assert long_topic not in t._classified
    assert (
        t.classify("zwave/_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui/api/writeValue/set").kind
        is TopicKind.SET_REQUEST
    )
