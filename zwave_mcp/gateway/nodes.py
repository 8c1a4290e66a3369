"""zwave-js-ui node and value objects (as in `api/getNodes`, `nodeinfo`, value-object payloads) → model.

Missing keys are normal (the Broadcast node has almost none); nothing here raises on odd input.
"""

from __future__ import annotations

import gc
import logging
import math
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, cast

from zwave_mcp.gateway.model import SharedTable, ValueMeta, ValueState, ZNode, ZValue, shared_meta
from zwave_mcp.gateway.payloads import json_int
from zwave_mcp.gateway.secrets import CODE_CLASSES, is_secret_value
from zwave_mcp.safetext import json_kind, loads_json, plain_text, read_int
from zwave_mcp.zwave import wire

log = logging.getLogger(__name__)

UNIT_MAX = 20
FLIRS_PERIODS = frozenset({"250ms", "1000ms"})


def as_float(raw: Any) -> float | None:
    """A finite number as a float; None for anything else (an integer beyond any float, 1e400 read as
    infinity, NaN: no usable bound)."""
    if not isinstance(raw, int | float) or isinstance(raw, bool):
        return None
    try:
        number = float(raw)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


# Thousands of nodes share a few dozen kinds of values: the same labels, names and state lists come back
# once per node from getNodes. Sharing one copy keeps a 4,000-node picture small (strings are interned,
# identical state lists are one list; nobody mutates them: metadata updates assign a new list).
_intern = sys.intern
_SHARED_STATES: SharedTable[list[ValueState]] = SharedTable(4096)


def _shared_text(text: Any) -> Any:
    return _intern(text) if type(text) is str else text


# Like the states lists, these are shared between values and never changed in place (a change replaces
# them). At 4,000 nodes sharing saves ~6 MB: an empty states list per value, a node id and min/max float
# per value (CPython caches only small ints), and the few distinct ccSpecific objects.
_NO_STATES: list[ValueState] = []
_SHARED_NUMBERS: dict[int | float, int | float] = {}
_SHARED_MAX = 65536
_SHARED_CC_SPECIFIC: SharedTable[dict[str, Any]] = SharedTable(_SHARED_MAX)


def _shared_number(number: int | float) -> int | float:
    """One object per distinct number (ints and floats apart: 1 == 1.0 would share across types)."""
    shared = _SHARED_NUMBERS.get(number)
    if shared is not None and type(shared) is type(number):
        return shared
    if shared is None and len(_SHARED_NUMBERS) < _SHARED_MAX:
        _SHARED_NUMBERS[number] = number
    return number


_SHARED_ENDPOINTS: SharedTable[Any] = SharedTable(_SHARED_MAX)


def _shared_endpoints(indexes: list[int]) -> list[int]:
    """Most nodes have the same endpoint list (`[0]`): one list for all of them (replaced, never changed)."""
    return _SHARED_ENDPOINTS.get(("indexes", *indexes), lambda: indexes)


def _shared_endpoint_labels(labels: dict[Any, str]) -> dict[Any, str]:
    return _SHARED_ENDPOINTS.get(("labels", *labels.items()), lambda: labels)


def _shared_cc_specific(raw: Any) -> dict[str, Any] | None:
    if not isinstance(raw, dict):
        return None
    return _SHARED_CC_SPECIFIC.get(tuple(raw.items()), lambda: raw)


_STATE_TYPES = frozenset({int, float, str, bool, type(None)})  # what a state's value can be


def parse_states(raw: Any) -> list[ValueState]:
    if not isinstance(raw, list):
        return []
    pairs = tuple(
        (s.get("value"), plain_text(str(s.get("text", ""))))
        for s in raw
        if isinstance(s, dict) and type(s.get("value")) in _STATE_TYPES and _plain_json(s.get("value"))
    )
    return _SHARED_STATES.get(pairs, lambda: [ValueState(v, _intern(t)) for v, t in pairs])


