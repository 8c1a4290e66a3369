"""Named settings of the new kinds: a fan's speeds, a siren's tones, and how people say them.

Pure. A fan known by model has its own speeds (discovery's `fan_speeds`: level ranges, low … high); any
other fan has three, thirds of its range. A siren's tones are its Sound Switch tone states, or the tones
its model sends as levels (discovery's `siren_tones`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from zwave_mcp.answers import and_list
from zwave_mcp.devices import model as m
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
class SirenData:
    """What a siren's discovery row knows of its model: the tones it sounds as Multilevel Switch levels,
    (level, tone name) as the maker names them."""

    tones: tuple[tuple[int, str], ...] = ()


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


@dataclass(frozen=True, slots=True)
class Tone:
    value: int  # what is written: a Sound Switch tone id, or a level
    name: str  # as the device names it ("01DING~1 (5 sec)", "Siren only")


def siren_tones(device: Device) -> list[Tone]:
    """The tones the siren can sound (not "off", not "default")."""
    if tones := (device.template(SirenData) or SirenData()).tones:
        return [Tone(level, name) for level, name in tones if level]
    target = device.values.get(m.SIREN_TONE)
    if target is None:
        return []
    return [
        Tone(s.value, s.text)
        for s in target.states
        if isinstance(s.value, int) and s.value not in (0, 255) and s.text
    ]


def tone_named(device: Device, said: str) -> Tone | None:
    """The tone a word names: its exact name, or the one tone whose name holds the word ("doorbell")."""
    key = _plain(said)
    tones = siren_tones(device)
    if not tones and key.isdigit():
        # a Sound Switch that names no tones still plays them by number (Aeotec ZW164's first endpoint)
        target = device.values.get(m.SIREN_TONE)
        low, high = 1, int(target.max) if target is not None and target.max is not None else 254
        return Tone(int(key), f"tone {int(key)}") if low <= int(key) <= min(high, 254) else None
    exact = [t for t in tones if _plain(t.name) == key]
    if exact:
        return exact[0]
    if key.isdigit():
        return next((t for t in tones if t.value == int(key)), None)
    partial = [t for t in tones if key and key in _plain(t.name)]
    return partial[0] if len(partial) == 1 else None


def tone_name(device: Device, raw: Any) -> str | None:
    """The name of a reported tone; None for off or a tone the device does not list."""
    if not is_number(raw) or raw == 0:
        return None
    return next((t.name for t in siren_tones(device) if t.value == raw), None)


# A tone whose name says it only lights up ("Strobe only", "Flash") makes no sound; one that names a sound
# ("Siren and strobe", "01DING~1") does.
_LIGHT_WORDS = frozenset({"strobe", "light", "lights", "flash", "flashing", "led", "lamp", "beacon"})
_SOUND_WORDS = frozenset(
    {"siren", "sound", "alarm", "chime", "bell", "beep", "buzzer", "ding", "dong", "horn", "tone", "ring"}
)


def tone_sounds(device: Device, raw: Any) -> bool | None:
    """Whether the siren makes a sound at this tone (a Sound Switch tone id, or the level of a siren that
    sounds its tones by level): False for off and for a tone that only lights up (FortrezZ's level 33,
    "Strobe only"), True for a sounding one, None when it cannot be told (nothing reported yet, or a level
    between a model's named tones)."""
    if raw is None:
        return None
    if raw is False or (is_number(raw) and raw == 0):
        return False
    if raw is True:
        return True
    name = tone_name(device, raw)
    if name is None:
        # A model that names its tones by level sounds only those; a Sound Switch plays any id it has.
        return None if (device.template(SirenData) or SirenData()).tones else True
    words = set(_plain(name).split())
    return not (words & _LIGHT_WORDS and not words & _SOUND_WORDS)


def siren_sounding(device: Device) -> bool | None:
    """Whether the siren is sounding now, from its own report (None: not reported)."""
    current = device.values.get(m.SIREN_TONE_CURRENT) or device.values.get(m.SIREN_TONE)
    return None if current is None else tone_sounds(device, current.value)


def _plain(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.casefold()).strip()
