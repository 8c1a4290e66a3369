"""control_zwave_device: act on a device, with confirmation for sensitive actions, and report what it did."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations

from zwave_mcp.asking import asker_for
from zwave_mcp.executor import ToolSpec
from zwave_mcp.tools.models import ControlArgs, ControlResult, MqttMessage
from zwave_mcp.tools.present import summarize

if TYPE_CHECKING:
    from zwave_mcp.server import App

CONTROL = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True
)


def specs(app: App) -> list[ToolSpec]:
    service = app.devices

    async def control_zwave_device(args: ControlArgs, ctx: Context) -> ControlResult:
        params = args.model_dump(include={"level", "value", "setpoint", "mode", "color", "position"})
        outcome = await service.control(
            args.deviceName,
            args.action,
            params=params,
            token=args.confirmationToken,
            ask=asker_for(ctx, app.questions),
        )
        return ControlResult(
            summary=outcome.sentence,
            device=summarize(outcome.device),
            action=outcome.action,
            outcome=outcome.outcome,  # type: ignore[arg-type]
            target=outcome.target,
            reported=outcome.reported,
            confirmationToken=outcome.token,
            expiresInSeconds=outcome.token_ttl_s,
            wouldSend=[MqttMessage(**m) for m in outcome.messages] or None,
        )

    return [
        ToolSpec(
            "control_zwave_device",
            "Control a device by name: on, off, toggle, dim/set_level (0-100 % or '+10'), lock, unlock, open, "
            "close, stop, set_position, set_temperature, set_mode, set_color. Waits for the device's own "
            "report and says whether it was confirmed, is still moving, is queued (sleeping device), was "
            "sent but not confirmed, or failed. Unlocking and opening doors need the person's confirmation.",
            ControlArgs,
            ControlResult,
            control_zwave_device,
            mutating=True,
            annotations=CONTROL,
            title="Control a device",
        )
    ]
