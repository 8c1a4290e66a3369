"""The corpus of real devices (`fixtures/devices/`) against the table written by hand from what each device
is (`fixtures/devices/expected.json`): every dump converts and loads, and each device's kind, binary sensor
types, reading quantities and controls are the table's.

The table is the reference, not zwave-mcp's output of the day: a row that fails says what zwave-mcp does
not understand yet. Matching: the devices zwave-mcp makes of a node are the table's (same endpoints, `null`
being the node as a whole), each of the same kind; the sensors, readings and controls the table lists are
among the device's (a device may do more).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.control import available_actions
from zwave_mcp.devices.model import Device
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"
TABLE: list[dict[str, Any]] = json.loads((DEVICES / "expected.json").read_text("utf-8"))
ROWS = {row["file"]: row for row in TABLE}
DUMPS = sorted(p.name for p in DEVICES.glob("*.json") if p.name != "expected.json")
NOW_MS = 1_800_000_000_000

# Issue 29's shared vocabulary (HELPERS.md): the only words the table may use.
KINDS = {
    "switch", "dimmer", "color", "cover", "lock", "thermostat", "sensor", "binary_sensor", "notification",
    "meter", "battery", "fan", "siren", "valve", "button",
}  # fmt: skip
SENSORS = {
    "door", "window", "smoke", "co", "co2", "heat", "water_leak", "freeze", "motion", "tamper", "glass_break",
    "tilt", "intrusion",
}  # fmt: skip
READINGS = {
    "temperature", "humidity", "illuminance", "uv", "power", "energy", "voltage", "current", "battery", "co2",
    "pressure", "water", "gas", "energy_production", "noise", "pm25", "voc", "weight", "speed",
}  # fmt: skip
CONTROLS = {
    "on", "off", "toggle", "dim", "set_level", "open", "close", "stop", "set_position", "lock", "unlock",
    "set_temperature", "set_mode", "set_color", "set_speed", "set_tilt", "set_tone", "set_volume",
    "set_fan_mode",
}  # fmt: skip


@cache
def devices_of(file: str) -> list[Device]:
    nodes = [parse_node(raw) for raw in load_house_file(DEVICES / file)]
    return build_devices(n for n in nodes if n is not None)


def reading_words(device: Device) -> tuple[set[str], set[str]]:
    """The device's reading quantities and binary sensor types, as zwave-mcp names them.

    `zwave_mcp.devices.readings` (issue 29's readings work) gives each reading its quantity and sensor
    type; a build without it names none, and the rows that list readings or sensors fail, as they should.
    """
    try:
        from zwave_mcp.devices.readings import readings  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        from zwave_mcp.devices.describe import readings
    found = readings(device, NOW_MS)
    quantities = {q for r in found if (q := getattr(r, "quantity", None))}
    sensors = {s for r in found if (s := getattr(r, "sensor", None))}
    return quantities, sensors


def named_part(device: Device) -> str | None:
    """A part a model row names on its endpoint ("night light"), which the table says as "part"; None for
    the node, its main part and its numbered parts."""
    plain = {str(device.node_id), f"{device.node_id}.{device.endpoint}"}
    return device.part if device.key not in plain else None


def matched(file: str) -> list[tuple[dict[str, Any], Device]]:
    """Each expected device with zwave-mcp's device of the same endpoint (and named part); fails on a
    different split."""
    actual = {(d.endpoint, named_part(d)): d for d in devices_of(file)}
    expected = ROWS[file]["devices"]
    wanted = [(e["endpoint"], e.get("part")) for e in expected]
    assert sorted(actual, key=str) == sorted(wanted, key=str), (
        f"{file}: zwave-mcp makes devices for endpoints {sorted(actual, key=str)} "
        f"(None = the node as a whole); the table says {sorted(wanted, key=str)}"
    )
    return [(e, actual[(e["endpoint"], e.get("part"))]) for e in expected]


def test_every_dump_has_a_row_and_every_row_a_dump() -> None:
    assert sorted(ROWS) == DUMPS
    assert len(TABLE) == len(ROWS), "a file has two rows"


def test_the_table_speaks_the_shared_vocabulary() -> None:
    for row in TABLE:
        assert row["what"].strip(), row["file"]
        assert row["devices"], row["file"]
        for device in row["devices"]:
            assert device["endpoint"] is None or isinstance(device["endpoint"], int), row["file"]
            assert device["kind"] in KINDS, (row["file"], device["kind"])
            assert set(device["sensors"]) <= SENSORS, (row["file"], device["sensors"])
            assert set(device["readings"]) <= READINGS, (row["file"], device["readings"])
            assert set(device["controls"]) <= CONTROLS, (row["file"], device["controls"])


@pytest.mark.parametrize("file", DUMPS)
def test_the_dump_converts_and_loads(file: str) -> None:
    house = load_house_file(DEVICES / file)
    assert sum(1 for n in house if n.get("isControllerNode")) == 1
    nodes = [parse_node(raw) for raw in house]
    assert all(n is not None for n in nodes)
    assert any(n.values for n in nodes if n is not None and not n.is_controller)
    assert devices_of(file), f"{file}: no device at all"


@pytest.mark.parametrize("file", DUMPS)
def test_kind(file: str) -> None:
    for expected, device in matched(file):
        kind = device.kind.value if device.kind is not None else None
        assert kind == expected["kind"], (
            f"{file} endpoint {expected['endpoint']}: {kind}, not {expected['kind']}"
        )


@pytest.mark.parametrize("file", DUMPS)
def test_readings_and_sensors(file: str) -> None:
    for expected, device in matched(file):
        quantities, sensors = reading_words(device)
        missing_readings = set(expected["readings"]) - quantities
        missing_sensors = set(expected["sensors"]) - sensors
        assert not missing_readings and not missing_sensors, (
            f"{file} endpoint {expected['endpoint']}: no reading of {sorted(missing_readings)}, "
            f"no sensor for {sorted(missing_sensors)} (it reads {sorted(quantities)}, senses {sorted(sensors)})"
        )


@pytest.mark.parametrize("file", DUMPS)
def test_controls(file: str) -> None:
    for expected, device in matched(file):
        actions = set(available_actions(device))
        missing = set(expected["controls"]) - actions
        assert not missing, (
            f"{file} endpoint {expected['endpoint']}: cannot {sorted(missing)} (it can {sorted(actions)})"
        )
        if not expected["controls"]:
            assert not actions, f"{file}: a device that only reports offers {sorted(actions)}"
