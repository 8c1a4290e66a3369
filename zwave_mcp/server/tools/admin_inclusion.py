"""Adding and removing devices: the inclusion tools (start, status, answer, stop), exclusion, SmartStart
provisioning, and removing or replacing a failed node. The flow itself is `network.inclusion`'s; a tool
checks its arguments, asks it, and says where the inclusion stands (`InclusionStatus`); `elicit` puts
zwave-js-ui's security and PIN questions to the person in the middle of the call when the client can.
"""

from __future__ import annotations

import logging
from functools import partial

from mcp.server.mcpserver import Context
from pydantic import BaseModel

from zwave_mcp.answers import and_list, capital
from zwave_mcp.errors import UserError
from zwave_mcp.gateway import admin as ga
from zwave_mcp.network import inclusion
from zwave_mcp.network.changes import AdminChange, Carried
from zwave_mcp.server.app import App
from zwave_mcp.server.asking import ElicitationAsker, QuestionSeal, asker_for
from zwave_mcp.server.tools.admin_models import (
    AnswerArgs,
    ExclusionArgs,
    FailedNodeArgs,
    InclusionArgs,
    InclusionStatus,
    ProvisionArgs,
    ReplaceArgs,
    change_fields,
)
from zwave_mcp.server.tools.models import NoArgs
from zwave_mcp.server.tools.spec import tool

log = logging.getLogger(__name__)


async def elicit(
    questions: QuestionSeal, ctx: Context | None, message: str, schema: type[BaseModel], binding: str
) -> BaseModel | str | None:
    """The person's answer (the model), "decline"/"cancel", or None when the client cannot ask here.

    Asked through the one asking path (`zwave_mcp.server.asking`). Only a question put in the middle of the call
    works for inclusion: a 2026-07-28 client would answer by calling the tool again, which would start a
    second inclusion, so those clients answer through `answer_zwave_inclusion` (the two-step flow)."""
    asker = asker_for(ctx, questions)
    if not isinstance(asker, ElicitationAsker):
        return None
    reply = await asker.form(message, binding, schema)
    if reply is None:
        log.info("elicitation failed; the question stays pending for answer_zwave_inclusion")
        return None
    if reply.action == "accept" and reply.data is not None:
        return schema.model_validate(reply.data)
    return str(reply.action)


def status(app: App, summary: str | None = None, outcome: str | None = None) -> InclusionStatus:
    """Where the inclusion stands now, in words (`summary` and `outcome` when the tool has its own)."""
    p = app.care.network.progress
    node = app.gateway.inventory.node(p.node_id) if p.node_id is not None else None
    security = None
    downgraded = None
    if node is not None and p.phase in (ga.ADDED, ga.READY):
        security = ga.security_words(node.details.get("security"))
        downgraded = p.downgrade(node.details.get("security"))
    if summary is None and downgraded is not None and node is not None:
        summary = inclusion.downgrade_sentence(p, f"{node.name} (node {p.node_id})", security, downgraded)
    return InclusionStatus(
        summary=summary or inclusion.describe(p, node.name if node else None, security),
        outcome=outcome or ("security_downgraded" if downgraded is not None else p.phase),
        securityDowngraded=None if security is None else downgraded is not None,
        phase=p.phase,
        pending=p.pending_question,  # type: ignore[arg-type]
        requestedSecurity=inclusion.class_words(p.requested_classes) or None,
        partialDsk=p.partial_dsk if p.phase == ga.DSK else None,
        nodeId=p.node_id,
        name=node.name if node else None,
        security=security,
    )


def _not_sent(app: App, carried: Carried) -> InclusionStatus:
    """A change asked for, declined or only shown (dry run): the inclusion has not moved."""
    return InclusionStatus(**change_fields(carried), phase=app.care.network.progress.phase)


async def _followed(app: App, ctx: Context | None, wait_s: float) -> InclusionStatus:
    """Follow the inclusion for up to `wait_s` seconds, then say where it stands."""
    ask = asker_for(ctx, app.questions)
    await inclusion.follow(app.care, app.care.wait_s(wait_s), ask, partial(elicit, app.questions, ctx), ctx)
    return status(app)


async def _begin(
    app: App, change: AdminChange, args: InclusionArgs | ExclusionArgs, ctx: Context | None
) -> InclusionStatus:
    ask = asker_for(ctx, app.questions)
    carried = await inclusion.start(app.care, change, args.confirmationToken, ask, args.timeoutSeconds)
    if not carried.sent:
        return _not_sent(app, carried)
    return await _followed(app, ctx, args.waitSeconds)


async def start_zwave_inclusion(app: App, args: InclusionArgs, ctx: Context | None) -> InclusionStatus:
    """Add a new device: starts inclusion (S2, S0 or none; or from its QR code), then asks the person which
    security to grant and for the device's PIN. Needs the person's confirmation."""
    args.check_text("name", "location", "qrCode")
    change = inclusion.inclusion_change(
        app.care.network, args.security, args.qrCode, args.name, args.location
    )
    return await _begin(app, change, args, ctx)


