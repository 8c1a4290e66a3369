"""Many devices named at once: a room, a kind, both, a declared group, or the whole house.

Pure. `Kind` is what people call a device in the plural ("lights", "plugs", "blinds"); `kind_of` picks it
from the device's capabilities and class, with its name as a hint (a switch named "lamp" is a light, a
switch with a power meter is a plug). `parse_group` reads a phrase such as "the kitchen lights",
"kitchen and living room", "all lights", "everything" or "upstairs" (a group from the alias file) into a
`GroupTarget`; `DeviceIndex.group` turns that into devices. A phrase with a word that is none of these is
not a group: the caller then treats it as one device's name, where ambiguity still lists the candidates.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from zwave_mcp.answers import and_list
from zwave_mcp.devices.model import SENSORS, Capability, Device


class Kind(StrEnum):
    LIGHT = "light"
    PLUG = "plug"
    SWITCH = "switch"
    BLIND = "blind"
    LOCK = "lock"
    THERMOSTAT = "thermostat"
    SENSOR = "sensor"
    DOOR = "door"
    FAN = "fan"
    VALVE = "valve"
    SIREN = "siren"
    SMOKE_ALARM = "smoke alarm"  # smoke, CO and heat alarms: binary sensors of those types
    REMOTE = "remote"  # remotes and scene controllers (Central Scene buttons)


# What people call many of a kind: every kind's plural is regular ("lights", "switches", "smoke alarms").
PLURALS: Mapping[Kind, str] = {kind: f"{kind}es" if kind.endswith("ch") else f"{kind}s" for kind in Kind}

# Words (folded to the singular, as `resolve.words_of` does) → kind.
KIND_WORDS: Mapping[str, Kind] = {
    **dict.fromkeys(("light", "lamp", "bulb", "lighting", "dimmer"), Kind.LIGHT),
    **dict.fromkeys(("plug", "outlet", "socket"), Kind.PLUG),
    "switch": Kind.SWITCH,
    **dict.fromkeys(("blind", "shade", "curtain", "shutter", "cover"), Kind.BLIND),
    "lock": Kind.LOCK,
    **dict.fromkeys(("thermostat", "heating"), Kind.THERMOSTAT),
    **dict.fromkeys(("sensor", "detector"), Kind.SENSOR),
    **dict.fromkeys(("door", "gate"), Kind.DOOR),
    "fan": Kind.FAN,
    "valve": Kind.VALVE,
    "siren": Kind.SIREN,
    # "smoke alarms", "CO detectors": a sounding siren says "siren"
    **dict.fromkeys(("smoke", "co", "alarm"), Kind.SMOKE_ALARM),
    **dict.fromkeys(("remote", "button", "keypad"), Kind.REMOTE),
}
# Words that mean "no limit" on rooms or kinds: "all lights", "everything", "the whole house".
ALL_WORDS = frozenset(
    {
        "all",
        "every",
        "everything",
        "anything",
        "whole",
        "entire",
        "house",
        "home",
        "everywhere",
        "device",
        "thing",
    }
)
# Joiners and filler between the parts of a phrase.
_JOINERS = frozenset({"and", "in", "on", "of", "at", "the", "my", "our", "please", "&", "plus"})

_LIGHT_NAMES = frozenset({"light", "lamp", "bulb", "lighting", "chandelier", "sconce", "spot", "led"})
_PLUG_NAMES = frozenset({"plug", "outlet", "socket"})
_DOOR_NAMES = frozenset({"door", "gate"})
# A contact sensor says so in its values: Binary Sensor "Door/Window", Notification "Access Control".
_CONTACT_PROPERTIES = frozenset({"Door/Window", "Access Control"})
# What a smoke, CO or heat alarm detects (discovery's binary sensor types).
_ALARM_PURPOSES = frozenset({"smoke", "co", "co2", "heat"})
# A room name may be several words ("living room"); longer names are tried first.
MAX_NAME_WORDS = 6


def kind_of(device: Device, name_words: Iterable[str]) -> Kind | None:
    """The one kind a device is listed under; `name_words` are its normalized name's words."""
    words = set(name_words)
    caps = device.capabilities
    if Capability.LOCK in caps:
        return Kind.LOCK
    if Capability.THERMOSTAT in caps:
        return Kind.THERMOSTAT
    if Capability.COVER in caps:
        return Kind.DOOR if device.is_entry else Kind.BLIND
    if Capability.VALVE in caps:
        return Kind.VALVE
    if Capability.FAN in caps:
        return Kind.FAN
    if Capability.SIREN in caps:
        return Kind.SIREN
    if Capability.COLOR in caps or Capability.DIMMER in caps:
        return Kind.PLUG if words & _PLUG_NAMES else Kind.LIGHT
    if Capability.SWITCH in caps:
        if words & _LIGHT_NAMES:
            return Kind.LIGHT
        if words & _PLUG_NAMES or Capability.METER in caps:
            return Kind.PLUG
        return Kind.SWITCH
    if device.kind == Capability.BUTTON:
        return Kind.REMOTE
    if any(c in caps for c in SENSORS):
        if _ALARM_PURPOSES & set(device.purposes.values()):
            return Kind.SMOKE_ALARM
        return Kind.DOOR if words & _DOOR_NAMES or _is_contact(device) else Kind.SENSOR
    return None


