"""History wording never assumes a value is a number (issue 44 item 6): whatever a stored change holds (a row
kept before the gateway's edge typed values, or a value of type "any"), every value of every real node dump
is said in words, and the lock's "Lock state" with an object no longer crashes the whole house's events."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zwave_mcp.devices.build import devices_for_node
from zwave_mcp.devices.describe import change_phrase
from zwave_mcp.devices.model import Device
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.history.words import describe_value
from zwave_mcp.simulator.dumps import load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"
ODD = [{"a": 1}, {"value": 255, "unit": "seconds"}, [1, 2], [], "text", True, 1.5, -1, None, {"red": [1]}]


def every_value() -> list[tuple[Device | None, ZValue]]:
    """Each value of each dump with the device that holds it (None: a value no device claims)."""
    found = []
    for path in sorted(DEVICES.glob("*_state.json")):
        for raw in load_house_file(path):
            node = parse_node(raw)
            if node is None:
                continue
            devices = devices_for_node(node)
            for value in node.values.values():
                holder = next(
                    (d for d in devices if value.value_id in {v.value_id for v in d.values.values()}), None
                )
                found.append((holder, value))
    return found


VALUES = every_value()


def test_the_dumps_hold_many_values() -> None:
    assert len(VALUES) > 3000


@pytest.mark.parametrize("raw", ODD, ids=repr)
def test_every_value_of_every_dump_is_said_whatever_it_holds(raw: Any) -> None:
    for _, value in VALUES:
        phrase = describe_value(value, raw)
        assert isinstance(phrase.text, str) and phrase.text, (value.value_id, raw)


@pytest.mark.parametrize("raw", ODD, ids=repr)
def test_every_change_of_every_dump_is_said_as_an_event_whatever_it_holds(raw: Any) -> None:
    for device, value in VALUES:
        said = change_phrase(device, value, raw)
        assert isinstance(said, str) and said, (value.value_id, raw)
