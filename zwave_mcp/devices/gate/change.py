"""What the gate takes: a `Change` (the intended effects, in words and as values) and a `Sender`.

An `Effect` is one value on one device changing to a target, plus what that amounts to in the action
vocabulary (`words`: {"on"}, {"unlock"}, {"open", "set_position"}…): the policy judges those words, never
the name of the action that was asked for. `value_effect` works the words out from the value itself
(command class, property, target), so a scene's values and a control call's writes are judged alike.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from zwave_mcp.devices.kinds import first_answer
from zwave_mcp.devices.levels import is_number, write_percent
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.writes import Expectation
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.policy.caller import current_caller
from zwave_mcp.policy.sensitive import describe_action
from zwave_mcp.zwave.classes import CC

if TYPE_CHECKING:
    from zwave_mcp.gateway.client import ZwaveGateway

DeliveryStatus = Literal[
    "supervised", "unsupervised", "multicast", "working", "accepted", "queued", "failed", "no_answer"
]

# `ask(question, binding)`: "accept", "decline", "cancel", or None when the client cannot ask (the gate then
# hands out a one-time token). It may raise to end the call with an "input required" result.
Asker = Callable[[str, str], Awaitable[str | None]]


@dataclass(frozen=True, slots=True)
class Effect:
    """One thing the change does to one device: `value` (from the inventory, never from user text) goes
    to `target`. `words` are what it amounts to in the action vocabulary; `argument` is the target as the
    policy reads it (percent, degrees in `unit`); `expect` is the device report that proves it happened.
    `value` is None for changes that are not a value write (a rename, a configuration call)."""

    device: Device
    value: ZValue | None
    target: Any
    words: frozenset[str]
    argument: Any = None
    unit: str | None = None
    expect: Expectation | None = None
    options: dict[str, Any] | None = None
    text: str = ""  # the effect in words for messages ("unlock Front Door Lock (Entry)"); else worked out

    @property
    def node_wide(self) -> bool:
        """Whether the effect reaches the whole node, not one endpoint's device: an admin call (rename,
        location, re-interview, refresh, removal: zwave-js-ui addresses them to a node id) or a
        configuration parameter (it belongs to the node). The gate judges every device of that node."""
        return self.value is None or self.value.command_class == CC.CONFIGURATION

    def binding(self) -> list[Any]:
        """The canonical form of this effect, part of what a confirmation is bound to."""
        return [
            self.device.key,
            self.value.value_id if self.value is not None else None,
            self.target,
            sorted(self.words),
        ]


@dataclass(frozen=True, slots=True)
class Delivery:
    """What zwave-js-ui said about sending one effect, before any report of the device itself.

    status: "supervised" (the device itself acknowledged: SetValueStatus 255), "unsupervised" (sent, the
    device does not acknowledge: 254, any echo is zwave-js's own), "working" (1: carrying it out),
    "multicast" (sent to several nodes in one frame: no node acknowledges it, and zwave-js updates each
    node's value optimistically, so only a report after that echo is the device's own),
    "accepted" (an API that answers true/false: scene activation, admin calls), "queued" (a sleeping
    device), "failed" (with `reason`), "no_answer" (zwave-js-ui did not answer in time: it may still have
    been done).
    """

    effect: Effect | None  # None: the delivery of a request that is not one effect (a scene activation)
    status: DeliveryStatus
    reason: str = ""
    result: Any = None


class Sender(Protocol):
    """How a change reaches zwave-js-ui. Senders live in `zwave_mcp.devices.gate.senders`: they are the
    only code that names the gateway's write APIs."""

    def preview(self, change: Change, gateway: ZwaveGateway) -> list[dict[str, Any]]:
        """The exact messages a send would publish (`topic`, `payload`, `qos`, `retain`), for a dry run."""
        ...

    async def send(self, change: Change, gateway: ZwaveGateway, timeout: float) -> list[Delivery]:
        """Send it; never raises for a gateway problem (it becomes a `failed`/`no_answer` delivery)."""
        ...


@dataclass(slots=True)
class Change:
    """One call's intended change: what the gate judges, confirms, audits and sends as one attempt.

    `tool` and `action` name the attempt in the audit ("control_zwave_device", "unlock"); `summary` is the
    change in words, lower-case first ("unlock Front Door Lock"); `subject` is what the change is about
    beyond its effects, bound into the confirmation ("scene 3 'Movie Night'"); `argument` is the call's
    normalized argument (audit and token binding).
    """

    tool: str
    action: str
    summary: str
    effects: Sequence[Effect]
    sender: Sender
    subject: str = ""
    argument: Any = None
    details: dict[str, Any] = field(default_factory=dict)
    # The other devices of the node a node-wide effect reaches (its sibling endpoints): set by the gate,
    # which judges them all, before anything else looks at the change.
    reach: list[Device] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The change as messages say it: one device's effect with its room ("unlock Front Door Lock
        (Entry)"), else the summary ("activate scene 'Movie Night'")."""
        if len(self.devices) == 1 and not self.subject and self.effects[0].text:
            return self.effects[0].text
        return self.summary

    @property
    def devices(self) -> list[Device]:
        """Each device the change touches, once, in order: those its effects name, then those it reaches."""
        seen: dict[str, Device] = {}
        for device in [*(effect.device for effect in self.effects), *self.reach]:
            seen.setdefault(device.key, device)
        return list(seen.values())

    def binding(self) -> str:
        """The canonical string of the exact change: a confirmation is valid for this and nothing else."""
        body: dict[str, Any] = {
            "client": current_caller().client,  # a yes is the asking client's: no other may spend it
            "tool": self.tool,
            "action": self.action,
            "subject": self.subject,
            "effects": sorted((e.binding() for e in self.effects), key=lambda b: json.dumps(b, default=str)),
        }
        if self.reach:  # a node-wide change is confirmed for the devices it reached when it was asked
            body["reach"] = sorted(d.key for d in self.reach)
        return json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)


