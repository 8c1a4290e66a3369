"""The inclusion flow: adding and removing devices (S0, S2 with the DSK PIN, SmartStart from a QR code),
exclusion, and removing or replacing a failed node, phase by phase.

Every call to zwave-js-ui that changes the network (start, stop, grant, PIN, provisioning, removal) is an
`AdminChange` carried through the gate by `NetworkCare.carry`. When zwave-js-ui asks which security classes
to grant and for the device's PIN, `follow` puts the question to the person through the `elicit` the tool
gives it; when the person cannot be asked in the middle of the call, the question stays pending and
`answer_zwave_inclusion` brings the answer later (the two-step flow). Nothing here speaks MCP.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, Field

from zwave_mcp.answers import and_list
from zwave_mcp.devices.gate import Asker
from zwave_mcp.devices.model import Device
from zwave_mcp.errors import UserError
from zwave_mcp.gateway import admin as ga
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.gateway.dsk import masked_dsk, read_pin, read_qr
from zwave_mcp.network.changes import AdminChange, Carried, NetworkCare
from zwave_mcp.network.jobs import ProgressReporter

STRATEGIES = {
    "auto": ga.STRATEGY["default"],
    "s2": ga.STRATEGY["s2"],
    "s0": ga.STRATEGY["s0"],
    "none": ga.STRATEGY["insecure"],
}
FINAL = (ga.READY, ga.STOPPED, ga.FAILED, ga.EXCLUDED, ga.IDLE)
SECURITY_WORDS = {
    "auto": "",
    "s2": " with S2 security",
    "s0": " with S0 security",
    "none": " without security",
}

# `elicit(question, form, binding)`: the person's answer (the form filled in), "decline"/"cancel", or None
# when the client cannot ask in the middle of the call.
Elicit = Callable[[str, type[BaseModel], str], Awaitable[BaseModel | str | None]]


class GrantQuestion(BaseModel):
    grant: bool = Field(description="Grant the security the device asks for")


class PinQuestion(BaseModel):
    pin: str = Field(description="The 5-digit PIN: the first five digits of the DSK on the device's label")


def class_words(classes: list[int]) -> list[str]:
    return [ga.SECURITY_WORDS.get(c, f"class {c}") for c in classes]


def downgrade_sentence(p: ga.InclusionProgress, who: str, security: str | None, asked: int) -> str:
    """An inclusion that ended with less security than the device asked for, said as what it is."""
    got = "without security" if security in (None, "none") else f"with only {security} security"
    lead = (
        f"Security downgrade: {who} joined the network {got}, less than the {class_words([asked])[0]} "
        "security it asked for"
    )
    if p.granted_classes == []:
        return f"{lead}, because it was not granted; to secure it, exclude it and include it again, granting its security."
    if asked in (1, 2):  # S2 authenticated and access control need the PIN
        return (
            f"{lead} (the secure set-up failed, as a wrong or missing PIN makes it); exclude it and include it "
            "again with the PIN from its label."
        )
    return f"{lead} (the secure set-up failed); exclude it and include it again."


def qr_text(said: str) -> str:
    try:
        return read_qr(said)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def grant_question(p: ga.InclusionProgress) -> str:
    return (
        f"The new device (node {p.node_id}) asks for {and_list(class_words(p.requested_classes)) or 'no'} "
        "security. Grant it?"
    )


def pin_question(p: ga.InclusionProgress) -> str:
    return (
        f"Enter the device's 5-digit PIN: the first five digits of the DSK on its label, which continues "
        f"{p.partial_dsk}."
    )


# What a phase says when nothing about the device is known yet or needed.
_PHASE_WORDS = {
    ga.INCLUDING: "zwave-js-ui is waiting for a device: press its inclusion button now.",
    ga.EXCLUDING: "zwave-js-ui is waiting for the device to leave: press its button now.",
    ga.STOPPED: "Inclusion or exclusion stopped: no device joined or left.",
    ga.FAILED: "The inclusion failed: no device was added.",
}


def describe(p: ga.InclusionProgress, name: str | None, security: str | None) -> str:
    who = f"{name} (node {p.node_id})" if name else f"node {p.node_id}"
    if p.phase == ga.FOUND:
        return f"A device was found (node {p.node_id}); zwave-js-ui is setting it up."
    if p.phase == ga.GRANT:
        return grant_question(p) + " Answer with answer_zwave_inclusion (grant true or false)."
    if p.phase == ga.DSK:
        return pin_question(p) + " Answer with answer_zwave_inclusion (pin)."
    if p.phase == ga.ADDED:
        return f"{who} joined the network; its interview is still running."
    if p.phase == ga.READY:
        sec = "without security" if security in (None, "none") else f"with {security} security"
        return f"{who} joined the network {sec} and is ready."
    if p.phase == ga.EXCLUDED:
        removed = p.removed_node or {}
        label = removed.get("name") or f"node {removed.get('id')}"
        return f"{label} was removed from the network."
    return _PHASE_WORDS.get(p.phase, "No inclusion or exclusion is running.")


# --- the changes -------------------------------------------------------------------------------------


def inclusion_change(
    network: ga.NetworkAdmin, security: str, qr: str | None, name: str | None, location: str | None
) -> AdminChange:
    strategy = STRATEGIES[security]
    options: dict[str, Any] = {k: v.strip() for k, v in (("name", name), ("location", location)) if v}
    if qr:
        strategy = STRATEGIES["s2"]
        options["qrString"] = qr_text(qr)
    return AdminChange(
        tool="start_zwave_inclusion",
        action="start_inclusion",
        words=frozenset({"include"}),
        what=f"start adding a new device{SECURITY_WORDS[security]}" + (f" named {name}" if name else ""),
        requests=[network.start_inclusion(strategy, options)],
        value={"security": security, "name": name, "location": location},
    )


def exclusion_change(network: ga.NetworkAdmin) -> AdminChange:
    return AdminChange(
        tool="start_zwave_exclusion",
        action="start_exclusion",
        words=frozenset({"exclude"}),
        what="start removing a device from the network (the next device whose button is pressed leaves)",
        requests=[network.start_exclusion()],
    )


def stop_change(network: ga.NetworkAdmin, excluding: bool, why: str) -> AdminChange:
    return AdminChange(
        tool="stop_zwave_inclusion",
        action="stop_exclusion" if excluding else "stop_inclusion",
        words=frozenset({"stop"}),
        what=f"stop {'excluding' if excluding else 'including'} devices ({why})",
        requests=[network.stop_exclusion() if excluding else network.stop_inclusion()],
    )


async def provisioning_change(
    network: ga.NetworkAdmin, qr: str, name: str | None, location: str | None
) -> tuple[AdminChange, list[str]]:
    """The SmartStart entry of a QR code (as `qr_text` reads it) as a change, with the security classes the
    device will get."""
    try:
        parsed = (await network.parse_qr(qr)).get("parsed") or {}
    except GatewayError as exc:
        raise UserError(f"zwave-js-ui could not read that QR code: {exc}.") from exc
    dsk = str(parsed.get("dsk") or "") if isinstance(parsed, dict) else ""
    if not dsk:
        raise UserError("zwave-js-ui read that QR code but found no DSK in it: it cannot be provisioned.")
    entry = {**parsed, **{k: v for k, v in (("name", name), ("location", location)) if v}}
    change = AdminChange(
        tool="provision_zwave_device",
        action="provision",
        words=frozenset({"provision"}),
        what=f"put {name or 'the device'} (DSK …{dsk[-11:]}) on the SmartStart list, so it joins by itself when powered",
        requests=[network.provision(entry)],
        value=masked_dsk(dsk),  # the PIN (its first five digits) is the secret: never logged
    )
    return change, class_words([c for c in parsed.get("securityClasses") or [] if isinstance(c, int)])


async def remove_failed_change(network: ga.NetworkAdmin, device: Device, api_timeout: float) -> AdminChange:
    await _must_be_failed(network, device, "remove")
    return AdminChange(
        tool="remove_failed_zwave_node",
        action="remove_failed",
        words=frozenset({"remove_node"}),
        what=f"remove the failed node {device.name} (node {device.node_id}) from the network",
        requests=[network.remove_failed(device.node_id, max(api_timeout, 30.0))],
        device=device,
    )


async def replace_failed_change(
    network: ga.NetworkAdmin, device: Device, security: str, qr: str | None
) -> AdminChange:
    await _must_be_failed(network, device, "replace")
    strategy = STRATEGIES["s2"] if security == "auto" or qr else STRATEGIES[security]
    options: dict[str, Any] = {"qrString": qr_text(qr)} if qr else {}
    return AdminChange(
        tool="replace_failed_zwave_node",
        action="replace_failed",
        words=frozenset({"replace_node"}),
        what=f"replace the failed node {device.name} (node {device.node_id}) with a new device",
        requests=[network.replace_failed(device.node_id, strategy, options)],
        device=device,
    )


async def _must_be_failed(network: ga.NetworkAdmin, device: Device, verb: str) -> None:
    try:
        failed = await network.is_failed(device.node_id)
    except GatewayError as exc:
        raise UserError(f"Could not ask zwave-js-ui whether {device.name} has failed: {exc}.") from exc
    if not failed:
        raise UserError(
            f"{device.name} has not failed (the controller still reaches it), so it cannot be {verb}d this way; "
            "exclude it instead."
        )


# --- the flow ----------------------------------------------------------------------------------------


async def start(
    care: NetworkCare, change: AdminChange, token: str | None, ask: Asker | None, timeout_s: float
) -> Carried:
    """Start including or excluding through the gate and arm the time limit."""
    carried = await care.carry(change, token, ask)
    if not carried.sent:
        return carried
    excluding = change.action == "start_exclusion"
    if carried.result is not True:
        doing = "excluding" if excluding else "including"
        raise UserError(f"zwave-js-ui did not start {doing}: it is busy adding or removing another device.")
    _arm_stop(care, timeout_s, excluding)
    return carried


def _arm_stop(care: NetworkCare, seconds: float, excluding: bool) -> None:
    """Our own time limit on top of zwave-js-ui's: stop (through the same path) when it runs out."""
    run = care.network.progress  # a new start makes a new progress object: this timer is for this run only

    async def stop_later() -> None:
        await asyncio.sleep(seconds)
        if care.network.progress is run and run.phase in (ga.INCLUDING, ga.EXCLUDING):
            with contextlib.suppress(Exception):
                await care.carry(stop_change(care.network, excluding, "time limit"), None, None)

    task = asyncio.get_running_loop().create_task(stop_later())
    _timers.add(task)
    task.add_done_callback(_timers.discard)


