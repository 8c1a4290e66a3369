"""What a device is, as data: the discovery table, read top to bottom by `discovery.discover`.

Device-specific rows (known models by manufacturer/product ids) come first, then the generic ones by
device class and command class, then readings, then housekeeping; each value is claimed by the first
row that fits it. Adding a model's quirk is one row here and one test on its node dump (`fixtures/`).
Home Assistant's `zwave_js/discovery.py` is the model of the shape; the rows are ours, and the model ids
and fan speed ranges of the known models are the ones zwave-js and Home Assistant publish.
"""

from __future__ import annotations

from zwave_mcp.devices import model as m
from zwave_mcp.devices import sensor_types as st
from zwave_mcp.devices.discovery import (
    IGNORE,
    READING,
    Schema,
    Table,
    ValueMatch,
    match,
    product,
)
from zwave_mcp.devices.kinds import cover, lock, siren, thermostat, valve
from zwave_mcp.devices.kinds.thermostat import ThermostatData
from zwave_mcp.devices.model import Capability as C
from zwave_mcp.devices.presets import FanData
from zwave_mcp.zwave import classes as zc
from zwave_mcp.zwave.classes import (
    CC,
    BasicProps,
    BatteryProps,
    BinarySensorProps,
    CentralSceneProps,
    ColorProps,
    MeterProps,
    NotificationProps,
    SwitchProps,
    ThermostatProps,
)

# ---- value shapes used by several rows --------------------------------------------------------------

_LEVEL_TARGET = match(CC.MULTILEVEL_SWITCH, SwitchProps.TARGET, type="number", writeable=True)
# A Multilevel Switch's companions: its report, start/stop level change ("Up"/"Down" on dimmers and
# fans, "Open"/"Close" on covers), and zwave-js's "restore previous level".
_LEVEL_COMPANIONS = (
    (m.LEVEL_CURRENT, match(CC.MULTILEVEL_SWITCH, SwitchProps.CURRENT)),
    (m.LEVEL_UP, match(CC.MULTILEVEL_SWITCH, SwitchProps.UP)),
    (m.LEVEL_DOWN, match(CC.MULTILEVEL_SWITCH, SwitchProps.DOWN)),
    (m.LEVEL_RESTORE, match(CC.MULTILEVEL_SWITCH, SwitchProps.RESTORE, writeable=True)),
)
_SWITCH_TARGET = match(CC.BINARY_SWITCH, SwitchProps.TARGET, writeable=True)
_SWITCH_CURRENT = ((m.SWITCH_CURRENT, match(CC.BINARY_SWITCH, SwitchProps.CURRENT)),)


def _fan(
    name: str, manufacturer: int, types: set[int], ids: set[int], speeds: tuple[tuple[int, int], ...]
) -> Schema:
    """A fan known by model: its Multilevel Switch levels are `speeds` (low … high), each a level range."""
    return Schema(
        name=f"fan: {name} ({len(speeds)} speeds)" if speeds else f"fan: {name}",
        kind=C.FAN,
        role=m.LEVEL_TARGET,
        primary=_LEVEL_TARGET,
        companions=_LEVEL_COMPANIONS,
        products=(product(manufacturer, types, ids),),
        template=FanData(speeds),
    )


# ---- device-specific rows -----------------------------------------------------------------------------

