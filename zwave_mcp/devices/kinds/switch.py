"""The switch (a relay, a plug): its discovery rows, and how anything with a switch or a level is turned
on and off, toggled and said on or off.

A Binary Switch is on or off; a Multilevel Switch (a dimmer's, a fan's) is on at any level above 0 and is
switched on to its top level, or back to its last one where zwave-js offers "restore previous". The shapes
discovery matches them by are here too: the rows of every kind that drives such a switch match the same
ones. A plug's summary says the power it draws. Pure.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from zwave_mcp.devices import model as m
from zwave_mcp.devices.discovery import Schema, match
from zwave_mcp.devices.errors import StateUnknown
from zwave_mcp.devices.kinds.base import KindSpec, told_or_did
from zwave_mcp.devices.levels import is_number, nonzero, to_percent
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.readings import number, readings
from zwave_mcp.devices.writes import ControlPlan, Expectation, Match, Write, off_level, on_level
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.zwave.classes import CC, BasicProps, SwitchProps

# ---- discovery --------------------------------------------------------------------------------------

BINARY_TARGET = match(CC.BINARY_SWITCH, SwitchProps.TARGET, writeable=True)
BINARY_COMPANIONS = ((m.SWITCH_CURRENT, match(CC.BINARY_SWITCH, SwitchProps.CURRENT)),)
MULTILEVEL_TARGET = match(CC.MULTILEVEL_SWITCH, SwitchProps.TARGET, type="number", writeable=True)
# A Multilevel Switch's companions: its report, start/stop level change ("Up"/"Down" on dimmers and
# fans, "Open"/"Close" on covers), and zwave-js's "restore previous level".
MULTILEVEL_COMPANIONS = (
    (m.LEVEL_CURRENT, match(CC.MULTILEVEL_SWITCH, SwitchProps.CURRENT)),
    (m.LEVEL_UP, match(CC.MULTILEVEL_SWITCH, SwitchProps.UP)),
    (m.LEVEL_DOWN, match(CC.MULTILEVEL_SWITCH, SwitchProps.DOWN)),
    (m.LEVEL_RESTORE, match(CC.MULTILEVEL_SWITCH, SwitchProps.RESTORE, writeable=True)),
)
# A row that claims a Binary Switch's target: a switch's, unless it names another role and companions.
binary_row = partial(Schema, role=m.SWITCH_TARGET, primary=BINARY_TARGET, companions=BINARY_COMPANIONS)
# A row that claims a Multilevel Switch's target: a dimmer's or a fan's level, unless it names another
# role and companions.
multilevel_row = partial(
    Schema, role=m.LEVEL_TARGET, primary=MULTILEVEL_TARGET, companions=MULTILEVEL_COMPANIONS
)

# The generic row, after the dimmers (and the Binary Switch of a cover, which is its motor's).
SCHEMAS: tuple[Schema, ...] = (binary_row("switch: Binary Switch", Capability.SWITCH),)

# The last resort, among the fallback rows.
BASIC_SCHEMAS: tuple[Schema, ...] = (
    Schema(
        name="switch: Basic, on a node that offers nothing else (0 off, 255 on)",
        kind=Capability.SWITCH,
        role=m.SWITCH_TARGET,
        primary=match(CC.BASIC, BasicProps.TARGET, writeable=True),
        companions=((m.SWITCH_CURRENT, match(CC.BASIC, BasicProps.CURRENT)),),
        alone=True,
    ),
)

# ---- on or off in words -----------------------------------------------------------------------------

_NOUNS = {
    m.SWITCH_TARGET: "target state",
    m.SWITCH_CURRENT: "state",
    m.LEVEL_TARGET: "target level",
    m.LEVEL_CURRENT: "level",
    m.LEVEL_RESTORE: "last-level setting",
}


def is_on(device: Device) -> bool | None:
    """Switched on (any level above 0)? None when the device has not said."""
    current = device.values.get(m.LEVEL_CURRENT) or device.values.get(m.SWITCH_CURRENT)
    if current is None or not (isinstance(current.value, bool) or is_number(current.value)):
        return None  # nothing, or something that is no switch state ("1", an object): not "off"
    return nonzero(current.value)


def _summary(device: Device, spoken: bool) -> str | None:
    """ "on", "off, 0 W", "unknown": a plug's power beside its state in a list (a sentence says it apart)."""
    if not device.has(Capability.SWITCH):
        return None
    on = is_on(device)
    text = "unknown" if on is None else ("on" if on else "off")
    power = next((r for r in readings(device, 0) if r.quantity == "power" and r.unit == "W"), None)
    if not spoken and power is not None and is_number(power.value):
        text += f", {number(power.value)} W"
    return text


