"""The shapes of zwave-js-ui's wire data (getNodes, value topics, events, API replies) as TypedDicts, the way
zwave-js-server-python types zwave-js's; every key optional, as real data leaves keys out (the Broadcast node
has almost none). A TypedDict is a claim, not a check: the gateway's edge still checks each field it reads
(gateway/nodes.py, gateway/payloads.py), and says so with a `cast` where it hands a checked dict on."""

from __future__ import annotations

from typing import Any, TypedDict


def value_key(cc: Any, endpoint: Any, prop: Any, prop_key: Any = None) -> str:
    """zwave-js-ui's key of a value in its node (`_getValueID`): `"<cc>-<endpoint>-<property>[-<key>]"`; the
    value's `id` is its node's id, `-`, and this."""
    base = f"{cc}-{endpoint or 0}-{prop}"
    return base if prop_key is None else f"{base}-{prop_key}"


class State(TypedDict, total=False):
    value: Any
    text: str


class Metadata(TypedDict, total=False):
    """zwave-js's `ValueMetadata`: flat in a zwave-js-ui value object, whole in an event's `metadata`."""

    type: str
    readable: bool
    writeable: bool
    label: str
    description: str
    unit: str
    min: float
    max: float
    states: list[State] | dict[str, str]  # zwave-js-ui lists them; zwave-js's metadata maps value → text
    ccSpecific: dict[str, Any]
    default: Any
    stateless: bool  # zwave-js-ui's: the value reports an event, not a state


class Value(Metadata, total=False):
    """A value object (getNodes' `values`, an object payload, `node_value_*` events): zwave-js's
    `TranslatedValueID` with zwave-js-ui's `id`, `nodeId`, `value` and `lastUpdate`."""

    id: str
    nodeId: int
    commandClass: int
    commandClassName: str
    endpoint: int
    property: str | int
    propertyName: str
    propertyKey: str | int
    propertyKeyName: str
    value: Any
    lastUpdate: int
    newValue: Any  # events: after and before the change
    prevValue: Any
    metadata: Metadata  # `node_metadata_updated`, `node_value_added`


class ValueObject(Value, total=False):
    """A value topic's payload in object mode: the value, and with `includeNodeInfo` its node's name."""

    nodeName: str
    nodeLocation: str


# A value topic's payload in time-value mode (without `value`: undefined); raw mode sends the value itself.
class TimeValue(TypedDict, total=False):
    time: int
    value: Any


class DeviceClass(TypedDict, total=False):
    basic: int
    generic: int
    specific: int


class Endpoint(TypedDict, total=False):
    index: int
    label: str
    deviceClass: DeviceClass


class Node(TypedDict, total=False):
    """A node of getNodes' result, or a `nodeinfo` payload (the same without `values`)."""

    id: int
    name: str
    loc: str
    status: str  # gateway.model.NODE_STATUSES
    ready: bool
    available: bool
    failed: bool
    isControllerNode: bool
    isListening: bool
    isFrequentListening: bool | str  # FLiRS: false, "250ms" or "1000ms"
    interviewStage: str
    manufacturer: str
    productLabel: str
    productDescription: str
    firmwareVersion: str
    deviceId: str
    deviceClass: DeviceClass
    lastActive: int
    endpoints: list[Endpoint]
    values: dict[str, Value] | list[Value]
    accessControl: dict[str, Any]  # zwave-js-ui ≥ 11.22: a keypad lock's users (gateway/access.py)


class Reply(TypedDict, total=False):
    """An API reply: `success` (zwave-js-ui ran the call, not that it worked), `message`, `result`, and the
    request echoed (its `args`, and the whole request payload as `origin`)."""

    success: bool
    message: str
    result: Any
    args: list[Any]
    origin: dict[str, Any]
