"""What a device is, as data: the discovery table, read top to bottom by `discovery.discover`.

Device-specific rows (known models by manufacturer/product ids) come first, then the generic ones by
device class and command class, then readings, then housekeeping; each value is claimed by the first
row that fits it. Adding a model's quirk is one row here and one test on its node dump (`fixtures/`).
Home Assistant's `zwave_js/discovery.py` is the model of the shape; the rows are ours, and the model ids
and fan speed ranges of the known models are the ones zwave-js and Home Assistant publish.
"""

from __future__ import annotations

from zwave_mcp.devices.discovery import (
    Schema,
    Table,
    ValueMatch,
    housekeeping,
)
from zwave_mcp.devices.kinds import cover, fan, light, lock, sensor, siren, switch, thermostat, valve
from zwave_mcp.zwave import classes as zc
from zwave_mcp.zwave.classes import CC

# ---- device-specific rows -----------------------------------------------------------------------------

MODEL_SCHEMAS: tuple[Schema, ...] = (
    *fan.MODEL_SCHEMAS,
    *cover.MODEL_SCHEMAS,
    *light.MODEL_SCHEMAS,
    *sensor.MODEL_SCHEMAS,
    *siren.MODEL_SCHEMAS,
    *thermostat.MODEL_SCHEMAS,
    *valve.MODEL_SCHEMAS,
)

# ---- generic rows: what the device does -------------------------------------------------------------

ACTUATOR_SCHEMAS: tuple[Schema, ...] = (
    *lock.SCHEMAS,
    *thermostat.SCHEMAS,
    *cover.SCHEMAS,
    *fan.SCHEMAS,
    *valve.SCHEMAS,
    *siren.SCHEMAS,
    *thermostat.VALVE_SCHEMAS,
    *light.SCHEMAS,
    *cover.RELAY_SCHEMAS,
    *switch.SCHEMAS,
    *light.COLOR_SCHEMAS,
)

# ---- housekeeping and the last resort ----------------------------------------------------------------

FALLBACK_SCHEMAS: tuple[Schema, ...] = (
    housekeeping(
        name="housekeeping: configuration, versions, associations, …",
        primary=ValueMatch(command_class=zc.HOUSEKEEPING),
    ),
    housekeeping(
        name="housekeeping: the rest of what a known device does (durations, level changes, settings)",
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
    ),
    *sensor.BASIC_SCHEMAS,
    *switch.BASIC_SCHEMAS,
    housekeeping(
        name="housekeeping: Basic, a mirror of what the device's own command classes say",
        primary=ValueMatch(command_class=frozenset({CC.BASIC})),
    ),
)

SCHEMAS: tuple[Schema, ...] = MODEL_SCHEMAS + ACTUATOR_SCHEMAS + sensor.SCHEMAS + FALLBACK_SCHEMAS
# The rows compiled once, for `discover`.
TABLE = Table(SCHEMAS)
