"""The discovery engine: runs the table of `discovery_schemas` over one node's values.

The table is read top to bottom; each schema sweeps every endpoint of the node before
the next one is tried, and a value the first schema claimed is never claimed again. What a schema says
about a value (kind, role or reading, purpose) lands in one `Found` per endpoint; `build.py` turns those
into devices. Values no schema claims are kept (`Found.unclaimed`): a device with no kind at all is "not
understood yet", and its unclaimed values are what a bug report about it needs.

Pure: the same node gives the same findings. The compiled `Table` only remembers, to be fast at 4,000
nodes, which rows can apply to each kind of node and what it found of each node shape.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from zwave_mcp.devices import model as m
from zwave_mcp.devices.levels import as_int
from zwave_mcp.devices.model import Capability
from zwave_mcp.gateway.model import ZNode, ZValue
from zwave_mcp.zwave.classes import CC

# A schema's `role` for a value that is read, not controlled: it goes on the device's readings.
READING = "reading"
# A schema's `role` for a value that is housekeeping (configuration, versions, a Basic mirror): claimed
# so that nothing else takes it and it is not reported as left unused.
IGNORE = "ignore"


@dataclass(frozen=True, slots=True)
class ValueMatch:
    """What one value must be. Every field left None matches anything."""

    command_class: frozenset[int]
    property: frozenset[str | int] | None = None
    property_key: frozenset[str | int | None] | None = None
    numbered: bool = False  # the property key is a number (a setpoint type, a Window Covering parameter)
    key_label_has: str | None = None  # the property key's label contains this (lower case): "slat"
    key_label_lacks: str | None = None
    type: frozenset[str] | None = None  # zwave-js metadata type: "number", "boolean", …
    writeable: bool | None = None
    has_states: bool | None = None
    state_texts: frozenset[str] | None = None  # at least one state label among these (lower case)

    def fits(self, value: ZValue) -> bool:
        if value.command_class not in self.command_class:
            return False
        if self.property is not None and value.property not in self.property:
            return False
        if self.property_key is not None and value.property_key not in self.property_key:
            return False
        if self.numbered and as_int(value.property_key) is None:
            return False
        meta = value.meta  # read once: each of the value's metadata attributes is a property over it
        if self.key_label_has is not None or self.key_label_lacks is not None:
            label = (meta.property_key_name or "").casefold()
            if self.key_label_has is not None and self.key_label_has not in label:
                return False
            if self.key_label_lacks is not None and self.key_label_lacks in label:
                return False
        if self.type is not None and meta.type not in self.type:
            return False
        if self.writeable is not None and meta.writeable != self.writeable:
            return False
        if self.has_states is not None and bool(meta.states) != self.has_states:
            return False
        return self.state_texts is None or any(s.text.casefold() in self.state_texts for s in meta.states)


def match(
    command_class: int | Iterable[int],
    *properties: str | int,
    key: Iterable[str | int | None] | None = None,
    numbered: bool = False,
    key_label_has: str | None = None,
    key_label_lacks: str | None = None,
    type: str | Iterable[str] | None = None,
    writeable: bool | None = None,
    has_states: bool | None = None,
    state_texts: Iterable[str] | None = None,
) -> ValueMatch:
    """A `ValueMatch` written the short way: `match(38, "targetValue", type="number", writeable=True)`."""
    ccs = frozenset({command_class}) if isinstance(command_class, int) else frozenset(command_class)
    return ValueMatch(
        command_class=ccs,
        property=frozenset(properties) if properties else None,
        property_key=None if key is None else frozenset(key),
        numbered=numbered,
        key_label_has=key_label_has,
        key_label_lacks=key_label_lacks,
        type=None if type is None else frozenset({type} if isinstance(type, str) else type),
        writeable=writeable,
        has_states=has_states,
        state_texts=None if state_texts is None else frozenset(t.casefold() for t in state_texts),
    )


@dataclass(frozen=True, slots=True)
class Product:
    """A model, as zwave-js identifies it: manufacturer id, product types, product ids. A node is the
    model when its (manufacturer, product type, product id) is one of these (`Table` indexes them so)."""

    manufacturer: int
    types: frozenset[int]
    ids: frozenset[int]


def product(manufacturer: int, types: Iterable[int], ids: Iterable[int]) -> Product:
    return Product(manufacturer, frozenset(types), frozenset(ids))


def _version(text: str) -> tuple[int, ...] | None:
    """ "4.13.8" → (4, 13, 8); None when it is not dotted numbers."""
    parts = text.strip().split(".")
    if not all(p.isascii() and p.isdigit() for p in parts):
        return None
    return tuple(int(p) for p in parts)


@dataclass(frozen=True, slots=True)
class FirmwareRange:
    """A model row that holds only for these firmware versions (both ends included; None: open), as Home
    Assistant's `FirmwareVersionRange`: "3.0" and up is `FirmwareRange(low="3.0")`. A node that has not
    said its firmware version is in no range."""

    low: str | None = None
    high: str | None = None

    def holds(self, node: ZNode) -> bool:
        version = _version(node.firmware_version or "")
        if version is None:
            return False
        low = None if self.low is None else _version(self.low)
        high = None if self.high is None else _version(self.high)
        return (low is None or version >= low) and (high is None or version <= high)


@dataclass(frozen=True, slots=True)
class ConfigIs:
    """A model row that holds only when a configuration parameter says so (a shutter's operating mode is
    "venetian blind"), as Home Assistant's rows that require a Configuration value. A node that has not
    reported the parameter does not say so."""

    parameter: int
    values: frozenset[int]
    endpoint: int = 0

    def holds(self, node: ZNode) -> bool:
        for value in node.values.values():
            if (
                value.command_class == CC.CONFIGURATION
                and value.property == self.parameter
                and value.property_key is None
                and value.endpoint == self.endpoint
            ):
                return isinstance(value.value, int) and value.value in self.values
        return False


def config_is(parameter: int, *values: int, endpoint: int = 0) -> ConfigIs:
    return ConfigIs(parameter, frozenset(values), endpoint)


@dataclass(frozen=True, slots=True)
class Schema:
    """One row of the table: which value it claims, and what the value is for.

    `kind` is what the value makes the device (None: housekeeping); `role` names the value among the
    device's values (`model.LEVEL_TARGET`, "setpoint.{key}"), or is READING (a reading on `shelf`,
    default `kind`, measuring or detecting `purpose`) or IGNORE. `companions` are further values of the
    same endpoint and property key claimed with it ((role, match), e.g. a target's current value). The
    device conditions (`generic`/`specific` device class, `products`, `endpoints`) and the endpoint
    conditions (`required` and `absent` values, `needs_kind` found by an earlier row on the endpoint, or
    on any endpoint of the node with `kind_on_node`, `after_kind`: any kind found, `alone`: nothing but a
    battery found on the node so far) must all hold.
    """

    name: str  # what the row claims and why, for people reading the table: "fan: GE/Jasco 12730 (3 speeds)"
    kind: Capability | None
    role: str
    primary: ValueMatch
    companions: tuple[tuple[str, ValueMatch], ...] = ()
    shelf: Capability | None = None
    purpose: str | None = None
    generic: frozenset[int] | None = None
    specific: frozenset[int] | None = None
    products: tuple[Product, ...] = ()
    endpoints: frozenset[int] | None = None
    # Claims go to this endpoint's findings instead of their own (a shutter's slat endpoint is the tilt of
    # the shutter on its first endpoint, not a second device).
    into_endpoint: int | None = None
    required: tuple[ValueMatch, ...] = ()
    absent: tuple[ValueMatch, ...] = ()
    needs_kind: Capability | None = None
    # `needs_kind` may be on another endpoint of the node (a thermostat's operating state reported by
    # the root while its mode sits on endpoint 1: `build` makes them one thermostat).
    kind_on_node: bool = False
    after_kind: bool = False  # only on an endpoint an earlier row made something of
    alone: bool = False
    multi: bool = False  # claim every value that fits (readings, setpoints), not only the first
    entry: bool = False  # opening it opens a way into the house (a gate, a garage door)
    # The endpoint this row claims on is the node's main function (what its own name means: `build`).
    main_part: bool = False
    # Claims go to a part of their own on the endpoint, named "<node> <part>" (`build`): a plug's colour
    # night light is a light beside its relay, on the same endpoint.
    part: str | None = None
    # What the row knows of its model for the kind's behaviour: that kind's own frozen dataclass
    # (`kinds/`: a fan's speeds, a siren's tones, the sensor a thermostat regulates by).
    template: object | None = None
    # Model rows only: the firmware versions and configuration parameter values the row holds for.
    firmware: FirmwareRange | None = None
    config: tuple[ConfigIs, ...] = ()

    def __post_init__(self) -> None:
        if (self.firmware is not None or self.config) and not self.products:
            raise ValueError(f"{self.name}: a firmware or configuration condition belongs on a model row")

    def holds_for(self, node: ZNode) -> bool:
        """The row's firmware and configuration conditions hold for this node."""
        if self.firmware is not None and not self.firmware.holds(node):
            return False
        return all(condition.holds(node) for condition in self.config)

    def fits_device_class(self, node: ZNode) -> bool:
        if self.generic is not None and node.generic_class not in self.generic:
            return False
        return self.specific is None or node.specific_class in self.specific


def housekeeping(name: str, primary: ValueMatch, *, multi: bool = True, **row: Any) -> Schema:
    """A row of housekeeping (`IGNORE`): the values it claims are no kind's (every one that fits, unless
    `multi` is False)."""
    return Schema(name=name, kind=None, role=IGNORE, primary=primary, multi=multi, **row)


@dataclass(slots=True)
class Found:
    """What discovery made of one endpoint (or of several merged): capabilities, role → value, readings."""

    capabilities: set[Capability] = field(default_factory=set)
    values: dict[str, ZValue] = field(default_factory=dict)
    readings: dict[Capability, list[ZValue]] = field(default_factory=dict)
    purposes: dict[str, str] = field(default_factory=dict)
    templates: tuple[object, ...] = ()  # one per type: the first row's (`Schema.template`)
    unclaimed: list[ZValue] = field(default_factory=list)
    is_entry: bool = False
    main_part: bool = False
    parts: dict[str, Found] = field(default_factory=dict)  # named parts on the endpoint (`Schema.part`)

    def has_actuator(self) -> bool:
        return any(c in self.capabilities for c in m.ACTUATORS)

    def merge(self, other: Found) -> None:
        """Add another endpoint's findings; roles already taken are kept (root first)."""
        self.capabilities |= other.capabilities
        for role, value in other.values.items():
            self.values.setdefault(role, value)
        for cap, values in other.readings.items():
            self.readings.setdefault(cap, []).extend(values)
        for value_id, purpose in other.purposes.items():
            self.purposes.setdefault(value_id, purpose)
        for template in other.templates:
            self.add_template(template)
        self.unclaimed.extend(other.unclaimed)
        self.is_entry = self.is_entry or other.is_entry
        self.main_part = self.main_part or other.main_part
        for name, part in other.parts.items():
            self.parts.setdefault(name, Found()).merge(part)

    def add_template(self, template: object) -> None:
        """Keep a row's template, unless an earlier row gave one of its type (the first row's facts hold)."""
        if not any(type(t) is type(template) for t in self.templates):
            self.templates = (*self.templates, template)


def product_ids(node: ZNode) -> tuple[int, int, int] | None:
    """(manufacturer id, product type, product id), from zwave-js-ui's `deviceId`
    "<manufacturerId>-<productId>-<productType>"; None when the node has not said."""
    parts = (node.device_id or "").split("-")
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() for p in parts):
        return None
    manufacturer, product_id, product_type = (int(p) for p in parts)
    return manufacturer, product_type, product_id


