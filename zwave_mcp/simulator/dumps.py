"""Node dumps of real homes → zwave-js-ui `getNodes` node dicts (the shape the simulator serves).

Accepted, one node or many (`house_from_json` tells them apart; `load_house_file` reads a file):
- zwave-js-server node states (`nodeId`, `values` as a list of `{…, metadata: {…}}`): Home Assistant's
  test fixtures, the `nodes` of a zwave-js-server `start_listening` result or of a network `state`;
- Home Assistant's device diagnostics download (the node state under `data.state`), and its config
  entry diagnostics (a list of zwave-js-server messages, or `data.messages`);
- zwave-js-ui's own nodes: a `getNodes` reply (`{"result": [...]}`) or its result array, the Control
  Panel's nodes dump and a single node's export (values as a list with `newValue`, as the UI keeps them).

The conversion follows zwave-js-ui's `ZwaveClient._dumpNode` / `_updateValueMetadata` /
`_applyValueMetadataFields`. Anything else is a `DumpError` whose message is one line saying what was
expected; nothing here raises anything else on odd input. Pure: no I/O except `load_house_file`.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from zwave_mcp.safetext import json_kind, read_int
from zwave_mcp.zwave.classes import CC, BatteryProps, ThermostatProps
from zwave_mcp.zwave.wire import value_key

Node = dict[str, Any]

CONTROLLER_ID = 1
# zwave-js NodeStatus and SecurityClass numbers → the names zwave-js-ui publishes.
NODE_STATUS = {0: "Unknown", 1: "Asleep", 2: "Awake", 3: "Dead", 4: "Alive"}
SECURITY_CLASS = {
    -1: "None",
    0: "S2_Unauthenticated",
    1: "S2_Authenticated",
    2: "S2_AccessControl",
    7: "S0_Legacy",
}
MAX_FILE_BYTES = 256 * 1024 * 1024

EXPECTED = (
    "expected a zwave-js-server node state (Home Assistant device diagnostics or test fixture), "
    "a list of them, or zwave-js-ui's getNodes reply / nodes dump"
)


class DumpError(ValueError):
    """A file or object that is not a node dump; the message is one line for a person."""


# -- reading --------------------------------------------------------------------------------------------
def load_house_file(path: str | Path) -> list[Node]:
    """The nodes of a dump file, converted; a controller node is added when the dump has none."""
    where = str(path)
    try:
        size = Path(path).stat().st_size
        if size > MAX_FILE_BYTES:
            raise DumpError(f"{where}: {size} bytes is too large for a house file")
        text = Path(path).read_text("utf-8")
    except UnicodeDecodeError:
        raise DumpError(f"{where}: not UTF-8 text; {EXPECTED}") from None
    except OSError as exc:
        raise DumpError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    try:
        # An integer of thousands of digits is beyond any JavaScript number: read as an infinity, which the
        # gateway's edge drops (with a line saying so), rather than an error for the whole house.
        data = json.loads(text, parse_int=read_int)
    except (json.JSONDecodeError, RecursionError) as exc:
        line = f" (line {exc.lineno})" if isinstance(exc, json.JSONDecodeError) else ""
        raise DumpError(f"{where}: not JSON{line}; {EXPECTED}") from None
    except ValueError as exc:  # anything else json refuses
        raise DumpError(f"{where}: not JSON ({str(exc)[:80]}); {EXPECTED}") from None
    try:
        return house_from_json(data)
    except DumpError as exc:
        raise DumpError(f"{where}: {exc}") from None


def house_from_json(data: Any) -> list[Node]:
    """Decoded JSON of any accepted format → zwave-js-ui nodes, ids kept, a controller added if missing."""
    nodes = ensure_controller(_nodes_of(data))
    seen: set[int] = set()
    repeated: set[int] = set()
    for node in nodes:  # one pass: a file of 100,000 nodes is checked at once, not in minutes
        (repeated if node["id"] in seen else seen).add(node["id"])
    if repeated:
        raise DumpError(f"node id {min(repeated)} appears more than once")
    return nodes


def _nodes_of(data: Any) -> list[Node]:
    if isinstance(data, list):
        return _from_list(data)
    if not isinstance(data, dict):
        raise DumpError(f"found {json_kind(data)}; {EXPECTED}")
    if "nodeId" in data:
        return [server_node(data)]
    if isinstance(data.get("id"), int) and "values" in data:
        return [ui_node(data)]
    result = data.get("result")
    if isinstance(result, list):
        return _from_list(result)
    if isinstance(result, dict) and isinstance(result.get("state"), dict):
        return _nodes_of(result["state"])
    inner = data.get("data")
    if isinstance(inner, dict) and "state" in inner:
        return _nodes_of(inner["state"])  # Home Assistant device diagnostics
    if isinstance(inner, dict) and isinstance(inner.get("messages"), list):
        return _from_list(inner["messages"])
    if isinstance(inner, list):
        return _from_list(inner)
    if isinstance(data.get("state"), dict):
        return _nodes_of(data["state"])
    if isinstance(data.get("nodes"), list):
        return _from_list(data["nodes"])
    if data and all(k.isdigit() and isinstance(v, dict) for k, v in data.items()):
        raise DumpError(
            "this is zwave-js-ui's nodes.json (names and locations only, no device values); "
            "export the nodes dump from its Control Panel instead"
        )
    raise DumpError(EXPECTED)


def _from_list(items: list[Any]) -> list[Node]:
    if not items:
        raise DumpError(f"the list is empty; {EXPECTED}")
    nodes: list[Node] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise DumpError(f"item {index} is {json_kind(item)}, not a node; {EXPECTED}")
        if "nodeId" in item:
            nodes.append(server_node(item))
        elif "id" in item and ("values" in item or "isControllerNode" in item or "virtual" in item):
            nodes.append(ui_node(item))
        elif isinstance(item.get("data"), dict) and "state" in item["data"]:
            nodes.extend(_nodes_of(item))  # one of a list of Home Assistant device diagnostics downloads
        elif "type" in item:  # zwave-js-server messages (Home Assistant config entry diagnostics)
            result = item.get("result")
            if isinstance(result, dict) and isinstance(result.get("state"), dict):
                nodes.extend(_nodes_of(result["state"]))
        else:
            raise DumpError(f"item {index} has neither nodeId nor id; {EXPECTED}")
    if not nodes:
        raise DumpError(f"no nodes found; {EXPECTED}")
    return nodes


# -- zwave-js-ui's own nodes -----------------------------------------------------------------------------
def ui_node(raw: dict[str, Any]) -> Node:
    """A zwave-js-ui node (getNodes entry, nodes dump entry or single-node export) with its values as the
    getNodes dict keyed `<cc>-<endpoint>-<property>[-<propertyKey>]` (the UI keeps a list with `newValue`)."""
    node_id = _node_id(raw.get("id"), "a zwave-js-ui node has id")
    node = dict(raw)
    values = raw.get("values")
    items = values.values() if isinstance(values, dict) else values if isinstance(values, list) else []
    converted: dict[str, Any] = {}
    for value in items:
        if not isinstance(value, dict) or not _is_int(value.get("commandClass")) or "property" not in value:
            continue
        value = {k: v for k, v in value.items() if k != "newValue"}
        value["nodeId"] = node_id
        key = key_of(value)
        value["id"] = f"{node_id}-{key}"
        converted[key] = value
    node["values"] = converted
    return node


# -- zwave-js-server node states ---------------------------------------------------------------------------
def server_node(state: dict[str, Any]) -> Node:
    """A zwave-js-server node state → the zwave-js-ui node dict of `getNodes`."""
    node_id = _node_id(state.get("nodeId"), "a node state has nodeId")
    config = _dict(state.get("deviceConfig"))
    manufacturer_id = _int_or(state.get("manufacturerId"), 0)
    product_id = _int_or(state.get("productId"), 0)
    product_type = _int_or(state.get("productType"), 0)
    hex_ids = [f"0x{manufacturer_id:04x}", f"0x{product_id:04x}", f"0x{product_type:04x}"]
    firmware = state.get("firmwareVersion") if isinstance(state.get("firmwareVersion"), str) else None
    status = NODE_STATUS.get(_int_or(state.get("status"), 0), "Unknown")
    values = _server_values(node_id, state.get("values"))
    name, loc = _name_and_location(state, state.get("values"))
    endpoints = _endpoints(state)
    node: Node = {
        "id": node_id,
        "name": name,
        "loc": loc,
        "values": values,
        "groups": [],
        "neighbors": [],
        "ready": bool(state.get("ready", True)),
        "available": status != "Dead",
        "hassDevices": {},
        "failed": status == "Dead",
        "inited": True,
        "eventsQueue": [],
        "status": status,
        "interviewStage": state.get("interviewStage")
        if isinstance(state.get("interviewStage"), str)
        else "Complete",
        "hexId": f"{hex_ids[0]} {hex_ids[2]}-{hex_ids[1]}",
        "dbLink": f"https://devices.zwave-js.io/?jumpTo={hex_ids[0]}:{hex_ids[2]}:{hex_ids[1]}:{firmware or '0.0'}",
        "manufacturerId": manufacturer_id,
        "productId": product_id,
        "productType": product_type,
        "productLabel": _text(config.get("label")) or f"Unknown product {hex_ids[1]}",
        "productDescription": _text(config.get("description")) or hex_ids[2],
        "manufacturer": _text(config.get("manufacturer")) or f"Unknown manufacturer {hex_ids[0]}",
        "firmwareVersion": firmware,
        "endpointsCount": max(0, len(endpoints) - 1),
        "endpoints": endpoints,
        "isSecure": state.get("isSecure", False),
        "security": SECURITY_CLASS.get(_int_or(state.get("highestSecurityClass"), -1), "None"),
        "supportsSecurity": bool(state.get("supportsSecurity", False)),
        "supportsBeaming": bool(state.get("supportsBeaming", True)),
        "isControllerNode": bool(state.get("isControllerNode", False)),
        "isListening": bool(state.get("isListening", True)),
        # zwave-js gives false or the wake-up period ("250ms", "1000ms"); zwave-js-ui passes it on as it is.
        "isFrequentListening": state.get("isFrequentListening", False),
        "isRouting": bool(state.get("isRouting", True)),
        "keepAwake": bool(state.get("keepAwake", False)),
        "maxDataRate": state.get("maxDataRate", 100000),
        # zwave-js's node is its endpoint 0, so a genuine dump gives the same class twice; where an edited
        # one differs, the endpoint's (with the command classes it lists) is the one the device has.
        "deviceClass": endpoints[0]["deviceClass"],
        "protocol": _int_or(state.get("protocol"), 0),
        "deviceId": f"{manufacturer_id}-{product_id}-{product_type}",
        "hasDeviceConfigChanged": False,
    }
    for key in (
        "sdkVersion",
        "protocolVersion",
        "zwavePlusVersion",
        "zwavePlusNodeType",
        "zwavePlusRoleType",
        "nodeType",
    ):
        if key in state and state[key] is not None:
            node[key] = state[key]
    last_seen = _epoch_ms(state.get("lastSeen"))
    if last_seen is not None:
        node["lastActive"] = last_seen
    levels = {
        str(v["endpoint"]): v["value"]
        for v in values.values()
        if v["commandClass"] == CC.BATTERY
        and v["property"] == BatteryProps.LEVEL
        and _is_number(v.get("value"))
    }
    if levels:
        node["batteryLevels"] = levels
        node["minBatteryLevel"] = min(levels.values())
    return node


def _server_values(node_id: int, raw_values: Any) -> dict[str, Any]:
    if not isinstance(raw_values, list):
        return {}
    parsed = [v for v in raw_values if isinstance(v, dict) and _valid_id_parts(v)]
    values: dict[str, Any] = {}
    for raw in parsed:
        if raw["commandClass"] == CC.NODE_NAMING_AND_LOCATION:  # zwave-js-ui makes them the name and room
            continue
        value = _server_value(node_id, raw)
        values[key_of(value)] = value
    # zwave-js-ui marks a "current" value and names its "target" (`_isCurrentValue`, `_findTargetValue`);
    # the targets are looked up by (class, endpoint, key), so a node of many values is not quadratic.
    targets: dict[tuple[Any, int, Any], dict[str, Any]] = {}
    for t in parsed:
        if re.search("target", str(t["property"]), re.IGNORECASE):
            place = (t["commandClass"], _int_or(t.get("endpoint"), 0), t.get("propertyKey"))
            targets.setdefault(place, t)
    for value in values.values():
        name = value.get("propertyName")
        if isinstance(name, str) and re.search("current", name, re.IGNORECASE):
            value["isCurrentValue"] = True
            target = targets.get((value["commandClass"], value["endpoint"], value.get("propertyKey")))
            if target is not None:
                value["targetValue"] = key_of(_ids_of(target))
    return values


def _server_value(node_id: int, raw: dict[str, Any]) -> dict[str, Any]:
    meta = _dict(raw.get("metadata"))
    value: dict[str, Any] = _ids_of(raw)
    value_type = meta.get("type") if isinstance(meta.get("type"), str) else "any"
    value.update(
        {
            "nodeId": node_id,
            "toUpdate": False,
            "commandClassName": raw.get("commandClassName") or "",
            "propertyName": raw.get("propertyName", raw["property"]),
            "type": value_type,
            "readable": bool(meta.get("readable", True)),
            "writeable": bool(meta.get("writeable", False)),
            "label": meta.get("label") or f"{raw.get('propertyName', raw['property'])} (property)",
            "stateless": False,
        }
    )
    if "propertyKeyName" in raw:
        value["propertyKeyName"] = raw["propertyKeyName"]
    for key in ("description", "default", "ccSpecific"):
        if meta.get(key) is not None:
            value[key] = meta[key]
    if _is_int(raw.get("ccVersion")):
        value["commandClassVersion"] = raw["ccVersion"]
    _apply_metadata_fields(value, meta)
    if "value" in raw:
        value["value"] = raw["value"]
    elif value_type == "duration":
        value["value"] = {"unit": "seconds"}  # zwave-js-ui's `new Duration(undefined, "seconds")`
    value["id"] = f"{node_id}-{key_of(value)}"
    return value


def _apply_metadata_fields(value: dict[str, Any], meta: dict[str, Any]) -> None:
    """zwave-js-ui's `_applyValueMetadataFields` (keys it leaves undefined are left out, as JSON does)."""
    kind = value["type"]
    if kind == "number":
        for ui_key, meta_key in (
            ("min", "min"),
            ("max", "max"),
            ("step", "steps"),
            ("allowed", "allowed"),
            ("unit", "unit"),
        ):
            if meta.get(meta_key) is not None:
                value[ui_key] = meta[meta_key]
        states = meta.get("states")
        if isinstance(states, dict) and states:
            value["list"] = True
            if meta.get("allowManualEntry") is not None:
                value["allowManualEntry"] = meta["allowManualEntry"]
            value["states"] = [{"text": text, "value": int(k)} for k, text in states.items() if _int_text(k)]
        else:
            value["list"] = False
        if meta.get("destructive"):
            value["destructive"] = True
    elif kind in ("string", "color"):
        for key in ("minLength", "maxLength"):
            if meta.get(key) is not None:
                value[key] = meta[key]
        value["list"] = False
    elif kind == "boolean":
        states = meta.get("states")
        if isinstance(states, dict) and states:
            value["list"] = True
            value["states"] = [{"text": text, "value": k == "true"} for k, text in states.items()]
        else:
            value["list"] = False
    else:
        value["list"] = False
        if meta.get("unit") is not None:
            value["unit"] = meta["unit"]


