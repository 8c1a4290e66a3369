"""zwave-js's device database, as far as the simulator knows it: the configuration parameters of the real
devices its houses play (`houses/device_database.json`: the GE 14294 dimmer's, from zwave-js 15.29's config
file `0x0063/14294_zw3005.json` with its templates resolved, as the real test bed's zwave-js-ui answered
them: labels, ranges and options, no descriptions; its node dump carries an older file's words), and the API
call that reads it, `getDeviceConfigurationParams`, answered as zwave-js-ui 11.22.2 does
(`api/lib/ZwaveClient.ts`).

The captured devices (manufacturer 0xFFF0) are in no database, so for them the answer is `[]`, as the real
gateway gave (captures README: "Unknown manufacturer 0xfff0")."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from zwave_mcp.simulator.host import js_undefined
from zwave_mcp.simulator.house import packaged
from zwave_mcp.zwave.classes import CC

_LEADING_INT = re.compile(r"\s*([+-]?\d+)")


@cache
def _entries() -> tuple[dict[str, Any], ...]:
    return tuple(packaged("device_database.json"))


def _parse_int(text: str) -> int | None:
    """JavaScript's `parseInt(text, 10)`: the leading digits, None for NaN."""
    found = _LEADING_INT.match(text)
    return int(found.group(1)) if found else None


def lookup(manufacturer_id: int, product_type: int, product_id: int) -> list[dict[str, Any]] | None:
    """The parameters (zwave-js's `paramInformation`) of one device, or None when the database lacks it."""
    for entry in _entries():
        if (entry["manufacturerId"], entry["productType"], entry["productId"]) == (
            manufacturer_id,
            product_type,
            product_id,
        ):
            return list(entry["paramInformation"])
    return None


def configuration_params(device_id: Any) -> list[dict[str, Any]]:
    """`getDeviceConfigurationParams(deviceId)`: deviceId is zwave-js-ui's `manufacturerId-productId-productType`
    (decimal). Raises what zwave-js-ui's JavaScript throws for a missing or malformed one."""
    if device_id is None:
        raise TypeError(js_undefined("split"))
    if not isinstance(device_id, str):
        raise TypeError("deviceId.split is not a function")
    parts = device_id.split("-")
    if len(parts) != 3:
        raise RuntimeError("Invalid deviceId format, expected manufacturerId-productId-productType")
    manufacturer_id, product_id, product_type = (_parse_int(p) for p in parts)
    if manufacturer_id is None or product_id is None or product_type is None:
        raise RuntimeError("Invalid deviceId: non-numeric components")
    params = lookup(manufacturer_id, product_type, product_id)
    return [_as_value_id(p) for p in params or []]


def _as_value_id(param: dict[str, Any]) -> dict[str, Any]:
    """One parameter in the reply's shape; keys JavaScript leaves undefined are absent from the JSON."""
    key = param.get("valueBitMask")
    options = param.get("options") or []
    record: dict[str, Any] = {
        "id": f"0-{CC.CONFIGURATION}-0-{param['parameter']}" + (f"-{key}" if key is not None else ""),
        "commandClass": int(CC.CONFIGURATION),
        "property": param["parameter"],
        "propertyKey": key,
        "endpoint": 0,
        "type": "number",
        "readable": True,
        "writeable": not param.get("readOnly"),
        "label": param["label"],
        "description": param.get("description"),
        "min": param["minValue"],
        "max": param["maxValue"],
        "default": param["defaultValue"],
        "unit": param.get("unit"),
        "list": len(options) > 0,
        "allowManualEntry": param.get("allowManualEntry"),
        "states": [{"text": o["label"], "value": o["value"]} for o in options],
        "newValue": param["defaultValue"],
    }
    return {k: v for k, v in record.items() if v is not None}
