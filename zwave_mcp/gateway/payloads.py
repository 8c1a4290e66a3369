"""Decoding zwave-js-ui MQTT payloads. Pure; nothing here raises on bad input.

Every decoder returns its typed result or an `Undecodable(reason, size)`:

- `decode_value(payload, payload_type=PayloadType.AUTO) -> ValuePayload | Undecodable` – value topics
  in the three payload types: JSON time-value `{"time","value"}` (no `value` key = undefined), the whole
  value object (`id`, `nodeId`, …, optional `nodeName`/`nodeLocation`), or raw (the JSON-encoded value;
  an EMPTY payload = the retained message was deleted = value undefined).
- `decode_node_status(payload) -> NodeStatusPayload | Undecodable` – `<node>/status`: object form
  `{"time","value","status","nodeId"}` or raw `true`/`false` (no status text).
- `decode_last_active(payload) -> TimedPayload | Undecodable` – `{"time","value"}` or a bare number.
- `decode_nodeinfo(payload) -> wire.Node | Undecodable` – `<node>/nodeinfo` (node object without values).
- `decode_client_status(payload) -> ClientStatusPayload | Undecodable` – `_CLIENTS/.../status`
  `{"value":bool,"time":ms}`; the broker's last will is `{"value":false}` without `time`.
- `decode_client_version(payload) -> str | Undecodable`,
  `decode_driver_status(payload) -> bool | Undecodable`.
- `decode_event(payload) -> list | Undecodable` – `_EVENTS` `{"data":[...]}`.

`PayloadType.AUTO` detects the type per message by shape. Per message (not sticky) because retained
messages written under an earlier gateway configuration can sit next to current ones, and the shape
rules are unambiguous for every payload in the captures: a dict whose keys are `time` (an int) plus
at most `value` is time-value; a dict with `nodeId`, `commandClass` and `property` is a value object;
anything else is a raw value. The one theoretical clash (a raw value that is itself a dict of exactly
`{"time": <int>, "value": ...}`) is avoided by pinning the payload type in the settings.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar, cast

from zwave_mcp.gateway.model import NODE_STATUSES
from zwave_mcp.safetext import loads_json_strict
from zwave_mcp.zwave import wire

# Larger than any node-level payload zwave-js-ui sends (nodeinfo is a few kB); API replies such as
# getNodes are decoded by the API client, not here.
MAX_PAYLOAD_BYTES = 1 << 20

T = TypeVar("T")


class PayloadType(Enum):
    """zwave-js-ui `gateway.payloadType`; AUTO detects it per message."""

    TIMEVALUE = "timevalue"  # 0
    OBJECT = "object"  # 1
    RAW = "raw"  # 2
    AUTO = "auto"


@dataclass(frozen=True, slots=True)
class Undecodable:
    reason: str
    size: int = 0


@dataclass(frozen=True, slots=True)
class ValuePayload:
    """A value topic's payload. `defined=False` means zwave-js has no value (undefined)."""

    value: Any
    defined: bool
    time_ms: int | None
    payload_type: PayloadType
    deleted: bool = False  # empty payload: the retained message was removed (raw mode undefined)
    value_object: wire.ValueObject | None = None  # the whole value (object mode)


@dataclass(frozen=True, slots=True)
class NodeStatusPayload:
    status: str | None  # "Unknown|Alive|Asleep|Awake|Dead"; None in raw mode
    available: bool | None
    time_ms: int | None
    node_id: int | None


@dataclass(frozen=True, slots=True)
class TimedPayload:
    value: Any
    time_ms: int | None


@dataclass(frozen=True, slots=True)
class ClientStatusPayload:
    online: bool
    time_ms: int | None
    is_last_will: bool  # `{"value":false}` without time: published by the broker, not zwave-js-ui


def json_int(raw: Any) -> int | None:
    # Ids, classes, times (ms): beyond 2**53 is junk that only breaks arithmetic later (an age in seconds).
    return raw if isinstance(raw, int) and not isinstance(raw, bool) and abs(raw) <= 2**53 else None


def decode_json(payload: bytes | bytearray | str) -> Any:
    """JSON text → Python, or `Undecodable`. Empty payload → `Undecodable("empty")`. NaN and Infinity are
    not JSON (zwave-js-ui's JSON.stringify writes them as null): a payload holding one is not JSON."""
    size = len(payload)
    if size == 0:
        return Undecodable("empty", 0)
    if size > MAX_PAYLOAD_BYTES:
        return Undecodable("too large", size)
    try:
        # Lone surrogates become U+FFFD: the text may reach any reply.
        return loads_json_strict(payload)
    except UnicodeDecodeError:
        return Undecodable("not UTF-8", size)
    except (ValueError, RecursionError):
        return Undecodable("not JSON", size)


def _is_timevalue(obj: dict[str, Any]) -> bool:
    return json_int(obj.get("time")) is not None and len(obj) <= 2 and (len(obj) == 1 or "value" in obj)


def _is_value_object(obj: dict[str, Any]) -> bool:
    return "nodeId" in obj and "commandClass" in obj and "property" in obj


