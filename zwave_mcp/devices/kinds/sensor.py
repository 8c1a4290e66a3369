"""The read-only kinds: sensors, binary sensors (a door or window contact said as open or closed),
notifications, meters, batteries, and remotes' buttons. Their discovery rows, and the sentence of a
device that only reports (its readings in the order `readings` gives them; a remote's presses are events,
`presses`, not a state).

How a reading is said is `readings`: every kind's sentence says its readings so. Pure.
"""

from __future__ import annotations

from typing import Any

from zwave_mcp.answers import and_list, plural
from zwave_mcp.devices import model as m
from zwave_mcp.devices import sensor_types as st
from zwave_mcp.devices.alarm_pairs import ZCOMBO, ZSMOKE, AlarmPairs
from zwave_mcp.devices.discovery import READING, Schema, ValueMatch, housekeeping, match, product
from zwave_mcp.devices.kinds.base import KindSpec
from zwave_mcp.devices.model import Capability as C
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.presses import press_values
from zwave_mcp.devices.readings import OPENING_STATES, Reading, sentence_phrases
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.zwave.classes import (
    CC,
    BasicProps,
    BatteryProps,
    BinarySensorProps,
    CentralSceneProps,
    MeterProps,
    NotificationProps,
)

# ---- discovery --------------------------------------------------------------------------------------


def _reads(name: str, kind: C, primary: ValueMatch, *, multi: bool = True, **row: Any) -> Schema:
    """A row of readings: each value it claims is a reading of `kind` (every one that fits, unless `multi`
    is False)."""
    return Schema(name=name, kind=kind, role=READING, primary=primary, multi=multi, **row)


def _notification(row: st.SensorVariable) -> ValueMatch:
    """A Notification variable, and one of its states when that tells its type."""
    states = None if row.state is None else (row.state, f"{row.state} (location provided)")
    return match(CC.NOTIFICATION, row.notification, key=(row.variable,), state_texts=states)


def _variable(row: st.SensorVariable) -> Schema:
    """A Notification variable's readings: a binary sensor's (read as a Notification state), or an alert's
    (`row.alert`)."""
    where = f"{row.word} (Notification {row.notification} / {row.variable})"
    if row.alert:
        return _reads(f"alert: {where}", C.NOTIFICATION, _notification(row), purpose=row.word)
    return _reads(
        f"binary sensor: {where}", C.BINARY_SENSOR, _notification(row), shelf=C.NOTIFICATION, purpose=row.word
    )


_ANY = match(CC.BINARY_SENSOR, BinarySensorProps.ANY, type="boolean")


def _alarm_pairs(name: str, pairs: AlarmPairs, *products: tuple[int, int]) -> Schema:
    """A smoke/CO alarm of the Alarm v1 era: its alarm type and level are its state, as the model's
    zwave-js device file maps them (`alarm_pairs`)."""
    return _reads(
        f"binary sensor: {name} (Alarm v1 pairs as zwave-js's device file maps them)",
        C.BINARY_SENSOR,
        match(CC.NOTIFICATION, NotificationProps.ALARM_TYPE),
        multi=False,
        companions=((m.ALARM_LEVEL, match(CC.NOTIFICATION, NotificationProps.ALARM_LEVEL)),),
        shelf=C.NOTIFICATION,
        purpose=m.ALARM_PAIR,
        products=tuple(product(0x0138, {kind}, {pid}) for kind, pid in products),
        template=pairs,
    )


# Models whose readings are not what their command classes say, among the model rows.
MODEL_SCHEMAS: tuple[Schema, ...] = (
    _reads(
        "meter: Aeotec DSB09 Home Energy Meter (gen 1): its Multilevel Sensor values are meter readings, "
        "the stray humidity or rain rate its firmware publishes too (a meter, whatever its device class)",
        C.METER,
        match(CC.MULTILEVEL_SENSOR, type="number"),
        products=(product(0x0086, {0x0002}, {0x0009}),),
    ),
    _reads(
        "alert: the Zooz ZSE44's heat alarm (overheat and underheat) is an alert beside its temperature "
        "and humidity, not what it is for",
        C.NOTIFICATION,
        match(
            CC.NOTIFICATION,
            NotificationProps.HEAT_ALARM,
            key=(NotificationProps.HEAT_SENSOR_STATUS,),
            state_texts=("Overheat detected", "Overheat detected (location provided)"),
        ),
        multi=False,
        purpose="heat",
        products=(product(0x027A, {0x7000}, {0xE004}),),
    ),
    _reads(
        "binary sensor: Ecolink DWZWAVE2 door/window sensor (its door state is Binary Sensor 'Any')",
        C.BINARY_SENSOR,
        _ANY,
        multi=False,
        purpose="door",
        products=(product(0x014A, {0x0001}, {0x0002}),),
    ),
    _reads(
        "binary sensor: Fibaro FGMS001 motion sensor (its motion is Binary Sensor 'Any')",
        C.BINARY_SENSOR,
        _ANY,
        multi=False,
        purpose="motion",
        products=(product(0x010F, {0x0800}, {0x1001, 0x2001, 0x3001, 0x4001, 0x6001}),),
    ),
    _reads(
        "binary sensor: Hoppe eHandle ConnectSense (its door state is a window's; its handle state, which "
        "zwave-js 15.22 remaps its lock events to, is the handle's)",
        C.BINARY_SENSOR,
        match(
            CC.NOTIFICATION,
            NotificationProps.ACCESS_CONTROL,
            key=("Door state", "Door state (simple)", st.OPENING_STATE),
        ),
        purpose="window",
        products=(product(0x0313, {0x0701}, {0x0002}),),
    ),
    _alarm_pairs("First Alert (BRK) ZCOMBO smoke and CO alarm", ZCOMBO, (0x0001, 0x0002), (0x000C, 0x0001)),
    _alarm_pairs("First Alert (BRK) ZSMOKE smoke alarm", ZSMOKE, (0x0001, 0x0001)),
)


