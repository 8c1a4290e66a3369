"""Every tool on every device of the captured house, in each of the three recorded gateway configurations.

The server runs in-process (`mcp.Client(server)`) against Mosquitto and the zwave-js-ui simulator. Each
control test checks three things: the outcome word the client got, the writeValue request that went out
on the broker, and the simulated device's own state afterwards — not just the server's answer.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

import anyio
import paho.mqtt.publish as mqtt_publish
import pytest

from tests.conftest import MessageCollector
from tests.integration.mcp_harness import (
    CONFIGS,
    Answer,
    api_topic,
    call,
    connected,
    eventually,
    settings_for,
    sim_value,
    sim_value_by_id,
    wait_for_answer,
    wait_writes,
)
from zwave_mcp.devices.gate import senders as gate_senders
from zwave_mcp.simulator import FAST, Simulator, capture_config, captured_house

pytestmark = pytest.mark.integration

CONTROL = "control_zwave_device"
# The captured house as people see it: device name → (room, actions it takes). Endpoint 1 and 2 of the
# double switch are devices of their own.
HOUSE: dict[str, tuple[str, list[str]]] = {
    "Kitchen Light": ("Kitchen", ["on", "off", "toggle"]),
    "Living Room Lamp": ("Living Room", ["on", "off", "toggle", "dim", "set_level", "stop"]),
    "Bedroom Sensor": ("Bedroom", []),
    "Front Door Lock": ("Entry", ["lock", "unlock"]),
    "Hallway Thermostat": ("Hallway", ["set_temperature", "set_mode"]),
    "Garage Motion": ("Garage", []),
    "Coffee Maker Plug": ("Kitchen", ["on", "off", "toggle"]),
    "Bedroom Color Bulb": ("Bedroom", ["on", "off", "toggle", "dim", "set_level", "stop", "set_color"]),
    "Living Room Blinds": ("Living Room", ["open", "close", "stop", "set_position", "set_tilt"]),
    "Porch Double Switch": ("Porch", ["on", "off", "toggle"]),
    "Porch Double Switch 2": ("Porch", ["on", "off", "toggle"]),
}


@pytest.fixture(params=CONFIGS, ids=[f"config_{c}" for c in CONFIGS])
def config(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator], config: str) -> Simulator:
    return simulator_factory(config=capture_config(config, timing=FAST, periodic=False))


@pytest.fixture
def requests(sim: Simulator, collector: Callable[[str], MessageCollector]) -> MessageCollector:
    """Every API request our server publishes to the simulated zwave-js-ui."""
    return collector(api_topic(sim, "+"))


def level_matches(device_level: Any, percent: float) -> bool:
    """The 0-99 device level for `percent` %: level n is n %, and 99 is 100 % (devices/levels.py)."""
    return isinstance(device_level, int | float) and device_level == min(99, round(percent))


def assert_outcome(answer: Answer, outcome: str) -> None:
    assert not answer.is_error, answer.text
    assert answer.outcome == outcome, f"expected {outcome}, got {answer.outcome}: {answer.text}"


# --- reading tools ----------------------------------------------------------------------------------


async def test_list_devices_filters_and_pages(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        everything = await call(client, "list_zwave_devices", {})
        listed = {d["name"]: d for d in everything.result["devices"]}
        assert everything.result["total"] == len(HOUSE) == everything.result["count"]
        assert {name: d["location"] for name, d in listed.items()} == {n: r for n, (r, _) in HOUSE.items()}
        assert (
            listed["Porch Double Switch 2"]["key"] == "11.2"
            and listed["Porch Double Switch 2"]["endpoint"] == 2
        )
        assert everything.text.startswith(
            f"{len(HOUSE)} devices: Kitchen Light (off), Living Room Lamp (40 %)"
        )

        kitchen = await call(client, "list_zwave_devices", {"location": "kitchen"})
        sim_kitchen = {n["name"] for n in sim.nodes.values() if n.get("loc") == "Kitchen"}
        assert (
            {d["name"] for d in kitchen.result["devices"]}
            == sim_kitchen
            == {"Kitchen Light", "Coffee Maker Plug"}
        )
        assert kitchen.text == "2 devices: Kitchen Light (off), Coffee Maker Plug (off, 0 W)."

        dimmers = await call(client, "list_zwave_devices", {"capability": "dimmer"})
        assert [d["name"] for d in dimmers.result["devices"]] == ["Living Room Lamp", "Bedroom Color Bulb"]
        porch = await call(client, "list_zwave_devices", {"filter": "porch"})
        assert [d["name"] for d in porch.result["devices"]] == [
            "Porch Double Switch",
            "Porch Double Switch 2",
        ]
        nothing = await call(client, "list_zwave_devices", {"location": "Attic"})
        assert (nothing.text, nothing.result["total"]) == ("No devices match.", 0)

        pages = [await call(client, "list_zwave_devices", {"limit": 4, "offset": o}) for o in (0, 4, 8)]
        assert [p.result["count"] for p in pages] == [4, 4, 3]
        assert all(p.result["total"] == len(HOUSE) for p in pages)
        assert [d["name"] for p in pages for d in p.result["devices"]] == list(listed)
        past = await call(client, "list_zwave_devices", {"offset": 50})
        assert past.text == "11 devices in all, none from offset 50 on." and past.result["devices"] == []


async def test_list_include_inactive_shows_a_dead_node(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        sim.kill_node(3)
        active = await wait_for_answer(
            client, "list_zwave_devices", {}, lambda a: a.result["total"] == len(HOUSE) - 1
        )
        assert "Living Room Lamp" not in {d["name"] for d in active.result["devices"]}
        everything = await call(client, "list_zwave_devices", {"includeInactive": True, "filter": "lamp"})
        (lamp,) = everything.result["devices"]
        assert (lamp["name"], lamp["status"]) == ("Living Room Lamp", "Dead")
        assert everything.text == "1 device: Living Room Lamp (40 %, not responding)."
        check = await call(client, "verify_device", {"deviceName": "living room lamp"})
        assert check.result["ready"] is False
        assert check.text.startswith("Living Room Lamp (Living Room) exists and is not responding (dead).")


async def test_verify_every_device(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        for name, (room, actions) in HOUSE.items():
            answer = await call(client, "verify_device", {"deviceName": name.lower()})
            assert answer.result["exists"] is True and answer.result["actions"] == actions, answer.text
            assert answer.result["device"]["location"] == room
            spoken = ", ".join(a.replace("_", " ") for a in actions)  # "set level", not "set_level"
            can = f"It can: {spoken}." if actions else "It only reports readings."
            if name == "Bedroom Sensor":
                assert answer.result["sleeping"] is True
                assert answer.text == (
                    "Bedroom Sensor (Bedroom) exists and is a battery device that sleeps; commands wait until "
                    "it wakes up. It only reports readings."
                )
            else:
                assert answer.result["ready"] is True
                assert answer.text == f"{name} ({room}) exists and is ready. {can}"
        missing = await call(client, "verify_device", {"deviceName": "garage door"})
        assert not missing.is_error and missing.result["exists"] is False
        assert (
            missing.text
            == "No device named 'garage door'. Did you mean 'Garage Motion' or 'Front Door Lock'?"
        )


async def test_state_of_every_device_matches_the_simulator(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        for name in HOUSE:
            answer = await call(client, "get_device_state", {"deviceName": name})
            values = answer.result["values"]
            assert values, f"{name} has no values"
            for value in values:
                assert value["value"] == sim_value_by_id(sim, value["valueId"]), (name, value)
        lock = await call(client, "get_device_state", {"deviceName": "front door"})
        assert lock.text == "Front Door Lock is unlocked and the door is open; battery 64 %."
        mode = next(v for v in lock.result["values"] if v["valueId"] == "5-98-0-currentMode")
        assert (mode["value"], mode["text"]) == (0, "Unsecured")
        sensor = await call(client, "get_device_state", {"deviceName": "bedroom sensor"})
        temperature = next(v for v in sensor.result["values"] if v["label"] == "Air temperature")
        assert temperature["unit"] == "°C" and isinstance(temperature["ageSeconds"], float)
        said = [(r["quantity"], r["value"], r["unit"]) for r in sensor.result["readings"]]
        assert said == [("temperature", 21.6, "°C"), ("humidity", 46, "%"), ("battery", 87, "%")]
        assert all(r["lastUpdated"].endswith("+00:00") for r in sensor.result["readings"])


async def test_sensor_data_live_and_refreshed(
    mosquitto: Any, sim: Simulator, requests: MessageCollector
) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        bedroom = await call(client, "get_device_sensor_data", {"deviceName": "bedroom sensor"})
        readings = {r["label"]: r for r in bedroom.result["readings"]}
        assert readings["Air temperature"]["value"] == sim_value(sim, 4, 49, "Air temperature") == 21.6
        assert (readings["Humidity"]["unit"], readings["Battery"]["unit"]) == ("%", "%")
        assert {r["source"] for r in readings.values()} == {"live"}
        assert bedroom.text == "Bedroom Sensor: air temperature 21.6 °C, humidity 46 %, battery 87 %."
        motion = await call(client, "get_device_sensor_data", {"deviceName": "garage motion"})
        assert motion.text == "Garage Motion: no motion, battery 100 %."

        # The plug reports 0 W; the simulated meter now draws 1200 W but has not reported it yet.
        sim.nodes[8]["values"]["50-0-value-66049"]["value"] = 1200
        requests.clear()
        plug = await call(
            client,
            "get_device_sensor_data",
            {"deviceName": "coffee maker", "refresh": True, "maxAgeSeconds": 0},
        )
        power = next(r for r in plug.result["readings"] if r["label"] == "Power")
        assert (power["value"], power["unit"], power["source"]) == (1200, "W", "refreshed")
        requests.wait_for(lambda m: m.topic.endswith("/api/pollValue/set"), what="the refresh's pollValue")
        polled = [m.json()["args"][0] for m in requests.snapshot() if m.topic.endswith("/api/pollValue/set")]
        assert {(v["nodeId"], v["commandClass"]) for v in polled} == {(8, 50)}
        assert "power 1200 W" in plug.text


@pytest.mark.parametrize("config", ["a", "b", "c"], ids=[f"config_{c}" for c in CONFIGS])
async def test_sensor_refresh_skips_fresh_readings(
    mosquitto: Any, sim: Simulator, requests: MessageCollector
) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        args = {"deviceName": "coffee maker", "refresh": True, "maxAgeSeconds": 0}
        first = await call(client, "get_device_sensor_data", args)
        assert {r["source"] for r in first.result["readings"]} == {"refreshed"}
        assert all(r["ageSeconds"] < 5 for r in first.result["readings"]), first.result["readings"]
        again = await call(client, "get_device_sensor_data", {**args, "maxAgeSeconds": 60})
        assert {r["source"] for r in again.result["readings"]} == {"live"}, (
            "fresh readings are not asked again"
        )
        # A refresh of another device is a barrier: every earlier request has reached the collector.
        await call(
            client,
            "get_device_sensor_data",
            {"deviceName": "thermostat", "refresh": True, "maxAgeSeconds": 0},
        )
        requests.wait_for(lambda m: polled_node(m) == 6, what="the thermostat's pollValue")
        plug_polls = [m for m in requests.snapshot() if polled_node(m) == 8]
        assert len(plug_polls) == len(first.result["readings"]), "only the first call asked the plug"


def polled_node(message: Any) -> int | None:
    if not message.topic.endswith("/api/pollValue/set"):
        return None
    return int(message.json()["args"][0]["nodeId"])


# --- control ----------------------------------------------------------------------------------------


async def test_control_switch(mosquitto: Any, sim: Simulator, requests: MessageCollector) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        on = await call(client, CONTROL, {"deviceName": "kitchen light", "action": "on"})
        assert_outcome(on, "confirmed")
        assert on.text == "Done: Kitchen Light is now on, as the device reported."
        assert sim_value(sim, 2, 37, "currentValue") is True
        assert wait_writes(requests, 1) == [
            ({"nodeId": 2, "commandClass": 37, "endpoint": 0, "property": "targetValue"}, True)
        ]
        off = await call(client, CONTROL, {"deviceName": "Kitchen Light", "action": "off"})
        assert_outcome(off, "confirmed")
        assert sim_value(sim, 2, 37, "currentValue") is False and off.result["reported"] is False
        toggled = await call(client, CONTROL, {"deviceName": "the kitchen light", "action": "toggle"})
        assert_outcome(toggled, "confirmed")
        assert sim_value(sim, 2, 37, "currentValue") is True
        plug = await call(client, CONTROL, {"deviceName": "coffee maker plug", "action": "on"})
        assert_outcome(plug, "confirmed")
        assert sim_value(sim, 8, 37, "currentValue") is True


async def test_control_dimmer(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        dim = await call(client, CONTROL, {"deviceName": "living room lamp", "action": "dim", "level": 30})
        assert_outcome(dim, "confirmed")
        assert level_matches(sim_value(sim, 3, 38, "currentValue"), 30)
        assert dim.text == "Done: Living Room Lamp is now 30 %, as the device reported."
        up = await call(
            client, CONTROL, {"deviceName": "living room lamp", "action": "set_level", "level": "+10"}
        )
        assert_outcome(up, "confirmed")
        assert up.result["target"] == 40 and level_matches(sim_value(sim, 3, 38, "currentValue"), 40)
        off = await call(client, CONTROL, {"deviceName": "living room lamp", "action": "off"})
        assert_outcome(off, "confirmed")
        assert sim_value(sim, 3, 38, "currentValue") == 0
        on = await call(client, CONTROL, {"deviceName": "living room lamp", "action": "on"})
        assert_outcome(on, "confirmed")
        assert level_matches(sim_value(sim, 3, 38, "currentValue"), 40), "on restores the previous level"
        assert on.text == "Done: Living Room Lamp is now 40 %, as the device reported."


async def test_control_colour_bulb(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        red = await call(
            client, CONTROL, {"deviceName": "bedroom color bulb", "action": "set_color", "color": "red"}
        )
        assert_outcome(red, "confirmed")
        assert (
            red.text == "Done: Bedroom Color Bulb reported the colour red. "
            "Bedroom Color Bulb is off, so the new colour shows when it is turned on."
        )
        colour = sim_value(sim, 9, 51, "currentColor")
        assert (colour["red"], colour["green"], colour["blue"]) == (255, 0, 0)
        # Its state says the colour while it is off (issue 43 item 9: it said only "is off").
        state = await call(client, "get_device_state", {"deviceName": "bedroom color bulb"})
        assert state.text.startswith("Bedroom Color Bulb is off, set to red"), state.text
        green = await call(
            client, CONTROL, {"deviceName": "bedroom color bulb", "action": "set_color", "color": "#00FF00"}
        )
        assert_outcome(green, "confirmed")
        colour = sim_value(sim, 9, 51, "currentColor")
        assert (colour["red"], colour["green"], colour["blue"]) == (0, 255, 0)
        dim = await call(client, CONTROL, {"deviceName": "bedroom color bulb", "action": "dim", "level": 60})
        assert_outcome(dim, "confirmed")
        assert level_matches(sim_value(sim, 9, 38, "currentValue"), 60)


async def test_control_blinds(mosquitto: Any, sim: Simulator, requests: MessageCollector) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        opened = await call(client, CONTROL, {"deviceName": "blinds", "action": "open"})
        assert_outcome(opened, "confirmed")
        ((vid, value),) = wait_writes(requests, 1)
        assert (vid["commandClass"], vid["property"], value) == (106, "targetValue", 99)
        key = vid["propertyKey"]
        assert sim_value(sim, 10, 106, "currentValue", key=key) == 99
        position = await call(
            client, CONTROL, {"deviceName": "blinds", "action": "set_position", "position": 40}
        )
        assert_outcome(position, "confirmed")
        assert level_matches(sim_value(sim, 10, 106, "currentValue", key=key), 40)
        assert position.text == "Done: Living Room Blinds are now 40 % open, as the device reported."
        wait_writes(requests, 2)
        requests.clear()
        stop = await call(client, CONTROL, {"deviceName": "living room blinds", "action": "stop"})
        # Stopping reports no new state of its own; the supervised stop is the device's acknowledgement.
        assert_outcome(stop, "confirmed")
        assert [(v["property"], value) for v, value in wait_writes(requests, 1)] == [("levelChangeUp", False)]
        assert level_matches(sim_value(sim, 10, 106, "currentValue", key=key), 40)
        assert stop.text == "Done: the device confirmed the request to stop Living Room Blinds."
        closed = await call(client, CONTROL, {"deviceName": "blinds", "action": "close"})
        assert_outcome(closed, "confirmed")
        assert sim_value(sim, 10, 106, "currentValue", key=key) == 0


async def test_control_lock_with_token(mosquitto: Any, sim: Simulator, requests: MessageCollector) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        locked = await call(client, CONTROL, {"deviceName": "front door", "action": "lock"})
        assert_outcome(locked, "confirmed")
        assert sim_value(sim, 5, 98, "currentMode") == 255
        asked = await call(client, CONTROL, {"deviceName": "front door", "action": "unlock"})
        assert_outcome(asked, "needs_confirmation")
        token = asked.result["confirmationToken"]
        assert asked.result["expiresInSeconds"] == 60
        assert asked.text == (
            "Confirmation required to unlock Front Door Lock (Entry) because it can unlock a door: ask the "
            "person, and only if they agree call again with the same device, action and value and "
            f'confirmationToken="{token}" within 60 s. The door is open.'
        )
        assert sim_value(sim, 5, 98, "currentMode") == 255
        unlocked = await call(
            client, CONTROL, {"deviceName": "front door", "action": "unlock", "confirmationToken": token}
        )
        assert_outcome(unlocked, "confirmed")
        assert sim_value(sim, 5, 98, "currentMode") == 0
        assert [value for _vid, value in wait_writes(requests, 2)] == [255, 0], "nothing was sent for the ask"
        assert (
            unlocked.text
            == "Done: Front Door Lock is now unlocked, as the device reported. The door is open."
        )


async def test_control_thermostat(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        heat = await call(
            client, CONTROL, {"deviceName": "thermostat", "action": "set_temperature", "value": 21}
        )
        assert_outcome(heat, "confirmed")
        assert sim_value(sim, 6, 67, "setpoint", key=1) == 21, "heating setpoint in heat mode"
        assert (
            heat.text == "Done: Hallway Thermostat is now set for heating to 21 °C, as the device reported."
        )
        warmer = await call(
            client, CONTROL, {"deviceName": "thermostat", "action": "set_temperature", "level": "+1"}
        )
        assert_outcome(warmer, "confirmed")
        assert sim_value(sim, 6, 67, "setpoint", key=1) == 22
        cool = await call(client, CONTROL, {"deviceName": "thermostat", "action": "set_mode", "mode": "cool"})
        assert_outcome(cool, "confirmed")
        assert sim_value(sim, 6, 64, "mode") == 2
        cooling = await call(
            client, CONTROL, {"deviceName": "thermostat", "action": "set_temperature", "value": 25}
        )
        assert_outcome(cooling, "confirmed")
        assert sim_value(sim, 6, 67, "setpoint", key=2) == 25, "cooling setpoint in cool mode"
        assert sim_value(sim, 6, 67, "setpoint", key=1) == 22
        # A number given as the setpoint is the temperature (issue 43 item 23: it was refused).
        for said in (24, "23"):
            told = await call(
                client, CONTROL, {"deviceName": "thermostat", "action": "set_temperature", "setpoint": said}
            )
            assert_outcome(told, "confirmed")
            assert sim_value(sim, 6, 67, "setpoint", key=2) == float(said)


async def test_control_two_endpoint_switch(
    mosquitto: Any, sim: Simulator, requests: MessageCollector
) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        second = await call(client, CONTROL, {"deviceName": "porch switch 2", "action": "on"})
        assert_outcome(second, "confirmed")
        assert (sim_value(sim, 11, 37, "currentValue", 1), sim_value(sim, 11, 37, "currentValue", 2)) == (
            False,
            True,
        )
        first = await call(client, CONTROL, {"deviceName": "Porch Double Switch", "action": "toggle"})
        assert_outcome(first, "confirmed")
        assert (sim_value(sim, 11, 37, "currentValue", 1), sim_value(sim, 11, 37, "currentValue", 2)) == (
            True,
            True,
        )
        assert [(v["endpoint"], value) for v, value in wait_writes(requests, 2)] == [(2, True), (1, True)]


async def test_control_dead_node_fails_with_reason(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        sim.kill_node(3)
        await wait_for_answer(
            client, "verify_device", {"deviceName": "living room lamp"}, lambda a: a.result["ready"] is False
        )
        failed = await call(client, CONTROL, {"deviceName": "living room lamp", "action": "dim", "level": 70})
        assert_outcome(failed, "failed")
        assert failed.text == (
            "Could not set Living Room Lamp to 70 %: the device did not accept the command (zwave-js status 2); "
            "zwave-js reports it "
            "as dead (not responding), so check that it has power and is within range."
        )
        assert sim_value(sim, 3, 38, "currentValue") == 40


async def test_control_sensor_is_refused(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        refused = await call(client, CONTROL, {"deviceName": "bedroom sensor", "action": "on"})
        assert refused.error == "Bedroom Sensor cannot be controlled; it only reports readings."


def sleeping_light_house() -> list[dict[str, Any]]:
    """The captured house with the kitchen light made a battery device that sleeps.

    The captured house's one sleeping node (the bedroom sensor) takes no actions, so queueing of a control
    write is shown on a sleeping switch; the simulator queues it exactly like the recorded wake-up write.
    """
    house = copy.deepcopy(captured_house())
    for node in house:
        if node["id"] == 2:
            node.update(isListening=False, status="Asleep")
    return house


async def test_control_sleeping_device_queued_until_wake(
    mosquitto: Any,
    simulator_factory: Callable[..., Simulator],
    config: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(gate_senders, "QUEUED_AFTER_S", 0.2)  # the 1 s production wait, shortened
    sim = simulator_factory(
        config=capture_config(config, timing=FAST, periodic=False), house=sleeping_light_house()
    )
    async with connected(settings_for(mosquitto, sim)) as client:
        queued = await call(client, CONTROL, {"deviceName": "kitchen light", "action": "on"})
        assert_outcome(queued, "queued")
        assert queued.text == (
            "Turn on Kitchen Light is queued: Kitchen Light is asleep and will apply it when it next wakes up."
        )
        assert sim.pending_writes(2) == 1 and sim_value(sim, 2, 37, "currentValue") is False
        sim.wake_up(2)
        await eventually(lambda: sim_value(sim, 2, 37, "currentValue") is True, what="the queued write")
        assert sim.pending_writes(2) == 0
        await wait_for_answer(
            client,
            "get_device_state",
            {"deviceName": "kitchen light"},
            lambda a: a.text == "Kitchen Light is on.",
        )


# --- health, scenes, events -------------------------------------------------------------------------


async def test_health_online_then_crash_then_stop(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        # The house can load before zwave-js-ui's driver status reaches us ("is starting"): wait for it.
        healthy = await wait_for_answer(
            client, "check_zwave_health", {}, lambda a: a.result["gateway"]["online"] is True
        )
        assert healthy.text == "Z-Wave is working: zwave-js-ui is online, 11 devices (10 alive, 1 asleep)."
        assert healthy.result["nodes"] == {"Alive": 9, "Asleep": 1}
        assert healthy.result["broker"]["connected"] is True and healthy.result["gateway"]["online"] is True

        sim.crash()
        offline = await wait_for_answer(client, "check_zwave_health", {}, lambda a: not a.result["healthy"])
        why = f"zwave-js-ui is offline (on prefix '{sim.config.prefix}' with name 'zwave-js-ui'): the broker published its last will"
        assert offline.text == f"Z-Wave is not working: {why}."
        assert offline.result["gateway"]["online"] is False and offline.result["advice"]
        refused = await call(client, CONTROL, {"deviceName": "kitchen light", "action": "on"})
        assert refused.error == f"Z-Wave service unavailable: {why}"

        sim.start()
        await wait_for_answer(client, "check_zwave_health", {}, lambda a: a.result["healthy"])
        back = await call(client, CONTROL, {"deviceName": "kitchen light", "action": "on"})
        assert_outcome(back, "confirmed")

        sim.stop()
        stopped = await wait_for_answer(client, "check_zwave_health", {}, lambda a: not a.result["healthy"])
        driver = "the Z-Wave driver is not ready (zwave-js-ui was stopped or lost its Z-Wave controller)"
        assert stopped.text == f"Z-Wave is not working: {driver}."
        refused = await call(client, CONTROL, {"deviceName": "kitchen light", "action": "off"})
        assert refused.error == f"Z-Wave service unavailable: {driver}"
        assert sim_value(sim, 2, 37, "currentValue") is True


async def create_scene(sim: Simulator, collector: Callable[[str], MessageCollector], mosquitto: Any) -> None:
    """Evening: kitchen light on, blinds closed — made through zwave-js-ui's own scene API."""
    replies = collector(api_topic(sim, "+").removesuffix("/set"))
    steps: list[tuple[str, list[Any]]] = [
        ("_createScene", ["Evening"]),
        (
            "_addSceneValue",
            [
                1,
                {
                    "nodeId": 2,
                    "commandClass": 37,
                    "endpoint": 0,
                    "property": "targetValue",
                    "id": "2-37-0-targetValue",
                },
                True,
                0,
            ],
        ),
        (
            "_addSceneValue",
            [
                1,
                {
                    "nodeId": 3,
                    "commandClass": 38,
                    "endpoint": 0,
                    "property": "targetValue",
                    "id": "3-38-0-targetValue",
                },
                10,
                0,
            ],
        ),
    ]
    for api, args in steps:
        replies.clear()
        mqtt_publish.single(
            api_topic(sim, api), json.dumps({"args": args}), hostname=mosquitto.host, port=mosquitto.port
        )
        reply = replies.wait_topic(api_topic(sim, api).removesuffix("/set"))
        assert reply.json()["success"] is True, reply.payload


