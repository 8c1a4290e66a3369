"""A siren's tones, and how people say them.

Pure. A siren's tones are its Sound Switch tone states, or the tones its model sends as levels
(discovery's `siren_tones`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from zwave_mcp.devices import model as m
from zwave_mcp.devices.levels import is_number
from zwave_mcp.devices.model import Device


@dataclass(frozen=True, slots=True)
class SirenData:
    """What a siren's discovery row knows of its model: the tones it sounds as Multilevel Switch levels,
    (level, tone name) as the maker names them."""

    tones: tuple[tuple[int, str], ...] = ()


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
