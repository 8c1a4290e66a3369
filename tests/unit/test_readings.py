"""Readings of real devices (fixtures/devices, public node dumps): every reading named by its quantity, said in
the state sentence with its unit, battery included; thermostat operating state; energy production."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from zwave_mcp.devices import model as m
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.describe import change_phrase, sentence
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.quantities import quantity_of
from zwave_mcp.devices.readings import readings
from zwave_mcp.gateway.model import ZNode
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"


def nodes(file: str) -> list[ZNode]:
    parsed = (parse_node(raw) for raw in load_house_file(DEVICES / file))
    return [n for n in parsed if n is not None and not n.is_controller]


def device(file: str, name: str) -> Device:
    found = build_devices(nodes(file))
    assert found, file
    return replace(found[0], name=name)


def test_a_thermostat_says_what_it_is_doing_and_its_humidity_and_battery() -> None:
    """CT100 Plus: Heat mode at 72 °F, operating state Idle, humidity 30 %, battery 100 %. The sentence
    said "is heating to 72 °F" while it was idle, and left out humidity and battery."""
    thermostat = device("climate_radio_thermostat_ct100_plus_state.json", "Hall Thermostat")
    assert sentence(thermostat) == (
        "Hall Thermostat is set to heat to 72 °F and idle; it is 72 °F now, with humidity 30 % and battery 100 %."
    )
    thermostat.values[m.THERMOSTAT_OPERATING].value = 1  # Heating
    assert sentence(thermostat).startswith("Hall Thermostat is heating to 72 °F; it is 72 °F now")
    thermostat.values[m.THERMOSTAT_OPERATING].value = 3  # Fan Only
    assert sentence(thermostat).startswith(
        "Hall Thermostat is set to heat to 72 °F and running only its fan;"
    )
    thermostat.values[m.THERMOSTAT_MODE].value = 0
    thermostat.values[m.THERMOSTAT_OPERATING].value = 0
    assert sentence(thermostat).startswith(
        "Hall Thermostat is off, with heating set to 72 °F and cooling set to 73 °F; it is 72 °F now"
    )
    operating = thermostat.values[m.THERMOSTAT_OPERATING]
    assert change_phrase(thermostat, operating, 3) == "is now running only its fan"
    assert change_phrase(thermostat, operating, 1) == "is now heating"
    quantities = {r.label: r.quantity for r in readings(thermostat, 0)}
    assert quantities["Humidity"] == "humidity" and quantities["Battery"] == "battery"


def test_a_switch_with_a_meter_says_its_power_and_energy_total() -> None:
    switch = device("inovelli_switch_state.json", "Kitchen Plug")
    assert sentence(switch) == "Kitchen Plug is off, using 0 W, 26.75 kWh in total."
    found = {r.quantity: r for r in readings(switch, 0)}
    assert (found["energy"].value, found["energy"].unit) == (26.75, "kWh")
    assert found["power"].unit == "W"


def test_a_shutter_says_its_own_meter() -> None:
    shutters = build_devices(nodes("shelly_eu_wave_shutter_state.json"))
    said = [sentence(replace(d, name=f"Shutter {n}")) for n, d in enumerate(shutters, 1)]
    assert said[0].startswith("Shutter 1 is closed, slats tilted 0 %, using 0 W, 0 kWh in total")


def test_a_battery_sensor_says_its_battery_and_every_reading() -> None:
    """Zooz ZSE40 4-in-one: motion, temperature, light, humidity, battery."""
    sensor = device("basic_dump_node_5_zooz_zse40_state.json", "Hall Sensor")
    assert sentence(sensor) == (
        "Hall Sensor reports no motion, air temperature 68.42 °F, illuminance 20.03 %, humidity 43.53 % "
        "and battery 50 %."
    )
    assert [r.quantity or r.sensor for r in readings(sensor, 0)] == [
        "motion",
        "tamper",  # at rest: not said
        "temperature",
        "illuminance",
        "humidity",
        None,  # Battery "Low battery level": false, not said
        "battery",
    ]


def test_a_remote_reports_its_battery() -> None:
    remote = device("wallmote_central_scene_state.json", "WallMote")
    assert sentence(remote) == "WallMote reports battery 100 %."
    assert all(r.value_id.split("-")[1] != "91" for r in readings(remote, 0))  # presses are events


def test_a_motion_sensor_never_says_both_motion_and_no_motion() -> None:
    """MultiSensor 6: the notification says motion while the untyped binary sensor ("Any") says clear."""
    sensor = device("multisensor_6_state.json", "Porch Sensor")
    said = sentence(sensor)
    assert "motion detected" in said and "clear" not in said and "no motion" not in said
    assert "ultraviolet 0" in said and "battery 100 %" in said


def test_energy_production_readings_speak() -> None:
    """A solar inverter's Energy Production CC (0x90): power, total and today's production, total time.
    The discovery table makes the device (a meter); its readings speak here."""
    inverter = device("energy_production_state.json", "Solar Inverter")
    values = [v for v in inverter.all_values() if v.command_class == 144]
    assert len(values) == 4
    labels = [quantity.label for v in values if (quantity := quantity_of(v)) is not None]
    assert labels == ["production power", "total production", "production today", "total production time"]
    assert {r.quantity for r in readings(inverter, 0)} == {"energy_production"}
    assert sentence(inverter) == (
        "Solar Inverter is producing 1.23 W, 1234.56 Wh produced in total, 123.45 Wh today, "
        "34.3 hours of production in all."
    )


def test_readings_of_one_name_on_several_endpoints_say_where_each_is_read() -> None:
    """Heatit Z-TRM3: its air temperature sensors on endpoints 2, 3 and 4 (22.5, 0 and 15.3 °C). The
    sentence said "air temperature 0 °C … and air temperature 15.3 °C", which no one could tell apart."""
    thermostat = device("invalid_multilevel_sensor_type_state.json", "Bathroom Floor")
    said = sentence(thermostat)
    assert "it is 22.5 °C now" in said  # the thermostat's own (endpoint 2), said as its temperature
    assert "air temperature 0 °C (sensor 3)" in said and "air temperature 15.3 °C (sensor 4)" in said
    labels = {r.value_id: r.label for r in readings(thermostat, 0) if r.quantity == "temperature"}
    assert sorted(labels.values()) == [
        "Air temperature (sensor 2)",
        "Air temperature (sensor 3)",
        "Air temperature (sensor 4)",
    ]


def test_an_endpoint_is_told_by_its_own_label_where_zwave_js_gives_one() -> None:
    """zwave-js-ui sends each endpoint's label: the device's own ("Floor sensor", from its configuration
    file) or a generic "Endpoint 4"; a label from outside is made plain."""
    (node,) = nodes("invalid_multilevel_sensor_type_state.json")
    node.endpoint_labels = {0: "Root Endpoint", 2: "Endpoint 2", 3: "External\nsensor", 4: "Floor sensor"}
    (thermostat,) = build_devices([node])
    said = sentence(thermostat)
    assert "air temperature 0 °C (External sensor)" in said and "15.3 °C (Floor sensor)" in said


def test_the_same_news_from_several_endpoints_is_said_once_without_places() -> None:
    """Shelly Wave Shutter: both endpoints say "no heat alarm"; that is said once, as it is."""
    shutter = device("shelly_eu_wave_shutter_state.json", "Shutter")
    said = sentence(shutter)
    assert said.count("no heat alarm") == 1 and "(sensor" not in said


def test_a_thermostat_says_its_fan_mode_and_what_its_fan_does() -> None:
    """ADC-T3000: fan mode Auto low, fan state Idle / off. Its fan mode could be set but was never said."""
    thermostat = device("climate_adc_t3000_state.json", "Hall Thermostat")
    assert "idle, with the fan on auto low (not running), " in sentence(thermostat)
    thermostat.values[m.THERMOSTAT_FAN_MODE].value = 1  # Low
    thermostat.values[m.THERMOSTAT_FAN_STATE].value = 2  # Running high
    assert ", with the fan on low (running high)" in sentence(thermostat)
    thermostat.values[m.THERMOSTAT_FAN_STATE].value = 8  # Quiet circulation mode
    assert ", with the fan on low (circulating)" in sentence(thermostat)
    fan_off = thermostat.values[m.THERMOSTAT_FAN_OFF]  # Thermostat Fan Mode "off": the fan is kept off
    fan_off.value = True
    assert ", with the fan off" in sentence(thermostat) and "auto low" not in sentence(thermostat)
    assert change_phrase(thermostat, fan_off, True) == "turned its fan off"


def test_an_overflowed_energy_total_is_said_in_full_and_as_impossible() -> None:
    """Two real devices report their energy total as a counter overflow (-214748364.8 kWh, -21474727.91
    kWh); the sentence said "-2.14748e+08 kWh in total"."""
    shutter = device("cover_qubino_zmnhcd_state.json", "Office Shutter")
    assert sentence(shutter) == (
        "Office Shutter is 98 % open, using 0 W, an impossible energy total of -214748364.8 kWh."
    )
    plug = device("plug_neo_nas_wr01ze_state.json", "Kettle Plug")
    assert "an impossible energy total of -21474727.9 kWh" in sentence(plug)


def test_a_large_total_is_said_in_full() -> None:
    """A home energy meter's lifetime total past a million is said as a number, not in e-notation."""
    meter = device("meter_aeotec_dsb28_hem_g2_state.json", "Panel")
    total = next(r for r in readings(meter, 0) if r.spoken_label == "energy" and r.endpoint == 0)
    assert replace(total, value=1234567.8).spoken() == "energy 1234567.8 kWh (main sensor)"


