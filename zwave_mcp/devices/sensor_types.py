"""Binary sensors: which Notification states and Binary Sensor types say "smoke", "water leak", "open", and
the words a person hears for each type at rest and in alarm. Data, read by `describe` and `questions`,
and by the discovery table (`discovery_schemas`), which makes its binary sensor rows from these tables.

Sources: zwave-js's notification definitions (`packages/config/config/notifications.json`: notification
type, variable, state ids) and Binary Sensor types (`BinarySensorType`); which states count as "on" follows
Home Assistant's `zwave_js/binary_sensor.py` (NOTIFICATION_SENSOR_MAPPINGS), except that a water *level
drop* is not called a leak and an underheat is called freezing. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zwave_mcp.devices.levels import as_int
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.zwave.classes import CC


@dataclass(frozen=True, slots=True)
class SensorType:
    """One kind of binary sensor and how its two states are said."""

    word: str  # the shared vocabulary: "smoke", "water_leak", "door"
    alarm: str  # said of the device when it triggers: "smoke detected"
    idle: str  # at rest: "no smoke"
    noun: str  # what a question asks about: "smoke", "a water leak", "motion"
    sensed: str  # what a device of this type senses: "smoke", "water leaks"
    quiet: bool = False  # at rest it is no news (tamper): left out of the spoken state


TYPES: dict[str, SensorType] = {
    t.word: t
    for t in (
        SensorType("smoke", "smoke detected", "no smoke", "smoke", "smoke"),
        SensorType(
            "co", "carbon monoxide detected", "no carbon monoxide", "carbon monoxide", "carbon monoxide"
        ),
        SensorType(
            "co2",
            "carbon dioxide alarm",
            "no carbon dioxide alarm",
            "a carbon dioxide alarm",
            "carbon dioxide",
        ),
        SensorType("heat", "overheating", "no heat alarm", "a heat alarm", "overheating"),
        SensorType("freeze", "freezing", "no freeze alarm", "a freeze alarm", "freezing"),
        SensorType("water_leak", "water leak detected", "no leak", "a water leak", "water leaks"),
        SensorType(
            "glass_break", "glass breakage detected", "no glass breakage", "glass breakage", "glass breakage"
        ),
        SensorType("tamper", "tampering detected", "not tampered with", "tampering", "tampering", quiet=True),
        # Home Security's Intrusion (Home Assistant's "safety" binary sensor): an alarm input such as a
        # panic button's, not a tamper switch
        SensorType("intrusion", "intrusion detected", "no intrusion", "an intrusion", "intrusions"),
        SensorType("motion", "motion detected", "no motion", "motion", "motion"),
        SensorType("door", "door open", "door closed", "an open door", "doors opening"),
        SensorType("window", "window open", "window closed", "an open window", "windows opening"),
        SensorType("tilt", "tilted", "not tilted", "a tilt", "tilting"),
        SensorType("handle", "handle open", "handle closed", "an open handle", "handles opening"),
    )
}

# zwave-js notification types by the name it gives them as the value's property (when a gateway's value
# carries no ccSpecific.notificationType).
NOTIFICATION_TYPES = {
    "Smoke Alarm": 1,
    "CO Alarm": 2,
    "CO2 Alarm": 3,
    "Heat Alarm": 4,
    "Water Alarm": 5,
    "Access Control": 6,
    "Home Security": 7,
    "Weather Alarm": 16,
}

# (notification type, state id) → binary sensor type, for the states that mean "triggered".
_ALARM_STATES: dict[tuple[int, int], str] = {
    (1, 1): "smoke",  # Smoke detected (location provided)
    (1, 2): "smoke",  # Smoke detected
    (2, 1): "co",  # Carbon monoxide detected (location provided)
    (2, 2): "co",  # Carbon monoxide detected
    (3, 1): "co2",
    (3, 2): "co2",
    (4, 1): "heat",  # Overheat detected (location provided)
    (4, 2): "heat",
    (4, 5): "freeze",  # Underheat detected (location provided)
    (4, 6): "freeze",
    (5, 1): "water_leak",  # Water leak detected (location provided)
    (5, 2): "water_leak",
    (6, 22): "door",  # Window/door is open
    (6, 5632): "door",  # Window/door is open in regular position
    (6, 5633): "door",  # Window/door is open in tilt position
    (6, 24): "handle",  # Window/door handle is open
    (7, 1): "intrusion",  # Intrusion (location provided)
    (7, 2): "intrusion",  # Intrusion
    (7, 3): "tamper",  # Tampering, product cover removed
    (7, 4): "tamper",  # Tampering, invalid code
    (7, 9): "tamper",  # Tampering, product moved
    (7, 5): "glass_break",  # Glass breakage (location provided)
    (7, 6): "glass_break",
    (7, 7): "motion",  # Motion detection (location provided)
    (7, 8): "motion",  # Motion detection
    (16, 3): "freeze",  # Freeze alarm
}
# States that are the rest state of a variable without an "idle" 0: the door is closed.
_REST_STATES: dict[tuple[int, int], str] = {(6, 23): "door", (6, 25): "handle"}

# zwave-js's synthetic Access Control variables (NotificationCC.ts; "Opening state" since 15.22, which
# deprecates "Door state (simple)" and "Door tilt state"): their states are their own, not Access Control
# events (their 1 is not "Manual lock operation"), so they are read by (type, variable, state).
# "Opening state" is 0 closed, 1 open, 2 tilted (a state zwave-js adds once the node reports a tilt).
OPENING_STATE, DOOR_TILT_STATE = "Opening state", "Door tilt state"
_VARIABLE_ALARMS: dict[tuple[int, str, int], str] = {
    (6, OPENING_STATE, 1): "door",
    (6, OPENING_STATE, 2): "door",  # open, in tilt position
    (6, DOOR_TILT_STATE, 1): "tilt",
}
_SYNTHETIC = frozenset((kind, variable) for kind, variable, _ in _VARIABLE_ALARMS)
# The variables "Opening state" supersedes where zwave-js publishes it: they say the same door again.
DEPRECATED_DOOR_VARIABLES = ("Door state (simple)", DOOR_TILT_STATE)
# (type, variable, state) that are an opening's tilt: said "tilted", and an open door or window.
_TILTED = frozenset({(6, OPENING_STATE, 2), (6, "Door state", 5633)})


@dataclass(frozen=True, slots=True)
class SensorVariable:
    """A Notification variable that is a binary sensor: what it senses, and whether it is what the device
    is for (a smoke alarm's "Sensor status") or an alert besides it (any sensor's tamper switch, a
    thermometer's underheat). The discovery table makes its rows from these; `sensor_type` reads a value
    whose metadata lost its states by them (seen in real dumps: an Ecolink's "Home Security / Cover
    status" with no label, states nor ccSpecific)."""

    notification: str  # zwave-js's name of the notification type: the value's property
    variable: str  # the value's property key
    word: str  # a key of TYPES
    state: str | None = None  # a state label that tells it apart where one variable says two things
    alert: bool = False  # does not make the device a binary sensor


NOTIFICATION_VARIABLES: tuple[SensorVariable, ...] = (
    SensorVariable("Smoke Alarm", "Sensor status", "smoke"),
    SensorVariable("CO Alarm", "Sensor status", "co"),
    SensorVariable("CO2 Alarm", "Sensor status", "co2"),
    SensorVariable("Heat Alarm", "Heat sensor status", "heat", state="Overheat detected"),
    SensorVariable("Water Alarm", "Sensor status", "water_leak"),
    SensorVariable("Access Control", "Door state", "door"),
    SensorVariable("Access Control", OPENING_STATE, "door"),
    SensorVariable("Access Control", "Door state (simple)", "door"),
    SensorVariable("Access Control", DOOR_TILT_STATE, "tilt", alert=True),
    # a window handle's position (zwave-js 15.22 remaps the Hoppe eHandle's lock events to it)
    SensorVariable("Access Control", "Door handle state", "handle", alert=True),
    SensorVariable("Home Security", "Motion sensor status", "motion"),
    SensorVariable("Heat Alarm", "Heat sensor status", "freeze", state="Underheat detected", alert=True),
    SensorVariable("Home Security", "Cover status", "tamper", alert=True),
    # "Sensor status" also carries glass breakage: its Intrusion state tells the intrusion alarm apart
    SensorVariable("Home Security", "Sensor status", "intrusion", state="Intrusion", alert=True),
)

# (notification type, variable) → type, for a value whose states are lost: the variable's first row says.
_VARIABLES: dict[tuple[int, str], str] = {
    (NOTIFICATION_TYPES[v.notification], v.variable): v.word for v in reversed(NOTIFICATION_VARIABLES)
}

# Binary Sensor CC: zwave-js names the value after the sensor type.
BINARY_SENSOR_TYPES = {
    "Door/Window": "door",
    "Smoke": "smoke",
    "CO": "co",
    "CO2": "co2",
    "Heat": "heat",
    "Water": "water_leak",
    "Freeze": "freeze",
    "Tamper": "tamper",
    "Motion": "motion",
    "Glass Break": "glass_break",
    "Tilt": "tilt",
}


def notification_type(value: ZValue) -> int | None:
    spec = value.cc_specific
    kind = as_int(spec.get("notificationType")) if isinstance(spec, dict) else None
    return kind if kind is not None else NOTIFICATION_TYPES.get(str(value.property))


def sensor_type(value: ZValue, purpose: str | None = None) -> SensorType | None:
    """The binary sensor a value is (a Notification variable or a Binary Sensor value), or None.
    `purpose`: what a device-specific discovery row says the value is for (an Ecolink's Binary Sensor
    "Any" is its door), which wins over the value's own type."""
    if value.command_class in (CC.BINARY_SENSOR, CC.NOTIFICATION) and purpose in TYPES:
        return TYPES[purpose]
    if value.command_class == CC.DOOR_LOCK:  # a lock's own door sensor (Home Assistant's door binary sensor)
        return TYPES["door"] if value.property == "doorStatus" else None
    if value.command_class == CC.BINARY_SENSOR:
        word = BINARY_SENSOR_TYPES.get(str(value.property))
        return TYPES[word] if word else None
    if value.command_class != CC.NOTIFICATION:
        return None
    kind = notification_type(value)
    if kind is None:
        return None
    if (kind, str(value.property_key)) in _SYNTHETIC:
        return TYPES[_VARIABLES[(kind, str(value.property_key))]]
    words = [
        _ALARM_STATES.get((kind, s.value)) or _REST_STATES.get((kind, s.value))
        for s in value.states
        if as_int(s.value) is not None
    ]
    found = [w for w in words if w]
    if not found:
        word = _VARIABLES.get((kind, str(value.property_key)))
        return TYPES[word] if word else None
    # A variable whose states name one kind of sensor is that sensor (Home Security's "Sensor status"
    # can carry both intrusion and glass breakage: it is the one its named states mostly are; a tie goes to
    # the first named, not to a set's order, which changes with the process's string hashing).
    return TYPES[max(dict.fromkeys(found), key=found.count)]


def _alarm_word(value: ZValue, kind: int, state: int) -> str | None:
    """The sensor type a Notification state sets off: the variable's own states first (see
    `_VARIABLE_ALARMS`), else the notification type's events."""
    variable = str(value.property_key)
    if (kind, variable) in _SYNTHETIC:
        return _VARIABLE_ALARMS.get((kind, variable, state))
    return _ALARM_STATES.get((kind, state))


def tilted(value: ZValue, raw: Any) -> bool:
    """Is this an opening's state of being open in tilt position (a tilt-and-turn window)?"""
    kind, state = notification_type(value), as_int(raw)
    return value.command_class == CC.NOTIFICATION and (kind, str(value.property_key), state) in _TILTED


def triggered(value: ZValue, raw: Any, purpose: str | None = None) -> SensorType | None:
    """The sensor type a reported state sets off ("smoke" for Smoke Alarm state 2), or None."""
    if value.command_class == CC.BINARY_SENSOR:
        kind = sensor_type(value, purpose)
        return kind if raw is True else None
    if value.command_class != CC.NOTIFICATION:
        return None
    kind_id, state = notification_type(value), as_int(raw)
    if kind_id is None or state is None:
        return None
    word = _alarm_word(value, kind_id, state)
    if word == "door" and (kind := sensor_type(value, purpose)) is not None:
        return kind  # a door state variable of a window (a row says so) says "window"
    return TYPES[word] if word else None


def alarm_state(value: ZValue, raw: Any, purpose: str | None = None) -> bool | None:
    """Is this binary sensor triggered? True/False, None when it has not said (or says nothing we know)."""
    kind = sensor_type(value, purpose)
    if kind is None or raw is None:
        return None
    if value.command_class == CC.BINARY_SENSOR:
        return raw if isinstance(raw, bool) else None
    if value.command_class == CC.DOOR_LOCK:  # zwave-js says "open" or "closed"
        said = raw.strip().casefold() if isinstance(raw, str) else None
        return True if said == "open" else False if said == "closed" else None
    if triggered(value, raw, purpose) is not None:
        return True
    state = as_int(raw)
    if state == 0 or (state is not None and _REST_STATES.get((notification_type(value) or 0, state))):
        return False
    return None  # another state of the variable (a test, a maintenance state): not this alarm


def words(value: ZValue, raw: Any, purpose: str | None = None) -> str | None:
    """The state in words: "smoke detected", "no smoke", "open", "closed"; None when unknown."""
    kind = sensor_type(value, purpose)
    state = alarm_state(value, raw, purpose)
    if kind is None or state is None:
        return None
    hit = triggered(value, raw, purpose) or kind
    if state and tilted(value, raw):
        return f"{hit.word} tilted"  # "window tilted": open, in tilt position
    return hit.alarm if state else kind.idle
