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
