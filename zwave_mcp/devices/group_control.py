"""One action on a group of devices: the planner in front of the write gate, and the answer in one sentence.

`plan_group(group, action, params, policy)` plans the action for every device of the group that takes it
(each with its own checks, as `plan_control` does for one), and sets aside the ones it cannot act on:
devices that cannot do it (a sensor cannot be switched off), values they refuse, and devices the policy
does not let be changed (named in the answer). `group_change` is the gate's `Change`: every effect of every
plan, sent by `GroupWrites` (one radio frame for several nodes where they take the same write), judged, confirmed once
and proven per device by the gate. `group_sentence` says what came of it: "Turned off 4 of 5 kitchen and
living room lights; Porch Double Switch 2 did not report back."
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from zwave_mcp.answers import and_list, capital
from zwave_mcp.devices.control import (
    ControlPlan,
    available_actions,
    control_change,
    normalize_action,
    plan_control,
)
from zwave_mcp.devices.errors import ActionNotSupported, InvalidValue, StateUnknown
from zwave_mcp.devices.gate import Change, DeviceOutcome, Effect, GroupWrites, Multicasting
from zwave_mcp.devices.groups import Group
from zwave_mcp.devices.kinds import KINDS
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.resolve import echo
from zwave_mcp.devices.writes import VALUE_ARGUMENTS
from zwave_mcp.policy import Policy
from zwave_mcp.policy.outcome import Outcome

MAX_NAMED = 8  # device names listed in a summary or sentence before "and N more"

# Per action: the past tense for the answer, the phrase for what was asked ("turn off"), and what a device
# that cannot do it cannot do ("be switched off").
_DONE = {
    "on": ("Turned on", "turn on", "be switched on"),
    "off": ("Turned off", "turn off", "be switched off"),
    "toggle": ("Toggled", "toggle", "be toggled"),
    "dim": ("Set", "set", "be dimmed"),
    "set_level": ("Set", "set", "be dimmed"),
    "open": ("Opened", "open", "be opened"),
    "close": ("Closed", "close", "be closed"),
    "stop": ("Stopped", "stop", "be stopped"),
    "set_position": ("Set", "set", "be set to a position"),
    "lock": ("Locked", "lock", "be locked"),
    "unlock": ("Unlocked", "unlock", "be unlocked"),
    **{action: words for kind in KINDS for action, words in kind.group_words.items()},
}
CANNOT = {action: cannot for action, (_done, _verb, cannot) in _DONE.items()}
_LATE = {
    Outcome.UNCONFIRMED: "did not report back",
    Outcome.WORKING: "{is} still on the way",
    Outcome.QUEUED: "will do it when {they} next wake{s} up",
    Outcome.UNKNOWN: "may have done it (zwave-js-ui did not answer in time)",
    Outcome.FAILED: "failed ({reason})",
}


@dataclass(frozen=True, slots=True)
class Skipped:
    device: Device
    why: str  # "cannot turn off", "the policy does not let it be changed", a refused value's reason
    named: bool  # said in the answer (the policy refused it) or only listed in the result


@dataclass(slots=True)
class GroupPlan:
    group: Group
    action: str
    plans: list[ControlPlan]
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def argument(self) -> Any:
        return self.plans[0].argument if self.plans else None

    @property
    def devices(self) -> list[Device]:
        return [p.device for p in self.plans]

    def target_words(self) -> str:
        """ " to 30 %", " to 21.5 °C", " to heat mode", "" — from the first plan's summary."""
        if not self.plans or _DONE[self.action][1] != "set":
            return ""
        summary = self.plans[0].summary
        name = self.plans[0].device.name
        rest = summary.split(name, 1)[1] if name in summary else ""
        return rest if rest.startswith((" to ", *(t for kind in KINDS for t in kind.group_targets))) else ""

    @property
    def summary(self) -> str:
        """What the change is, naming its devices: "turn off the kitchen lights (Kitchen Light, …)"."""
        verb = _DONE[self.action][1]
        return (
            f"{verb} the {self.group.label}{self.target_words()} ({_names([d.name for d in self.devices])})"
        )


def plan_group(group: Group, action: str, params: Mapping[str, Any], policy: Policy) -> GroupPlan:
    """Plan `action` for every device of `group` that takes it; set the rest aside with the reason."""
    wanted = normalize_action(action) if isinstance(action, str) else ""
    if wanted not in _DONE:
        raise ActionNotSupported(
            f"No action '{echo(str(action))}'; the actions are: {', '.join(_DONE)}.", list(_DONE)
        )
    plans: list[ControlPlan] = []
    skipped: list[Skipped] = []
    check_lists = policy.read_only_refusal("change") is None  # read-only: the gate refuses the whole change
    for device in group.devices:
        if device.node.loading:
            skipped.append(Skipped(device, "it is still loading", named=True))
            continue
        if wanted not in available_actions(device):
            skipped.append(Skipped(device, f"cannot {CANNOT[wanted]}", named=False))
            continue
        try:
            plan = plan_control(device, wanted, **{k: params.get(k) for k in VALUE_ARGUMENTS})
        except (ActionNotSupported, InvalidValue, StateUnknown) as exc:
            skipped.append(Skipped(device, exc.message, named=True))
            continue
        refusal = _policy_refusal(plan, policy) if check_lists else None
        if refusal is not None:
            skipped.append(Skipped(device, refusal, named=True))
            continue
        plans.append(plan)
    return GroupPlan(group, wanted, plans, skipped)


