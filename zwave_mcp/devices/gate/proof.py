"""Proving a change: sending it through its sender and showing what happened.

Each effect's outcome comes from the device's own report after the write (watched through the gateway's
`Waiters.watch` from before the send, with loop times), else from the check-back poll, else from what
zwave-js-ui said of the delivery; `Proof.carry_out` turns them into the change's outcome and sentence.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, NamedTuple

from zwave_mcp.config import Settings
from zwave_mcp.devices.gate.change import Change, Delivery, Effect
from zwave_mcp.devices.gate.evidence import (
    DeviceOutcome,
    EffectOutcome,
    Report,
    per_device,
    sentence,
    was_already,
    worst,
)
from zwave_mcp.devices.gate.senders import follow_up
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.gateway.waiters import Watch, holds
from zwave_mcp.policy.outcome import Outcome

log = logging.getLogger(__name__)

# After a multicast, how long to wait for each device's own report before asking it (a dimmer reports at
# the end of its ramp, about a second; a switch within a few hundred milliseconds).
MULTICAST_REPORT_WAIT_S = 2.0
# The least time a silent device's follow-up write (and its proof) gets, however little of the deadline is left.
FOLLOW_UP_MIN_S = 1.0


class Proven(NamedTuple):
    """What a sent change came to (in `GateResult`'s order): its outcome, the sentence saying so, per
    device, and the first reason."""

    outcome: Outcome
    sentence: str
    devices: list[DeviceOutcome]
    reason: str | None


class Proof:
    def __init__(self, gateway: ZwaveGateway, settings: Settings) -> None:
        self.gateway = gateway
        self.settings = settings

    async def carry_out(self, change: Change, idle: list[EffectOutcome]) -> Proven:
        """Send `change`, prove each effect, and say what it came to with `idle` (the effects left out
        because the device already reports their target)."""
        loop = asyncio.get_running_loop()
        before = {e.expect.value_id: e.expect.value.value for e in change.effects if e.expect is not None}
        with contextlib.ExitStack() as watching:
            watches = {vid: watching.enter_context(self.gateway.waiters.watch(vid)) for vid in before}
            sent_at = loop.time()
            deliveries = await change.sender.send(change, self.gateway, self.settings.api_timeout)
            deadline = loop.time() + max(0.0, self.settings.confirm_timeout)
            proofs = [self._prove(d, watches, before, sent_at, deadline) for d in deliveries if d.effect]
            # One effect (a control call) is proved in place; several at once, side by side.
            parts = [await proofs[0]] if len(proofs) == 1 else await asyncio.gather(*proofs)
        parts = [self._already(p, before, watches, sent_at) for p in parts]
        bare = [d for d in deliveries if d.effect is None]  # tied to no effect: zwave-js-ui's word alone
        devices = per_device([*parts, *idle])
        outcome = worst([d.outcome for d in devices]) if devices else _bare_outcome(bare)
        reason = next(filter(None, [d.reason for d in devices] + [d.reason for d in bare]), None)
        note = str(change.details.get("note", ""))
        spoken = sentence(change, devices, note=note, outcome=outcome, reason=reason or "")
        return Proven(outcome, spoken, devices, reason)

    @staticmethod
    def _already(
        part: EffectOutcome, before: dict[str, Any], watches: dict[str, Watch], sent_at: float
    ) -> EffectOutcome:
        expect = part.effect.expect
        if expect is None:
            return part
        since = [v for at, v in watches[expect.value_id].reports if at >= sent_at]
        return was_already(part, before.get(expect.value_id), since)

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
            # second report is the evidence. One that stays silent may never have heard it (a multicast is
            # not routed): it gets a write of its own, proven as any single write, by the same deadline.
            loop = asyncio.get_running_loop()
            window = min(deadline, loop.time() + MULTICAST_REPORT_WAIT_S)
            seen = await watch.first(sent_at, expect.is_met, window, skip=1)
            if seen is not None:
                return EffectOutcome(effect, Outcome.CONFIRMED, Report(seen, after_write=True))
            resent_at = loop.time()
            again = await follow_up(effect, self.gateway, max(FOLLOW_UP_MIN_S, deadline - resent_at))
            return await self._prove(
                again, watches, before, resent_at, max(deadline, resent_at + FOLLOW_UP_MIN_S)
            )
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
