"""Which changes are sensitive (need the person's confirmation), and how an action is said in a sentence.

Built-in rules, always on:
- a lock: anything but `lock` (unlock, toggle, …) could open the door; a keypad code added, enabled or
  changed lets someone in, one disabled or removed keeps someone out (renaming a lock's user is neither);
- an entry (garage door, gate: `device.is_entry`, set by the device domain for Barrier Operator and
  "garage"-type covers; or a switch whose name or product says door/gate/garage/opener/lock, the relay of a
  garage door opener): anything but `close` and `stop` could open it;
- an alarm or siren (a capability containing "alarm" or "siren"), or the actions `disarm`/`disable_alarm`
  anywhere: switching it off, disarming or disabling it (silencing a siren, or its volume to 0). Sounding a
  siren is not sensitive: it alarms nobody's safety, and a person who wants it confirmed lists `set_tone`
  or the siren in the confirm lists below;
- a valve that supplies the house (a water main: its name or product says water, gas, main, supply or
  shut-off): closing it cuts the supply, so it is confirmed; opening it is not;
- a thermostat setpoint outside the safe band (default 10-28 °C; a °F unit is converted). The value must be
  the absolute target the write will send (resolve "+1" first); a target that is not a plain number is
  treated as outside the band, because the policy cannot tell where it lands.
Configured on top: actions confirmed everywhere (`ZWAVE_MCP_CONFIRM_ACTIONS`, e.g. `open,set_mode`) and
devices for which every change is confirmed (`ZWAVE_MCP_CONFIRM_DEVICES`, e.g. a cover marked sensitive).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from zwave_mcp.names import words_of
from zwave_mcp.policy.actions import ACTIONS, SPOKEN_ACTIONS
from zwave_mcp.policy.terms import DeviceList, PolicyDevice, device_label

TEMPERATURE_ACTIONS = frozenset(
    {"set_temperature", "set_setpoint", "set_heating_setpoint", "set_cooling_setpoint"}
)
ALARM_OFF_ACTIONS = frozenset({"disarm", "disable_alarm"})
_ALARM_OFF_ON_ALARM = frozenset({"off", "disable", "disarm", "disable_alarm", "toggle"})
_SAFE_ON_LOCK = frozenset({"lock"})
_SAFE_ON_ENTRY = frozenset({"close", "stop"})
# Capabilities whose change can move a door: covers and barriers, and the relays that drive openers.
MOVING = frozenset({"cover", "switch", "dimmer"})
_FAHRENHEIT = frozenset({"°f", "f", "degf", "fahrenheit"})


@dataclass(frozen=True, slots=True)
class SafeBand:
    """Thermostat targets inside [low, high] °C need no confirmation."""

    low: float = 10.0
    high: float = 28.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low < self.high):
            raise ValueError(
                f"the safe temperature band needs low < high (got {self.low:g} to {self.high:g})"
            )

    def describe(self) -> str:
        return f"{self.low:g}-{self.high:g} °C"


def as_number(value: object) -> float | None:
    """A plain number, or text that is one ("21.5"); relative text ("+1") and anything else → None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str) and value.strip()[:1] not in ("+", "-", ""):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def to_celsius(value: float, unit: str | None) -> float:
    if unit is not None and unit.strip().casefold() in _FAHRENHEIT:
        return (value - 32.0) * 5.0 / 9.0
    return value


def format_value(value: object, unit: str | None = None) -> str:
    number = as_number(value)
    shown = f"{number:g}" if number is not None else repr(value) if not isinstance(value, str) else value
    if len(shown) > 60:
        shown = shown[:60] + "…"
    return f"{shown} {unit}" if unit else shown


