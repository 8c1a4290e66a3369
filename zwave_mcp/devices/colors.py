"""Colour names and hex codes → what a Color Switch bulb is asked for."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from zwave_mcp.devices.levels import is_number
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.zwave.classes import CC


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
    "red": "ff0000",
    "green": "00ff00",
    "blue": "0000ff",
    "yellow": "ffff00",
    "orange": "ff8000",
    "amber": "ffbf00",
    "gold": "ffd700",
    "purple": "800080",
    "violet": "ee82ee",
    "indigo": "4b0082",
    "pink": "ff69b4",
    "magenta": "ff00ff",
    "cyan": "00ffff",
    "turquoise": "40e0d0",
    "teal": "008080",
}
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
