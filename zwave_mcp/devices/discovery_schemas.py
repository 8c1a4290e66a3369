"""What a device is, as data: the discovery table, read top to bottom by `discovery.discover`.

Device-specific rows (known models by manufacturer/product ids) come first, then the generic ones by
device class and command class, then readings, then housekeeping; each value is claimed by the first
row that fits it. Adding a model's quirk is one row here and one test on its node dump (`fixtures/`).
Home Assistant's `zwave_js/discovery.py` is the model of the shape; the rows are ours, and the model ids
and fan speed ranges of the known models are the ones zwave-js and Home Assistant publish.
"""

from __future__ import annotations

from collections.abc import Iterable

from zwave_mcp.devices import model as m
from zwave_mcp.devices.discovery import (
    IGNORE,
    ConfigIs,
    Product,
    Schema,
    Table,
    ValueMatch,
    config_is,
    match,
    product,
)
from zwave_mcp.devices.kinds import fan, light, sensor, switch, thermostat
from zwave_mcp.devices.kinds.thermostat import ThermostatData
from zwave_mcp.devices.model import Capability as C
from zwave_mcp.devices.presets import SirenData
from zwave_mcp.zwave import classes as zc
from zwave_mcp.zwave.classes import (
    CC,
    BarrierProps,
    DoorLockProps,
    FibaroProps,
    LockProps,
    SoundSwitchProps,
    SwitchProps,
    ThermostatProps,
    WindowCoveringProps,
)

# ---- value shapes used by several rows --------------------------------------------------------------

_LEVEL_TARGET = switch.MULTILEVEL_TARGET
_COVER_COMPANIONS = (
    (m.COVER_CURRENT, match(CC.MULTILEVEL_SWITCH, SwitchProps.CURRENT)),
    # Open/Close on covers, Up/Down or On/Off where the device calls itself another switch type.
    (m.COVER_UP, match(CC.MULTILEVEL_SWITCH, SwitchProps.OPEN, SwitchProps.UP, SwitchProps.ON)),
    (m.COVER_DOWN, match(CC.MULTILEVEL_SWITCH, SwitchProps.CLOSE, SwitchProps.DOWN, SwitchProps.OFF)),
)
_SWITCH_TARGET = switch.BINARY_TARGET
_SWITCH_CURRENT = switch.BINARY_COMPANIONS
_WINDOW_COVERING_POSITION = match(
    CC.WINDOW_COVERING, WindowCoveringProps.TARGET, numbered=True, key_label_lacks="slat", writeable=True
)


def _cover(
    name: str, manufacturer: int, types: Iterable[int], ids: Iterable[int], *, entry: bool = False
) -> Schema:
    """A blind, shade, curtain or gate known by model that drives it with a Multilevel Switch although
    its device class is not a motor's."""
    return Schema(
        name=f"cover: {name}",
        kind=C.COVER,
        role=m.COVER_TARGET,
        primary=_LEVEL_TARGET,
        companions=_COVER_COMPANIONS,
        products=(product(manufacturer, types, ids),),
        entry=entry,
    )


def _slats(name: str, model: Product, mode: ConfigIs) -> Schema:
    """A shutter whose endpoint 2 tilts the slats of the blind on endpoint 1, when its operating mode
    parameter says it drives a venetian blind (Home Assistant's rows require the same value)."""
    return Schema(
        name=f"cover: the slats of a {name}: endpoint 2 tilts the blind on endpoint 1",
        kind=C.COVER,
        role=m.TILT_TARGET,
        primary=_LEVEL_TARGET,
        companions=((m.TILT_CURRENT, match(CC.MULTILEVEL_SWITCH, SwitchProps.CURRENT)),),
        products=(model,),
        config=(mode,),
        endpoints=frozenset({2}),
        into_endpoint=1,
    )


_FGR222 = product(0x010F, {0x0301, 0x0302}, {0x1000, 0x1001})

