"""Z-Wave numbers every floor reads: command classes (`CC`, named like zwave-js's `CommandClasses`) and the
generic/specific device classes of the Z-Wave specification (zwave-js's `deviceClass`). No command-class
number is written anywhere else (tests/unit/test_zwave_floor.py)."""

from __future__ import annotations

from enum import IntEnum


class CC(IntEnum):
    """Command classes, by zwave-js's names."""

    BASIC = 0x20
    CONTROLLER_REPLICATION = 0x21
    APPLICATION_STATUS = 0x22
    BINARY_SWITCH = 0x25
    MULTILEVEL_SWITCH = 0x26
    ALL_SWITCH = 0x27
    BINARY_TOGGLE_SWITCH = 0x28
    MULTILEVEL_TOGGLE_SWITCH = 0x29
    SCENE_ACTIVATION = 0x2B
    SCENE_ACTUATOR_CONFIGURATION = 0x2C
    SCENE_CONTROLLER_CONFIGURATION = 0x2D
    BINARY_SENSOR = 0x30
    MULTILEVEL_SENSOR = 0x31
    METER = 0x32
    COLOR_SWITCH = 0x33
    PULSE_METER = 0x35
    THERMOSTAT_HEATING = 0x38  # in zwave-js-ui's table, not in zwave-js's
    THERMOSTAT_MODE = 0x40
    THERMOSTAT_OPERATING_STATE = 0x42
    THERMOSTAT_SETPOINT = 0x43
    THERMOSTAT_FAN_MODE = 0x44
    THERMOSTAT_FAN_STATE = 0x45
    CLIMATE_CONTROL_SCHEDULE = 0x46
    THERMOSTAT_SETBACK = 0x47
    DOOR_LOCK_LOGGING = 0x4C
    SCHEDULE_ENTRY_LOCK = 0x4E
    BASIC_WINDOW_COVERING = 0x50
    MOVE_TO_POSITION_WINDOW_COVERING = 0x51
    SCHEDULE = 0x53
    TRANSPORT_SERVICE = 0x55
    CRC_16_ENCAPSULATION = 0x56
    ASSOCIATION_GROUP_INFORMATION = 0x59
    DEVICE_RESET_LOCALLY = 0x5A
    CENTRAL_SCENE = 0x5B
    ZWAVE_PLUS_INFO = 0x5E
    MULTI_CHANNEL = 0x60
    DOOR_LOCK = 0x62
    USER_CODE = 0x63
    BARRIER_OPERATOR = 0x66
    WINDOW_COVERING = 0x6A
    SUPERVISION = 0x6C
    ENTRY_CONTROL = 0x6F
    CONFIGURATION = 0x70
    NOTIFICATION = 0x71
    MANUFACTURER_SPECIFIC = 0x72
    POWERLEVEL = 0x73
    PROTECTION = 0x75
    LOCK = 0x76
    NODE_NAMING_AND_LOCATION = 0x77
    SOUND_SWITCH = 0x79
    FIRMWARE_UPDATE_META_DATA = 0x7A
    GROUPING_NAME = 0x7B
    REMOTE_ASSOCIATION_ACTIVATION = 0x7C
    REMOTE_ASSOCIATION_CONFIGURATION = 0x7D
    BATTERY = 0x80
    CLOCK = 0x81
    HAIL = 0x82
    USER_CREDENTIAL = 0x83
    WAKE_UP = 0x84
    ASSOCIATION = 0x85
    VERSION = 0x86
    INDICATOR = 0x87
    PROPRIETARY = 0x88
    LANGUAGE = 0x89
    TIME = 0x8A
    TIME_PARAMETERS = 0x8B
    GEOGRAPHIC_LOCATION = 0x8C
    MULTI_CHANNEL_ASSOCIATION = 0x8E
    MULTI_COMMAND = 0x8F
    ENERGY_PRODUCTION = 0x90
    MANUFACTURER_PROPRIETARY = 0x91
    SCREEN_META_DATA = 0x92
    SCREEN_ATTRIBUTES = 0x93
    SIMPLE_AV_CONTROL = 0x94
    SECURITY = 0x98
    ASSOCIATION_COMMAND_CONFIGURATION = 0x9B
    ALARM_SENSOR = 0x9C
    ALARM_SILENCE = 0x9D
    SENSOR_CONFIGURATION = 0x9E
    SECURITY_2 = 0x9F
    SUPPORT_CONTROL_MARK = 0xEF
    NON_INTEROPERABLE = 0xF0  # in zwave-js-ui's table, not in zwave-js's


