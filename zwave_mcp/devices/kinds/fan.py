"""The fan: its discovery rows and template (`FanData`: a model's speeds), its speeds in words, its action
(set_speed, and set_level as a speed) and how it is planned, and what a write to its speed amounts to.

A fan known by model has its own speeds (level ranges, low … high, as zwave-js and Home Assistant publish
them); any other fan has three, thirds of its range. It is switched on and off as any Multilevel Switch
is (`kinds.switch`). Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from zwave_mcp.answers import and_list
from zwave_mcp.devices import model as m
from zwave_mcp.devices.discovery import Schema, product
from zwave_mcp.devices.errors import InvalidValue
from zwave_mcp.devices.kinds.base import KindSpec, Words
from zwave_mcp.devices.kinds.switch import multilevel_row
from zwave_mcp.devices.levels import is_number, level_percent, to_level, to_percent, write_percent
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.resolve import echo
from zwave_mcp.devices.writes import ControlPlan, first, one_write, said_percent
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.zwave import classes as zc


@dataclass(frozen=True, slots=True)
class FanData:
    """What a fan's discovery row knows of its model: its Multilevel Switch level ranges, slowest first
    ((1, 33), (34, 67), …; none: thirds of its range), and its preset modes, levels that are no speed
    ((1, "breeze"): Inovelli's LZW36 cycles its speeds at level 1, Home Assistant's preset mode)."""

    speeds: tuple[tuple[int, int], ...] = ()
    presets: tuple[tuple[int, str], ...] = ()


# ---- discovery --------------------------------------------------------------------------------------


def _fan(
    name: str, manufacturer: int, types: set[int], ids: set[int], speeds: tuple[tuple[int, int], ...]
) -> Schema:
    """A fan known by model: its Multilevel Switch levels are `speeds` (low … high), each a level range."""
    return multilevel_row(
        f"fan: {name} ({len(speeds)} speeds)" if speeds else f"fan: {name}",
        Capability.FAN,
        products=(product(manufacturer, types, ids),),
        template=FanData(speeds),
    )


# The models, first in the table.
MODEL_SCHEMAS: tuple[Schema, ...] = (
    _fan("GE/Jasco 12730", 0x0063, {0x4944}, {0x3034}, ((1, 33), (34, 67), (68, 99))),
    _fan("GE/Jasco 14287, 55258, ZW4002", 0x0063, {0x4944}, {0x3131, 0x3337}, ((1, 32), (33, 66), (67, 99))),
    _fan("GE/Jasco 14314", 0x0063, {0x4944}, {0x3138}, ()),
    _fan("Honeywell 39358", 0x0039, {0x4944}, {0x3131}, ((1, 32), (33, 66), (67, 99))),
    _fan("Leviton ZW4SF", 0x001D, {0x0038}, {0x0002}, ((1, 25), (26, 50), (51, 75), (76, 99))),
    _fan("Leviton VRF01 quiet fan speed control", 0x001D, {0x1001}, {0x0209}, ()),
    _fan("Enbrighten 58446 / ZWA4013", 0x0063, {0x4944}, {0x3533}, ((1, 25), (26, 50), (51, 75), (76, 99))),
    multilevel_row(
        "fan: Inovelli LZW36 (the fan is endpoint 2, the light endpoint 1)",
        Capability.FAN,
        products=(product(0x031E, {0x000E}, {0x0001}),),
        endpoints=frozenset({2}),
        # Inovelli's levels (Home Assistant core PR #60947): 1 breeze, 2-33 low, 34-66 medium, 67-99 high
        template=FanData(((2, 33), (34, 66), (67, 99)), presets=((1, "breeze"),)),
    ),
)

# The device class, in the table after the garage doors.
SCHEMAS: tuple[Schema, ...] = (
    multilevel_row(
        "fan: Multilevel Switch of the Fan Switch device class",
        Capability.FAN,
        generic=frozenset({zc.GENERIC_MULTILEVEL_SWITCH}),
        specific=frozenset({zc.SPECIFIC_FAN_SWITCH}),
    ),
)

# ---- speeds in words --------------------------------------------------------------------------------

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
class Speed:
    name: str  # "low", "medium", "speed 5"
    low: int  # the level range the device reports for it
    high: int  # the level written to choose it


def fan_speeds(device: Device) -> list[Speed]:
    """The fan's speeds, slowest first."""
    ranges = _model_speeds(device) or _DEFAULT_SPEEDS
    names = _SPEED_NAMES.get(len(ranges)) or tuple(f"speed {i}" for i in range(1, len(ranges) + 1))
    return [Speed(name, int(low), int(high)) for name, (low, high) in zip(names, ranges, strict=True)]


def _speed_named(device: Device, said: str) -> Speed | None:
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


def _model_speeds(device: Device) -> tuple[tuple[int, int], ...]:
    return (device.template(FanData) or FanData()).speeds