# ---- device-specific rows -----------------------------------------------------------------------------

MODEL_SCHEMAS: tuple[Schema, ...] = (
    *fan.MODEL_SCHEMAS,
    _cover("Fibaro FGR222 shutter", _FGR222.manufacturer, _FGR222.types, _FGR222.ids),
    _cover("Qubino flush shutter", 0x0159, {0x0003}, {0x0052, 0x0053}),
    _cover("Graber/Bali/Spring Fashion blind", 0x026E, {0x4353}, {0x5A31}),
    _cover("iBlinds v2 blind", 0x0287, {0x0003}, {0x000D}),
    _cover("ZVIDAR Z-CM-V01 roller shade", 0x045A, {0x0904}, {0x0507}),
    _cover("Nice IBT4ZWAVE gate", 0x0441, {0x2400}, {0x1000}, entry=True),
    Schema(
        name="cover: Merten 507801 roller shutter (endpoint 2 does nothing of use)",
        kind=C.COVER,
        role=m.COVER_TARGET,
        primary=_LEVEL_TARGET,
        companions=_COVER_COMPANIONS,
        products=(product(0x007A, {0x8003}, {0x0001}),),
        endpoints=frozenset({0, 1}),
    ),
    Schema(
        name="housekeeping: Merten 507801's endpoint 2",
        kind=None,
        role=IGNORE,
        primary=match(CC.MULTILEVEL_SWITCH),
        products=(product(0x007A, {0x8003}, {0x0001}),),
        endpoints=frozenset({2}),
        multi=True,
    ),
    _slats(
        "Shelly Qubino Wave Shutter in venetian blind mode (parameter 71 is 1)",
        product(0x0460, {0x0003}, {0x0082}),
        config_is(71, 1),
    ),
    _slats(
        "Fibaro FGR223 in venetian blind mode (parameter 151 is 2)",
        product(0x010F, {0x0303}, {0x1000, 0x1001}),
        config_is(151, 2),
    ),
    Schema(
        name="housekeeping: endpoint 2 of a Shelly Wave Shutter or Fibaro FGR223 in another mode (it has no "
        "practical function)",
        kind=None,
        role=IGNORE,
        primary=match(CC.MULTILEVEL_SWITCH),
        products=(product(0x0460, {0x0003}, {0x0082}), product(0x010F, {0x0303}, {0x1000, 0x1001})),
        endpoints=frozenset({2}),
        multi=True,
    ),
    Schema(
        name="cover: the slats of a Fibaro FGR222 in venetian blind mode (Fibaro's proprietary tilt value)",
        kind=C.COVER,
        role=m.TILT_TARGET,
        primary=match(
            CC.MANUFACTURER_PROPRIETARY, FibaroProps.FIBARO, key=(FibaroProps.VENETIAN_TILT,), writeable=True
        ),
        products=(_FGR222,),
    ),
    Schema(
        name="housekeeping: the FGR222's proprietary position (its Multilevel Switch is the position)",
        kind=None,
        role=IGNORE,
        primary=match(CC.MANUFACTURER_PROPRIETARY, FibaroProps.FIBARO, key=(FibaroProps.VENETIAN_POSITION,)),
        products=(_FGR222,),
    ),
    *switch.MODEL_SCHEMAS,
    *sensor.MODEL_SCHEMAS,
    Schema(
        name="siren: FortrezZ SSA1/SSA2/SSA3 (tones by level)",
        kind=C.SIREN,
        role=m.SIREN_TONE,
        primary=_LEVEL_TARGET,
        companions=((m.SIREN_TONE_CURRENT, match(CC.MULTILEVEL_SWITCH, SwitchProps.CURRENT)),),
        products=(
            product(
                0x0084, {0x0311, 0x0313, 0x0331, 0x0341, 0x0343}, {0x0107, 0x0108, 0x0109, 0x010B, 0x0205}
            ),
        ),
        template=SirenData(((0, "Off"), (33, "Strobe only"), (66, "Siren only"), (99, "Siren and strobe"))),
    ),
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
    Schema(
        name="valve: Zooz ZAC36 Titan water valve actuator",
        kind=C.VALVE,
        role=m.VALVE_TARGET,
        primary=_SWITCH_TARGET,
        companions=((m.VALVE_CURRENT, match(CC.BINARY_SWITCH, SwitchProps.CURRENT)),),
        products=(product(0x027A, {0x0101}, {0x0036}),),
    ),
)

