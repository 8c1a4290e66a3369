"""The light: a dimmer and a colour bulb. Its discovery rows, its level and colour in words (colour names
and hex codes, both ways), its actions (dim, set_level, stop, set_color) and how each is planned, and
what a write to its colour amounts to.

It is switched on and off as any Multilevel Switch is (`kinds.switch`). A colour light with no brightness
of its own (a multisensor's LED) is said by its colour. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from zwave_mcp.devices import model as m
from zwave_mcp.devices.discovery import Schema, match, product
from zwave_mcp.devices.errors import InvalidValue
from zwave_mcp.devices.kinds.base import KindSpec
from zwave_mcp.devices.kinds.switch import multilevel_row
from zwave_mcp.devices.levels import is_number, level_percent
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.resolve import echo
from zwave_mcp.devices.writes import ControlPlan, Expectation, Write, first, level_plan, stop_plan
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.zwave.classes import CC, ColorProps

# ---- discovery --------------------------------------------------------------------------------------

# The dimmer, in the table after a thermostat's valve (which would otherwise be taken for one).
SCHEMAS: tuple[Schema, ...] = (multilevel_row("dimmer: Multilevel Switch", Capability.DIMMER),)

# The colour, after the switches.
COLOR_SCHEMAS: tuple[Schema, ...] = (
    Schema(
        name="color: Color Switch",
        kind=Capability.COLOR,
        role=m.COLOR_TARGET,
        primary=match(CC.COLOR_SWITCH, ColorProps.TARGET, key=(None,), writeable=True),
        companions=(
            (m.COLOR_HEX, match(CC.COLOR_SWITCH, ColorProps.HEX)),
            (m.COLOR_CURRENT, match(CC.COLOR_SWITCH, ColorProps.CURRENT)),
        ),
    ),
    Schema(
        name="color: Color Switch by hex colour only",
        kind=Capability.COLOR,
        role=m.COLOR_HEX,
        primary=match(CC.COLOR_SWITCH, ColorProps.HEX, writeable=True),
        companions=((m.COLOR_CURRENT, match(CC.COLOR_SWITCH, ColorProps.CURRENT)),),
    ),
)

# Plugs known by model: their colour night light (Color Switch, its brightness a Multilevel Switch, on the
# relay's own endpoint) is a light of its own beside the plug, "<plug> night light", as Aeotec's manuals and
# zwave-js's device files call it. Among the model rows.
NIGHT_LIGHT = "night light"
_NIGHT_LIGHT_PLUGS = (
    ("Aeotec Smart Switch 6 (ZW096)", product(0x0086, {0x0003, 0x0103, 0x0203}, {0x0060})),
    ("Aeotec Smart Switch 7 (ZW175)", product(0x0371, {0x0003, 0x0103, 0x0203}, {0x00AF})),
)
MODEL_SCHEMAS: tuple[Schema, ...] = tuple(
    replace(row, name=f"{row.name}: the night light of the {model} plug", products=(plug,), part=NIGHT_LIGHT)
    for model, plug in _NIGHT_LIGHT_PLUGS
    for row in (*SCHEMAS, *COLOR_SCHEMAS)
)

# ---- colours in words -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Color:
    """A wanted colour: RGB, or a white channel (with RGB to fall back on for bulbs without one)."""

    red: int
    green: int
    blue: int
    label: str  # "red (#ff0000)", "#ff5000", "warm white"
    key: str  # what the request is bound to: "#ff5000" or "warm white"
    whites: tuple[str, ...] = ()  # white channels to use, in order of preference

    @property
    def hex(self) -> str:
        """zwave-js's `hexColor` form: six lower-case digits, no "#"."""
        return f"{self.red:02x}{self.green:02x}{self.blue:02x}"


NAMED: dict[str, str] = {
    "red": "ff0000", "green": "00ff00", "blue": "0000ff", "yellow": "ffff00", "orange": "ff8000",
    "amber": "ffbf00", "gold": "ffd700", "purple": "800080", "violet": "ee82ee", "indigo": "4b0082",
    "pink": "ff69b4", "magenta": "ff00ff", "cyan": "00ffff", "turquoise": "40e0d0", "teal": "008080",
}  # fmt: skip
# White names → the white channels to use, and RGB for bulbs without one.
WHITES: dict[str, tuple[tuple[str, ...], str]] = {
    "white": (("coldWhite", "warmWhite"), "ffffff"),
    "warm white": (("warmWhite",), "ffb46b"),
    "cold white": (("coldWhite",), "ffffff"),
    "cool white": (("coldWhite",), "ffffff"),
    "daylight": (("coldWhite",), "ffffff"),
}

