"""Command class numbers, and which capabilities (with which values) one endpoint's values give.

Pure: input is the `ZValue`s of one endpoint (and the node's device class), output is a `Detected`.
Property names are zwave-js's, as seen in the captured `getNodes` (fixtures/recorded/getNodes.json).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from zwave_mcp.devices import model as m
from zwave_mcp.devices.model import Capability
from zwave_mcp.gateway.model import ZValue

# Command classes, named like zwave-js's `CommandClasses` enum.
BASIC = 32
BINARY_SWITCH = 37
MULTILEVEL_SWITCH = 38
BINARY_SENSOR = 48
MULTILEVEL_SENSOR = 49
METER = 50
COLOR_SWITCH = 51
THERMOSTAT_MODE = 64
THERMOSTAT_OPERATING_STATE = 66
THERMOSTAT_SETPOINT = 67
MULTI_CHANNEL = 96
DOOR_LOCK = 98
BARRIER_OPERATOR = 102
WINDOW_COVERING = 106
NOTIFICATION = 113
MANUFACTURER_SPECIFIC = 114
BATTERY = 128
WAKE_UP = 132
VERSION = 134

# zwave-js device classes: generic "Multilevel Switch" with a motor specific class is a cover, not a dimmer.
GENERIC_MULTILEVEL_SWITCH = 0x11
MOTOR_SPECIFIC_CLASSES = frozenset({0x03, 0x05, 0x06, 0x07})  # Multiposition Motor, Motor Control A/B/C

# Multilevel Switch names its start/stop-level-change values after the switch type: "Up"/"Down" for
# dimmers (type 2), "Open"/"Close" for covers (type 3).
_LEVEL_CHANGE_PAIRS = (("Up", "Down"), ("Open", "Close"))

# Notification values that are legacy alarm bytes, not states a person cares about.
_LEGACY_ALARM_PROPERTIES = frozenset({"alarmType", "alarmLevel"})

# Window Covering parameters that tilt slats rather than move the cover.
_SLAT_MARKERS = ("slat",)


@dataclass(slots=True)
class Detected:
    """What one endpoint offers: capabilities, role → value, readings."""

    capabilities: set[Capability] = field(default_factory=set)
    values: dict[str, ZValue] = field(default_factory=dict)
    readings: dict[Capability, list[ZValue]] = field(default_factory=dict)
    is_entry: bool = False

    def has_actuator(self) -> bool:
        return any(c in self.capabilities for c in m.ACTUATORS)

    def merge(self, other: Detected) -> None:
        """Add another endpoint's findings; roles already taken are kept (root first)."""
        self.capabilities |= other.capabilities
        for role, value in other.values.items():
            self.values.setdefault(role, value)
        for cap, values in other.readings.items():
            self.readings.setdefault(cap, []).extend(values)
        self.is_entry = self.is_entry or other.is_entry


def is_motor_class(generic: int | None, specific: int | None) -> bool:
    return generic == GENERIC_MULTILEVEL_SWITCH and specific in MOTOR_SPECIFIC_CLASSES


def detect(
    values: Iterable[ZValue], *, generic_class: int | None = None, specific_class: int | None = None
) -> Detected:
    """Capabilities of one endpoint from its values (Basic is not looked at here: see `detect_basic`)."""
    by_cc: dict[int, dict[tuple[str | int, str | int | None], ZValue]] = {}
    for v in values:
        by_cc.setdefault(v.command_class, {})[(v.property, v.property_key)] = v
    found = Detected()
    if BINARY_SWITCH in by_cc:
        _binary_switch(by_cc[BINARY_SWITCH], found)
    if MULTILEVEL_SWITCH in by_cc:
        _multilevel_switch(by_cc[MULTILEVEL_SWITCH], found, is_motor_class(generic_class, specific_class))
    if COLOR_SWITCH in by_cc:
        _color_switch(by_cc[COLOR_SWITCH], found)
    if WINDOW_COVERING in by_cc:
        _window_covering(by_cc[WINDOW_COVERING], found)
    if BARRIER_OPERATOR in by_cc:
        _barrier(by_cc[BARRIER_OPERATOR], found)
    if DOOR_LOCK in by_cc:
        _door_lock(by_cc[DOOR_LOCK], found)
    _thermostat(by_cc, found)
    _readings(by_cc, found)
    return found