def _change_phrase(device: Device | None, value: ZValue, role: str | None, new: Any) -> str | None:
    told = role is not None and role.endswith(".target")
    if role == m.LEVEL_RESTORE:
        return "was told to go back to its last level"
    if role in (m.SWITCH_CURRENT, m.SWITCH_TARGET):
        state = "on" if nonzero(new) else "off"
        return told_or_did(told, f"turn {state}", f"turned {state}")
    if role in (m.LEVEL_CURRENT, m.LEVEL_TARGET) and is_number(new):
        percent = to_percent(new, value)
        if percent == 0:
            return told_or_did(told, "turn off", "turned off")
        return told_or_did(told, f"go to {percent} %", f"went to {percent} %")
    return None


# ---- actions ----------------------------------------------------------------------------------------


def _actions(device: Device) -> set[str]:
    v = device.values
    if m.SWITCH_TARGET not in v and m.LEVEL_TARGET not in v:
        return set()
    return {"on", "off", "toggle"} if m.SWITCH_CURRENT in v or m.LEVEL_CURRENT in v else {"on", "off"}


def _on_off(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    turn_on = not _is_on(device) if action == "toggle" else action == "on"
    verb = "turn on" if turn_on else "turn off"
    if m.LEVEL_TARGET in device.values:
        target, current = device.values[m.LEVEL_TARGET], device.values.get(m.LEVEL_CURRENT)
        restore = device.values.get(m.LEVEL_RESTORE)
        match: Match
        if turn_on and restore is not None:
            # zwave-js "restore previous": back to the last level, as a wall switch does.
            write, expected, match = Write(restore, True), None, "nonzero"
        else:
            level = on_level(target) if turn_on else off_level(target)
            write, expected, match = Write(target, level), level, "equals"
        expectation = Expectation(current or target, expected, match)
        return ControlPlan(device, action, turn_on, [write], [expectation], f"{verb} {device.name}")
    target, current = device.values[m.SWITCH_TARGET], device.values.get(m.SWITCH_CURRENT)
    if target.type == "boolean":
        sent: Any = turn_on
        expectation = Expectation(current or target, turn_on)
    else:  # Basic: a number, 0 = off, anything above = on
        sent = on_level(target) if turn_on else off_level(target)
        watch = current or target
        expectation = Expectation(watch, None, "nonzero") if turn_on else Expectation(watch, 0)
    return ControlPlan(device, action, turn_on, [Write(target, sent)], [expectation], f"{verb} {device.name}")


def _is_on(device: Device) -> bool:
    current = device.values.get(m.LEVEL_CURRENT) or device.values.get(m.SWITCH_CURRENT)
    if current is None or current.value is None:
        raise StateUnknown(
            f"{device.name} has not reported whether it is on, so it cannot be toggled; say on or off."
        )
    return nonzero(current.value)


def _spoken_value(device: Device, value: ZValue, role: str | None, raw: Any) -> str | None:
    """A switch's reported state in words: "on" or "off", whatever number says it (a Basic switch reports
    0-99 or 255, never said as the number)."""
    if role in (m.SWITCH_CURRENT, m.SWITCH_TARGET) and (isinstance(raw, bool) or is_number(raw)):
        return "on" if nonzero(raw) else "off"
    return None


KIND = KindSpec(
    name="switch",
    actions=_actions,
    planners={"on": _on_off, "off": _on_off, "toggle": _on_off},
    summary=_summary,
    change_phrase=_change_phrase,
    nouns=_NOUNS,
    spoken_value=_spoken_value,
)
