"""Asking the person during a tool call, in whichever protocol era the client speaks.

`asker_for(ctx, seal)` gives the tool call an `Asker`, or None when this client cannot ask (it declared no
elicitation): the caller then falls back on the one-time confirmation token.

- Before 2026-07-28 (the `initialize` handshake era) the server sends `elicitation/create` in the middle of
  the call and waits for the answer (`ctx.elicit`).
- From 2026-07-28 a server cannot send a request mid-call. On the first round the asker ends the call by
  raising `InputRequired`, which the executor returns as the SDK's input-required result: the question,
  plus a request state that names the pending change. The client asks the person and calls the tool again
  with the answer (`ctx.input_responses`) and the state echoed back (`ctx.request_state`).

The request state is the client's to carry, so it is treated as hostile: `QuestionSeal` signs it (HMAC
under the confirmation tokens' per-process key), binds it to the exact effect the question was about (the
caller's `binding`, e.g. "5|unlock|null"), lets it expire, and spends it on first use. On the retry the
tool recomputes its effect from the arguments it was given; an answer counts only if it was given for that
same binding, so a changed argument (or a toggle that now means the opposite) asks again, never reuses.
The SDK seals the state once more and binds it to the tool's name and arguments; this layer is ours, bound
to what the change will actually do.

One call may ask several questions (a confirmation, then a PIN): answers already given in this call ride
along in the signed state, so each question is asked once.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Literal

from mcp.server.elicitation import render_elicitation_schema
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from mcp_types.version import is_version_at_least
from pydantic import BaseModel, Field, ValidationError

log = logging.getLogger(__name__)

Action = Literal["accept", "decline", "cancel"]
# The first revision where a question is an input-required result instead of a request mid-call.
INPUT_REQUIRED_VERSION = "2026-07-28"
_STATE_PREFIX = "zq1."
# Spent request states remembered (each for its lifetime) so none is accepted twice.
MAX_SPENT = 4096


class Confirm(BaseModel):
    """The yes/no form a confirmation shows."""

    confirm: bool = Field(description="Yes, do it")


@dataclass(frozen=True, slots=True)
class Reply:
    """The person's answer to one question. `data` is the form's content when they accepted."""

    action: Action
    data: dict[str, Any] | None = None


class InputRequired(Exception):  # a signal, like StopIteration, not an error
    """Raised by an asker to end the call as input-required; the executor returns `result`."""

    def __init__(self, result: InputRequiredResult) -> None:
        super().__init__("the person's answer is needed")
        self.result = result


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def binding_digest(binding: str) -> str:
    return hashlib.sha256(binding.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass(slots=True)
class _State:
    """What a request state says: the question pending and the answers already given in this call."""

    pending: str  # binding digest of the question asked last round
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)  # digest → {"action", "data"}


@dataclass(eq=False)
class QuestionSeal:
    """Signs, checks and spends request states. One per server; `mac` is the HMAC under a process key."""

    mac: Callable[[bytes], bytes]
    _: KW_ONLY
    ttl_s: float
    clock: Callable[[], float] = time.monotonic
    # nonce → expiry; kept out of repr, as are an asker's answers (nothing of a question is logged)
    _spent: OrderedDict[str, float] = field(default_factory=OrderedDict, init=False, repr=False)

    def seal(self, state: _State) -> str:
        body = {
            "n": secrets.token_urlsafe(12),
            "e": self.clock() + self.ttl_s,
            "p": state.pending,
            "a": state.answers,
        }
        payload = json.dumps(body, separators=(",", ":"), sort_keys=True).encode()
        return f"{_STATE_PREFIX}{_b64(payload)}.{_b64(self.mac(payload))}"

    def open(self, text: str | None) -> _State | None:
        """The state if it is ours, unaltered, unexpired and unused (it is spent now); None otherwise."""
        if not text:
            return None
        try:
            if not text.startswith(_STATE_PREFIX):
                raise ValueError("not ours")
            payload_b64, mac_b64 = text[len(_STATE_PREFIX) :].split(".")
            payload = _unb64(payload_b64)
            if not hmac.compare_digest(_unb64(mac_b64), self.mac(payload)):
                raise ValueError("bad signature")
            body = json.loads(payload)
            nonce, expires, pending, answers = body["n"], float(body["e"]), body["p"], body["a"]
            if not isinstance(nonce, str) or not isinstance(pending, str) or not isinstance(answers, dict):
                raise ValueError("malformed")
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("request state rejected", extra={"why": str(exc)[:80]})
            return None
        now = self.clock()
        while self._spent and next(iter(self._spent.values())) <= now:
            self._spent.popitem(last=False)  # expired states cannot be replayed anyway
        if expires <= now:
            log.info("request state expired; asking again")
            return None
        if nonce in self._spent:
            log.warning("request state replayed; asking again")
            return None
        self._spent[nonce] = expires
        while len(self._spent) > MAX_SPENT:
            self._spent.popitem(last=False)
        return _State(pending=pending, answers=answers)


def _reply(action: str, data: Any) -> Reply:
    if action == "accept":
        return Reply("accept", data if isinstance(data, dict) else None)
    return Reply("cancel" if action == "cancel" else "decline")


def _confirmation(reply: Reply) -> Action:
    if reply.action == "accept":
        return "accept" if reply.data is not None and reply.data.get("confirm") is True else "decline"
    return reply.action


class Asker:
    """Asks the person through the client: called (as the gate calls it) for a yes/no confirmation, `form`
    for anything else."""

    async def form(self, question: str, binding: str, schema: type[BaseModel]) -> Reply | None:
        raise NotImplementedError

    async def __call__(self, question: str, binding: str) -> Action | None:
        """Confirm one change: "accept", "decline" or "cancel"; None when the question could not be put."""
        reply = await self.form(question, binding, Confirm)
        return None if reply is None else _confirmation(reply)


@dataclass(eq=False)
class ElicitationAsker(Asker):
    """Handshake era: an `elicitation/create` request in the middle of the call."""

    _ctx: Context

    async def form(self, question: str, binding: str, schema: type[BaseModel]) -> Reply | None:
        try:
            answer = await self._ctx.elicit(question, schema)
        except MCPError as exc:
            # Declared but not deliverable (the client answered with an error, or this transport has no
            # back-channel): the caller falls back on the one-time token instead of failing the call.
            log.info("elicitation failed; falling back on a confirmation token", extra={"why": str(exc)})
            return None
        except ValueError as exc:  # accepted with content that does not fit the form
            log.info("elicitation answer did not fit the form", extra={"why": str(exc)[:200]})
            return Reply("decline")
        data = getattr(answer, "data", None)
        return _reply(answer.action, data.model_dump(mode="json") if isinstance(data, BaseModel) else None)


@dataclass(eq=False)
class InputRequiredAsker(Asker):
    """2026-07-28: the question is an input-required result; the answer comes with the retry."""

    _ctx: Context
    _seal: QuestionSeal
    _opened: bool = field(default=False, init=False)
    _answers: dict[str, dict[str, Any]] = field(default_factory=dict, init=False, repr=False)

    def _settled(self) -> dict[str, dict[str, Any]]:
        """Answers given for this call so far: from the verified state, plus last round's answer."""
        if self._opened:
            return self._answers
        self._opened = True
        state = self._seal.open(self._ctx.request_state)
        if state is None:
            return self._answers
        self._answers = dict(state.answers)
        response = (self._ctx.input_responses or {}).get(_key(state.pending))
        if isinstance(response, ElicitResult):
            self._answers[state.pending] = {"action": response.action, "data": response.content}
        return self._answers

    async def form(self, question: str, binding: str, schema: type[BaseModel]) -> Reply | None:
        digest = binding_digest(binding)
        settled = self._settled()
        given = settled.get(digest)
        if given is not None:
            reply = _reply(str(given.get("action")), given.get("data"))
            if reply.action != "accept":
                return reply
            try:  # a yes counts only with the form filled in (an empty accept is no answer)
                return Reply("accept", schema.model_validate(reply.data or {}).model_dump(mode="json"))
            except ValidationError:
                log.info("the answer did not fit the form; asking again")
        request = ElicitRequest(
            params=ElicitRequestFormParams(
                message=question, requested_schema=render_elicitation_schema(schema)
            )
        )
        state = self._seal.seal(
            _State(pending=digest, answers={d: a for d, a in settled.items() if d != digest})
        )
        raise InputRequired(InputRequiredResult(input_requests={_key(digest): request}, request_state=state))


def _key(digest: str) -> str:
    return f"question-{digest[:16]}"


def asker_for(ctx: Context | None, seal: QuestionSeal) -> Asker | None:
    """How this call can ask the person, or None when it cannot (no elicitation declared, no session)."""
    if ctx is None:
        return None
    try:
        capabilities = ctx.client_capabilities
        version = ctx.protocol_version
    except Exception:  # no request context (direct Python calls)
        return None
    elicitation = capabilities.elicitation if capabilities is not None else None
    # A bare `elicitation: {}` means forms; a client that declared only URL mode cannot show one.
    if elicitation is None or (elicitation.form is None and elicitation.url is not None):
        return None
    if version is not None and is_version_at_least(version, INPUT_REQUIRED_VERSION):
        return InputRequiredAsker(ctx, seal)
    return ElicitationAsker(ctx)