_HEX = re.compile(r"#?([0-9a-f]{6}|[0-9a-f]{3})")


def parse_color(raw: object) -> Color | None:
    """A name ("red", "Warm White") or hex ("#ff5000", "ff5000", "#f50"); None when it is neither."""
    if not isinstance(raw, str) or len(raw) > 40:
        return None
    said = " ".join(re.sub(r"[_\-]+", " ", raw.strip().casefold()).split())
    if said in WHITES:
        whites, fallback = WHITES[said]
        r, g, b = _rgb(fallback)
        return Color(r, g, b, said, said, whites)
    if said in NAMED:
        r, g, b = _rgb(NAMED[said])
        return Color(r, g, b, f"{said} (#{NAMED[said]})", f"#{NAMED[said]}")
    if match := _HEX.fullmatch(said):
        digits = match.group(1)
        if len(digits) == 3:
            digits = "".join(d * 2 for d in digits)
        r, g, b = _rgb(digits)
        return Color(r, g, b, f"#{digits}", f"#{digits}")
    return None


def _rgb(hex6: str) -> tuple[int, int, int]:
    return int(hex6[0:2], 16), int(hex6[2:4], 16), int(hex6[4:6], 16)


def color_name(current: object, hex_value: object = None) -> str | None:
    """What a bulb reports, in words: "warm white", "red", or "#ff5000"; None when it reported nothing."""
    if isinstance(current, dict):
        channels = {k: v for k, v in current.items() if is_number(v)}
        rgb = [int(channels.get(c, 0)) for c in ("red", "green", "blue")]
        whites = {"warmWhite": "warm white", "coldWhite": "cold white"}
        lit = [name for key, name in whites.items() if channels.get(key, 0) > 0]
        if lit and not any(rgb):
            return "white" if len(lit) == 2 else lit[0]
        if any(rgb):
            hex_value = "".join(f"{max(0, min(255, c)):02x}" for c in rgb)
    if (
        isinstance(hex_value, str)
        and _HEX.fullmatch(hex_value.casefold())
        and len(hex_value.lstrip("#")) == 6
    ):
        code = hex_value.lstrip("#").casefold()
        if code == "000000":
            return None
        return next((name for name, known in NAMED.items() if known == code), f"#{code}")
    return None


# Color Switch colour component ids (zwave-js `ColorComponent`: 0, 1, 2, … in this order) → names in
# `targetColor` objects.
_COMPONENTS = dict(enumerate(("warmWhite", "coldWhite", "red", "green", "blue", "amber", "cyan", "purple")))


def color_components(vals: Iterable[ZValue]) -> list[str]:
    """Colour component names a device has (from `targetColor-<n>` values), e.g. ["warmWhite", "red", …]."""
    keys = sorted(
        v.property_key
        for v in vals
        if v.command_class == CC.COLOR_SWITCH
        and v.property == "targetColor"
        and isinstance(v.property_key, int)
    )
    return [_COMPONENTS[k] for k in keys if k in _COMPONENTS]


# ---- its state in words -----------------------------------------------------------------------------

_NOUNS = {m.COLOR_TARGET: "target colour", m.COLOR_CURRENT: "colour", m.COLOR_HEX: "colour"}


def _current_color(device: Device) -> str | None:
    """The colour a bulb reports: "warm white", "red", "#ff5000"; None if it has not said."""
    current, hex_value = device.values.get(m.COLOR_CURRENT), device.values.get(m.COLOR_HEX)
    return color_name(current and current.value, hex_value and hex_value.value)


def _summary(device: Device, spoken: bool) -> str | None:
    """ "30 %, warm white" ("on at 30 %, warm white" as a sentence says it), "off", "lit red"."""
    v = device.values
    if device.has(Capability.DIMMER):
        level = level_percent(v.get(m.LEVEL_CURRENT))
        text = "unknown" if level is None else ("off" if level == 0 else f"{level} %")
        colour = _current_color(device)
        if colour is not None and level:
            text += f", {colour}"
        elif colour is not None and level == 0 and spoken and device.has(Capability.COLOR):
            text += f", set to {colour}"  # the colour it will show when turned on (the short state: "off")
    elif device.kind == Capability.COLOR:
        # A colour light with no brightness of its own (a multisensor's LED): its colour is its state.
        colour = _current_color(device)
        reported = any(getattr(v.get(r), "value", None) is not None for r in (m.COLOR_CURRENT, m.COLOR_HEX))
        text = f"lit {colour}" if colour else ("off" if reported else "unknown")
    else:
        return None
    if spoken and device.kind in (Capability.DIMMER, Capability.COLOR) and text[:1].isdigit():
        return f"on at {text}"
    return text


