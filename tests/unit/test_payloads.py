"""Payload decoding for the three payload types, gateway payloads, and garbage."""

from __future__ import annotations

import pytest

from tests.unit.test_replay_data import capture
from zwave_mcp.gateway.payloads import (
    MAX_PAYLOAD_BYTES,
    ClientStatusPayload,
    NodeStatusPayload,
    PayloadType,
    TimedPayload,
    Undecodable,
    ValuePayload,
    decode_client_status,
    decode_client_version,
    decode_driver_status,
    decode_event,
    decode_last_active,
    decode_node_status,
    decode_nodeinfo,
    decode_value,
)
from zwave_mcp.gateway.topics import GatewayTopics, TopicKind


def test_timevalue_with_and_without_value() -> None:
    got = decode_value(b'{"time":1795312926643,"value":40}')
    assert got == ValuePayload(40, True, 1795312926643, PayloadType.TIMEVALUE)
    undefined = decode_value(b'{"time":1795312926643}')
    assert isinstance(undefined, ValuePayload)
    assert (undefined.defined, undefined.value, undefined.time_ms) == (False, None, 1795312926643)
    duration = decode_value(b'{"time":1,"value":{"value":0,"unit":"seconds"}}')
    assert isinstance(duration, ValuePayload) and duration.value == {"value": 0, "unit": "seconds"}


def test_value_object() -> None:
    raw = (
        b'{"id":"7-48-0-Motion","nodeId":7,"commandClass":48,"endpoint":0,"property":"Motion",'
        b'"value":false,"lastUpdate":1795313957254,"nodeName":"Garage Motion","nodeLocation":"Garage"}'
    )
    got = decode_value(raw)
    assert isinstance(got, ValuePayload)
    assert got.payload_type is PayloadType.OBJECT
    assert (got.value, got.defined, got.time_ms) == (False, True, 1795313957254)
    assert got.value_object is not None and got.value_object["nodeName"] == "Garage Motion"
    no_value = decode_value(
        b'{"id":"2-37-0-targetValue","nodeId":2,"commandClass":37,"property":"targetValue"}'
    )
    assert isinstance(no_value, ValuePayload) and not no_value.defined


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        (b"true", True),
        (b"21.3", 21.3),
        (b'"7.0"', "7.0"),
        (b'["1.0"]', ["1.0"]),
        (b'{"unit":"seconds"}', {"unit": "seconds"}),
        (b'{"value":0,"unit":"seconds"}', {"value": 0, "unit": "seconds"}),
        (b"null", None),
    ],
)
def test_raw_values(raw: bytes, value: object) -> None:
    got = decode_value(raw)
    assert isinstance(got, ValuePayload)
    assert got.payload_type is PayloadType.RAW and got.value == value and got.defined


def test_empty_payload_is_a_deleted_retained_value() -> None:
    got = decode_value(b"")
    assert isinstance(got, ValuePayload) and got.deleted and not got.defined
    assert isinstance(decode_value(b"", PayloadType.TIMEVALUE), Undecodable)


def test_pinned_payload_type_is_not_second_guessed() -> None:
    got = decode_value(b'{"time":5,"value":1}', PayloadType.RAW)
    assert isinstance(got, ValuePayload) and got.value == {"time": 5, "value": 1}
    assert isinstance(decode_value(b"true", PayloadType.TIMEVALUE), Undecodable)
    assert isinstance(decode_value(b'{"time":5}', PayloadType.OBJECT), Undecodable)


@pytest.mark.parametrize(
    "garbage",
    [b"\xff\xfe\x00", b"{", b"not json", b"[" * 100_000 + b"]" * 100_000, b"1" * (MAX_PAYLOAD_BYTES + 1)],
)
def test_garbage_is_undecodable_never_raises(garbage: bytes) -> None:
    for decoder in (
        decode_value,
        decode_node_status,
        decode_last_active,
        decode_nodeinfo,
        decode_client_status,
        decode_client_version,
        decode_driver_status,
        decode_event,
    ):
        assert isinstance(decoder(garbage), Undecodable), decoder.__name__  # type: ignore[operator]


@pytest.mark.parametrize("wrong", [b"[1,2]", b'"text"', b"{}", b"42"])
def test_wrong_shapes_are_undecodable(wrong: bytes) -> None:
    for decoder in (
        decode_node_status,
        decode_nodeinfo,
        decode_client_status,
        decode_driver_status,
        decode_event,
    ):
        assert isinstance(decoder(wrong), Undecodable), (decoder.__name__, wrong)


def test_node_status_object_and_raw() -> None:
    got = decode_node_status(b'{"time":1795313424066,"value":false,"status":"Dead","nodeId":9}')
    assert got == NodeStatusPayload("Dead", False, 1795313424066, 9)
    assert decode_node_status(b"true") == NodeStatusPayload(None, True, None, None)
    assert isinstance(decode_node_status(b'{"value":true,"status":"Sleepy"}'), Undecodable)


def test_last_active_both_forms() -> None:
    assert decode_last_active(b'{"time":2,"value":1795312937416}') == TimedPayload(1795312937416, 2)
    assert decode_last_active(b"1795313777258") == TimedPayload(1795313777258, None)


def test_client_status_and_last_will() -> None:
    assert decode_client_status(b'{"value":true,"time":1795313421646}') == ClientStatusPayload(
        True, 1795313421646, False
    )
    assert decode_client_status(b'{"value":false}') == ClientStatusPayload(False, None, True)
    assert decode_client_version(b'{"value":"11.22.2","time":1}') == "11.22.2"


def test_driver_status_and_events() -> None:
    assert decode_driver_status(b"true") is True and decode_driver_status(b"false") is False
    assert decode_event(b'{"data":[1]}') == [1]
    assert decode_event(b'{"data":[]}') == []


@pytest.mark.parametrize(("key", "expected"), [("a", "timevalue"), ("b", "raw"), ("c", "object")])
def test_auto_detection_on_every_captured_value_payload(key: str, expected: str) -> None:
    t = GatewayTopics()
    seen = 0
    for msg in capture(key):
        topic = msg["topic"]
        if t.classify(topic).kind is not TopicKind.NODE or topic.rsplit("/", 1)[-1] in (
            "status",
            "lastActive",
            "nodeinfo",
        ):
            continue
        got = decode_value(msg["payload"].encode())
        assert isinstance(got, ValuePayload), topic
        assert got.payload_type is PayloadType(expected), (topic, msg["payload"])
        seen += 1
    assert seen > 100


def test_a_time_no_clock_can_hold_is_no_time() -> None:
    """A 400-digit `time` was kept, and every sentence about the device raised computing its age."""
    huge = b"9" * 400
    pinned = decode_value(b'{"time":' + huge + b',"value":5}', PayloadType.TIMEVALUE)
    assert isinstance(pinned, ValuePayload) and pinned.value == 5 and pinned.time_ms is None
    assert decode_last_active(huge) != TimedPayload(int(huge), None)
    status = decode_node_status(
        b'{"time":' + huge + b',"value":true,"status":"Alive","nodeId":' + huge + b"}"
    )
    assert isinstance(status, NodeStatusPayload) and status.time_ms is None and status.node_id is None