def _is_contact(device: Device) -> bool:
    return any(
        v.property in _CONTACT_PROPERTIES
        for cap in (Capability.BINARY_SENSOR, Capability.NOTIFICATION)
        for v in device.readings.get(cap, [])
    )


def kinds_of(device: Device, name_words: Iterable[str]) -> frozenset[Kind]:
    """Every kind word that names the device: its kind, and "doors" for a lock (it sits on a door)."""
    kind = kind_of(device, name_words)
    return _NO_KINDS if kind is None else _KINDS_OF_KIND[kind]


# One shared set per kind: every device of a 4,000-node house holds one.
_NO_KINDS: frozenset[Kind] = frozenset()
_KINDS_OF_KIND = {kind: frozenset({kind}) for kind in Kind} | {
    Kind.LOCK: frozenset({Kind.LOCK, Kind.DOOR}),
    Kind.SMOKE_ALARM: frozenset({Kind.SMOKE_ALARM, Kind.SENSOR}),  # "the sensors" includes them
}


@dataclass(frozen=True, slots=True)
class GroupTarget:
    """What a group phrase asks for. Empty `places` means the whole house; empty `kinds`, every kind."""

    places: tuple[str, ...] = ()  # normalized room names or group aliases, as found in the phrase
    kinds: tuple[Kind, ...] = ()
    said_all: bool = False  # "all", "every", "everything": the phrase names a group on purpose


@dataclass(slots=True)
class Group:
    """The devices a group phrase names, and how to say it: "kitchen and living room lights"."""

    target: GroupTarget
    label: str
    devices: list[Device] = field(default_factory=list)

    @property
    def everything(self) -> bool:
        """The whole house ("everything", "all"), not a room, a kind or one device."""
        return self.target.said_all and not (self.target.places or self.target.kinds)


def parse_group(words: list[str], places: Iterable[str]) -> GroupTarget | None:
    """Read normalized `words` as rooms / declared groups (`places`, normalized), kinds and "all" words.

    None when any word is none of these, or when nothing was named at all.
    """
    known = set(places)
    found_places: dict[str, None] = {}  # each once, in the phrase's order
    kinds: dict[Kind, None] = {}
    said_all = False
    i = 0
    while i < len(words):
        for size in range(min(MAX_NAME_WORDS, len(words) - i), 0, -1):
            candidate = " ".join(words[i : i + size])
            if candidate in known:
                found_places[candidate] = None
                i += size
                break
        else:
            word = words[i]
            if word in KIND_WORDS:
                kinds[KIND_WORDS[word]] = None
            elif word in ALL_WORDS:
                said_all = True
            elif word not in _JOINERS:
                return None
            i += 1
    if not (found_places or kinds or said_all):
        return None
    return GroupTarget(tuple(found_places), tuple(kinds), said_all)


def group_label(places: list[str], kinds: tuple[Kind, ...]) -> str:
    """ "kitchen and living room lights", "lights", "devices in the kitchen", "devices"."""
    what = and_list([PLURALS[k] for k in kinds]) if kinds else ""
    where = and_list(places)
    if where and what:
        return f"{where} {what}"
    if where:
        return f"{where} devices"
    return what or "devices"