def _change_phrase(device: Device | None, value: ZValue, role: str | None, new: Any) -> str | None:
    if role in (m.COLOR_CURRENT, m.COLOR_HEX, m.COLOR_TARGET):
        colour = color_name(new, new)
        if role == m.COLOR_TARGET:
            return f"was told to change colour to {colour}" if colour else "was told to change colour"
        return f"reported its colour as {colour}" if colour else "reported no colour (all channels off)"
    return None


def _spoken_value(device: Device, value: ZValue, role: str | None, raw: Any) -> str | None:
    if value.command_class != CC.COLOR_SWITCH or isinstance(raw, bool):
        return None
    named = color_name(raw, raw)
    return f"the colour {named}" if named else "the new colour"


def _done_sentence(device: Device, written: list[ZValue], reported: str, summary: str) -> str | None:
    if any(v.command_class == CC.COLOR_SWITCH for v in written):
        return f"Done: {device.name} reported {reported or 'the new colour'}."
    return None


def _after_change_note(device: Device, action: str, confirmed: bool) -> str | None:
    if action != "set_color" or not confirmed or not device.has(Capability.DIMMER):
        return None
    off = level_percent(device.values.get(m.LEVEL_CURRENT)) == 0
    return f"{device.name} is off, so the new colour shows when it is turned on." if off else None


# ---- actions ----------------------------------------------------------------------------------------


def _actions(device: Device) -> set[str]:
    can = {"set_color"} if device.has(Capability.COLOR) else set()
    if device.has(Capability.DIMMER):
        can |= {"dim", "set_level"}
        if m.LEVEL_UP in device.values or m.LEVEL_DOWN in device.values:
            can.add("stop")
    return can


def _set_level(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    raw = first(args, "level", "value", "position")
    return level_plan(device, action, raw, m.LEVEL_TARGET, m.LEVEL_CURRENT, "level", "%")


def _set_color(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    raw = first(args, "color", "value")
    wanted = parse_color(raw)
    if wanted is None:
        shown = "nothing" if raw is None or raw == "" else f"'{echo(str(raw))}'"
        raise InvalidValue(
            f"{device.name} cannot be set to {shown}; give a colour name like red or warm white, "
            "or a hex code like #ff5000."
        )
    target = device.values.get(m.COLOR_TARGET)
    hex_value = device.values.get(m.COLOR_HEX)
    shown = wanted.label
    if target is not None:
        endpoint_values = [v for v in device.node.values.values() if v.endpoint == target.endpoint]
        components = _components(wanted, color_components(endpoint_values))
        current = device.values.get(m.COLOR_CURRENT)
        if current is not None:
            expectation = Expectation(current, components, "contains")
        elif hex_value is not None:
            expectation = Expectation(hex_value, wanted.hex)
        else:
            expectation = Expectation(target, components, "contains")
        writes = [Write(target, components)]
    else:
        assert hex_value is not None  # COLOR needs targetColor or hexColor (capabilities._color_switch)
        writes = [Write(hex_value, wanted.hex)]
        expectation = Expectation(hex_value, wanted.hex)
    return ControlPlan(device, action, wanted.key, writes, [expectation], f"set {device.name} to {shown}")


def _components(wanted: Color, available: list[str]) -> dict[str, int]:
    """The targetColor object: every channel the bulb has, so a white channel left on does not tint a colour."""
    channels = available or ["red", "green", "blue"]
    white = next((w for w in wanted.whites if w in channels), None)
    if white is not None:
        return {c: 255 if c == white else 0 for c in channels}
    rgb = {"red": wanted.red, "green": wanted.green, "blue": wanted.blue}
    return {c: rgb.get(c, 0) for c in channels}


KIND = KindSpec(
    name="light",
    actions=_actions,
    planners={
        "dim": _set_level,
        "set_level": _set_level,
        "stop": lambda device, action, args: stop_plan(device, action, m.LEVEL_UP, m.LEVEL_DOWN),
        "set_color": _set_color,
    },
    summary=_summary,
    change_phrase=_change_phrase,
    nouns=_NOUNS,
    moves={m.LEVEL_UP: "brightening", m.LEVEL_DOWN: "dimming"},
    effect_words=lambda device, value, role, target: (
        (frozenset({"set_color"}), target) if value.command_class == CC.COLOR_SWITCH else None
    ),
    spoken_value=_spoken_value,
    done_sentence=_done_sentence,
    after_change_note=_after_change_note,
    group_words={"set_color": ("Set", "set", "change colour")},
)