# Command classes that configure or identify a node rather than say what it is or does (`explain` counts
# their unused values instead of listing them: a thermostat has dozens of configuration parameters).
ADMINISTRATIVE = frozenset(
    {
        CC.SCENE_ACTIVATION,
        CC.SCENE_ACTUATOR_CONFIGURATION,
        CC.SCENE_CONTROLLER_CONFIGURATION,
        CC.ASSOCIATION_GROUP_INFORMATION,
        CC.DEVICE_RESET_LOCALLY,
        CC.ZWAVE_PLUS_INFO,
        CC.MULTI_CHANNEL,
        CC.USER_CODE,
        CC.CONFIGURATION,
        CC.MANUFACTURER_SPECIFIC,
        CC.POWERLEVEL,
        CC.NODE_NAMING_AND_LOCATION,
        CC.FIRMWARE_UPDATE_META_DATA,
        CC.WAKE_UP,
        CC.ASSOCIATION,
        CC.VERSION,
        CC.INDICATOR,
        CC.MULTI_CHANNEL_ASSOCIATION,
    }
)
# Command classes that tell how a device is set up or managed, never what it does in the house: the
# administrative ones, and those that carry, secure, time or schedule its messages.
HOUSEKEEPING = ADMINISTRATIVE | frozenset(
    {
        CC.APPLICATION_STATUS,
        CC.ALL_SWITCH,
        CC.DOOR_LOCK_LOGGING,
        CC.SCHEDULE_ENTRY_LOCK,
        CC.SCHEDULE,
        CC.TRANSPORT_SERVICE,
        CC.CRC_16_ENCAPSULATION,
        CC.SUPERVISION,
        CC.PROTECTION,
        CC.CLOCK,
        CC.TIME,
        CC.TIME_PARAMETERS,
        CC.MULTI_COMMAND,
        CC.SECURITY,
        CC.SECURITY_2,
    }
)

