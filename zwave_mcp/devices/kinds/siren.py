"""The siren: its discovery rows and template, its tones and how people name them, sounding or silent in
words, its actions (on, off, set_tone, set_volume) and what a write to it amounts to.

A siren is a Sound Switch (tones by id: 0 off, 255 its default tone; a volume), a Binary Switch of the
Siren device class, or a model that sounds its tones as Multilevel Switch levels (`SirenData`). A tone
that only lights up ("Strobe only") is no sound: setting it silences a siren that sounds. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from zwave_mcp.answers import plural
from zwave_mcp.devices import model as m
from zwave_mcp.devices.discovery import Schema, match, product
from zwave_mcp.devices.errors import InvalidValue
from zwave_mcp.devices.kinds.base import KindSpec, Words, told_or_did
from zwave_mcp.devices.kinds.switch import binary_row, multilevel_row
from zwave_mcp.devices.levels import is_number, nonzero
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.readings import number
from zwave_mcp.devices.resolve import echo
from zwave_mcp.devices.writes import (
    ControlPlan,
    Expectation,
    Write,
    check_range,
    first,
    one_write,
    said_percent,
)
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.zwave import classes as zc
from zwave_mcp.zwave.classes import CC, SoundSwitchProps, SwitchProps


@dataclass(frozen=True, slots=True)
class SirenData:
    """What a siren's discovery row knows of its model: the tones it sounds as Multilevel Switch levels,
    (level, tone name) as the maker names them."""

    tones: tuple[tuple[int, str], ...] = ()


# Among the models, after the binary sensors known by model.
MODEL_SCHEMAS: tuple[Schema, ...] = (
    multilevel_row(
        "siren: FortrezZ SSA1/SSA2/SSA3 (tones by level)",
        Capability.SIREN,
        role=m.SIREN_TONE,
        companions=((m.SIREN_TONE_CURRENT, match(CC.MULTILEVEL_SWITCH, SwitchProps.CURRENT)),),
        products=(
            product(
                0x0084, {0x0311, 0x0313, 0x0331, 0x0341, 0x0343}, {0x0107, 0x0108, 0x0109, 0x010B, 0x0205}
            ),
        ),
        template=SirenData(((0, "Off"), (33, "Strobe only"), (66, "Siren only"), (99, "Siren and strobe"))),
    ),
)
# The generic rows, in the table after the valves.
SCHEMAS: tuple[Schema, ...] = (
    binary_row(
        "siren: Binary Switch of the Siren device class",
        Capability.SIREN,
        generic=frozenset({zc.GENERIC_BINARY_SWITCH}),
        specific=frozenset({zc.SPECIFIC_SIREN}),
    ),
    Schema(
        name="siren: Sound Switch tones",
        kind=Capability.SIREN,
        role=m.SIREN_TONE,
        primary=match(CC.SOUND_SWITCH, SoundSwitchProps.TONE, type="number", writeable=True),
        companions=(
            (m.SIREN_VOLUME, match(CC.SOUND_SWITCH, SoundSwitchProps.DEFAULT_VOLUME, writeable=True)),
            (m.SIREN_DEFAULT_TONE, match(CC.SOUND_SWITCH, SoundSwitchProps.DEFAULT_TONE, writeable=True)),
        ),
    ),
)
_NOUNS = {
    m.SIREN_TONE: "tone", m.SIREN_TONE_CURRENT: "tone", m.SIREN_VOLUME: "volume",
    m.SIREN_DEFAULT_TONE: "default tone",
}  # fmt: skip


# A tone the device names by its sound file's DOS 8.3 name and length (Aeotec's Siren 6 and Doorbell 6:
# "03TRAD~1 (11 sec)"): the name tells a person nothing, its number and length do.
_SOUND_FILE = re.compile(r"\d*[a-z0-9_]{1,6}~\d+(?:\.[a-z0-9]{1,3})?(?:\s*\((\d+)\s*sec\))?", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Tone:
    value: int  # what is written: a Sound Switch tone id, or a level
    name: str  # as the device names it ("01DING~1 (5 sec)", "Siren only")

    @property
    def spoken(self) -> str:
        """How the tone is said: its name, or for a sound file's name "tone 3 (11 seconds)"."""
        found = _SOUND_FILE.fullmatch(self.name.strip())
        if found is None:
            return self.name
        length = f" ({plural(int(found.group(1)), 'second')})" if found.group(1) else ""
        return f"tone {self.value}{length}"


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
    exact = [t for t in tones if key in (_plain(t.name), _plain(t.spoken))]
    if exact:
        return exact[0]
    if number := re.fullmatch(r"(?:tone )?(\d+)", key):  # "5", "tone 5": as the tone is said
        return next((t for t in tones if t.value == int(number.group(1))), None)
    partial = [t for t in tones if key and key in _plain(t.name)]
    return partial[0] if len(partial) == 1 else None


