"""Judging a change: what decides whether it may go, before anything is sent.

The policy on every effect (never on the action's name) and on every device a node-wide effect reaches,
what a yes must cover, the rate limits, and the effects left out because they would change nothing. The
question to the person is `dialogue.py`'s; the gate (`core.py`) runs these steps and keeps the record.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from zwave_mcp.answers import and_list
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.gate.change import Change, Effect, effect_text
from zwave_mcp.devices.gate.evidence import EffectOutcome, Report
from zwave_mcp.devices.model import Device
from zwave_mcp.gateway.state import Inventory
from zwave_mcp.gateway.waiters import holds
from zwave_mcp.policy import Policy
from zwave_mcp.policy.caller import current_caller
from zwave_mcp.policy.core import Decision
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.policy.reach import reach_of
from zwave_mcp.policy.terms import device_label


@dataclass(frozen=True, slots=True)
class Judgement:
    """The judgement of a whole change as planned now: `change`, the one to go on with, leaves out `idle`,
    its effects that would change nothing (when that is all of them, it is `unchanged` and `change` is as
    planned); then a refusal, or why it needs the person's yes (`why`) and which of its parts (`covered`)
    need it (`asks`)."""

    change: Change
    idle: list[EffectOutcome]
    unchanged: bool = False
    refusal: str | None = None
    why: str | None = None
    asks: frozenset[str] = frozenset()


class Judge:
    def __init__(self, policy: Policy, inventory: Inventory) -> None:
        self.policy = policy
        self.inventory = inventory
        # Every device of a node, hidden ones too (see `Gate.reach_with`); else built from the inventory.
        self.node_devices: Callable[[int], list[Device]] | None = None

    def judge(self, change: Change) -> Judgement:
        """Reach, leave out what would change nothing, judge, and check the limits (counting nothing)."""
        change.reach = self._reach(change)
        beyond = self._beyond_the_caller(change)  # first: a client is refused every change beyond its access,
        if beyond is not None:  # even one that would change nothing
            return Judgement(change, [], refusal=beyond)
        settled, idle = self._settle(change)
        if idle and not settled.effects:
            return Judgement(change, idle, unchanged=True)
        judgement = self._policy_on(settled, idle)
        if judgement.refusal is None:  # the limits before any token is spent: a limited call keeps its token
            limited = self.limited(settled, admit=False)
            if limited is not None:
                return replace(judgement, refusal=limited)
        return judgement

    def limited(self, change: Change, *, admit: bool) -> str | None:
        """Why the limits refuse the change, or None. `admit`: count it against them, whole or not at all
        (another call may have taken the last slot meanwhile): one command overall, one per device it
        changes; else count nothing."""
        keys = [d.key for d in change.devices] or ["*"]
        caller = current_caller()
        client = caller.client if caller.remote else None  # stdio is one client: the house limit is its own
        rates = self.policy.rates
        refused = rates.admit_many(keys, client=client) if admit else rates.check_many(keys, client=client)
        return None if refused is None else self._rate_sentence(change, *refused)

    def _rate_sentence(self, change: Change, key: str, rate: Any) -> str:
        device = next((d for d in change.devices if d.key == key), None)
        if rate.scope == "client":
            why = f"this client sent {rate.limit} commands in the last {rate.window_s:g} s (the limit per client)"
        elif rate.scope == "device" and device is not None:
            why = (
                f"{device.label} already had {rate.limit} commands in the last {rate.window_s:g} s "
                "(the limit per device)"
            )
        else:
            why = f"{rate.limit} commands were sent in the last {rate.window_s:g} s (the overall limit)"
        return f"Refused to {change.text}: {why}; try again in {rate.retry_after_s} s."

    def _settle(self, change: Change) -> tuple[Change, list[EffectOutcome]]:
        """Leave out the effects that would need the person's yes but change nothing: the device already
        reports their target (a lock already unlocked, a siren already silent). Nothing is asked or sent for
        them, and the answer says so. Only where the sender can leave one out (one write per effect); a
        scene is activated whole, so each of its effects is judged as it is."""
        if not getattr(change.sender, "per_effect", False):
            return change, []
        idle = [e for e in change.effects if _already(e) and self._decide(e).needs_confirmation]
        if not idle:
            return change, []
        rest = [e for e in change.effects if not any(e is i for i in idle)]
        settled = replace(change, effects=rest, reach=list(change.reach))
        return settled, [EffectOutcome(e, Outcome.UNCHANGED, _now(e)) for e in idle]

    def _decide(self, effect: Effect, device: Device | None = None, text: str | None = None) -> Decision:
        """The policy on `effect`, or on its words for `device`, another one it reaches (said as `text`)."""
        return self.policy.judge(
            device or effect.device,
            effect.words,
            effect.argument,
            unit=effect.unit,
            action_text=text or effect_text(effect),
        )

    def _reach(self, change: Change) -> list[Device]:
        """The devices a node-wide effect reaches besides those the change names: every other device of
        its node. (The network itself, the device of a network-wide change, is no device of a node.)"""
        named = {effect.device.key for effect in change.effects}
        reached: dict[str, Device] = {}
        for effect in change.effects:
            if not effect.node_wide:
                continue
            node = self._devices_of_node(effect.device.node_id)
            if effect.device.key not in {d.key for d in node}:
                continue
            for device in node:
                if device.key not in named:
                    reached.setdefault(device.key, device)
        return list(reached.values())

    def _devices_of_node(self, node_id: int) -> list[Device]:
        if self.node_devices is not None:
            return self.node_devices(node_id)
        node = self.inventory.node(node_id)
        return build_devices([node]) if node is not None else []

    def _policy_on(self, change: Change, idle: list[EffectOutcome]) -> Judgement:
        """The policy on every effect, none by name, and on every device a node-wide effect reaches."""
        read_only = self.policy.read_only_refusal(change.text)
        if read_only is not None:
            return Judgement(change, idle, refusal=read_only)
        asks: set[str] = set()
        alone = len({e.device.key for e in change.effects}) == 1 and not change.subject
        whys: dict[str, None] = {}  # each reason once, in order
        reasons: dict[str, list[str]] = {}  # what made the named devices' effects sensitive → those effects
        for effect in change.effects:
            text = effect_text(effect)
            decision = self._decide(effect)
            if decision.refused:
                # An effect that is the change itself (its words the same) is not said twice over.
                if alone or text == change.summary:
                    refusal = decision.message
                elif not self.policy.visible(effect.device):
                    hide = self.policy.config.hide.source
                    refusal = (
                        f"Refused to {change.summary}: it would change a device the policy hides ({hide})."
                    )
                else:
                    refusal = f"Refused to {change.summary}: it would {_but(decision.message)}"
                return Judgement(change, idle, refusal=refusal)
            if decision.needs_confirmation:
                asks.add(json.dumps(effect.binding(), default=str))
                reasons.setdefault(decision.why, []).append(text)
        for reason, texts in reasons.items():
            whys[reason if alone else _would(texts, reason, every=len(texts) == len(change.effects))] = None
        for device in change.reach:
            refused, asked = self._judge_reached(change, device, reasons)
            if refused is not None:
                return Judgement(change, idle, refusal=refused)
            if asked is not None:
                asks.add(f"reach:{device.key}")
                whys[asked] = None
        return Judgement(change, idle, why="; ".join(whys) if whys else None, asks=frozenset(asks))

    def _beyond_the_caller(self, change: Change) -> str | None:
        """Why the caller's sign-in does not cover the change (its effects, and the devices a node-wide
        one reaches), or None: judged on what each effect does, as the policy is."""
        caller = current_caller()
        if caller.may is None:
            return None
        reached = [(e.device, e.words) for e in change.effects]
        reached += [(d, e.words) for e in change.effects if e.node_wide for d in change.reach]
        for device, words in reached:
            reach = reach_of(device, words)
            if not caller.allows(reach):
                return caller.refusal(change.text, reach)
        return None

    def _judge_reached(
        self, change: Change, device: Device, reasons: Mapping[str, list[str]]
    ) -> tuple[str | None, str | None]:
        """A device the change reaches through its node, judged as if it were named: a hidden one refuses
        the change without being named (nor counted), a denied one refuses it by name, a sensitive or
        listed one asks. (refusal, why it asks)."""
        node = f"node {device.node_id}"
        text = f"change {device_label(device)}"
        for effect in change.effects:
            if not (effect.node_wide and effect.device.node_id == device.node_id):
                continue
            decision = self._decide(effect, device, text)
            if decision.refused:
                if self.policy.visible(device):
                    rest = f"so it would also {_but(decision.message)}"
                else:
                    rest = f"and the policy hides part of that node ({self.policy.config.hide.source})."
                return f"Refused to {change.summary}: it reaches every device of {node}, {rest}", None
            if decision.needs_confirmation and decision.why not in reasons:
                return None, f"it would also {text}, on the same {node}, and {decision.why}"
        return None, None


def _would(texts: list[str], reason: str, *, every: bool) -> str:
    """Why a change of several effects asks: the reason alone when every effect has it ("it can unlock a
    door", for three locks unlocked), else the effects it is for ("it would unlock Back Door Lock, which
    can unlock a door"), each reason once (it was said once an effect)."""
    if every:
        return reason
    if reason.startswith("it "):
        return f"it would {and_list(texts)}, which {reason.removeprefix('it ')}"
    return f"it would {and_list(texts)} and {reason}"


def covered(change: Change) -> frozenset[str]:
    """What a yes to this change covers: each effect (its binding) and each device it reaches."""
    parts = {json.dumps(e.binding(), default=str) for e in change.effects}
    return frozenset(parts | {f"reach:{d.key}" for d in change.reach})


def _but(refusal: str) -> str:
    """A device's own refusal as the rest of a sentence about the whole change."""
    return refusal.removeprefix("Refused to ").replace(": ", ", but ", 1)


def _already(effect: Effect) -> bool:
    """Whether the device already reports what the effect would set (nothing would change)."""
    expect = effect.expect
    if expect is None or expect.value.value is None:
        return False
    return holds(expect.is_met, expect.value.value)


def _now(effect: Effect) -> Report | None:
    """What the device reports now of the value the effect would set."""
    return None if effect.expect is None else Report(effect.expect.value.value, after_write=False)
