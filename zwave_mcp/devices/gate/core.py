"""`Gate`: the one write gate. See the package docstring for the steps and the interface."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextvars import ContextVar, Token
from dataclasses import dataclass, field, replace
from typing import Any

from zwave_mcp.answers import plural
from zwave_mcp.config import Settings
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.gate import dialogue
from zwave_mcp.devices.gate.change import Asker, Change, Delivery, Effect, effect_text
from zwave_mcp.devices.gate.evidence import DeviceOutcome, EffectOutcome, Report, per_device, sentence, worst
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.serial import DeviceLocks
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.gateway.waiters import Watch, holds
from zwave_mcp.policy import AuditEvent, Policy
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.policy.terms import device_label

log = logging.getLogger(__name__)

# After a multicast, how long to wait for each device's own report before asking it (a dimmer reports at
# the end of its ramp, about a second; a switch within a few hundred milliseconds).
MULTICAST_REPORT_WAIT_S = 2.0


@dataclass(slots=True)
class GateResult:
    """The final record of one attempt: what every listener, the audit line and the tool result share."""

    change: Change
    outcome: Outcome
    sentence: str
    devices: list[DeviceOutcome] = field(default_factory=list)
    reason: str | None = None
    confirmed_by: str | None = None
    token: str | None = None
    token_ttl_s: float | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    at_ms: int = 0


Listener = Callable[[GateResult], None]
# Builds a change from the devices' state as it is now (see `Gate.run`); may read the devices first (async).
Planner = Callable[[], Change | Awaitable[Change]]

# A change planned from the devices' state is planned again after the person's answer; when the state moved
# meanwhile so that the yes no longer covers it, the person is asked about it as it is now, at most this
# many times in one call.
MAX_ROUNDS = 3


@dataclass(frozen=True, slots=True)
class _Judged:
    """The policy on a whole change: a refusal, or why it needs the person's yes and which of its parts
    (`Gate._parts`) need it."""

    refusal: str | None = None
    why: str | None = None
    asks: frozenset[str] = frozenset()


# The records the gate made during the current tool call (see `Gate.begin`/`Gate.end`).
_CALL_RECORDS: ContextVar[list[GateResult] | None] = ContextVar("gate_call_records", default=None)


@dataclass(slots=True)
class _Attempt:
    records: list[GateResult]
    token: Token[list[GateResult] | None]


class Gate:
    """Every change passes here: policy on the effect → one confirmation → rate limits → dry run or send →
    evidence → exactly one audit line and one record to the listeners."""

    def __init__(self, gateway: ZwaveGateway, policy: Policy, settings: Settings) -> None:
        self.gateway = gateway
        self.policy = policy
        self.settings = settings
        self._listeners: list[Listener] = []
        self._node_devices: Callable[[int], list[Device]] | None = None
        self.locks = DeviceLocks()  # one change at a time per device (see `run` and serial.py)

    def reach_with(self, devices_of_node: Callable[[int], list[Device]]) -> None:
        """Where the gate finds every device of a node, hidden ones too (the devices service, whose devices
        carry their aliases); without it, the gate builds them from the inventory."""
        self._node_devices = devices_of_node

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """`listener(result)` is called with the final record of every attempt; returns an unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # -- calls that never reached the gate ---------------------------------------------------------------

    def refuse(self, change: Change, spoken: str) -> GateResult:
        """Record a change a planner could not even put together for judging (a scene value that is not in
        the inventory): refused, audited, nothing sent."""
        return self._finish(change, Outcome.REFUSED, spoken, reason=spoken)

    def begin(self) -> _Attempt:
        """Start watching a mutating tool call (the executor calls this; see `end`)."""
        records: list[GateResult] = []
        return _Attempt(records, _CALL_RECORDS.set(records))

    def end(
        self, attempt: _Attempt, tool: str, arguments: Mapping[str, Any], error: str | None, *, refused: bool
    ) -> None:
        """After a mutating call: if it ended before the gate made its record (no such device, a bad
        value, read-only mode, a timeout), write that attempt's one audit line now."""
        try:
            _CALL_RECORDS.reset(attempt.token)
        except ValueError:  # ended in another context than it began (never in the executor)
            _CALL_RECORDS.set(None)
        if attempt.records:
            return
        action = arguments.get("action")
        self.policy.audit(
            AuditEvent(
                tool=tool,
                action=str(action)[:40] if isinstance(action, str) else tool,
                outcome=Outcome.REFUSED if refused else Outcome.FAILED,
                reason=error or "ended before any change was attempted",
            )
        )

    # -- the steps --------------------------------------------------------------------------------------

    async def apply(
        self, change: Change, *, token: str | None = None, ask: Asker | None = None
    ) -> GateResult:
        """Judge, confirm, limit, send and prove `change` as it is (a scene, an admin call: nothing in it is
        planned from a device's state, so no device is held); returns (never raises for) its final record,
        except that an exception raised by `ask` ends the call (audited as needs_confirmation first)."""
        return await self.run(lambda: change, token=token, ask=ask, hold=False)

    async def run(
        self,
        planner: Planner,
        *,
        token: str | None = None,
        ask: Asker | None = None,
        holding: Iterable[str] | None = None,
        hold: bool = True,
    ) -> GateResult:
        """A change planned from the devices' state (a control call, a group, a lock user's code): the
        planner is called with the devices it touches held (`self.locks`: one change at a time per device),
        and nothing waits for a person while holding a device. A change that needs the person's yes is
        asked about with no device held; then, holding its devices again, it is planned again from the
        state they report now and sent only if the yes covers it (what needs the yes is among what the
        person was asked about), else the person is asked about it as it now is (at most `MAX_ROUNDS`).

        `planner()` builds the `Change` from the current state and may raise the planners' own errors (a
        bad value, a device that cannot do it); `holding` are the device keys to hold while planning (by
        default those of a first plan, made without holding anything). Effects that would need the yes but
        change nothing (the device already reports their target) are neither asked about nor sent."""
        keys: set[str] = set(holding) if holding is not None else set()
        if hold and holding is None:
            keys = {d.key for d in (await _planned(planner)).devices}  # planned again while they are held
        confirmed: frozenset[str] | None = None  # the parts of the change the person said yes to
        confirmed_by: str | None = None
        change: Change | None = None
        for _round in range(MAX_ROUNDS):
            async with self.locks.holding(keys) if hold else contextlib.nullcontext():
                change = await _planned(planner)
                if hold and not {d.key for d in change.devices} <= keys:
                    keys |= {d.key for d in change.devices}  # it reaches further now: hold those too
                    continue
                done, change, idle, judged = self._prepare(change)
                if done is not None:
                    return done
                assert judged is not None
                if judged.why is None or (confirmed is not None and judged.asks <= confirmed):
                    return await self._carry(change, idle, confirmed_by=confirmed_by)
                if token:
                    # Nothing to wait for: the token is redeemed for the change as planned right now.
                    answer = await dialogue.confirm(self.policy, change, judged.why, token=token, ask=None)
                    if answer.kind == "confirmed":
                        return await self._carry(change, idle, confirmed_by=answer.by, token=token)
                    return self._answered(change, answer, judged.why)
            # The person is asked with no device held: other changes of these devices go on meanwhile.
            try:
                answer = await dialogue.confirm(self.policy, change, judged.why, token=None, ask=ask)
            except BaseException:
                self._finish(
                    change,
                    Outcome.NEEDS_CONFIRMATION,
                    dialogue.question(change, judged.why),
                    reason=judged.why,
                )
                raise
            if answer.kind != "confirmed":
                return self._answered(change, answer, judged.why)
            confirmed, confirmed_by = self._parts(change), answer.by
        assert change is not None
        moved = (
            f"Did not {change.text}: its devices kept changing while the person was asked, so nothing was "
            "sent; ask again."
        )
        return self._finish(change, Outcome.REFUSED, moved, reason=moved)

    def _prepare(
        self, change: Change
    ) -> tuple[GateResult | None, Change, list[EffectOutcome], _Judged | None]:
        """Reach, leave out what would change nothing, judge and check the limits: (the final record if the
        change ends here, the change to go on with, the effects left out, the judgement)."""
        change.reach = self._reach(change)
        settled, idle = self._settle(change)
        if idle and not settled.effects:
            devices = per_device(idle)
            spoken = sentence(change, devices, outcome=Outcome.UNCHANGED)
            return self._finish(change, Outcome.UNCHANGED, spoken, devices=devices), change, idle, None
        judged = self._judge(settled)
        refusal = judged.refusal
        if refusal is None:  # the limits before any token is spent: a limited call keeps its token
            refusal = self._limited(settled, admit=False)
        if refusal is not None:
            return self._finish(settled, Outcome.REFUSED, refusal, reason=refusal), settled, idle, None
        return None, settled, idle, judged

    def _answered(self, change: Change, answer: dialogue.Answer, why: str) -> GateResult:
        """The record of a change the dialogue ended: refused (a bad token), declined, or pending (a token
        was handed out)."""
        if answer.kind == "refused":
            return self._finish(change, Outcome.REFUSED, answer.sentence, reason=answer.sentence)
        if answer.kind == "declined":
            return self._finish(change, Outcome.DECLINED, answer.sentence, reason=why)
        return self._finish(
            change,
            Outcome.NEEDS_CONFIRMATION,
            answer.sentence,
            reason=why,
            token=answer.token,
            token_ttl_s=answer.ttl_s,
        )

    def _settle(self, change: Change) -> tuple[Change, list[EffectOutcome]]:
        """Leave out the effects that would need the person's yes but change nothing: the device already
        reports their target (a lock already unlocked, a siren already silent). Nothing is asked or sent for
        them, and the answer says so. Only where the sender can leave one out (one write per effect); a
        scene is activated whole, so each of its effects is judged as it is."""
        if not getattr(change.sender, "per_effect", False):
            return change, []
        idle = [e for e in change.effects if _already(e) and self._needs_yes(e)]
        if not idle:
            return change, []
        rest = [e for e in change.effects if not any(e is i for i in idle)]
        settled = replace(change, effects=rest, reach=list(change.reach))
        reports = [EffectOutcome(e, Outcome.UNCHANGED, _now(e)) for e in idle]
        return settled, reports

    def _needs_yes(self, effect: Effect) -> bool:
        decision = self.policy.judge(
            effect.device, effect.words, effect.argument, unit=effect.unit, action_text=effect_text(effect)
        )
        return decision.needs_confirmation

    @staticmethod
    def _parts(change: Change) -> frozenset[str]:
        """What a yes to this change covers: each effect (its binding) and each device it reaches."""
        parts = {json.dumps(e.binding(), default=str) for e in change.effects}
        return frozenset(parts | {f"reach:{d.key}" for d in change.reach})

    async def _carry(
        self,
        change: Change,
        idle: list[EffectOutcome],
        *,
        confirmed_by: str | None,
        token: str | None = None,
    ) -> GateResult:
        """Count the change against the limits, then dry-run or send and prove it."""
        limited = self._limited(change, admit=True)
        if limited is not None:
            if token:
                self.policy.tokens.give_back(token)  # nothing was sent: the yes still holds
            return self._finish(change, Outcome.REFUSED, limited, reason=limited, confirmed_by=confirmed_by)
        if self.settings.dry_run:
            messages = change.sender.preview(change, self.gateway)
            count = plural(len(messages), "MQTT message")
            return self._finish(
                change,
                Outcome.DRY_RUN,
                f"Dry run: would {change.summary} by sending {count}; nothing was sent.",
                confirmed_by=confirmed_by,
                messages=messages,
            )
        try:
            parts, bare = await self._send(change)
        except asyncio.CancelledError:
            # The call was cut short (the tool's time limit, the client went away) after the send began:
            # the command may have gone out, so the attempt's one line says unknown, not failed.
            self._finish(
                change,
                Outcome.UNKNOWN,
                f"The call ended before zwave-js-ui answered, so the command to {change.summary} may still "
                "have been carried out.",
                reason="the call was cancelled while the command was being sent or confirmed",
                confirmed_by=confirmed_by,
            )
            raise
        devices = per_device([*parts, *idle])
        outcome = worst([d.outcome for d in devices]) if devices else _bare_outcome(bare)
        reason = next((d.reason for d in devices if d.reason), None) or next(
            (d.reason for d in bare if d.reason), None
        )
        spoken = sentence(
            change, devices, note=str(change.details.get("note", "")), outcome=outcome, reason=reason or ""
        )
        return self._finish(
            change,
            outcome,
            spoken,
            reason=reason,
            confirmed_by=confirmed_by,
            devices=devices,
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
        if self._node_devices is not None:
            return self._node_devices(node_id)
        node = self.gateway.inventory.node(node_id)
        return build_devices([node]) if node is not None else []

    def _judge(self, change: Change) -> _Judged:
        """(refusal sentence, why it needs confirmation, what needs it): the policy on every effect, none
        by name, and on every device a node-wide effect reaches."""
        read_only = self.policy.read_only_refusal(change.text)
        if read_only is not None:
            return _Judged(read_only)
        asks: set[str] = set()
        alone = len({e.device.key for e in change.effects}) == 1 and not change.subject
        whys: dict[str, None] = {}  # each reason once, in order
        reasons: set[str] = set()  # what made the named devices' effects sensitive, said once
        for effect in change.effects:
            text = effect_text(effect)
            decision = self.policy.judge(
                effect.device, effect.words, effect.argument, unit=effect.unit, action_text=text
            )
            if decision.refused:
                if alone:
                    return _Judged(decision.message)
                if not self.policy.visible(effect.device):
                    hide = self.policy.config.hide.source
                    return _Judged(
                        f"Refused to {change.summary}: it would change a device the policy hides ({hide})."
                    )
                rest = decision.message.removeprefix("Refused to ").replace(": ", ", but ", 1)
                return _Judged(f"Refused to {change.summary}: it would {rest}")
            if decision.needs_confirmation:
                asks.add(json.dumps(effect.binding(), default=str))
                reasons.add(decision.why)
                why = decision.why if alone else f"it would {text} and {decision.why}"
                whys[why] = None
        for device in change.reach:
            refusal, asked = self._judge_reached(change, device, reasons)
            if refusal is not None:
                return _Judged(refusal)
            if asked is not None:
                asks.add(f"reach:{device.key}")
                whys[asked] = None
        return _Judged(None, "; ".join(whys) if whys else None, frozenset(asks))

    def _judge_reached(
        self, change: Change, device: Device, reasons: set[str]
    ) -> tuple[str | None, str | None]:
        """A device the change reaches through its node, judged as if it were named: a hidden one refuses
        the change without being named (nor counted), a denied one refuses it by name, a sensitive or
        listed one asks."""
        node = f"node {device.node_id}"
        text = f"change {device_label(device)}"
        for effect in change.effects:
            if not (effect.node_wide and effect.device.node_id == device.node_id):
                continue
            decision = self.policy.judge(
                device, effect.words, effect.argument, unit=effect.unit, action_text=text
            )
            if decision.refused:
                if not self.policy.visible(device):
                    hide = self.policy.config.hide.source
                    return (
                        f"Refused to {change.summary}: it reaches every device of {node}, and the policy "
                        f"hides part of that node ({hide}).",
                        None,
                    )
                rest = decision.message.removeprefix("Refused to ").replace(": ", ", but ", 1)
                return (
                    f"Refused to {change.summary}: it reaches every device of {node}, so it would also {rest}",
                    None,
                )
            if decision.needs_confirmation and decision.why not in reasons:
                return None, f"it would also {text}, on the same {node}, and {decision.why}"
        return None, None

    def _limited(self, change: Change, *, admit: bool) -> str | None:
        """Why the limits refuse the change, or None. `admit`: count it against them, whole or not at all
        (another call may have taken the last slot meanwhile): one command overall, one per device it
        changes; else count nothing."""
        keys = [d.key for d in change.devices] or ["*"]
        refused = self.policy.rates.admit_many(keys) if admit else self.policy.rates.check_many(keys)
        return None if refused is None else self._rate_sentence(change, *refused)

    def _rate_sentence(self, change: Change, key: str, rate: Any) -> str:
        device = next((d for d in change.devices if d.key == key), None)
        if rate.scope == "device" and device is not None:
            why = (
                f"{device.label} already had {rate.limit} commands in the last {rate.window_s:g} s "
                "(the limit per device)"
            )
        else:
            why = f"{rate.limit} commands were sent in the last {rate.window_s:g} s (the overall limit)"
        return f"Refused to {change.text}: {why}; try again in {rate.retry_after_s} s."

    # -- send and evidence ------------------------------------------------------------------------------

    async def _send(self, change: Change) -> tuple[list[EffectOutcome], list[Delivery]]:
        """Send, then prove every effect; also returns the deliveries tied to no effect."""
        loop = asyncio.get_running_loop()
        before = {e.expect.value_id: e.expect.value.value for e in change.effects if e.expect is not None}
        with contextlib.ExitStack() as watching:
            watches = {
                value_id: watching.enter_context(self.gateway.waiters.watch(value_id)) for value_id in before
            }
            sent_at = loop.time()
            deliveries = await change.sender.send(change, self.gateway, self.settings.api_timeout)
            deadline = loop.time() + max(0.0, self.settings.confirm_timeout)
            proofs = [self._prove(d, watches, before, sent_at, deadline) for d in deliveries if d.effect]
            # One effect (a control call) is proved in place; several at once, side by side.
            parts = [await proofs[0]] if len(proofs) == 1 else await asyncio.gather(*proofs)
        return list(parts), [d for d in deliveries if d.effect is None]

    async def _prove(
        self,
        delivery: Delivery,
        watches: dict[str, Watch],
        before: dict[str, Any],
        sent_at: float,
        deadline: float,
    ) -> EffectOutcome:
        effect = delivery.effect
        assert effect is not None
        expect = effect.expect
        status = delivery.status
        if status == "failed":
            return EffectOutcome(effect, Outcome.FAILED, reason=delivery.reason)
        if status == "queued":
            return EffectOutcome(effect, Outcome.QUEUED)
        if status == "no_answer":
            now = await self._poll(effect, self.settings.api_timeout, log_failure=False)  # after no answer
            return EffectOutcome(effect, Outcome.UNKNOWN, now, reason=delivery.reason)
        if expect is None:
            # Nothing to watch (stop, admin calls): the device's or zwave-js-ui's own acknowledgement.
            if status in ("supervised", "accepted"):
                return EffectOutcome(effect, Outcome.CONFIRMED)
            return EffectOutcome(effect, Outcome.WORKING if status == "working" else Outcome.UNCONFIRMED)
        watch = watches[expect.value_id]
        last = Report(before.get(expect.value_id), after_write=False)
        if self.settings.confirm_timeout <= 0:
            outcome = {"supervised": Outcome.CONFIRMED, "working": Outcome.WORKING}.get(
                status, Outcome.UNCONFIRMED
            )
            return EffectOutcome(effect, outcome, last)
        since = sent_at
        skip = 0
        if status == "multicast":
            # zwave-js updates every node of a multicast optimistically: the first matching report is that
            # echo. Z-Wave Plus devices then report their new state on their own ("True Status"); that
            # second report is the evidence. A device that stays silent is asked, like an unsupervised one.
            window = min(deadline, asyncio.get_running_loop().time() + MULTICAST_REPORT_WAIT_S)
            seen = await watch.first(sent_at, expect.is_met, window, skip=1)
            if seen is not None:
                return EffectOutcome(effect, Outcome.CONFIRMED, Report(seen, after_write=True))
            status = "unsupervised"
        if status == "unsupervised":
            # zwave-js publishes an optimistic value with an unsupervised write: that echo proves nothing.
            # Ask the device itself; if that fails, only a report after now (zwave-js's own re-poll) counts.
            polled = await self._poll(effect, max(0.05, deadline - asyncio.get_running_loop().time()))
            since = asyncio.get_running_loop().time()
            if polled is not None:
                last = polled
                if expect.is_met(polled.value):
                    return EffectOutcome(effect, Outcome.CONFIRMED, polled)
            # The echo comes on the value lane, another connection: the poll's answer can overtake it.
            # Until it has been seen, the first matching report after the write is that echo.
            echo_seen = any(sent_at <= at < since and holds(expect.is_met, v) for at, v in watch.reports)
            skip = 0 if echo_seen else 1
        seen = await watch.first(since, expect.is_met, deadline, skip=skip)
        if seen is not None:
            return EffectOutcome(effect, Outcome.CONFIRMED, Report(seen, after_write=True))
        later = _without_echoes([v for at, v in watch.reports if at >= since], expect.is_met, skip)
        if later:
            last = Report(later[-1], after_write=True)
        if status == "supervised" and (not later or expect.is_met(later[-1])):
            # The device acknowledged the command itself (Supervision); no value report came meanwhile.
            return EffectOutcome(effect, Outcome.CONFIRMED, None if not later else last)
        return EffectOutcome(effect, Outcome.WORKING if status == "working" else Outcome.UNCONFIRMED, last)

    async def _poll(self, effect: Effect, timeout: float, *, log_failure: bool = True) -> Report | None:
        """Ask the device what it reports now of the watched value (else the written one), within `timeout`;
        None when there is none or asking fails."""
        watched = effect.expect.value if effect.expect is not None else effect.value
        if watched is None:
            return None
        try:
            value = await self.gateway.poll_value(watched, timeout=timeout)
        except GatewayError as exc:
            if log_failure:
                log.info("check-back poll failed", extra={"device": effect.device.label, "why": str(exc)})
            return None
        return Report(value, after_write=True)

    # -- the record -------------------------------------------------------------------------------------

    def _finish(
        self,
        change: Change,
        outcome: Outcome,
        spoken: str,
        *,
        reason: str | None = None,
        confirmed_by: str | None = None,
        devices: list[DeviceOutcome] | None = None,
        token: str | None = None,
        token_ttl_s: float | None = None,
        messages: list[dict[str, Any]] | None = None,
    ) -> GateResult:
        result = GateResult(
            change=change,
            outcome=outcome,
            sentence=spoken,
            devices=devices or [],
            reason=reason,
            confirmed_by=confirmed_by,
            token=token,
            token_ttl_s=token_ttl_s,
            messages=messages or [],
            at_ms=int(time.time() * 1000),
        )
        records = _CALL_RECORDS.get()
        if records is not None:
            records.append(result)
        # The record above is what makes this the attempt's one line (see `end`).
        self._publish(result)
        return result

    def _publish(self, result: GateResult) -> None:
        """The record's audit line, then the listeners."""
        change, outcome = result.change, result.outcome
        touched = change.devices
        self.policy.audit(
            AuditEvent(
                tool=change.tool,
                action=change.action,
                outcome=outcome,
                device=", ".join(d.label for d in touched if self.policy.visible(d)) or None,
                device_key=", ".join(d.key for d in touched) or None,
                value=change.argument,
                reason=result.reason if outcome is not Outcome.CONFIRMED else None,
                confirmed_by=result.confirmed_by,
                detail=change.subject or None,
            )
        )
        for listener in list(self._listeners):
            try:
                listener(result)
            except Exception:
                log.warning("a gate listener failed", exc_info=True)


async def _planned(planner: Planner) -> Change:
    planned = planner()
    return await planned if inspect.isawaitable(planned) else planned


def _already(effect: Effect) -> bool:
    """Whether the device already reports what the effect would set (nothing would change)."""
    expect = effect.expect
    if expect is None or expect.value.value is None:
        return False
    return holds(expect.is_met, expect.value.value)


def _now(effect: Effect) -> Report | None:
    """What the device reports now of the value the effect would set."""
    return None if effect.expect is None else Report(effect.expect.value.value, after_write=False)


def _without_echoes(values: list[Any], is_echo: Callable[[Any], bool], echoes: int) -> list[Any]:
    """`values` without the first `echoes` that match (zwave-js's own echo of the write)."""
    kept = []
    for value in values:
        if echoes > 0 and holds(is_echo, value):
            echoes -= 1
        else:
            kept.append(value)
    return kept


def _bare_outcome(bare: list[Delivery]) -> Outcome:
    """A change with no effect to prove (a scene with no values, an admin call): what zwave-js-ui said."""
    statuses = {d.status for d in bare}
    if "failed" in statuses:
        return Outcome.FAILED
    if "no_answer" in statuses:
        return Outcome.UNKNOWN
    return Outcome.CONFIRMED
