"""Sample data the tests and the demo add to a house: Configuration parameters in zwave-js-ui's shape."""

from __future__ import annotations

from typing import Any

from zwave_mcp.simulator import payloads
from zwave_mcp.simulator.house import Node, captured_house
from zwave_mcp.zwave.classes import CC


def config_values(node_id: int) -> dict[str, dict[str, Any]]:
    """Configuration CC values in zwave-js-ui's shape, as a device config file gives them."""
    params = [
        (1, "Motion sensitivity", 1, 10, 5, None, None),
        (2, "Motion clear delay", 5, 600, 30, "seconds", None),
        (3, "LED indicator", 0, 1, 1, None, [{"text": "Off", "value": 0}, {"text": "On", "value": 1}]),
    ]
    values: dict[str, dict[str, Any]] = {}
    for number, label, low, high, default, unit, states in params:
        value: dict[str, Any] = {
            "id": f"{node_id}-{CC.CONFIGURATION}-0-{number}",
            "nodeId": node_id,
            "commandClass": CC.CONFIGURATION,
            "commandClassName": "Configuration",
            "endpoint": 0,
            "property": number,
            "propertyName": label,
            "type": "number",
            "readable": True,
            "writeable": True,
            "label": label,
            "description": f"Parameter {number}",
            "default": default,
            "min": low,
            "max": high,
            "valueSize": 1 if high < 128 else 2,
            "format": 0,
            "allowManualEntry": states is None,
            "isFromConfig": True,
            "stateless": False,
            "commandClassVersion": 4,
            "list": states is not None,
            "value": default,
            "lastUpdate": payloads.now_ms(),
        }
        if unit:
            value["unit"] = unit
        if states:
            value["states"] = states
        values[f"{CC.CONFIGURATION}-0-{number}"] = value
    return values


def house_with_config(node_id: int = 9) -> list[Node]:
    """The captured house with Configuration parameters on one device (default: the colour bulb)."""
    house = captured_house()
    for node in house:
        if node["id"] == node_id:
            node["values"].update(config_values(node_id))
    return house