MODEL_SCHEMAS: tuple[Schema, ...] = (
    _fan("GE/Jasco 12730", 0x0063, {0x4944}, {0x3034}, ((1, 33), (34, 67), (68, 99))),
    _fan("GE/Jasco 14287, 55258, ZW4002", 0x0063, {0x4944}, {0x3131, 0x3337}, ((1, 32), (33, 66), (67, 99))),
    _fan("GE/Jasco 14314", 0x0063, {0x4944}, {0x3138}, ()),
    _fan("Honeywell 39358", 0x0039, {0x4944}, {0x3131}, ((1, 32), (33, 66), (67, 99))),
    _fan("Leviton ZW4SF", 0x001D, {0x0038}, {0x0002}, ((1, 25), (26, 50), (51, 75), (76, 99))),
    _fan("Leviton VRF01 quiet fan speed control", 0x001D, {0x1001}, {0x0209}, ()),
    _fan("Enbrighten 58446 / ZWA4013", 0x0063, {0x4944}, {0x3533}, ((1, 25), (26, 50), (51, 75), (76, 99))),
    Schema(
        name="fan: Inovelli LZW36 (the fan is endpoint 2, the light endpoint 1)",
        kind=C.FAN,
        role=m.LEVEL_TARGET,
        primary=_LEVEL_TARGET,
        companions=_LEVEL_COMPANIONS,
        products=(product(0x031E, {0x000E}, {0x0001}),),
        endpoints=frozenset({2}),
        template=FanData(((2, 33), (34, 66), (67, 99))),
    ),
    *cover.MODEL_SCHEMAS,
    Schema(
        name="housekeeping: the colour and brightness of Aeotec Smart Switch 6's LED ring (it is a plug)",
        kind=None,
        role=IGNORE,
        primary=match((CC.COLOR_SWITCH, CC.MULTILEVEL_SWITCH)),
        products=(product(0x0086, {0x0003, 0x0103, 0x0203}, {0x0060}),),
        multi=True,
    ),
    Schema(
        name="housekeeping: the colour and brightness of Aeotec Smart Switch 7's night light (it is a plug)",
        kind=None,
        role=IGNORE,
        primary=match((CC.COLOR_SWITCH, CC.MULTILEVEL_SWITCH)),
        products=(product(0x0371, {0x0003, 0x0103, 0x0203}, {0x00AF}),),
        multi=True,
    ),
    Schema(
        name="meter: Aeotec DSB09 Home Energy Meter (gen 1): its Multilevel Sensor values are meter readings, "
        "the stray humidity or rain rate its firmware publishes too (a meter, whatever its device class)",
        kind=C.METER,
        role=READING,
        primary=match(CC.MULTILEVEL_SENSOR, type="number"),
        products=(product(0x0086, {0x0002}, {0x0009}),),
        multi=True,
    ),
    Schema(
        name="alert: the Zooz ZSE44's heat alarm (overheat and underheat) is an alert beside its temperature "
        "and humidity, not what it is for",
        kind=C.NOTIFICATION,
        role=READING,
        primary=match(
            CC.NOTIFICATION,
            NotificationProps.HEAT_ALARM,
            key=(NotificationProps.HEAT_SENSOR_STATUS,),
            state_texts=("Overheat detected", "Overheat detected (location provided)"),
        ),
        purpose="heat",
        products=(product(0x027A, {0x7000}, {0xE004}),),
    ),
    Schema(
        name="binary sensor: Ecolink DWZWAVE2 door/window sensor (its door state is Binary Sensor 'Any')",
        kind=C.BINARY_SENSOR,
        role=READING,
        primary=match(CC.BINARY_SENSOR, BinarySensorProps.ANY, type="boolean"),
        purpose="door",
        products=(product(0x014A, {0x0001}, {0x0002}),),
    ),
    Schema(
        name="binary sensor: Fibaro FGMS001 motion sensor (its motion is Binary Sensor 'Any')",
        kind=C.BINARY_SENSOR,
        role=READING,
        primary=match(CC.BINARY_SENSOR, BinarySensorProps.ANY, type="boolean"),
        purpose="motion",
        products=(product(0x010F, {0x0800}, {0x1001, 0x2001, 0x3001, 0x4001, 0x6001}),),
    ),
    Schema(
        name="binary sensor: Hoppe eHandle ConnectSense (its door state is a window's)",
        kind=C.BINARY_SENSOR,
        role=READING,
        primary=match(CC.NOTIFICATION, NotificationProps.ACCESS_CONTROL),
        purpose="window",
        products=(product(0x0313, {0x0701}, {0x0002}),),
        multi=True,
    ),
    *siren.MODEL_SCHEMAS,
    Schema(
        name="thermostat: Heatit Z-TRM6 (its temperature is the sensor its Sensor Mode, parameter 2, names)",
        kind=C.THERMOSTAT,
        role=m.THERMOSTAT_MODE,
        primary=match(CC.THERMOSTAT_MODE, ThermostatProps.MODE, writeable=True),
        products=(product(0x019B, {0x0030}, {0x3001}),),
        # Floor: the floor sensor (endpoint 4); Internal (with floor limit) and Power regulator: the
        # internal one (2); External (with floor limit): the external one (3)
        template=ThermostatData(
            sensor_parameter=2, sensor_endpoints=((0, 4), (1, 2), (2, 2), (3, 3), (4, 3), (5, 2))
        ),
    ),
    *valve.MODEL_SCHEMAS,
)

