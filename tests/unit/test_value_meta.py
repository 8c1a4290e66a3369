"""Values share their metadata (`ValueMeta`) and a change to one value's metadata stays its own."""

from __future__ import annotations

from zwave_mcp.gateway.model import ValueState, ZValue
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.gateway.state import _apply_metadata


def _switch(node: int) -> ZValue:
    return ZValue(
        f"{node}-37-0-currentValue", node, 37, "Binary Switch", 0, "currentValue", label="Current value"
    )


def test_values_with_the_same_metadata_share_one_object() -> None:
    first, second = _switch(2), _switch(3)
    assert first.meta is second.meta
    assert (first.label, first.command_class_name, first.writeable) == (
        "Current value",
        "Binary Switch",
        False,
    )


def test_a_metadata_change_is_seen_by_that_value_only() -> None:
    first, second = _switch(4), _switch(5)
    _apply_metadata(first, {"label": "Relay", "states": {"0": "Off", "1": "On"}, "min": 0, "max": 1})
    assert first.label == "Relay" and first.max == 1.0 and first.state_text(1) == "On"
    assert first.states == [ValueState(0, "Off"), ValueState(1, "On")]
    assert second.label == "Current value" and second.max is None and second.states == []


def test_values_compare_by_content() -> None:
    assert _switch(6) == _switch(6)
    assert _switch(6) != _switch(7)
    changed = _switch(6)
    changed.value = True
    assert changed != _switch(6)


def test_node_details_are_kept_only_when_asked_for() -> None:
    raw = {"id": 9, "name": "Porch", "security": "S2_Authenticated", "statistics": {"rtt": 30}, "values": []}
    kept, left = parse_node(raw), parse_node(raw, details=False)
    assert kept is not None and kept.details["security"] == "S2_Authenticated"
    assert left is not None and left.details == {} and left.name == "Porch"
