"""The simulator's Schedule Entry Lock APIs against what zwave-js-ui 11.22.2 (zwave-js 15.29) answered on the
real test bed, its mock lock given Schedule Entry Lock (docs/simulator.md): each user's slots are `enabled`
for the kind set last for that user, and zwave-js's argument checks fail with its own words, the reply's
args showing the schedule zwave-js-ui took the slot out of."""

from __future__ import annotations

from typing import Any

import pytest

from zwave_mcp.simulator import Simulator, lock_extras
from zwave_mcp.simulator.house import CAPTURED_WITH_LOCKS

PATIO = 24  # the Kwikset 910: users 1-4 in use, 7 week-day and 1 year-day slot each
TUESDAY = {"weekday": 2, "startHour": 9, "startMinute": 0, "stopHour": 12, "stopMinute": 0}
UNTIL_SUNDAY = {
    "startYear": 2026,
    "startMonth": 12,
    "startDay": 2,
    "startHour": 0,
    "startMinute": 0,
    "stopYear": 2026,
    "stopMonth": 12,
    "stopDay": 6,
    "stopHour": 23,
    "stopMinute": 59,
}


@pytest.fixture
def sim() -> Simulator:
    simulator = Simulator(house=CAPTURED_WITH_LOCKS)
    simulator.radio.submit = lambda _latency, action: action()  # type: ignore[method-assign]
    return simulator


def call(sim: Simulator, api: str, args: list[Any]) -> Any:
    answers: list[Any] = []
    lock_extras.HANDLERS[api](sim, args, lambda *result, **_: answers.append(result[0] if result else None))
    assert len(answers) == 1, answers
    return answers[0]


def test_each_users_slots_are_enabled_for_the_kind_set_last_for_that_user(sim: Simulator) -> None:
    call(sim, "setSchedule", [PATIO, "weekly", {"userId": 1, "slotId": 1, **TUESDAY}])
    call(sim, "setSchedule", [PATIO, "weekly", {"userId": 5, "slotId": 1, **TUESDAY}])  # no code: not in use
    call(sim, "setSchedule", [PATIO, "yearly", {"userId": 3, "slotId": 1, **UNTIL_SUNDAY}])
    schedule = call(sim, "getSchedules", [PATIO])
    # The bed: user 1's Tuesday stays enabled beside user 3's dates; user 5's, not re-read, keeps the
    # false zwave-js-ui gave it when the dates were set.
    assert [(s["userId"], s["enabled"]) for s in schedule["weekly"]["slots"]] == [(1, True), (5, False)]
    assert [(s["userId"], s["enabled"]) for s in schedule["yearly"]["slots"]] == [(3, True)]
    assert sim.nodes[PATIO]["userCodes"]["enabled"] == [1, 3]
    # Turning a user's schedules off is zwave-js's flag for that user; the slot still says its kind.
    assert call(sim, "setEnabledSchedule", [PATIO, False, 1]) is None  # no Supervision: no result
    schedule = call(sim, "getSchedules", [PATIO])
    assert sim.nodes[PATIO]["userCodes"]["enabled"] == [3]
    assert schedule["weekly"]["slots"][0]["enabled"] is True


SLOT_ID = "Argument validation failed:\nparameter slot is not assignable to ScheduleEntryLockSlotId\n"
WEEK_DAY = (
    "Argument validation failed:\n"
    "optional parameter schedule is not assignable to ScheduleEntryLockWeekDaySchedule\n"
)


@pytest.mark.parametrize(
    ("schedule", "message"),
    [
        (
            TUESDAY,
            SLOT_ID + "  required property userId is missing\n  required property slotId is missing (ZW0322)",
        ),
        ({"slotId": 1, **TUESDAY}, SLOT_ID + "  required property userId is missing (ZW0322)"),
        ({"userId": 1, **TUESDAY}, SLOT_ID + "  required property slotId is missing (ZW0322)"),
        (
            {"userId": "1", "slotId": 1, **TUESDAY},
            SLOT_ID + '  Expected property userId to be a number, got string "1" (ZW0322)',
        ),
        (
            {"userId": 1, "slotId": "1", **TUESDAY},
            SLOT_ID + '  Expected property slotId to be a number, got string "1" (ZW0322)',
        ),
        (
            {"userId": 1, "slotId": 1, **{k: v for k, v in TUESDAY.items() if k != "weekday"}},
            WEEK_DAY + "  required property weekday is missing (ZW0322)",
        ),
        (
            {"userId": 1, "slotId": 1, **{k: v for k, v in TUESDAY.items() if k != "startMinute"}},
            WEEK_DAY + "  required property startMinute is missing (ZW0322)",
        ),
    ],
)
def test_a_malformed_slot_or_schedule_fails_with_zwave_js_words(
    sim: Simulator, schedule: dict[str, Any], message: str
) -> None:
    args: list[Any] = [PATIO, "weekly", dict(schedule)]
    with pytest.raises(Exception) as raised:
        call(sim, "setSchedule", args)
    assert str(raised.value) == message
    # zwave-js-ui took userId, slotId and enabled out of the schedule before zwave-js checked it.
    assert args[2] == {k: v for k, v in schedule.items() if k not in ("userId", "slotId")}
    assert sim.nodes[PATIO]["schedule"]["weekly"]["slots"] == []


def test_schedules_switched_with_a_word_not_a_boolean_fail(sim: Simulator) -> None:
    with pytest.raises(Exception) as raised:
        call(sim, "setEnabledSchedule", [PATIO, "yes", 1])
    assert str(raised.value) == (
        'Argument validation failed:\nExpected parameter enabled to be a boolean, got string "yes" (ZW0322)'
    )


def test_a_set_schedule_reply_shows_the_schedule_without_its_slot(sim: Simulator) -> None:
    args: list[Any] = [PATIO, "weekly", {"userId": 2, "slotId": 1, **TUESDAY, "enabled": True}]
    assert call(sim, "setSchedule", args) == {"status": 255}
    assert args == [PATIO, "weekly", TUESDAY]
    # A slot alone (nothing left once it is taken out) deletes it.
    delete: list[Any] = [PATIO, "weekly", {"userId": 2, "slotId": 1}]
    assert call(sim, "setSchedule", delete) == {"status": 255} and delete[2] == {}
    assert sim.nodes[PATIO]["schedule"]["weekly"]["slots"] == []