# zwave-js-ui's names of command classes in *named* topics (`Constants.commandClass` in api/lib/Constants.ts),
# which the gateway reads and the simulator writes. Window Covering is not in that table (capture a shows
# `unknownClass_106`); anything missing renders as `unknownClass_<cc>`.
_TOPIC_NAMES: dict[int, str] = {
    CC.BASIC: "basic",
    CC.CONTROLLER_REPLICATION: "controller_replication",
    CC.APPLICATION_STATUS: "application_status",
    CC.BINARY_SWITCH: "switch_binary",
    CC.MULTILEVEL_SWITCH: "switch_multilevel",
    CC.ALL_SWITCH: "switch_all",
    CC.BINARY_TOGGLE_SWITCH: "switch_toggle_binary",
    CC.MULTILEVEL_TOGGLE_SWITCH: "switch_toggle_multilevel",
    CC.SCENE_ACTIVATION: "scene_activation",
    CC.SCENE_ACTUATOR_CONFIGURATION: "scene_actuator_conf",
    CC.SCENE_CONTROLLER_CONFIGURATION: "scene_controller_conf",
    CC.BINARY_SENSOR: "sensor_binary",
    CC.MULTILEVEL_SENSOR: "sensor_multilevel",
    CC.METER: "meter",
    CC.COLOR_SWITCH: "color",
    CC.PULSE_METER: "meter_pulse",
    CC.THERMOSTAT_HEATING: "thermostat_heating",
    CC.THERMOSTAT_MODE: "thermostat_mode",
    CC.THERMOSTAT_OPERATING_STATE: "thermostat_operating_state",
    CC.THERMOSTAT_SETPOINT: "thermostat_setpoint",
    CC.THERMOSTAT_FAN_MODE: "thermostat_fan_mode",
    CC.THERMOSTAT_FAN_STATE: "thermostat_fan_state",
    CC.CLIMATE_CONTROL_SCHEDULE: "climate_control_schedule",
    CC.THERMOSTAT_SETBACK: "thermostat_setback",
    CC.DOOR_LOCK_LOGGING: "door_lock_logging",
    CC.SCHEDULE_ENTRY_LOCK: "schedule_entry_lock",
    CC.BASIC_WINDOW_COVERING: "basic_window_covering",
    CC.MOVE_TO_POSITION_WINDOW_COVERING: "mtp_window_covering",
    CC.CRC_16_ENCAPSULATION: "crc_16_encap",
    CC.ASSOCIATION_GROUP_INFORMATION: "association_grp_info",
    CC.DEVICE_RESET_LOCALLY: "device_reset_locally",
    CC.CENTRAL_SCENE: "central_scene",
    CC.ZWAVE_PLUS_INFO: "zwave_plus_info",
    CC.MULTI_CHANNEL: "multi_instance",
    CC.DOOR_LOCK: "door_lock",
    CC.USER_CODE: "user_code",
    CC.BARRIER_OPERATOR: "barrier_operator",
    CC.CONFIGURATION: "configuration",
    CC.NOTIFICATION: "notification",
    CC.MANUFACTURER_SPECIFIC: "manufacturer_specific",
    CC.POWERLEVEL: "powerlevel",
    CC.PROTECTION: "protection",
    CC.LOCK: "lock",
    CC.NODE_NAMING_AND_LOCATION: "node_naming",
    CC.FIRMWARE_UPDATE_META_DATA: "firmware_update_md",
    CC.GROUPING_NAME: "grouping_name",
    CC.REMOTE_ASSOCIATION_ACTIVATION: "remote_association_activate",
    CC.REMOTE_ASSOCIATION_CONFIGURATION: "remote_association",
    CC.BATTERY: "battery",
    CC.CLOCK: "clock",
    CC.HAIL: "hail",
    CC.WAKE_UP: "wake_up",
    CC.ASSOCIATION: "association",
    CC.VERSION: "version",
    CC.INDICATOR: "indicator",
    CC.PROPRIETARY: "proprietary",
    CC.LANGUAGE: "language",
    CC.TIME: "time",
    CC.TIME_PARAMETERS: "time_parameters",
    CC.GEOGRAPHIC_LOCATION: "geographic_location",
    CC.MULTI_CHANNEL_ASSOCIATION: "multi_instance_association",
    CC.MULTI_COMMAND: "multi_cmd",
    CC.ENERGY_PRODUCTION: "energy_production",
    CC.MANUFACTURER_PROPRIETARY: "manufacturer_proprietary",
    CC.SCREEN_META_DATA: "screen_md",
    CC.SCREEN_ATTRIBUTES: "screen_attributes",
    CC.SIMPLE_AV_CONTROL: "simple_av_control",
    CC.ASSOCIATION_COMMAND_CONFIGURATION: "association_command_configuration",
    CC.ALARM_SENSOR: "sensor_alarm",
    CC.ALARM_SILENCE: "silence_alarm",
    CC.SENSOR_CONFIGURATION: "sensor_configuration",
    CC.SUPPORT_CONTROL_MARK: "mark",
    CC.NON_INTEROPERABLE: "non_interoperable",
}