# One endpoint's values by command class: a schema only looks at the command classes it names.
_ByClass = dict[int, list[ZValue]]
# Which rows a node runs, and on which of its endpoints (as `by_endpoint` lists them).
_Plan = tuple[tuple[Schema, tuple[int, ...]], ...]
# What a node's plan depends on: its device class, the model rows its product ids fit, and the command
# classes of each endpoint.
_PlanKey = tuple[int | None, int | None, tuple[int, ...], tuple[tuple[int, tuple[int, ...]], ...]]
# What discovery made of one endpoint, by the positions of the values in the node (see `Found`'s fields):
# capabilities, (role, value), (shelf, values), (value, purpose), templates, unclaimed, is_entry,
# main_part, and its named parts likewise.
_FoundRecipe = tuple[
    tuple[Capability, ...],
    tuple[tuple[str, int], ...],
    tuple[tuple[Capability, tuple[int, ...]], ...],
    tuple[tuple[int, str], ...],
    tuple[object, ...],
    tuple[int, ...],
    bool,
    bool,
    tuple[tuple[str, Any], ...],
]
_Recipe = tuple[tuple[int, _FoundRecipe], ...]


class Table:
    """The rows, compiled once: which rows can claim a value of each command class, and per kind of node
    (device class, product, command classes by endpoint) the rows that can do anything on it.

    A row runs on an endpoint only when the endpoint has a value of a command class the row claims (a
    row with no candidate does nothing), so a node runs the handful of rows its command classes and its
    device conditions leave, not all of them. And a house holds many nodes of one shape (the same model,
    values and metadata): what the rows made of the first is remembered by the positions of its values,
    and the next node of that shape gets the same, made of its own values (`_shape`).
    """

    __slots__ = ("_by_class", "_by_product", "_plans", "_recipes", "schemas")

    # Plans and shapes kept at most (a house has a few dozen kinds of node; hostile input must not grow
    # these): when full they are forgotten and learnt again.
    MAX_PLANS = 4096
    MAX_SHAPES = 2048

    def __init__(self, schemas: Iterable[Schema]) -> None:
        self.schemas = tuple(schemas)
        by_class: dict[int, list[int]] = {}
        for row, schema in enumerate(self.schemas):
            for cc in schema.primary.command_class:
                by_class.setdefault(cc, []).append(row)
        self._by_class = {cc: tuple(rows) for cc, rows in by_class.items()}
        # (manufacturer, product type, product id) → the rows of that model: every node has ids of its own
        # (a house's nodes rarely share a plan by ids), few have a row.
        by_product: dict[tuple[int, int, int], list[int]] = {}
        for row, schema in enumerate(self.schemas):
            for p in schema.products:
                for ids in {(p.manufacturer, t, i) for t in p.types for i in p.ids}:
                    by_product.setdefault(ids, []).append(row)
        self._by_product = {ids: tuple(rows) for ids, rows in by_product.items()}
        self._plans: dict[_PlanKey, _Plan] = {}
        # shape → (recipe, the shape's metadata objects: kept alive so that their ids stay theirs)
        self._recipes: dict[tuple[Any, ...], tuple[_Recipe, tuple[Any, ...]]] = {}

    def discover(self, node: ZNode) -> dict[int, Found]:
        """What each endpoint of the node is found to be, by endpoint."""
        models = self._models(node)
        shape = _shape(node, models)
        if shape is None:
            return self._run(node, models)
        known = self._recipes.get(shape)
        if known is not None:
            return _replay(known[0], tuple(node.values.values()))
        found = self._run(node, models)
        if len(self._recipes) >= self.MAX_SHAPES:
            self._recipes.clear()
        self._recipes[shape] = (_recipe(found, node), tuple(v.meta for v in node.values.values()))
        return found

    def _models(self, node: ZNode) -> tuple[int, ...]:
        """The model rows whose products the node is and whose firmware and configuration conditions
        hold: all a row's device conditions look at (so the plan and the shape, keyed on these rows, are
        told apart by a parameter's value or a firmware version)."""
        ids = product_ids(node)
        rows = () if ids is None else self._by_product.get(ids, ())
        return tuple(row for row in rows if self.schemas[row].holds_for(node))

    def _run(self, node: ZNode, models: tuple[int, ...]) -> dict[int, Found]:
        """The rows, run over the node's values."""
        by_endpoint: dict[int, _ByClass] = {}
        for value in node.values.values():
            by_endpoint.setdefault(value.endpoint, {}).setdefault(value.command_class, []).append(value)
        found = {ep: Found() for ep in sorted(by_endpoint)}
        claimed: set[str] = set()
        for schema, endpoints in self._plan(node, models, by_endpoint):
            if schema.alone and any(f.capabilities - {Capability.BATTERY} for f in found.values()):
                continue
            if schema.kind_on_node and not any(schema.needs_kind in f.capabilities for f in found.values()):
                continue
            for ep in endpoints:
                into = (
                    found[ep] if schema.into_endpoint is None else found.get(schema.into_endpoint, found[ep])
                )
                if schema.part is not None:
                    into = into.parts.setdefault(schema.part, Found())
                _apply(schema, by_endpoint[ep], into, claimed)
        order = {value_id: i for i, value_id in enumerate(node.values)}
        for ep, by_class in by_endpoint.items():
            found[ep].unclaimed = sorted(
                (v for values in by_class.values() for v in values if v.value_id not in claimed),
                key=lambda v: order.get(v.value_id, 0),
            )
            for readings in found[ep].readings.values():
                readings.sort(key=lambda v: order.get(v.value_id, 0))  # as the node lists them, whatever row
        return found

    def _plan(self, node: ZNode, models: tuple[int, ...], by_endpoint: dict[int, _ByClass]) -> _Plan:
        """The rows that can claim something on this node, in table order, each with its endpoints."""
        key = (
            node.generic_class,
            node.specific_class,
            models,
            tuple((ep, tuple(by_class)) for ep, by_class in by_endpoint.items()),
        )
        plan = self._plans.get(key)
        if plan is None:
            if len(self._plans) >= self.MAX_PLANS:
                self._plans.clear()
            plan = self._plans[key] = self._make_plan(node, models, by_endpoint)
        return plan

    def _make_plan(self, node: ZNode, models: tuple[int, ...], by_endpoint: dict[int, _ByClass]) -> _Plan:
        rows = sorted(
            {
                row
                for by_class in by_endpoint.values()
                for cc in by_class
                for row in self._by_class.get(cc, ())
            }
        )
        plan: list[tuple[Schema, tuple[int, ...]]] = []
        for row in rows:
            schema = self.schemas[row]
            if not schema.fits_device_class(node) or (schema.products and row not in models):
                continue
            endpoints = tuple(
                ep
                for ep, by_class in by_endpoint.items()
                if (schema.endpoints is None or ep in schema.endpoints)
                and not schema.primary.command_class.isdisjoint(by_class)
            )
            if endpoints:
                plan.append((schema, endpoints))
        return tuple(plan)