def _preset_at(device: Device, level: Any) -> str | None:
    """The preset mode a reported level is ("breeze"); None for a level that is a speed or off."""
    presets = (device.template(FanData) or FanData()).presets
    return next((name for at, name in presets if is_number(level) and level == at), None)


def _preset_named(device: Device, said: str) -> tuple[int, str] | None:
    key = " ".join(said.casefold().replace("_", " ").split()).removesuffix(" mode")
    presets = (device.template(FanData) or FanData()).presets
    return next(((at, name) for at, name in presets if name == key), None)


def _model_speed_at(device: Device, level: Any) -> Speed | None:
    """The speed a reported level is in, for a fan whose model says its speeds; None for any other fan,
    for off, or a level outside every speed."""
    if (
        not _model_speeds(device) or not is_number(level) or level <= 0 or level == 255
    ):  # 255: on, at its last level
        return None
    return next((s for s in fan_speeds(device) if s.low <= level <= s.high), None)


def _is_fan(device: Device) -> bool:
    return device.has(Capability.FAN) and m.LEVEL_TARGET in device.values


def _summary(device: Device, spoken: bool) -> str | None:
    """ "off", "on at medium speed", "on at 40 %" (a fan's speed by name when its model says its speeds)."""
    if not _is_fan(device):
        return None
    current = device.values.get(m.LEVEL_CURRENT) or device.values[m.LEVEL_TARGET]
    level = level_percent(current)
    if level is None:
        return "unknown"
    if (preset := _preset_at(device, current.value)) is not None:
        return f"on in {preset} mode"
    speed = _model_speed_at(device, current.value)
    return "off" if level == 0 else (f"on at {speed.name} speed" if speed else f"on at {level} %")


def _effect_words(device: Device, value: ZValue, role: str | None, target: Any) -> Words | None:
    if role == m.LEVEL_TARGET and device.has(Capability.FAN) and is_number(target):
        preset = _preset_at(device, target)
        shown = f"{preset} mode" if preset is not None else write_percent(target, value)
        return frozenset({"on" if target > 0 else "off", "set_speed"}), shown
    return None


def _spoken_value(device: Device, value: ZValue, role: str | None, raw: Any) -> str | None:
    if role in (m.LEVEL_TARGET, m.LEVEL_CURRENT) and device.has(Capability.FAN) and is_number(raw):
        if (preset := _preset_at(device, raw)) is not None:
            return f"in {preset} mode"
        speed = _model_speed_at(device, raw)
        percent = to_percent(raw, value)
        return "off" if percent == 0 else (f"at {speed.name} speed" if speed else f"at {percent} % speed")
    return None


# ---- actions ----------------------------------------------------------------------------------------


def _set_speed(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    """A speed by name ("medium", "speed 2": the fan's own presets) or a percentage of its range."""
    raw = first(args, "level", "value", "mode", "position")
    target, current = device.values[m.LEVEL_TARGET], device.values.get(m.LEVEL_CURRENT)
    presets = [name for _, name in (device.template(FanData) or FanData()).presets]
    choices = and_list([s.name for s in fan_speeds(device)])
    modes = (
        (f", a {presets[0]} mode" if len(presets) == 1 else f", modes {and_list(presets)}") if presets else ""
    )
    allowed = f"{device.name} has speeds {choices}{modes}, or a percentage from 1 to 100"
    if isinstance(raw, str) and raw.strip().casefold() == "off":
        raw = 0
    speed = _speed_named(device, raw) if isinstance(raw, str) else None
    preset = _preset_named(device, raw) if isinstance(raw, str) else None
    argument: Any
    if preset is not None:
        level, shown, argument = preset[0], f"{preset[1]} mode", preset[1]
    elif speed is not None:
        level, shown, argument = speed.high, speed.name, speed.name
    else:
        if raw is None or raw == "":
            raise InvalidValue(f"Say how fast: {allowed}.")
        try:
            percent = said_percent(device, "speed", raw, current)
        except InvalidValue:
            raise InvalidValue(f"{allowed}; '{echo(str(raw))}' is neither.") from None
        level = to_level(percent, target)
        if level and _preset_at(device, level) is not None:
            level = fan_speeds(device)[0].low  # a percentage is a speed, never a preset's level: the slowest
        named = _model_speed_at(device, level)
        if named is not None:
            level = named.high  # a fan of known speeds runs at its speeds only: the one this percent is in
        shown, argument = (f"{percent} %" if named is None else f"{named.name} ({percent} %)"), percent
    summary = f"set {device.name} to {shown}" if level else f"turn off {device.name}"
    return one_write(device, action, argument, target, level, summary, watch=current)


KIND = KindSpec(
    name="fan",
    actions=lambda device: {"set_speed", "set_level"} if _is_fan(device) else set(),
    planners={"set_speed": _set_speed, "set_level": _set_speed},
    summary=_summary,
    effect_words=_effect_words,
    spoken_value=_spoken_value,
)
