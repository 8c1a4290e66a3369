"""Z-Wave numbers the device domain reads: command classes (named like zwave-js's `CommandClasses`) and
the generic/specific device classes of the Z-Wave specification (zwave-js's `deviceClass`)."""

from __future__ import annotations

# Command classes.
BASIC = 0x20
BINARY_SWITCH = 0x25
MULTILEVEL_SWITCH = 0x26
BINARY_SENSOR = 0x30
MULTILEVEL_SENSOR = 0x31
METER = 0x32
COLOR_SWITCH = 0x33
THERMOSTAT_MODE = 0x40
THERMOSTAT_OPERATING_STATE = 0x42
THERMOSTAT_SETPOINT = 0x43
THERMOSTAT_FAN_MODE = 0x44
THERMOSTAT_FAN_STATE = 0x45
CENTRAL_SCENE = 0x5B
MULTI_CHANNEL = 0x60
DOOR_LOCK = 0x62
BARRIER_OPERATOR = 0x66
WINDOW_COVERING = 0x6A
CONFIGURATION = 0x70
NOTIFICATION = 0x71
MANUFACTURER_SPECIFIC = 0x72
LOCK = 0x76
SOUND_SWITCH = 0x79
BATTERY = 0x80
WAKE_UP = 0x84
VERSION = 0x86
ENERGY_PRODUCTION = 0x90

# Command classes that tell how a device is set up or managed, never what it does in the house.
HOUSEKEEPING = frozenset(
    {
        0x22,  # Application Status
        0x27,  # All Switch
        0x2B,  # Scene Activation
        0x2C,  # Scene Actuator Configuration
        0x2D,  # Scene Controller Configuration
        0x4C,  # Door Lock Logging
        0x4E,  # Schedule Entry Lock
        0x53,  # Schedule
        0x55,  # Transport Service
        0x56,  # CRC-16 Encapsulation
        0x59,  # Association Group Information
        0x5A,  # Device Reset Locally
        0x5E,  # Z-Wave Plus Info
        MULTI_CHANNEL,
        0x63,  # User Code
        0x6C,  # Supervision
        0x70,  # Configuration
        MANUFACTURER_SPECIFIC,
        0x73,  # Powerlevel
        0x75,  # Protection
        0x77,  # Node Naming and Location
        0x7A,  # Firmware Update Meta Data
        0x81,  # Clock
        WAKE_UP,
        0x85,  # Association
        VERSION,
        0x87,  # Indicator
        0x8A,  # Time
        0x8B,  # Time Parameters
        0x8E,  # Multi Channel Association
        0x8F,  # Multi Command
        0x98,  # Security
        0x9F,  # Security 2
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


MANUFACTURER_PROPRIETARY = 0x91


class FibaroProps:
    """Manufacturer Proprietary values of Fibaro's venetian blind controllers (zwave-js "fibaro")."""

    FIBARO = "fibaro"
    VENETIAN_TILT = "venetianBlindsTilt"
    VENETIAN_POSITION = "venetianBlindsPosition"
