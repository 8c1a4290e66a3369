"""What discovery makes of real devices (node dumps of public origin in fixtures/devices/), and how their
natural controls are planned. Expectations come from what each device is (its maker's description and
Home Assistant's discovery of the same model), not from a snapshot of zwave-mcp's output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zwave_mcp.devices import model as m
from zwave_mcp.devices.build import devices_for_node
from zwave_mcp.devices.control import available_actions, control_change, plan_control
from zwave_mcp.devices.describe import sentence
from zwave_mcp.devices.errors import ActionNotSupported, InvalidValue
from zwave_mcp.devices.kinds.fan import FanData
from zwave_mcp.devices.model import Capability as C
from zwave_mcp.devices.model import Device
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.policy.sensitive import SafeBand, sensitivity
from zwave_mcp.policy.terms import DeviceList
from zwave_mcp.simulator.dumps import load_house_file

ROOT = Path(__file__).resolve().parents[2]
DUMPS = ROOT / "fixtures" / "devices"


def devices_of(file: str, name: str = "") -> list[Device]:
    found: list[Device] = []
    for raw in load_house_file(DUMPS / file):
        if name:
            raw["name"] = name
        node = parse_node(raw)
        if node is not None and not node.is_controller:
            found.extend(devices_for_node(node))
    return found


def one(file: str, name: str = "Thing") -> Device:
    (device,) = devices_of(file, name)
    return device


def confirm_reason(device: Device, action: str, **args: Any) -> str | None:
    change = control_change(plan_control(device, action, **args))
    effect = change.effects[0]
    return sensitivity(
        device,
        effect.words,
        effect.argument,
        unit=effect.unit,
        band=SafeBand(),
        confirm_actions=frozenset(),
        confirm_devices=DeviceList(),
    )


# ---- fans ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "speeds"),
    [
        ("fan_ge_12730_state.json", ["low", "medium", "high"]),
        ("fan_honeywell_39358_state.json", ["low", "medium", "high"]),
        ("leviton_zw4sf_state.json", ["low", "medium", "high", "max"]),
        ("fan_jasco_14314_state.json", ["low", "medium", "high"]),  # no speeds of its own: thirds
    ],
)
def test_fans_known_by_model_are_fans_with_their_own_speeds(file: str, speeds: list[str]) -> None:
    fan = one(file, "Ceiling Fan")
    assert fan.kind == C.FAN and C.DIMMER not in fan.capabilities
    assert {"on", "off", "set_speed"} <= set(available_actions(fan))
    assert "dim" not in available_actions(fan)
    with pytest.raises(InvalidValue) as err:
        plan_control(fan, "set_speed", value="turbo")
    said = ", ".join(speeds[:-1]) + " and " + speeds[-1]
    assert str(err.value) == (
        f"Ceiling Fan has speeds {said}, or a percentage from 1 to 100; 'turbo' is neither."
    )


def test_a_fan_of_known_speeds_runs_at_them_by_name_or_by_percent() -> None:
    fan = one("fan_ge_12730_state.json", "Ceiling Fan")  # GE 12730: 1-33, 34-67, 68-99
    medium = plan_control(fan, "set speed", value="Medium")
    assert (medium.action, medium.argument, medium.writes[0].target) == ("set_speed", "medium", 67)
    assert medium.summary == "set Ceiling Fan to medium"
    assert plan_control(fan, "set_speed", level=20).writes[0].target == 33  # 20 % is in low
    assert plan_control(fan, "speed", value="high").expectations[0].expected == 99
    off = plan_control(fan, "set_speed", value="off")
    assert off.writes[0].target == 0
    # a level written to a fan is judged as a speed by the gate
    assert control_change(medium).effects[0].words == frozenset({"on", "set_speed"})


def test_a_fan_of_the_fan_switch_device_class_is_a_fan_whatever_its_model() -> None:
    raw = load_house_file(DUMPS / "fan_honeywell_39358_state.json")
    node = next(n for n in (parse_node(r) for r in raw) if n is not None and not n.is_controller)
    node.device_id = "1-2-3"  # another maker: only the device class (Multilevel Switch / Fan Switch) says fan
    assert (node.generic_class, node.specific_class) == (0x11, 0x08)
    (fan,) = devices_for_node(node)
    assert fan.kind == C.FAN and fan.template(FanData) is None
    assert plan_control(fan, "set_speed", value="low").writes[0].target == 33


# ---- covers ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "file", ["cover_iblinds_v2_state.json", "cover_zvidar_state.json", "window_covering_outbound_bottom.json"]
)
def test_blinds_and_curtains_of_any_drive_are_covers(file: str) -> None:
    cover = one(file, "Curtain")
    assert cover.kind == C.COVER
    assert C.SWITCH not in cover.capabilities  # a blind's own relay is not a second thing to switch
    assert {"open", "close", "set_position"} <= set(available_actions(cover))
    half = plan_control(cover, "set_position", position=50)
    assert half.argument == 50 and half.summary == "set Curtain to 50 % open"


def test_a_garage_door_controller_is_an_entry_and_opening_it_is_confirmed() -> None:
    door = one("cover_zw062_state.json", "Garage")
    assert door.kind == C.COVER and door.is_entry
    assert available_actions(door) == ["open", "close"]
    assert confirm_reason(door, "open") == "it can open a way into the house"
    assert confirm_reason(door, "close") is None


def test_slats_of_a_window_covering_tilt() -> None:
    from tests.unit.test_devices_build import house

    blinds = house()["10"]  # the captured Living Room Blinds: Outbound Bottom and Horizontal Slats Angle
    assert blinds.values[m.TILT_TARGET].value_id == "10-106-0-targetValue-23"
    plan = plan_control(blinds, "tilt", value=50)
    assert (plan.writes[0].value.value_id, plan.writes[0].target) == ("10-106-0-targetValue-23", 50)
    assert plan.summary == "tilt the slats of Living Room Blinds to 50 %"
    assert control_change(plan).effects[0].words == frozenset({"set_tilt"})


# ---- sirens ----------------------------------------------------------------------------------------------


def test_a_sound_switch_siren_has_a_device_per_endpoint_with_tones_and_volume() -> None:
    sirens = devices_of("aeotec_zw164_siren_state.json", "Indoor Siren")
    assert [d.key for d in sirens] == [f"2.{ep}" for ep in range(1, 9)]
    assert all(d.kind == C.SIREN for d in sirens)
    second = sirens[1]
    tones = [s.text for s in second.values[m.SIREN_TONE].states]
    assert {"on", "off", "set_tone", "set_volume"} <= set(available_actions(second))
    chosen = tones[1]  # 0 is "off"
    plan = plan_control(second, "set_tone", value=chosen.upper())
    assert plan.writes[0].target == second.values[m.SIREN_TONE].states[1].value
    volume = plan_control(second, "volume", level=30)
    assert (volume.writes[0].value.property, volume.writes[0].target) == ("defaultVolume", 30)
    with pytest.raises(InvalidValue, match="has no tone 'kazoo'; it has: "):
        plan_control(second, "set_tone", value="kazoo")


def test_sounding_a_siren_is_not_confirmed_but_silencing_it_is() -> None:
    siren = devices_of("aeotec_zw164_siren_state.json", "Indoor Siren")[1]
    on = plan_control(siren, "on")
    assert (on.writes[0].value.property, on.writes[0].target) == ("toneId", 255)  # its default tone
    assert confirm_reason(siren, "on") is None
    assert confirm_reason(siren, "off") == "it can switch off an alarm"
    assert confirm_reason(siren, "set_volume", level=0) == "it can switch off an alarm"


def test_a_binary_switch_siren_sounds_and_is_silenced_like_a_switch() -> None:
    siren = one("siren_neo_coolcam_nas-ab01z_state.json", "Hall Siren")
    assert siren.kind == C.SIREN and C.SWITCH not in siren.capabilities
    assert {"on", "off"} <= set(available_actions(siren))
    assert plan_control(siren, "on").writes[0].target is True
    assert confirm_reason(siren, "off") == "it can switch off an alarm"


def test_a_multilevel_switch_siren_sounds_its_tones_by_level() -> None:
    siren = one("fortrezz_ssa1_siren_state.json", "Front Door Siren")
    assert siren.kind == C.SIREN and C.DIMMER not in siren.capabilities
    plan = plan_control(siren, "set_tone", value="siren only")
    assert (plan.writes[0].target, plan.argument) == (66, "Siren only")
    assert plan_control(siren, "on").writes[0].target == 99  # siren and strobe
    assert sentence(siren) == "Front Door Siren is silent."


# ---- sensors and remotes ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "purposes"),
    [
        ("zcombo_smoke_co_alarm_state.json", {"smoke", "co"}),
        ("zp3111-5_state.json", {"motion", "tamper"}),
        ("ecolink_door_sensor_state.json", {"door"}),
    ],
)
def test_notification_and_binary_sensors_are_binary_sensors_of_their_type(
    file: str, purposes: set[str]
) -> None:
    sensor = one(file)
    assert sensor.kind == C.BINARY_SENSOR
    assert purposes <= set(sensor.purposes.values())
    assert C.SWITCH not in sensor.capabilities  # Ecolink's empty Basic values are a mirror, not a switch
    with pytest.raises(ActionNotSupported, match="only reports readings"):
        plan_control(sensor, "on")


def test_a_siren_endpoint_that_names_no_tones_plays_them_by_number() -> None:
    first = devices_of("aeotec_zw164_siren_state.json", "Indoor Siren")[0]
    assert "set_tone" in available_actions(first)
    assert plan_control(first, "set_tone", value="6").writes[0].target == 6
    with pytest.raises(InvalidValue, match="it has: tones by number, from 1 to 254"):
        plan_control(first, "set_tone", value="doorbell")


def test_the_slat_endpoint_of_a_shutter_is_its_tilt_not_a_second_cover() -> None:
    (shutter,) = devices_of("shelly_eu_wave_shutter_state.json", "Shutter")
    assert shutter.endpoint is None and shutter.kind == C.COVER
    assert shutter.values[m.COVER_TARGET].endpoint == 1 and shutter.values[m.TILT_TARGET].endpoint == 2
    assert plan_control(shutter, "set_tilt", position=30).writes[0].value.endpoint == 2


def test_a_central_scene_remote_is_a_button() -> None:
    remote = one("wallmote_central_scene_state.json", "WallMote")
    assert remote.kind == C.BUTTON
    assert [v.property_key for v in remote.readings[C.BUTTON]] == ["004", "001", "002", "003"]


def test_energy_production_is_read() -> None:
    inverter = one("energy_production_state.json", "Solar")
    assert inverter.kind == C.METER
    assert {v.command_class for v in inverter.readings[C.METER]} == {0x90}
    assert set(inverter.purposes.values()) == {"energy_production"}


# ---- valves and the thermostat fan ---------------------------------------------------------------------------


def test_a_water_valve_opens_and_closes_and_closing_it_is_confirmed() -> None:
    valve = one("zooz_zac36_titan_valve_actuator_state.json", "Water Main")
    assert valve.kind == C.VALVE
    assert available_actions(valve) == ["open", "close"]
    close = plan_control(valve, "turn off")
    assert (close.action, close.writes[0].target) == ("close", False)
    assert confirm_reason(valve, "close") == "it can shut off the supply to the house"
    assert confirm_reason(valve, "open") is None
    assert sentence(valve).startswith("Water Main is closed")  # its current value says closed


def test_the_thermostat_fan_mode_is_set_by_name() -> None:
    thermostat = one("climate_adc_t3000_state.json", "Thermostat")
    assert "set_fan_mode" in available_actions(thermostat)
    plan = plan_control(thermostat, "fan mode", mode="low")
    assert (plan.writes[0].value.command_class, plan.writes[0].target, plan.argument) == (0x44, 1, "Low")
    with pytest.raises(InvalidValue) as err:
        plan_control(thermostat, "set_mode", mode="Low")
    assert "is one of its fan modes: set it with set_fan_mode" in str(err.value)
    with pytest.raises(InvalidValue, match=r"has no fan mode .turbo.; it has: Auto low, Low, Circulation\."):
        plan_control(thermostat, "set_fan_mode", mode="turbo")


def test_a_device_no_row_understands_says_so() -> None:
    from zwave_mcp.gateway.model import ZNode, ZValue

    node = ZNode(id=40, name="Gadget")
    mystery = ZValue("40-153-0-x", 40, 153, "", 0, "x", type="number")
    node.values = {mystery.value_id: mystery}
    (device,) = devices_for_node(node)
    with pytest.raises(ActionNotSupported, match="Gadget is not understood yet"):
        plan_control(device, "on")


@pytest.mark.parametrize(
    ("file", "kind", "not_caps"),
    [
        ("leviton_vrf01_state.json", C.FAN, {C.DIMMER}),  # a fan speed control known by model
        # the plug is no lamp: its LED ring is a light of its own (test_night_light.py)
        ("aeon_smart_switch_6_state.json", C.SWITCH, {C.COLOR, C.DIMMER}),
        ("zooz_zse44_state.json", C.SENSOR, {C.BINARY_SENSOR}),  # a freeze alert does not make it one
    ],
)
def test_model_rows_and_alerts(file: str, kind: C, not_caps: set[C]) -> None:
    (device, *_) = devices_of(file, "Thing")  # the node by its own name
    assert device.kind == kind
    assert not not_caps & set(device.capabilities)


def test_a_heat_alarm_of_underheat_is_a_freeze_alert() -> None:
    sensor = one("zooz_zse44_state.json")
    assert "freeze" in sensor.purposes.values() and "heat" not in sensor.purposes.values()


def test_closing_a_valve_that_supplies_nothing_of_the_house_is_not_confirmed() -> None:
    valve = one("zooz_zac36_titan_valve_actuator_state.json", "Garden Zone 1")
    valve.node.product_label, valve.node.product_description = "ZAC36", "Valve Actuator"
    assert confirm_reason(valve, "close") is None
    valve.node.product_description = "Titan Water Valve Actuator"  # its product says water: a main
    assert confirm_reason(valve, "close") == "it can shut off the supply to the house"


def test_the_gate_reads_the_new_kinds_writes_by_what_they_do() -> None:
    from zwave_mcp.devices.gate.change import effect_words

    fan = one("fan_ge_12730_state.json", "Fan")
    assert effect_words(fan, fan.values[m.LEVEL_TARGET], 0)[0] == frozenset({"off", "set_speed"})
    siren = devices_of("aeotec_zw164_siren_state.json", "Siren")[1]
    assert effect_words(siren, siren.values[m.SIREN_TONE], 0)[0] == frozenset({"off"})
    assert effect_words(siren, siren.values[m.SIREN_TONE], 3)[0] == frozenset({"on", "set_tone"})
    thermostat = one("climate_adc_t3000_state.json")
    assert effect_words(thermostat, thermostat.values[m.THERMOSTAT_FAN_MODE], 1) == (
        frozenset({"set_fan_mode"}),
        "Low",
    )


def test_a_running_fan_is_on_when_asked() -> None:
    from zwave_mcp.devices.questions import Question, answer

    fan = one("leviton_zw4sf_state.json", "Ceiling Fan")  # reported at a medium speed
    said = answer(Question.ON, [fan], "fans", everything=False)
    assert said.matching == [fan], said.sentence