# What the device reads: the generic rows, after what devices do.
SCHEMAS: tuple[Schema, ...] = (
    _reads(
        "button: Central Scene presses",
        C.BUTTON,
        match(CC.CENTRAL_SCENE, CentralSceneProps.SCENE),
        purpose="button",
    ),
    *(
        _reads(
            f"binary sensor: {purpose} (Binary Sensor)",
            C.BINARY_SENSOR,
            match(CC.BINARY_SENSOR, prop, type="boolean"),
            purpose=purpose,
        )
        for prop, purpose in st.BINARY_SENSOR_TYPES.items()
    ),
    _reads(
        "binary sensor: other Binary Sensor types", C.BINARY_SENSOR, match(CC.BINARY_SENSOR, type="boolean")
    ),
    housekeeping(
        name="housekeeping: the door variables zwave-js deprecated (15.22) where it publishes "
        "'Opening state', which says the same door (closed, open, tilted)",
        primary=match(CC.NOTIFICATION, NotificationProps.ACCESS_CONTROL, key=st.DEPRECATED_DOOR_VARIABLES),
        required=(match(CC.NOTIFICATION, NotificationProps.ACCESS_CONTROL, key=(st.OPENING_STATE,)),),
    ),
    # Notification variables whose states are "idle" or an alarm: what a binary sensor of that type
    # answers (read as a Notification state: "smoke detected", "idle").
    *(_variable(row) for row in st.NOTIFICATION_VARIABLES if not row.alert),
    # Alerts a device gives besides what it is for (a thermometer's freeze alert, any sensor's tamper
    # switch): binary sensor types that do not make the device a binary sensor.
    *(_variable(row) for row in st.NOTIFICATION_VARIABLES if row.alert),
    housekeeping(
        name="housekeeping: legacy alarm bytes and durations of Notification",
        primary=ValueMatch(
            command_class=frozenset({CC.NOTIFICATION}),
            property=frozenset({NotificationProps.ALARM_TYPE, NotificationProps.ALARM_LEVEL}),
        ),
    ),
    _reads("notification: other Notification states", C.NOTIFICATION, match(CC.NOTIFICATION, type="number")),
    _reads("sensor: Multilevel Sensor", C.SENSOR, match(CC.MULTILEVEL_SENSOR, type="number")),
    _reads(
        "meter: Energy Production (a solar inverter's power and totals)",
        C.METER,
        match(CC.ENERGY_PRODUCTION, type="number"),
        purpose="energy_production",
    ),
    _reads("meter: Meter readings", C.METER, match(CC.METER, MeterProps.VALUE, type="number")),
    Schema(
        name="battery: level",
        kind=C.BATTERY,
        role=m.BATTERY_LEVEL,
        primary=match(CC.BATTERY, BatteryProps.LEVEL),
    ),
    _reads("battery: other battery facts (low, charging, …)", C.BATTERY, match(CC.BATTERY)),
)

# A Basic value that is a reading, among the fallback rows.
BASIC_SCHEMAS: tuple[Schema, ...] = (
    _reads(
        "sensor: a Basic current value with no target, on a node that offers nothing else (a reading, "
        "as Home Assistant's Basic sensor)",
        C.SENSOR,
        match(CC.BASIC, BasicProps.CURRENT, type="number"),
        multi=False,
        absent=(match(CC.BASIC, BasicProps.TARGET),),
        purpose="level",
        alone=True,
    ),
)


def _sentence(device: Device, found: list[Reading]) -> str | None:
    """ "Back Door is closed.", "Hall Sensor reports motion detected, air temperature 21 °C and battery
    90 %.", "Kitchen Plug Meter is using 12 W.", "WallMote has 4 buttons and reports no readings."; None for
    a device that acts (or one zwave-mcp does not understand)."""
    acts = any(device.has(c) for c in m.ACTUATORS)
    if acts or device.fault is not None or (device.kind is None and device.unclaimed):
        return None
    name = device.name
    power, others = sentence_phrases(found)
    if not power and not others:
        buttons = len(press_values(device))
        if buttons:  # a remote: its presses are events (recent and last events), not a state
            return f"{name} has {plural(buttons, 'button')} and reports no readings."
        return f"{name} has not reported anything yet."
    openings = [p for p in others if p in OPENING_STATES]
    # the most precise state its variables give: tilted is open in tilt position ("Door state" says it,
    # "Door state (simple)" only "open")
    opening = min(openings, key=lambda p: 0 if p.endswith("tilted") else 1, default=None)
    if not power and opening:  # a door or window contact: "Back Door is closed"
        rest = [p for p in others if p not in openings]
        tail = f"; it reports {and_list(rest)}" if rest else ""
        return f"{name} is {opening.split()[1]}{tail}."
    if power and power[0].startswith(("using", "producing")):
        tail = f"; it reports {and_list(others)}" if others else ""
        return f"{name} is {', '.join(power)}{tail}."
    battery = [p for p in others if p.startswith("battery ")]
    rest = [p for p in others if p not in battery]
    return f"{name} reports {and_list(rest + power + battery)}."  # alarms, environment, power, battery


def _noun(role: str | None, value: ZValue) -> str | None:
    """A binary sensor's value: "motion state", "door state"."""
    binary = value.command_class == CC.BINARY_SENSOR and isinstance(value.property, str)
    return f"{str(value.property).lower()} state" if binary else None


KIND = KindSpec(name="sensor", sentence=_sentence, noun=_noun)
