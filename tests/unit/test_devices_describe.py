"""State summaries, readings and spoken sentences for the captured house."""

from __future__ import annotations

from tests.unit.test_devices_build import house
from zwave_mcp.devices import model as m
from zwave_mcp.devices.describe import readings, sentence, state_summary

SUMMARIES = {
    "2": "off",
    "3": "40 %",
    "4": "21.6 °C air temperature, 46 % humidity",
    "5": "unlocked, door open",
    "6": "heat to 20 °C, 20.8 °C now",
    "7": "motion clear",
    "8": "off, 0 W",
    "9": "off",
    "10": "closed",
    "11.1": "off",
    "11.2": "off",
}


def test_summaries_of_the_captured_house() -> None:
    assert {k: state_summary(d) for k, d in house().items()} == SUMMARIES


def test_summaries_follow_the_values() -> None:
    d = house()
    d["5"].values[m.LOCK_CURRENT].value = 255
    d["5"].values[m.LOCK_DOOR].value = "closed"
    assert state_summary(d["5"]) == "locked, door closed"
    d["10"].values[m.COVER_CURRENT].value = 99
    assert state_summary(d["10"]) == "open 100 %"
    d["9"].values[m.LEVEL_CURRENT].value = 50
    d["9"].values[m.COLOR_HEX].value = "ff5000"
    assert state_summary(d["9"]) == "50 %, colour #ff5000"
    d["7"].readings[m.Capability.NOTIFICATION][1].value = 8
    assert state_summary(d["7"]) == "motion clear, motion sensor status motion detection"
    d["2"].values[m.SWITCH_CURRENT].value = None
    assert state_summary(d["2"]) == "unknown"


def test_sentences() -> None:
    d = house()
    assert sentence(d["2"]) == "Kitchen Light is off."
    assert sentence(d["3"]) == "Living Room Lamp is on at 40 %."
    assert sentence(d["4"]) == "Bedroom Sensor reports 21.6 °C air temperature, 46 % humidity."
    assert sentence(d["6"]) == "Hallway Thermostat is set to heat to 20 °C, 20.8 °C now."


def test_readings_cover_every_reading_value_with_unit_and_age() -> None:
    d = house()
    sensor = d["4"]
    now = 1_795_313_425_000
    got = readings(sensor, now)
    assert [(r.label, r.value, r.unit, r.value_id) for r in got] == [
        ("Air temperature", 21.6, "°C", "4-49-0-Air temperature"),
        ("Humidity", 46, "%", "4-49-0-Humidity"),
        ("Battery", 87, "%", "4-128-0-level"),
    ]
    for r in got:
        value = sensor.node.values[r.value_id]
        assert r.age_s == (now - (value.last_update_ms or 0)) / 1000
    plug = [(r.label, r.unit) for r in readings(d["8"], now)]
    assert plug == [("Energy", "kWh"), ("Power", "W"), ("Voltage", "V"), ("Current", "A")]
    motion = [(r.label, r.text) for r in readings(d["7"], now)]
    assert motion == [
        ("Motion", "clear"),
        ("Cover status", "idle"),
        ("Motion sensor status", "idle"),
        ("Battery", None),
    ]
    assert readings(d["2"], now) == []