def detect_basic(values: Iterable[ZValue]) -> Detected:
    """A node that offers nothing but Basic is switched through Basic (0 = off, 255 = on)."""
    found = Detected()
    basic = {(v.property, v.property_key): v for v in values if v.command_class == BASIC}
    target = basic.get(("targetValue", None))
    if target is not None and target.writeable:
        found.capabilities.add(Capability.SWITCH)
        found.values[m.SWITCH_TARGET] = target
        current = basic.get(("currentValue", None))
        if current is not None:
            found.values[m.SWITCH_CURRENT] = current
    return found


def _binary_switch(vals: dict[tuple[str | int, str | int | None], ZValue], found: Detected) -> None:
    target = vals.get(("targetValue", None))
    if target is None or not target.writeable:
        return
    found.capabilities.add(Capability.SWITCH)
    found.values[m.SWITCH_TARGET] = target
    if (current := vals.get(("currentValue", None))) is not None:
        found.values[m.SWITCH_CURRENT] = current


def _multilevel_switch(
    vals: dict[tuple[str | int, str | int | None], ZValue], found: Detected, motor: bool
) -> None:
    target = vals.get(("targetValue", None))
    if target is None or not target.writeable:
        return
    up = down = None
    opens_closes = False
    for up_name, down_name in _LEVEL_CHANGE_PAIRS:
        if (up_name, None) in vals or (down_name, None) in vals:
            up, down = vals.get((up_name, None)), vals.get((down_name, None))
            opens_closes = up_name == "Open"
            break
    current = vals.get(("currentValue", None))
    if motor or opens_closes:
        found.capabilities.add(Capability.COVER)
        roles = (m.COVER_TARGET, m.COVER_CURRENT, m.COVER_UP, m.COVER_DOWN)
    else:
        found.capabilities.add(Capability.DIMMER)
        roles = (m.LEVEL_TARGET, m.LEVEL_CURRENT, m.LEVEL_UP, m.LEVEL_DOWN)
        if (restore := vals.get(("restorePrevious", None))) is not None and restore.writeable:
            found.values[m.LEVEL_RESTORE] = restore
    for role, value in zip(roles, (target, current, up, down), strict=True):
        if value is not None:
            found.values.setdefault(role, value)


def _color_switch(vals: dict[tuple[str | int, str | int | None], ZValue], found: Detected) -> None:
    target = vals.get(("targetColor", None))
    hex_value = vals.get(("hexColor", None))
    if not ((target and target.writeable) or (hex_value and hex_value.writeable)):
        return
    found.capabilities.add(Capability.COLOR)
    if target is not None and target.writeable:
        found.values[m.COLOR_TARGET] = target
    if hex_value is not None:
        found.values[m.COLOR_HEX] = hex_value
    if (current := vals.get(("currentColor", None))) is not None:
        found.values[m.COLOR_CURRENT] = current


def color_components(vals: Iterable[ZValue]) -> list[str]:
    """Colour component names a device has (from `targetColor-<n>` values), e.g. ["warmWhite", "red", …]."""
    names = {
        0: "warmWhite",
        1: "coldWhite",
        2: "red",
        3: "green",
        4: "blue",
        5: "amber",
        6: "cyan",
        7: "purple",
    }
    keys = sorted(
        v.property_key
        for v in vals
        if v.command_class == COLOR_SWITCH and v.property == "targetColor" and isinstance(v.property_key, int)
    )
    return [names[k] for k in keys if k in names]


