"""Code schedules and the lock's own log, pure (issue 45 items 3 and 5): what a person says becomes
Schedule Entry Lock slots in zwave-js's shapes, the slots are said in plain words, getSchedules' and
getRecord's results are read as zwave-js-ui 11.22.2 gives them, and a record's code stops at the API edge."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.unit.test_api import TOPICS, FakeTransport, reply_for, wait_sent
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.lock_schedules import (
    describe_schedules,
    plan_schedule,
    plan_unschedule,
    read_clock,
    read_days,
    read_moment,
    slot_words,
)
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.access import users_from_values
from zwave_mcp.gateway.api import ApiClient
from zwave_mcp.gateway.lock_log import LockLog, LogRecord, parse_record
from zwave_mcp.gateway.lock_schedules import ScheduleSlot, parse_schedules
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.server.tools.lock_log import _sentence
from zwave_mcp.server.tools.locks import LockUsersArgs
from zwave_mcp.simulator.house import patio_lock

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 12, 2, 7, 15, tzinfo=BERLIN)  # a Wednesday


def patio(schedule: dict[str, Any] | None = None) -> tuple[Any, Any, Any]:
    raw = patio_lock()[0]
    node = parse_node(raw)
    assert node is not None
    device = next(d for d in build_devices([node]) if d.key == "24")
    return device, users_from_values(node), parse_schedules(24, schedule or raw["schedule"])


def test_days_times_and_moments_as_people_say_them() -> None:
    assert read_days("Tuesdays") == [2] and read_days("every Tuesday") == [2]
    assert read_days("Mon-Fri") == read_days("weekdays") == [1, 2, 3, 4, 5]
    assert read_days("Fri-Mon") == [0, 1, 5, 6] and read_days("mon, wed and fri") == [1, 3, 5]
    with pytest.raises(UserError, match="cannot read the day 'tuexyz'"):
        read_days("tuexyz")
    assert read_moment("Sunday", NOW, end=True) == datetime(2026, 12, 6, 23, 59, tzinfo=BERLIN)
    assert read_moment("wednesday", NOW, end=True).day == 2  # today, said on a Wednesday
    assert read_moment("tomorrow 18:00", NOW, end=True) == datetime(2026, 12, 3, 18, 0, tzinfo=BERLIN)
    assert read_moment("2026-12-24", NOW, end=False) == datetime(2026, 12, 24, 0, 0, tzinfo=BERLIN)


def test_until_a_day_is_read_as_the_day() -> None:
    """The tool's own description says `end` "until 'Sunday'", and a model sends it so: it was refused as
    "I cannot read 'until Sunday' as a day"."""
    sunday = datetime(2026, 12, 6, 23, 59, tzinfo=BERLIN)
    assert read_moment("until Sunday", NOW, end=True) == sunday
    assert read_moment("till sunday", NOW, end=True) == read_moment("through Sunday", NOW, end=True) == sunday
    assert read_moment("until tomorrow 18:00", NOW, end=True) == datetime(2026, 12, 3, 18, 0, tzinfo=BERLIN)


def test_hours_with_the_words_of_the_tools_own_examples() -> None:
    """`start` is described "from '9'" and `end` "to '12'": "from 9" and "to 12" were refused as no time, and
    so were both hours in the start ("9-12")."""
    assert read_clock("from 9", "start") == time(9) and read_clock("to 12", "end") == time(12)
    assert read_clock("until 5 pm", "end") == time(17)
    device, users, schedules = patio()
    said = plan_schedule(device, users, schedules, user="3", days="Tuesdays", start="9-12", end=None, now=NOW)
    again = plan_schedule(device, users, schedules, user="3", days="Tue", start="9 to 12", end=None, now=NOW)
    assert said.summary == again.summary
    assert said.summary.endswith("only on Tuesdays from 09:00 to 12:00")


def test_a_user_number_and_hours_may_come_as_numbers() -> None:
    """ "Let user 3 in on Tuesdays from 9 to 12" sent as JSON numbers was refused ("Parameter 'user' must be a
    string (got 3)"); they are the same as their text."""
    args = LockUsersArgs.model_validate(
        {
            "action": "schedule",
            "deviceName": "patio door lock",
            "user": 3,
            "days": "Tuesday",
            "start": 9,
            "end": 12,
        }
    )
    assert (args.user, args.start, args.end) == ("3", "9", "12")


def test_slots_are_said_in_plain_words() -> None:
    weekly = ScheduleSlot(
        "weekly", 3, 1, {"weekday": 2, "startHour": 9, "startMinute": 0, "stopHour": 12, "stopMinute": 0}
    )
    assert slot_words(weekly, NOW) == "on Tuesdays from 09:00 to 12:00"
    daily = ScheduleSlot(
        "daily",
        3,
        1,
        {"weekdays": [5, 6], "startHour": 22, "startMinute": 30, "durationHour": 4, "durationMinute": 0},
    )
    assert slot_words(daily, NOW) == "on Fridays and Saturdays from 22:30 to 02:30 the next day"
    fields = dict(
        zip(
            (
                "startYear",
                "startMonth",
                "startDay",
                "startHour",
                "startMinute",
                "stopYear",
                "stopMonth",
                "stopDay",
                "stopHour",
                "stopMinute",
            ),
            (2026, 12, 2, 7, 15, 2027, 1, 6, 23, 59),
            strict=True,
        )
    )
    assert slot_words(ScheduleSlot("yearly", 4, 1, fields), NOW) == "from 2 Dec 07:15 to 6 Jan 2027 23:59"


def test_a_week_of_tuesdays_and_a_code_until_sunday_are_planned_as_the_lock_keeps_them() -> None:
    device, users, schedules = patio()
    planned = plan_schedule(
        device, users, schedules, user="3", days="Tue and Thu", start="9", end="12:30", now=NOW
    )
    # A version 2 lock has no daily-repeating slots: one week-day slot per day.
    assert [(op.kind, op.slot_id, op.fields) for op in planned.ops] == [
        ("weekly", 1, {"weekday": 2, "startHour": 9, "startMinute": 0, "stopHour": 12, "stopMinute": 30}),
        ("weekly", 2, {"weekday": 4, "startHour": 9, "startMinute": 0, "stopHour": 12, "stopMinute": 30}),
    ]
    assert (
        planned.summary
        == "let user 3 open Patio Door Lock with their code only on Tuesdays and Thursdays from 09:00 to 12:30"
    )
    guest = plan_schedule(device, users, schedules, user="4", days=None, start=None, end="Sunday", now=NOW)
    (op,) = guest.ops
    assert (
        op.kind,
        op.fields["startDay"],
        op.fields["startHour"],
        op.fields["stopDay"],
        op.fields["stopHour"],
    ) == ("yearly", 2, 0, 6, 23)
    # The yes comes minutes later: the same request, so the yes given for it still holds.
    later = plan_schedule(
        device, users, schedules, user="4", days=None, start=None, end="Sunday", now=NOW.replace(minute=19)
    )
    assert later.binding == guest.binding
    with pytest.raises(UserError, match="has passed"):  # a start given, an end already gone
        plan_schedule(
            device, users, schedules, user="4", days=None, start="2026-11-01", end="2026-12-01", now=NOW
        )
    with pytest.raises(UserError, match="has no user 'Nobody' with a code"):
        plan_schedule(device, users, schedules, user="Nobody", days="Tue", start="9", end="12", now=NOW)


def test_a_lock_of_version_3_takes_several_days_in_one_daily_slot_and_a_kind_switch_is_said() -> None:
    daily_lock = {
        "daily": {"numSlots": 2, "slots": []},
        "weekly": {"numSlots": 7, "slots": []},
        "yearly": {
            "numSlots": 1,
            "slots": [
                {
                    "userId": 3,
                    "slotId": 1,
                    "enabled": True,
                    "startYear": 2026,
                    "startMonth": 12,
                    "startDay": 1,
                    "startHour": 0,
                    "startMinute": 0,
                    "stopYear": 2026,
                    "stopMonth": 12,
                    "stopDay": 31,
                    "stopHour": 23,
                    "stopMinute": 59,
                }
            ],
        },
    }
    device, users, schedules = patio(daily_lock)
    planned = plan_schedule(device, users, schedules, user="3", days="weekdays", start="8", end="17", now=NOW)
    (op,) = planned.ops
    assert (op.kind, op.fields) == (
        "daily",
        {
            "weekdays": [1, 2, 3, 4, 5],
            "startHour": 8,
            "startMinute": 0,
            "durationHour": 9,
            "durationMinute": 0,
        },
    )
    assert (
        "(their schedule from 1 Dec 00:00 to 31 Dec 23:59 stops applying: a lock uses one kind of schedule per user)"
        in planned.summary
    )
    assert describe_schedules(users, schedules, "Patio Door Lock", NOW).startswith(
        "On Patio Door Lock, the code of user 3 works only from 1 Dec 00:00 to 31 Dec 23:59 (every other code works at any time)."
    )
    gone = plan_unschedule(device, users, schedules, user="3")
    assert [(op.kind, op.slot_id, op.fields, op.enable) for op in gone.ops] == [
        ("yearly", 1, None, None),
        ("", 0, None, False),
    ]
    # What the question names; it was "…, so their code works at any time because it changes when …".
    assert (
        gone.summary
        == "take away the schedule of user 3 on Patio Door Lock (their code then works at any time)"
    )
    with pytest.raises(UserError, match="has no schedule"):
        plan_unschedule(device, users, schedules, user="1")


def test_get_schedules_result_is_read_and_what_does_not_fit_is_left_out() -> None:
    read = parse_schedules(
        24,
        {
            "weekly": {
                "numSlots": 7,
                "slots": [
                    {
                        "userId": 3,
                        "slotId": 1,
                        "weekday": 2,
                        "startHour": 9,
                        "startMinute": 0,
                        "stopHour": 12,
                        "stopMinute": 0,
                        "enabled": False,
                    },
                    {
                        "userId": 3,
                        "slotId": 2,
                        "weekday": 9,
                        "startHour": 9,
                        "startMinute": 0,
                        "stopHour": 12,
                        "stopMinute": 0,
                    },
                    {"userId": "3", "slotId": 3},
                ],
            },
            "yearly": {"numSlots": 1, "slots": []},
            "daily": {"slots": []},  # a version 2 lock: zwave-js has no count (undefined, left out)
        },
    )
    assert read.slots_of == {"weekly": 7, "yearly": 1, "daily": 0}
    assert [(s.user_id, s.slot_id, s.enabled) for s in read.slots] == [(3, 1, False)]
    assert not parse_schedules(24, None).supported


def test_a_record_is_read_without_its_code() -> None:
    record = parse_record(
        {
            "eventType": 2,
            "label": "Unlocked via Access Code",
            "timestamp": "2026-12-01T21:41:00.000Z",
            "userId": 3,
            "userCode": "4821",
        }
    )
    assert record is not None and record.at == datetime(2026, 12, 1, 21, 41, tzinfo=UTC)
    assert (record.user_id, record.words) == (3, "was unlocked with a code")
    assert "4821" not in repr(record)
    assert parse_record(None) is None and parse_record({"eventType": 2, "timestamp": "yesterday"}) is None


async def test_a_log_record_loses_its_code_at_the_api_edge() -> None:
    transport = FakeTransport()
    api = ApiClient(transport, TOPICS)
    ctx = {"nodeId": 24, "commandClass": 76, "endpoint": 0}
    task = asyncio.create_task(api.call("sendCommand", ctx, "getRecord", [3], timeout=1))
    await wait_sent(transport, 1)
    record = {
        "eventType": 2,
        "label": "Unlocked via Access Code",
        "timestamp": "2026-12-01T21:41:00.000Z",
        "userId": 3,
        "userCode": "4821",
    }
    api.handle_reply("sendCommand", reply_for(transport.sent[0][1], result=record))
    reply = await task
    assert reply.result == {k: v for k, v in record.items() if k != "userCode"}
    assert "4821" not in repr(reply)


def test_a_log_of_one_named_day_says_the_day_once() -> None:
    """ "Patio Door Lock's own log, yesterday: it was unlocked … yesterday at 17:13, locked itself yesterday at
    17:19, …": the period named the day, and every record said it again."""
    records = tuple(
        LogRecord(datetime(2026, 12, 1, hour, 13, tzinfo=UTC), event, user)
        for hour, event, user in ((16, 2, 1), (21, 2, 3))
    )
    log = LockLog(24, 20, 20, records)
    said = _sentence("Patio Door Lock", log, [(r, None) for r in records], "yesterday", NOW)
    assert said == (
        "Patio Door Lock's own log, yesterday: it was unlocked with a code at 17:13 and was unlocked with a "
        "code at 22:13 (it keeps 20 records)."
    )
    # Records of several days keep theirs.
    night = _sentence("Patio Door Lock", log, [(records[1], None)], "last night", NOW)
    assert night.endswith("was unlocked with a code yesterday at 22:13 (it keeps 20 records).")
