"""State summaries, readings and spoken sentences for the captured house."""

from __future__ import annotations

from tests.unit.test_devices_build import house, raw_nodes
from zwave_mcp.devices import model as m
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.describe import change_phrase, sentence, state_summary
from zwave_mcp.devices.readings import readings
from zwave_mcp.gateway.nodes import parse_node

SUMMARIES = {
    "2": "off",
    "3": "40 %",
    "4": "air temperature 21.6 °C, humidity 46 %",
    "5": "unlocked and the door is open",
    "6": "heating to 20 °C, 20.8 °C now",
    "7": "no motion",
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
    assert state_summary(d["10"]) == "open"
    d["10"].values[m.COVER_CURRENT].value = 40
    assert state_summary(d["10"]) == "40 % open"
    d["9"].values[m.LEVEL_CURRENT].value = 50
    d["9"].values[m.COLOR_HEX].value = "ff5000"
    d["9"].values[m.COLOR_CURRENT].value = {
        "warmWhite": 0,
        "coldWhite": 0,
        "red": 255,
        "green": 80,
        "blue": 0,
    }
    assert state_summary(d["9"]) == "50 %, #ff5000"
    d["9"].values[m.COLOR_CURRENT].value = {"warmWhite": 255, "coldWhite": 0, "red": 0, "green": 0, "blue": 0}
    assert state_summary(d["9"]) == "50 %, warm white"
    d["7"].readings[m.Capability.NOTIFICATION][1].value = 8
    assert (
        state_summary(d["7"]) == "motion detected"
    )  # the notification's alarm wins over the resting binary sensor
    d["7"].readings[m.Capability.BINARY_SENSOR][0].value = True
    assert state_summary(d["7"]) == "motion detected"  # the binary sensor and the notification say it once
    assert sentence(d["7"]) == "Garage Motion reports motion detected and battery 100 %."
    d["7"].readings[m.Capability.NOTIFICATION][0].value = 3
    assert (
        sentence(d["7"])
        == "Garage Motion reports motion detected, its cover has been removed and battery 100 %."
    )
    d["2"].values[m.SWITCH_CURRENT].value = None
    assert state_summary(d["2"]) == "unknown"


def test_sentences() -> None:
    d = house()
    assert sentence(d["2"]) == "Kitchen Light is off."
    assert sentence(d["3"]) == "Living Room Lamp is on at 40 %."
    assert (
        sentence(d["4"]) == "Bedroom Sensor reports air temperature 21.6 °C, humidity 46 % and battery 87 %."
    )
    assert sentence(d["6"]) == "Hallway Thermostat is heating to 20 °C; it is 20.8 °C now."
    assert sentence(d["5"]) == "Front Door Lock is unlocked and the door is open; battery 64 %."
    assert sentence(d["8"]) == "Coffee Maker Plug is off, using 0 W at 230.1 V and 0 A, 12.34 kWh in total."
    d["5"].values[m.LOCK_CURRENT].value = 255
    assert sentence(d["5"]) == "Front Door Lock is locked, but the door is open; battery 64 %."
    d["5"].values[m.LOCK_CURRENT].value = 1  # UnsecuredWithTimeout: no enum words
    assert sentence(d["5"]) == "Front Door Lock is unlocked and the door is open; battery 64 %."
    d["5"].values[m.BATTERY_LEVEL].value = 8
    assert sentence(d["5"]) == "Front Door Lock is unlocked and the door is open; battery low (8 %)."
    mode = d["6"].values[m.THERMOSTAT_MODE]
    mode.value = 2
    assert sentence(d["6"]) == "Hallway Thermostat is cooling to 24 °C; it is 20.8 °C now."
    mode.value = 0
    # Off, or before the mode is reported, the setpoints are still what it is set to (issue 35).
    assert sentence(d["6"]) == (
        "Hallway Thermostat is off, with heating set to 20 °C and cooling set to 24 °C; it is 20.8 °C now."
    )
    assert state_summary(d["6"]) == "off, 20.8 °C now; heating set to 20 °C, cooling set to 24 °C"
    mode.value = 3
    assert (
        sentence(d["6"]) == "Hallway Thermostat is in auto mode, between 20 °C and 24 °C; it is 20.8 °C now."
    )
    mode.value = None
    d["6"].values[m.THERMOSTAT_TEMPERATURE].value = None
    assert sentence(d["6"]) == (
        "Hallway Thermostat is not reporting its mode yet, with heating set to 20 °C and cooling set to 24 °C."
    )
    d["2"].values[m.SWITCH_CURRENT].value = None
    assert sentence(d["2"]) == "Kitchen Light has not reported whether it is on."


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
    motion = [(r.label, r.sensor, r.alarm, r.text) for r in readings(d["7"], now)]
    assert motion == [
        ("Motion", "motion", False, "no motion"),
        ("Cover status", "tamper", False, "not tampered with"),
        ("Motion sensor status", "motion", False, "no motion"),
        ("Battery", None, None, None),
    ]
    assert [r.quantity for r in readings(d["8"], now)] == ["energy", "power", "voltage", "current"]
    assert readings(d["2"], now) == []


def test_a_device_that_has_reported_nothing_yet_is_said_so() -> None:
    """Just after zwave-js-ui starts, getNodes lists nodes without values: the sentence was
    "Kitchen Light is no readings.", and it is still loading (issue 30)."""
    raw = next(n for n in raw_nodes() if n["id"] == 2)
    node = parse_node({**raw, "values": {}, "ready": False})
    assert node is not None
    (device,) = build_devices([node])
    assert sentence(device) == (
        "Kitchen Light is still loading: zwave-js-ui has not sent its values yet; ask again in a few seconds."
    )


def test_a_door_status_that_is_neither_open_nor_closed_is_not_reported_as_closed() -> None:
    d = house()
    door = d["5"].values[m.LOCK_DOOR]
    for said in ("\u202eopen", "ajar", "", "\ufffd"):
        door.value = said
        assert sentence(d["5"]) == "Front Door Lock is unlocked; battery 64 %.", said
    door.value = "Closed"
    assert sentence(d["5"]) == "Front Door Lock is unlocked, door closed; battery 64 %."


def test_a_switch_state_of_the_wrong_type_is_not_reported_as_off() -> None:
    d = house()
    for junk in ("1", "on", [1], {"value": True}):
        d["2"].values[m.SWITCH_CURRENT].value = junk
        assert sentence(d["2"]) == "Kitchen Light has not reported whether it is on.", junk


def test_a_reading_no_float_can_hold_is_not_spoken_as_a_number() -> None:
    """An integer beyond any float made the sentence raise (every list of the house crashed with it);
    infinity and NaN (1e400 and NaN in JSON) were spoken as "inf °C" and "nan °C"."""
    d = house()
    temperature = d["4"].readings[m.Capability.SENSOR][0]
    for junk in (10**400, float("inf"), float("nan")):
        temperature.value = junk
        said = sentence(d["4"])
        assert "inf" not in said and "nan" not in said and "humidity 46 %" in said, said
        state_summary(d["4"])
    level = d["3"].values[m.LEVEL_CURRENT]
    for junk in (10**400, float("inf"), float("nan")):
        level.value = junk
        assert sentence(d["3"]) == "Living Room Lamp has not reported whether it is on.", junk
    level.value = 50
    level.update_meta(min=float("inf"), max=float("nan"))
    sentence(d["3"])


def test_a_change_to_a_number_no_float_holds_is_said_to_be_unreadable() -> None:
    """Recent events said "reported remaining duration nan"."""
    d = house()
    for device in d.values():
        for value in device.node.values.values():
            for junk in (float("nan"), float("inf"), 10**400):
                said = change_phrase(device, value, junk)
                assert "nan" not in said.split() and "inf" not in said.split() and "999" not in said, said


def test_a_colour_channel_no_float_holds_is_left_out() -> None:
    """An infinite or 400-digit channel made every sentence about the bulb raise."""
    d = house()
    bulb = d["9"]
    bulb.values[m.COLOR_CURRENT].value = {"red": float("inf"), "green": 10**400, "blue": 5, "warmWhite": 0}
    bulb.values[m.LEVEL_CURRENT].value = 50
    assert sentence(bulb).startswith("Bedroom Color Bulb is on at 50 %")
