"""The confirmation asker of this protocol era: the gate's `ask(question, binding)` through MCP elicitation.

The dialogue itself (when to ask, tokens, re-checking) lives in `zwave_mcp.devices.gate.dialogue`; this
module only knows how to put a yes/no question to the person through the client.
"""

from __future__ import annotations

import logging

from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, Field

from zwave_mcp.devices.gate import Asker

log = logging.getLogger(__name__)


class Confirm(BaseModel):
    """What the person is asked through elicitation."""

    confirm: bool = Field(description="Yes, do it")


def elicitation_asker(ctx: Context | None) -> Asker | None:
    """The gate's `ask(question, binding)` through the client when it declared elicitation; None when it
    cannot ask. `ask` itself answers None when the question could not be delivered, which means the same.
    (This era's elicitation needs no `binding`: the question is asked inside the very call it confirms.)
    """
    if ctx is None:
        return None
    try:
        capabilities = ctx.client_capabilities
    except Exception:  # no session (direct Python calls)
        return None
    if capabilities is None or capabilities.elicitation is None:
        return None

    async def ask(prompt: str, binding: str) -> str | None:
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