async def test_scenes_list_and_activate(
    mosquitto: Any, sim: Simulator, collector: Callable[[str], MessageCollector]
) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        empty = await call(client, "list_zwave_scenes")
        assert (empty.text, empty.result["scenes"]) == ("zwave-js-ui has no scenes.", [])
        await create_scene(sim, collector, mosquitto)
        listed = await call(client, "list_zwave_scenes")
        assert listed.result["scenes"] == [{"id": 1, "label": "Evening", "values": 2}]
        assert listed.text == "1 scene: Evening."
        started = await call(client, "activate_zwave_scene", {"scene": "evening"})
        assert (
            started.text
            == "Scene 'Evening' started: Kitchen Light and Living Room Lamp reported the new state."
        )
        await eventually(lambda: sim_value(sim, 2, 37, "currentValue") is True, what="the scene's light")
        await eventually(lambda: sim_value(sim, 3, 38, "currentValue") == 10, what="the scene's lamp level")
        by_id = await call(client, "activate_zwave_scene", {"scene": "1"})
        assert by_id.result["scene"]["label"] == "Evening"
        unknown = await call(client, "activate_zwave_scene", {"scene": "night"})
        assert unknown.error == "No scene named 'night'. The scenes are: 'Evening'."


SINCE_WATCHING = r"since \d\d:\d\d, when zwave-mcp started watching"