# zwave-js gives a value's property and propertyKey as text or a number.
_ID_PART_TYPES = frozenset({str, int, float})
# The largest magnitude of a JavaScript number: zwave-js cannot send an integer beyond it.
JS_NUMBER_MAX = int(sys.float_info.max)
# zwave-js's types for the text, flags and numbers of a value id and its metadata (`TranslatedValueID`,
# `ValueMetadata`); what zwave-js-ui adds (`stateless`) likewise. Anything else is dropped at the edge.
_TEXT_FIELDS = ("commandClassName", "propertyName", "propertyKeyName", "label", "type", "unit", "description")
_FLAG_FIELDS = ("readable", "writeable", "stateless")
_NUMBER_FIELDS = ("min", "max")


def _bound(raw: Any) -> float | None:
    number = as_float(raw)
    return None if number is None else _shared_number(number)


def json_problem(raw: Any) -> str | None:
    """Why a decoded JSON value cannot have come from zwave-js (a JavaScript value), or None: NaN or
    Infinity (not JSON), or an integer beyond any JavaScript number, anywhere inside it."""
    kind = type(raw)
    if kind is float:
        return None if math.isfinite(raw) else f"{raw!r} is not a number JSON has"
    if kind is int:
        return None if -JS_NUMBER_MAX <= raw <= JS_NUMBER_MAX else "an integer beyond any number zwave-js has"
    if kind is dict or kind is list:
        for item in raw.values() if kind is dict else raw:
            if (problem := json_problem(item)) is not None:
                return problem
    return None


# The JSON a value of each zwave-js value type (`ValueType`, zwave-js's core/values/Metadata.ts) can hold;
# "any" and types this version does not know hold anything. Looser than the names where real nodes are:
# Version CC's build numbers are numbers under "string", and older zwave-js reported the text "unknown" for
# a number or a flag not known yet (fixtures/devices has both). A zwave-js-ui Buffer is {"type": "Buffer",
# "data": [...]} or that as text.
_VALUE_KINDS: dict[str, tuple[type, ...]] = {
    "number": (int, float, str),
    "boolean": (bool, str),
    "string": (str, int, float),
    "number[]": (list,),
    "string[]": (list,),
    "boolean[]": (list,),
    "duration": (dict, str),
    "color": (str, dict),
    "buffer": (dict, str),
}


def type_problem(value_type: Any, raw: Any) -> str | None:
    """Why `raw` cannot be a value of the zwave-js type `value_type` (an object where it says "number"),
    or None. What passes here is what the words, the history and the kinds are written for."""
    kinds = _VALUE_KINDS.get(value_type) if isinstance(value_type, str) else None
    if kinds is None or raw is None or type(raw) in kinds:
        return None
    return f"{json_kind(raw)} for a value of type {value_type!r}"


def _plain_json(raw: Any) -> bool:
    """No NaN, Infinity or integer beyond JavaScript's numbers in it (most values are text or flags)."""
    kind = type(raw)
    return raw is None or kind is bool or kind is str or json_problem(raw) is None


def reject(node_id: Any, value_id: Any, what: str) -> None:
    """One line for something from MQTT (or a house file) that zwave-js cannot have sent, dropped."""
    log.warning(
        "dropped what zwave-js cannot have sent: node %s, value %s: %s",
        node_id,
        value_id,
        what,
        extra={"node": node_id, "value_id": value_id, "problem": what},
    )


def _fitted(raw: Mapping[str, Any], node_id: int, value_id: str) -> Mapping[str, Any]:
    """`raw` without the metadata zwave-js's types do not allow (each dropped field logged once); `raw`
    itself when all of it fits."""
    dropped: set[str] = set()

    def drop(key: str, why: str) -> None:
        reject(node_id, value_id, why)
        dropped.add(key)

    for key in _TEXT_FIELDS:
        item = raw.get(key)
        if item is not None and type(item) is not str:
            drop(key, f"{key} is {json_kind(item)}, zwave-js sends text")
    for key in _FLAG_FIELDS:
        item = raw.get(key)
        if item is not None and type(item) is not bool:
            drop(key, f"{key} is {json_kind(item)}, zwave-js sends true or false")
    for key in _NUMBER_FIELDS:
        item = raw.get(key)
        if item is not None and (type(item) not in (int, float) or json_problem(item) is not None):
            drop(key, f"{key} is {json_kind(item)} that is no JavaScript number")
    states = raw.get("states")
    if states is not None and not isinstance(states, list):
        drop("states", f"states is {json_kind(states)}, zwave-js-ui sends a list")
    cc_specific = raw.get("ccSpecific")
    if cc_specific is not None and (type(cc_specific) is not dict or json_problem(cc_specific) is not None):
        drop("ccSpecific", f"ccSpecific is {json_kind(cc_specific)} zwave-js cannot send")
    if "default" in raw and (problem := json_problem(raw["default"])) is not None:
        drop("default", f"its default: {problem}")
    return {key: item for key, item in raw.items() if key not in dropped} if dropped else raw


