"""The Z-Wave network as zwave-js-ui reports it: nodes and their values.

Wire data (the dicts of `getNodes`, topic payloads) is turned into these plain objects in one place
(`state.py`); everything above the gateway works on them. No I/O here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from zwave_mcp.safetext import plain_text

# zwave-js node status texts, as zwave-js-ui publishes them on `<node>/status` and in `getNodes`.
NODE_STATUSES = ("Unknown", "Asleep", "Awake", "Dead", "Alive")


@dataclass(slots=True)
class ValueState:
    """One possible value of an enumerated Z-Wave value (`states` in zwave-js-ui metadata)."""

    value: Any
    text: str


@dataclass(slots=True)
class ZValue:
    """One zwave-js value (a `ValueID` plus its metadata and current value).

    `value_id` is zwave-js-ui's own id, `"<node>-<cc>-<endpoint>-<property>[-<propertyKey>]"`,
    e.g. `"2-37-0-currentValue"` or `"8-50-0-value-66049"`.
    """

    value_id: str
    node_id: int
    command_class: int
    command_class_name: str
    endpoint: int
    property: str | int
    property_key: str | int | None = None
    property_name: str | None = None
    property_key_name: str | None = None
    label: str = ""
    type: str = "any"
    readable: bool = True
    writeable: bool = False
    unit: str | None = None
    min: float | None = None
    max: float | None = None
    states: list[ValueState] = field(default_factory=list)
    cc_specific: dict[str, Any] | None = None
    stateless: bool = False
    value: Any = None
    # ms since the epoch, zwave-js's `lastUpdate` (not when we received it; it can be old).
    last_update_ms: int | None = None
    # Metadata a configuration parameter carries (from the device's config file).
    default: Any = None
    description: str | None = None

    def api_value_id(self) -> dict[str, Any]:
        """The ValueID object that zwave-js-ui's value write and poll APIs take."""
        vid: dict[str, Any] = {
            "nodeId": self.node_id,
            "commandClass": self.command_class,
            "endpoint": self.endpoint,
            "property": self.property,
        }
        if self.property_key is not None:
            vid["propertyKey"] = self.property_key
        return vid

    def state_text(self, raw: Any | None = None) -> str | None:
        """The label zwave-js gives a value of an enumerated value ("Secured", "Heat"), if any."""
        target = self.value if raw is None else raw
        for state in self.states:
            if state.value == target:
                return state.text
        return None


@dataclass(slots=True)
class ZNode:
    """One Z-Wave node as zwave-js-ui knows it."""

    id: int
    name: str = ""
    location: str = ""
    status: str = "Unknown"  # one of NODE_STATUSES
    ready: bool = False
    available: bool = True
    failed: bool = False
    is_controller: bool = False
    is_listening: bool = True
    is_frequent_listening: bool = False
    interview_stage: str | None = None
    manufacturer: str | None = None
    product_label: str | None = None
    product_description: str | None = None
    firmware_version: str | None = None
    device_id: str | None = None
    # zwave-js device class numbers (`deviceClass.generic/specific`); they tell a motor (cover) from a dimmer.
    generic_class: int | None = None
    specific_class: int | None = None
    # ms since the epoch of the last frame from the node (`lastActive`).
    last_active_ms: int | None = None
    endpoint_indexes: list[int] = field(default_factory=lambda: [0])
    endpoint_labels: dict[int, str] = field(default_factory=dict)
    values: dict[str, ZValue] = field(default_factory=dict)
    # Facts for the network's keeper, as zwave-js-ui gives them (`DETAIL_KEYS` in nodes.py: security,
    # statistics, neighbours, protocol, …); read by the admin tools only.
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def display_name(self) -> str:
        """The name people see, as plain text; zwave-js-ui shows `nodeID_<n>` for unnamed nodes."""
        return plain_text(self.name) or f"nodeID_{self.id}"

    @property
    def display_location(self) -> str:
        """The room people see, as plain text ("" for none)."""
        return plain_text(self.location)

    @property
    def is_sleeping_device(self) -> bool:
        """Battery devices that are not always listening queue writes until they wake up."""
        return not self.is_listening and not self.is_frequent_listening and not self.is_controller

    def find_value(
        self,
        command_class: int,
        property: str | int,
        endpoint: int | None = None,
        property_key: str | int | None = None,
    ) -> ZValue | None:
        """First value matching the given ValueID parts (endpoint None = any endpoint)."""
        for value in self.values.values():
            if (
                value.command_class == command_class
                and value.property == property
                and (endpoint is None or value.endpoint == endpoint)
                and (property_key is None or value.property_key == property_key)
            ):
                return value
        return None


@dataclass(slots=True)
class Change:
    """Something in the picture changed; listeners (waiters, resource subscriptions, history) get these.

    kind: "value" (a value's current value), "status" (node status), "node" (name/location/metadata),
    "removed" (a value was deleted, e.g. the empty retained payload of raw mode), "gateway".
    """

    kind: str
    node_id: int | None
    value_id: str | None = None
    old: Any = None
    new: Any = None
    at_ms: int | None = None
