"""getNodes decoding shares equal read-only parts between values and nodes (memory at 4,000 nodes), without
ever mixing up values that only compare equal (1 and 1.0) and without sharing anything that is changed."""

from __future__ import annotations

import json

import pytest

from zwave_mcp.gateway.model import ZNode
from zwave_mcp.gateway.nodes import decode_with_values, parse_node, parse_value


def _value(node_id: int, prop: str, **extra: object) -> dict[str, object]:
    return {
        "id": f"{node_id}-37-0-{prop}",
        "nodeId": node_id,
        "commandClass": 37,
        "endpoint": 0,
        "property": prop,
        **extra,
    }


def _nodes(*values: dict[str, object]) -> list[object]:
    by_node: dict[int, list[dict[str, object]]] = {}
    for v in values:
        by_node.setdefault(int(v["nodeId"]), []).append(v)  # type: ignore[call-overload]
    raw = [
        {"id": n, "endpoints": [{"index": 0, "label": ""}], "manufacturer": "Acme", "values": vs}
        for n, vs in by_node.items()
    ]
    decoded = decode_with_values(json.dumps({"result": raw}).encode())["result"]
    assert all(isinstance(n, ZNode) for n in decoded)  # nodes with values are parsed while decoding
    return list(decoded)


def test_equal_parts_are_one_object_and_numbers_keep_their_type() -> None:
    a, b = _nodes(
        _value(300, "currentValue", min=0, max=99, value=1, ccSpecific={"switchType": 2}),
        _value(301, "currentValue", min=0, max=99, value=1.0, ccSpecific={"switchType": 2}),
    )
    va, vb = next(iter(a.values.values())), next(iter(b.values.values()))  # type: ignore[attr-defined]
    assert va.max is vb.max and va.cc_specific is vb.cc_specific and va.states is vb.states == []
    assert type(va.value) is int and type(vb.value) is float  # 1 == 1.0, but each keeps its own type
    assert a.endpoint_labels is b.endpoint_labels and a.endpoint_indexes is b.endpoint_indexes  # type: ignore[attr-defined]
    assert a.manufacturer is b.manufacturer  # type: ignore[attr-defined]
    assert va.node_id == 300 and vb.node_id == 301


def test_unhashable_parts_are_kept_to_themselves() -> None:
    (node,) = _nodes(_value(302, "targetValue", ccSpecific={"list": [1, 2]}))
    value = next(iter(node.values.values()))  # type: ignore[attr-defined]
    assert value.cc_specific == {"list": [1, 2]}


def test_a_node_is_parsed_while_decoding_only_when_its_values_are_its_own() -> None:
    reply = {
        "result": [
            {"id": 7, "name": "Lamp", "values": [_value(7, "currentValue")], "statistics": {"rx": 5}},
            {"id": 8, "name": "Just added", "values": []},  # no values yet: left to the inventory
            {"id": 9, "values": 3},  # junk where the values go
            # Not a node: an object whose values belong to another node stays as it is.
            {"id": 10, "values": {"x": _value(11, "currentValue")}},
        ]
    }
    lamp, added, junk, other = decode_with_values(json.dumps(reply).encode(), details=False)["result"]
    assert isinstance(lamp, ZNode) and lamp.name == "Lamp" and list(lamp.values) == ["7-37-0-currentValue"]
    assert lamp.details == {}  # details=False, as the inventory asks outside admin mode
    with_details = decode_with_values(json.dumps(reply).encode())["result"][0]
    assert with_details.details["statistics"] == {"rx": 5}
    assert added == {"id": 8, "name": "Just added", "values": []}
    assert junk == {"id": 9, "values": 3}
    assert isinstance(other, dict) and not isinstance(other["values"]["x"], dict)
    assert parse_node(added) is not None  # what the inventory does with the ones left as dicts


def test_metadata_found_by_its_fields_is_never_given_to_a_value_whose_fields_only_compare_equal(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Metadata is built once per distinct metadata and found again by the fields of the value object:
    1 is equal to True and 1.0, yet only true is a flag zwave-js sends, and a default keeps its type."""
    fitting = parse_value(_value(320, "currentValue", readable=True, min=1, default=1, label="Lamp"))
    same = parse_value(_value(321, "currentValue", readable=True, min=1, default=1, label="Lamp"))
    odd = parse_value(_value(322, "currentValue", readable=1, min=True, default=1.0, label="Lamp"))
    assert fitting is not None and same is not None and odd is not None
    assert same.meta is fitting.meta
    assert odd.min is None and type(odd.default) is float and type(fitting.default) is int
    assert "readable is a number" in caplog.text and "min is true" in caplog.text
    caplog.clear()
    again = parse_value(_value(323, "currentValue", readable=1, min=True, default=1.0, label="Lamp"))
    assert again is not None and "readable is a number" in caplog.text  # dropped fields: each value logs
