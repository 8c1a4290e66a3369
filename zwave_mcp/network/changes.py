"""The planner in front of the write gate for every network-care change.

A tool describes its change as an `AdminChange` (what, on which device or on the network itself, the words
the policy judges, and the call that makes it); `NetworkCare.carry` turns it into the gate's `Change` and
calls `gate.apply`, which does the rest: policy (read-only, hide/deny/allow, confirmation of the admin words
in `policy.sensitive.ADMIN_ACTIONS`), one confirmation by elicitation or token, rate limits, dry run, send,
evidence and the one audit line. The admin tools never call a changing API themselves.

Changes aimed at no one device (inclusion, provisioning, a network-wide route rebuild) name the network
itself as their device (`network_device`): it is judged, rate-limited and audited as "the Z-Wave network".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from zwave_mcp.answers import and_list
from zwave_mcp.devices.gate import Asker, Change, Effect, Expectation, Gate, GateResult, WriteValues
from zwave_mcp.devices.gate.senders import AdminCall
from zwave_mcp.devices.model import Device
from zwave_mcp.errors import PolicyRefusal, UserError
from zwave_mcp.gateway.admin import AdminRequest, NetworkAdmin
from zwave_mcp.gateway.model import ZNode, ZValue
from zwave_mcp.gateway.state import Inventory
from zwave_mcp.network.jobs import Jobs
from zwave_mcp.policy import Policy
from zwave_mcp.policy.outcome import NOT_SENT, Outcome

NETWORK_KEY = "network"
NETWORK_NAME = "the Z-Wave network"
CONTROLLER_ID = 1


def network_device(inventory: Inventory) -> Device:
    """The network itself (its controller) as the device a network-wide change is aimed at."""
    controller = inventory.node(CONTROLLER_ID) or ZNode(id=CONTROLLER_ID, is_controller=True)
    return Device(
        key=NETWORK_KEY,
        node_id=controller.id,
        endpoint=None,
        name=NETWORK_NAME,
        location="",
        kind=None,
        capabilities=(),
        node=controller,
    )


@dataclass
class AdminChange:
    """One network-care change. `words` are what the policy judges ({"configure"}, {"include"}, {"ping"}…);
    `value` is the argument a confirmation and the audit are bound to. Either `requests` (admin API calls
    from `NetworkAdmin`; `start` when a background job makes them) or `write` (a configuration value
    written as a value and proven by the device's report of `target`)."""

    tool: str
    action: str
    what: str  # lower-case first: "set parameter 3 (LED indicator) of Bedroom Color Bulb to 0"
    words: frozenset[str]
    device: Device | None = None  # None: the network itself
    value: Any = None
    requests: list[AdminRequest] = field(default_factory=list)
    start: Callable[[], Awaitable[Any]] | None = None
    write: ZValue | None = None
    target: Any = None
    # Extra effects on other devices (an association's target): judged, confirmed and audited with it.
    also: list[Effect] = field(default_factory=list)
    verify: Callable[[], Awaitable[str | None]] | None = None  # the requests' evidence, read back


@dataclass
class Carried:
    """What the gate made of it: the outcome word and sentence, the call's result, the token or messages."""

    outcome: Outcome
    sentence: str
    result: Any = None
    gate: GateResult | None = None
    touched: list[Device] = field(default_factory=list)  # every device it reached (never a hidden one)

    @property
    def sent(self) -> bool:
        return self.outcome not in NOT_SENT  # (a refusal was raised before)

    @property
    def touched_names(self) -> list[str] | None:
        return [d.name for d in self.touched] or None

    def said(self, device: Device) -> str:
        """The device as the answer names it: itself, or for a change that reached its whole node, the
        node with every device on it ("node 11 (Porch Double Switch and Porch Double Switch 2)")."""
        if len(self.touched) < 2:
            return device.name
        return f"node {device.node_id} ({and_list([d.name for d in self.touched])})"


@dataclass
class NetworkCare:
    """What every network-care change shares: the gate it goes through, the network's API wrappers and
    inclusion tracker, and the background jobs. One per server, built when the admin tools are."""

    gate: Gate
    policy: Policy
    network: NetworkAdmin
    jobs: Jobs
    tool_timeout: float  # the executor's: a wait for a result leaves it room to answer

    def wait_s(self, asked: float) -> float:
        return max(0.0, min(asked, self.tool_timeout * 0.8))

    async def carry(self, change: AdminChange, token: str | None, ask: Asker | None) -> Carried:
        """Through the gate. Raises `PolicyRefusal` when refused and `UserError` when zwave-js-ui failed it."""
        device = change.device or network_device(self.network.gateway.inventory)
        if change.write is not None:
            effect = Effect(
                device,
                change.write,
                change.target,
                change.words,
                argument=change.target,
                unit=change.write.unit,
                expect=Expectation(change.write, change.target),
                text=change.what,
            )
            sender: Any = WriteValues()
        else:
            effect = Effect(device, None, change.value, change.words, argument=change.value, text=change.what)
            sender = AdminCall(change.requests, change.start, verify=change.verify)
        effects = [effect, *change.also]
        gate_change = Change(change.tool, change.action, change.what, effects, sender, argument=change.value)
        result = await self.gate.apply(gate_change, token=token, ask=ask)
        if result.outcome is Outcome.REFUSED:
            raise PolicyRefusal(result.sentence)
        if result.outcome in (Outcome.FAILED, Outcome.UNKNOWN) and change.write is None:
            raise UserError(result.sentence)
        touched = [d for d in result.change.devices if d.key != NETWORK_KEY and self.policy.visible(d)]
        touched.sort(key=lambda d: (d.node_id, d.endpoint or 0))  # a node's devices in endpoint order
        return Carried(result.outcome, result.sentence, getattr(sender, "result", None), result, touched)
