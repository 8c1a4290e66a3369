"""Issue 36, items 4, 5 and 8: nothing waits for a person while holding a device (the state is read again
after the answer), a group is admitted by the rate limits whole or not at all and fits under the defaults
in any house, and a change that would change nothing is neither asked about nor sent.

The captured house with zwave-js-ui's replies stubbed (`Rig` of test_gate_flow): no broker, an injected
clock; the waits are `asyncio.Event`s, bounded only so that a regression fails instead of hanging.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.unit.test_gate_flow import Rig, asker
from tests.unit.test_policy_ratelimit import admit
from zwave_mcp.devices.gate import GateResult
from zwave_mcp.policy import PolicyConfig, RateLimiter, parse_terms
from zwave_mcp.policy.outcome import NOT_SENT, Outcome
from zwave_mcp.policy.terms import DeviceList
from zwave_mcp.simulator.house import generate_house

DOOR_MODE = "5-98-0-currentMode"
# A regression (a device held while the person is asked) would wait forever: fail after this instead.
HANG_S = 5.0


def confirm_for(*names: str) -> PolicyConfig:
    return PolicyConfig(confirm_devices=DeviceList(parse_terms(list(names)), "ZWAVE_MCP_CONFIRM_DEVICES"))


def sent(rig: Rig) -> list[tuple[str, Any]]:
    """Every value write, single or multicast, as (value id, target)."""
    out = list(rig.writes)
    for api, args in rig.calls:
        if api == "writeMulticast":
            nodes, vid, target = args[0], args[1], args[2]
            tail = [vid["commandClass"], vid.get("endpoint") or 0, vid["property"]]
            out += [("-".join(str(p) for p in [node, *tail]), target) for node in nodes]
    return out


def reported(rig: Rig, value_id: str, value: Any) -> None:
    """A report that came in on its own (someone at the device)."""
    found = rig.gateway.inventory.value(value_id)
    assert found is not None
    found.value = value


def waiting_person() -> tuple[Callable[[str, str], Awaitable[str]], asyncio.Event, asyncio.Event]:
    """An asker that says yes only once `answer` is set; `asked` is set when the question comes."""
    asked, answer = asyncio.Event(), asyncio.Event()

    async def ask(_question: str, _binding: str) -> str:
        asked.set()
        await answer.wait()
        return "accept"

    return ask, asked, answer


# ---- item 4: nothing waits for a person while holding a device ------------------------------------------


def test_a_lock_answers_while_everything_off_waits_for_a_yes() -> None:
    rig = Rig(confirm_for("Living Room Lamp"))

    async def scenario() -> tuple[Any, GateResult, GateResult]:
        ask, asked, answer = waiting_person()
        group = asyncio.create_task(rig.devices.control_group("everything", "off", params={}, ask=ask))
        async with asyncio.timeout(HANG_S):
            await asked.wait()
        held = [d.key for d in rig.devices.devices() if rig.devices.locks.busy(d.key)]
        async with asyncio.timeout(HANG_S):  # held by the waiting group before: no answer for 30 s
            _plan, locking = await rig.devices.control("front door", "lock", params={})
        answer.set()
        _plan, result = await group
        return held, locking, result

    held, locking, result = asyncio.run(scenario())
    assert held == [], "no device is held while the person is asked"
    assert locking.outcome is Outcome.CONFIRMED
    assert result.outcome not in NOT_SENT and result.confirmed_by == "elicitation"
    assert ("5-98-0-targetMode", 255) in sent(rig) and ("3-38-0-targetValue", 0) in sent(rig)


def test_the_state_is_read_again_after_the_answer() -> None:
    """The door was unlocked by hand while the person was asked: the yes sends nothing, and says so."""
    rig = Rig()

    async def scenario() -> GateResult:
        ask, asked, answer = waiting_person()
        call = asyncio.create_task(rig.devices.control("front door", "unlock", params={}, ask=ask))
        async with asyncio.timeout(HANG_S):
            await asked.wait()
        reported(rig, DOOR_MODE, 0)  # unlocked at the door meanwhile
        answer.set()
        _plan, result = await call
        return result

    result = asyncio.run(scenario())
    assert result.outcome is Outcome.UNCHANGED and rig.writes == []
    # The spoken answer, made where the change is (devices' service): the gate's sentence, and the open door.
    assert result.sentence == "Front Door Lock is already unlocked, so nothing was sent. The door is open."


def test_a_change_the_yes_no_longer_covers_is_asked_about_again() -> None:
    """Toggled while the person was asked: the yes was for turning it on, the change is now turning it off
    (also on the confirm list), so the person is asked about that, and only that is sent."""
    rig = Rig(confirm_for("Kitchen Light"))
    questions: list[str] = []

    async def scenario() -> GateResult:
        asked, answer = asyncio.Event(), asyncio.Event()

        async def ask(question: str, _binding: str) -> str:
            questions.append(question)
            asked.set()
            await answer.wait()
            return "accept"

        call = asyncio.create_task(rig.devices.control("kitchen light", "toggle", params={}, ask=ask))
        async with asyncio.timeout(HANG_S):
            await asked.wait()
        reported(rig, "2-37-0-currentValue", True)  # switched on at the wall meanwhile
        answer.set()
        _plan, result = await call
        return result

    result = asyncio.run(scenario())
    assert [q.split("?")[0] for q in questions] == [
        "Do you want to turn on Kitchen Light (Kitchen)",
        "Do you want to turn off Kitchen Light (Kitchen)",
    ]
    assert result.outcome is Outcome.CONFIRMED and rig.writes == [("2-37-0-targetValue", False)]


# ---- item 5: a group is admitted whole or not at all, and fits under the defaults ------------------------


def test_admission_is_all_or_nothing() -> None:
    limiter = RateLimiter(per_device=1, overall=10, window_s=60, clock=lambda: 100.0)
    assert admit(limiter, "b") is None
    refused = limiter.admit_many(["a", "b", "c"])
    assert refused is not None and refused[0] == "b" and refused[1].scope == "device"
    assert admit(limiter, "a") is None and admit(limiter, "c") is None, "nothing was counted for a and c"
    overall = RateLimiter(per_device=10, overall=2, window_s=60, clock=lambda: 100.0)
    assert overall.admit_many(["a", "b", "c", "d"]) is None, "one group command is one command"
    assert admit(overall, "e") is None and admit(overall, "f") is not None


def test_a_group_near_the_overall_limit_is_one_command_and_spends_nothing_else() -> None:
    rig = Rig(PolicyConfig(rate_limit_total=3))
    assert rig.apply(rig.change("front door", "lock")).outcome is Outcome.CONFIRMED
    _plan, group = asyncio.run(rig.devices.control_group("everything", "off", params={}))
    assert group.outcome not in NOT_SENT, group.sentence
    # Before: the group counted two of its devices, was refused at the third, and so was this lock.
    assert rig.apply(rig.change("front door", "lock")).outcome is Outcome.CONFIRMED


def test_a_group_refused_after_the_yes_gives_the_token_back(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="zwave_mcp.audit")
    rig = Rig(
        PolicyConfig(rate_limit_device=1, confirm_devices=confirm_for("Coffee Maker Plug").confirm_devices)
    )
    rig.policy.rates.window_s = 30  # shorter than the token's 60 s
    reported(rig, "8-37-0-currentValue", True)  # the plug is on: turning it off is a change to confirm
    asked = asyncio.run(rig.devices.control_group("kitchen", "off", params={}))[1]
    assert asked.outcome is Outcome.NEEDS_CONFIRMATION and asked.token
    # Another call takes Kitchen Light's one command meanwhile, after the group's own check passed.
    real_check = rig.policy.rates.check_many

    def check_then_filled(keys: Any, **options: Any) -> Any:
        passed = real_check(keys, **options)
        admit(rig.policy.rates, "2")
        rig.policy.rates.check_many = real_check  # type: ignore[method-assign]
        return passed

    rig.policy.rates.check_many = check_then_filled  # type: ignore[method-assign]
    with pytest.raises(Exception, match="limit per device"):
        asyncio.run(rig.devices.control_group("kitchen", "off", params={}, token=asked.token))
    assert sent(rig) == []
    assert admit(rig.policy.rates, "8") is None, "the plug was not counted for the refused group"
    rig.clock.now += 30
    _plan, done = asyncio.run(rig.devices.control_group("kitchen", "off", params={}, token=asked.token))
    assert done.outcome not in NOT_SENT and done.confirmed_by == "token", "the yes was not spent"


def test_everything_off_in_a_big_house_passes_the_default_limits() -> None:
    rig = Rig(house=generate_house(150))
    switchable = [d for d in rig.devices.devices() if "off" in _actions(d)]
    assert len(switchable) > 60
    ask, _asked = asker("accept")  # the garage openers' relays, if any is on
    _plan, result = asyncio.run(rig.devices.control_group("everything", "off", params={}, ask=ask))
    assert result.outcome not in NOT_SENT, result.sentence
    already = {d.device.key for d in result.devices if d.outcome is Outcome.UNCHANGED}  # garage openers, off
    assert len(sent(rig)) + len(already) == len(switchable)


def _actions(device: Any) -> list[str]:
    from zwave_mcp.devices.control import available_actions

    return available_actions(device)


# ---- item 8: nothing would change, so nothing is asked ---------------------------------------------------


def unlocked(rig: Rig) -> Rig:
    reported(rig, DOOR_MODE, 0)
    return rig


def test_unlocking_an_unlocked_lock_asks_nothing_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="zwave_mcp.audit")
    rig = unlocked(Rig())
    ask, asked = asker("accept")
    _plan, result = asyncio.run(rig.devices.control("front door", "unlock", params={}, ask=ask))
    assert asked == [] and rig.writes == [] and result.token is None
    assert result.outcome is Outcome.UNCHANGED
    # The spoken answer, made where the change is (devices' service): the gate's sentence, and the open door.
    assert result.sentence == "Front Door Lock is already unlocked, so nothing was sent. The door is open."
    assert [r.outcome for r in caplog.records if r.name == "zwave_mcp.audit"] == ["unchanged"]  # type: ignore[attr-defined]


def test_a_group_leaves_out_what_is_already_so_and_asks_only_about_the_rest() -> None:
    rig = unlocked(Rig(confirm_for("Living Room Lamp")))
    reported(rig, "3-38-0-currentValue", 0)  # the lamp (on the confirm list) is off already
    ask, asked = asker("accept")
    _plan, result = asyncio.run(rig.devices.control_group("everything", "off", params={}, ask=ask))
    assert asked == [], "the only change that needed a yes would change nothing"
    assert ("3-38-0-targetValue", 0) not in sent(rig) and ("2-37-0-targetValue", False) in sent(rig)
    lamp = next(d for d in result.devices if d.device.name == "Living Room Lamp")
    assert lamp.outcome is Outcome.UNCHANGED and result.outcome not in NOT_SENT