async def get_zwave_inclusion_status(app: App, _args: NoArgs, _ctx: Context | None) -> InclusionStatus:
    """What an inclusion or exclusion is waiting for: a security question or the PIN, or its result."""
    return status(app)


async def answer_zwave_inclusion(app: App, args: AnswerArgs, ctx: Context | None) -> InclusionStatus:
    """Answer the pending inclusion question: grant (true/false) the security asked for, or the 5-digit PIN
    from the device's label. Only with the person's own answer."""
    p = app.care.network.progress
    ask = asker_for(ctx, app.questions)
    if p.phase == ga.GRANT:
        if args.grant is None:
            raise UserError(inclusion.grant_question(p) + " Answer with grant true or false.")
        await inclusion.send_grant(app.care, ask, args.grant)
    elif p.phase == ga.DSK:
        if not args.pin:
            raise UserError(inclusion.pin_question(p) + " Answer with pin.")
        await inclusion.send_pin(app.care, ask, args.pin)
    else:
        raise UserError("zwave-js-ui is not waiting for an answer: " + inclusion.describe(p, None, None))
    return await _followed(app, ctx, args.waitSeconds)


async def stop_zwave_inclusion(app: App, _args: NoArgs, ctx: Context | None) -> InclusionStatus:
    """Stop including or excluding devices."""
    excluding = app.care.network.progress.phase == ga.EXCLUDING
    change = inclusion.stop_change(app.care.network, excluding, "asked")
    carried = await app.care.carry(change, None, asker_for(ctx, app.questions))
    if not carried.sent:
        return _not_sent(app, carried)
    if not carried.result:
        return status(
            app,
            "Nothing to stop: zwave-js-ui was not including or excluding devices.",
            "nothing_to_stop",
        )
    return status(app, f"Stopped {'excluding' if excluding else 'including'} devices.", "stopped")


async def start_zwave_exclusion(app: App, args: ExclusionArgs, ctx: Context | None) -> InclusionStatus:
    """Remove a device that still works: the next device whose button is pressed leaves the network. Needs the
    person's confirmation."""
    return await _begin(app, inclusion.exclusion_change(app.care.network), args, ctx)


async def provision_zwave_device(app: App, args: ProvisionArgs, ctx: Context | None) -> InclusionStatus:
    """Put a device on the SmartStart list from its QR code text, with the name and room it will get; it then
    joins by itself when powered on. Needs the person's confirmation."""
    qr = inclusion.qr_text(args.qrCode)
    args.check_text("name", "location")
    change, classes = await inclusion.provisioning_change(app.care.network, qr, args.name, args.location)
    carried = await app.care.carry(change, args.confirmationToken, asker_for(ctx, app.questions))
    if not carried.sent:
        return _not_sent(app, carried)
    sec = f" with {and_list(classes)} security" if classes else ""
    return status(
        app,
        f"{capital(args.name or 'the device')} is on the SmartStart list; it will join{sec} when it is powered on.",
        "provisioned",
    )


async def remove_failed_zwave_node(app: App, args: FailedNodeArgs, ctx: Context | None) -> InclusionStatus:
    """Remove a device that has failed (dead, unreachable) from the network. Needs the person's
    confirmation."""
    device = app.devices.resolve(args.deviceName, for_mutation=True)
    change = await inclusion.remove_failed_change(app.care.network, device, app.settings.api_timeout)
    carried = await app.care.carry(change, args.confirmationToken, asker_for(ctx, app.questions))
    if not carried.sent:
        return _not_sent(app, carried)
    gone = carried.said(device)
    if gone == device.name:
        gone = f"{device.name} (node {device.node_id})"
    return status(app, f"{capital(gone)} was removed from the network.", "removed")


async def replace_failed_zwave_node(app: App, args: ReplaceArgs, ctx: Context | None) -> InclusionStatus:
    """Replace a failed device with a new one that takes its node id. Needs the person's confirmation."""
    device = app.devices.resolve(args.deviceName, for_mutation=True)
    change = await inclusion.replace_failed_change(app.care.network, device, args.security, args.qrCode)
    carried = await app.care.carry(change, args.confirmationToken, asker_for(ctx, app.questions))
    if not carried.sent:
        return _not_sent(app, carried)
    return await _followed(app, ctx, args.waitSeconds)


TOOLS = [
    tool(start_zwave_inclusion, mutating=True, title="Add a device"),
    tool(get_zwave_inclusion_status, title="Inclusion status"),
    tool(answer_zwave_inclusion, mutating=True, title="Answer the inclusion"),
    tool(stop_zwave_inclusion, mutating=True, title="Stop inclusion"),
    tool(start_zwave_exclusion, mutating=True, title="Remove a device"),
    tool(provision_zwave_device, mutating=True, title="SmartStart provisioning"),
    tool(remove_failed_zwave_node, mutating=True, title="Remove a failed device"),
    tool(replace_failed_zwave_node, mutating=True, title="Replace a failed device"),
]