def tone_name(device: Device, raw: Any) -> str | None:
    """The name of a reported tone; None for off or a tone the device does not list."""
    tone = _tone_at(device, raw)
    return None if tone is None else tone.name


def tone_spoken(device: Device, raw: Any) -> str | None:
    """A reported tone as it is said ("siren only", "tone 3 (11 seconds)"); None as for `tone_name`."""
    tone = _tone_at(device, raw)
    return None if tone is None else tone.spoken


def _tone_at(device: Device, raw: Any) -> Tone | None:
    if not is_number(raw) or raw == 0:
        return None
    return next((t for t in siren_tones(device) if t.value == raw), None)


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


def _summary(device: Device, spoken: bool) -> str | None:
    v = device.values
    if device.has(Capability.SIREN) and m.SWITCH_TARGET in v:
        watch = v.get(m.SWITCH_CURRENT) or v[m.SWITCH_TARGET]
        return "unknown" if watch.value is None else ("sounding" if nonzero(watch.value) else "silent")
    if m.SIREN_TONE not in v:
        return None
    watch = v.get(m.SIREN_TONE_CURRENT) or v[m.SIREN_TONE]
    if not is_number(watch.value):
        return "unknown"
    tone = tone_spoken(device, watch.value)
    return "silent" if watch.value == 0 else (f"sounding {tone.lower()}" if tone else "sounding")


def _opening(device: Device, summary: str) -> str | None:
    if summary.startswith("unknown") and device.kind == Capability.SIREN:
        return "has not reported whether it is sounding"
    return None


def _change_phrase(device: Device | None, value: ZValue, role: str | None, new: Any) -> str | None:
    if role in (m.SIREN_TONE, m.SIREN_TONE_CURRENT) and is_number(new):
        tone = tone_spoken(device, new) if device is not None else None
        if new == 0:
            return told_or_did(role == m.SIREN_TONE, "go quiet", "went quiet")
        return f"started sounding {tone.lower()}" if tone else "started sounding"
    if role == m.SIREN_VOLUME and is_number(new):
        return f"had its volume set to {number(new)} %"
    return None


def _spoken_value(device: Device, value: ZValue, role: str | None, raw: Any) -> str | None:
    if role not in (m.SIREN_TONE, m.SIREN_TONE_CURRENT):
        return None
    name = tone_spoken(device, raw)
    if raw == 0:
        return "silent"
    if tone_sounds(device, raw) is False:  # a strobe only: lit, not sounding
        return f"silent ({name.lower()})" if name else "silent"
    return f"sounding {name.lower()}" if name else "sounding"


def _effect_words(device: Device, value: ZValue, role: str | None, target: Any) -> Words | None:
    if role is None:
        return _level_words(device, value, target)
    if role == m.SIREN_TONE:
        return _tone_words(device, value, target)
    if role == m.SIREN_VOLUME:
        return frozenset({"set_volume"} | ({"off"} if target == 0 else set())), target
    return None


def _tone_words(device: Device, value: ZValue, target: Any) -> Words:
    """A siren's tone judged by its effect: a tone that makes no sound ("Strobe only"), or one whose sound
    cannot be told, silences a siren that is sounding (or may be: nothing reported) as off does, and the
    alarm rule of the policy judges it; a sounding tone sounds it."""
    shown = tone_spoken(device, target) or value.state_text(target) or target
    if target == 0 or target is False:
        return frozenset({"off"}), None
    if tone_sounds(device, target) is not True and siren_sounding(device) is not False:
        return frozenset({"off", "set_tone"}), shown
    return frozenset({"on", "set_tone"}), shown


