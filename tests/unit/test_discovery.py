"""The discovery engine on its own: rows read top to bottom, each value claimed once, device conditions."""

from __future__ import annotations

from typing import Any

from zwave_mcp.devices import model as m
from zwave_mcp.devices.build import devices_for_node
from zwave_mcp.devices.describe import sentence, state_summary
from zwave_mcp.devices.discovery import (
    IGNORE,
    READING,
    Found,
    Schema,
    Table,
    discover,
    match,
    product,
    product_ids,
)
from zwave_mcp.devices.model import Capability as C
from zwave_mcp.gateway.model import ZNode, ZValue
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.server.tools.present import verify_summary
from zwave_mcp.simulator.dumps import load_house_file
from zwave_mcp.zwave import classes as zc
from zwave_mcp.zwave.classes import CC


def value(node_id: int, cc: int, prop: str | int, key: Any = None, endpoint: int = 0, **meta: Any) -> ZValue:
    suffix = f"-{key}" if key is not None else ""
    return ZValue(f"{node_id}-{cc}-{endpoint}-{prop}{suffix}", node_id, cc, "", endpoint, prop, key, **meta)


def node(
    *values: ZValue, device_id: str | None = None, generic: int | None = None, specific: int | None = None
) -> ZNode:
    n = ZNode(id=values[0].node_id if values else 9, name="Thing", device_id=device_id)
    n.generic_class, n.specific_class = generic, specific
    n.values = {v.value_id: v for v in values}
    return n


LEVEL = dict(type="number", writeable=True, min=0, max=99)
FAN_ROW = Schema(
    "fan: test model", C.FAN, m.LEVEL_TARGET, match(38, "targetValue"), products=(product(1, {2}, {3}),)
)
DIMMER_ROW = Schema("dimmer", C.DIMMER, m.LEVEL_TARGET, match(38, "targetValue"))


def test_product_ids_come_from_zwave_js_ui_device_id() -> None:
    # zwave-js-ui's deviceId is "<manufacturerId>-<productId>-<productType>"
    assert product_ids(node(device_id="99-12340-18756")) == (99, 18756, 12340)
    assert product_ids(node(device_id=None)) is None
    assert product_ids(node(device_id="not-an-id")) is None
    assert product_ids(node(device_id="1-²-3")) is None  # a digit to str.isdigit, not to int()


def test_rows_are_read_top_to_bottom_and_each_value_is_claimed_once() -> None:
    target = value(5, 38, "targetValue", **LEVEL)
    fan_node = node(target, device_id="1-3-2")
    found = discover(fan_node, (FAN_ROW, DIMMER_ROW))[0]
    assert found.capabilities == {C.FAN}
    assert found.values[m.LEVEL_TARGET] is target
    # another model: the model row does not fit, the generic one claims it
    other = discover(node(value(5, 38, "targetValue", **LEVEL), device_id="1-4-2"), (FAN_ROW, DIMMER_ROW))[0]
    assert other.capabilities == {C.DIMMER}
    # the order of the rows decides, not their kind
    assert discover(fan_node, (DIMMER_ROW, FAN_ROW))[0].capabilities == {C.DIMMER}


def test_companions_come_from_the_same_endpoint_and_property_key() -> None:
    row = Schema(
        "cover",
        C.COVER,
        m.COVER_TARGET,
        match(106, "targetValue"),
        companions=((m.COVER_CURRENT, match(106, "currentValue")),),
    )
    values = [
        value(5, 106, "currentValue", 13, type="number"),
        value(5, 106, "targetValue", 23, **LEVEL),
        value(5, 106, "targetValue", 13, **LEVEL),
        value(5, 106, "currentValue", 23, type="number"),
    ]
    found = discover(node(*values), (row,))[0]
    # the lowest parameter is the main movement; its own current value goes with it
    assert found.values[m.COVER_TARGET].value_id == "5-106-0-targetValue-13"
    assert found.values[m.COVER_CURRENT].value_id == "5-106-0-currentValue-13"
    assert [v.value_id for v in found.unclaimed] == ["5-106-0-targetValue-23", "5-106-0-currentValue-23"]


def test_readings_ignored_values_and_what_each_value_is_for() -> None:
    rows = (
        Schema("sensor", C.SENSOR, READING, match(49, type="number"), multi=True),
        Schema("housekeeping", None, IGNORE, match(0x70), multi=True),
    )
    temp = value(5, 49, "Air temperature", type="number", unit="°C")
    lux = value(5, 49, "Illuminance", type="number")
    config = value(5, 0x70, 3, type="number")
    odd = value(5, 0x99, "mystery", type="number")
    found = discover(node(temp, config, lux, odd), rows)[0]
    assert found.readings[C.SENSOR] == [temp, lux]
    assert found.purposes == {temp.value_id: "sensor", lux.value_id: "sensor"}
    assert found.unclaimed == [odd]