# The word an effect is described by, when it amounts to several ("on" before "set_level").
_WORD_ORDER = (
    "unlock",
    "lock",
    "open",
    "close",
    "set_tone",
    "set_speed",
    "on",
    "off",
    "set_position",
    "set_level",
    "set_tilt",
    "set_volume",
    "stop",
)


def effect_text(effect: Effect) -> str:
    """One effect in words, lower-case first: "unlock Front Door Lock (Entry)", "turn on Kitchen Light"."""
    if effect.text:
        return effect.text
    word = next((w for w in _WORD_ORDER if w in effect.words), None)
    if word is None:
        word = next(iter(sorted(effect.words)), "change")
    argument = None if word in ("on", "off", "lock", "unlock", "open", "close", "stop") else effect.argument
    return describe_action(effect.device, word, argument, effect.unit)


# ---- what a value write amounts to -----------------------------------------------------------------


def value_effect(
    device: Device,
    value: ZValue,
    target: Any,
    *,
    expect: Expectation | None = None,
    options: dict[str, Any] | None = None,
) -> Effect:
    """The effect of writing `target` to `value` on `device`, its words worked out from the value alone."""
    words, shown = effect_words(device, value, target)
    return Effect(
        device=device,
        value=value,
        target=target,
        words=words,
        argument=shown,
        unit=value.unit,
        expect=expect,
        options=options,
    )


def effect_words(device: Device, value: ZValue, target: Any) -> tuple[frozenset[str], Any]:
    """(the action words a write amounts to, the argument the policy reads) — judged by effect: a level
    above 0 is "on", a position above 0 is "open", any Door Lock mode but secured is "unlock"."""
    cc, prop = value.command_class, value.property
    role = next((r for r, v in device.values.items() if v.value_id == value.value_id), None)
    said = first_answer(lambda kind: kind.effect_words(device, value, role, target))
    if said is not None:
        return said
    # Basic Set means "on at this level" on whatever the device is (a relay, a dimmer; a cover's is its own).
    if cc in (CC.MULTILEVEL_SWITCH, CC.BASIC):
        up = prop in ("Up", "Open") or (isinstance(prop, str) and prop.startswith("levelChangeUp"))
        if up or prop in ("Down", "Close") or (isinstance(prop, str) and prop.startswith("levelChangeDown")):
            if target is False:
                return frozenset({"stop"}), None
            return frozenset({"on", "set_level", "dim"} if up else {"set_level", "dim"}), None
        if prop == "restorePrevious":
            return frozenset({"on"}), None
        if is_number(target):
            percent = write_percent(target, value)
            return frozenset({"on" if target > 0 else "off", "set_level", "dim"}), percent
        return frozenset({"set_level"}), target
    if cc == CC.BINARY_SWITCH:
        return frozenset({"on" if bool(target) else "off"}), bool(target)
    return frozenset({"set_value"}), target
