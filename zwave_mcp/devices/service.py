"""The devices service: names → devices → a plan → the write gate.

Sits between the tools (which format answers) and the gateway (which speaks zwave-js-ui). It keeps the
device index in step with the inventory (rebuilt when nodes are renamed or the network is reloaded) and
turns a control request into a `Change` for the write gate (`zwave_mcp.devices.gate`), which does the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from zwave_mcp.config import Settings
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.control import ControlPlan, control_change, plan_control
from zwave_mcp.devices.describe import after_change_note
from zwave_mcp.devices.errors import AmbiguousDevice, DeviceNotFound
from zwave_mcp.devices.gate import Asker, Change, Gate, GateResult, Multicasting
from zwave_mcp.devices.group_control import (
    CANNOT,
    MAX_NAMED,
    GroupPlan,
    group_change,
    group_sentence,
    plan_group,
)
from zwave_mcp.devices.groups import Group, GroupTarget
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.resolve import AliasTarget, DeviceIndex, echo, load_aliases
from zwave_mcp.devices.writes import VALUE_ARGUMENTS
from zwave_mcp.errors import PolicyRefusal, UserError
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.gateway.health import GatewayHealth, count_statuses
from zwave_mcp.gateway.model import InventoryEvent, ZValue
from zwave_mcp.gateway.nodes import long_lived_objects
from zwave_mcp.names import normalize
from zwave_mcp.policy import Policy, check_text_argument
from zwave_mcp.policy.outcome import NOT_SENT, Outcome

log = logging.getLogger(__name__)

# Names remembered between index rebuilds (cleared whole when full: a bound, not an LRU).
RESOLVED_CACHE_MAX = 1024
# After a rename, the policy lists are checked against the devices again this much later (renames come in
# bursts while zwave-js-ui re-interviews; one check for the burst).
RECHECK_DELAY_S = 0.5


class DeviceService:
    def __init__(self, gateway: ZwaveGateway, policy: Policy, settings: Settings, gate: Gate) -> None:
        self.gateway = gateway
        self.gate = gate
        self.policy = policy
        self.settings = settings
        self.multicasting = Multicasting(settings.multicast)  # off once a multicast goes unanswered
        self._aliases: Mapping[str, AliasTarget] = (
            load_aliases(settings.aliases_file) if settings.aliases_file else {}
        )
        self._index: DeviceIndex | None = None
        self._indexed_nodes: object = None  # the inventory's nodes dict the index was built from
        self._stale = True
        self._resolved: dict[tuple[str, bool], Device] = {}
        # Every device, hidden ones too, by the value ids it uses: the gate judges a scene's values by them.
        self._by_value: dict[str, Device] = {}
        self._hidden_keys: set[str] = set()
        self._hidden_nodes: set[int] = set()
        self._everything: list[Device] = []
        self._entries_checked: DeviceIndex | None = None
        self.unmatched: list[str] = []  # policy list entries that match no device (warned once each)
        self._recheck_pending = False
        self.locks = gate.locks  # one change at a time per device (the gate holds them, see serial.py)
        gateway.inventory.add_listener(self._on_change)
        gate.reach_with(self.devices_of_node)

    # -- devices ----------------------------------------------------------------------------------------

    def _on_change(self, change: InventoryEvent) -> None:
        # Names, locations and readiness change what people can call a device; values update in place.
        if change.kind == "node":
            self._stale = True
            if self.policy.has_device_lists and not self._recheck_pending:
                # A rename can make a list entry match, or stop matching: look again once things settle.
                self._recheck_pending = True
                with contextlib.suppress(RuntimeError):  # no loop (a test feeding the inventory directly)
                    asyncio.get_running_loop().call_later(RECHECK_DELAY_S, self._recheck)

    def _recheck(self) -> None:
        self._recheck_pending = False
        _ = self.index

    async def check_policy_entries_when_loaded(self) -> None:
        """At start-up: once the network is loaded, warn about list entries that match no device."""
        while not await self.gateway.wait_ready(3600.0):
            pass
        _ = self.index

    @property
    def index(self) -> DeviceIndex:
        nodes = self.gateway.nodes
        if self._index is None or self._stale or nodes is not self._indexed_nodes:
            with long_lived_objects():  # the index lives until the next load
                everything = build_devices(nodes.values())
                _attach_aliases(everything, self._aliases)
                self._by_value = {v.value_id: d for d in everything for v in d.all_values()}
                self.policy.remember(everything)  # before any rename can take a device out of a list
                full: DeviceIndex | None = None
                if self.policy.has_device_lists:
                    # The lists are read as tool arguments are ("front door" covers Front Door Lock), against
                    # every device: a hidden one too, which the index people use leaves out.
                    full = DeviceIndex(everything, self._aliases)
                    self.policy.resolve_entries(full.named_by)
                devices = [d for d in everything if self.policy.visible(d)]
                shown = {d.key for d in devices}
                self._hidden_keys = {d.key for d in everything if d.key not in shown}
                self._hidden_nodes = {d.node_id for d in everything if d.key not in shown}
                same = full is not None and len(devices) == len(everything)
                self._index = full if same and full is not None else DeviceIndex(devices, self._aliases)
                self._everything = everything
                self._indexed_nodes = nodes
                self._stale = False
                self._resolved.clear()
        # Checked once per index, and only once the network has loaded: an index built while a load is
        # still being announced (a load listener asking) must not skip the check for good.
        if self._entries_checked is not self._index and self.gateway.loaded:
            self._entries_checked = self._index
            self._check_policy_entries(self._everything)
        return self._index

    def current(self, device: Device) -> Device:
        """The same device in today's index. A reload (zwave-js-ui restarted) replaces every value object,
        so a device resolved before it would still show the old state; same device if it is gone."""
        return self.index.get(device.key) or device

    def devices(self) -> list[Device]:
        return self.index.devices

    def devices_of_node(self, node_id: int) -> list[Device]:
        """Every device of a node, hidden ones too: what a change addressed to the node reaches."""
        _ = self.index
        return [d for d in self._everything if d.node_id == node_id]

    def device_of_value(self, value_id: str) -> Device | None:
        """The device (hidden or not) that uses this value; for judging a scene's values."""
        _ = self.index
        return self._by_value.get(value_id)

    def visible_value(self, value_id: str) -> bool:
        """Whether a value belongs to a device people may see (values of no device count as visible only
        when their node has no hidden device)."""
        device = self.device_of_value(value_id)
        if device is not None:
            return device.key not in self._hidden_keys
        head = value_id.split("-", 1)[0]
        return not head.isdigit() or int(head) not in self._hidden_nodes

    def visible_node(self, node_id: int | None) -> bool:
        """Whether anything of this node may be shown (a node with any hidden device is hidden whole)."""
        _ = self.index
        return node_id is None or node_id not in self._hidden_nodes

    def health(self) -> GatewayHealth:
        """The gateway's health, with hidden devices left out of the node counts (a dead hidden node
        would otherwise show itself)."""
        health = self.gateway.health()
        if not self.policy.config.hide:
            return health
        shown = {i: n for i, n in self.gateway.nodes.items() if self.visible_node(i)}
        by_status = count_statuses(shown)
        return replace(health, nodes_by_status=by_status, node_count=sum(by_status.values()))

    def _check_policy_entries(self, devices: list[Device]) -> None:
        """Warn (stderr) about list entries that match no device, once each; re-checked after renames."""
        unmatched = self.policy.unmatched_entries(devices)
        for problem in unmatched:
            if problem not in self.unmatched:
                log.warning("policy entry matches no device: %s", problem)
        self.unmatched = unmatched

    def unmatched_entries(self) -> list[str]:
        """The policy list entries that match no device, once the network has loaded (health says them)."""
        if self.policy.has_device_lists and self.gateway.loaded:
            _ = self.index
        return list(self.unmatched)

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

    def resolve_node(
        self, name: str, *, for_mutation: bool = False, alike: Callable[[list[Device]], bool] | None = None
    ) -> Device:
        """The device a question about a whole node names (its firmware, its associations): a name that fits
        several parts of one node ("the porch switch", both halves of the Porch Double Switch) is the node's
        main device, where `alike` finds the parts the same for the question; else the usual refusal."""
        try:
            return self.resolve(name, for_mutation=for_mutation)
        except AmbiguousDevice as exc:
            parts = exc.candidates
            if len({d.node_id for d in parts}) != 1 or (alike is not None and not alike(parts)):
                raise
            main = next((d for d in parts if d.part is None), None)
            if main is None:
                raise
            return self.resolve(main.name, for_mutation=for_mutation)

    def _one_for_change(self, name: str) -> Device:
        """The one device a change names; a name that fits several (or none) but is a group phrase says
        how to change them all (a bare room name still lists its devices: never act on a guess)."""
        try:
            return self.resolve(name, for_mutation=True)
        except (AmbiguousDevice, DeviceNotFound) as exc:
            if not isinstance(name, str) or self.index.parse_group(name) is None:
                raise
            group = self.index.group(name)
            if not group.devices:
                raise
            # The group as understood (it parses back to the same group), never the caller's raw text.
            hint = f" To change all {len(group.devices)} {group.label}, use control_zwave_group with target '{group.label}'."
            if isinstance(exc, AmbiguousDevice):
                raise AmbiguousDevice(exc.message + hint, exc.candidates) from None
            names = ", ".join(d.name for d in group.devices[:MAX_NAMED])
            raise DeviceNotFound(f"'{echo(name)}' names several devices ({names}).{hint}") from None

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
        ask: Asker | None = None,
    ) -> tuple[ControlPlan, GateResult]:
        """Resolve and plan one action, then hand it to the write gate (which judges, confirms, sends and
        proves it). A refusal is raised as `PolicyRefusal` with the gate's sentence (already audited)."""
        for name in ("mode", "color", "setpoint"):
            if isinstance(params.get(name), str):
                check_text_argument(name, params[name], max_len=40)
        device = self._one_for_change(device_name)
        plans: list[ControlPlan] = []

        def planner() -> Change:
            # Planned from the state the previous change of this device left (toggle, "+10 %"), and
            # again after the person's answer (the gate holds the device only while planning and sending).
            plan = plan_control(self.current(device), action, **{k: params.get(k) for k in VALUE_ARGUMENTS})
            plans.append(plan)
            return control_change(plan)

        result = await self.gate.run(planner, token=token, ask=ask, holding=[device.key])
        if result.outcome is Outcome.REFUSED:
            raise PolicyRefusal(result.sentence)
        plan = plans[-1]
        shown = result.devices[0].as_reported() if result.devices else plan.device
        return plan, replace(
            result, sentence=control_sentence(shown, plan.action, result.sentence, result.outcome)
        )

    async def control_group(
        self,
        target: str,
        action: str,
        *,
        params: Mapping[str, Any],
        token: str | None = None,
        ask: Asker | None = None,
    ) -> tuple[GroupPlan, GateResult]:
        """One action on every device a group phrase names ("the kitchen lights", "everything"), through
        the gate as one change: one confirmation listing the devices, sent together, proven per device."""
        for name in ("mode", "color", "setpoint"):
            if isinstance(params.get(name), str):
                check_text_argument(name, params[name], max_len=40)
        group = self.group_or_device(target)
        plans: list[GroupPlan] = []

        def planner() -> Change:
            # Only the devices the change touches are held, only while it is planned and sent: never while
            # the person is asked (a lock left out of "turn off everything" answers at once meanwhile).
            now = replace(group, devices=[self.current(d) for d in group.devices])
            plan = plan_group(now, action, params, self.policy)
            if not plan.plans:
                raise UserError(_nothing_to_do(plan))
            plans.append(plan)
            return group_change(plan, multicast=self.multicasting)

        result = await self.gate.run(planner, token=token, ask=ask)
        if result.outcome is Outcome.REFUSED:
            raise PolicyRefusal(result.sentence)
        plan = plans[-1]
        if result.outcome not in NOT_SENT and result.devices:  # else the gate's own (confirmation asked…)
            result = replace(result, sentence=group_sentence(plan, result.devices))
        return plan, result

    def group_or_device(self, target: str) -> Group:
        """A group phrase's devices; a phrase that is no group but one device's name is a group of one."""
        check_text_argument("target", target)
        index = self.index
        if index.parse_group(target) is not None:
            return index.group(target)
        try:
            device = self.resolve(target, for_mutation=True)
        except DeviceNotFound as exc:
            raise DeviceNotFound(f"{exc.message} {index.group_hint()}", exc.suggestions) from None
        return Group(GroupTarget(), device.name, [device])