def cc_topic_name(cc: int) -> str:
    """The command-class level of a named topic (`37` → `switch_binary`, `106` → `unknownClass_106`)."""
    return _TOPIC_NAMES.get(cc) or f"unknownClass_{cc}"


# Generic device classes.
GENERIC_THERMOSTAT = 0x08
GENERIC_BINARY_SWITCH = 0x10
GENERIC_MULTILEVEL_SWITCH = 0x11
GENERIC_ENTRY_CONTROL = 0x40  # locks, garage doors and gates
# Specific device classes of a Binary Switch.
SPECIFIC_SIREN = 0x05
SPECIFIC_VALVE = 0x06
# Specific device classes of a Multilevel Switch.
MOTOR_SPECIFIC_CLASSES = frozenset({0x03, 0x05, 0x06, 0x07})  # Multiposition Motor, Motor Control A/B/C
SPECIFIC_FAN_SWITCH = 0x08


# ---- property names, per command class (zwave-js value ids: the `property` of a value) ---------------
# Discovery and the simulator name a value's property through these, never by a string of their own.


class BasicProps:
    TARGET = "targetValue"
    CURRENT = "currentValue"
    EVENT = "event"  # a device that sends Basic Set as an event (zwave-js "mapBasicSet": "event")


class SwitchProps:
    """Binary Switch and Multilevel Switch (and Window Covering's level values)."""

    TARGET = "targetValue"
    CURRENT = "currentValue"
    RESTORE = "restorePrevious"
    # Multilevel Switch level changes, by the switch type the device declares.
    UP = "Up"
    DOWN = "Down"
    OPEN = "Open"
    CLOSE = "Close"
    ON = "On"
    OFF = "Off"


class WindowCoveringProps:
    TARGET = "targetValue"
    CURRENT = "currentValue"
    LEVEL_UP = "levelChangeUp"
    LEVEL_DOWN = "levelChangeDown"


class ColorProps:
    TARGET = "targetColor"
    CURRENT = "currentColor"
    HEX = "hexColor"


class DoorLockProps:
    TARGET_MODE = "targetMode"
    CURRENT_MODE = "currentMode"
    DOOR = "doorStatus"
    BOLT = "boltStatus"
    LATCH = "latchStatus"


class LockProps:
    LOCKED = "locked"


class ThermostatProps:
    """Thermostat Mode, Setpoint, Operating State, Fan Mode and Fan State."""

    MODE = "mode"  # Thermostat Mode and Thermostat Fan Mode
    SETPOINT = "setpoint"
    STATE = "state"  # Operating State and Fan State
    FAN_OFF = "off"


class BarrierProps:
    TARGET_STATE = "targetState"
    CURRENT_STATE = "currentState"


class SoundSwitchProps:
    TONE = "toneId"
    DEFAULT_TONE = "defaultToneId"
    DEFAULT_VOLUME = "defaultVolume"


class CentralSceneProps:
    SCENE = "scene"


class MeterProps:
    VALUE = "value"


class NotificationProps:
    ALARM_TYPE = "alarmType"
    ALARM_LEVEL = "alarmLevel"
    ACCESS_CONTROL = "Access Control"  # a notification type: doors, windows, locks
    HEAT_ALARM = "Heat Alarm"  # a notification type: overheat, underheat
    HEAT_SENSOR_STATUS = "Heat sensor status"  # its variable


class BinarySensorProps:
    ANY = "Any"  # the sensor type of a Binary Sensor v1 that does not say what it senses


class MultilevelSensorProps:
    AIR_TEMPERATURE = "Air temperature"


class BatteryProps:
    LEVEL = "level"


class FibaroProps:
    """Manufacturer Proprietary values of Fibaro's venetian blind controllers (zwave-js "fibaro")."""

    FIBARO = "fibaro"
    VENETIAN_TILT = "venetianBlindsTilt"
    VENETIAN_POSITION = "venetianBlindsPosition"
