"""The one action vocabulary: the action names the product accepts, and the other words people and models
use for them. The argument model, the planner, the policy (confirm lists) and the README all read it here.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

# Every action, in the order they are listed to people (a type, so the argument model's schema lists them).
ActionName = Literal[
    "on",
    "off",
    "toggle",
    "dim",
    "set_level",
    "open",
    "close",
    "stop",
    "set_position",
    "lock",
    "unlock",
    "set_temperature",
    "set_mode",
    "set_color",
    "set_speed",
    "set_tilt",
    "set_tone",
    "set_volume",
    "set_fan_mode",
]
ACTIONS: tuple[str, ...] = get_args(ActionName)

# Other words for the same actions; written with underscores, matched with spaces, dashes or underscores
# and without case ("Turn On", "switch-off", "turn_on").
ACTION_ALIASES: dict[str, str] = {
    "turn_on": "on",
    "switch_on": "on",
    "power_on": "on",
    "turn_off": "off",
    "switch_off": "off",
    "power_off": "off",
    "brightness": "set_level",
    "set_brightness": "set_level",
    "level": "set_level",
    "position": "set_position",
    "temperature": "set_temperature",
    "set_setpoint": "set_temperature",
    "setpoint": "set_temperature",
    "mode": "set_mode",
    "color": "set_color",
    "colour": "set_color",
    "set_colour": "set_color",
    "speed": "set_speed",
    "fan_speed": "set_speed",
    "set_fan_speed": "set_speed",
    "tilt": "set_tilt",
    "slats": "set_tilt",
    "set_slats": "set_tilt",
    "tone": "set_tone",
    "sound": "set_tone",
    "play_tone": "set_tone",
    "volume": "set_volume",
    "fan_mode": "set_fan_mode",
    "thermostat_fan": "set_fan_mode",
    "set_thermostat_fan": "set_fan_mode",
}

_SEPARATORS = re.compile(r"[\s\-]+")


def normalize_action(action: str) -> str:
    """The action name for a word people use: "turn on" → "on", "brightness" → "set_level"; other words
    come back in their normalized form, " Set-Temperature " → "set_temperature" (the caller decides
    whether they are known)."""
    key = _SEPARATORS.sub("_", action.strip().casefold())
    return ACTION_ALIASES.get(key, key)


# Each action as a history says it after "was told to": the vocabulary above, then every other change the
# write gate records (keypad users, settings and names, network care, adding and removing devices, scenes).
SPOKEN_ACTIONS: dict[str, str] = {
    "on": "turn on",
    "off": "turn off",
    "toggle": "toggle",
    "dim": "dim",
    "set_level": "set the level",
    "open": "open",
    "close": "close",
    "stop": "stop",
    "set_position": "set the position",
    "lock": "lock",
    "unlock": "unlock",
    "set_temperature": "set the temperature",
    "set_mode": "change mode",
    "set_color": "change colour",
    "set_speed": "set the speed",
    "set_tilt": "tilt its slats",
    "set_tone": "sound a tone",
    "set_volume": "set the volume",
    "set_fan_mode": "set the fan mode",
    # manage_lock_users (its actions as the gate records them: `lock_users.gate_action`)
    "add_user": "add a user",
    "rename_user": "rename a user",
    "enable_user": "enable a user",
    "disable_user": "disable a user",
    "remove_user": "remove a user",
    "change_pin": "change a user's PIN",
    "schedule_code": "set when a user's code works",
    "unschedule_code": "take away a code's schedule",
    # set_zwave_parameter, rename_zwave_device
    "set_parameter": "change a setting",
    "rename": "change its name or room",
    # run_zwave_maintenance, cancel_zwave_job
    "ping": "answer a ping",
    "refresh_values": "report all its values again",
    "reinterview": "be interviewed again",
    "check_lifeline": "check its link to the controller",
    "check_route": "check its route to another device",
    "rebuild_routes": "rebuild its routes",
    "cancel_job": "stop a maintenance job",
    # change_zwave_association
    "add_association": "control another device by itself",
    "remove_association": "stop controlling another device",
    # manage_zwave_inclusion, answer_zwave_inclusion
    "start_inclusion": "start adding a device",
    "stop_inclusion": "stop adding devices",
    "start_exclusion": "start removing a device",
    "stop_exclusion": "stop removing devices",
    "provision": "put a device on the SmartStart list",
    "remove_failed": "be removed as a failed node",
    "replace_failed": "be replaced as a failed node",
    "grant_security": "grant a new device its security",
    "enter_pin": "check a new device's PIN",
    "abort_inclusion": "stop a new device's security set-up",
    # activate_zwave_scene
    "activate_scene": "play its part in a scene",
}


def spoken_action(action: str) -> str:
    """The words after "was told to" for a recorded action: "set_level" → "set the level"; an action not
    listed (a record from another version) in its own words, "set_night_light" → "set the night light"."""
    key = normalize_action(action)
    if key in SPOKEN_ACTIONS:
        return SPOKEN_ACTIONS[key]
    words = " ".join(word for word in key.split("_") if word)
    if words.startswith("set "):
        return f"set the {words[4:]}"
    return words or "make a change"