def test_a_row_for_a_node_alone_applies_only_when_nothing_else_was_found() -> None:
    rows = (
        Schema("sensor", C.BINARY_SENSOR, READING, match(48, type="boolean"), multi=True),
        Schema("basic", C.SWITCH, m.SWITCH_TARGET, match(32, "targetValue", writeable=True), alone=True),
    )
    basic = value(5, 32, "targetValue", type="number", writeable=True)
    alone = discover(node(basic), rows)[0]
    assert alone.capabilities == {C.SWITCH}
    with_sensor = discover(node(basic, value(5, 48, "Door/Window", type="boolean")), rows)[0]
    assert with_sensor.capabilities == {C.BINARY_SENSOR}


def test_a_node_no_row_understands_is_not_understood_and_says_what_it_has() -> None:
    odd = value(12, 0x99, "mystery", type="number")
    (device,) = devices_for_node(node(odd))
    assert device.kind is None and not device.understood
    assert device.unclaimed == (odd,)
    assert sentence(device) == "Thing is not understood yet: zwave-mcp does not know what it does."
    assert state_summary(device) == "not understood yet"
    assert verify_summary(device, []).endswith(
        "zwave-mcp does not understand it yet; the command zwave-mcp explain lists its values."
    )


def test_the_table_claims_nothing_twice_on_the_captured_house() -> None:
    from tests.unit.test_devices_build import house_nodes
    from zwave_mcp.devices.discovery_schemas import SCHEMAS

    for n in house_nodes():
        found = discover(n, SCHEMAS)
        ids = [v.value_id for f in found.values() for v in f.values.values()]
        ids += [v.value_id for f in found.values() for vs in f.readings.values() for v in vs]
        assert len(ids) == len(set(ids)), n.id
        # nothing of the captured house is left unexplained
        assert [v.value_id for f in found.values() for v in f.unclaimed] == [], n.id


def test_housekeeping_command_classes_are_never_device_kinds() -> None:
    assert CC.MANUFACTURER_SPECIFIC in zc.HOUSEKEEPING and CC.BINARY_SWITCH not in zc.HOUSEKEEPING


def as_found(found: dict[int, Found]) -> list[Any]:
    """All a discovery result holds, in its own order, values by id."""
    return [
        (
            ep,
            sorted(f.capabilities),
            [(role, v.value_id) for role, v in f.values.items()],
            [(shelf, [v.value_id for v in values]) for shelf, values in f.readings.items()],
            list(f.purposes.items()),
            f.templates,
            [v.value_id for v in f.unclaimed],
            f.is_entry,
            f.main_part,
        )
        for ep, f in found.items()
    ]


def test_a_node_of_a_shape_already_seen_is_found_as_the_rows_find_it_of_its_own_values() -> None:
    from tests.unit.test_corpus import DEVICES, DUMPS
    from zwave_mcp.devices.discovery_schemas import SCHEMAS

    table = Table(SCHEMAS)
    for file in DUMPS:
        raw = load_house_file(DEVICES / file)
        first = [n for n in map(parse_node, raw) if n is not None]
        second = [n for n in map(parse_node, raw) if n is not None]  # the same shapes, values of its own
        for a, b in zip(first, second, strict=True):
            table.discover(a)
            shapes = len(table._recipes)
            again = table.discover(b)
            assert len(table._recipes) == shapes, file  # remembered, not run again
            assert as_found(again) == as_found(discover(b, SCHEMAS)), file  # discover(…, rows): run afresh
            made_of = [v for f in again.values() for v in (*f.values.values(), *f.unclaimed)]
            made_of += [v for f in again.values() for values in f.readings.values() for v in values]
            assert all(v is b.values[v.value_id] for v in made_of), file


def test_what_a_row_reads_of_a_value_is_part_of_a_nodes_shape() -> None:
    table = Table(
        (
            Schema("dimmer", C.DIMMER, m.LEVEL_TARGET, match(38, "targetValue", writeable=True)),
            Schema(
                "setpoints", C.THERMOSTAT, "setpoint.{key}", match(67, "setpoint", numbered=True), multi=True
            ),
        )
    )
    dimmer = table.discover(node(value(5, 38, "targetValue", **LEVEL)))[0]
    assert dimmer.capabilities == {C.DIMMER}
    # the same value read-only (other metadata): not a dimmer
    read_only = table.discover(node(value(5, 38, "targetValue", type="number", writeable=False)))[0]
    assert read_only.capabilities == set() and len(read_only.unclaimed) == 1
    # a property key 1 is a setpoint type; True, an equal key, is not a number
    heat = table.discover(node(value(5, 67, "setpoint", 1, type="number")))[0]
    assert list(heat.values) == ["setpoint.1"]
    odd = table.discover(node(value(5, 67, "setpoint", True, type="number")))[0]
    assert odd.values == {} and len(odd.unclaimed) == 1
