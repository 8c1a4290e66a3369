"""Z-Wave numbers every floor reads: command classes (`CC`, named like zwave-js's `CommandClasses`) and the
generic/specific device classes of the Z-Wave specification (zwave-js's `deviceClass`). No command-class
number is written anywhere else (tests/unit/test_zwave_floor.py)."""

from __future__ import annotations

from enum import IntEnum


class CC(IntEnum):
    """Command classes, by zwave-js's names."""

    BASIC = 0x20
    APPLICATION_STATUS = 0x22
    BINARY_SWITCH = 0x25
    MULTILEVEL_SWITCH = 0x26
    ALL_SWITCH = 0x27
    SCENE_ACTIVATION = 0x2B
    SCENE_ACTUATOR_CONFIGURATION = 0x2C
    SCENE_CONTROLLER_CONFIGURATION = 0x2D
    BINARY_SENSOR = 0x30
    MULTILEVEL_SENSOR = 0x31
    METER = 0x32
    COLOR_SWITCH = 0x33
    THERMOSTAT_MODE = 0x40
    THERMOSTAT_OPERATING_STATE = 0x42
    THERMOSTAT_SETPOINT = 0x43
    THERMOSTAT_FAN_MODE = 0x44
    THERMOSTAT_FAN_STATE = 0x45
    DOOR_LOCK_LOGGING = 0x4C
    SCHEDULE_ENTRY_LOCK = 0x4E
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
    BATTERY = 0x80
    CLOCK = 0x81
    USER_CREDENTIAL = 0x83
    WAKE_UP = 0x84
    ASSOCIATION = 0x85
    VERSION = 0x86
    INDICATOR = 0x87
    TIME = 0x8A
    TIME_PARAMETERS = 0x8B
    MULTI_CHANNEL_ASSOCIATION = 0x8E
    MULTI_COMMAND = 0x8F
    ENERGY_PRODUCTION = 0x90
    MANUFACTURER_PROPRIETARY = 0x91
    SECURITY = 0x98
    SECURITY_2 = 0x9F


# Command classes that tell how a device is set up or managed, never what it does in the house.
HOUSEKEEPING = frozenset(
    {
        CC.APPLICATION_STATUS,
        CC.ALL_SWITCH,
        CC.SCENE_ACTIVATION,
        CC.SCENE_ACTUATOR_CONFIGURATION,
        CC.SCENE_CONTROLLER_CONFIGURATION,
        CC.DOOR_LOCK_LOGGING,
        CC.SCHEDULE_ENTRY_LOCK,
        CC.SCHEDULE,
        CC.TRANSPORT_SERVICE,
        CC.CRC_16_ENCAPSULATION,
        CC.ASSOCIATION_GROUP_INFORMATION,
        CC.DEVICE_RESET_LOCALLY,
        CC.ZWAVE_PLUS_INFO,
        CC.MULTI_CHANNEL,
        CC.USER_CODE,
        CC.SUPERVISION,
        CC.CONFIGURATION,
        CC.MANUFACTURER_SPECIFIC,
        CC.POWERLEVEL,
        CC.PROTECTION,
        CC.NODE_NAMING_AND_LOCATION,
        CC.FIRMWARE_UPDATE_META_DATA,
        CC.CLOCK,
        CC.WAKE_UP,
        CC.ASSOCIATION,
        CC.VERSION,
        CC.INDICATOR,
        CC.TIME,
        CC.TIME_PARAMETERS,
        CC.MULTI_CHANNEL_ASSOCIATION,
        CC.MULTI_COMMAND,
        CC.SECURITY,
        CC.SECURITY_2,
    }
)

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