def describe_action(device: PolicyDevice, action: str, value: object = None, unit: str | None = None) -> str:
    """The change as words, lower-case first: "unlock Front Door Lock (Entry)", "set … to 30 °C"."""
    label = device_label(device)
    if action in ("on", "off"):
        return f"turn {action} {label}"
    if action == "toggle" and isinstance(value, bool):
        return f"turn {'on' if value else 'off'} {label}"  # a toggle's value is where it will end up
    if action.startswith("set_") and value is not None:
        return f"set {label} to {format_value(value, unit)}"
    words = action.replace("_", " ")
    return f"{words} {label}" + (f" to {format_value(value, unit)}" if value is not None else "")


# A cover or a switch (relay) whose name or product says one of these words can open a way in ("Garage
# Door Opener", "Driveway Gate"), unless the same words say it is a light ("Garage Lamp"). Whole words
# only: "outdoor" is no door and "clock" no lock.
_ENTRY_WORDS = frozenset({"door", "gate", "garage", "opener", "lock", "barrier"})
_LIGHT_WORDS = frozenset({"light", "lamp", "bulb", "lantern", "sconce", "chandelier", "spotlight"})


@functools.lru_cache(maxsize=512)  # judged on every write; the names of the devices in use repeat
def names_an_entry(*texts: object) -> bool:
    """The words of these names (a device's, its node's, its product's) say it can open a way in."""
    words = {word for text in texts if text for word in words_of(str(text))}
    return bool(words & _ENTRY_WORDS) and not words & _LIGHT_WORDS


def opens_entry(device: PolicyDevice) -> bool:
    """A cover/barrier that is a door, gate or garage, or a switch whose name or product says so."""
    if getattr(device, "is_entry", False):
        return True
    node = getattr(device, "node", None)
    return names_an_entry(device.name, getattr(node, "name", ""), getattr(node, "product_label", ""))


# A valve whose name or product says one of these words is a supply's shut-off ("Water Main", "Titan Water
# Valve Actuator", "Gas Shutoff"); an irrigation zone says none of them.
_SUPPLY_WORDS = frozenset({"water", "gas", "main", "mains", "supply", "shutoff", "shut"})


def names_a_supply(device: PolicyDevice) -> bool:
    """The words of the device's, its node's or its product's name say it shuts off a supply."""
    node = getattr(device, "node", None)
    texts = (
        device.name,
        getattr(node, "name", ""),
        getattr(node, "product_label", ""),
        getattr(node, "product_description", ""),
    )
    return bool({w for text in texts if text for w in words_of(str(text))} & _SUPPLY_WORDS)


# Network care that changes how the network or a device is set up: always the person's call
# (configuration parameters, adding, removing or replacing devices, re-interviews, a network-wide rebuild).
ADMIN_ACTIONS = frozenset(
    {
        "configure",
        "include",
        "exclude",
        "provision",
        "remove_node",
        "replace_node",
        "reinterview",
        "rebuild_network",
        "firmware_update",  # new firmware: the device restarts, and a failed transfer can leave it unusable
    }
)


# A keypad lock's users (issue 37): a code that starts to work lets someone in, one that stops working keeps
# someone out; both are the person's call. Renaming a user changes neither (the confirm lists still apply).
LOCK_CODE_GRANTS = frozenset({"add_code", "enable_code", "change_code"})
LOCK_CODE_REVOKES = frozenset({"disable_code", "remove_code"})
# When a code works (issue 45 item 3): a schedule set or taken away changes who may come in, and when.
LOCK_SCHEDULE_WORDS = frozenset({"schedule_code", "unschedule_code"})
LOCK_USER_WORDS = LOCK_CODE_GRANTS | LOCK_CODE_REVOKES | LOCK_SCHEDULE_WORDS | {"rename_user"}

# Direct associations (issue 45): a group of one device made to control another ("associate", said of the
# device whose group it is; "be_controlled", of the device it will control), or no longer ("dissociate");
# "stop_reports" when that group is the lifeline, the one that reports to zwave-mcp.
ASSOCIATION_WORDS = frozenset({"associate", "dissociate", "be_controlled", "stop_reports"})