def _new_meta(
    raw: Mapping[str, Any], cc: int, prop: Any, node_id: int, value_id: str
) -> tuple[ValueMeta, bool]:
    """The metadata of a value object (the part that fits zwave-js's types), and whether all of it fit."""
    fitted = _fitted(raw, node_id, value_id)
    get = fitted.get
    property_name, unit, states = get("propertyName"), get("unit"), get("states")
    meta = shared_meta(
        (
            _intern(get("commandClassName") or ""),
            _shared_text(property_name),
            _shared_text(get("propertyKeyName")),
            _intern(plain_text(str(get("label") or property_name or prop))),
            _intern(get("type") or "any"),
            get("readable") is not False,
            get("writeable") is True,
            _intern(plain_text(unit, UNIT_MAX)) if unit is not None else None,
            _bound(get("min")),
            _bound(get("max")),
            parse_states(states) if states else _NO_STATES,
            _shared_cc_specific(get("ccSpecific")),
            get("stateless") is True,
            None if cc in CODE_CLASSES and is_secret_value(cc, prop) else get("default"),
            get("description"),
        )
    )
    return meta, fitted is raw


# What a value object says about its metadata, read in one go.
_META_KEYS = (*_TEXT_FIELDS, *_FLAG_FIELDS, *_NUMBER_FIELDS, "states", "ccSpecific", "default")
# Per kind of value (command class, property with its type, property key): the metadata built for it, each
# with the fields it was built from and their types (1 and True are equal, and only one of them is a flag
# zwave-js sends). Compared, not hashed: hashing each value's own strings cost as much as building.
_METAS: dict[tuple[Any, ...], list[tuple[tuple[Any, ...], tuple[type, ...], ValueMeta]]] = {}
_METAS_MAX = 20_000  # kinds of value kept
_VARIANTS_MAX = 8  # distinct metadata kept per kind (a configuration parameter differs by model)


def value_meta(
    raw: Mapping[str, Any], cc: int, prop: Any, prop_key: Any, node_id: int, value_id: str
) -> ValueMeta:
    """A value object's `ValueMeta`. Thousands of values of a big house carry the same metadata: each
    distinct one is checked and built once (`_new_meta`), later ones with the same fields get it. Metadata
    with a field dropped is not kept: each such value logs its own line."""
    parts = tuple(map(raw.get, _META_KEYS))
    types = tuple(map(type, parts))
    kind = (cc, prop, type(prop), prop_key)
    seen = _METAS.get(kind)
    if seen is not None:
        for known, known_types, meta in seen:
            if known == parts and known_types == types:
                return meta
    meta, whole = _new_meta(raw, cc, prop, node_id, value_id)
    if whole:
        if seen is None and len(_METAS) < _METAS_MAX:
            _METAS[kind] = [(parts, types, meta)]
        elif seen is not None and len(seen) < _VARIANTS_MAX:
            seen.append((parts, types, meta))
    return meta


