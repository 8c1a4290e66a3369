"""What people call a device: a node, or a part of a node whose endpoints act on their own (`build`).

A `Device` keeps the `ZValue`s each capability uses under a role name (`SWITCH_TARGET`, `LOCK_CURRENT`, …),
so control and description never search the node again. The values are the node's own `ZValue` objects:
a state that updates them in place keeps devices current; one that replaces them must rebuild the device
(`capabilities.devices_for_node`, cheap, one node at a time).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Annotated, Any, TypeVar

from pydantic import BeforeValidator

from zwave_mcp.gateway.model import ZNode, ZValue
from zwave_mcp.names import word_reader


class Capability(StrEnum):
    SWITCH = "switch"
    DIMMER = "dimmer"
    COLOR = "color"
    COVER = "cover"
    FAN = "fan"
    VALVE = "valve"
    SIREN = "siren"
    LOCK = "lock"
    THERMOSTAT = "thermostat"
    SENSOR = "sensor"
    BINARY_SENSOR = "binary_sensor"
    NOTIFICATION = "notification"
    METER = "meter"
    BUTTON = "button"  # remotes and scene controllers: Central Scene presses
    BATTERY = "battery"


# What people and models call a capability when they name one ("blinds", "remotes"); plurals and spacing
# are read by `names.word_reader`.
CAPABILITY_WORDS: Mapping[str, str] = {
    **dict.fromkeys(("blind", "shade", "curtain", "shutter"), "cover"),
    "door lock": "lock",
    **dict.fromkeys(("remote", "keypad", "scene controller"), "button"),
    **dict.fromkeys(("colour", "color bulb"), "color"),
    **dict.fromkeys(("power meter", "energy meter"), "meter"),
}
# A capability as a tool argument: the schema lists the names, the words above and plurals are read too.
CapabilityWord = Annotated[Capability, BeforeValidator(word_reader(Capability, CAPABILITY_WORDS))]

# Capabilities that act on the world; the first one a device has is its `kind`.
ACTUATORS: tuple[Capability, ...] = (
    Capability.LOCK,
    Capability.THERMOSTAT,
    Capability.COVER,
    Capability.VALVE,
    Capability.FAN,
    Capability.SIREN,
    Capability.COLOR,
    Capability.DIMMER,
    Capability.SWITCH,
)
# Read-only capabilities, in the order a device's kind is picked when it has no actuator.
# A smoke alarm or a door sensor is a binary sensor even when its states come from Notification values.
SENSORS: tuple[Capability, ...] = (
    Capability.BINARY_SENSOR,
    Capability.BUTTON,
    Capability.SENSOR,
    Capability.METER,
    Capability.NOTIFICATION,
    Capability.BATTERY,
)
KIND_ORDER: tuple[Capability, ...] = ACTUATORS + SENSORS

# Role names of single values (`Device.values`).
SWITCH_TARGET = "switch.target"
SWITCH_CURRENT = "switch.current"
LEVEL_TARGET = "level.target"  # a dimmer's brightness, a fan's speed (Multilevel Switch)
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
TILT_TARGET = "tilt.target"  # Window Covering slats: 0 closed … 99 open
TILT_CURRENT = "tilt.current"
VALVE_TARGET = "valve.target"  # Binary Switch (true = open) or Multilevel Switch (0 closed … 99 open)
VALVE_CURRENT = "valve.current"
SIREN_TONE = "siren.tone"  # Sound Switch toneId (0 off, 255 the default tone), or a siren's tone level
SIREN_TONE_CURRENT = "siren.tone_current"  # the level a Multilevel Switch siren reports
SIREN_VOLUME = "siren.volume"  # Sound Switch defaultVolume (0-100 %)
SIREN_DEFAULT_TONE = "siren.default_tone"
LOCK_TARGET = "lock.target"
LOCK_CURRENT = "lock.current"
LOCK_DOOR = "lock.door"
LOCK_BOLT = "lock.bolt"
LOCK_LATCH = "lock.latch"
THERMOSTAT_MODE = "thermostat.mode"
THERMOSTAT_TEMPERATURE = "thermostat.temperature"
THERMOSTAT_OPERATING = "thermostat.operating_state"
THERMOSTAT_FAN_MODE = "thermostat.fan_mode"  # Thermostat Fan Mode CC: Auto low, Low, High, …
THERMOSTAT_FAN_STATE = "thermostat.fan_state"  # Thermostat Fan State CC: Idle / Running, …
THERMOSTAT_FAN_OFF = "thermostat.fan_off"  # Thermostat Fan Mode "off": true while the fan is kept off
THERMOSTAT_VALVE = "thermostat.valve"  # a radiator thermostat's valve opening (its Multilevel Switch, 0-99)
BATTERY_LEVEL = "battery.level"
# The legacy Alarm v1 pair of a model whose zwave-js device file maps it (`alarm_pairs`): the alarm type is
# the reading (this purpose), the alarm level its companion.
ALARM_PAIR, ALARM_LEVEL = "alarm_pair", "alarm.level"


T = TypeVar("T")


def template_of(templates: tuple[object, ...], kind: type[T]) -> T | None:
    """The template of this type among a device's (a kind's own facts of a model: `kinds/`), if any."""
    return next((t for t in templates if isinstance(t, kind)), None)


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
    # What discovery says each value it claimed is for (value id → "level.target", "smoke", "temperature"…).
    purposes: dict[str, str] = field(default_factory=dict)
    # The templates of the discovery rows that matched: each kind's facts of a model, typed by the kind
    # (a fan's speeds, a siren's tones by level, the sensor a thermostat regulates by); `template`.
    templates: tuple[object, ...] = ()
    # Values no discovery row claimed: what a bug report about a device not understood needs.
    unclaimed: tuple[ZValue, ...] = ()
    # Why zwave-mcp failed on this device (its discovery or its description raised): it is then "not
    # understood yet", with this reason in `explain` and the log, and every other device answers as usual.
    fault: str | None = None
    # A part of a node that is not its main function: what tells it apart in its name ("2", "White
    # channel"); None for the whole node or its main part, which has the node's own name (`build`).
    part: str | None = None
    # Further names it answers to exactly, besides its name and aliases (the main part's "<node> <n>").
    other_names: tuple[str, ...] = ()
    # The main part's siblings, (endpoint, name), each a device of its own: the node's answer by its own
    # name says the power they use too (a double relay's second channel).
    siblings: tuple[tuple[int, str], ...] = ()

    @property
    def understood(self) -> bool:
        """False for a device no discovery row made anything of, or one zwave-mcp failed on: "not
        understood yet", never "no readings"."""
        return self.kind is not None and self.fault is None

    def has(self, capability: Capability) -> bool:
        return capability in self.capabilities

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

    def template(self, kind: type[T]) -> T | None:
        return template_of(self.templates, kind)

    def all_values(self) -> list[ZValue]:
        """Every value this device uses (roles first, then readings), without duplicates."""
        seen: dict[str, ZValue] = {}
        for v in itertools.chain(self.values.values(), *self.readings.values()):
            seen.setdefault(v.value_id, v)
        return list(seen.values())

    @property
    def label(self) -> str:
        """Name with location, as candidates are listed: "Kitchen Light (Kitchen)"."""
        return f"{self.name} ({self.location})" if self.location else self.name
