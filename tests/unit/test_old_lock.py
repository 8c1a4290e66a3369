"""A lock that speaks only the old Lock command class (0x76: one boolean "locked", written and reported)
is a lock like a Door Lock one: said locked or unlocked, asked about, locked and unlocked through the gate,
unlocking confirmed first.

No public dump of a lock with the Lock command class alone was found (Home Assistant's and zwave-js's
fixtures have it only beside Door Lock), so the lock here is a real one, the Kwikset HC620
(fixtures/devices/lock_home_connect_620_state.json), with its Door Lock values taken away: what is left
is that lock's own Lock command class value as zwave-js reported it (locked: true)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from zwave_mcp.devices import model as m
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.control import available_actions, control_change, plan_control
from zwave_mcp.devices.describe import change_phrase, sentence, state_summary
from zwave_mcp.devices.kinds.lock import lock_state
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.questions import Question, answer
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.history.words import describe_value
from zwave_mcp.policy import Policy
from zwave_mcp.simulator.dumps import load_house_file
from zwave_mcp.zwave.classes import CC

DUMP = Path(__file__).resolve().parents[2] / "fixtures" / "devices" / "lock_home_connect_620_state.json"


def old_lock() -> Device:
    (raw,) = [n for n in load_house_file(DUMP) if not n.get("isControllerNode")]
    raw["values"] = {k: v for k, v in raw["values"].items() if v["commandClass"] != CC.DOOR_LOCK}
    node = parse_node(raw)
    assert node is not None
    (device,) = build_devices([node])
    return replace(device, name="Back Door")


def test_it_is_a_lock_that_says_whether_it_is_locked() -> None:
    lock = old_lock()
    assert lock.kind == Capability.LOCK
    locked = lock.values[m.LOCK_TARGET]
    assert (locked.command_class, locked.property) == (CC.LOCK, "locked")
    assert lock.values[m.LOCK_CURRENT] is locked  # written and reported by the same value
    assert lock_state(lock) == "locked" and state_summary(lock).startswith("locked")
    assert sentence(lock).startswith("Back Door is locked")
    assert answer(Question.UNLOCKED, [lock], "back door", False).matching == []
    locked.value = False
    assert sentence(lock).startswith("Back Door is unlocked")
    assert answer(Question.UNLOCKED, [lock], "back door", False).matching == [lock]
    locked.value = None
    assert sentence(lock).startswith("Back Door has not reported whether it is locked")
    assert change_phrase(lock, locked, True) == "locked"
    assert describe_value(locked, False).text == "was unlocked"


@pytest.mark.parametrize(("action", "sent", "sensitive"), [("lock", True, False), ("unlock", False, True)])
def test_it_is_locked_and_unlocked_through_the_gate(action: str, sent: bool, sensitive: bool) -> None:
    lock = old_lock()
    assert available_actions(lock) == ["lock", "unlock"]
    plan = plan_control(lock, action)
    (write,) = plan.writes
    (expect,) = plan.expectations
    assert (write.value.property, write.target) == ("locked", sent)
    assert (expect.value.property, expect.expected, expect.match) == ("locked", sent, "equals")
    (effect,) = control_change(plan).effects
    assert action in effect.words
    judged = Policy().judge(effect.device, effect.words, effect.argument, unit=None, action_text="x")
    assert judged.needs_confirmation is sensitive
