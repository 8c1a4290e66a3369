"""control_zwave_device and control_zwave_group: act on a device or a group, with confirmation for sensitive
actions, and report what each device did."""

from __future__ import annotations

from mcp.server.mcpserver import Context

from zwave_mcp.devices.writes import VALUE_ARGUMENTS
from zwave_mcp.server.app import App
from zwave_mcp.server.asking import asker_for
from zwave_mcp.server.tools.models import (
    ControlArgs,
    ControlResult,
    GroupControlArgs,
    GroupControlResult,
    GroupMember,
    SkippedDevice,
    gate_answer,
)
from zwave_mcp.server.tools.present import summarize
from zwave_mcp.server.tools.spec import tool


async def control_zwave_device(app: App, args: ControlArgs, ctx: Context | None) -> ControlResult:
    """Control a device by name: on, off, toggle, dim/set_level (0-100 % or '+10'), lock, unlock, open, close,
    stop, set_position, set_temperature, set_mode, set_color. Waits for the device's own report and says
    whether it was confirmed, is still moving, is queued (sleeping device), was sent but unconfirmed, failed,
    or got no answer from zwave-js-ui (unknown). Also accepts words like turn on, switch off, brightness.
    Unlocking and opening doors need the person's confirmation."""
    plan, result = await app.devices.control(
        args.deviceName,
        args.action,
        params=args.model_dump(include=set(VALUE_ARGUMENTS)),
        token=args.confirmationToken,
        ask=asker_for(ctx, app.questions),
    )
    device = result.devices[0] if result.devices else None
    shown = device.as_reported() if device is not None else plan.device
    return ControlResult(
        summary=result.sentence,
        device=summarize(shown),
        action=plan.action,
        outcome=result.outcome,
        target=plan.argument,
        reported=device.reported if device is not None else None,
        **gate_answer(result),
    )


async def control_zwave_group(app: App, args: GroupControlArgs, ctx: Context | None) -> GroupControlResult:
    """Change many devices at once, the way people say it: 'turn off the kitchen', 'all lights off', 'dim the
    living room lights to 30 %', 'close the blinds', 'lock the doors'. target is a room, a kind (lights,
    plugs, switches, blinds, locks, thermostats, sensors, doors, fans, valves, sirens, smoke alarms, remotes),
    both, a group from the alias file, or 'everything'; the actions and values are those of
    control_zwave_device. Devices that cannot do it are left out; each one's outcome comes from its own
    report. Unlocking and opening doors need the person's confirmation (asked once for the whole group)."""
    plan, result = await app.devices.control_group(
        args.target,
        args.action,
        params=args.model_dump(include=set(VALUE_ARGUMENTS)),
        token=args.confirmationToken,
        ask=asker_for(ctx, app.questions),
    )
    by_key = {d.device.key: d for d in result.devices}
    members = [
        GroupMember(
            device=summarize(p.device if done is None else done.as_reported()),
            outcome=result.outcome if done is None else done.outcome,
            target=p.argument,
            reported=None if done is None else done.reported,
            reason=None if done is None else (done.reason or None),
            already=done is not None and done.already,
        )
        for p in plan.plans
        for done in [by_key.get(p.device.key)]
    ]
    return GroupControlResult(
        summary=result.sentence,
        target=plan.group.label,
        action=plan.action,
        outcome=result.outcome,
        devices=members,
        skipped=[SkippedDevice(name=s.device.name, key=s.device.key, why=s.why) for s in plan.skipped],
        value=plan.argument,
        **gate_answer(result),
    )


TOOLS = [
    tool(control_zwave_group, mutating=True, title="Control a group of devices"),
    tool(control_zwave_device, mutating=True, title="Control a device"),
]
