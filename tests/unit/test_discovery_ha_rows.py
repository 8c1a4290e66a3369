"""Home Assistant's discovery rows of today that our table lacked (zwave_mcp/devices/HA_DISCOVERY.md), one
test per row on a real dump of the model (fixtures/devices/), and the engine's firmware and configuration
conditions those rows need."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.test_discovery_kinds import DUMPS
from zwave_mcp.devices import model as m
from zwave_mcp.devices.build import devices_for_node
from zwave_mcp.devices.control import available_actions, plan_control
from zwave_mcp.devices.describe import sentence
from zwave_mcp.devices.discovery import FirmwareRange, Schema, Table, config_is, match, product
from zwave_mcp.devices.discovery_schemas import TABLE
from zwave_mcp.devices.errors import ActionNotSupported
from zwave_mcp.devices.kinds.fan import fan_speeds
from zwave_mcp.devices.model import Capability as C
from zwave_mcp.devices.model import Device
from zwave_mcp.gateway.model import ZNode
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import load_house_file
from zwave_mcp.zwave.classes import CC


def raw_node(file: str, name: str = "Thing") -> dict[str, Any]:
    (raw,) = [n for n in load_house_file(DUMPS / file) if not n.get("isControllerNode")]
    raw["name"] = name
    return raw


def parsed(raw: dict[str, Any]) -> ZNode:
    node = parse_node(raw)
    assert node is not None
    return node


def with_parameter(raw: dict[str, Any], parameter: int, value: int) -> dict[str, Any]:
    """The dump with one configuration parameter set otherwise (the device as its owner set it up)."""
    (config,) = [
        v
        for v in raw["values"].values()
        if v["commandClass"] == CC.CONFIGURATION and v["property"] == parameter
    ]
    config["value"] = value
    return raw


def devices(raw: dict[str, Any]) -> list[Device]:
    return devices_for_node(parsed(raw))


# ---- fans by model ---------------------------------------------------------------------------------------


def test_the_enbrighten_58446_is_a_fan_of_four_speeds_though_its_class_says_dimmer() -> None:
    (fan,) = devices(raw_node("enbrighten_58446_zwa4013_state.json", "Bedroom Fan"))
    assert fan.kind == C.FAN and C.DIMMER not in fan.capabilities
    assert [(s.name, s.low, s.high) for s in fan_speeds(fan)] == [
        ("low", 1, 25), ("medium", 26, 50), ("high", 51, 75), ("max", 76, 99)
    ]  # fmt: skip
    assert plan_control(fan, "set_speed", value="medium").writes[0].target == 50


# ---- covers: proprietary tilt, tilt by operating mode ------------------------------------------------------


def test_a_fibaro_fgr222_tilts_its_slats_through_its_proprietary_value() -> None:
    (shutter,) = devices(raw_node("cover_fibaro_fgr222_state.json", "Office Blind"))
    assert shutter.kind == C.COVER and "set_tilt" in available_actions(shutter)
    write = plan_control(shutter, "set_tilt", position=40).writes[0]
    assert (write.value.command_class, write.value.property, write.value.property_key) == (
        CC.MANUFACTURER_PROPRIETARY, "fibaro", "venetianBlindsTilt"
    )  # fmt: skip
    assert sentence(shutter) == "Office Blind is 96 % open, slats tilted 0 %, using 0 W, 0.48 kWh in total."


@pytest.mark.parametrize(("mode", "tilts"), [(1, True), (0, False), (2, False)])
def test_a_shelly_wave_shutter_has_slats_only_in_venetian_blind_mode(mode: int, tilts: bool) -> None:
    """Parameter 71 (operating mode): 0 shutter, 1 venetian, 2 manual time; the dump says 1."""
    (shutter,) = devices(with_parameter(raw_node("shelly_eu_wave_shutter_state.json", "Blind"), 71, mode))
    assert shutter.endpoint is None and shutter.kind == C.COVER
    assert (m.TILT_TARGET in shutter.values) is tilts
    assert ("set_tilt" in available_actions(shutter)) is tilts


def test_the_same_model_in_two_modes_is_told_apart_by_one_table() -> None:
    """The table remembers what it made of a node's shape; a parameter a row reads is part of the shape."""
    table = Table(TABLE.schemas)
    venetian = table.discover(parsed(raw_node("shelly_eu_wave_shutter_state.json")))
    roller = table.discover(parsed(with_parameter(raw_node("shelly_eu_wave_shutter_state.json"), 71, 0)))
    again = table.discover(parsed(raw_node("shelly_eu_wave_shutter_state.json")))
    assert m.TILT_TARGET in venetian[1].values and m.TILT_TARGET in again[1].values
    assert m.TILT_TARGET not in roller[1].values


