"""Intent → plan: which values to write, what the device must report back, and a summary.

`plan_control(device, "dim", level=30)` checks the action against the device's capabilities and the
argument against the value's metadata (zwave-js checks only types, not ranges), and returns a
`ControlPlan`. Nothing is sent here: the devices service writes `plan.writes` through the gateway and
waits for `plan.expectations` (the device's own report, never the optimistic echo of the write alone).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from zwave_mcp.devices import model as m
from zwave_mcp.devices.boundary import guarded
from zwave_mcp.devices.colors import Color, color_components, parse_color
from zwave_mcp.devices.errors import ActionNotSupported, InvalidValue, StateUnknown, StillLoading
from zwave_mcp.devices.gate.change import Change, Effect, value_effect
from zwave_mcp.devices.gate.senders import WriteValues
from zwave_mcp.devices.kinds import KINDS, first_answer
from zwave_mcp.devices.levels import is_number, to_level
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.presets import fan_speed_named, model_speed_at, speed_choices
from zwave_mcp.devices.resolve import echo
from zwave_mcp.devices.writes import (
    ControlPlan,
    Expectation,
    Match,
    Planner,
    Write,
    first,
    level_plan,
    off_level,
    on_level,
    one_write,
    said_percent,
)
from zwave_mcp.policy.actions import ACTIONS, normalize_action
from zwave_mcp.policy.sensitive import describe_action


def control_change(plan: ControlPlan, tool: str = "control_zwave_device") -> Change:
    """The plan as the gate's `Change`: each write an effect, judged by what it does, proven by its
    expectation (writes and expectations pair up in order; a write without one, like stop, has none)."""
    effects: list[Effect] = []
    unit = plan.writes[0].value.unit if plan.writes else None
    text = describe_action(plan.device, plan.action, plan.argument, unit)
    for i, write in enumerate(plan.writes):
        expect = plan.expectations[i] if i < len(plan.expectations) else None
        effect = value_effect(plan.device, write.value, write.target, expect=expect, options=write.options)
        effects.append(replace(effect, text=text))
    return Change(tool, plan.action, plan.summary, effects, WriteValues(), argument=plan.argument)


@guarded("working out what it can do", lambda device: [])
def available_actions(device: Device) -> list[str]:
    """The actions this device takes, in `ACTIONS` order."""
    v = device.values
    can: set[str] = set()
    if m.SWITCH_TARGET in v or m.LEVEL_TARGET in v:
        can |= {"on", "off"}
        if m.SWITCH_CURRENT in v or m.LEVEL_CURRENT in v:
            can.add("toggle")
    if device.has(Capability.DIMMER):
        can |= {"dim", "set_level"}
        if m.LEVEL_UP in v or m.LEVEL_DOWN in v:
            can.add("stop")
    if device.has(Capability.FAN) and m.LEVEL_TARGET in v:
        can |= {"set_speed", "set_level"}
    for kind in KINDS:
        can.update(kind.actions(device))
    if device.has(Capability.COLOR):
        can.add("set_color")
    return [a for a in ACTIONS if a in can]


def plan_control(
    device: Device,
    action: str,
    *,
    level: Any = None,
    value: Any = None,
    setpoint: Any = None,
    mode: Any = None,
    color: Any = None,
    position: Any = None,
) -> ControlPlan:
    """The writes and expectations for `action` on `device`; raises the domain errors on bad input."""
    if device.node.loading:  # no values yet: what it can do is not known, not "nothing"
        raise StillLoading(device.name)
    wanted = normalize_action(action) if isinstance(action, str) else ""
    actions = available_actions(device)
    # "turn off the water main": a valve is closed, not switched off
    said = (k.synonyms[wanted] for k in KINDS if k.synonyms.get(wanted, "") in k.actions(device))
    wanted = next(said, wanted)
    if wanted not in actions:
        shown = echo(action) if isinstance(action, str) else str(action)
        if not device.understood:
            raise ActionNotSupported(
                f"{device.name} is not understood yet, so it cannot be controlled; "
                "the command zwave-mcp explain lists its values.",
                [],
            )
        if (why := first_answer(lambda kind: kind.no_control(device))) is not None:
            raise ActionNotSupported(why, actions)
        if not actions:
            raise ActionNotSupported(f"{device.name} cannot be controlled; it only reports readings.", [])
        raise ActionNotSupported(f"{device.name} cannot {shown}; it can: {', '.join(actions)}.", actions)
    # the first kind of the device that takes the action plans it ("open": a cover's or a valve's)
    by_kind = (k.planners[wanted] for k in KINDS if wanted in k.planners and wanted in k.actions(device))
    planner = next(by_kind, None) or _PLANNERS[wanted]
    args = {
        "level": level,
        "value": value,
        "setpoint": setpoint,
        "mode": mode,
        "color": color,
        "position": position,
    }
    return planner(device, wanted, args)


# ---- switches and dimmers ----


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


def _set_level(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    if device.has(Capability.FAN):
        return _set_speed(device, action, args)
    raw = first(args, "level", "value", "position")
    return level_plan(device, action, raw, m.LEVEL_TARGET, m.LEVEL_CURRENT, "level", "%")


def _stop(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    value = device.values.get(m.LEVEL_UP) or device.values[m.LEVEL_DOWN]
    # Writing false to a start/stop-level-change value stops the movement; the device reports no "stopped".
    return ControlPlan(device, action, None, [Write(value, False)], [], f"stop {device.name}")


# ---- colour ----


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


# ---- fans ----


def _set_speed(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    """A speed by name ("medium", "speed 2": the fan's own presets) or a percentage of its range."""
    raw = first(args, "level", "value", "mode", "position")
    target, current = device.values[m.LEVEL_TARGET], device.values.get(m.LEVEL_CURRENT)
    allowed = f"{device.name} has speeds {speed_choices(device)}, or a percentage from 1 to 100"
    if isinstance(raw, str) and raw.strip().casefold() == "off":
        raw = 0
    speed = fan_speed_named(device, raw) if isinstance(raw, str) else None
    argument: Any
    if speed is not None:
        level, shown, argument = speed.high, speed.name, speed.name
    else:
        if raw is None or raw == "":
            raise InvalidValue(f"Say how fast: {allowed}.")
        try:
            percent = said_percent(device, "speed", raw, current)
        except InvalidValue:
            raise InvalidValue(f"{allowed}; '{echo(str(raw))}' is neither.") from None
        level = to_level(percent, target)
        named = model_speed_at(device, level)
        if named is not None:
            level = named.high  # a fan of known speeds runs at its speeds only: the one this percent is in
        shown, argument = (f"{percent} %" if named is None else f"{named.name} ({percent} %)"), percent
    summary = f"set {device.name} to {shown}" if level else f"turn off {device.name}"
    return one_write(device, action, argument, target, level, summary, watch=current)


# ---- helpers ----


def _is_on(device: Device) -> bool:
    current = device.values.get(m.LEVEL_CURRENT) or device.values.get(m.SWITCH_CURRENT)
    if current is None or current.value is None:
        raise StateUnknown(
            f"{device.name} has not reported whether it is on, so it cannot be toggled; say on or off."
        )
    return current.value is True or (is_number(current.value) and current.value > 0)


_PLANNERS: dict[str, Planner] = {
    "on": _on_off,
    "off": _on_off,
    "toggle": _on_off,
    "dim": _set_level,
    "set_level": _set_level,
    "stop": _stop,
    "set_color": _set_color,
    "set_speed": _set_speed,
}