# ---- generic rows: what the device does -------------------------------------------------------------

ACTUATOR_SCHEMAS: tuple[Schema, ...] = (
    *lock.SCHEMAS,
    *thermostat.SCHEMAS,
    *cover.SCHEMAS,
    Schema(
        name="fan: Multilevel Switch of the Fan Switch device class",
        kind=C.FAN,
        role=m.LEVEL_TARGET,
        primary=_LEVEL_TARGET,
        companions=_LEVEL_COMPANIONS,
        generic=frozenset({zc.GENERIC_MULTILEVEL_SWITCH}),
        specific=frozenset({zc.SPECIFIC_FAN_SWITCH}),
    ),
    *valve.SCHEMAS,
    *siren.SCHEMAS,
    *thermostat.VALVE_SCHEMAS,
    Schema(
        name="dimmer: Multilevel Switch",
        kind=C.DIMMER,
        role=m.LEVEL_TARGET,
        primary=_LEVEL_TARGET,
        companions=_LEVEL_COMPANIONS,
    ),
    *cover.RELAY_SCHEMAS,
    Schema(
        name="switch: Binary Switch",
        kind=C.SWITCH,
        role=m.SWITCH_TARGET,
        primary=_SWITCH_TARGET,
        companions=_SWITCH_CURRENT,
    ),
    Schema(
        name="color: Color Switch",
        kind=C.COLOR,
        role=m.COLOR_TARGET,
        primary=match(CC.COLOR_SWITCH, ColorProps.TARGET, key=(None,), writeable=True),
        companions=(
            (m.COLOR_HEX, match(CC.COLOR_SWITCH, ColorProps.HEX)),
            (m.COLOR_CURRENT, match(CC.COLOR_SWITCH, ColorProps.CURRENT)),
        ),
    ),
    Schema(
        name="color: Color Switch by hex colour only",
        kind=C.COLOR,
        role=m.COLOR_HEX,
        primary=match(CC.COLOR_SWITCH, ColorProps.HEX, writeable=True),
        companions=((m.COLOR_CURRENT, match(CC.COLOR_SWITCH, ColorProps.CURRENT)),),
    ),
)

# ---- generic rows: what the device reads -------------------------------------------------------------


def _notification(row: st.SensorVariable) -> ValueMatch:
    """A Notification variable, and one of its states when that tells its type."""
    if row.state is None:
        return match(CC.NOTIFICATION, row.notification, key=(row.variable,))
    return match(
        CC.NOTIFICATION,
        row.notification,
        key=(row.variable,),
        state_texts=(row.state, f"{row.state} (location provided)"),
    )


