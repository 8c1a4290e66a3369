"""What the lock says (issue 37): a jam, a keypad disabled after wrong codes and whether it locks itself again,
in the lock's state answer; its events in words, with the user's name."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.test_replay_data import locks_getnodes
from zwave_mcp.devices.build import devices_for_node
from zwave_mcp.devices.describe import sentence
from zwave_mcp.devices.kinds.lock import by_user, lock_phrase, relock_words
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.questions import Question, answer
from zwave_mcp.gateway.nodes import parse_node


def back_door(**values: Any) -> Device:
    raw = locks_getnodes()[0]
    for key, value in values.items():
        raw["values"][key]["value"] = value
    node = parse_node(raw)
    assert node is not None
    return devices_for_node(node)[0]


def test_a_jam_and_a_disabled_keypad_are_in_the_lock_state() -> None:
    lock = back_door(**{"113-0-Access Control-Lock state": 11, "113-0-Access Control-Keypad state": 16})
    said = sentence(lock)
    assert said == (
        "Back Door Lock is unlocked and jammed, and the door is open; keypad disabled for a while after too "
        "many wrong codes and battery 78 %."
    ), said
    idle = sentence(back_door())
    assert "jammed" not in idle and "keypad" not in idle, idle


def test_a_jam_is_in_every_answer_about_the_locks_state() -> None:
    """Issue 43 item 20: `state=locked` answered "2 devices are locked" for two jammed locks."""
    jammed = back_door(**{"113-0-Access Control-Lock state": 11, "98-0-currentMode": 255})
    assert answer(Question.LOCKED, [jammed], "locks", False).sentence == (
        "Back Door Lock is locked; it is jammed."
    )
    assert answer(Question.UNLOCKED, [jammed], "locks", False).sentence == (
        "No locks are unlocked; Back Door Lock is jammed."
    )
    assert "jammed" not in answer(Question.LOCKED, [back_door()], "locks", False).sentence


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({}, "it does not lock itself again (constant operation)"),
        ({"98-0-operationType": 2, "98-0-lockTimeoutConfiguration": 30}, "it locks itself again 30 seconds after it is unlocked"),
        ({"98-0-operationType": 2, "98-0-lockTimeoutConfiguration": 180}, "it locks itself again 3 minutes after it is unlocked"),
    ],
)  # fmt: skip
def test_whether_it_locks_itself_again(settings: dict[str, Any], words: str) -> None:
    lock = back_door(**settings)
    assert relock_words(lock) == words
    # Said in the state answer when it does; that it does not is in the structured result only.
    assert (words in sentence(lock)) is words.startswith("it locks")


@pytest.mark.parametrize(
    ("stored", "words", "state"),
    [
        ({"event": "keypad_unlock", "userId": 4, "userName": "Dog Walker"}, "was unlocked with the keypad by Dog Walker (user 4)", "unlocked"),
        ({"event": "keypad_lock", "userId": 1}, "was locked with the keypad by user 1", "locked"),
        ({"event": "manual_unlock"}, "was unlocked by hand", "unlocked"),
        ({"event": "rf_lock"}, "was locked remotely", "locked"),
        ({"event": "auto_lock"}, "locked itself", "locked"),
        ({"event": "code_limit_exceeded"}, "refused a code: too many wrong codes were entered", None),
        ({"event": "jammed"}, "jammed", "jammed"),
        ({"event": "something new"}, "reported a lock event", None),
    ],
)  # fmt: skip
def test_lock_events_in_words(stored: dict[str, Any], words: str, state: str | None) -> None:
    assert lock_phrase(stored) == (words, state)


def test_an_event_is_said_with_the_name_it_kept_never_the_name_the_user_has_now() -> None:
    # Issue 44 item 1: slot 3 unnamed at the unlock, later given to the dog walker: the unlock stays user 3's.
    assert lock_phrase({"event": "keypad_unlock", "userId": 3})[0] == "was unlocked with the keypad by user 3"
    assert by_user({"event": "keypad_unlock", "userId": 3, "userName": "Cleaner"}, "the cleaner")
    assert by_user({"event": "keypad_unlock", "userId": 3, "userName": "Cleaner"}, "CLEANER")
    assert not by_user({"event": "keypad_unlock", "userId": 3}, "cleaner")
