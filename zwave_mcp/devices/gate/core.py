"""`Gate`: the one write gate, running its steps: plan with the devices held, judge (`judge.py`), ask
(`dialogue.py`), send and prove (`proof.py`), and make the attempt's one record and audit line. See the
package docstring for the steps and the interface."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import Any

from zwave_mcp.answers import plural
from zwave_mcp.config import Settings
from zwave_mcp.devices.gate import dialogue
from zwave_mcp.devices.gate.change import Asker, Change
from zwave_mcp.devices.gate.evidence import DeviceOutcome, per_device, sentence
from zwave_mcp.devices.gate.judge import Judge, Judgement, covered
from zwave_mcp.devices.gate.proof import Proof
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.serial import DeviceLocks
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.policy import AuditEvent, Policy
from zwave_mcp.policy.outcome import Outcome

log = logging.getLogger(__name__)


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
        self.judge = Judge(policy, gateway.inventory)
        self.proof = Proof(gateway, settings)
        self.locks = DeviceLocks()  # one change at a time per device (see `run` and serial.py)

    def reach_with(self, devices_of_node: Callable[[int], list[Device]]) -> None:
        """Where the gate finds every device of a node, hidden ones too (the devices service, whose devices
        carry their aliases); without it, the gate builds them from the inventory."""
        self.judge.node_devices = devices_of_node

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """`listener(result)` is called with the final record of every attempt; returns an unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # -- calls that never reached the gate ---------------------------------------------------------------

    def refuse(self, change: Change, spoken: str) -> GateResult:
        """Record a refused change: audited, nothing sent. Also for a change a planner could not even put
        together for judging (a scene value that is not in the inventory)."""
        return self._finish(GateResult(change, Outcome.REFUSED, spoken, reason=spoken))

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
        """A change planned from the devices' state (a control call, a group, a lock user's code): planned
        with its devices held, asked about with none held, planned again after the answer and sent only if
        the yes covers it, else asked about as it now is (at most `MAX_ROUNDS`; step 0 of the package).
        `planner()` may raise the planners' own errors (a bad value, a device that cannot do it); `holding`
        are the device keys to hold while planning (by default those of a first plan, made holding none)."""
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
                judgement = self.judge.judge(change)
                change = judgement.change
                if judgement.unchanged:
                    devices = per_device(judgement.idle)
                    spoken = sentence(change, devices, outcome=Outcome.UNCHANGED)
                    return self._finish(GateResult(change, Outcome.UNCHANGED, spoken, devices=devices))
                if judgement.refusal is not None:
                    return self.refuse(change, judgement.refusal)
                why = judgement.why
                if why is None or (confirmed is not None and judgement.asks <= confirmed):
                    return await self._carry(judgement, confirmed_by=confirmed_by)
                if token:
                    # Nothing to wait for: the token is redeemed for the change as planned right now.
                    answer = await dialogue.confirm(self.policy, change, why, token=token, ask=None)
                    if answer.kind == "confirmed":
                        return await self._carry(judgement, confirmed_by=answer.by, token=token)
                    return self._answered(change, answer, why)
            # The person is asked with no device held: other changes of these devices go on meanwhile.
            try:
                answer = await dialogue.confirm(self.policy, change, why, token=None, ask=ask)
            except BaseException:
                asked = dialogue.question(change, why)
                self._finish(GateResult(change, Outcome.NEEDS_CONFIRMATION, asked, reason=why))
                raise
            if answer.kind != "confirmed":
                return self._answered(change, answer, why)
            confirmed, confirmed_by = covered(change), answer.by
        assert change is not None
        moved = (
            f"Did not {change.text}: its devices kept changing while the person was asked, so nothing was "
            "sent; ask again."
        )
        return self.refuse(change, moved)

    def _answered(self, change: Change, answer: dialogue.Answer, why: str) -> GateResult:
        """The record of a change the dialogue ended: refused (a bad token), declined, or pending (a token
        was handed out)."""
        if answer.kind == "refused":
            return self.refuse(change, answer.sentence)
        if answer.kind == "declined":
            return self._finish(GateResult(change, Outcome.DECLINED, answer.sentence, reason=why))
        token, ttl = answer.token, answer.ttl_s  # handed out: the call comes back with it
        pending = GateResult(
            change, Outcome.NEEDS_CONFIRMATION, answer.sentence, reason=why, token=token, token_ttl_s=ttl
        )
        return self._finish(pending)

    async def _carry(
        self, judgement: Judgement, *, confirmed_by: str | None, token: str | None = None
    ) -> GateResult:
        """Count the change against the limits, then dry-run or send and prove it."""
        change = judgement.change
        limited = self.judge.limited(change, admit=True)
        if limited is not None:
            if token:
                self.policy.tokens.give_back(token)  # nothing was sent: the yes still holds
            return self._finish(
                GateResult(change, Outcome.REFUSED, limited, reason=limited, confirmed_by=confirmed_by)
            )
        if self.settings.dry_run:
            messages = change.sender.preview(change, self.gateway)
            count = plural(len(messages), "MQTT message")
            spoken = f"Dry run: would {change.summary} by sending {count}; nothing was sent."
            return self._finish(
                GateResult(change, Outcome.DRY_RUN, spoken, confirmed_by=confirmed_by, messages=messages)
            )
        try:
            proven = await self.proof.carry_out(change, judgement.idle)
        except asyncio.CancelledError:
            # The call was cut short (the tool's time limit, the client went away) after the send began:
            # the command may have gone out, so the attempt's one line says unknown, not failed.
            said = (
                f"The call ended before zwave-js-ui answered, so the command to {change.summary} may still "
                "have been carried out."
            )
            why = "the call was cancelled while the command was being sent or confirmed"
            self._finish(GateResult(change, Outcome.UNKNOWN, said, reason=why, confirmed_by=confirmed_by))
            raise
        return self._finish(GateResult(change, *proven, confirmed_by=confirmed_by))

    # -- the record -------------------------------------------------------------------------------------

    def _finish(self, result: GateResult) -> GateResult:
        """Make `result` the attempt's final record: its one audit line and the listeners' record."""
        result.at_ms = int(time.time() * 1000)
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