READING_SCHEMAS: tuple[Schema, ...] = (
    Schema(
        name="button: Central Scene presses",
        kind=C.BUTTON,
        role=READING,
        primary=match(CC.CENTRAL_SCENE, CentralSceneProps.SCENE),
        purpose="button",
        multi=True,
    ),
    *(
        Schema(
            name=f"binary sensor: {purpose} (Binary Sensor)",
            kind=C.BINARY_SENSOR,
            role=READING,
            primary=match(CC.BINARY_SENSOR, prop, type="boolean"),
            purpose=purpose,
            multi=True,
        )
        for prop, purpose in st.BINARY_SENSOR_TYPES.items()
    ),
    Schema(
        name="binary sensor: other Binary Sensor types",
        kind=C.BINARY_SENSOR,
        role=READING,
        primary=match(CC.BINARY_SENSOR, type="boolean"),
        multi=True,
    ),
    # Notification variables whose states are "idle" or an alarm: what a binary sensor of that type
    # answers (read as a Notification state: "smoke detected", "idle").
    *(
        Schema(
            name=f"binary sensor: {row.word} (Notification {row.notification} / {row.variable})",
            kind=C.BINARY_SENSOR,
            role=READING,
            primary=_notification(row),
            shelf=C.NOTIFICATION,
            purpose=row.word,
            multi=True,
        )
        for row in st.NOTIFICATION_VARIABLES
        if not row.alert
    ),
    # Alerts a device gives besides what it is for (a thermometer's freeze alert, any sensor's tamper
    # switch): binary sensor types that do not make the device a binary sensor.
    *(
        Schema(
            name=f"alert: {row.word} (Notification {row.notification} / {row.variable})",
            kind=C.NOTIFICATION,
            role=READING,
            primary=_notification(row),
            purpose=row.word,
            multi=True,
        )
        for row in st.NOTIFICATION_VARIABLES
        if row.alert
    ),
    Schema(
        name="housekeeping: legacy alarm bytes and durations of Notification",
        kind=None,
        role=IGNORE,
        primary=ValueMatch(
            command_class=frozenset({CC.NOTIFICATION}),
            property=frozenset({NotificationProps.ALARM_TYPE, NotificationProps.ALARM_LEVEL}),
        ),
        multi=True,
    ),
    Schema(
        name="notification: other Notification states",
        kind=C.NOTIFICATION,
        role=READING,
        primary=match(CC.NOTIFICATION, type="number"),
        multi=True,
    ),
    Schema(
        name="sensor: Multilevel Sensor",
        kind=C.SENSOR,
        role=READING,
        primary=match(CC.MULTILEVEL_SENSOR, type="number"),
        multi=True,
    ),
    Schema(
        name="meter: Energy Production (a solar inverter's power and totals)",
        kind=C.METER,
        role=READING,
        primary=match(CC.ENERGY_PRODUCTION, type="number"),
        purpose="energy_production",
        multi=True,
    ),
    Schema(
        name="meter: Meter readings",
        kind=C.METER,
        role=READING,
        primary=match(CC.METER, MeterProps.VALUE, type="number"),
        multi=True,
    ),
    Schema(
        name="battery: level",
        kind=C.BATTERY,
        role=m.BATTERY_LEVEL,
        primary=match(CC.BATTERY, BatteryProps.LEVEL),
    ),
    Schema(
        name="battery: other battery facts (low, charging, …)",
        kind=C.BATTERY,
        role=READING,
        primary=match(CC.BATTERY),
        multi=True,
    ),
)

# ---- housekeeping and the last resort ----------------------------------------------------------------

FALLBACK_SCHEMAS: tuple[Schema, ...] = (
    Schema(
        name="housekeeping: configuration, versions, associations, …",
        kind=None,
        role=IGNORE,
        primary=ValueMatch(command_class=zc.HOUSEKEEPING),
        multi=True,
    ),
    Schema(
        name="housekeeping: the rest of what a known device does (durations, level changes, settings)",
        kind=None,
        role=IGNORE,
        primary=ValueMatch(
            command_class=frozenset(
                {
                    CC.BINARY_SWITCH,
                    CC.MULTILEVEL_SWITCH,
                    CC.COLOR_SWITCH,
                    CC.WINDOW_COVERING,
                    CC.BARRIER_OPERATOR,
                    CC.DOOR_LOCK,
                    CC.SOUND_SWITCH,
                    CC.METER,
                    CC.CENTRAL_SCENE,
                    CC.THERMOSTAT_MODE,
                    CC.THERMOSTAT_SETPOINT,
                    CC.THERMOSTAT_OPERATING_STATE,
                    CC.THERMOSTAT_FAN_MODE,
                    CC.THERMOSTAT_FAN_STATE,
                }
            )
        ),
        after_kind=True,
        multi=True,
    ),
    Schema(
        name="sensor: a Basic current value with no target, on a node that offers nothing else (a reading, "
        "as Home Assistant's Basic sensor)",
        kind=C.SENSOR,
        role=READING,
        primary=match(CC.BASIC, BasicProps.CURRENT, type="number"),
        absent=(match(CC.BASIC, BasicProps.TARGET),),
        purpose="level",
        alone=True,
    ),
    Schema(
        name="switch: Basic, on a node that offers nothing else (0 off, 255 on)",
        kind=C.SWITCH,
        role=m.SWITCH_TARGET,
        primary=match(CC.BASIC, BasicProps.TARGET, writeable=True),
        companions=((m.SWITCH_CURRENT, match(CC.BASIC, BasicProps.CURRENT)),),
        alone=True,
    ),
    Schema(
        name="housekeeping: Basic, a mirror of what the device's own command classes say",
        kind=None,
        role=IGNORE,
        primary=ValueMatch(command_class=frozenset({CC.BASIC})),
        multi=True,
    ),
)

SCHEMAS: tuple[Schema, ...] = MODEL_SCHEMAS + ACTUATOR_SCHEMAS + READING_SCHEMAS + FALLBACK_SCHEMAS
# The rows compiled once, for `discover`.
TABLE = Table(SCHEMAS)