def _endpoints(state: dict[str, Any]) -> list[dict[str, Any]]:
    raw = state.get("endpoints")
    endpoints: list[dict[str, Any]] = []
    for ep in raw if isinstance(raw, list) else []:
        if not isinstance(ep, dict) or not _is_int(ep.get("index")):
            continue
        index = ep["index"]
        label = ep.get("endpointLabel") or ("Root Endpoint" if index == 0 else f"Endpoint {index}")
        endpoints.append(
            {"index": index, "label": label, "deviceClass": _device_class(ep.get("deviceClass"))}
        )
    if not any(e["index"] == 0 for e in endpoints):
        endpoints.append({"index": 0, "label": "Root Endpoint", "deviceClass": {}})
    endpoints.sort(key=lambda e: e["index"])
    if not endpoints[0]["deviceClass"]:  # older dumps give the class only for the node
        endpoints[0]["deviceClass"] = _device_class(state.get("deviceClass"))
    return endpoints


def _device_class(raw: Any) -> dict[str, Any]:
    """zwave-js-server's `{basic: {key, label}, generic: {…}, specific: {…}}` → zwave-js-ui's numbers."""
    if not isinstance(raw, dict):
        return {}

    def key(part: Any) -> Any:
        return part.get("key") if isinstance(part, dict) else part if _is_int(part) else None

    return {name: key(raw.get(name)) for name in ("basic", "generic", "specific")}