def _shape(node: ZNode, models: tuple[int, ...]) -> tuple[Any, ...] | None:
    """All that the rows read of a node, so that two nodes of one shape are found to be the same: device
    class, model rows, and per value in the node's order where it is (endpoint, command class, property,
    property key, and the types of endpoint and key: 1 and True are equal keys, not the same key) and its
    metadata (`ValueMeta`, shared by values whose metadata is equal, hence its id). None when a value is
    not listed under its own id (then the rows' order of values and claims could differ)."""
    values = [
        (
            v.endpoint,
            v.endpoint.__class__,
            v.command_class,
            v.property,
            v.property_key,
            v.property_key.__class__,
            id(v.meta),
        )
        for value_id, v in node.values.items()
        if value_id == v.value_id
    ]
    if len(values) != len(node.values):
        return None
    return (node.generic_class, node.specific_class, models, tuple(values))


def _recipe(found: dict[int, Found], node: ZNode) -> _Recipe:
    """What `found` holds, by the positions of its values in the node."""
    at = {id(v): i for i, v in enumerate(node.values.values())}
    at_id = {value_id: i for i, value_id in enumerate(node.values)}

    def of(f: Found) -> _FoundRecipe:
        return (
            tuple(f.capabilities),
            tuple((role, at[id(v)]) for role, v in f.values.items()),
            tuple((shelf, tuple(at[id(v)] for v in values)) for shelf, values in f.readings.items()),
            tuple((at_id[value_id], purpose) for value_id, purpose in f.purposes.items()),
            f.templates,
            tuple(at[id(v)] for v in f.unclaimed),
            f.is_entry,
            f.main_part,
            tuple((name, of(part)) for name, part in f.parts.items()),
        )

    return tuple((ep, of(f)) for ep, f in found.items())


