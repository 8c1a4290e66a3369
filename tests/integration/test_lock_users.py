"""manage_lock_users on the simulator serving the two keypad locks captured from zwave-js-ui 11.22.2 (issue 37):
12 "Back Door Lock" (User Code: slots 1 4821, 2 7359, 3 2468, 4 1357 disabled) and 13 "Side Door Lock"
(User Credential: Alice 8642 slot 1, Bob 97531 slot 2, Carol 3141 slot 3 inactive).

Every change needs the person's yes (a one-time token here: the in-process client declares no elicitation),
is refused in read-only mode, for a denied lock and a hidden one, and no PIN ever shows in an answer, the
audit file or the log.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.codes_in import shows_code
from tests.integration.mcp_harness import call, connected, settings_for, wait_for_answer
from zwave_mcp.logs import record_fields
from zwave_mcp.simulator import Simulator

pytestmark = pytest.mark.anyio

TOOL = "manage_lock_users"
BACK, SIDE = "Back Door Lock", "Side Door Lock"
# Every PIN the house holds or a test types: none may appear in anything the server says or writes.
PINS = (
    "4821",
    "7359",
    "2468",
    "1357",
    "90210",
    "8642",
    "97531",
    "3141",
    "80808",
    "5150",
    "6161",
    "2580",
    "7070",
)


@pytest.fixture
def sim(simulator_factory: Any) -> Simulator:
    sim: Simulator = simulator_factory(house="captured+locks")
    return sim


def side_users(sim: Simulator) -> dict[int, dict[str, Any]]:
    entry = sim.nodes[13]["accessControl"]["endpoints"][0]
    pins = {c["userId"]: c["data"] for c in entry["credentials"] if c["type"] == 1}
    return {u["userId"]: {**u, "pin": pins.get(u["userId"])} for u in entry["users"]}


def back_slot(sim: Simulator, slot: int) -> tuple[int, str]:
    values = sim.nodes[12]["values"]
    return values[f"99-0-userIdStatus-{slot}"]["value"], values[f"99-0-userCode-{slot}"]["value"]


def no_pin_in(*texts: str) -> None:
    for text in texts:
        for pin in PINS:
            assert not shows_code(text, pin), f"a PIN ({pin}) leaked: {text[:300]}"


def locks_now(sim: Simulator) -> str:
    """Both locks' users and codes as the simulated locks hold them."""
    return json.dumps([side_users(sim), [back_slot(sim, slot) for slot in range(1, 11)]], sort_keys=True)


async def confirmed(client: Client, args: dict[str, Any], sim: Simulator | None = None) -> Any:
    """Ask, then agree: the first call hands out a token and sends nothing (with `sim`: the locks are
    unchanged after it), the second carries it."""
    before = locks_now(sim) if sim is not None else None
    asked = await call(client, TOOL, args)
    assert asked.outcome == "needs_confirmation", asked.text
    if sim is not None:
        assert locks_now(sim) == before, f"something was sent without a yes: {args}"
    token = asked.result["confirmationToken"]
    done = await call(client, TOOL, {**args, "confirmationToken": token})
    no_pin_in(asked.text, json.dumps(asked.envelope), done.text, json.dumps(done.envelope))
    return asked, done