def control_sentence(device: Device, action: str, said: str, outcome: Outcome) -> str:
    """The gate's sentence, and what the device's state adds that the person should hear: the door stands
    open behind a lock, a colour set on a bulb that is off."""
    if outcome in (Outcome.DECLINED, Outcome.REFUSED, Outcome.DRY_RUN):
        return said  # nothing was sent and nothing will be: the state is not news
    note = after_change_note(device, action, confirmed=outcome is Outcome.CONFIRMED)
    return f"{said} {note}" if note else said


def _nothing_to_do(plan: GroupPlan) -> str:
    label, action = plan.group.label, CANNOT[plan.action]
    if not plan.group.devices:
        return f"There are no {label}."
    refused = [s for s in plan.skipped if s.named]
    if refused:
        why = "; ".join(f"{s.device.name}: {s.why.rstrip('.')}" for s in refused[:MAX_NAMED])
        return f"None of the {label} can {action} now ({why})."
    return f"None of the {label} can {action}."


def _attach_aliases(devices: list[Device], aliases: Mapping[str, AliasTarget]) -> None:
    """Give each device the aliases that point at it (by key, node id or name), so policy lists match
    them as they match the device's own name. A group (a list) names several devices, not one: a policy
    entry naming a group is not read as naming each of them."""
    if not aliases:
        return
    found: dict[str, list[str]] = {}
    for alias, target in aliases.items():
        if not isinstance(target, str):
            continue
        wanted = normalize(target)
        for device in devices:
            if target.strip() in (device.key, str(device.node_id)) or wanted == normalize(device.name):
                found.setdefault(device.key, []).append(alias)
    for device in devices:
        device.aliases = tuple(found.get(device.key, ()))
