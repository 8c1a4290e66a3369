"""The devices service: names → devices → policy → writes → the device's own report.

Sits between the tools (which format answers) and the gateway (which speaks zwave-js-ui). It keeps the
device index in step with the inventory (rebuilt when nodes are renamed or the network is reloaded) and
decides, after a write, which of these happened: confirmed, working, queued, sent, failed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from zwave_mcp.config import Settings
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.control import ControlPlan, Expectation, plan_control
from zwave_mcp.devices.describe import state_summary
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.resolve import DeviceIndex, load_aliases
from zwave_mcp.errors import PolicyRefusal, UserError
from zwave_mcp.gateway.api import GatewayError, SetValueStatus, WriteResult
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.gateway.model import Change, ZValue
from zwave_mcp.policy import AuditEvent, Decision, Outcome, Policy, check_text_argument

log = logging.getLogger(__name__)

# A write to a sleeping device is answered only when it wakes up (31.8 s in the captures; hours on a
# real battery sensor). We wait for zwave-js-ui's reply in the background this long, then give up.
SLEEPING_WRITE_TIMEOUT_S = 24 * 3600.0
# How long a write's reply may take before a sleeping device's write counts as queued.
QUEUED_AFTER_S = 1.0
# Names remembered between index rebuilds (cleared whole when full: a bound, not an LRU).
RESOLVED_CACHE_MAX = 1024


@dataclass(slots=True)
class ControlOutcome:
    """What became of a control request. `outcome` is one of the words the tool result documents."""

    device: Device
    action: str
    outcome: str  # confirmed | working | queued | sent | failed | confirmation_required | dry_run
    sentence: str
    target: Any = None
    reported: Any = None
    token: str | None = None
    token_ttl_s: float | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)


class DeviceService:
    def __init__(self, gateway: ZwaveGateway, policy: Policy, settings: Settings) -> None:
        self.gateway = gateway
        self.policy = policy
        self.settings = settings
        self._aliases: Mapping[str, str] = (
            load_aliases(settings.aliases_file) if settings.aliases_file else {}
        )
        self._index: DeviceIndex | None = None
        self._indexed_nodes: object = None  # the inventory's nodes dict the index was built from
        self._stale = True
        self._resolved: dict[tuple[str, bool], Device] = {}
        self._background: set[asyncio.Task[Any]] = set()
        gateway.inventory.add_listener(self._on_change)

    # -- devices ----------------------------------------------------------------------------------------

    def _on_change(self, change: Change) -> None:
        # Names, locations and readiness change what people can call a device; values update in place.
        if change.kind == "node":
            self._stale = True

    @property
    def index(self) -> DeviceIndex:
        nodes = self.gateway.nodes
        if self._index is None or self._stale or nodes is not self._indexed_nodes:
            devices = [d for d in build_devices(nodes.values()) if self.policy.visible(d)]
            self._index = DeviceIndex(devices, self._aliases)
            self._indexed_nodes = nodes
            self._stale = False
            self._resolved.clear()
        return self._index

    def current(self, device: Device) -> Device:
        """The same device in today's index. A reload (zwave-js-ui restarted) replaces every value object,
        so a device resolved before it would still show the old state; same device if it is gone."""
        return self.index.get(device.key) or device

    def devices(self) -> list[Device]:
        return self.index.devices

    def resolve(self, name: str, *, for_mutation: bool = False) -> Device:
        index = self.index
        # People repeat the same names; a name that resolved once resolves the same until the index changes.
        hit = self._resolved.get((name, for_mutation))
        if hit is not None:
            return hit
        check_text_argument("deviceName", name)
        device = index.resolve(name, for_mutation=for_mutation)
        if len(self._resolved) >= RESOLVED_CACHE_MAX:
            self._resolved.clear()
        self._resolved[(name, for_mutation)] = device
        return device

    def select(
        self,
        *,
        text: str | None = None,
        location: str | None = None,
        capability: Capability | None = None,
        include_inactive: bool = False,
    ) -> list[Device]:
        """Devices for a listing: optional name filter (words), room and capability."""
        return [
            device
            for device in self.index.listing(text, location)
            if (include_inactive or (device.node.status != "Dead" and not device.node.failed))
            and (capability is None or capability in device.capabilities)
        ]

    # -- reading ----------------------------------------------------------------------------------------

    async def refresh(self, device: Device, values: list[ZValue]) -> list[str]:
        """Ask the device for these values again; returns the value ids that were refreshed."""
        refreshed = []
        for value in values:
            try:
                await self.gateway.poll_value(value, timeout=self.settings.api_timeout)
                refreshed.append(value.value_id)
            except GatewayError as exc:
                log.info(
                    "refresh failed",
                    extra={"device": device.label, "value_id": value.value_id, "why": str(exc)},
                )
        return refreshed

    # -- control ----------------------------------------------------------------------------------------

    async def control(
        self,
        device_name: str,
        action: str,
        *,
        params: Mapping[str, Any],
        token: str | None = None,
        ask: Any = None,
    ) -> ControlOutcome:
        """Resolve, plan, authorize, write and confirm one action.

        `ask(prompt) -> "accept" | "decline" | "cancel" | None` asks the person through the client
        (elicitation); None means the client cannot ask, so a one-time token is handed out instead.
        """
        for name in ("mode", "color", "setpoint"):
            if isinstance(params.get(name), str):
                check_text_argument(name, params[name], max_len=40)
        device = self.resolve(device_name, for_mutation=True)
        plan = plan_control(device, action, **{k: params.get(k) for k in _PLAN_PARAMS})
        unit = plan.writes[0].value.unit if plan.writes else None
        decision = self.policy.authorize(device, plan.action, plan.argument, unit=unit, token=token)
        if decision.needs_confirmation:
            answer = await ask(decision.elicitation_prompt()) if ask is not None else None
            if answer is None:
                return self._confirmation_required(device, plan, decision)
            if answer != "accept":
                self._audit(plan, "declined", decision, reason=answer)
                return ControlOutcome(
                    device, plan.action, "failed", decision.declined_message(cancelled=answer == "cancel")
                )
            decision = self.policy.authorize(device, plan.action, plan.argument, unit=unit, confirmed=True)
        if decision.refused:
            self._audit(plan, Outcome.REFUSED, decision, reason=decision.message)
            raise PolicyRefusal(decision.message)
        return await self._execute(plan, decision)

    def _confirmation_required(self, device: Device, plan: ControlPlan, decision: Decision) -> ControlOutcome:
        token = self.policy.issue_token(device.key, plan.action, plan.argument, label=decision.action_text)
        sentence = decision.token_message(token, self.policy.tokens.ttl_s)
        self._audit(plan, Outcome.CONFIRMATION_REQUESTED, decision, reason=decision.why)
        return ControlOutcome(
            device,
            plan.action,
            "confirmation_required",
            sentence,
            target=plan.argument,
            token=token,
            token_ttl_s=self.policy.tokens.ttl_s,
        )

    async def _execute(self, plan: ControlPlan, decision: Decision) -> ControlOutcome:
        device = plan.device
        results: list[WriteResult] = []
        for write in plan.writes:
            if device.node.is_sleeping_device and not self.settings.dry_run:
                queued = await self._write_to_sleeper(write.value, write.target, write.options)
                if queued:
                    self._audit(plan, "queued", decision)
                    return ControlOutcome(
                        device,
                        plan.action,
                        "queued",
                        f"{_cap(plan.summary)} is queued: {device.name} is asleep and will apply it when it "
                        "next wakes up.",
                        target=plan.argument,
                    )
                continue
            try:
                result = await self.gateway.write_value(write.value, write.target, write.options)
            except GatewayError as exc:
                self._audit(plan, Outcome.FAILED, decision, reason=str(exc))
                raise UserError(f"Could not {plan.summary}: {exc}.") from exc
            results.append(result)
            if result.dry_run:
                continue
            if not result.succeeded:
                reason = result.message or "zwave-js gave no reason"
                if device.node.status == "Dead":
                    # Status 2 alone reads as a refusal; a dead node never heard the command at all.
                    reason += (
                        "; zwave-js reports it as dead (not responding), so check that it has power and is "
                        "within range"
                    )
                self._audit(plan, Outcome.FAILED, decision, reason=reason)
                return ControlOutcome(
                    device,
                    plan.action,
                    "failed",
                    f"Could not {plan.summary}: {reason}.",
                    target=plan.argument,
                )
        if results and all(r.dry_run for r in results):
            messages = [r.dry_run_message for r in results if r.dry_run_message]
            self._audit(plan, Outcome.DRY_RUN, decision)
            return ControlOutcome(
                device,
                plan.action,
                "dry_run",
                f"Dry run: would {plan.summary} by sending {len(messages)} MQTT message"
                f"{'s' if len(messages) != 1 else ''}; nothing was sent.",
                target=plan.argument,
                messages=messages,
            )
        outcome, reported = await self._confirm(plan, results)
        self._audit(plan, outcome, decision)
        device = self.current(device)
        return ControlOutcome(
            device,
            plan.action,
            outcome,
            _outcome_sentence(plan, device, outcome, reported),
            target=plan.argument,
            reported=reported,
        )

    async def _write_to_sleeper(self, value: ZValue, target: Any, options: dict[str, Any] | None) -> bool:
        """Send a write to a sleeping device; True when it is queued (no reply yet), False when answered."""
        task = asyncio.ensure_future(
            self.gateway.write_value(value, target, options, timeout=SLEEPING_WRITE_TIMEOUT_S)
        )
        done, _ = await asyncio.wait({task}, timeout=QUEUED_AFTER_S)
        if done:
            result = task.result()
            if not result.succeeded:
                raise UserError(
                    f"{value.label}: {result.message or 'the device did not accept the command'}."
                )
            return False
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        task.add_done_callback(_log_late_write)
        return True

    async def _confirm(self, plan: ControlPlan, results: list[WriteResult]) -> tuple[str, Any]:
        """Wait (bounded) for the device's own report; returns (outcome, last reported value)."""
        if not plan.expectations:
            # Nothing to watch (stop): a supervised success is the device's own acknowledgement.
            supervised = results and all(r.status is SetValueStatus.SUCCESS for r in results)
            return ("confirmed" if supervised else "sent"), None
        if self.settings.confirm_timeout <= 0:
            # Confirmation switched off: answer with what zwave-js said. A supervised success (255) is
            # the device's own acknowledgement; anything else was only sent (or is still moving).
            if all(r.status is SetValueStatus.SUCCESS for r in results):
                return "confirmed", None
            return ("working" if any(r.working for r in results) else "sent"), None
        deadline = asyncio.get_running_loop().time() + self.settings.confirm_timeout
        working = any(r.status is SetValueStatus.WORKING for r in results)
        unsupervised = any(r.status is SetValueStatus.SUCCESS_UNSUPERVISED for r in results)
        reported: Any = None
        for expectation in plan.expectations:
            if unsupervised:
                # zwave-js publishes an optimistic value with an unsupervised write; read the device itself.
                reported = await self._poll(expectation.value)
                if expectation.is_met(reported):
                    continue
            remaining = max(0.0, deadline - asyncio.get_running_loop().time())
            met = await self.gateway.wait_for_value(
                expectation.value_id, _meets(expectation), remaining, check_current=not unsupervised
            )
            current = self.gateway.inventory.value(expectation.value_id)
            reported = current.value if current is not None else reported
            if met is None:
                return ("working" if working else "sent"), reported
        return "confirmed", reported

    async def _poll(self, value: ZValue) -> Any:
        try:
            return await self.gateway.poll_value(value, timeout=self.settings.confirm_timeout or None)
        except GatewayError:
            return value.value

    def _audit(self, plan: ControlPlan, outcome: str, decision: Decision, reason: str | None = None) -> None:
        self.policy.audit(
            AuditEvent(
                tool="control_zwave_device",
                action=plan.action,
                outcome=str(outcome),
                device=plan.device.label,
                device_key=plan.device.key,
                value=plan.argument,
                decision=str(decision.verdict),
                reason=reason,
                confirmed_by=decision.confirmed_by,
            )
        )


_PLAN_PARAMS = ("level", "value", "setpoint", "mode", "color", "position")


def _meets(expectation: Expectation) -> Any:
    return lambda value: expectation.is_met(value.value)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _outcome_sentence(plan: ControlPlan, device: Device, outcome: str, reported: Any) -> str:
    """One plain sentence a voice assistant can speak, saying what the device itself reported (`device`:
    as the index has it now, not as it was when the plan was made)."""
    name = device.name
    if outcome == "confirmed" and plan.action == "set_color":
        return f"Done: {name} reported the new colour ({plan.summary})."
    if outcome == "confirmed":
        return f"Done: {name} is now {state_summary(device)}, as the device reported."
    if outcome == "working":
        return f"{name} is on its way ({plan.summary}); it has not reported the final state yet."
    last = state_summary(device)
    return (
        f"The command to {plan.summary} was sent, but {name} has not confirmed it yet; "
        f"it last reported {last}."
    )


def _log_late_write(task: asyncio.Task[WriteResult]) -> None:
    if task.cancelled():
        return
    exc = task.exception()
    if exc is not None:
        log.warning("queued write to a sleeping device failed", extra={"why": str(exc)})
    else:
        log.info("queued write answered", extra={"status": str(task.result().status)})