def _name_and_location(state: dict[str, Any], raw_values: Any) -> tuple[str, str]:
    name = _text(state.get("name"))
    loc = _text(state.get("location"))
    for raw in raw_values if isinstance(raw_values, list) else []:
        if (
            isinstance(raw, dict)
            and raw.get("commandClass") == CC.NODE_NAMING_AND_LOCATION
            and isinstance(raw.get("value"), str)
        ):
            if raw.get("property") == "name" and not name:
                name = raw["value"]
            elif raw.get("property") == "location" and not loc:
                loc = raw["value"]
    return name, loc


# -- the controller ------------------------------------------------------------------------------------------
def ensure_controller(nodes: list[Node]) -> list[Node]:
    """The nodes with a controller node first: the dump's own, or one added (id 1, or the lowest free id)."""
    if any(n.get("isControllerNode") for n in nodes):
        return sorted(nodes, key=lambda n: (not n.get("isControllerNode"), n["id"]))
    taken = {n["id"] for n in nodes}
    controller_id = next(i for i in range(CONTROLLER_ID, 4096) if i not in taken)
    return [controller_node(controller_id), *sorted(nodes, key=lambda n: n["id"])]


def controller_node(node_id: int = CONTROLLER_ID) -> Node:
    """A plain controller, as zwave-js-ui lists a stick it has no device file for."""
    return {
        "id": node_id,
        "name": "",
        "loc": "",
        "values": {},
        "groups": [],
        "neighbors": [],
        "ready": True,
        "available": True,
        "hassDevices": {},
        "failed": False,
        "inited": True,
        "eventsQueue": [],
        "status": "Alive",
        "interviewStage": "Complete",
        "manufacturerId": 0,
        "productId": 0,
        "productType": 0,
        "productLabel": "Z-Wave controller",
        "productDescription": "Z-Wave controller",
        "manufacturer": "Unknown manufacturer 0x0000",
        "firmwareVersion": "1.0",
        "endpointsCount": 0,
        "endpoints": [
            {"index": 0, "label": "Root Endpoint", "deviceClass": {"basic": 2, "generic": 2, "specific": 1}}
        ],
        "isControllerNode": True,
        "isListening": True,
        "isFrequentListening": False,
        "isRouting": True,
        "deviceClass": {"basic": 2, "generic": 2, "specific": 1},
        "deviceId": "0-0-0",
    }


