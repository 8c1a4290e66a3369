"""Confirmation tokens: one-time, bound to device/action/value, short-lived, unguessable, bounded."""

from __future__ import annotations

import pytest

from zwave_mcp.errors import PolicyRefusal
from zwave_mcp.policy import ConfirmationTokens, canonical_value


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


UNKNOWN = (
    "That confirmation token is not one this server issued (tokens are forgotten on restart), so nothing was "
    "done; ask for the action again without a token to get a new one."
)


def refusal(
    tokens: ConfirmationTokens, token: str, key: str = "5", action: str = "unlock", value=None
) -> str:
    with pytest.raises(PolicyRefusal) as caught:
        tokens.redeem(token, key, action, value)
    return caught.value.message


def test_a_token_works_once_for_its_exact_change():
    tokens = ConfirmationTokens(clock=Clock())
    token = tokens.issue("5", "unlock", label="unlock Front Door Lock (Entry)")
    assert len(token) == 22
    tokens.redeem(token, "5", "unlock")
    assert refusal(tokens, token) == (
        "That confirmation token was already used (for unlock Front Door Lock (Entry)) and works only once, so "
        "nothing was done; ask for the action again without a token to get a new one."
    )


@pytest.mark.parametrize(
    ("key", "action", "value", "wrong"),
    [
        ("6", "unlock", None, "device"),
        ("5", "lock", None, "action"),
        ("5", "unlock", 1, "value"),
        ("6", "set_temperature", 35, "device, action and value"),
    ],
)
def test_a_token_for_another_device_action_or_value_is_refused_and_cancelled(key, action, value, wrong):
    tokens = ConfirmationTokens(clock=Clock())
    token = tokens.issue("5", "unlock", None, label="unlock Front Door Lock (Entry)")
    assert refusal(tokens, token, key, action, value) == (
        f"That confirmation token was issued for unlock Front Door Lock (Entry), not for this {wrong}, so "
        "nothing was done and the token is now cancelled; ask for the action you want without a token to get "
        "a new one."
    )
    assert "already used" in refusal(tokens, token), "the right change cannot follow a misuse"


def test_value_binding_treats_equal_values_as_equal_and_different_ones_as_different():
    tokens = ConfirmationTokens(clock=Clock())
    token = tokens.issue("6", "set_temperature", 30)
    tokens.redeem(token, "6", "Set Temperature", "30.0")
    assert canonical_value(" Heat ") == canonical_value("heat")
    assert canonical_value(30) != canonical_value(30.5)
    assert canonical_value({"red": 255, "green": 0}) == canonical_value({"green": 0.0, "red": "255"})
    token = tokens.issue("6", "set_temperature", 30)
    assert "not for this value" in refusal(tokens, token, "6", "set_temperature", 31)


def test_a_token_expires_after_its_ttl():
    clock = Clock()
    tokens = ConfirmationTokens(ttl_s=60, clock=clock)
    early = tokens.issue("5", "unlock")
    late = tokens.issue("5", "unlock")
    clock.now += 59.9
    tokens.redeem(early, "5", "unlock")
    clock.now += 0.1
    assert refusal(tokens, late) == (
        "That confirmation token expired (tokens last 60 s), so nothing was done; ask for the action again "
        "without a token to get a new one."
    )


@pytest.mark.parametrize("garbage", ["", "   ", "nonsense", "A" * 22, "A" * 200, "ä" * 22, "x\x00" * 11])
def test_garbage_and_guesses_are_unknown(garbage):
    tokens = ConfirmationTokens(clock=Clock())
    tokens.issue("5", "unlock")
    assert refusal(tokens, garbage) == UNKNOWN


def test_a_non_string_token_is_unknown():
    tokens = ConfirmationTokens(clock=Clock())
    assert refusal(tokens, 12345) == UNKNOWN  # type: ignore[arg-type]


def test_a_guess_near_a_real_token_is_unknown_and_does_not_spend_it():
    tokens = ConfirmationTokens(clock=Clock())
    token = tokens.issue("5", "unlock")
    near = token[:-1] + ("A" if token[-1] != "A" else "B")
    assert refusal(tokens, near) == UNKNOWN
    tokens.redeem(token, "5", "unlock")


def test_surrounding_whitespace_is_forgiven():
    tokens = ConfirmationTokens(clock=Clock())
    token = tokens.issue("5", "unlock")
    tokens.redeem(f"  {token}\n", "5", "unlock")


def test_tokens_do_not_survive_a_restart():
    fixed = "Q" * 22
    before = ConfirmationTokens(clock=Clock(), token_factory=lambda: fixed)
    assert before.issue("5", "unlock") == fixed
    after = ConfirmationTokens(clock=Clock(), token_factory=lambda: fixed)  # a new process
    assert refusal(after, fixed) == UNKNOWN


def test_tokens_are_random_and_not_stored_in_clear():
    tokens = ConfirmationTokens(clock=Clock())
    issued = {tokens.issue("5", "unlock") for _ in range(200)}
    assert len(issued) == 200
    table = repr(vars(tokens))
    assert not any(t in table for t in issued), "the table must not hold the tokens themselves"


def test_the_table_is_bounded_and_old_entries_are_evicted():
    clock = Clock()
    tokens = ConfirmationTokens(max_entries=3, retain_s=10, clock=clock)
    first = tokens.issue("5", "unlock")
    for _ in range(3):
        tokens.issue("5", "unlock")
    assert len(tokens) == 3
    assert refusal(tokens, first) == UNKNOWN, "evicted when the table is full"
    clock.now += 60 + 10
    tokens.issue("5", "unlock")
    assert len(tokens) == 1, "entries long past expiry are dropped"


def test_spent_and_expired_entries_are_remembered_for_a_clear_answer_then_forgotten():
    clock = Clock()
    tokens = ConfirmationTokens(ttl_s=60, retain_s=600, clock=clock)
    token = tokens.issue("5", "unlock")
    clock.now += 300
    assert "expired" in refusal(tokens, token)
    assert "already used" in refusal(tokens, token)
    clock.now += 400
    tokens.issue("6", "open")  # triggers eviction
    assert refusal(tokens, token) == UNKNOWN


def test_invalid_construction():
    with pytest.raises(ValueError):
        ConfirmationTokens(ttl_s=0)
    with pytest.raises(ValueError):
        ConfirmationTokens(max_entries=0)


def test_concurrent_redeems_of_one_token_succeed_exactly_once():
    import threading

    tokens = ConfirmationTokens(clock=Clock())
    token = tokens.issue("5", "unlock")
    start = threading.Barrier(8)
    results: list[str] = []

    def attempt() -> None:
        start.wait()
        try:
            tokens.redeem(token, "5", "unlock")
            results.append("ok")
        except PolicyRefusal:
            results.append("refused")

    threads = [threading.Thread(target=attempt) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=5)
    assert sorted(results) == ["ok"] + ["refused"] * 7
