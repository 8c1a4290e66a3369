"""control_zwave_device: act on a device, with confirmation for sensitive actions, and report what it did."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations

from zwave_mcp.devices.control import ControlPlan
from zwave_mcp.devices.describe import after_change_note
from zwave_mcp.executor import ToolSpec
from zwave_mcp.outcome import Outcome
from zwave_mcp.tools.asker import elicitation_asker
from zwave_mcp.tools.models import ControlArgs, ControlResult, MqttMessage
from zwave_mcp.tools.present import summarize

if TYPE_CHECKING:
    from zwave_mcp.app import App

CONTROL = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True
)


def control_sentence(plan: ControlPlan, said: str, outcome: Outcome) -> str:
    """The gate's sentence, and what the device's state adds that the person should hear: the door stands
    open behind a lock, a colour set on a bulb that is off."""
    note = after_change_note(plan.device, plan.action, confirmed=outcome is Outcome.CONFIRMED)
    return f"{said} {note}" if note else said


def specs(app: App) -> list[ToolSpec]:
    service = app.devices

    async def control_zwave_device(args: ControlArgs, ctx: Context) -> ControlResult:
        params = args.model_dump(include={"level", "value", "setpoint", "mode", "color", "position"})
        plan, result = await service.control(
            args.deviceName,
            args.action,
            params=params,
            token=args.confirmationToken,
            ask=elicitation_asker(ctx),
        )
        device = result.devices[0] if result.devices else None
        said = control_sentence(plan, result.sentence, result.outcome)
        return ControlResult(
            summary=said,
            device=summarize(plan.device),
            action=plan.action,
            outcome=result.outcome,
            target=plan.argument,
            reported=device.reported if device is not None else None,
            confirmationToken=result.token,
            expiresInSeconds=result.token_ttl_s,
            wouldSend=[MqttMessage(**m) for m in result.messages] or None,
        )

    return [
        ToolSpec(
            "control_zwave_device",
            "Control a device by name: on, off, toggle, dim/set_level (0-100 % or '+10'), lock, unlock, open, "
            "close, stop, set_position, set_temperature, set_mode, set_color. Waits for the device's own "
            "report and says whether it was confirmed, is still moving, is queued (sleeping device), was "
            "sent but not confirmed, failed, or got no answer from zwave-js-ui. Also accepts words like "
            "turn on, switch off, brightness. Unlocking and opening doors need the person's confirmation.",
            ControlArgs,
            ControlResult,
            control_zwave_device,
            mutating=True,
            annotations=CONTROL,
            title="Control a device",
        )
    ]
