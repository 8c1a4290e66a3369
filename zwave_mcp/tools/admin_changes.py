"""Every network-care change goes through here: policy (read-only, hide/deny/allow lists, rate limits),
the person's confirmation (elicitation, or a one-time token handed back by the model), the audit line with
the final outcome, and dry run. One place, so the admin tools never call the gateway's changing APIs
themselves: they describe the change (`AdminChange`) and hand over the call that makes it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context

from zwave_mcp.devices.model import Device
from zwave_mcp.errors import PolicyRefusal, UserError
from zwave_mcp.gateway.api import REQUEST_QOS, GatewayError
from zwave_mcp.policy import AuditEvent
from zwave_mcp.tools.control import elicitation_asker
from zwave_mcp.tools.models import MqttMessage

if TYPE_CHECKING:
    from zwave_mcp.server import App

log = logging.getLogger(__name__)

NETWORK_KEY = "network"  # the confirmation-token and rate-limit key of changes aimed at no one device


@dataclass
class AdminChange:
    """One change: who asks (`tool`), what (`action`, `value`, in words `what`), on which device (or the
    network), whether the person must confirm it, and the API call that makes it (`api`, `args` as they
    will be sent; `send` performs it through `NetworkAdmin`)."""

    tool: str
    action: str
    what: str  # lower-case first: "set parameter 3 (LED indicator) of Bedroom Color Bulb to 0"
    send: Callable[[], Awaitable[Any]]
    api: str
    args: list[Any] = field(default_factory=list)
    device: Device | None = None
    value: Any = None
    confirm: bool = False


@dataclass
class Carried:
    """What became of a change: `outcome` is done | dry_run | confirmation_required | declined."""

    outcome: str
    sentence: str = ""
    result: Any = None
    token: str | None = None
    expires_in_s: float | None = None
    would_send: dict[str, Any] | None = None


def change_fields(carried: Carried) -> dict[str, Any]:
    """The `ChangeResult` fields of a change that was not (yet) sent: asked, declined or a dry run."""
    return {
        "summary": carried.sentence,
        "outcome": carried.outcome,
        "confirmationToken": carried.token,
        "expiresInSeconds": carried.expires_in_s,
        "wouldSend": [MqttMessage(**carried.would_send)] if carried.would_send else None,
    }


async def carry_out(app: App, change: AdminChange, *, token: str | None, ctx: Context | None) -> Carried:
    """Authorize, confirm, audit and (unless dry run) send. Raises `PolicyRefusal` / `UserError`."""
    policy = app.policy
    key = change.device.key if change.device is not None else NETWORK_KEY
    attempt = AuditEvent(
        tool=change.tool,
        action=change.action,
        outcome="",
        device=change.device.label if change.device is not None else None,
        device_key=key,
        value=change.value,
    )
    confirmed_by: str | None = None
    if change.device is not None:
        decision = policy.authorize(change.device, change.action, change.value, token=None)
    else:
        decision = policy.authorize_without_device(change.what, key)
    if decision.refused:
        policy.audit(replace(attempt, outcome="refused", decision="refused", reason=decision.message))
        raise PolicyRefusal(decision.message)
    if change.confirm or decision.needs_confirmation:
        if token:
            try:
                policy.redeem(token, key, change.action, change.value)
            except PolicyRefusal as exc:
                policy.audit(replace(attempt, outcome="refused", decision="refused", reason=exc.message))
                raise
            confirmed_by = "token"
        else:
            ask = elicitation_asker(ctx)
            answer = await ask(f"Do you want to {change.what}?") if ask is not None else None
            if answer == "accept":
                confirmed_by = "elicitation"
            elif answer is not None:
                policy.audit(replace(attempt, outcome="declined", decision="needs_confirmation"))
                return Carried("declined", f"Nothing was done: you did not agree to {change.what}.")
            else:
                issued = policy.issue_token(key, change.action, change.value, label=change.what)
                ttl = policy.tokens.ttl_s
                policy.audit(
                    replace(attempt, outcome="confirmation_requested", decision="needs_confirmation")
                )
                return Carried(
                    "confirmation_required",
                    f"To {change.what}, the person must agree first; once they do, call this tool again "
                    f"with the same arguments and confirmationToken set to the token (valid {ttl:g} s).",
                    token=issued,
                    expires_in_s=ttl,
                )
    if app.settings.dry_run:
        topic, payload = app.gateway.api.build_request(change.api, change.args)
        policy.audit(replace(attempt, outcome="dry_run", confirmed_by=confirmed_by))
        message = {"topic": topic, "payload": payload, "qos": REQUEST_QOS, "retain": False}
        return Carried("dry_run", f"Dry run: would {change.what}; nothing was sent.", would_send=message)
    try:
        result = await change.send()
    except GatewayError as exc:
        policy.audit(replace(attempt, outcome="failed", confirmed_by=confirmed_by, reason=str(exc)))
        raise UserError(f"Could not {change.what}: {exc}.") from exc
    policy.audit(replace(attempt, outcome="done", confirmed_by=confirmed_by))
    return Carried("done", result=result)