def _replay(recipe: _Recipe, values: tuple[ZValue, ...]) -> dict[int, Found]:
    """A recipe made of another node's values (of the same shape): new `Found`s, nothing shared."""

    def made(r: _FoundRecipe) -> Found:
        capabilities, roles, readings, purposes, templates, unclaimed, is_entry, main_part, parts = r
        return Found(
            set(capabilities),
            {role: values[i] for role, i in roles},
            {shelf: [values[i] for i in at] for shelf, at in readings},
            {values[i].value_id: purpose for i, purpose in purposes},
            templates,
            [values[i] for i in unclaimed],
            is_entry,
            main_part,
            {name: made(part) for name, part in parts},
        )

    return {ep: made(r) for ep, r in recipe}


def discover(node: ZNode, schemas: Table | Iterable[Schema]) -> dict[int, Found]:
    """Run the table (or these rows) over the node's values: what each endpoint is found to be, by endpoint."""
    return (schemas if isinstance(schemas, Table) else Table(schemas)).discover(node)


def _of(by_class: _ByClass, wanted: ValueMatch) -> list[ZValue]:
    """The endpoint's values of the command classes `wanted` names."""
    # the endpoint's few command classes, not all the ones named (housekeeping names dozens)
    return [v for cc in sorted(wanted.command_class.intersection(by_class)) for v in by_class[cc]]


