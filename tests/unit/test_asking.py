"""Asking the person: which asker a call gets, and the 2026-07-28 rounds with their signed request state."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from mcp_types import ClientCapabilities, ElicitationCapability, ElicitResult, UrlElicitationCapability
from pydantic import BaseModel

from zwave_mcp.policy.tokens import ConfirmationTokens
from zwave_mcp.server.asking import (
    ElicitationAsker,
    InputRequired,
    InputRequiredAsker,
    QuestionSeal,
    asker_for,
)

MODERN = "2026-07-28"
UNLOCK = "5|unlock|null"
QUESTION = "Do you want to unlock Front Door Lock (Entry)?"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class FakeContext:
    """What an asker reads from the SDK's Context."""

    protocol_version: str | None = MODERN
    client_capabilities: ClientCapabilities | None = field(
        default_factory=lambda: ClientCapabilities(elicitation=ElicitationCapability())
    )
    request_state: str | None = None
    input_responses: dict[str, Any] | None = None


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def seal(clock: Clock) -> QuestionSeal:
    return QuestionSeal(ConfirmationTokens().mac, ttl_s=60, clock=clock)


async def first_round(seal: QuestionSeal, binding: str = UNLOCK, ctx: FakeContext | None = None) -> Any:
    with pytest.raises(InputRequired) as raised:
        await InputRequiredAsker(ctx or FakeContext(), seal)(QUESTION, binding)  # type: ignore[arg-type]
    return raised.value.result


def retry(result: Any, action: str = "accept", content: dict[str, Any] | None = None) -> FakeContext:
    """The client's retry: the state echoed, an answer under the key it was asked with."""
    (key,) = result.input_requests
    answer = ElicitResult(action=action, content=content if content is not None else {"confirm": True})  # type: ignore[arg-type]
    return FakeContext(request_state=result.request_state, input_responses={key: answer})


# --- which asker ------------------------------------------------------------------------------------


def test_the_era_picks_the_asker(seal: QuestionSeal) -> None:
    assert isinstance(asker_for(FakeContext(), seal), InputRequiredAsker)  # type: ignore[arg-type]
    legacy = FakeContext(protocol_version="2025-11-25")
    assert isinstance(asker_for(legacy, seal), ElicitationAsker)  # type: ignore[arg-type]


def test_a_client_that_cannot_show_a_form_gets_no_asker(seal: QuestionSeal) -> None:
    assert asker_for(None, seal) is None
    assert asker_for(FakeContext(client_capabilities=None), seal) is None  # type: ignore[arg-type]
    no_elicitation = FakeContext(client_capabilities=ClientCapabilities())
    assert asker_for(no_elicitation, seal) is None  # type: ignore[arg-type]
    url_only = ClientCapabilities(elicitation=ElicitationCapability(url=UrlElicitationCapability()))
    assert asker_for(FakeContext(client_capabilities=url_only), seal) is None  # type: ignore[arg-type]


# --- 2026-07-28 rounds ------------------------------------------------------------------------------


async def test_the_first_round_ends_with_the_question(seal: QuestionSeal) -> None:
    result = await first_round(seal)
    assert result.result_type == "input_required"
    (request,) = result.input_requests.values()
    assert request.params.message == QUESTION
    assert request.params.requested_schema["properties"]["confirm"]["type"] == "boolean"
    assert result.request_state and UNLOCK not in result.request_state


@pytest.mark.parametrize(
    ("action", "content", "expected"),
    [
        ("accept", {"confirm": True}, "accept"),
        ("accept", {"confirm": False}, "decline"),
        ("decline", None, "decline"),
        ("cancel", None, "cancel"),
    ],
)
async def test_the_retry_reads_the_answer(
    seal: QuestionSeal, action: str, content: dict[str, Any] | None, expected: str
) -> None:
    result = await first_round(seal)
    ctx = retry(result, action, content if content is not None else {})
    assert await InputRequiredAsker(ctx, seal)(QUESTION, UNLOCK) == expected  # type: ignore[arg-type]


async def test_an_empty_yes_is_no_answer(seal: QuestionSeal) -> None:
    result = await first_round(seal)
    ctx = retry(result)
    (key,) = result.input_requests
    ctx.input_responses = {key: ElicitResult(action="accept")}
    await first_round(seal, ctx=ctx)


async def test_an_answer_for_another_change_asks_again(seal: QuestionSeal) -> None:
    """The effect changed between rounds (another value, or a toggle that now means the opposite)."""
    result = await first_round(seal, binding="5|unlock|null")
    again = await first_round(seal, binding="6|unlock|null", ctx=retry(result))
    assert again.request_state != result.request_state


async def test_a_state_is_spent_on_first_use(seal: QuestionSeal) -> None:
    result = await first_round(seal)
    assert await InputRequiredAsker(retry(result), seal)(QUESTION, UNLOCK) == "accept"  # type: ignore[arg-type]
    await first_round(seal, ctx=retry(result))  # the same state and answer again: asked anew


async def test_an_expired_state_asks_again(seal: QuestionSeal, clock: Clock) -> None:
    result = await first_round(seal)
    clock.now += 61
    await first_round(seal, ctx=retry(result))


@pytest.mark.parametrize(
    "tamper",
    [
        lambda s: s[:-2] + ("AA" if not s.endswith("AA") else "BB"),  # the signature
        lambda s: s.replace("zq1.", "zq1.e30"),  # the payload
        lambda s: "zq1.garbage",
        lambda s: "not ours at all",
    ],
)
async def test_an_altered_state_asks_again(seal: QuestionSeal, tamper: Any) -> None:
    result = await first_round(seal)
    ctx = retry(result)
    ctx.request_state = tamper(ctx.request_state)
    await first_round(seal, ctx=ctx)


async def test_a_state_from_another_process_is_not_trusted(seal: QuestionSeal, clock: Clock) -> None:
    other = QuestionSeal(ConfirmationTokens().mac, ttl_s=60, clock=clock)  # a restart draws a new key
    result = await first_round(other)
    await first_round(seal, ctx=retry(result))


async def test_an_answer_without_the_state_is_not_enough(seal: QuestionSeal) -> None:
    result = await first_round(seal)
    ctx = retry(result)
    ctx.request_state = None
    await first_round(seal, ctx=ctx)


class Pin(BaseModel):
    pin: str


async def test_two_questions_in_one_call_are_each_asked_once(seal: QuestionSeal) -> None:
    """A confirmation, then a PIN: the first answer rides along while the second is asked."""
    first = await first_round(seal, binding="include|confirm")
    ctx = retry(first)
    asker = InputRequiredAsker(ctx, seal)  # type: ignore[arg-type]
    assert await asker("Add a device?", "include|confirm") == "accept"
    with pytest.raises(InputRequired) as raised:
        await asker.form("The PIN on the device?", "include|pin", Pin)
    second = raised.value.result
    ctx = retry(second, content={"pin": "12345"})
    asker = InputRequiredAsker(ctx, seal)  # type: ignore[arg-type]
    assert await asker("Add a device?", "include|confirm") == "accept"
    reply = await asker.form("The PIN on the device?", "include|pin", Pin)
    assert reply is not None and reply.action == "accept" and reply.data == {"pin": "12345"}