async def test_lists_users_with_names_and_slots_never_the_codes(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        side = await call(client, TOOL, {"deviceName": "side door"})
        assert side.text == (
            "Side Door Lock has 3 users: Alice (user 1, PIN in slot 1), Bob (user 2, PIN in slot 2) and "
            "Carol (user 3, disabled, PIN in slot 3)."
        )
        back = await call(client, TOOL, {"deviceName": "back door lock"})
        assert back.text.startswith("Back Door Lock has 4 users: user 1 (PIN in slot 1)")
        assert "user 4 (disabled, PIN in slot 4)" in back.text
        every = await call(client, TOOL, {})
        assert [lock["lock"] for lock in every.result["locks"]] == [BACK, SIDE, "Patio Door Lock"]
        assert every.result["locks"][1]["rules"] == (
            "Side Door Lock takes 10 users, PINs of 4 to 8 digits and names up to 16 characters."
        )
        for answer in (side, back, every):
            no_pin_in(answer.text, json.dumps(answer.envelope))
        front = await call(client, TOOL, {"deviceName": "front door"})
        assert (
            front.text == "Front Door Lock keeps no keypad users (no User Code or User Credential support)."
        )


async def test_add_rename_disable_change_and_remove_with_the_persons_yes(
    mosquitto: Any, sim: Simulator, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    audit = tmp_path / "audit.jsonl"
    caplog.set_level(logging.DEBUG)
    async with connected(settings_for(mosquitto, sim, audit_file=audit)) as client:
        args = {"deviceName": "side door", "action": "add", "name": "Dog Walker", "pin": "5150"}
        asked, done = await confirmed(client, args, sim)
        assert "add a PIN for Dog Walker as user 4 on Side Door Lock" in asked.text
        assert done.outcome == "confirmed", done.text
        assert done.text == (
            "Done: Side Door Lock now lists Dog Walker (user 4, PIN in slot 4), as its users read again show."
        )
        assert side_users(sim)[4] == {
            **side_users(sim)[4],
            "userName": "Dog Walker",
            "active": True,
            "pin": "5150",
        }

        renamed = await confirmed_or_direct(
            client, {"deviceName": "side door", "action": "rename", "user": "dog walker", "name": "Walker"}
        )
        assert renamed.outcome == "confirmed" and side_users(sim)[4]["userName"] == "Walker", renamed.text

        _, off = await confirmed(
            client, {"deviceName": "side door", "action": "disable", "user": "Walker"}, sim
        )
        assert off.outcome == "confirmed" and side_users(sim)[4]["active"] is False, off.text
        _, on = await confirmed(client, {"deviceName": "side door", "action": "enable", "user": "4"}, sim)
        assert on.outcome == "confirmed" and side_users(sim)[4]["active"] is True, on.text

        _, changed = await confirmed(
            client, {"deviceName": "side door", "action": "change_pin", "user": "Walker", "pin": "6161"}, sim
        )
        assert changed.outcome == "confirmed" and side_users(sim)[4]["pin"] == "6161", changed.text

        _, removed = await confirmed(
            client, {"deviceName": "side door", "action": "remove", "user": "Walker"}, sim
        )
        assert removed.outcome == "confirmed" and 4 not in side_users(sim), removed.text
        assert (
            removed.text
            == "Done: Walker (user 4) is no longer on Side Door Lock, as its users read again show."
        )

        # The User Code lock: disable, then remove a slot.
        _, off = await confirmed(client, {"deviceName": "back door", "action": "disable", "user": "3"}, sim)
        assert off.outcome == "confirmed" and back_slot(sim, 3) == (2, "2468"), off.text
        _, gone = await confirmed(
            client, {"deviceName": "back door", "action": "remove", "user": "user 3"}, sim
        )
        assert gone.outcome == "confirmed" and back_slot(sim, 3) == (0, ""), gone.text
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    # What the log handlers write (redacted as they redact), every record of the call.
    logged = "\n".join(json.dumps(record_fields(r), default=str) for r in caplog.records)
    no_pin_in(audit.read_text(), logged)
    # One audit line per attempt (ask, then carry out), each naming the lock, the user and the action.
    assert len(lines) == 2 * 8 - 1, lines  # the rename needs no yes
    assert all(line["device"].startswith((BACK, SIDE)) and "user" in line["value"] for line in lines), lines


async def confirmed_or_direct(client: Client, args: dict[str, Any]) -> Any:
    """The answer of a change that may not need a yes (a rename): given one when it asks."""
    first = await call(client, TOOL, args)
    if first.outcome != "needs_confirmation":
        return first
    return await call(client, TOOL, {**args, "confirmationToken": first.result["confirmationToken"]})


async def test_the_yes_is_bound_to_the_pin_and_nothing_is_sent_without_it(
    mosquitto: Any, sim: Simulator
) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        args = {"deviceName": "side door", "action": "add", "name": "Dog Walker", "pin": "5150"}
        asked = await call(client, TOOL, args)
        assert asked.outcome == "needs_confirmation" and 4 not in side_users(sim)
        other = await call(
            client, TOOL, {**args, "pin": "2580", "confirmationToken": asked.result["confirmationToken"]}
        )
        # A yes for one PIN is not a yes for another.
        assert other.is_error and 4 not in side_users(sim), other.text
        assert other.error.startswith(
            "That confirmation token was issued for add a PIN for Dog Walker as user 4 on Side Door Lock, not "
            "for this value, so nothing was done"
        ), other.error
        no_pin_in(asked.text, other.text, json.dumps(asked.envelope))


async def test_a_user_code_slot_in_use_is_named_and_asked_before_its_code_is_replaced(
    mosquitto: Any, sim: Simulator
) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        args = {"deviceName": "back door", "action": "add", "user": "2", "pin": "2580"}
        asked = await call(client, TOOL, args)
        assert asked.outcome == "needs_confirmation", asked.text
        assert "replacing the PIN user 2 has now" in asked.text
        assert back_slot(sim, 2) == (1, "7359")  # nothing sent yet
        done = await call(client, TOOL, {**args, "confirmationToken": asked.result["confirmationToken"]})
        assert done.outcome == "confirmed" and back_slot(sim, 2) == (1, "2580"), done.text
        free = await call(
            client, TOOL, {"deviceName": "back door", "action": "add", "name": "Cleaner", "pin": "2580"}
        )
        assert (
            "add a PIN for user 5 on Back Door Lock (Back Door Lock keeps no names: zwave-mcp will call user 5 Cleaner)"
            in free.text
        )


async def test_a_refused_pin_leaves_no_user_behind_and_says_why(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        _, dup = await confirmed(
            client, {"deviceName": "side door", "action": "add", "name": "Frank", "pin": "8642"}
        )
        assert dup.outcome == "failed", dup.text
        assert "another user already has that PIN" in dup.text and "removed again" in dup.text
        assert set(side_users(sim)) == {1, 2, 3}
        short = await call(
            client, TOOL, {"deviceName": "side door", "action": "add", "name": "Heidi", "pin": "12"}
        )
        assert short.is_error and short.error == "Side Door Lock takes PINs of 4 to 8 digits; that one has 2."
        ghost = await call(client, TOOL, {"deviceName": "back door", "action": "remove", "user": "8"})
        assert ghost.is_error and ghost.error.startswith(
            "There is no user 8 on Back Door Lock, so there is nothing to remove"
        )


async def test_pins_typed_in_other_digits_are_read_as_digits(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        _, done = await confirmed(
            client, {"deviceName": "side door", "action": "add", "name": "Dave", "pin": "５１٥٠"}
        )
        assert done.outcome == "confirmed" and side_users(sim)[4]["pin"] == "5150", done.text
        # A model may send the PIN as a JSON number; anything else is refused without repeating it.
        _, number = await confirmed(
            client, {"deviceName": "side door", "action": "change_pin", "user": "Dave", "pin": 6161}
        )
        assert number.outcome == "confirmed" and side_users(sim)[4]["pin"] == "6161", number.text
        odd = await call(
            client,
            TOOL,
            {"deviceName": "side door", "action": "change_pin", "user": "Dave", "pin": [2, 5, 8, 0]},
        )
        assert odd.is_error and "2, 5, 8" not in odd.error and "[2" not in odd.error, odd.error
        letters = await call(
            client, TOOL, {"deviceName": "side door", "action": "add", "name": "Eve", "pin": "25ab"}
        )
        assert letters.error == "A PIN for Side Door Lock is 4 to 8 digits (0-9) and nothing else."


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ({"read_only": True}, "read-only mode"),
        ({"deny": "Side Door Lock"}, "deny list"),
        ({"hide": "Side Door Lock"}, "No device"),
    ],
)
async def test_changes_are_refused_in_read_only_mode_and_for_denied_or_hidden_locks(
    mosquitto: Any, sim: Simulator, tmp_path: Path, setting: dict[str, Any], expected: str
) -> None:
    before = side_users(sim)
    audit = tmp_path / "audit.jsonl"
    async with connected(settings_for(mosquitto, sim, audit_file=audit, **setting)) as client:
        for args in (
            {"action": "add", "name": "Dog Walker", "pin": "5150"},
            {"action": "rename", "user": "Alice", "name": "Al"},
            {"action": "disable", "user": "Alice"},
            {"action": "enable", "user": "Carol"},
            {"action": "change_pin", "user": "Bob", "pin": "5150"},
            {"action": "remove", "user": "Bob"},
        ):
            answer = await call(
                client, TOOL, {"deviceName": "side door", **args, "confirmationToken": "A" * 22}
            )
            assert answer.is_error and expected in answer.error, (args, answer.text)
            no_pin_in(answer.text)
        listed = await call(client, TOOL, {"deviceName": "side door"})
        assert listed.is_error is ("hide" in setting), listed.text
        every = await call(client, TOOL, {})  # a hidden lock's users are not in the house's list either
        assert ("Side Door Lock" in every.text) is ("hide" not in setting), every.text
    assert side_users(sim) == before
    # Each refusal's one audit line names the action as the gate names a carried-out one ("add_user"); a
    # hidden lock is answered as no such device, refused before anything is sent, as any change call is.
    said = [(line["action"], line["outcome"]) for line in map(json.loads, audit.read_text().splitlines())]
    assert said == [
        (action, "refused")
        for action in ("add_user", "rename_user", "disable_user", "enable_user", "change_pin", "remove_user")
    ], said


async def test_every_attempt_on_a_lock_leaves_one_audit_line(
    mosquitto: Any, sim: Simulator, tmp_path: Path
) -> None:
    # Issue 44 item 12: an action the tool does not know, or a name too long, was refused before the tool
    # ran and left no audit line; a listing is a read and leaves none.
    audit = tmp_path / "audit.jsonl"
    async with connected(settings_for(mosquitto, sim, audit_file=audit)) as client:
        for args in (
            {"action": "open_door", "user": "Alice"},
            {"action": "rename", "user": "Alice", "name": "A" * 500},
            {"action": "disable", "user": "Nobody"},
        ):
            answer = await call(client, TOOL, {"deviceName": "side door", **args})
            assert answer.is_error, (args, answer.text)
        assert not (await call(client, TOOL, {"deviceName": "side door"})).is_error
        assert not (await call(client, TOOL, {"deviceName": "side door", "action": "list"})).is_error
    said = [(line["action"], line["outcome"]) for line in map(json.loads, audit.read_text().splitlines())]
    # Refused for their arguments, nothing sent: refused, as the executor audits every change call.
    assert said == [("open_door", "refused"), ("rename_user", "refused"), ("disable_user", "refused")], said


async def test_dry_run_shows_the_request_without_the_pin(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim, dry_run=True)) as client:
        _, done = await confirmed(
            client, {"deviceName": "side door", "action": "add", "name": "Dave", "pin": "5150"}
        )
        assert done.outcome == "dry_run", done.text
        [message] = done.result["wouldSend"]
        assert message["topic"].endswith("/api/accessControlAddUser/set")
        assert message["payload"]["args"][:4] == [
            13,
            0,
            4,
            {"userName": "Dave", "active": True, "userType": 0},
        ]
        assert message["payload"]["args"][4]["data"] == "(the PIN, not shown)"
    assert 4 not in side_users(sim)


async def test_a_zwave_js_ui_without_the_access_control_api_is_told_apart(
    mosquitto: Any, sim: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zwave_mcp.simulator import api

    for name in [n for n in api.HANDLERS if n.startswith("accessControl")]:
        monkeypatch.delitem(api.HANDLERS, name)  # zwave-js-ui before 11.22.0 answers "Unknown API"
    async with connected(settings_for(mosquitto, sim)) as client:
        listed = await call(client, TOOL, {"deviceName": "side door"})
        assert listed.is_error and "needs zwave-js-ui 11.22.0 or newer" in listed.error, listed.text
        # A User Code lock's users are still read from its values (never a code); changes need the API.
        back = await call(client, TOOL, {"deviceName": "back door"})
        assert back.text == (
            "Back Door Lock has 4 users (from its User Code values: this zwave-js-ui has no access-control "
            "API): user 1 (PIN in slot 1), user 2 (PIN in slot 2), user 3 (PIN in slot 3) and user 4 "
            "(disabled, PIN in slot 4)."
        ), back.text
        no_pin_in(back.text, json.dumps(back.envelope))
        # ... and changed through them, as zwave-js's User Code API sets them (writeValue), with a yes.
        _, added = await confirmed(client, {"deviceName": "back door", "action": "add", "pin": "5150"}, sim)
        assert added.outcome == "confirmed" and back_slot(sim, 5) == (1, "5150"), added.text
        assert added.text.startswith("Done: Back Door Lock now lists user 5 (PIN in slot 5)"), added.text
        _, off = await confirmed(client, {"deviceName": "back door", "action": "disable", "user": "1"}, sim)
        assert off.outcome == "confirmed" and back_slot(sim, 1) == (2, "4821"), off.text
        _, new = await confirmed(
            client, {"deviceName": "back door", "action": "change_pin", "user": "1", "pin": "2580"}, sim
        )
        assert new.outcome == "confirmed" and back_slot(sim, 1) == (2, "2580"), new.text
        _, gone = await confirmed(client, {"deviceName": "back door", "action": "remove", "user": "5"}, sim)
        assert gone.outcome == "confirmed" and back_slot(sim, 5) == (0, ""), gone.text


async def test_changes_to_one_lock_are_rate_limited(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim, rate_limit_device=1)) as client:
        first = await call(
            client, TOOL, {"deviceName": "side door", "action": "rename", "user": "Bob", "name": "Rob"}
        )
        assert first.outcome == "confirmed" and side_users(sim)[2]["userName"] == "Rob", first.text
        second = await call(
            client, TOOL, {"deviceName": "side door", "action": "rename", "user": "Rob", "name": "Bob"}
        )
        assert second.is_error and "the limit per device" in second.error, second.text
        assert side_users(sim)[2]["userName"] == "Rob"


async def test_asked_through_the_client_in_both_protocol_eras(mosquitto: Any, sim: Simulator) -> None:
    import mcp_types

    asked: list[str] = []

    async def person(_context: Any, params: Any) -> mcp_types.ElicitResult:
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"confirm": True})

    args = {"deviceName": "side door", "action": "add", "name": "Dave", "pin": "5150"}
    async with connected(settings_for(mosquitto, sim), elicitation_callback=person, mode="legacy") as client:
        done = await call(client, TOOL, args)
    assert done.outcome == "confirmed" and side_users(sim)[4]["pin"] == "5150", done.text
    assert asked == [
        "Do you want to add a PIN for Dave as user 4 on Side Door Lock? Confirmation is needed because a code "
        "on the lock lets someone into the house."
    ]
    # 2026-07-28: the question ends the call, the pending change travels with it; the PIN does not.
    change = {"deviceName": "side door", "action": "change_pin", "user": "Dave", "pin": "6161"}
    async with connected(settings_for(mosquitto, sim), elicitation_callback=person) as client:
        first = await client.session.call_tool(TOOL, change, allow_input_required=True)
        assert isinstance(first, mcp_types.InputRequiredResult), first
        no_pin_in(first.model_dump_json())
        (key,) = first.input_requests or {}
        yes = mcp_types.ElicitResult(action="accept", content={"confirm": True})
        retry = {"input_responses": {key: yes}, "request_state": first.request_state}
        # A yes given for one PIN does not carry another: the retry with another PIN is not accepted.
        with pytest.raises(MCPError):
            await client.session.call_tool(
                TOOL, {**change, "pin": "7070"}, allow_input_required=True, **retry
            )
        assert side_users(sim)[4]["pin"] == "5150"
        first = await client.session.call_tool(TOOL, change, allow_input_required=True)
        assert isinstance(first, mcp_types.InputRequiredResult), first
        (key,) = first.input_requests or {}
        retry = {"input_responses": {key: yes}, "request_state": first.request_state}
        done2 = await client.session.call_tool(TOOL, change, allow_input_required=True, **retry)
        assert not isinstance(done2, mcp_types.InputRequiredResult) and not done2.is_error, done2
    assert side_users(sim)[4]["pin"] == "6161"