def parse_value(raw: wire.Value, node_id: int | None = None) -> ZValue | None:
    """A zwave-js-ui value object → `ZValue`; None when it lacks the ValueID parts. What zwave-js's types
    do not allow in its metadata or value (a number for a name, NaN) is dropped with one log line."""
    get = raw.get
    nid = node_id
    if nid is None:
        raw_nid = get("nodeId")
        nid = int(_shared_number(raw_nid)) if type(raw_nid) is int else json_int(raw_nid)
    cc = get("commandClass")
    if type(cc) is not int:
        cc = json_int(cc)
    prop = get("property")
    if nid is None or cc is None or type(prop) not in _ID_PART_TYPES or not _plain_json(prop):
        return None
    endpoint = get("endpoint")
    if type(endpoint) is not int:
        endpoint = json_int(endpoint) or 0
    prop_key = get("propertyKey")
    if prop_key is not None and (type(prop_key) not in _ID_PART_TYPES or not _plain_json(prop_key)):
        return None  # an object or list cannot name a value (and could not be a dictionary key)
    value_id = get("id")
    if type(value_id) is not str:
        value_id = f"{nid}-{wire.value_key(cc, endpoint, prop, prop_key)}"
    current = get("value")
    if not _plain_json(current):
        reject(nid, value_id, f"its value: {json_problem(current)}")
        current = None
    elif (problem := type_problem(get("type"), current)) is not None:
        reject(nid, value_id, f"its value: {problem}")
        current = None
    elif cc in CODE_CLASSES and is_secret_value(cc, prop):
        current = None  # a lock code: the value is known to exist, its code is never kept
    elif type(current) is int or type(current) is float:
        current = _shared_number(current)
    meta = value_meta(raw, cc, prop, prop_key, nid, value_id)
    return ZValue(
        value_id,
        nid,
        cc,
        meta.command_class_name,
        endpoint,
        _shared_text(prop),
        _shared_text(prop_key),
        value=current,
        last_update_ms=json_int(get("lastUpdate")),
        meta=meta,
    )


def _nodes_hook(details: bool) -> Callable[[dict[str, Any]], Any]:
    """`json.loads(..., object_hook=...)` for getNodes: objects become what the picture keeps as soon as
    they are decoded, so the raw dicts are never all alive at once (peak memory), no second pass runs,
    and the heap they used is reused by the next ones instead of left in holes between the objects kept
    (11 MB of free allocator blocks after a 4,000-node load when the nodes were parsed afterwards).

    - a value object becomes a `ZValue`;
    - a node whose values are already `ZValue`s of its own becomes a `ZNode` (with `details` as
      `apply_node_fields`); a node without values stays a dict, for `Inventory.load_nodes` to parse.
    """

    def hook(obj: dict[str, Any]) -> Any:
        if "commandClass" in obj:
            if "property" in obj and "nodeId" in obj and "id" in obj:
                return parse_value(cast(wire.Value, obj)) or obj
            if obj["commandClass"] in CODE_CLASSES and is_secret_value(
                obj["commandClass"], obj.get("property")
            ):
                for key in ("newValue", "prevValue", "value"):  # a code in the node's events queue
                    obj.pop(key, None)
            return obj
        if "data" in obj and "slot" in obj:
            del obj["data"]  # a credential of the node's access control: its code
        values = obj.get("values") if "id" in obj else None
        if values and isinstance(values, dict | list):
            first = next(iter(values.values() if isinstance(values, dict) else values))
            if isinstance(first, ZValue) and first.node_id == obj["id"]:
                return parse_node(obj, details) or obj
        return obj

    return hook


@contextmanager
def long_lived_objects() -> Iterator[None]:
    """Around making what lives until the next load (the house decoded or parsed, its indexes): the
    cyclic collector is off meanwhile (hundreds of thousands of objects and no garbage cycles: it would
    only rescan the growing heap again and again, about a third of the time at 4,000 nodes), and what was
    made goes straight into the oldest generation (`freeze` then `unfreeze`), so that the young collections
    after it do not walk it all once more (30-150 ms at 4,000 nodes)."""
    was_enabled = gc.isenabled()
    if was_enabled:
        gc.collect(1)  # what was young before is not promoted with it (garbage cycles of the start-up)
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        if was_enabled:
            gc.enable()


def decode_with_values(payload: bytes | bytearray | str, details: bool = True) -> Any:
    """A getNodes reply decoded with its values as `ZValue`s and its nodes as `ZNode`s (`details`: keep
    each node's `details`, as `apply_node_fields`)."""
    with long_lived_objects():
        try:
            return loads_json(payload, object_hook=_nodes_hook(details))
        except ValueError as exc:
            if "digits" not in str(exc):
                raise
            # An integer of thousands of digits (beyond what Python converts, and beyond any JavaScript
            # number): read as infinity, so that its value alone is dropped, not the whole house.
            return loads_json(payload, object_hook=_nodes_hook(details), parse_int=read_int)


