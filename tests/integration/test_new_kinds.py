"""The natural controls of a fan, a curtain, a siren, a water valve and a thermostat's fan, through the MCP
tools, the one write gate and the simulator serving real devices (node dumps of public origin). Each test
checks the answer, the value the simulated device holds afterwards, and what the gate asked first."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.integration.mcp_harness import call, connected, house_of_dumps, settings_for, sim_value
from zwave_mcp.simulator import SimConfig, Simulator

pytestmark = pytest.mark.integration

C = "control_zwave_device"
# (file, name given to the node, room)
DUMPS = [
    ("fan_ge_12730_state.json", "Ceiling Fan", "Bedroom"),
    ("cover_zvidar_state.json", "Curtain", "Living Room"),
    ("fortrezz_ssa1_siren_state.json", "Porch Siren", "Porch"),
    ("aeotec_zw164_siren_state.json", "Indoor Siren", "Hallway"),
    ("zooz_zac36_titan_valve_actuator_state.json", "Water Main", "Basement"),
    ("climate_adc_t3000_state.json", "Thermostat", "Hallway"),
]


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(config=SimConfig.fast(), house=house_of_dumps(DUMPS))


async def test_the_fan_runs_at_its_own_speeds(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        check = await call(client, "verify_device", {"deviceName": "ceiling fan"})
        assert check.result["actions"] == ["on", "off", "toggle", "set_level", "set_speed"]
        medium = await call(
            client, C, {"deviceName": "ceiling fan", "action": "set speed", "value": "medium"}
        )
        assert medium.outcome == "confirmed", medium.text
        assert medium.text == "Done: Ceiling Fan is now at medium speed, as the device reported."
        assert sim_value(sim, 24, 38, "currentValue") == 67  # GE 12730: medium is 34-67
        state = await call(client, "get_device_state", {"deviceName": "ceiling fan"})
        assert state.text.startswith("Ceiling Fan is on at medium speed")
        wrong = await call(client, C, {"deviceName": "ceiling fan", "action": "set_speed", "value": "turbo"})
        assert wrong.is_error
        assert "Ceiling Fan has speeds low, medium and high, or a percentage from 1 to 100" in wrong.text
        off = await call(client, C, {"deviceName": "ceiling fan", "action": "off"})
        assert off.outcome == "confirmed" and sim_value(sim, 24, 38, "currentValue") == 0


async def test_the_curtain_opens_halfway(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        half = await call(client, C, {"deviceName": "curtain", "action": "set_position", "position": 50})
        assert half.outcome == "confirmed", half.text
        assert sim_value(sim, 270, 38, "currentValue") == 50
        closed = await call(client, C, {"deviceName": "curtain", "action": "close"})
        assert closed.outcome == "confirmed" and sim_value(sim, 270, 38, "currentValue") == 0
        lights = await call(client, C, {"deviceName": "curtain", "action": "dim", "level": 20})
        assert (
            lights.is_error and lights.text == "Curtain cannot dim; it can: open, close, stop, set_position."
        )


async def test_sirens_sound_a_tone_without_asking_and_ask_before_silencing(
    mosquitto: Any, sim: Simulator
) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        tone = await call(
            client, C, {"deviceName": "indoor siren 2", "action": "set_tone", "value": "01DING~1 (5 sec)"}
        )
        assert tone.outcome == "confirmed", tone.text
        assert sim_value(sim, 2, 121, "toneId", endpoint=2) == 1
        volume = await call(client, C, {"deviceName": "indoor siren 2", "action": "volume", "level": 40})
        assert volume.outcome == "confirmed" and sim_value(sim, 2, 121, "defaultVolume", endpoint=2) == 40
        porch = await call(
            client, C, {"deviceName": "porch siren", "action": "set_tone", "value": "siren only"}
        )
        assert porch.outcome == "confirmed" and sim_value(sim, 80, 38, "currentValue") == 66
        silence = await call(client, C, {"deviceName": "porch siren", "action": "off"})
        assert silence.outcome == "needs_confirmation", silence.text
        assert "it can switch off an alarm" in silence.text
        assert sim_value(sim, 80, 38, "currentValue") == 66  # nothing sent before the person agrees
        token = silence.result["confirmationToken"]
        done = await call(
            client, C, {"deviceName": "porch siren", "action": "off", "confirmationToken": token}
        )
        assert done.outcome == "confirmed" and sim_value(sim, 80, 38, "currentValue") == 0


async def test_the_water_main_opens_freely_and_closes_once_confirmed(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        opened = await call(client, C, {"deviceName": "water main", "action": "open"})
        assert opened.outcome == "confirmed", opened.text
        assert sim_value(sim, 259, 37, "currentValue") is True
        asked = await call(client, C, {"deviceName": "water main", "action": "turn off"})
        assert asked.outcome == "needs_confirmation", asked.text
        assert "it can shut off the supply to the house" in asked.text
        token = asked.result["confirmationToken"]
        closed = await call(
            client, C, {"deviceName": "water main", "action": "close", "confirmationToken": token}
        )
        assert closed.outcome == "confirmed", closed.text
        assert closed.text == "Done: Water Main is now closed, as the device reported."
        assert sim_value(sim, 259, 37, "currentValue") is False


async def test_the_thermostat_fan_is_set_by_its_own_names(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        low = await call(client, C, {"deviceName": "thermostat", "action": "set fan mode", "mode": "low"})
        assert low.outcome == "confirmed", low.text
        assert sim_value(sim, 68, 68, "mode") == 1
        mixed_up = await call(client, C, {"deviceName": "thermostat", "action": "set_mode", "mode": "low"})
        assert mixed_up.is_error and "set it with set_fan_mode" in mixed_up.text
        assert sim_value(sim, 68, 64, "mode") == 1  # still heating


async def test_group_words_for_the_new_kinds(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        fans = await call(client, "list_zwave_devices", {"capability": "fan"})
        assert [d["name"] for d in fans.result["devices"]] == ["Ceiling Fan"]
        on = await call(client, "control_zwave_group", {"target": "fans", "action": "on"})
        assert on.outcome == "confirmed", on.text
        assert sim_value(sim, 24, 38, "currentValue") > 0