def test_a_home_energy_meter_says_what_each_clamp_uses() -> None:
    """Aeotec DSB28: the whole panel on the node, a clamp on each of endpoints 1 and 2; the sentence said the
    panel only, then (issue 43 item 27) each clamp as "sensor 1" with its power and energy only; each clamp
    is named as one and says its voltage and current too."""
    meter = device("meter_aeotec_dsb28_hem_g2_state.json", "Sub Panel")
    assert sentence(meter) == (
        "Sub Panel is using 47.096 W at 123.053 V and 0.844 A, 739.552 kWh in total, "
        "clamp 1 using 23.692 W at 122.745 V and 0.464 A with 342.578 kWh in total, "
        "clamp 2 using 23.523 W at 122.745 V and 0.381 A with 397.333 kWh in total."
    )


def test_the_clamps_of_a_meter_are_told_apart_even_when_they_read_alike() -> None:
    """DSB28 "House AC": both clamps read 0 W; each is still its own circuit with its own voltage."""
    meter = device("meter_aeotec_dsb28_hem_g2_house_ac_state.json", "House AC")
    assert sentence(meter) == (
        "House AC is using 1.946 W at 121.746 V and 0.028 A, 155.793 kWh in total, "
        "clamp 1 using 0 W at 122.684 V and 0 A with 77.886 kWh in total, "
        "clamp 2 using 0 W at 122.745 V and 0 A with 77.907 kWh in total."
    )