def decode_value(
    payload: bytes | bytearray | str, payload_type: PayloadType = PayloadType.AUTO
) -> ValuePayload | Undecodable:
    """A value topic's payload in the given (or detected) payload type."""
    if len(payload) == 0:
        # Only raw mode publishes empty payloads (retained delete of an undefined value).
        if payload_type in (PayloadType.RAW, PayloadType.AUTO):
            return ValuePayload(None, False, None, PayloadType.RAW, deleted=True)
        return Undecodable("empty", 0)
    data = decode_json(payload)
    if isinstance(data, Undecodable):
        return data
    kind = payload_type
    if kind is PayloadType.AUTO:
        if isinstance(data, dict) and _is_timevalue(data):
            kind = PayloadType.TIMEVALUE
        elif isinstance(data, dict) and _is_value_object(data):
            kind = PayloadType.OBJECT
        else:
            kind = PayloadType.RAW
    if kind is PayloadType.RAW:
        return ValuePayload(data, True, None, PayloadType.RAW)
    if not isinstance(data, dict):
        return Undecodable(f"{kind.value} payload is not an object", len(payload))
    if kind is PayloadType.TIMEVALUE:
        timed = cast(wire.TimeValue, data)
        if "time" not in timed and "value" not in timed:
            return Undecodable("time-value payload without time or value", len(payload))
        return ValuePayload(timed.get("value"), "value" in timed, json_int(timed.get("time")), kind)
    if not _is_value_object(data):
        return Undecodable("value object without nodeId/commandClass/property", len(payload))
    value = cast(wire.ValueObject, data)  # its fields are checked where they are read (gateway/nodes.py)
    return ValuePayload(
        value.get("value"), "value" in value, json_int(value.get("lastUpdate")), kind, value_object=value
    )


def decode_node_status(payload: bytes | bytearray | str) -> NodeStatusPayload | Undecodable:
    data = decode_json(payload)
    if isinstance(data, Undecodable):
        return data
    if isinstance(data, bool):
        return NodeStatusPayload(None, data, None, None)
    if isinstance(data, dict):
        status = data.get("status")
        available = data.get("value")
        if status is not None and status not in NODE_STATUSES:
            return Undecodable(f"unknown node status {status!r}", len(payload))
        if status is None and not isinstance(available, bool):
            return Undecodable("node status without status or value", len(payload))
        return NodeStatusPayload(
            status,
            available if isinstance(available, bool) else None,
            json_int(data.get("time")),
            json_int(data.get("nodeId")),
        )
    return Undecodable("node status of unexpected shape", len(payload))


def decode_last_active(payload: bytes | bytearray | str) -> TimedPayload | Undecodable:
    data = decode_json(payload)
    if isinstance(data, Undecodable):
        return data
    if json_int(data) is not None:
        return TimedPayload(data, None)
    if isinstance(data, dict) and json_int(data.get("value")) is not None:
        return TimedPayload(data["value"], json_int(data.get("time")))
    return Undecodable("lastActive of unexpected shape", len(payload))


def decode_nodeinfo(payload: bytes | bytearray | str) -> wire.Node | Undecodable:
    data = decode_json(payload)
    if isinstance(data, Undecodable):
        return data
    if isinstance(data, dict) and json_int(data.get("id")) is not None:
        return cast(wire.Node, data)  # its fields are checked where they are read (`apply_node_fields`)
    return Undecodable("nodeinfo without numeric id", len(payload))


def decode_client_status(payload: bytes | bytearray | str) -> ClientStatusPayload | Undecodable:
    data = decode_json(payload)
    if isinstance(data, Undecodable):
        return data
    if isinstance(data, bool):  # not seen, but cheap to accept
        return ClientStatusPayload(data, None, False)
    if isinstance(data, dict) and isinstance(data.get("value"), bool):
        time_ms = json_int(data.get("time"))
        online = data["value"]
        return ClientStatusPayload(online, time_ms, is_last_will=not online and "time" not in data)
    return Undecodable("client status of unexpected shape", len(payload))


def _bare_or_value(payload: bytes | bytearray | str, kind: type[T], problem: str) -> T | Undecodable:
    """A bare JSON value of `kind`, or one in `{"value": …}`."""
    data = decode_json(payload)
    if isinstance(data, Undecodable):
        return data
    if isinstance(data, dict):
        data = data.get("value")
    return data if isinstance(data, kind) else Undecodable(problem, len(payload))


def decode_client_version(payload: bytes | bytearray | str) -> str | Undecodable:
    return _bare_or_value(payload, str, "version of unexpected shape")


def decode_driver_status(payload: bytes | bytearray | str) -> bool | Undecodable:
    return _bare_or_value(payload, bool, "driver status is not a boolean")


def decode_event(payload: bytes | bytearray | str) -> list[Any] | Undecodable:
    data = decode_json(payload)
    if isinstance(data, Undecodable):
        return data
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        return list(data["data"])
    return Undecodable("event without a data list", len(payload))