def _level_words(device: Device, value: ZValue, target: Any) -> Words | None:
    """A write to a level-toned siren (FortrezZ) through another value of its endpoint: Basic Set is the
    same level as the tone value, and a level change down fades the sound out, so both are judged as the
    tone they set; None for a value of any other device."""
    tone = device.values.get(m.SIREN_TONE)
    if tone is None or tone.command_class not in (CC.MULTILEVEL_SWITCH, CC.BASIC):
        return None
    if value.endpoint != tone.endpoint or value.command_class not in (CC.MULTILEVEL_SWITCH, CC.BASIC):
        return None
    prop = value.property
    if prop in ("targetValue", "currentValue") and (is_number(target) or isinstance(target, bool)):
        return _tone_words(device, value, target)
    if target is False:  # stopping a level change leaves the siren where it is
        return frozenset({"stop"}), None
    if prop in ("Down", "Close") or (isinstance(prop, str) and prop.startswith("levelChangeDown")):
        return frozenset({"off", "set_level"}), None
    return frozenset({"on", "set_level"}), None


def _actions(device: Device) -> set[str]:
    v = device.values
    can = {"set_volume"} if m.SIREN_VOLUME in v else set()
    if m.SIREN_TONE in v:
        can |= {"on", "off"}
        if siren_tones(device) or v[m.SIREN_TONE].command_class == CC.SOUND_SWITCH:
            can.add("set_tone")
    return can


def _on_off(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    """Sound the siren (its default tone, or its loudest tone by level), or silence it (off, or a tone
    that is none: "off", "silence")."""
    target = device.values[m.SIREN_TONE]
    watch = device.values.get(m.SIREN_TONE_CURRENT) or target
    if action != "on":
        return one_write(device, action, False, target, 0, f"silence {device.name}", watch=watch)
    if target.command_class == CC.SOUND_SWITCH:  # 255: the device's default tone; it reports the one it plays
        sound = [Expectation(watch, None, "nonzero")]
        return ControlPlan(device, action, True, [Write(target, 255)], sound, f"sound {device.name}")
    loudest = siren_tones(device)[-1]
    summary = f"sound {device.name} ({loudest.spoken.lower()})"
    return one_write(device, action, True, target, loudest.value, summary, watch=watch)


def _set_tone(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    raw = first(args, "value", "mode", "level")
    names = ", ".join(t.spoken for t in siren_tones(device)) or "tones by number, from 1 to 254"
    said = str(raw).strip() if isinstance(raw, str | int) and not isinstance(raw, bool) else ""
    if said.casefold() in ("off", "0", "none", "silence"):
        return _on_off(device, action, args)
    tone = tone_named(device, said) if said else None
    if tone is None:
        if not said:
            raise InvalidValue(f"Say which tone {device.name} should sound: {names}.")
        raise InvalidValue(f"{device.name} has no tone '{echo(said)}'; it has: {names}.")
    target = device.values[m.SIREN_TONE]
    watch = device.values.get(m.SIREN_TONE_CURRENT)
    summary = f"sound {tone.spoken} on {device.name}"
    return one_write(device, action, tone.spoken, target, tone.value, summary, watch=watch)


def _set_volume(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    raw = first(args, "level", "value", "position")
    volume = device.values[m.SIREN_VOLUME]
    percent = said_percent(device, "volume", raw, volume)
    check_range(percent, volume, f"{device.name} volume", "%")
    return one_write(
        device, action, percent, volume, percent, f"set the volume of {device.name} to {percent} %"
    )


KIND = KindSpec(
    name="siren",
    actions=_actions,
    planners={"on": _on_off, "off": _on_off, "set_tone": _set_tone, "set_volume": _set_volume},
    summary=_summary,
    change_phrase=_change_phrase,
    nouns=_NOUNS,
    effect_words=_effect_words,
    spoken_value=_spoken_value,
    opening=_opening,
)