# -- small helpers -------------------------------------------------------------------------------------------
def key_of(value: dict[str, Any]) -> str:
    """A value object's key in its node (`wire.value_key`)."""
    return value_key(*(value.get(k) for k in ("commandClass", "endpoint", "property", "propertyKey")))


def _ids_of(raw: dict[str, Any]) -> dict[str, Any]:
    ids: dict[str, Any] = {
        "commandClass": raw["commandClass"],
        "endpoint": _int_or(raw.get("endpoint"), 0),
        "property": raw["property"],
    }
    key = raw.get("propertyKey")
    if key is None:
        key = _implied_key(raw)
    if key is not None:
        ids["propertyKey"] = key
    return ids


_METER_KEYED = frozenset({"value", "deltaTime", "previousValue"})


def _implied_key(raw: dict[str, Any]) -> int | None:
    """The property key zwave-js gives a value whose dump left it out but names it (older Home Assistant
    fixtures: "propertyKeyName": "Heating" with no "propertyKey"): a setpoint's is its setpoint type, a
    meter reading's `meterType << 16 | scale << 8 | rateType` (zwave-js' `MeterCC` key). Without it the
    node's setpoints or meter readings would share one value id and all but the last be lost."""
    if "propertyKeyName" not in raw:
        return None
    meta = raw.get("metadata")
    specific = meta.get("ccSpecific") if isinstance(meta, dict) else None
    if not isinstance(specific, dict):
        return None
    if raw.get("commandClass") == CC.THERMOSTAT_SETPOINT and raw.get("property") == ThermostatProps.SETPOINT:
        kind = specific.get("setpointType")
        return kind if _is_int(kind) else None
    if raw.get("commandClass") == CC.METER and raw.get("property") in _METER_KEYED:
        meter_type, scale, rate_type = (specific.get(k) for k in ("meterType", "scale", "rateType"))
        if isinstance(meter_type, int) and isinstance(scale, int) and isinstance(rate_type, int):
            return meter_type << 16 | scale << 8 | rate_type
    return None