# ---- generic rows: what the device does -------------------------------------------------------------

ACTUATOR_SCHEMAS: tuple[Schema, ...] = (
    Schema(
        name="lock: Door Lock",
        kind=C.LOCK,
        role=m.LOCK_TARGET,
        primary=match(CC.DOOR_LOCK, DoorLockProps.TARGET_MODE, writeable=True),
        companions=(
            (m.LOCK_CURRENT, match(CC.DOOR_LOCK, DoorLockProps.CURRENT_MODE)),
            (m.LOCK_DOOR, match(CC.DOOR_LOCK, DoorLockProps.DOOR)),
            (m.LOCK_BOLT, match(CC.DOOR_LOCK, DoorLockProps.BOLT)),
            (m.LOCK_LATCH, match(CC.DOOR_LOCK, DoorLockProps.LATCH)),
        ),
    ),
    Schema(
        name="lock: Door Lock that publishes only its current mode (no target mode to write: its state, as "
        "Home Assistant shows it, and no lock command)",
        kind=C.LOCK,
        role=m.LOCK_CURRENT,
        primary=match(CC.DOOR_LOCK, DoorLockProps.CURRENT_MODE, type="number"),
        companions=(
            (m.LOCK_DOOR, match(CC.DOOR_LOCK, DoorLockProps.DOOR)),
            (m.LOCK_BOLT, match(CC.DOOR_LOCK, DoorLockProps.BOLT)),
            (m.LOCK_LATCH, match(CC.DOOR_LOCK, DoorLockProps.LATCH)),
        ),
    ),
    Schema(
        name="housekeeping: the old Lock command class beside Door Lock (Door Lock controls it)",
        kind=None,
        role=IGNORE,
        primary=match(CC.LOCK, LockProps.LOCKED),
        needs_kind=C.LOCK,
    ),
    Schema(
        name="lock: the old Lock command class alone (one value: locked or not, written and reported)",
        kind=C.LOCK,
        role=m.LOCK_TARGET,
        primary=match(CC.LOCK, LockProps.LOCKED, type="boolean", writeable=True),
    ),
    *thermostat.SCHEMAS,
    Schema(
        name="cover: Window Covering position",
        kind=C.COVER,
        role=m.COVER_TARGET,
        primary=_WINDOW_COVERING_POSITION,
        companions=(
            (m.COVER_CURRENT, match(CC.WINDOW_COVERING, WindowCoveringProps.CURRENT)),
            (m.COVER_UP, match(CC.WINDOW_COVERING, WindowCoveringProps.LEVEL_UP)),
            (m.COVER_DOWN, match(CC.WINDOW_COVERING, WindowCoveringProps.LEVEL_DOWN)),
        ),
    ),
    Schema(
        name="cover: Window Covering slats (tilt)",
        kind=C.COVER,
        role=m.TILT_TARGET,
        primary=match(
            CC.WINDOW_COVERING,
            WindowCoveringProps.TARGET,
            numbered=True,
            key_label_has="slat",
            writeable=True,
        ),
        companions=((m.TILT_CURRENT, match(CC.WINDOW_COVERING, WindowCoveringProps.CURRENT)),),
    ),
    Schema(
        name="cover: Multilevel Switch of a motor device class",
        kind=C.COVER,
        role=m.COVER_TARGET,
        primary=_LEVEL_TARGET,
        companions=_COVER_COMPANIONS,
        generic=frozenset({zc.GENERIC_MULTILEVEL_SWITCH}),
        specific=zc.MOTOR_SPECIFIC_CLASSES,
        absent=(_WINDOW_COVERING_POSITION,),
    ),
    Schema(
        name="cover: Multilevel Switch that says Open/Close (a cover's switch type)",
        kind=C.COVER,
        role=m.COVER_TARGET,
        primary=_LEVEL_TARGET,
        companions=_COVER_COMPANIONS,
        required=(match(CC.MULTILEVEL_SWITCH, SwitchProps.OPEN, SwitchProps.CLOSE),),
    ),
    Schema(
        name="cover: Barrier Operator (garage door, gate)",
        kind=C.COVER,
        role=m.COVER_TARGET,
        primary=match(CC.BARRIER_OPERATOR, BarrierProps.TARGET_STATE, writeable=True),
        companions=((m.COVER_CURRENT, match(CC.BARRIER_OPERATOR, BarrierProps.CURRENT_STATE)),),
        entry=True,
    ),
    *fan.SCHEMAS,
    Schema(
        name="valve: Binary Switch of the Valve Open/Close device class",
        kind=C.VALVE,
        role=m.VALVE_TARGET,
        primary=_SWITCH_TARGET,
        companions=((m.VALVE_CURRENT, match(CC.BINARY_SWITCH, SwitchProps.CURRENT)),),
        generic=frozenset({zc.GENERIC_BINARY_SWITCH}),
        specific=frozenset({zc.SPECIFIC_VALVE}),
    ),
    Schema(
        name="siren: Binary Switch of the Siren device class",
        kind=C.SIREN,
        role=m.SWITCH_TARGET,
        primary=_SWITCH_TARGET,
        companions=_SWITCH_CURRENT,
        generic=frozenset({zc.GENERIC_BINARY_SWITCH}),
        specific=frozenset({zc.SPECIFIC_SIREN}),
    ),
    Schema(
        name="siren: Sound Switch tones",
        kind=C.SIREN,
        role=m.SIREN_TONE,
        primary=match(CC.SOUND_SWITCH, SoundSwitchProps.TONE, type="number", writeable=True),
        companions=(
            (m.SIREN_VOLUME, match(CC.SOUND_SWITCH, SoundSwitchProps.DEFAULT_VOLUME, writeable=True)),
            (m.SIREN_DEFAULT_TONE, match(CC.SOUND_SWITCH, SoundSwitchProps.DEFAULT_TONE, writeable=True)),
        ),
    ),
    *thermostat.VALVE_SCHEMAS,
    *light.SCHEMAS,
    Schema(
        name="housekeeping: the Binary Switch of a cover (its motor relay: the cover moves by its position)",
        kind=None,
        role=IGNORE,
        primary=match(CC.BINARY_SWITCH),
        needs_kind=C.COVER,
        multi=True,
    ),
    *switch.SCHEMAS,
    *light.COLOR_SCHEMAS,
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
    *sensor.BASIC_SCHEMAS,
    *switch.BASIC_SCHEMAS,
    Schema(
        name="housekeeping: Basic, a mirror of what the device's own command classes say",
        kind=None,
        role=IGNORE,
        primary=ValueMatch(command_class=frozenset({CC.BASIC})),
        multi=True,
    ),
)

SCHEMAS: tuple[Schema, ...] = MODEL_SCHEMAS + ACTUATOR_SCHEMAS + sensor.SCHEMAS + FALLBACK_SCHEMAS
# The rows compiled once, for `discover`.
TABLE = Table(SCHEMAS)

# Roles that name a value another row claimed, when the device has a kind: the state of a lock of the
# old Lock command class is the one value it is locked and unlocked by.
ROLE_VIEWS: tuple[tuple[C, str, ValueMatch], ...] = (
    (C.LOCK, m.LOCK_CURRENT, match(CC.LOCK, LockProps.LOCKED)),
)
