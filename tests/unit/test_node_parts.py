"""A node is what its owner bought it for (issue 35): by its own name a multi-endpoint node answers with its
main function and every reading of the endpoints that are not devices of their own; a thermostat split over
endpoints is one thermostat; thermostats say their setpoints in every mode, their valve and their modes by
name; a lock says when it is jammed or tampered with. On real node dumps (`fixtures/devices/`).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from zwave_mcp.commands.explain import explain_nodes, render_text
from zwave_mcp.devices import model as m
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.control import available_actions, plan_control
from zwave_mcp.devices.describe import change_phrase, sentence, state_summary
from zwave_mcp.devices.errors import InvalidValue
from zwave_mcp.devices.kinds.thermostat import setpoints
from zwave_mcp.devices.model import Capability as C
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.readings import readings
from zwave_mcp.devices.resolve import DeviceIndex
from zwave_mcp.gateway.model import ZNode
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"


def raw_node(file: str) -> dict[str, Any]:
    """The dump's device node, in zwave-js-ui's getNodes shape (values keyed "<cc>-<ep>-<property>…")."""
    return next(n for n in load_house_file(DEVICES / file) if not n.get("isControllerNode"))


def node_of(raw: dict[str, Any]) -> ZNode:
    node = parse_node(copy.deepcopy(raw))
    assert node is not None
    return node


def devices(file: str, raw: dict[str, Any] | None = None) -> list[Device]:
    return build_devices([node_of(raw if raw is not None else raw_node(file))])


def quantities(device: Device) -> set[str]:
    return {r.quantity for r in readings(device, 0) if r.quantity}


# ---- a multi-endpoint module: the Inovelli LZW36 fan/light (light ep 1, fan ep 2, meter and buttons on root)


def test_a_fan_light_module_is_its_light_by_its_own_name_with_the_node_meter_and_buttons() -> None:
    light, fan = devices("inovelli_lzw36_state.json")
    assert (light.name, light.key, light.endpoint, light.kind) == ("family_room_combo", "19.1", 1, C.DIMMER)
    assert {"power", "energy"} <= quantities(light)  # the root's meter was nobody's before
    assert light.has(C.BUTTON)  # and its paddle presses
    assert "on" in available_actions(light) and "dim" in available_actions(light)
    assert sentence(light) == "family_room_combo is off, using 0.4 W, 78.057 kWh in total."
    assert (fan.name, fan.key, fan.kind, fan.part) == ("family_room_combo 2", "19.2", C.FAN, "2")
    index = DeviceIndex([light, fan])
    assert index.resolve("family_room_combo", for_mutation=True) is light  # not "only reports readings"
    assert index.resolve("family_room_combo 1", for_mutation=True) is light  # its name before
    assert index.resolve("family_room_combo 2", for_mutation=True) is fan


def test_a_part_is_named_by_the_label_zwave_js_gives_its_endpoint() -> None:
    raw = raw_node("inovelli_lzw36_state.json")
    for endpoint in raw["endpoints"]:
        endpoint["label"] = {1: "Light", 2: "Fan"}.get(endpoint["index"], endpoint["label"])
    light, fan = devices("", raw)
    assert (light.name, fan.name, fan.part) == ("family_room_combo", "family_room_combo Fan", "Fan")
    index = DeviceIndex([light, fan])
    assert index.resolve("family_room_combo fan", for_mutation=True) is fan
    assert index.resolve("family_room_combo 2", for_mutation=True) is fan  # its number still reaches it


def test_a_double_relay_is_its_first_relay_by_its_own_name() -> None:
    first, second = devices("vision_security_zl7432_state.json")
    assert (first.name, first.key, first.part) == ("nodeID_7", "7.1", None)
    assert (second.name, second.key, second.part) == ("nodeID_7 2", "7.2", "2")


# ---- a floor-heating thermostat: the Heatit Z-TRM2fx (thermostat ep 1, sensors ep 2-3, relay and meter ep 4)


def test_a_floor_heating_thermostat_answers_as_the_thermostat_with_every_reading() -> None:
    thermostat, relay = devices("climate_heatit_z_trm2fx_state.json")
    assert (thermostat.name, thermostat.kind, thermostat.key) == ("nodeID_26", C.THERMOSTAT, "26.1")
    assert {"set_temperature", "set_mode"} <= set(available_actions(thermostat))
    assert {"temperature", "power", "energy", "voltage"} <= quantities(thermostat)
    assert sentence(thermostat) == (
        "nodeID_26 is heating to 29 °C, using 493.57 W at 237.1 V, 795.7 kWh in total; "
        "it is 0 °C now, with air temperature 28.8 °C (sensor 3)."
    )
    assert (relay.name, relay.kind) == ("nodeID_26 4", C.SWITCH)  # its relay stays reachable
    assert not relay.has(C.METER)  # its meter is the thermostat's: a room's energy is counted once
    index = DeviceIndex([thermostat, relay])
    assert index.resolve("nodeID_26", for_mutation=True) is thermostat
    assert (
        plan_control(thermostat, "set_temperature", value=21).writes[0].value.value_id == "26-67-1-setpoint-1"
    )


def test_explain_reads_each_device_as_it_answers() -> None:
    text = render_text(explain_nodes([node_of(raw_node("climate_heatit_z_trm2fx_state.json"))], 0), "trm2fx")
    assert (
        "  - nodeID_26 [key 26.1, endpoint 1, the node's main part]: thermostat (also sensor, meter)" in text
    )
    assert "      says:  nodeID_26 is heating to 29 °C, using 493.57 W" in text
    assert "  - nodeID_26 4 [key 26.4, endpoint 4]: switch\n" in text


# ---- a thermostat split over endpoints: a CT100 with setpoints on the root and its mode on endpoints 1 and 2


def test_a_thermostat_split_over_endpoints_is_one_thermostat() -> None:
    (thermostat,) = devices(
        "climate_radio_thermostat_ct100_mode_and_setpoint_on_different_endpoints_state.json"
    )
    assert (thermostat.name, thermostat.key, thermostat.kind) == ("nodeID_8", "8", C.THERMOSTAT)
    assert thermostat.values[m.THERMOSTAT_MODE].value_id == "8-64-1-mode"
    assert set(setpoints(thermostat)) == {1, 2}
    assert m.THERMOSTAT_OPERATING in thermostat.values and m.THERMOSTAT_FAN_MODE in thermostat.values
    assert {"set_temperature", "set_mode", "set_fan_mode"} <= set(available_actions(thermostat))
    assert {"temperature", "humidity", "battery"} <= quantities(thermostat)
    assert sentence(thermostat) == (
        "nodeID_8 is not reporting its mode yet and idle, with heating set to 69 °F, cooling set to 72 °F and "
        "the fan on auto low (not running); it is 70 °F now, with humidity 60 % and battery 100 %."
    )


# ---- thermostats complete


def test_setpoints_are_said_when_off() -> None:
    thermostat, _ = devices("climate_heatit_z_trm2fx_state.json")
    thermostat.values[m.THERMOSTAT_MODE].value = 0
    assert state_summary(thermostat) == (
        "off, 0 °C now; heating set to 29 °C, cooling set to 20 °C, energy save heating set to 25 °C"
    )
    assert sentence(thermostat).startswith(
        "nodeID_26 is off, with heating set to 29 °C, cooling set to 20 °C and energy save heating set to 25 °C"
    )


@pytest.mark.parametrize(
    ("mode", "said", "changed"),
    [
        (31, "in manufacturer specific mode", "switched to manufacturer specific mode"),  # zwave-js's name
        (42, "in mode 42", "switched to mode 42"),  # a number nobody names
    ],
)
def test_a_mode_outside_the_list_is_named_as_zwave_js_names_it(mode: int, said: str, changed: str) -> None:
    thermostat, _ = devices("climate_heatit_z_trm2fx_state.json")
    value = thermostat.values[m.THERMOSTAT_MODE]
    value.value = mode
    assert sentence(thermostat).startswith(f"nodeID_26 is {said}, with heating set to 29 °C")
    assert "mode mode" not in sentence(thermostat)
    assert change_phrase(thermostat, value, mode) == changed
    with pytest.raises(
        InvalidValue, match=f"is in {'Manufacturer specific mode' if mode == 31 else 'mode 42'}"
    ):
        plan_control(thermostat, "set_temperature", value=21)


def _without_mode(raw: dict[str, Any]) -> dict[str, Any]:
    raw = copy.deepcopy(raw)
    raw["values"] = {k: v for k, v in raw["values"].items() if v["commandClass"] != 64}
    return raw


def test_a_valve_without_a_mode_works_to_its_heating_setpoint() -> None:
    """A radiator thermostat with heating and energy-save setpoints and no mode: Home Assistant treats no
    mode as heat, so "set it to 21" sets the heating setpoint instead of asking which."""
    (valve,) = devices("", _without_mode(raw_node("climate_heatit_z_trm6_state.json")))
    assert m.THERMOSTAT_MODE not in valve.values and len(setpoints(valve)) == 3
    plan = plan_control(valve, "set_temperature", value=21)
    assert plan.writes[0].value.value_id == "101-67-1-setpoint-1"
    assert sentence(valve).startswith(
        "nodeID_101 is set to 19 °C and idle, with cooling set to 18 °C and energy save heating set to 18 °C"
    )


def test_a_setpoint_published_without_its_key_is_the_thermostats_setpoint() -> None:
    raw = copy.deepcopy(raw_node("climate_heatit_z_trm6_state.json"))
    heating = raw["values"]["67-1-setpoint-1"]
    raw["values"] = {k: v for k, v in raw["values"].items() if v["commandClass"] != 67}
    keyless = {k: v for k, v in heating.items() if k not in ("propertyKey", "propertyKeyName")}
    keyless["id"] = "101-67-1-setpoint"
    raw["values"]["67-1-setpoint"] = keyless
    (thermostat,) = devices("", raw)
    assert setpoints(thermostat) == {1: thermostat.node.values["101-67-1-setpoint"]}  # its type by ccSpecific
    assert sentence(thermostat).startswith("nodeID_101 is set to heat to 19 °C and idle")
    assert (
        plan_control(thermostat, "set_temperature", value=21).writes[0].value.value_id == "101-67-1-setpoint"
    )


def test_a_radiator_thermostat_says_its_valve_opening() -> None:
    raw = copy.deepcopy(raw_node("climate_heatit_z_trm6_state.json"))
    raw["values"]["38-1-currentValue"] = {
        "id": "101-38-1-currentValue", "nodeId": 101, "commandClass": 38, "commandClassName": "Multilevel Switch",
        "endpoint": 1, "property": "currentValue", "propertyName": "currentValue", "type": "number",
        "readable": True, "writeable": False, "label": "Current value", "min": 0, "max": 99, "value": 40,
    }  # fmt: skip
    (thermostat,) = devices("", raw)
    assert thermostat.values[m.THERMOSTAT_VALVE].value_id == "101-38-1-currentValue"
    assert "dim" not in available_actions(thermostat)  # set through its setpoint, not by hand
    assert sentence(thermostat).startswith(
        "nodeID_101 is set to heat to 19 °C and idle, with the valve 40 % open, using 0 W"
    )
    assert change_phrase(thermostat, thermostat.values[m.THERMOSTAT_VALVE], 0) == "closed its valve"


# ---- locks say when they are jammed or tampered with


def test_a_jammed_lock_says_so_with_its_state() -> None:
    raw = copy.deepcopy(raw_node("lock_schlage_be469_state.json"))
    (lock,) = devices("", raw)
    jam = next(v for v in lock.node.values.values() if v.property_key == "Lock state")
    jam.value = 11  # "Lock jammed"
    assert state_summary(lock) == "unlocked and jammed, and the door is open"
    assert sentence(lock) == "nodeID_20 is unlocked and jammed, and the door is open; battery 100 %."
    lock.values[m.LOCK_CURRENT].value = 255
    assert sentence(lock) == "nodeID_20 is locked and jammed, but the door is open; battery 100 %."
    jam.value = 0
    assert sentence(lock) == "nodeID_20 is locked, but the door is open; battery 100 %."


def test_a_tampered_lock_says_so_with_its_state() -> None:
    (lock,) = devices("lock_home_connect_620_state.json")
    cover = next(v for v in lock.node.values.values() if v.property_key == "Cover status")
    cover.value = 3  # "Tampering, product cover removed"
    assert "and its cover has been removed" in state_summary(lock)
    assert sentence(lock).count("cover has been removed") == 1


def test_setpoints_of_a_type_nobody_names_are_not_said() -> None:
    (valve,) = devices("climate_danfoss_bad_setpoint_state.json")
    assert len(setpoints(valve)) == 3  # heating, and zwave-js's "Unknown (0x03)" and "Unknown (0x05)"
    assert sentence(valve) == "nodeID_5 is set to 11 °C; it is 18 °C now, with battery 49 %."


def test_a_colour_led_without_brightness_says_its_colour_then_its_readings() -> None:
    """Express Controls EZMultiPli: a multisensor whose LED is a Color Switch without a dimmer (it said
    "HSM200 is no motion, air temperature …; no motion, air temperature …", its readings twice)."""
    (sensor,) = devices("express_controls_ezmultipli_state.json")
    assert sentence(sensor) == "HSM200 is lit green; no motion, air temperature 16.8 °C and illuminance 61 %."
    sensor.values[m.COLOR_CURRENT].value = {"red": 0, "green": 0, "blue": 0}
    sensor.values[m.COLOR_HEX].value = "000000"
    assert state_summary(sensor) == "off"


def test_a_siren_not_heard_from_is_not_asked_whether_it_is_on() -> None:
    first = devices("aeotec_zw164_siren_state.json")[0]
    assert (first.name, first.kind) == ("nodeID_2", C.SIREN)  # its first sound endpoint is its own name
    assert sentence(first) == "nodeID_2 has not reported whether it is sounding."


def test_a_model_row_can_say_which_part_is_the_main_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The maker's word beats the device class: a row marking the LZW36's fan (endpoint 2) as its main
    part gives the fan the node's own name, and the light becomes "… 1"."""
    from zwave_mcp.devices import build
    from zwave_mcp.devices.discovery import Schema, Table, match, product
    from zwave_mcp.devices.discovery_schemas import SCHEMAS
    from zwave_mcp.zwave.classes import CC

    fan_first = Schema(
        name="fan: Inovelli LZW36, the fan as its main part (a test row)",
        kind=C.FAN,
        role=m.LEVEL_TARGET,
        primary=match(CC.MULTILEVEL_SWITCH, "targetValue", type="number", writeable=True),
        products=(product(0x031E, {0x000E}, {0x0001}),),
        endpoints=frozenset({2}),
        main_part=True,
    )
    monkeypatch.setattr(build, "TABLE", Table((fan_first, *SCHEMAS)))
    light, fan = devices("inovelli_lzw36_state.json")
    assert (fan.name, fan.part, light.name, light.part) == (
        "family_room_combo",
        None,
        "family_room_combo 1",
        "1",
    )
    assert {"power", "energy"} <= quantities(fan)  # the node's meter goes with its own name


def test_a_policy_entry_with_the_main_parts_old_name_still_holds() -> None:
    """A hide or deny list written when the first relay was "Porch Double Switch 1" keeps naming it now
    that it answers by the node's own name: a safety list must not lapse by a rename it did not ask for."""
    from tests.unit.test_devices_build import house
    from zwave_mcp.policy.terms import DeviceList, parse_terms

    porch = house()["11.1"]
    assert porch.name == "Porch Double Switch"
    deny = DeviceList(parse_terms("Porch Double Switch 1"), "ZWAVE_MCP_DENY")
    assert deny.first_match(porch) is not None
    assert deny.first_match(house()["11.2"]) is None