# Every word a change's effect can carry, so what the confirm list may name (issue 44): the actions, every
# change the gate records (lock users, settings, network care, inclusion, scenes), and the rules' own words.
# A word outside it would never match a change, so `ZWAVE_MCP_CONFIRM_ACTIONS` refuses it at start.
CONFIRMABLE_WORDS = (
    frozenset(ACTIONS)
    | frozenset(SPOKEN_ACTIONS)
    | ADMIN_ACTIONS
    | LOCK_USER_WORDS
    | ASSOCIATION_WORDS
    | ALARM_OFF_ACTIONS
    | TEMPERATURE_ACTIONS
    | {"set_value"}
)


def sensitivity(
    device: PolicyDevice,
    words: frozenset[str],
    value: object,
    *,
    unit: str | None,
    band: SafeBand,
    confirm_actions: frozenset[str],
    confirm_devices: DeviceList,
) -> str | None:
    """Why this change is sensitive ("it can unlock a door"), or None when it is not.

    `words` are what the change's effect amounts to (an effect of `set_level 30` is {"on", "set_level",
    "dim"}; of `set_position 100` {"open", "set_position"}): every rule and the confirm list is judged on
    what the change does, not on what it was called.
    """
    caps = {str(c).casefold() for c in device.capabilities}
    if words & LOCK_CODE_GRANTS:
        return "a code on the lock lets someone into the house"
    if words & LOCK_CODE_REVOKES:
        return "it takes away someone's way into the house"
    association = bool(words) and words <= ASSOCIATION_WORDS
    if association:
        why = _association_why(device, words, caps)
        if why is not None:
            return why
    if words & LOCK_SCHEDULE_WORDS:
        return "it changes when a code lets someone into the house"
    lock_users = bool(words) and words <= LOCK_USER_WORDS
    if "unlock" in words or (
        "lock" in caps and not words <= _SAFE_ON_LOCK and not (lock_users or association)
    ):
        return "it can unlock a door"
    closing = bool(words & _SAFE_ON_ENTRY) and "open" not in words  # close, stop, a position of 0
    if "lock" not in caps and caps & MOVING and opens_entry(device) and not (closing or association):
        return "it can open a way into the house"
    if "valve" in caps and "close" in words and names_a_supply(device):
        return "it can shut off the supply to the house"
    if words & ADMIN_ACTIONS:
        return "it changes how the Z-Wave network or the device is set up"
    alarm = any("alarm" in c or "siren" in c for c in caps)
    if words & ALARM_OFF_ACTIONS or (alarm and words & _ALARM_OFF_ON_ALARM):
        return "it can switch off an alarm"
    if words & TEMPERATURE_ACTIONS:
        number = as_number(value)
        if number is None:
            return f"the target is not a plain temperature, so it may be outside the safe range {band.describe()}"
        celsius = to_celsius(number, unit)
        if not band.low <= celsius <= band.high:
            return f"{format_value(value, unit)} is outside the safe range {band.describe()}"
    listed = sorted(words & confirm_actions)
    if listed:
        return f"'{listed[0]}' is on the list of actions that need confirmation"
    term = confirm_devices.first_match(device)
    if term is not None:
        return f"every change to it needs confirmation (matched '{term.text}' in {confirm_devices.source})"
    return None


def _association_why(device: PolicyDevice, words: frozenset[str], caps: set[str]) -> str | None:
    """Why an association change needs the person's yes: a lifeline removed (the device would stop
    reporting), or a device that another would then control by itself: a lock it could unlock, a cover,
    door, gate or valve it could open, a siren it could silence. Controlling a light or a plug is not."""
    if "stop_reports" in words:
        return "the device would stop reporting to zwave-mcp, which would no longer hear of its changes"
    if "be_controlled" not in words:
        return None
    if "lock" in caps:
        return "it lets another device unlock it by itself"
    if any("alarm" in c or "siren" in c for c in caps):
        return "it lets another device silence it by itself"
    if caps & {"cover", "valve"} or (caps & MOVING and opens_entry(device)):
        return "it lets another device open it by itself"
    return None
