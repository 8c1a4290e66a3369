"""The Z-Wave network as zwave-js-ui reports it: nodes and their values.

Wire data (the dicts of `getNodes`, topic payloads) is turned into these plain objects in one place
(`state.py`); everything above the gateway works on them. No I/O here.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import Any, Generic, TypeVar

from zwave_mcp.safetext import plain_text
from zwave_mcp.zwave.classes import CC

T = TypeVar("T")

# zwave-js node status texts, as zwave-js-ui publishes them on `<node>/status` and in `getNodes`.
NODE_STATUSES = ("Unknown", "Asleep", "Awake", "Dead", "Alive")


@dataclass(slots=True)
class ValueState:
    """One possible value of an enumerated Z-Wave value (`states` in zwave-js-ui metadata)."""

    value: Any
    text: str


class SharedTable(Generic[T]):
    """One object per distinct key, for parts that thousands of values or nodes carry alike and nobody
    changes in place (metadata, state lists, endpoint lists): at most `limit` are kept, and a key that
    cannot be hashed (hostile input) shares nothing."""

    def __init__(self, limit: int) -> None:
        self._kept: dict[Any, T] = {}
        self._limit = limit

    def get(self, key: Any, make: Callable[[], T]) -> T:
        """The object kept under `key`, or a new one from `make` (kept while there is room)."""
        try:
            kept = self._kept.get(key)
        except TypeError:
            return make()
        if kept is None:
            kept = make()
            if len(self._kept) < self._limit:
                self._kept[key] = kept
        return kept


@dataclass(frozen=True, slots=True)
class ValueMeta:
    """What zwave-js says about a value besides the value itself: labels, unit, range, states.

    Thousands of values carry the same metadata (every binary switch's `currentValue`, every meter's
    kWh reading), so `ZValue`s share one `ValueMeta` per distinct metadata (`shared_meta`); a change to
    one value's metadata replaces its `ValueMeta`, never edits the shared one.
    """

    command_class_name: str = ""
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
    # Metadata a configuration parameter carries (from the device's config file).
    default: Any = None
    description: str | None = None


_SHARED_META: SharedTable[ValueMeta] = SharedTable(50_000)  # distinct metadata kept for sharing


def shared_meta(parts: tuple[Any, ...]) -> ValueMeta:
    """The `ValueMeta` of these fields (in `ValueMeta`'s order), shared with every value that has the same.

    `states` and `cc_specific` are compared by identity: the getNodes decoder already shares equal ones.
    Runs once per value of a load (~58,000 at 4,000 nodes), hence one flat key and no loops.
    """
    states, cc_specific, default = parts[10], parts[11], parts[13]
    # states and cc_specific by identity; the default's type too (1 and True are equal keys, not the same)
    # (a kept ValueMeta holds its states and cc_specific, so their ids stay theirs)
    key = (*parts[:10], id(states), id(cc_specific), *parts[12:], default.__class__)
    return _SHARED_META.get(key, lambda: ValueMeta(*parts))


def _meta_property(name: str) -> Any:
    return property(lambda self: getattr(self.meta, name), doc=f"`ValueMeta.{name}` of this value")


class ZValue:
    """One zwave-js value (a `ValueID` plus its metadata and current value).

    `value_id` is zwave-js-ui's own id, `"<node>-<cc>-<endpoint>-<property>[-<propertyKey>]"`,
    e.g. `"2-37-0-currentValue"` or `"8-50-0-value-66049"`. The metadata lives in a shared `ValueMeta`
    (`meta`) and reads as attributes of the value (`value.label`, `value.unit`); at 4,000 nodes this
    halves what the values take (bench section 4). Metadata changes go through `update_meta`, which
    gives this value a `ValueMeta` of its own.
    """

    __slots__ = (
        "command_class",
        "endpoint",
        "last_update_ms",
        "meta",
        "node_id",
        "property",
        "property_key",
        "value",
        "value_id",
    )

    def __init__(
        self,
        value_id: str,
        node_id: int,
        command_class: int,
        command_class_name: str,
        endpoint: int,
        property: str | int,
        property_key: str | int | None = None,
        property_name: str | None = None,
        property_key_name: str | None = None,
        label: str = "",
        type: str = "any",
        readable: bool = True,
        writeable: bool = False,
        unit: str | None = None,
        min: float | None = None,
        max: float | None = None,
        states: list[ValueState] | None = None,
        cc_specific: dict[str, Any] | None = None,
        stateless: bool = False,
        value: Any = None,
        last_update_ms: int | None = None,
        default: Any = None,
        description: str | None = None,
        meta: ValueMeta | None = None,
    ) -> None:
        self.value_id = value_id
        self.node_id = node_id
        self.command_class = command_class
        self.endpoint = endpoint
        self.property = property
        self.property_key = property_key
        self.value = value
        # ms since the epoch, zwave-js's `lastUpdate` (not when we received it; it can be old).
        self.last_update_ms = last_update_ms
        # `meta`: the shared metadata itself, instead of its fields (the getNodes decoder finds it so).
        self.meta = meta or shared_meta(
            (
                command_class_name,
                property_name,
                property_key_name,
                label,
                type,
                readable,
                writeable,
                unit,
                min,
                max,
                _NO_STATES if states is None else states,
                cc_specific,
                stateless,
                default,
                description,
            )
        )

    command_class_name: str = _meta_property("command_class_name")
    property_name: str | None = _meta_property("property_name")
    property_key_name: str | None = _meta_property("property_key_name")
    label: str = _meta_property("label")
    type: str = _meta_property("type")
    readable: bool = _meta_property("readable")
    writeable: bool = _meta_property("writeable")
    unit: str | None = _meta_property("unit")
    min: float | None = _meta_property("min")
    max: float | None = _meta_property("max")
    states: list[ValueState] = _meta_property("states")
    cc_specific: dict[str, Any] | None = _meta_property("cc_specific")
    stateless: bool = _meta_property("stateless")
    default: Any = _meta_property("default")
    description: str | None = _meta_property("description")

    def update_meta(self, **changes: Any) -> None:
        """Change some metadata of this value only (a metadata event, a value object's new fields)."""
        if changes:
            self.meta = replace(self.meta, **changes)

    def holding(self, value: Any) -> ZValue:
        """A copy of this value (same id and metadata) that holds `value`: a device's report, shown beside
        a live picture that has moved on (zwave-js's optimistic echo of a write)."""
        twin = copy.copy(self)
        twin.value = value
        return twin

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ZValue):
            return NotImplemented
        return _identity(self) == _identity(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaces

    def __repr__(self) -> str:
        return f"ZValue({self.value_id!r}, value={self.value!r}, label={self.label!r})"

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
        for state in self.meta.states:
            if state.value == target:
                return state.text
        return None


# All that makes two values equal: every field (`ZValue.__eq__`).
_identity = attrgetter(*ZValue.__slots__)

_NO_STATES: list[ValueState] = []

# zwave-js values that report an event, not a state ("stateless"; zwave-js-ui publishes them unretained and
# clears them 1 s later): Central Scene presses, Scene Activation. zwave-js-ui marks a value `stateless`
# only once a press has come, so these are known by what they are too.
MOMENTARY_VALUES = frozenset({(CC.CENTRAL_SCENE, "scene"), (CC.SCENE_ACTIVATION, "sceneId")})


def is_momentary(value: ZValue) -> bool:
    return value.stateless or (value.command_class, value.property) in MOMENTARY_VALUES


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
    # A keypad lock's users as zwave-js-ui's access control knows them, without a code
    # (`gateway.access.LockUsers`; getNodes' `accessControl` at each load, `Inventory.set_access` after).
    access: Any = None
    # A load said it is interviewed and ready, and it had no value then: not loading, it has told nothing.
    told_nothing: bool = False

    @property
    def display_name(self) -> str:
        """The name people see, as plain text; zwave-js-ui shows `nodeID_<n>` for unnamed nodes."""
        return plain_text(self.name) or f"nodeID_{self.id}"

    @property
    def display_location(self) -> str:
        """The room people see, as plain text ("" for none)."""
        return plain_text(self.location)

    @property
    def loading(self) -> bool:
        """The picture holds not a single value of this node yet: for a few seconds after zwave-js-ui
        restarts every node is so, then one after another as each comes up. A node that has just said it
        is ready is still so until the next load brings its values (its value topics cannot be mapped
        before that), so `ready` does not count here. A node a load gave as interviewed and ready with no
        value at all is not loading (`told_nothing`): asking again would never help."""
        return not self.values and not self.told_nothing

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


# Gateway facts that are news whenever they come (a driver error is said each time); every other gateway
# fact (online, driver ready, version, the controller's status) is a state, and the first value one is
# seen with is where zwave-js-ui already stood when we looked, not something it did (issue 42).
GATEWAY_HAPPENINGS = frozenset({"driver_error"})


def where_it_stood(fact: str | None, old: Any) -> bool:
    """Is a gateway change with this fact and old value only the state first seen at our start?"""
    return old is None and fact not in GATEWAY_HAPPENINGS


@dataclass(slots=True)
class InventoryEvent:
    """Something in the picture changed; listeners (waiters, resource subscriptions, history) get these.

    kind: "value" (a value's current value), "status" (node status), "node" (name/location/metadata),
    "removed" (a value was deleted, e.g. the empty retained payload of raw mode), "gateway", "lock" (a
    lock's Access Control event: `new` = `{"event": "keypad_unlock", "userId": 3, "userName": "Cleaner"}`).
    """

    kind: str
    node_id: int | None
    value_id: str | None = None
    old: Any = None
    new: Any = None
    at_ms: int | None = None
    # A momentary value (a button press): every report is news, even one equal to the last.
    momentary: bool = False