def test_an_input_voltage_is_no_supply_voltage() -> None:
    """Zooz ZEN31: its load's power is on endpoint 1, its four analog inputs read 0 V on endpoints 6-9; main
    said "using 5.1 W at 0 V" (issue 43 item 27)."""
    dimmer = device("zen_31_state.json", "Kitchen Under Cabinet Lights")
    assert sentence(dimmer) == (
        "Kitchen Under Cabinet Lights are on at 59 %, #ff9f46, using 5.1 W, 8.33 kWh in total, "
        "voltage 0 V at sensor 6, sensor 7, sensor 8 and sensor 9."
    )


def test_an_export_channel_says_what_it_exports() -> None:
    """A meter's export readings (Meter rate type 2, as zwave-js gives a solar export channel) are said as
    exports: the DSB28's second clamp's values given that rate type (no real dump here has one)."""
    meter = device("meter_aeotec_dsb28_hem_g2_state.json", "Panel")
    for value in meter.all_values():
        if value.endpoint == 2 and value.command_class == 50 and value.property == "value":
            value.update_meta(cc_specific={**value.cc_specific, "rateType": 2})
    said = sentence(meter)
    assert "clamp 2 exporting 23.523 W at 122.745 V and 0.381 A with 397.333 kWh exported in total" in said
