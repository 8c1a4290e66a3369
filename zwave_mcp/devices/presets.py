"""A fan's speeds, and how people say them.

Pure. A fan known by model has its own speeds (discovery's `fan_speeds`: level ranges, low … high); any
other fan has three, thirds of its range.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from zwave_mcp.answers import and_list
from zwave_mcp.devices.levels import is_number
from zwave_mcp.devices.model import Device

# Speed names by how many speeds a fan has.
_SPEED_NAMES: dict[int, tuple[str, ...]] = {
    2: ("low", "high"),
    3: ("low", "medium", "high"),
    4: ("low", "medium", "high", "max"),
}
# Other words for the same speeds.
_SPEED_WORDS = {"med": "medium", "mid": "medium", "middle": "medium", "maximum": "max", "full": "high"}
# A fan of no known model: three speeds, thirds of the Multilevel Switch range (1-99).
_DEFAULT_SPEEDS: tuple[tuple[int, int], ...] = ((1, 33), (34, 66), (67, 99))


@dataclass(frozen=True, slots=True)
class FanData:
    """What a fan's discovery row knows of its model: its Multilevel Switch level ranges, slowest first
    ((1, 33), (34, 67), …); none: thirds of its range."""

    speeds: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Speed:
    name: str  # "low", "medium", "speed 5"
    low: int  # the level range the device reports for it
    high: int  # the level written to choose it


def fan_speeds(device: Device) -> list[Speed]:
    """The fan's speeds, slowest first."""
    ranges = (device.template(FanData) or FanData()).speeds or _DEFAULT_SPEEDS
    names = _SPEED_NAMES.get(len(ranges)) or tuple(f"speed {i}" for i in range(1, len(ranges) + 1))
    return [Speed(name, int(low), int(high)) for name, (low, high) in zip(names, ranges, strict=True)]


def fan_speed_named(device: Device, said: str) -> Speed | None:
    """The speed a word names: "medium", "Med", "speed 2", "2nd"; None when it names none."""
    key = " ".join(said.casefold().replace("_", " ").replace("-", " ").split())
    key = _SPEED_WORDS.get(key, key)
    speeds = fan_speeds(device)
    for speed in speeds:
        if speed.name == key:
            return speed
    if match := re.fullmatch(r"(?:speed\s*)?(\d+)(?:st|nd|rd|th)?(?:\s*speed)?", key):
        if key[:1].isdigit() and key.isdigit():
            return None  # a bare number is a percentage, not a speed
        index = int(match.group(1))
        return speeds[index - 1] if 1 <= index <= len(speeds) else None
    return None


def model_speed_at(device: Device, level: Any) -> Speed | None:
    """The speed a reported level is in, for a fan whose model says its speeds; None for any other fan,
    for off, or a level outside every speed."""
    if (
        not (device.template(FanData) or FanData()).speeds
        or not is_number(level)
        or level <= 0
        or level == 255
    ):  # 255: on, at its last level
        return None
    return next((s for s in fan_speeds(device) if s.low <= level <= s.high), None)


def speed_choices(device: Device) -> str:
    """ "low, medium and high" """
    return and_list([s.name for s in fan_speeds(device)])