# zwave-js-ui node keys kept as they are in `ZNode.details` (what the admin's node details show).
DETAIL_KEYS = (
    "security",
    "isSecure",
    "supportsSecurity",
    "statistics",
    "neighbors",
    "protocol",
    "manufacturerId",
    "productId",
    "productType",
    "protocolVersion",
    "sdkVersion",
    "zwavePlusVersion",
    "isRouting",
    "maxDataRate",
    "dbLink",
    "hexId",
    "minBatteryLevel",
    "rebuildRoutesProgress",
    "dsk",
    "firmwareCapabilities",  # {firmwareUpgradable: false} for a device that cannot take new firmware
    "groups",  # association groups (gateway/associations.py reads them)
)


def apply_node_fields(node: ZNode, raw: Mapping[str, Any], details: bool = True) -> None:
    """Update a node's own fields (not its values) from a node object or a `nodeinfo` payload; `details`
    False leaves `ZNode.details` empty (only the admin tools read them: ~1 kB a node)."""
    if details:
        for key in DETAIL_KEYS:
            if key in raw:
                node.details[key] = raw[key]
    if isinstance(raw.get("name"), str):
        node.name = raw["name"]
    for attr, key, kind in (
        ("location", "loc", str),
        ("status", "status", str),
        ("ready", "ready", bool),
        ("available", "available", bool),
        ("failed", "failed", bool),
        ("is_controller", "isControllerNode", bool),
        ("is_listening", "isListening", bool),
        ("is_frequent_listening", "isFrequentListening", bool),
        ("interview_stage", "interviewStage", str),
        ("manufacturer", "manufacturer", str),
        ("product_label", "productLabel", str),
        ("product_description", "productDescription", str),
        ("firmware_version", "firmwareVersion", str),
        ("device_id", "deviceId", str),
    ):
        if isinstance(raw.get(key), kind):
            # texts interned: the same few texts on many nodes
            setattr(node, attr, _intern(raw[key]) if kind is str else raw[key])
    if raw.get("isFrequentListening") in FLIRS_PERIODS:  # zwave-js's FLiRS type: false, "250ms" or "1000ms"
        node.is_frequent_listening = True
    device_class = raw.get("deviceClass")
    if isinstance(device_class, dict):
        node.generic_class = json_int(device_class.get("generic"))
        node.specific_class = json_int(device_class.get("specific"))
    if json_int(raw.get("lastActive")) is not None:
        node.last_active_ms = raw["lastActive"]
    endpoints = raw.get("endpoints")
    if isinstance(endpoints, list) and endpoints:
        indexes = [
            e["index"] for e in endpoints if isinstance(e, dict) and json_int(e.get("index")) is not None
        ]
        if indexes:
            node.endpoint_indexes = _shared_endpoints(sorted(indexes))
            node.endpoint_labels = _shared_endpoint_labels(
                {
                    e["index"]: str(e.get("label") or "")
                    for e in endpoints
                    if isinstance(e, dict) and "index" in e
                }
            )


def parse_node(raw: Mapping[str, Any], details: bool = True) -> ZNode | None:
    """One entry of the `getNodes` result → `ZNode` with its values; None without a numeric id."""
    node_id = json_int(raw.get("id"))
    if node_id is None:
        return None
    node = ZNode(id=node_id)
    apply_node_fields(node, raw, details)
    access = raw.get("accessControl")
    if isinstance(access, dict) and access.get("supported"):
        # A keypad lock's users (zwave-js-ui ≥ 11.22): who they are, never their codes.
        from zwave_mcp.gateway.access import parse_state

        node.access = parse_state(node_id, access)
    raw_values = raw.get("values")
    items = (
        raw_values.values()
        if isinstance(raw_values, dict)
        else raw_values
        if isinstance(raw_values, list)
        else []
    )
    for raw_value in items:
        if isinstance(raw_value, ZValue):  # already converted while decoding (`decode_with_values`)
            if raw_value.node_id == node_id:
                node.values[raw_value.value_id] = raw_value
        elif isinstance(raw_value, dict):
            value = parse_value(cast(wire.Value, raw_value), node_id)
            if value is not None:
                node.values[value.value_id] = value
    node.told_nothing = node.ready and node.interview_stage == "Complete" and not node.values
    return node
