"""MQTT payloads as zwave-js-ui publishes them: values per payload type, node status, events."""

from __future__ import annotations

import json
import time
from typing import Any

from zwave_mcp.simulator.house import sleeps
from zwave_mcp.simulator.settings import SimConfig

STATUS_CODES = {"Unknown": 0, "Asleep": 1, "Awake": 2, "Dead": 3, "Alive": 4}

# Keys of a getNodes node that `nodeinfo` leaves out (observed in capture c); before the node is ready
# (the first publishes at start) a few more are not known yet.
_NOT_IN_NODEINFO = {"values", "groups", "hassDevices", "prioritySUCReturnRoute"}
_NOT_YET_KNOWN = {"statistics", "supportsTime", "batteryLevels", "minBatteryLevel", "supportsLongRange"}

# Device class names for event summaries (zwave-js' device-class tables, the entries our houses use).
_BASIC = {1: "Controller", 2: "Static Controller", 3: "End Node", 4: "Routing End Node"}
_GENERIC = {
    1: "Remote Controller",
    2: "Static Controller",
    7: "Notification Sensor",
    8: "Thermostat",
    16: "Binary Switch",
    17: "Multilevel Switch",
    32: "Binary Sensor",
    33: "Multilevel Sensor",
    49: "Meter",
    64: "Entry Control",
}
_SPECIFIC = {
    (1, 0): "Unused",
    (7, 1): "Notification Sensor",
    (8, 6): "General Thermostat V2",
    (16, 1): "Binary Power Switch",
    (17, 1): "Multilevel Power Switch",
    (17, 7): "Motor Control Class C",
    (33, 1): "Routing Multilevel Sensor",
    (64, 3): "Secure Keypad Door Lock",
}


def now_ms() -> int:
    return int(time.time() * 1000)


def dumps(obj: Any) -> str:
    """Compact JSON like JavaScript's JSON.stringify, which writes a lone surrogate (a node name cut in
    the middle of an emoji, say) as a `\\ud800` escape rather than failing."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(obj, separators=(",", ":"))  # every non-ASCII character escaped: same JSON value
    return text


def value_payload(value: dict[str, Any], node: dict[str, Any], config: SimConfig) -> str:
    """A value topic's payload. An undefined value (no `value` key) is `{"time":…}` in time-value
    mode and an empty payload in raw mode (which deletes the retained message)."""
    if config.payload == "raw":
        return dumps(value["value"]) if "value" in value else ""
    if config.payload == "object":
        body = dict(value)
    else:
        body = {"time": value.get("lastUpdate") or now_ms()}
        if "value" in value:
            body["value"] = value["value"]
    if config.include_node_info:
        # JSON drops undefined keys: the Broadcast node has a name but no location.
        if "name" in node:
            body["nodeName"] = node["name"]
        if "loc" in node:
            body["nodeLocation"] = node["loc"]
    return dumps(body)


def node_status_payload(node: dict[str, Any], config: SimConfig) -> str:
    status = str(node.get("status") or "Unknown")
    available = status != "Dead"
    if config.payload == "raw":
        return dumps(available)
    return dumps({"time": now_ms(), "value": available, "status": status, "nodeId": node.get("id")})


def last_active_payload(node: dict[str, Any], config: SimConfig) -> str:
    last = node.get("lastActive") or 0
    if config.payload == "raw":
        return dumps(last)
    return dumps({"time": now_ms(), "value": last})


def nodeinfo_payload(node: dict[str, Any]) -> str:
    hidden = _NOT_IN_NODEINFO if node.get("ready") else _NOT_IN_NODEINFO | _NOT_YET_KNOWN
    if node.get("isControllerNode"):
        hidden = hidden | {"statistics"}  # controller statistics are not node statistics
    return dumps({k: v for k, v in node.items() if k not in hidden})


def gateway_payload(value: Any) -> str:
    """`_CLIENTS/.../status` and `version` are always `{"value", "time"}`, whatever the payload type."""
    return dumps({"value": value, "time": now_ms()})


def _device_class_names(node: dict[str, Any]) -> dict[str, str]:
    dc = node.get("deviceClass") or {}
    basic, generic, specific = int(dc.get("basic", 0)), int(dc.get("generic", 0)), int(dc.get("specific", 0))
    return {
        "basic": _BASIC.get(basic, f"Unknown ({basic})"),
        "generic": _GENERIC.get(generic, f"Unknown ({generic})"),
        "specific": _SPECIFIC.get(
            (generic, specific), "Unused" if specific == 0 else f"Unknown ({specific})"
        ),
    }


def node_summary(node: dict[str, Any]) -> dict[str, Any]:
    """`data[0]` of node events: the ~30-key summary, status as a number."""
    summary: dict[str, Any] = {"id": node.get("id"), "inited": bool(node.get("inited", True))}
    if node.get("name"):
        summary["name"] = node["name"]
    if node.get("loc"):
        summary["location"] = node["loc"]
    summary.update(
        {
            "status": STATUS_CODES.get(str(node.get("status")), 0),
            "isControllerNode": bool(node.get("isControllerNode")),
            "interviewStage": 5,
            "deviceClass": _device_class_names(node),
        }
    )
    if "zwavePlusVersion" in node:
        summary["zwavePlusVersion"] = node["zwavePlusVersion"]
    summary["ready"] = bool(node.get("ready", True))
    if "zwavePlusRoleType" in node:
        summary["zwavePlusRoleType"] = node["zwavePlusRoleType"]
    summary.update(
        {
            "isListening": bool(node.get("isListening", True)),
            # zwave-js gives false or the FLiRS wake-up period ("250ms", "1000ms") as it is.
            "isFrequentListening": node.get("isFrequentListening") or False,
            "canSleep": sleeps(node),
            "isRouting": bool(node.get("isRouting", True)),
            "supportedDataRates": [40000, 9600, 100000],
            "maxDataRate": node.get("maxDataRate", 100000),
            "supportsSecurity": bool(node.get("supportsSecurity")),
            "isSecure": bool(node.get("isSecure")),
            "supportsBeaming": bool(node.get("supportsBeaming", True)),
            "protocolVersion": node.get("protocolVersion", 3),
            "firmwareVersion": node.get("firmwareVersion", "1.0"),
            "manufacturerId": node.get("manufacturerId"),
            "manufacturer": node.get("manufacturer"),
            "productId": node.get("productId"),
            "productDescription": node.get("productDescription"),
            "productType": node.get("productType"),
            "productLabel": node.get("productLabel"),
            "deviceDatabaseUrl": node.get("dbLink"),
            "keepAwake": bool(node.get("keepAwake")),
            "protocol": node.get("protocol", 0),
        }
    )
    if node.get("isControllerNode"):
        summary.pop("isSecure", None)
    return summary


def value_event_args(value: dict[str, Any], prev: Any) -> dict[str, Any]:
    """`data[1]` of `node_value_updated`."""
    args: dict[str, Any] = {
        "commandClassName": value.get("commandClassName"),
        "commandClass": value.get("commandClass"),
        "endpoint": value.get("endpoint", 0),
        "property": value.get("property"),
    }
    if value.get("propertyKey") is not None:
        args["propertyKey"] = value["propertyKey"]
    args["newValue"] = value.get("value")
    args["prevValue"] = prev
    args["propertyName"] = value.get("propertyName")
    if value.get("propertyKeyName") is not None:
        args["propertyKeyName"] = value["propertyKeyName"]
    return args
