"""Intent → plan: which values to write, what the device must report back, and a summary.

`plan_control(device, "dim", level=30)` checks the action against the device's capabilities and the
argument against the value's metadata (zwave-js checks only types, not ranges), and returns a
`ControlPlan`. Nothing is sent here: the devices service writes `plan.writes` through the gateway and
waits for `plan.expectations` (the device's own report, never the optimistic echo of the write alone).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from zwave_mcp.devices.boundary import guarded
from zwave_mcp.devices.errors import ActionNotSupported, StillLoading
from zwave_mcp.devices.gate.change import Change, Effect, value_effect
from zwave_mcp.devices.gate.senders import WriteValues
from zwave_mcp.devices.kinds import KINDS, first_answer
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.resolve import echo
from zwave_mcp.devices.writes import ControlPlan
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
    can = {action for kind in KINDS for action in kind.actions(device)}
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
    # the first kind that takes the action on this device plans it ("open": a cover's or a valve's; "on": a
    # fan's, a siren's, a dimmer's or a plug's)
    planner = next(k.planners[wanted] for k in KINDS if wanted in k.planners and wanted in k.actions(device))
    args = {
        "level": level,
        "value": value,
        "setpoint": setpoint,
        "mode": mode,
        "color": color,
        "position": position,
    }
    return planner(device, wanted, args)