# ---- Basic as a reading ------------------------------------------------------------------------------------


def test_a_sensor_whose_only_value_is_a_basic_current_value_reads_it() -> None:
    (sensor,) = devices(raw_node("basic_cc_sensor_state.json", "Sump Sensor"))
    assert sensor.kind == C.SENSOR and sensor.understood
    assert not available_actions(sensor)
    assert sentence(sensor) == "Sump Sensor reports current value 255."


# ---- the engine's conditions --------------------------------------------------------------------------------

_ENBRIGHTEN = product(0x0063, {0x4944}, {0x3533})  # firmware 1.26.1 in its dump


def _fan_row(firmware: FirmwareRange) -> Schema:
    return Schema(
        name="fan: a test row", kind=C.FAN, role=m.LEVEL_TARGET,
        primary=match(CC.MULTILEVEL_SWITCH, "targetValue"), products=(_ENBRIGHTEN,), firmware=firmware,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("firmware", "holds"),
    [
        (FirmwareRange(low="1.26"), True),
        (FirmwareRange(low="1.26.1", high="1.26.1"), True),
        (FirmwareRange(high="1.9"), False),
        (FirmwareRange(low="1.27"), False),
        (FirmwareRange(low="3.0"), False),
    ],
)
def test_a_model_row_holds_for_its_firmware_range_only(firmware: FirmwareRange, holds: bool) -> None:
    found = Table([_fan_row(firmware)]).discover(parsed(raw_node("enbrighten_58446_zwa4013_state.json")))
    assert (C.FAN in found[0].capabilities) is holds


def test_a_node_that_has_not_said_its_firmware_is_in_no_range() -> None:
    raw = raw_node("enbrighten_58446_zwa4013_state.json")
    raw["firmwareVersion"] = None
    found = Table([_fan_row(FirmwareRange(low="0.0"))]).discover(parsed(raw))
    assert C.FAN not in found[0].capabilities


def test_conditions_belong_on_model_rows() -> None:
    with pytest.raises(ValueError, match="belongs on a model row"):
        Schema(name="x", kind=C.FAN, role="r", primary=match(38), config=(config_is(5, 1),))


def test_the_table_names_properties_by_their_command_class_constants() -> None:
    """No `match(cc, "targetValue")`: a row names a property through `zwave.classes` (one spelling)."""
    import ast
    import inspect

    from zwave_mcp.devices import discovery_schemas

    tree = ast.parse(inspect.getsource(discovery_schemas))
    literal = [
        ast.unparse(call)
        for call in ast.walk(tree)
        if isinstance(call, ast.Call)
        and getattr(call.func, "id", None) == "match"
        and any(isinstance(arg, ast.Constant) and isinstance(arg.value, str) for arg in call.args[1:])
    ]
    assert not literal


# ---- dumps whose setpoints and meter readings name their key but leave it out --------------------------------


def test_key_less_setpoints_and_meter_readings_get_the_key_zwave_js_gives_them() -> None:
    """Older Home Assistant fixtures publish `propertyKeyName` without `propertyKey`: each keeps its value."""
    radiator = raw_node("aeotec_radiator_thermostat_state.json")
    setpoints = sorted(k for k in radiator["values"] if k.startswith("67-0-setpoint"))
    assert setpoints == ["67-0-setpoint-1", "67-0-setpoint-11"]
    floor = raw_node("climate_heatit_z_trm3_state.json")
    meters = sorted(k for k in floor["values"] if k.startswith("50-1-value"))
    assert meters == ["50-1-value-65537", "50-1-value-66049", "50-1-value-66561"]  # kWh, W, V
    (thermostat,) = devices(floor)
    assert sentence(thermostat).startswith("Thing is set to heat to 22.5 °C and idle, using 0.09 W at 238 V")