async def test_a_user_code_lock_users_names_are_kept_by_zwave_mcp(
    mosquitto: Any, sim: Simulator, tmp_path: Path
) -> None:
    """A User Code lock keeps no names (zwave-js-ui answers OK to a rename and changes nothing): zwave-mcp
    keeps them, beside its history file, and says its users and their keypad unlocks by them."""
    settings = settings_for(mosquitto, sim, history_path=str(tmp_path / "history.sqlite3"))
    async with connected(settings) as client:
        asked, added = await confirmed(
            client, {"deviceName": "back door", "action": "add", "name": "Cleaner", "pin": "2580"}
        )
        assert "(Back Door Lock keeps no names: zwave-mcp will call user 5 Cleaner)" in asked.text
        assert added.text.startswith("Done: Back Door Lock now lists Cleaner (user 5, PIN in slot 5)"), (
            added.text
        )
        assert back_slot(sim, 5) == (1, "2580")
        sim.lock_event(12, "keypad_unlock", 5)
        came = await wait_for_answer(
            client, "get_last_event", {"deviceName": "back door"}, lambda a: "Cleaner" in a.text
        )
        assert "unlocked with the keypad by Cleaner (user 5)" in came.text, came.text
        renamed = await call(
            client,
            TOOL,
            {"deviceName": "back door", "action": "rename", "user": "the cleaner", "name": "Housekeeper"},
        )
        assert renamed.outcome == "confirmed", renamed.text  # no yes needed, nothing sent to the lock
        assert "Housekeeper (user 5, PIN in slot 5)" in renamed.text
    async with connected(settings) as client:  # another server, the same home: the name is kept
        listed = await call(client, TOOL, {"deviceName": "back door"})
        assert "Housekeeper (user 5, PIN in slot 5)" in listed.text, listed.text
        _, removed = await confirmed(
            client, {"deviceName": "back door", "action": "remove", "user": "Housekeeper"}
        )
        assert removed.outcome == "confirmed" and back_slot(sim, 5) == (0, ""), removed.text
    kept = (tmp_path / "lock-names.json").read_text()
    assert "Housekeeper" not in kept and "Cleaner" not in kept
    no_pin_in(kept)


async def test_a_declined_question_sends_nothing(mosquitto: Any, sim: Simulator) -> None:
    import mcp_types

    async def no(_context: Any, _params: Any) -> mcp_types.ElicitResult:
        return mcp_types.ElicitResult(action="decline")

    before = locks_now(sim)
    async with connected(settings_for(mosquitto, sim), elicitation_callback=no, mode="legacy") as client:
        for args in (
            {"deviceName": "side door", "action": "add", "name": "Dave", "pin": "5150"},
            {"deviceName": "side door", "action": "remove", "user": "Bob"},
            {"deviceName": "back door", "action": "change_pin", "user": "2", "pin": "2580"},
        ):
            answer = await call(client, TOOL, args)
            assert answer.outcome == "declined" and "the person declined" in answer.text, answer.text
            no_pin_in(answer.text)
    assert locks_now(sim) == before
