"""Z-Wave numbers every floor reads: command classes (`CC`, named like zwave-js's `CommandClasses`) and the
generic/specific device classes of the Z-Wave specification (zwave-js's `deviceClass`). No command-class
number is written anywhere else (tests/unit/test_zwave_floor.py)."""

from __future__ import annotations

from enum import IntEnum

# What a class is for when it is not what a device does: configuring or identifying a node (`explain` counts
# their unused values instead of listing them: a thermostat has dozens of configuration parameters), or
# carrying, securing, timing or scheduling its messages.
ADMINISTRATIVE_CLASS = "administrative"
HOUSEKEEPING_CLASS = "housekeeping"


class CC(IntEnum):
    """Command classes, by zwave-js's names, each with zwave-js-ui's name of it in *named* topics
    (`Constants.commandClass` in api/lib/Constants.ts), which the gateway reads and the simulator writes:
    `CC.BINARY_SWITCH.topic == "switch_binary"`. Window Covering is not in that table (capture a shows
    `unknownClass_106`); a class with no name there renders as `unknownClass_<cc>`."""

    topic: str
    role: str  # "" for a class that says what a device is or does

    def __new__(cls, number: int, topic: str, role: str = "") -> CC:
        member = int.__new__(cls, number)
        member._value_ = number
        member.topic = topic or f"unknownClass_{number}"
        member.role = role
        return member

    BASIC = 0x20, "basic"
    CONTROLLER_REPLICATION = 0x21, "controller_replication"
    APPLICATION_STATUS = 0x22, "application_status", HOUSEKEEPING_CLASS
    BINARY_SWITCH = 0x25, "switch_binary"
    MULTILEVEL_SWITCH = 0x26, "switch_multilevel"
    ALL_SWITCH = 0x27, "switch_all", HOUSEKEEPING_CLASS
    BINARY_TOGGLE_SWITCH = 0x28, "switch_toggle_binary"
    MULTILEVEL_TOGGLE_SWITCH = 0x29, "switch_toggle_multilevel"
    SCENE_ACTIVATION = 0x2B, "scene_activation", ADMINISTRATIVE_CLASS
    SCENE_ACTUATOR_CONFIGURATION = 0x2C, "scene_actuator_conf", ADMINISTRATIVE_CLASS
    SCENE_CONTROLLER_CONFIGURATION = 0x2D, "scene_controller_conf", ADMINISTRATIVE_CLASS
    BINARY_SENSOR = 0x30, "sensor_binary"
    MULTILEVEL_SENSOR = 0x31, "sensor_multilevel"
    METER = 0x32, "meter"
    COLOR_SWITCH = 0x33, "color"
    PULSE_METER = 0x35, "meter_pulse"
    THERMOSTAT_HEATING = 0x38, "thermostat_heating"  # in zwave-js-ui's table, not in zwave-js's
    THERMOSTAT_MODE = 0x40, "thermostat_mode"
    THERMOSTAT_OPERATING_STATE = 0x42, "thermostat_operating_state"
    THERMOSTAT_SETPOINT = 0x43, "thermostat_setpoint"
    THERMOSTAT_FAN_MODE = 0x44, "thermostat_fan_mode"
    THERMOSTAT_FAN_STATE = 0x45, "thermostat_fan_state"
    CLIMATE_CONTROL_SCHEDULE = 0x46, "climate_control_schedule"
    THERMOSTAT_SETBACK = 0x47, "thermostat_setback"
    DOOR_LOCK_LOGGING = 0x4C, "door_lock_logging", HOUSEKEEPING_CLASS
    SCHEDULE_ENTRY_LOCK = 0x4E, "schedule_entry_lock", HOUSEKEEPING_CLASS
    BASIC_WINDOW_COVERING = 0x50, "basic_window_covering"
    MOVE_TO_POSITION_WINDOW_COVERING = 0x51, "mtp_window_covering"
    SCHEDULE = 0x53, "", HOUSEKEEPING_CLASS
    TRANSPORT_SERVICE = 0x55, "", HOUSEKEEPING_CLASS
    CRC_16_ENCAPSULATION = 0x56, "crc_16_encap", HOUSEKEEPING_CLASS
    ASSOCIATION_GROUP_INFORMATION = 0x59, "association_grp_info", ADMINISTRATIVE_CLASS
    DEVICE_RESET_LOCALLY = 0x5A, "device_reset_locally", ADMINISTRATIVE_CLASS
    CENTRAL_SCENE = 0x5B, "central_scene"
    ZWAVE_PLUS_INFO = 0x5E, "zwave_plus_info", ADMINISTRATIVE_CLASS
    MULTI_CHANNEL = 0x60, "multi_instance", ADMINISTRATIVE_CLASS
    DOOR_LOCK = 0x62, "door_lock"
    USER_CODE = 0x63, "user_code", ADMINISTRATIVE_CLASS
    BARRIER_OPERATOR = 0x66, "barrier_operator"
    WINDOW_COVERING = 0x6A, ""
    SUPERVISION = 0x6C, "", HOUSEKEEPING_CLASS
    ENTRY_CONTROL = 0x6F, ""
    CONFIGURATION = 0x70, "configuration", ADMINISTRATIVE_CLASS
    NOTIFICATION = 0x71, "notification"
    MANUFACTURER_SPECIFIC = 0x72, "manufacturer_specific", ADMINISTRATIVE_CLASS
    POWERLEVEL = 0x73, "powerlevel", ADMINISTRATIVE_CLASS
    PROTECTION = 0x75, "protection", HOUSEKEEPING_CLASS
    LOCK = 0x76, "lock"
    NODE_NAMING_AND_LOCATION = 0x77, "node_naming", ADMINISTRATIVE_CLASS
    SOUND_SWITCH = 0x79, ""
    FIRMWARE_UPDATE_META_DATA = 0x7A, "firmware_update_md", ADMINISTRATIVE_CLASS
    GROUPING_NAME = 0x7B, "grouping_name"
    REMOTE_ASSOCIATION_ACTIVATION = 0x7C, "remote_association_activate"
    REMOTE_ASSOCIATION_CONFIGURATION = 0x7D, "remote_association"
    BATTERY = 0x80, "battery"
    CLOCK = 0x81, "clock", HOUSEKEEPING_CLASS
    HAIL = 0x82, "hail"
    USER_CREDENTIAL = 0x83, ""
    WAKE_UP = 0x84, "wake_up", ADMINISTRATIVE_CLASS
    ASSOCIATION = 0x85, "association", ADMINISTRATIVE_CLASS
    VERSION = 0x86, "version", ADMINISTRATIVE_CLASS
    INDICATOR = 0x87, "indicator", ADMINISTRATIVE_CLASS
    PROPRIETARY = 0x88, "proprietary"
    LANGUAGE = 0x89, "language"
    TIME = 0x8A, "time", HOUSEKEEPING_CLASS
    TIME_PARAMETERS = 0x8B, "time_parameters", HOUSEKEEPING_CLASS
    GEOGRAPHIC_LOCATION = 0x8C, "geographic_location"
    MULTI_CHANNEL_ASSOCIATION = 0x8E, "multi_instance_association", ADMINISTRATIVE_CLASS
    MULTI_COMMAND = 0x8F, "multi_cmd", HOUSEKEEPING_CLASS
    ENERGY_PRODUCTION = 0x90, "energy_production"
    MANUFACTURER_PROPRIETARY = 0x91, "manufacturer_proprietary"
    SCREEN_META_DATA = 0x92, "screen_md"
    SCREEN_ATTRIBUTES = 0x93, "screen_attributes"
    SIMPLE_AV_CONTROL = 0x94, "simple_av_control"
    SECURITY = 0x98, "", HOUSEKEEPING_CLASS
    ASSOCIATION_COMMAND_CONFIGURATION = 0x9B, "association_command_configuration"
    ALARM_SENSOR = 0x9C, "sensor_alarm"
    ALARM_SILENCE = 0x9D, "silence_alarm"
    SENSOR_CONFIGURATION = 0x9E, "sensor_configuration"
    SECURITY_2 = 0x9F, "", HOUSEKEEPING_CLASS
    SUPPORT_CONTROL_MARK = 0xEF, "mark"
    NON_INTEROPERABLE = 0xF0, "non_interoperable"  # in zwave-js-ui's table, not in zwave-js's


# Command classes that configure or identify a node rather than say what it is or does.
ADMINISTRATIVE = frozenset(c for c in CC if c.role == ADMINISTRATIVE_CLASS)
# Command classes that tell how a device is set up or managed, never what it does in the house.
HOUSEKEEPING = frozenset(c for c in CC if c.role)


def cc_topic_name(cc: int) -> str:
    """The command-class level of a named topic (`37` → `switch_binary`, `106` → `unknownClass_106`)."""
    member = CC._value2member_map_.get(cc)
    return member.topic if isinstance(member, CC) else f"unknownClass_{cc}"


# Generic device classes.
GENERIC_STATIC_CONTROLLER = 0x02  # another hub or gateway on the network (Fibaro Home Center, a PC stick)
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
