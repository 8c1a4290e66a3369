"""Adding and removing devices: inclusion (S0, S2 with the DSK PIN, SmartStart from a QR code),
exclusion, and removing or replacing a failed node.

When zwave-js-ui asks which security classes to grant and for the device's PIN, the person is asked
through elicitation when the client offers it; otherwise the tool answers with the pending question and
`answer_zwave_inclusion` carries the person's answer (the two-step flow). Every call to zwave-js-ui that
changes the network (start, stop, grant, PIN, provisioning, removal) is an `AdminChange`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from zwave_mcp.answers import and_list, capital
from zwave_mcp.errors import UserError
from zwave_mcp.gateway import admin as ga
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.gateway.dsk import masked_dsk, read_pin, read_qr
from zwave_mcp.policy import check_text_argument
from zwave_mcp.server.asking import ElicitationAsker, QuestionSeal, asker_for
from zwave_mcp.server.executor import ToolSpec
from zwave_mcp.server.tools.admin_changes import AdminChange, change_fields
from zwave_mcp.server.tools.admin_models import (
    AnswerArgs,
    ExclusionArgs,
    FailedNodeArgs,
    InclusionArgs,
    InclusionStatus,
    ProvisionArgs,
    ReplaceArgs,
)
from zwave_mcp.server.tools.control import CONTROL
from zwave_mcp.server.tools.devices import READ
from zwave_mcp.server.tools.models import NoArgs

if TYPE_CHECKING:
    from zwave_mcp.server.tools.admin_changes import AdminContext

log = logging.getLogger(__name__)

STRATEGIES = {
    "auto": ga.STRATEGY["default"],
    "s2": ga.STRATEGY["s2"],
    "s0": ga.STRATEGY["s0"],
    "none": ga.STRATEGY["insecure"],
}
FINAL = (ga.READY, ga.STOPPED, ga.FAILED, ga.EXCLUDED, ga.IDLE)


class GrantQuestion(BaseModel):
    grant: bool = Field(description="Grant the security the device asks for")


class PinQuestion(BaseModel):
    pin: str = Field(description="The 5-digit PIN: the first five digits of the DSK on the device's label")


def _class_words(classes: list[int]) -> list[str]:
    return [ga.SECURITY_WORDS.get(c, f"class {c}") for c in classes]


def downgrade_sentence(p: ga.InclusionProgress, who: str, security: str | None, asked: int) -> str:
    """An inclusion that ended with less security than the device asked for, said as what it is."""
    got = "without security" if security in (None, "none") else f"with only {security} security"
    lead = (
        f"Security downgrade: {who} joined the network {got}, less than the {_class_words([asked])[0]} "
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
        f"The new device (node {p.node_id}) asks for {and_list(_class_words(p.requested_classes)) or 'no'} "
        "security. Grant it?"
    )


def pin_question(p: ga.InclusionProgress) -> str:
    return (
        f"Enter the device's 5-digit PIN: the first five digits of the DSK on its label, which continues "
        f"{p.partial_dsk}."
    )


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


def specs(admin: AdminContext) -> list[ToolSpec]:
    app = admin.app
    network = admin.network

    def status(summary: str | None = None, outcome: str | None = None) -> InclusionStatus:
        p = network.progress
        node = app.gateway.inventory.node(p.node_id) if p.node_id is not None else None
        security = None
        downgraded = None
        if node is not None and p.phase in (ga.ADDED, ga.READY):
            security = ga.security_words(node.details.get("security"))
            downgraded = p.downgrade(node.details.get("security"))
        if summary is None and downgraded is not None and node is not None:
            summary = downgrade_sentence(p, f"{node.name} (node {p.node_id})", security, downgraded)
        return InclusionStatus(
            summary=summary or describe(p, node.name if node else None, security),
            outcome=outcome or ("security_downgraded" if downgraded is not None else p.phase),
            securityDowngraded=None if security is None else downgraded is not None,
            phase=p.phase,
            pending=p.pending_question,  # type: ignore[arg-type]
            requestedSecurity=_class_words(p.requested_classes) or None,
            partialDsk=p.partial_dsk if p.phase == ga.DSK else None,
            nodeId=p.node_id,
            name=node.name if node else None,
            security=security,
        )

    def describe(p: ga.InclusionProgress, name: str | None, security: str | None) -> str:
        who = f"{name} (node {p.node_id})" if name else f"node {p.node_id}"
        if p.phase == ga.INCLUDING:
            return "zwave-js-ui is waiting for a device: press its inclusion button now."
        if p.phase == ga.EXCLUDING:
            return "zwave-js-ui is waiting for the device to leave: press its button now."
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
        if p.phase == ga.STOPPED:
            return "Inclusion or exclusion stopped: no device joined or left."
        if p.phase == ga.FAILED:
            return "The inclusion failed: no device was added."
        return "No inclusion or exclusion is running."

    async def send_answer(
        action: str, what: str, request: ga.AdminRequest, ctx: Context | None, value: Any = None
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
        await admin.carry(change, None, ctx)

    async def send_grant(grant: bool, ctx: Context | None) -> None:
        classes = list(network.progress.requested_classes) if grant else []
        what = f"grant the new device {and_list(_class_words(classes)) or 'no'} security"
        await send_answer(
            "grant_security", what, network.grant_security_classes(classes, False), ctx, classes
        )

    async def send_pin(said: str, ctx: Context | None) -> None:
        try:
            pin = read_pin(said, network.progress.partial_dsk)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        await send_answer("enter_pin", "enter the new device's PIN", network.validate_dsk(pin), ctx, "•••••")

    async def follow(ctx: Context | None, wait_s: float) -> InclusionStatus:
        """Walk the inclusion forward until it ends, a question needs the person, or the wait is over."""
        deadline = time.monotonic() + wait_s
        step = 0
        while True:
            p = network.progress
            if p.phase in FINAL and p.phase != ga.IDLE:
                return status()
            if p.pending_question is not None:
                model = GrantQuestion if p.phase == ga.GRANT else PinQuestion
                question = grant_question(p) if p.phase == ga.GRANT else pin_question(p)
                binding = f"inclusion|{p.node_id}|{p.phase}|{question}"
                answer = await elicit(app.questions, ctx, question, model, binding)
                if answer is None:
                    return status()  # two-step: the model asks the person and calls answer_zwave_inclusion
                if isinstance(answer, str):  # declined or cancelled: stop the inclusion without security
                    what = "stop the security set-up of the new device"
                    await send_answer("abort_inclusion", what, network.abort_inclusion(), ctx)
                elif isinstance(answer, GrantQuestion):
                    await send_grant(answer.grant, ctx)
                elif isinstance(answer, PinQuestion):
                    await send_pin(answer.pin, ctx)
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                return status()
            step += 1
            if ctx is not None:
                with contextlib.suppress(Exception):
                    await ctx.report_progress(step, None, describe(p, None, None))
            await network.wait(p.version, left)

    def arm_stop(seconds: float, excluding: bool) -> None:
        """Our own time limit on top of zwave-js-ui's: stop (through the same path) when it runs out."""
        run = network.progress  # a new start makes a new progress object: this timer is for this run only

        async def stop_later() -> None:
            await asyncio.sleep(seconds)
            if network.progress is run and run.phase in (ga.INCLUDING, ga.EXCLUDING):
                with contextlib.suppress(Exception):
                    await admin.carry(_stop_change(excluding, "time limit"), None, None)

        task = asyncio.get_running_loop().create_task(stop_later())
        _timers.add(task)
        task.add_done_callback(_timers.discard)

    def _stop_change(excluding: bool, why: str) -> AdminChange:
        return AdminChange(
            tool="stop_zwave_inclusion",
            action="stop_exclusion" if excluding else "stop_inclusion",
            words=frozenset({"stop"}),
            what=f"stop {'excluding' if excluding else 'including'} devices ({why})",
            requests=[network.stop_exclusion() if excluding else network.stop_inclusion()],
        )

    async def start_zwave_inclusion(args: InclusionArgs, ctx: Context | None) -> InclusionStatus:
        for field_name, text in (("name", args.name), ("location", args.location), ("qrCode", args.qrCode)):
            if text:
                check_text_argument(field_name, text)
        strategy = STRATEGIES[args.security]
        options: dict[str, Any] = {}
        if args.name:
            options["name"] = args.name.strip()
        if args.location:
            options["location"] = args.location.strip()
        if args.qrCode:
            strategy = STRATEGIES["s2"]
            options["qrString"] = qr_text(args.qrCode)
        words = {
            "auto": "",
            "s2": " with S2 security",
            "s0": " with S0 security",
            "none": " without security",
        }
        change = AdminChange(
            tool="start_zwave_inclusion",
            action="start_inclusion",
            words=frozenset({"include"}),
            what=f"start adding a new device{words[args.security]}"
            + (f" named {args.name}" if args.name else ""),
            requests=[network.start_inclusion(strategy, options)],
            value={"security": args.security, "name": args.name, "location": args.location},
        )
        return await begin(change, args, ctx, excluding=False)

    async def begin(
        change: AdminChange, args: Any, ctx: Context | None, *, excluding: bool
    ) -> InclusionStatus:
        """Start including or excluding through the gate, arm the time limit, then follow it."""
        carried = await admin.carry(change, args.confirmationToken, ctx)
        if not carried.sent:
            return InclusionStatus(**change_fields(carried), phase=network.progress.phase)
        if carried.result is not True:
            doing = "excluding" if excluding else "including"
            raise UserError(
                f"zwave-js-ui did not start {doing}: it is busy adding or removing another device."
            )
        arm_stop(args.timeoutSeconds, excluding=excluding)
        return await follow(ctx, admin.wait_s(args.waitSeconds))

    async def get_zwave_inclusion_status(_args: NoArgs, _ctx: Context | None) -> InclusionStatus:
        return status()

    async def answer_zwave_inclusion(args: AnswerArgs, ctx: Context | None) -> InclusionStatus:
        p = network.progress
        if p.phase == ga.GRANT:
            if args.grant is None:
                raise UserError(grant_question(p) + " Answer with grant true or false.")
            await send_grant(args.grant, ctx)
        elif p.phase == ga.DSK:
            if not args.pin:
                raise UserError(pin_question(p) + " Answer with pin.")
            await send_pin(args.pin, ctx)
        else:
            raise UserError("zwave-js-ui is not waiting for an answer: " + describe(p, None, None))
        return await follow(ctx, admin.wait_s(args.waitSeconds))

    async def stop_zwave_inclusion(_args: NoArgs, ctx: Context | None) -> InclusionStatus:
        excluding = network.progress.phase == ga.EXCLUDING
        carried = await admin.carry(_stop_change(excluding, "asked"), None, ctx)
        if not carried.sent:
            return InclusionStatus(**change_fields(carried), phase=network.progress.phase)
        if not carried.result:
            return status(
                "Nothing to stop: zwave-js-ui was not including or excluding devices.", "nothing_to_stop"
            )
        return status(f"Stopped {'excluding' if excluding else 'including'} devices.", "stopped")

    async def start_zwave_exclusion(args: ExclusionArgs, ctx: Context | None) -> InclusionStatus:
        change = AdminChange(
            tool="start_zwave_exclusion",
            action="start_exclusion",
            words=frozenset({"exclude"}),
            what="start removing a device from the network (the next device whose button is pressed leaves)",
            requests=[network.start_exclusion()],
        )
        return await begin(change, args, ctx, excluding=True)

    async def provision_zwave_device(args: ProvisionArgs, ctx: Context | None) -> InclusionStatus:
        qr = qr_text(args.qrCode)
        for field_name, text in (("name", args.name), ("location", args.location)):
            if text:
                check_text_argument(field_name, text)
        try:
            parsed = (await network.parse_qr(qr)).get("parsed") or {}
        except GatewayError as exc:
            raise UserError(f"zwave-js-ui could not read that QR code: {exc}.") from exc
        dsk = str(parsed.get("dsk") or "") if isinstance(parsed, dict) else ""
        if not dsk:
            raise UserError("zwave-js-ui read that QR code but found no DSK in it: it cannot be provisioned.")
        entry = {**parsed, **({"name": args.name} if args.name else {})}
        if args.location:
            entry["location"] = args.location
        label = args.name or "the device"
        change = AdminChange(
            tool="provision_zwave_device",
            action="provision",
            words=frozenset({"provision"}),
            what=f"put {label} (DSK …{dsk[-11:]}) on the SmartStart list, so it joins by itself when powered",
            requests=[network.provision(entry)],
            value=masked_dsk(dsk),  # the PIN (its first five digits) is the secret: never logged
        )
        carried = await admin.carry(change, args.confirmationToken, ctx)
        if not carried.sent:
            return InclusionStatus(**change_fields(carried), phase=network.progress.phase)
        classes = _class_words([c for c in parsed.get("securityClasses") or [] if isinstance(c, int)])
        sec = f" with {and_list(classes)} security" if classes else ""
        return status(
            f"{capital(label)} is on the SmartStart list; it will join{sec} when it is powered on.",
            "provisioned",
        )

    async def remove_failed_zwave_node(args: FailedNodeArgs, ctx: Context | None) -> InclusionStatus:
        device = app.devices.resolve(args.deviceName, for_mutation=True)
        await _must_be_failed(device.node_id, device.name, "remove")
        change = AdminChange(
            tool="remove_failed_zwave_node",
            action="remove_failed",
            words=frozenset({"remove_node"}),
            what=f"remove the failed node {device.name} (node {device.node_id}) from the network",
            requests=[network.remove_failed(device.node_id, max(app.settings.api_timeout, 30.0))],
            device=device,
        )
        carried = await admin.carry(change, args.confirmationToken, ctx)
        if not carried.sent:
            return InclusionStatus(**change_fields(carried), phase=network.progress.phase)
        gone = carried.said(device)
        if gone == device.name:
            gone = f"{device.name} (node {device.node_id})"
        return status(f"{capital(gone)} was removed from the network.", "removed")

    async def replace_failed_zwave_node(args: ReplaceArgs, ctx: Context | None) -> InclusionStatus:
        device = app.devices.resolve(args.deviceName, for_mutation=True)
        await _must_be_failed(device.node_id, device.name, "replace")
        strategy = STRATEGIES["s2"] if args.security == "auto" or args.qrCode else STRATEGIES[args.security]
        options: dict[str, Any] = {"qrString": qr_text(args.qrCode)} if args.qrCode else {}
        change = AdminChange(
            tool="replace_failed_zwave_node",
            action="replace_failed",
            words=frozenset({"replace_node"}),
            what=f"replace the failed node {device.name} (node {device.node_id}) with a new device",
            requests=[network.replace_failed(device.node_id, strategy, options)],
            device=device,
        )
        carried = await admin.carry(change, args.confirmationToken, ctx)
        if not carried.sent:
            return InclusionStatus(**change_fields(carried), phase=network.progress.phase)
        return await follow(ctx, admin.wait_s(args.waitSeconds))

    async def _must_be_failed(node_id: int, name: str, verb: str) -> None:
        try:
            failed = await network.is_failed(node_id)
        except GatewayError as exc:
            raise UserError(f"Could not ask zwave-js-ui whether {name} has failed: {exc}.") from exc
        if not failed:
            raise UserError(
                f"{name} has not failed (the controller still reaches it), so it cannot be {verb}d this way; "
                "exclude it instead."
            )

    def spec(
        name: str, description: str, args: Any, handler: Any, *, mutating: bool = True, title: str
    ) -> ToolSpec:
        return ToolSpec(
            name,
            description,
            args,
            InclusionStatus,
            handler,
            mutating=mutating,
            annotations=CONTROL if mutating else READ,
            title=title,
        )

    return [
        spec(
            "start_zwave_inclusion",
            "Add a new device: starts inclusion (S2, S0 or none; or from its QR code), then asks the person "
            "which security to grant and for the device's PIN. Needs the person's confirmation.",
            InclusionArgs,
            start_zwave_inclusion,
            title="Add a device",
        ),
        spec(
            "get_zwave_inclusion_status",
            "What an inclusion or exclusion is waiting for: a security question or the PIN, or its result.",
            NoArgs,
            get_zwave_inclusion_status,
            mutating=False,
            title="Inclusion status",
        ),
        spec(
            "answer_zwave_inclusion",
            "Answer the pending inclusion question: grant (true/false) the security asked for, or the 5-digit "
            "PIN from the device's label. Only with the person's own answer.",
            AnswerArgs,
            answer_zwave_inclusion,
            title="Answer the inclusion",
        ),
        spec(
            "stop_zwave_inclusion",
            "Stop including or excluding devices.",
            NoArgs,
            stop_zwave_inclusion,
            title="Stop inclusion",
        ),
        spec(
            "start_zwave_exclusion",
            "Remove a device that still works: the next device whose button is pressed leaves the network. "
            "Needs the person's confirmation.",
            ExclusionArgs,
            start_zwave_exclusion,
            title="Remove a device",
        ),
        spec(
            "provision_zwave_device",
            "Put a device on the SmartStart list from its QR code text, with the name and room it will get; "
            "it then joins by itself when powered on. Needs the person's confirmation.",
            ProvisionArgs,
            provision_zwave_device,
            title="SmartStart provisioning",
        ),
        spec(
            "remove_failed_zwave_node",
            "Remove a device that has failed (dead, unreachable) from the network. Needs the person's confirmation.",
            FailedNodeArgs,
            remove_failed_zwave_node,
            title="Remove a failed device",
        ),
        spec(
            "replace_failed_zwave_node",
            "Replace a failed device with a new one that takes its node id. Needs the person's confirmation.",
            ReplaceArgs,
            replace_failed_zwave_node,
            title="Replace a failed device",
        ),
    ]


_timers: set[asyncio.Task[None]] = set()