def _apply(schema: Schema, by_class: _ByClass, found: Found, claimed: set[str]) -> None:
    if (
        schema.needs_kind is not None
        and not schema.kind_on_node
        and schema.needs_kind not in found.capabilities
    ):
        return
    if schema.after_kind and not found.capabilities:
        return
    candidates = _of(by_class, schema.primary)
    if not candidates:
        return
    if schema.required and not all(
        any(need.fits(v) for v in _of(by_class, need)) for need in schema.required
    ):
        return
    if schema.absent and any(any(avoid.fits(v) for v in _of(by_class, avoid)) for avoid in schema.absent):
        return
    fitting = [v for v in candidates if v.value_id not in claimed and schema.primary.fits(v)]
    if not schema.multi:
        fitting.sort(key=_key_order)  # a Window Covering's lowest parameter is its main movement
    if schema.role == IGNORE and not schema.companions:  # housekeeping: only claimed (most values are)
        claimed.update(v.value_id for v in (fitting if schema.multi else fitting[:1]))
        return
    templated = "{" in schema.role or "}" in schema.role  # "setpoint.{key}"
    for value in fitting:
        role = schema.role.format(key=value.property_key) if templated else schema.role
        if role not in (READING, IGNORE) and role in found.values:
            continue  # one value per role: the first one (lowest property key) is the device's own
        _claim(schema, found, value, role, claimed)
        for companion_role, companion in schema.companions:
            if companion_role in found.values:
                continue
            for other in _of(by_class, companion):  # the first unclaimed one of the value's property key
                same_key = other.property_key == value.property_key
                if other.value_id not in claimed and same_key and companion.fits(other):
                    _claim(schema, found, other, companion_role, claimed)
                    break
        if not schema.multi:
            return


def _claim(schema: Schema, found: Found, value: ZValue, role: str, claimed: set[str]) -> None:
    claimed.add(value.value_id)
    if schema.kind is None or role == IGNORE:
        return
    found.capabilities.add(schema.kind)
    if role == READING:
        shelf = schema.shelf or schema.kind
        found.capabilities.add(shelf)
        found.readings.setdefault(shelf, []).append(value)
        found.purposes[value.value_id] = schema.purpose or shelf.value
    else:
        found.values[role] = value
        found.purposes[value.value_id] = role
    if schema.template is not None:
        found.add_template(schema.template)
    found.is_entry = found.is_entry or schema.entry
    found.main_part = found.main_part or schema.main_part


def _key_order(value: ZValue) -> int:
    key = value.property_key
    return key if isinstance(key, int) and not isinstance(key, bool) else -1
