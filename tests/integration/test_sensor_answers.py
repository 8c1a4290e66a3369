"""What real sensors say through the MCP tools, on Mosquitto and the simulator serving their node dumps:
"is there smoke?" of one alarm and of the house, "any leaks?" where no device senses one, the state answer
with every reading (a thermostat's humidity and battery, a plug's kWh), a door sensor's open/closed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.integration.mcp_harness import call, connected, house_of_dumps, settings_for, wait_for_answer
from zwave_mcp.simulator import SimConfig, Simulator
from zwave_mcp.zwave.wire import value_key

pytestmark = pytest.mark.integration

# (file, name given to the node, room)
DUMPS = [
    ("zcombo_smoke_co_alarm_state.json", "Hallway Smoke Alarm", "Hallway"),
    ("zp3111-5_state.json", "Garage Motion", "Garage"),
    ("ecolink_door_sensor_state.json", "Back Door", "Kitchen"),
    ("climate_radio_thermostat_ct100_plus_state.json", "Thermostat", "Hallway"),
    ("inovelli_switch_state.json", "Kitchen Plug", "Kitchen"),
]
SMOKE = value_key(113, 0, "Smoke Alarm", "Sensor status")


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(config=SimConfig.fast(), house=house_of_dumps(DUMPS))


async def test_is_there_smoke(mosquitto: Any, sim: Simulator) -> None:
    list_tool = "list_zwave_devices"
    async with connected(settings_for(mosquitto, sim)) as client:
        one = await call(client, list_tool, {"target": "hallway smoke alarm", "state": "smoke"})
        house_wide = await call(client, list_tool, {"target": "everything", "state": "smoke"})
        leaks = await call(client, list_tool, {"state": "water_leak"})
        state = await call(client, "get_device_state", {"deviceName": "hallway smoke alarm"})
        alarm = sim.nodes[3]
        sim.set_value(alarm, alarm["values"][SMOKE], 2)  # zwave-js: Smoke detected
        smoke = await wait_for_answer(
            client, list_tool, {"state": "smoke"}, lambda a: a.result["devices"] != []
        )
    assert one.text == "No smoke at Hallway Smoke Alarm.", one.text
    assert house_wide.text == "No smoke anywhere (1 sensor checked).", house_wide.text
    assert leaks.text == "No device can sense water leaks.", leaks.text
    assert state.text == "Hallway Smoke Alarm reports no smoke, no carbon monoxide and battery 92 %."
    sensors = {r["sensorType"]: r["alarm"] for r in state.result["readings"] if r["sensorType"]}
    assert sensors == {"smoke": False, "co": False}
    assert smoke.text == "There is smoke at Hallway Smoke Alarm.", smoke.text
    assert [d["name"] for d in smoke.result["devices"]] == ["Hallway Smoke Alarm"]


async def test_state_answers_hold_every_reading(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        thermostat = await call(client, "get_device_state", {"deviceName": "thermostat"})
        plug = await call(client, "get_device_state", {"deviceName": "kitchen plug"})
        door = await call(client, "get_device_state", {"deviceName": "back door"})
        doors = await call(client, "list_zwave_devices", {"state": "open"})
        sensors = await call(client, "get_device_sensor_data", {"deviceName": "garage motion"})
    assert thermostat.text == (
        "Thermostat is set to heat to 72 °F and idle; it is 72 °F now, with humidity 30 % and battery 100 %."
    )
    quantities = {r["quantity"] for r in thermostat.result["readings"]}
    assert {"temperature", "humidity", "battery"} <= quantities
    assert plug.text == "Kitchen Plug is off, using 0 W, 26.75 kWh in total.", plug.text
    assert door.text == "Back Door is closed; it reports tampering detected and battery 61 %.", door.text
    assert doors.text == "Nothing is open.", doors.text
    assert {r["quantity"] for r in sensors.result["readings"]} >= {"temperature", "humidity", "illuminance"}