def _policy_refusal(plan: ControlPlan, policy: Policy) -> str | None:
    for effect in control_change(plan).effects:
        decision = policy.judge(
            effect.device, effect.words, effect.argument, unit=effect.unit, action_text=plan.summary
        )
        if decision.refused:
            return "the policy does not let it be changed"
    return None


def group_change(
    plan: GroupPlan, tool: str = "control_zwave_group", *, multicast: Multicasting | None = None
) -> Change:
    effects: list[Effect] = [e for p in plan.plans for e in control_change(p, tool).effects]
    return Change(
        tool,
        plan.action,
        plan.summary,
        effects,
        GroupWrites(multicast=multicast or Multicasting()),
        subject=f"group '{plan.group.label}'",
        argument=plan.argument,
    )


def group_sentence(plan: GroupPlan, devices: list[DeviceOutcome]) -> str:
    """ "Turned off 4 of 5 kitchen and living room lights; Porch Double Switch 2 did not report back." """
    # Nothing sent, or sent to one that already reported it and still does: "was already off".
    order = {p.device.key: i for i, p in enumerate(plan.plans)}  # said in the group's order
    idle = sorted((d for d in devices if _as_before(d)), key=lambda d: order.get(d.device.key, len(order)))
    devices = [d for d in devices if not _as_before(d)]
    if not devices:
        return capital(_already(idle).removeprefix("; ")) + _left_alone(plan)
    done, verb, _cannot = _DONE[plan.action]
    label, total = plan.group.label, len(plan.plans) - len(idle)
    confirmed = [d for d in devices if d.outcome is Outcome.CONFIRMED]
    if total == 1 and confirmed:
        head = f"{done} {confirmed[0].device.name}{plan.target_words()}"
    elif len(confirmed) == total:
        head = f"{done} {'both' if total == 2 else f'all {total}'} {label}{plan.target_words()}"
    elif confirmed:
        head = f"{done} {len(confirmed)} of {total} {label}{plan.target_words()}"
    elif total == 1:
        only, late = devices[0], _late(devices[0].outcome, devices[:1])
        return (
            f"Sent the command to {verb} {only.device.name}{plan.target_words()}, but it {late}"
            + _already(idle)
            + _left_alone(plan)
        )
    else:
        head = f"Sent the command to {verb} the {label}{plan.target_words()}, but none confirmed it"
    parts = [head]
    for outcome in _LATE:
        found = [d for d in devices if d.outcome is outcome]
        if found:
            parts.append(f"{_names([d.device.name for d in found])} {_late(outcome, found)}")
    return "; ".join(parts) + _already(idle) + _left_alone(plan)


def _as_before(d: DeviceOutcome) -> bool:
    return d.outcome is Outcome.UNCHANGED or d.already


def _late(outcome: Outcome, found: list[DeviceOutcome]) -> str:
    """What became of these devices, in words agreeing with how many they are ("did not report back")."""
    one = len(found) == 1
    said = {"is": "is" if one else "are", "they": "it" if one else "they", "s": "s" if one else ""}
    return _LATE[outcome].format(**said, reason=found[0].reason)


def _already(idle: list[DeviceOutcome]) -> str:
    """ "; Front Door Lock was already unlocked" for the devices nothing was sent to (or "")."""
    by_state: dict[str, list[str]] = {}
    for d in idle:
        by_state.setdefault(d.reported_text or "as asked", []).append(d.device.name)
    return "".join(
        f"; {_names(names)} {'was' if len(names) == 1 else 'were'} already {state}"
        for state, names in by_state.items()
    )


def _left_alone(plan: GroupPlan) -> str:
    """ "; Coffee Maker Plug was left alone: the policy does not let it be changed." (or ".")"""
    named = [s for s in plan.skipped if s.named]
    parts = [""]
    for why in dict.fromkeys(s.why for s in named):
        who = [s.device.name for s in named if s.why == why]
        parts.append(f"{_names(who)} {'was' if len(who) == 1 else 'were'} left alone: {why.rstrip('.')}")
    return "; ".join(parts) + "."


def _names(names: list[str]) -> str:
    return and_list(names, most=MAX_NAMED)