async def test_recent_events_tell_what_changed(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        assert_outcome(
            await call(client, CONTROL, {"deviceName": "kitchen light", "action": "on"}), "confirmed"
        )
        events = await call(client, "get_recent_events", {"minutes": 1, "deviceName": "kitchen light"})
        whats = [e["what"] for e in events.result["events"]]
        assert (
            "turned on" in whats
            and "was told to turn on" in whats
            and all(e["device"] == "Kitchen Light" for e in events.result["events"])
        )
        # The server started seconds ago: its memory starts after the minute asked about, and says so.
        assert re.match(
            rf"{len(whats)} changes {SINCE_WATCHING}, latest first: Kitchen Light ", events.text
        ), events.text
        # Another device's history holds none of the light's changes (at most its own start-up statuses).
        other = await call(client, "get_recent_events", {"minutes": 1, "deviceName": "front door"})
        assert all(e["device"] == "Front Door Lock" for e in other.result["events"]), other.text
        assert not [e for e in other.result["events"] if "turn" in e["what"]], other.text


async def test_recent_events_never_call_our_own_start_a_gateway_event(mosquitto: Any, sim: Simulator) -> None:
    """Issue 42: zwave-js-ui was up before we looked: what it was at our start (online, the driver ready, its
    version) is where things stood, not something it did; and the answer says where its memory starts."""
    async with connected(settings_for(mosquitto, sim)) as client:
        events = await call(client, "get_recent_events", {"minutes": 10})
    assert not [e for e in events.result["events"] if e["device"] is None], events.result["events"]
    assert "came online" not in events.text and "became ready" not in events.text, events.text
    assert re.match(rf"(Nothing changed|\d+ changes?) {SINCE_WATCHING}", events.text), events.text


async def test_recent_events_say_how_many_they_leave_out(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        lamp = sim.nodes[3]
        level = next(v for v in lamp["values"].values() if v.get("property") == "currentValue")
        for percent in range(11, 19):  # eight changes of the lamp's level
            sim.set_value(lamp, level, percent)
        args = {"minutes": 5, "deviceName": "living room lamp"}
        for _ in range(100):
            events = await call(client, "get_recent_events", args)
            if len(events.result["events"]) >= 8:
                break
            await anyio.sleep(0.02)
        total = len(events.result["events"])
        assert re.match(rf"{total} changes {SINCE_WATCHING}, latest first: ", events.text), events.text
        assert events.text.endswith(f"; and {total - 5} more."), events.text
        assert events.result["total"] == total >= 8
        # A smaller limit lists fewer but still counts them all.
        three = await call(client, "get_recent_events", {**args, "limit": 3})
        assert len(three.result["events"]) == 3 and three.result["total"] == total, three.text
        assert three.text.startswith(f"{total} changes") and three.text.endswith(f"; and {total - 3} more.")
