"""The confirmation dialogue: a change that needs the person's say-so is confirmed once, bound to its
exact effect (`Change.binding()`), by elicitation or by a one-time token.

`ask(question, binding)` answers "accept", "decline", "cancel", or None when the client cannot ask; then a
token is handed out instead and the caller must come back with it for the very same change. `ask` may also
raise (an "input required" answer of a newer protocol); that ends the call, and the gate audits it first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from zwave_mcp.devices.gate.change import Asker, Change, effect_text
from zwave_mcp.devices.readings import and_list
from zwave_mcp.errors import PolicyRefusal
from zwave_mcp.policy import TOKEN_PARAMETER, Policy


@dataclass(frozen=True, slots=True)
class Answer:
    """What the dialogue came to: go ahead (`by` elicitation or token), declined, pending (a token was
    handed out; `sentence` says how to use it), or refused (a bad token; `sentence` says why)."""

    kind: Literal["confirmed", "declined", "pending", "refused"]
    sentence: str = ""
    by: str | None = None
    token: str | None = None
    ttl_s: float | None = None


def question(change: Change, why: str) -> str:
    """One question for the whole change; with several devices it lists everything the change does, and
    a node-wide change names every device of the node it reaches."""
    what = _reaching(change)
    if not change.reach and len(change.devices) > 1:
        what += f" ({'; '.join(dict.fromkeys(effect_text(e) for e in change.effects))})"
    return f"Do you want to {what}? Confirmation is needed because {why}."


def _reaching(change: Change) -> str:
    """The change in words, with every device of the node it reaches when it is node-wide."""
    if not change.reach:
        return change.text
    named = and_list([d.name for d in change.devices])
    return f"{change.text} (it reaches every device of node {change.reach[0].node_id}: {named})"


def _token_key(change: Change) -> str:
    return ",".join(d.key for d in change.devices) or change.subject or "*"


async def confirm(
    policy: Policy, change: Change, why: str, *, token: str | None, ask: Asker | None
) -> Answer:
    binding = change.binding()
    if token:
        try:
            policy.tokens.redeem(token, _token_key(change), change.action, binding)
        except PolicyRefusal as exc:
            return Answer("refused", exc.message)
        return Answer("confirmed", by="token")
    said = await ask(question(change, why), binding) if ask is not None else None
    if said == "accept":
        return Answer("confirmed", by="elicitation")
    if said is not None:
        verb = "cancelled" if said == "cancel" else "declined"
        return Answer("declined", f"Did not {change.text}: the person {verb} the confirmation.")
    issued = policy.tokens.issue(_token_key(change), change.action, binding, label=change.text)
    ttl = policy.tokens.ttl_s
    same = "scene" if change.subject.startswith("scene") else "device, action and value"
    return Answer(
        "pending",
        f"Confirmation required to {_reaching(change)} because {why}: ask the person, and only if they agree "
        f'call again with the same {same} and {TOKEN_PARAMETER}="{issued}" within {ttl:g} s.',
        token=issued,
        ttl_s=ttl,
    )