_timers: set[asyncio.Task[None]] = set()


async def send_answer(
    action: str, what: str, request: ga.AdminRequest, care: NetworkCare, ask: Asker | None, value: Any = None
) -> None:
    """The person's answer to zwave-js-ui's question (or the set-up's abort), carried through the gate."""
    change = AdminChange(
        tool="answer_zwave_inclusion",
        action=action,
        words=frozenset({action}),
        what=what,
        requests=[request],
        value=value,
    )
    await care.carry(change, None, ask)


async def send_grant(care: NetworkCare, ask: Asker | None, grant: bool) -> None:
    """Grant the new device the security classes it asked for (all of them), or none."""
    network = care.network
    classes = list(network.progress.requested_classes) if grant else []
    what = f"grant the new device {and_list(class_words(classes)) or 'no'} security"
    request = network.grant_security_classes(classes, False)
    await send_answer("grant_security", what, request, care, ask, classes)


async def send_pin(care: NetworkCare, ask: Asker | None, said: str) -> None:
    network = care.network
    try:
        pin = read_pin(said, network.progress.partial_dsk)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    await send_answer(
        "enter_pin", "enter the new device's PIN", network.validate_dsk(pin), care, ask, "•••••"
    )


async def follow(
    care: NetworkCare, wait_s: float, ask: Asker | None, elicit: Elicit, progress: ProgressReporter | None
) -> None:
    """Walk the inclusion forward until it ends, a question needs the person, or the wait is over."""
    network = care.network
    deadline = time.monotonic() + wait_s
    step = 0
    while True:
        p = network.progress
        if p.phase in FINAL and p.phase != ga.IDLE:
            return
        if p.pending_question is not None:
            model = GrantQuestion if p.phase == ga.GRANT else PinQuestion
            question = grant_question(p) if p.phase == ga.GRANT else pin_question(p)
            reply = await elicit(question, model, f"inclusion|{p.node_id}|{p.phase}|{question}")
            if reply is None:
                return  # two-step: the model asks the person and calls answer_zwave_inclusion
            if isinstance(reply, str):  # declined or cancelled: stop the inclusion without security
                what = "stop the security set-up of the new device"
                await send_answer("abort_inclusion", what, network.abort_inclusion(), care, ask)
            elif isinstance(reply, GrantQuestion):
                await send_grant(care, ask, reply.grant)
            elif isinstance(reply, PinQuestion):
                await send_pin(care, ask, reply.pin)
            continue
        left = deadline - time.monotonic()
        if left <= 0:
            return
        step += 1
        if progress is not None:
            with contextlib.suppress(Exception):
                await progress.report_progress(step, None, describe(p, None, None))
        await network.wait(p.version, left)
