"""What people call a device: a node, or one endpoint of a node whose endpoints carry their own actuators.

A `Device` keeps the `ZValue`s each capability uses under a role name (`SWITCH_TARGET`, `LOCK_CURRENT`, …),
so control and description never search the node again. The values are the node's own `ZValue` objects:
a state that updates them in place keeps devices current; one that replaces them must rebuild the device
(`capabilities.devices_for_node`, cheap, one node at a time).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from zwave_mcp.gateway.model import ZNode, ZValue


class Capability(StrEnum):
    SWITCH = "switch"
    DIMMER = "dimmer"
    COLOR = "color"
    COVER = "cover"
    LOCK = "lock"
    THERMOSTAT = "thermostat"
    SENSOR = "sensor"
    BINARY_SENSOR = "binary_sensor"
    NOTIFICATION = "notification"
    METER = "meter"
    BATTERY = "battery"


# Capabilities that act on the world; the first one a device has is its `kind`.
ACTUATORS: tuple[Capability, ...] = (
    Capability.LOCK,
    Capability.THERMOSTAT,
    Capability.COVER,
    Capability.COLOR,
    Capability.DIMMER,
    Capability.SWITCH,
)
# Read-only capabilities, in the order a device's kind is picked when it has no actuator.
SENSORS: tuple[Capability, ...] = (
    Capability.NOTIFICATION,
    Capability.BINARY_SENSOR,
    Capability.SENSOR,
    Capability.METER,
    Capability.BATTERY,
)
KIND_ORDER: tuple[Capability, ...] = ACTUATORS + SENSORS

# Role names of single values (`Device.values`).
SWITCH_TARGET = "switch.target"
SWITCH_CURRENT = "switch.current"
LEVEL_TARGET = "level.target"
LEVEL_CURRENT = "level.current"
LEVEL_UP = "level.up"  # Multilevel Switch start/stop level change ("Up"/"Down" or "Open"/"Close")
LEVEL_DOWN = "level.down"
LEVEL_RESTORE = "level.restore"
COLOR_TARGET = "color.target"  # targetColor: object {warmWhite, coldWhite, red, green, blue}
COLOR_CURRENT = "color.current"
COLOR_HEX = "color.hex"
COVER_TARGET = "cover.target"
COVER_CURRENT = "cover.current"
COVER_UP = "cover.up"  # start opening (write true) / stop (write false)
COVER_DOWN = "cover.down"
LOCK_TARGET = "lock.target"
LOCK_CURRENT = "lock.current"
LOCK_DOOR = "lock.door"
LOCK_BOLT = "lock.bolt"
LOCK_LATCH = "lock.latch"
THERMOSTAT_MODE = "thermostat.mode"
THERMOSTAT_TEMPERATURE = "thermostat.temperature"
THERMOSTAT_OPERATING = "thermostat.operating_state"
SETPOINT_PREFIX = "setpoint."  # + setpoint type number, e.g. "setpoint.1" (Heating)
BATTERY_LEVEL = "battery.level"


@dataclass(slots=True)
class Device:
    """A controllable or observable thing in the house, as a person names it."""

    key: str  # "5" for a node, "11.2" for endpoint 2 of node 11; stable across renames
    node_id: int
    endpoint: int | None  # None: the node as a whole (its values may sit on endpoint 0 or one endpoint)
    name: str
    location: str
    kind: Capability | None
    capabilities: tuple[Capability, ...]
    node: ZNode
    values: dict[str, ZValue] = field(default_factory=dict)
    # Read-only values by capability (sensor, binary_sensor, notification, meter), in the node's order.
    readings: dict[Capability, list[ZValue]] = field(default_factory=dict)
    # Cover devices that open a way into the house (Barrier Operator, "garage door"): opening is sensitive.
    is_entry: bool = False
    # Other names people gave it (the alias file); policy lists match them too.
    aliases: tuple[str, ...] = ()

    def has(self, capability: Capability) -> bool:
        return capability in self.capabilities

    def value(self, role: str) -> ZValue | None:
        return self.values.get(role)

    def as_reported(self, reports: Mapping[str, Any]) -> Device:
        """This device with the values in `reports` (value id → value) as their device reported them,
        not as the live picture holds them now; the live picture is left as it is."""

        def shown(value: ZValue) -> ZValue:
            return value.holding(reports[value.value_id]) if value.value_id in reports else value

        return replace(
            self,
            values={role: shown(v) for role, v in self.values.items()},
            readings={cap: [shown(v) for v in values] for cap, values in self.readings.items()},
        )

    def setpoints(self) -> dict[int, ZValue]:
        """Thermostat setpoints by setpoint type (1 Heating, 2 Cooling, …)."""
        return {
            int(role[len(SETPOINT_PREFIX) :]): v
            for role, v in self.values.items()
            if role.startswith(SETPOINT_PREFIX)
        }

    def all_values(self) -> list[ZValue]:
        """Every value this device uses (roles first, then readings), without duplicates."""
        seen: dict[str, ZValue] = {}
        for v in self.values.values():
            seen.setdefault(v.value_id, v)
        for values in self.readings.values():
            for v in values:
                seen.setdefault(v.value_id, v)
        return list(seen.values())

    @property
    def label(self) -> str:
        """Name with location, as candidates are listed: "Kitchen Light (Kitchen)"."""
        return f"{self.name} ({self.location})" if self.location else self.name
