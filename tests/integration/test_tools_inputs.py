"""Every bad-input case of the device tools, with the exact message a person (or model) reads.

One server serves the whole table (the checks are about words, not gateway formats); nothing in the table
may publish a write, which the broker proves at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import MessageCollector
from tests.integration.mcp_harness import api_topic, call, connected, settings_for, wait_writes
from zwave_mcp.server.tools import PUBLIC
from zwave_mcp.simulator import FAST, Simulator, capture_config

pytestmark = pytest.mark.integration

C = "control_zwave_device"
ACTIONS = (
    "on, off, toggle, dim, set_level, open, close, stop, set_position, lock, unlock, set_temperature, set_mode, "
    "set_color, set_speed, set_tilt, set_tone, set_volume, set_fan_mode"
)
ALIASES = (
    "turn on, switch on, power on, turn off, switch off, power off, brightness, set brightness, level, position, "
    "temperature, set setpoint, setpoint, mode, color, colour, set colour, speed, fan speed, set fan speed, tilt, "
    "slats, set slats, tone, sound, play tone, volume, fan mode, thermostat fan, set thermostat fan"
)
TOOLS = ", ".join(sorted(spec.name for spec in PUBLIC))  # as the unknown-tool message lists them
CAPABILITIES = (
    "switch, dimmer, color, cover, fan, valve, siren, lock, thermostat, sensor, binary_sensor, notification, "
    "meter, button, battery"
)

BAD_INPUTS: list[tuple[str, dict[str, Any], str]] = [
    # names
    (
        C,
        {"deviceName": "kitchn light", "action": "on"},
        "No device named 'kitchn light'. Did you mean 'Kitchen Light' or 'Living Room Lamp'?",
    ),
    (C, {"deviceName": "zebra", "action": "on"}, "No device named 'zebra'."),
    (
        "get_device_state",
        {"deviceName": "garage door"},
        "No device named 'garage door'. Did you mean 'Garage Motion' or 'Front Door Lock'?",
    ),
    (
        C,
        {"deviceName": "light", "action": "on"},
        "'light' matches 3 devices: Kitchen Light (Kitchen), Living Room Lamp (Living Room), Bedroom Color Bulb (Bedroom). Say which one. "
        "To change all 3 lights, use control_zwave_group with target 'lights'.",
    ),
    (
        C,
        {"deviceName": "porch switch", "action": "off"},
        "'porch switch' matches 2 devices: Porch Double Switch (Porch), Porch Double Switch 2 (Porch). Say which one. "
        "To change all 2 porch switches, use control_zwave_group with target 'porch switches'.",
    ),
    (
        C,
        {"deviceName": "kitchen", "action": "on"},
        "'kitchen' matches 2 devices: Kitchen Light (Kitchen), Coffee Maker Plug (Kitchen). Say which one. "
        "To change all 2 kitchen devices, use control_zwave_group with target 'kitchen devices'.",
    ),
    ("get_recent_events", {"deviceName": "zebra"}, "No device named 'zebra'."),
    # actions the device cannot do
    (
        C,
        {"deviceName": "kitchen light", "action": "lock"},
        "Kitchen Light cannot lock; it can: on, off, toggle.",
    ),
    (
        C,
        {"deviceName": "front door", "action": "dim", "level": 20},
        "Front Door Lock cannot dim; it can: lock, unlock.",
    ),
    (
        C,
        {"deviceName": "blinds", "action": "set_color", "color": "red"},
        "Living Room Blinds cannot set_color; it can: open, close, stop, set_position, set_tilt.",
    ),
    (
        C,
        {"deviceName": "bedroom sensor", "action": "on"},
        "Bedroom Sensor cannot be controlled; it only reports readings.",
    ),
    (
        C,
        {"deviceName": "garage motion", "action": "off"},
        "Garage Motion cannot be controlled; it only reports readings.",
    ),
    # ranges from the device's metadata
    (
        C,
        {"deviceName": "living room lamp", "action": "dim", "level": 150},
        "Living Room Lamp level must be from 0 to 100 %; got 150.",
    ),
    (
        C,
        {"deviceName": "living room lamp", "action": "set_level", "level": -5},
        "Living Room Lamp level must be from 0 to 100 %; got -5.",
    ),
    (
        C,
        {"deviceName": "thermostat", "action": "set_temperature", "value": 40},
        "Hallway Thermostat heating setpoint must be from 5 to 30 °C; got 40.",
    ),
    (
        C,
        {"deviceName": "thermostat", "action": "set_temperature", "value": 2},
        "Hallway Thermostat heating setpoint must be from 5 to 30 °C; got 2.",
    ),
    (
        C,
        {"deviceName": "blinds", "action": "set_position", "position": 120},
        "Parameter 'position' must be between 0 and 100 (got 120).",
    ),
    # values the device cannot take
    (
        C,
        {"deviceName": "living room lamp", "action": "dim", "level": "abc"},
        "Living Room Lamp level must be a number, or a change like +10 or -20; got 'abc'.",
    ),
    (
        C,
        {"deviceName": "living room lamp", "action": "dim"},
        "Say what to set Living Room Lamp level to: a number, or a change like +10 or -20.",
    ),
    (
        C,
        {"deviceName": "blinds", "action": "set_position"},
        "Say what to set Living Room Blinds position to: a number, or a change like +10 or -20.",
    ),
    (
        C,
        {"deviceName": "thermostat", "action": "set_temperature", "value": "warm"},
        "Hallway Thermostat heating setpoint must be a number, or a change like +10 or -20; got 'warm'.",
    ),
    (
        C,
        {"deviceName": "thermostat", "action": "set_temperature", "value": 22, "setpoint": "banana"},
        "Hallway Thermostat has no 'banana' setpoint; it has: heating, cooling.",
    ),
    (
        C,
        {"deviceName": "thermostat", "action": "set_mode", "mode": "banana"},
        "Hallway Thermostat has no mode 'banana'; it has: Off, Heat, Cool, Auto.",
    ),
    (
        C,
        {"deviceName": "thermostat", "action": "set_mode"},
        "Say which mode to set Hallway Thermostat to: Off, Heat, Cool, Auto.",
    ),
    (
        C,
        {"deviceName": "bedroom color bulb", "action": "set_color", "color": "blurple"},
        "Bedroom Color Bulb cannot be set to 'blurple'; give a colour name like red or warm white, or a hex code like #ff5000.",
    ),
    (
        C,
        {"deviceName": "bedroom color bulb", "action": "set_color", "color": "#12345"},
        "Bedroom Color Bulb cannot be set to '#12345'; give a colour name like red or warm white, or a hex code like #ff5000.",
    ),
    # the executor: missing, wrong type, enum, range, empty
    (
        C,
        {"deviceName": "kitchen light"},
        f"Missing required parameter 'action': one of {ACTIONS} (What to do; verify_device lists the actions a device takes. Also accepted: {ALIASES}).",
    ),
    (
        "verify_device",
        {},
        "Missing required parameter 'deviceName': a string (The device as a person names it: 'kitchen light', 'front door', 'porch switch 2', or a node id).",
    ),
    ("activate_zwave_scene", {}, "Missing required parameter 'scene': a string (Scene name or id)."),
    (
        C,
        {"deviceName": "kitchen light", "action": "fly"},
        f"Parameter 'action' must be one of: {ACTIONS} (got 'fly').",
    ),
    (
        C,
        {"deviceName": "kitchen light", "action": "turn sideways"},
        f"Parameter 'action' must be one of: {ACTIONS} (got 'turn sideways').",
    ),
    (
        "list_zwave_devices",
        {"capability": "toaster"},
        f"Parameter 'capability' must be one of: {CAPABILITIES} (got 'toaster').",
    ),
    ("list_zwave_devices", {"limit": "x"}, "Parameter 'limit' must be an integer (got 'x')."),
    ("list_zwave_devices", {"limit": 0}, "Parameter 'limit' must be between 1 and 500 (got 0)."),
    ("list_zwave_devices", {"offset": -1}, "Parameter 'offset' must be greater than or equal to 0 (got -1)."),
    (
        "list_zwave_devices",
        {"includeInactive": "maybe"},
        "Parameter 'includeInactive' must be true or false (got 'maybe').",
    ),
    (
        "get_device_sensor_data",
        {"deviceName": "kitchen light", "maxAgeSeconds": -1},
        "Parameter 'maxAgeSeconds' must be between 0 and 86400 (got -1).",
    ),
    ("get_recent_events", {"minutes": 0}, "Parameter 'minutes' must be greater than 0 (got 0)."),
    (
        "get_device_history",
        {"deviceName": "front door", "period": "the other day"},
        "I cannot read the period 'the other day'. Try 'last hour', 'last 3 days', 'today', 'yesterday', "
        "'since 6 pm', 'this week', '2026-11-20', or an ISO range '2026-11-20T06:00/2026-11-20T09:00'.",
    ),
    (
        "get_device_history",
        {"room": "attic"},
        "No devices in a room named 'attic'. Rooms: Bedroom, Entry, Garage, Hallway, Kitchen, Living Room, Porch.",
    ),
    (
        "get_last_event",
        {"deviceName": "front door", "state": "exploded"},
        "Parameter 'state' must be one of: any, opened, closed, locked, unlocked, motion, on, off, dead, alive, asleep, awake, online, offline, pressed, smoke, co, co2, heat, freeze, water_leak, tamper, jammed, glass_break, intrusion (got 'exploded').",
    ),
    ("get_energy_usage", {"deviceName": "front door"}, "Front Door Lock has no energy meter (kWh)."),
    ("get_battery_report", {"deviceName": "kitchen light"}, "Kitchen Light has no battery."),
    ("get_battery_report", {"room": "porch"}, "No device in the porch has a battery."),
    ("get_battery_report", {"silentHours": 0}, "Parameter 'silentHours' must be greater than 0 (got 0)."),
    (C, {"deviceName": 123, "action": "on"}, "Parameter 'deviceName' must be a string (got 123)."),
    (C, {"deviceName": "", "action": "on"}, "Parameter 'deviceName' must not be empty."),
    (
        C,
        {"deviceName": "living room lamp", "action": "dim", "level": [1]},
        "Parameter 'level' must be a number or a string (got [1]).",
    ),
    (
        C,
        {"deviceName": "blinds", "action": "set_position", "position": "x"},
        "Parameter 'position' must be a number (got 'x').",
    ),
    # tools that do not exist
    ("nope", {}, f"Unknown tool 'nope'. Available tools: {TOOLS}."),
    (
        "turn_on_light",
        {"deviceName": "kitchen light"},
        f"Unknown tool 'turn_on_light'. Available tools: {TOOLS}.",
    ),
]


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(config=capture_config("a", timing=FAST, periodic=False))


async def test_every_bad_input_gets_its_exact_message_and_sends_nothing(
    mosquitto: Any, sim: Simulator, collector: Callable[[str], MessageCollector]
) -> None:
    sent = collector(api_topic(sim, "writeValue"))
    wrong: list[str] = []
    async with connected(settings_for(mosquitto, sim)) as client:
        for tool, args, expected in BAD_INPUTS:
            answer = await call(client, tool, args)
            if not answer.is_error or answer.text != expected or answer.envelope["error"] != expected:
                wrong.append(f"{tool} {args}:\n  expected {expected!r}\n  got      {answer.text!r}")
        # One real write after the table: once it arrives, any write the table made would have too.
        assert (await call(client, C, {"deviceName": "kitchen light", "action": "on"})).outcome == "confirmed"
    assert not wrong, "\n".join(wrong)
    assert wait_writes(sent, 1) == [
        ({"nodeId": 2, "commandClass": 37, "endpoint": 0, "property": "targetValue"}, True)
    ]


async def test_aliases_and_extra_arguments_are_accepted(
    mosquitto: Any, sim: Simulator, collector: Callable[[str], MessageCollector]
) -> None:
    sent = collector(api_topic(sim, "writeValue"))
    async with connected(settings_for(mosquitto, sim)) as client:
        snake = await call(client, C, {"device_name": "kitchen light", "command": "on"})
        assert snake.result["outcome"] == "confirmed" and snake.result["device"]["name"] == "Kitchen Light"
        listed = await call(
            client, "list_zwave_devices", {"include_inactive": True, "limit": 1, "colour": "x"}
        )
        assert (listed.result["total"], listed.result["count"]) == (11, 1)
        # The canonical name wins over its alias; unknown names are ignored, not refused.
        both = await call(
            client,
            C,
            {"deviceName": "coffee maker", "device_name": "kitchen light", "action": "on", "extra": 1},
        )
        assert both.result["device"]["name"] == "Coffee Maker Plug"
        events = await call(client, "get_recent_events", {"device_name": "coffee maker", "minutes": 5})
        assert events.result["events"] and all(
            e["device"] == "Coffee Maker Plug" for e in events.result["events"]
        )
    assert [(vid["nodeId"], value) for vid, value in wait_writes(sent, 2)] == [(2, True), (8, True)]