def _valid_id_parts(raw: dict[str, Any]) -> bool:
    key = raw.get("propertyKey")
    return (
        _is_int(raw.get("commandClass"))
        and isinstance(raw.get("property"), str | int)
        and not isinstance(raw.get("property"), bool)
        and (key is None or (isinstance(key, str | int) and not isinstance(key, bool)))
    )


def _node_id(raw: Any, what: str) -> int:
    if isinstance(raw, int) and not isinstance(raw, bool) and 0 < raw < 4096:
        return raw
    raise DumpError(f"{what} {raw!r}, not a node id (1-4095)")


def _dict(raw: Any) -> dict[str, Any]:
    return raw if isinstance(raw, dict) else {}


def _is_int(raw: Any) -> bool:
    return isinstance(raw, int) and not isinstance(raw, bool)


def _is_number(raw: Any) -> bool:
    return isinstance(raw, int | float) and not isinstance(raw, bool)


def _int_or(raw: Any, default: int) -> int:
    return raw if _is_int(raw) else default


def _int_text(raw: str) -> bool:
    # zwave-js's state keys are numbers of a few digits; thousands of digits are no state (and beyond what
    # Python converts).
    return len(raw) <= 20 and bool(re.fullmatch(r"-?\d+", raw))


def _text(raw: Any) -> str:
    return raw if isinstance(raw, str) else ""


def _epoch_ms(raw: Any) -> int | None:
    if _is_int(raw):
        return int(raw)
    if isinstance(raw, str):
        try:
            return int(datetime.fromisoformat(raw.replace("Z", "+00:00")).timestamp() * 1000)
        except ValueError:
            return None
    return None
