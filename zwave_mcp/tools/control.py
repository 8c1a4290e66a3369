"""control_zwave_device: act on a device, with confirmation for sensitive actions, and report what it did."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from zwave_mcp.executor import ToolSpec
from zwave_mcp.tools.models import ControlArgs, ControlResult, MqttMessage
from zwave_mcp.tools.present import summarize

if TYPE_CHECKING:
    from zwave_mcp.server import App

log = logging.getLogger(__name__)

CONTROL = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True
)


class Confirm(BaseModel):
    """What the person is asked through elicitation."""

    confirm: bool = Field(description="Yes, do it")


def elicitation_asker(ctx: Context | None) -> Any:
    """`ask(prompt)` through the client when it declared elicitation; None when it cannot ask.

    `ask` itself answers None when the question could not be delivered, which means the same.
    """
    if ctx is None:
        return None
    try:
        capabilities = ctx.client_capabilities
    except Exception:  # no session (direct Python calls)
        return None
    if capabilities is None or capabilities.elicitation is None:
        return None

    async def ask(prompt: str) -> str | None:
        try:
            answer = await ctx.elicit(prompt, Confirm)
        except MCPError as exc:
            # Declared but not deliverable (no back-channel on this transport, or the client answered
            # with an error): fall back on the one-time token instead of failing the call.
            log.info("elicitation failed; answering with a confirmation token", extra={"why": str(exc)})
            return None
        if answer.action == "accept":
            data = getattr(answer, "data", None)
            return "accept" if data is None or getattr(data, "confirm", False) else "decline"
        return str(answer.action)

    return ask


def specs(app: App) -> list[ToolSpec]:
    service = app.devices

    async def control_zwave_device(args: ControlArgs, ctx: Context) -> ControlResult:
        params = args.model_dump(include={"level", "value", "setpoint", "mode", "color", "position"})
        outcome = await service.control(
            args.deviceName,
            args.action,
            params=params,
            token=args.confirmationToken,
            ask=elicitation_asker(ctx),
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