@pytest.mark.parametrize(("mode", "tilts"), [(2, True), (1, False), (4, False)])
def test_a_fibaro_fgr223_has_slats_only_in_venetian_blind_mode(mode: int, tilts: bool) -> None:
    """Parameter 151 (operating mode): 1 roller blind, 2 venetian blind, 4 gate…; the dump says 2."""
    (shutter,) = devices(with_parameter(raw_node("cover_fibaro_fgr223_state.json", "Blind"), 151, mode))
    assert shutter.kind == C.COVER and (m.TILT_TARGET in shutter.values) is tilts
    if tilts:
        assert plan_control(shutter, "set_tilt", position=30).writes[0].value.endpoint == 2


# ---- a thermostat whose temperature is the sensor a parameter names -----------------------------------------

_SENSOR_MODE = {
    "commandClass": CC.CONFIGURATION, "endpoint": 0, "property": 2, "nodeId": 101, "commandClassName": "Configuration",
    "propertyName": "Sensor Mode", "type": "number", "readable": True, "writeable": True, "label": "Sensor Mode",
    "min": 0, "max": 5, "list": True, "allowManualEntry": False, "id": "101-112-0-2",
    "states": [{"text": text, "value": i} for i, text in enumerate(
        ("Floor", "Internal", "Internal with floor limit", "External", "External with floor limit", "Power regulator")
    )],
}  # fmt: skip


def test_the_heatit_z_trm6s_temperature_is_the_sensor_its_sensor_mode_names() -> None:
    """Parameter 2 (Sensor Mode) says which of its probes the Z-TRM6 regulates by: internal (endpoint 2,
    22.5 °C in the dump), external (3, 0 °C) or floor (4, 21.9 °C), as Home Assistant's row reads it. The
    dump does not report the parameter: the thermostat then says no temperature of its own (its sensors
    are still said), and it follows the parameter as it changes."""
    (unknown,) = devices(raw_node("climate_heatit_z_trm6_state.json"))
    assert m.THERMOSTAT_TEMPERATURE not in unknown.values
    assert "now" not in sentence(unknown) and "air temperature 21.9 °C (sensor 4)" in sentence(unknown)
    raw = raw_node("climate_heatit_z_trm6_state.json")
    raw["values"]["112-0-2"] = {**_SENSOR_MODE, "value": 0}
    (thermostat,) = devices(raw)
    assert sentence(thermostat).startswith(
        "Thing is set to heat to 19 °C and idle, using 0 W, 0 kWh in total; it is 21.9 °C now"
    )
    mode = thermostat.node.values["101-112-0-2"]
    for value, now in ((1, "22.5 °C"), (3, "0 °C"), (4, "0 °C"), (5, "22.5 °C"), (0, "21.9 °C")):
        mode.value = value  # the owner sets it up otherwise: the same device follows
        assert f"; it is {now} now" in sentence(thermostat), value


# ---- a lock by its current mode alone ------------------------------------------------------------------------


def test_a_door_lock_that_publishes_only_its_current_mode_is_a_lock_that_cannot_be_commanded() -> None:
    (lock,) = devices(raw_node("lock_schlage_be469_current_mode_only_state.json", "Back Door"))
    assert lock.kind == C.LOCK and m.LOCK_CURRENT in lock.values and m.LOCK_TARGET not in lock.values
    assert sentence(lock) == "Back Door is locked; battery 100 %."
    assert not available_actions(lock)
    with pytest.raises(ActionNotSupported, match="publishes no lock command"):
        plan_control(lock, "lock")


# ---- model rows found on the dumps of issue 35's second round ------------------------------------------------


@pytest.mark.parametrize(
    "file", ["meter_aeotec_dsb09_hem_state.json", "meter_aeotec_dsb09_hem_rain_rate_state.json"]
)
def test_an_aeotec_dsb09_home_energy_meter_is_a_meter_though_its_class_says_sensor(file: str) -> None:
    (meter,) = devices(raw_node(file, "Panel"))
    assert meter.kind == C.METER and C.SENSOR not in meter.capabilities


def test_a_zooz_zse44_whose_heat_alarm_lists_overheat_is_still_a_thermometer() -> None:
    (sensor,) = devices(raw_node("zooz_zse44_fw1_30_state.json", "Basement"))
    assert sensor.kind == C.SENSOR and C.BINARY_SENSOR not in sensor.capabilities
    assert sentence(sensor).startswith("Basement reports no heat alarm, air temperature 50.6 °F")