def _window_covering(vals: dict[tuple[str | int, str | int | None], ZValue], found: Detected) -> None:
    params = [key for (prop, key) in vals if prop == "targetValue" and isinstance(key, int)]
    if not params:
        return

    def is_slat(param: int) -> bool:
        label = (vals[("targetValue", param)].property_key_name or "").lower()
        return any(marker in label for marker in _SLAT_MARKERS)

    # The main movement: a positional parameter that moves the cover itself, the lowest one first.
    param = sorted(params, key=lambda p: (is_slat(p), p))[0]
    found.capabilities.add(Capability.COVER)
    found.values[m.COVER_TARGET] = vals[("targetValue", param)]
    for role, prop in (
        (m.COVER_CURRENT, "currentValue"),
        (m.COVER_UP, "levelChangeUp"),
        (m.COVER_DOWN, "levelChangeDown"),
    ):
        if (value := vals.get((prop, param))) is not None:
            found.values[role] = value


def _barrier(vals: dict[tuple[str | int, str | int | None], ZValue], found: Detected) -> None:
    target = vals.get(("targetState", None))
    if target is None or not target.writeable:
        return
    found.capabilities.add(Capability.COVER)
    found.is_entry = True  # garage doors and gates
    found.values[m.COVER_TARGET] = target
    if (current := vals.get(("currentState", None))) is not None:
        found.values[m.COVER_CURRENT] = current


def _door_lock(vals: dict[tuple[str | int, str | int | None], ZValue], found: Detected) -> None:
    target = vals.get(("targetMode", None))
    if target is None or not target.writeable:
        return
    found.capabilities.add(Capability.LOCK)
    found.values[m.LOCK_TARGET] = target
    for role, prop in (
        (m.LOCK_CURRENT, "currentMode"),
        (m.LOCK_DOOR, "doorStatus"),
        (m.LOCK_BOLT, "boltStatus"),
        (m.LOCK_LATCH, "latchStatus"),
    ):
        if (value := vals.get((prop, None))) is not None:
            found.values[role] = value


def _thermostat(by_cc: dict[int, dict[tuple[str | int, str | int | None], ZValue]], found: Detected) -> None:
    mode = by_cc.get(THERMOSTAT_MODE, {}).get(("mode", None))
    setpoints = {
        key: v
        for (prop, key), v in by_cc.get(THERMOSTAT_SETPOINT, {}).items()
        if prop == "setpoint" and isinstance(key, int) and v.writeable
    }
    if not setpoints and (mode is None or not mode.writeable):
        return
    found.capabilities.add(Capability.THERMOSTAT)
    if mode is not None:
        found.values[m.THERMOSTAT_MODE] = mode
    for key, value in sorted(setpoints.items()):
        found.values[f"{m.SETPOINT_PREFIX}{key}"] = value
    if (state := by_cc.get(THERMOSTAT_OPERATING_STATE, {}).get(("state", None))) is not None:
        found.values[m.THERMOSTAT_OPERATING] = state
    temperature = by_cc.get(MULTILEVEL_SENSOR, {}).get(("Air temperature", None))
    if temperature is not None:
        found.values[m.THERMOSTAT_TEMPERATURE] = temperature


def _readings(by_cc: dict[int, dict[tuple[str | int, str | int | None], ZValue]], found: Detected) -> None:
    groups: tuple[tuple[Capability, int], ...] = (
        (Capability.SENSOR, MULTILEVEL_SENSOR),
        (Capability.BINARY_SENSOR, BINARY_SENSOR),
        (Capability.NOTIFICATION, NOTIFICATION),
        (Capability.METER, METER),
    )
    for cap, cc in groups:
        vals = [v for v in by_cc.get(cc, {}).values() if v.readable and _is_reading(cc, v)]
        if vals:
            found.capabilities.add(cap)
            found.readings[cap] = vals
    battery = by_cc.get(BATTERY, {}).get(("level", None))
    if battery is not None:
        found.capabilities.add(Capability.BATTERY)
        found.values[m.BATTERY_LEVEL] = battery


def _is_reading(cc: int, value: ZValue) -> bool:
    if cc == NOTIFICATION:
        return value.property not in _LEGACY_ALARM_PROPERTIES and value.type != "duration"
    if cc == METER:
        return value.property == "value"
    if cc == BINARY_SENSOR:
        return value.type == "boolean"
    return value.type == "number"
