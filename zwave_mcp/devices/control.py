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
from zwave_mcp.devices.errors import ActionNotSupported, InvalidValue, StillLoading
from zwave_mcp.devices.gate.change import Change, Effect, value_effect
from zwave_mcp.devices.gate.senders import WriteValues
from zwave_mcp.devices.kinds import KINDS
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.presets import siren_tones, tone_named
from zwave_mcp.devices.resolve import echo
from zwave_mcp.devices.writes import (
    ControlPlan,
    Expectation,
    Planner,
    Write,
    check_range,
    first,
    level_plan,
    one_write,
    said_percent,
    state_value,
    stop_plan,
)
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.policy.actions import ACTIONS, normalize_action
from zwave_mcp.policy.sensitive import describe_action
from zwave_mcp.zwave.classes import CC

# A valve is opened and closed; "turn on/off the water" says the same.
_VALVE_WORDS = {"on": "open", "off": "close"}


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
    if m.SIREN_TONE in v:
        can |= {"on", "off"}
    if m.COVER_TARGET in v:
        can |= {"open", "close"}
        if m.COVER_UP in v or m.COVER_DOWN in v:
            can.add("stop")
        if _is_positional(v[m.COVER_TARGET]):
            can.add("set_position")
    if m.TILT_TARGET in v:
        can.add("set_tilt")
    if m.VALVE_TARGET in v:
        can |= {"open", "close"}
    if m.SIREN_TONE in v and (siren_tones(device) or v[m.SIREN_TONE].command_class == CC.SOUND_SWITCH):
        can.add("set_tone")
    if m.SIREN_VOLUME in v:
        can.add("set_volume")
    if m.LOCK_TARGET in v:
        can |= {"lock", "unlock"}
    for kind in KINDS:
        can.update(kind.actions(device))
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
    if m.VALVE_TARGET in device.values and wanted in _VALVE_WORDS:
        wanted = _VALVE_WORDS[wanted]  # "turn off the water main": a valve is closed, not switched off
    if wanted not in actions:
        shown = echo(action) if isinstance(action, str) else str(action)
        if not device.understood:
            raise ActionNotSupported(
                f"{device.name} is not understood yet, so it cannot be controlled; "
                "the command zwave-mcp explain lists its values.",
                [],
            )
        if device.has(Capability.LOCK) and m.LOCK_TARGET not in device.values:
            raise ActionNotSupported(
                f"{device.name} says whether it is locked, but it publishes no lock command zwave-mcp could "
                "send (its Door Lock has no target mode).",
                actions,
            )
        if not actions:
            raise ActionNotSupported(f"{device.name} cannot be controlled; it only reports readings.", [])
        raise ActionNotSupported(f"{device.name} cannot {shown}; it can: {', '.join(actions)}.", actions)
    # the first kind that takes the action on this device plans it ("on" is a fan's, a dimmer's, a plug's)
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


# ---- sirens: on and off (switches, dimmers and fans are switched by kinds.switch) ----


def _on_off(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    return _siren_on_off(device, action, action == "on")


def _stop(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    return stop_plan(device, action, m.COVER_UP, m.COVER_DOWN)


# ---- covers ----


def _open_close(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    if m.VALVE_TARGET in device.values:
        return _valve(device, action)
    target = device.values[m.COVER_TARGET]
    top = int(target.max or 99) if _is_positional(target) else 255  # Barrier Operator: 255 open, 0 closed
    level = state_value(target, "open", top) if action == "open" else state_value(target, "closed", 0)
    watch = device.values.get(m.COVER_CURRENT) or target
    return one_write(device, action, None, target, level, f"{action} {device.name}", watch=watch)


def _set_position(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    raw = first(args, "position", "level", "value")
    return level_plan(device, action, raw, m.COVER_TARGET, m.COVER_CURRENT, "position", "% open")


def _lock(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    target = device.values[m.LOCK_TARGET]
    locking = action == "lock"
    watch = device.values.get(m.LOCK_CURRENT)
    if target.type == "boolean":  # the old Lock command class: locked true or false
        return one_write(device, action, None, target, locking, f"{action} {device.name}", watch=watch)
    mode = state_value(target, "secured", 255) if locking else state_value(target, "unsecured", 0)
    return one_write(device, action, None, target, mode, f"{action} {device.name}", watch=watch)


# ---- covers: slats ----


def _set_tilt(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    raw = first(args, "position", "level", "value")
    plan = level_plan(device, action, raw, m.TILT_TARGET, m.TILT_CURRENT, "tilt", "% tilt")
    return replace(plan, summary=f"tilt the slats of {device.name} to {plan.argument} %")


# ---- valves ----


def _valve(device: Device, action: str) -> ControlPlan:
    target = device.values[m.VALVE_TARGET]
    opening = action == "open"
    sent: Any = opening if target.type == "boolean" else (int(target.max or 99) if opening else 0)
    watch = device.values.get(m.VALVE_CURRENT)
    return one_write(device, action, None, target, sent, f"{action} {device.name}", watch=watch)


# ---- sirens ----


def _siren_on_off(device: Device, action: str, turn_on: bool) -> ControlPlan:
    """Sound the siren (its default tone, or its loudest tone by level) or silence it."""
    target = device.values[m.SIREN_TONE]
    watch = device.values.get(m.SIREN_TONE_CURRENT) or target
    if not turn_on:
        return one_write(device, action, False, target, 0, f"silence {device.name}", watch=watch)
    if target.command_class == CC.SOUND_SWITCH:
        # 255: the device's default tone; it reports the tone it plays
        return ControlPlan(
            device,
            action,
            True,
            [Write(target, 255)],
            [Expectation(watch, None, "nonzero")],
            f"sound {device.name}",
        )
    loudest = siren_tones(device)[-1]
    summary = f"sound {device.name} ({loudest.name.lower()})"
    return one_write(device, action, True, target, loudest.value, summary, watch=watch)


def _set_tone(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    raw = first(args, "value", "mode", "level")
    names = ", ".join(t.name for t in siren_tones(device)) or "tones by number, from 1 to 254"
    said = str(raw).strip() if isinstance(raw, str | int) and not isinstance(raw, bool) else ""
    if said.casefold() in ("off", "0", "none", "silence"):
        return _siren_on_off(device, action, False)
    tone = tone_named(device, said) if said else None
    if tone is None:
        if not said:
            raise InvalidValue(f"Say which tone {device.name} should sound: {names}.")
        raise InvalidValue(f"{device.name} has no tone '{echo(said)}'; it has: {names}.")
    target = device.values[m.SIREN_TONE]
    watch = device.values.get(m.SIREN_TONE_CURRENT)
    summary = f"sound {tone.name} on {device.name}"
    return one_write(device, action, tone.name, target, tone.value, summary, watch=watch)


def _set_volume(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    raw = first(args, "level", "value", "position")
    volume = device.values[m.SIREN_VOLUME]
    percent = said_percent(device, "volume", raw, volume)
    check_range(percent, volume, f"{device.name} volume", "%")
    return one_write(
        device, action, percent, volume, percent, f"set the volume of {device.name} to {percent} %"
    )


# ---- helpers ----


def _is_positional(target: ZValue) -> bool:
    return target.property == "targetValue" and target.type == "number"


_PLANNERS: dict[str, Planner] = {
    "on": _on_off,
    "off": _on_off,
    "open": _open_close,
    "close": _open_close,
    "stop": _stop,
    "set_position": _set_position,
    "lock": _lock,
    "unlock": _lock,
    "set_tilt": _set_tilt,
    "set_tone": _set_tone,
    "set_volume": _set_volume,
}
