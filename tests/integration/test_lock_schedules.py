"""Code schedules and a lock's own log through manage_lock_users (issue 45 items 3 and 5), on the
simulator serving the demo's Patio Door Lock (a real Kwikset 910: User Code, Schedule Entry Lock v2, Door
Lock Logging v1) as zwave-js-ui 11.22.2 does, over a real Mosquitto.

A schedule is set only with the person's yes, said back in plain words and read again from the lock; the
lock's log is said with its users, never with a code; a lock that cannot schedule or keeps no log says so;
every change is refused in read-only mode and for a denied or hidden lock.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.codes_in import shows_code
from tests.integration.mcp_harness import call, connected, settings_for, wait_for_answer
from zwave_mcp.logs import record_fields
from zwave_mcp.simulator import Simulator
from zwave_mcp.simulator.lock_extras import WRONG_CODE

pytestmark = pytest.mark.anyio

TOOL = "manage_lock_users"
PATIO = 24
# The patio lock's PINs (users 1-4) and the wrong code its log holds: found nowhere.
PINS = ("2468013579", "1357924680", "8642097531", "9753108642", WRONG_CODE)


@pytest.fixture
def sim(simulator_factory: Any) -> Simulator:
    sim: Simulator = simulator_factory(house="captured+locks")
    return sim


def no_pin_in(*texts: str) -> None:
    for text in texts:
        for pin in PINS:
            assert not shows_code(text, pin), f"a code ({pin}) leaked: {text[:300]}"


def slots(sim: Simulator, kind: str) -> list[dict[str, Any]]:
    return [dict(s) for s in sim.nodes[PATIO]["schedule"][kind]["slots"]]


async def agreed(client: Any, args: dict[str, Any], sim: Simulator) -> tuple[Any, Any]:
    before = json.dumps(sim.nodes[PATIO]["schedule"], sort_keys=True)
    asked = await call(client, TOOL, args)
    assert asked.outcome == "needs_confirmation", asked.text
    assert json.dumps(sim.nodes[PATIO]["schedule"], sort_keys=True) == before, "sent without a yes"
    done = await call(client, TOOL, {**args, "confirmationToken": asked.result["confirmationToken"]})
    no_pin_in(asked.text, json.dumps(asked.envelope), done.text, json.dumps(done.envelope))
    return asked, done


async def test_a_weekly_schedule_is_set_with_the_yes_said_back_in_words_and_taken_away(
    mosquitto: Any, sim: Simulator, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    audit = tmp_path / "audit.jsonl"
    caplog.set_level(logging.DEBUG)
    # The name zwave-mcp gives user 3 is kept beside this test's own history file, not the session's.
    settings = settings_for(mosquitto, sim, audit_file=audit, history_path=str(tmp_path / "history.sqlite3"))
    async with connected(settings) as client:
        before = await call(client, TOOL, {"action": "schedules", "deviceName": "patio door"})
        assert before.text == (
            "No code of Patio Door Lock has a schedule: every code works at any time. "
            "Patio Door Lock keeps 7 week-day and 1 year-day schedule slots per user."
        )
        # "Let the cleaner in on Tuesdays from 9 to 12": user 3 is the cleaner, as zwave-mcp names them.
        named = await call(
            client, TOOL, {"deviceName": "patio door", "action": "rename", "user": "3", "name": "Cleaner"}
        )
        if named.outcome == "needs_confirmation":
            named = await call(
                client,
                TOOL,
                {
                    "deviceName": "patio door",
                    "action": "rename",
                    "user": "3",
                    "name": "Cleaner",
                    "confirmationToken": named.result["confirmationToken"],
                },
            )
        assert not named.is_error, named.text
        args = {
            "deviceName": "patio door",
            "action": "schedule",
            "user": "the cleaner",
            "days": "Tuesdays",
            "start": "9",
            "end": "12",
        }
        asked, done = await agreed(client, args, sim)
        assert (
            "let Cleaner (user 3) open Patio Door Lock with their code only on Tuesdays from 09:00 to 12:00"
            in asked.text
        )
        assert "it changes when a code lets someone into the house" in asked.text
        assert done.outcome == "confirmed", done.text
        assert done.text == (
            "Done, as the lock's schedules read again show: On Patio Door Lock, the code of Cleaner (user 3) "
            "works only on Tuesdays from 09:00 to 12:00 (every other code works at any time)."
        )
        assert slots(sim, "weekly") == [
            {
                "userId": 3,
                "slotId": 1,
                "weekday": 2,
                "startHour": 9,
                "startMinute": 0,
                "stopHour": 12,
                "stopMinute": 0,
                "enabled": True,
            }
        ]
        assert done.result["schedules"][0]["schedules"] == [
            {
                "userId": 3,
                "kind": "weekly",
                "slot": 1,
                "inUse": True,
                "when": "on Tuesdays from 09:00 to 12:00",
            }
        ]
        again = await call(client, TOOL, args)
        assert again.is_error and "already has that schedule; nothing to do" in again.error
        # Two days more, one week-day slot each (a version 2 lock has no daily-repeating slots).
        _, more = await agreed(client, {**args, "days": "Mon, Thu", "start": "5 pm", "end": "18:30"}, sim)
        assert "on Mondays and Thursdays from 17:00 to 18:30" in more.text, more.text
        assert [s["slotId"] for s in slots(sim, "weekly")] == [1, 2, 3]
        which = await call(client, TOOL, {"action": "schedules"})
        assert "Front Door Lock, Back Door Lock and Side Door Lock cannot keep code schedules" in which.text
        # Taken away: every slot erased and the user's schedules off, so the code works at any time.
        asked, gone = await agreed(
            client, {"deviceName": "patio door", "action": "unschedule", "user": "cleaner"}, sim
        )
        assert "take away the schedule of Cleaner (user 3) on Patio Door Lock" in asked.text
        assert gone.outcome == "confirmed", gone.text
        assert slots(sim, "weekly") == [] and 3 not in sim.nodes[PATIO]["userCodes"]["enabled"]
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    said = [(line["action"], line["outcome"]) for line in lines if line["action"] != "rename_user"]
    assert said == [
        ("schedule_code", "needs_confirmation"),
        ("schedule_code", "confirmed"),
        ("schedule_code", "refused"),
        ("schedule_code", "needs_confirmation"),
        ("schedule_code", "confirmed"),
        ("unschedule_code", "needs_confirmation"),
        ("unschedule_code", "confirmed"),
    ], said
    logged = "\n".join(json.dumps(record_fields(r), default=str) for r in caplog.records)
    no_pin_in(audit.read_text(), logged)


async def test_a_code_that_works_until_sunday_is_a_date_schedule(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        args = {"deviceName": "patio door", "action": "schedule", "user": "4", "end": "Sunday"}
        _, done = await agreed(client, args, sim)
        assert done.outcome == "confirmed", done.text
        assert "the code of user 4 works only from " in done.text and " to " in done.text
        (slot,) = slots(sim, "yearly")
        assert (slot["userId"], slot["slotId"], slot["stopHour"], slot["stopMinute"]) == (4, 1, 23, 59)
        # The lock keeps one date slot per user: a second is refused before anything is sent.
        second = await call(client, TOOL, {**args, "end": "2099-01-01"})
        assert (
            second.is_error
            and "Every date schedule slot of Patio Door Lock for this user is taken" in second.error
        )


async def test_a_lock_that_cannot_schedule_says_so_and_odd_times_are_refused(
    mosquitto: Any, sim: Simulator
) -> None:
    async with connected(settings_for(mosquitto, sim)) as client:
        back = await call(client, TOOL, {"action": "schedules", "deviceName": "back door"})
        assert back.text == "Back Door Lock cannot keep code schedules."
        refused = await call(
            client,
            TOOL,
            {
                "deviceName": "back door",
                "action": "schedule",
                "user": "1",
                "days": "Tue",
                "start": "9",
                "end": "12",
            },
        )
        assert refused.is_error
        assert refused.error == "Back Door Lock cannot keep code schedules; its codes work at any time."
        patio = {"deviceName": "patio door", "action": "schedule", "user": "1"}
        for extra, words in (
            ({"days": "Tue", "start": "12", "end": "9"}, "must come after the start"),
            ({"days": "Funday", "start": "9", "end": "12"}, "I cannot read the day 'funday'"),
            ({"days": "Tue", "start": "25", "end": "26"}, "The start time '25' is no time of day"),
            ({"days": "Tue", "start": "9", "end": "9"}, "must come after the start"),
            ({}, "Say when user 1 may come in"),
        ):
            answer = await call(client, TOOL, {**patio, **extra})
            assert answer.is_error and words.lower() in answer.error.lower(), (extra, answer.text)
        assert slots(sim, "weekly") == []


async def test_the_locks_own_log_is_said_with_its_users_and_never_a_code(
    mosquitto: Any, sim: Simulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with connected(settings_for(mosquitto, sim)) as client:
        sim.lock_event(PATIO, "keypad_unlock", 2)  # the lock writes it into its own log too
        log = await call(
            client, TOOL, {"action": "log", "deviceName": "patio door", "period": "last 24 hours"}
        )
        assert log.text.startswith(
            "Patio Door Lock's own log, in the last 24 hours: it was unlocked with a code by user 1 "
        )
        assert "was unlocked with a code by user 3 " in log.text and "refused a wrong code " in log.text
        assert (
            log.text.endswith("(it keeps 20 records).")
            and "was unlocked with a code by user 2 at " in log.text
        )
        events = [(e["event"], e["userId"]) for e in log.result["log"]]
        assert events[0] == ("was unlocked with a code", 1) and events[-1] == ("was unlocked with a code", 2)
        assert all(e["at"].endswith("+00:00") for e in log.result["log"])  # local time (the tests' zone)
        newest = await call(client, TOOL, {"action": "log", "deviceName": "patio door"})
        assert newest.text.startswith("Patio Door Lock's own log, newest last: it ")
        none = await call(client, TOOL, {"action": "log", "deviceName": "back door"})
        assert none.text == (
            "Back Door Lock keeps no log of its own; get_recent_events says what zwave-mcp heard from it."
        )
        no_pin_in(log.text, json.dumps(log.envelope), newest.text, json.dumps(newest.envelope))
    logged = "\n".join(json.dumps(record_fields(r), default=str) for r in caplog.records)
    no_pin_in(logged)


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ({"read_only": True}, "read-only mode"),
        ({"deny": "Patio Door Lock"}, "deny list"),
        ({"hide": "Patio Door Lock"}, "No device"),
    ],
)
async def test_schedules_are_refused_in_read_only_mode_and_for_denied_or_hidden_locks(
    mosquitto: Any, sim: Simulator, tmp_path: Path, setting: dict[str, Any], expected: str
) -> None:
    audit = tmp_path / "audit.jsonl"
    async with connected(settings_for(mosquitto, sim, audit_file=audit, **setting)) as client:
        for args in (
            {"action": "schedule", "user": "3", "days": "Tue", "start": "9", "end": "12"},
            {"action": "unschedule", "user": "3"},
        ):
            answer = await call(
                client, TOOL, {"deviceName": "patio door", **args, "confirmationToken": "A" * 22}
            )
            assert answer.is_error and expected in answer.error, (args, answer.text)
            # It says what was asked, not "change the users of Patio Door Lock".
            assert "hide" in setting or "Refused to change when codes work on Patio Door Lock" in answer.error
        log = await call(client, TOOL, {"action": "log", "deviceName": "patio door"})
        listed = await call(client, TOOL, {"action": "schedules", "deviceName": "patio door"})
        # Reads: a denied lock's log and schedules are read, a hidden lock is no device.
        assert log.is_error is listed.is_error is ("hide" in setting), (log.text, listed.text)
    assert slots(sim, "weekly") == []
    said = [(line["action"], line["outcome"]) for line in map(json.loads, audit.read_text().splitlines())]
    assert said == [("schedule_code", "refused"), ("unschedule_code", "refused")], said


async def test_dry_run_shows_the_schedule_request_and_sends_nothing(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim, dry_run=True)) as client:
        _, done = await agreed(
            client,
            {
                "deviceName": "patio door",
                "action": "schedule",
                "user": "3",
                "days": "Tue",
                "start": "9",
                "end": "12",
            },
            sim,
        )
        assert done.outcome == "dry_run", done.text
        (message,) = done.result["wouldSend"]
        assert message["topic"].endswith("/api/setSchedule/set")
        assert message["payload"]["args"] == [
            PATIO,
            "weekly",
            {
                "userId": 3,
                "slotId": 1,
                "weekday": 2,
                "startHour": 9,
                "startMinute": 0,
                "stopHour": 12,
                "stopMinute": 0,
            },
        ]
    assert slots(sim, "weekly") == []


async def test_a_record_is_said_with_the_name_its_user_had_then(
    mosquitto: Any, sim: Simulator, tmp_path: Path
) -> None:
    # History keeps the name each lock event was said with; the lock's own record of it is said with that
    # name, though the user has been renamed since.
    settings = settings_for(mosquitto, sim, history_path=str(tmp_path / "history.sqlite3"))
    async with connected(settings) as client:
        for name in ("Dog Walker", "Gardener"):
            await anyio.sleep(2.1)  # the lock stamps its records to the second: two seconds apart
            renamed = await call(
                client, TOOL, {"deviceName": "patio door", "action": "rename", "user": "2", "name": name}
            )
            assert not renamed.is_error, renamed.text
            await call(
                client, TOOL, {"deviceName": "patio door"}
            )  # the users, read as the next event is named
            sim.lock_event(PATIO, "keypad_unlock", 2)
            await wait_for_answer(
                client, "get_recent_events", {"minutes": 5}, lambda a, n=name: f"by {n} (user 2)" in a.text
            )
        log = await call(client, TOOL, {"action": "log", "deviceName": "patio door", "period": "last hour"})
    said = log.text
    assert said.index("was unlocked with a code by Dog Walker (user 2)") < said.index(
        "was unlocked with a code by Gardener (user 2)"
    ), said
