"""Questions about many devices, answered in one sentence, on the captured house."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.unit.test_devices_build import house
from zwave_mcp.devices import model as m
from zwave_mcp.devices.questions import Question, answer
from zwave_mcp.devices.resolve import DeviceIndex


def ask(index: DeviceIndex, question: str, target: str = "everything") -> str:
    group = index.group(target)
    everything = group.everything
    return answer(Question(question), group.devices, group.label, everything).sentence


@pytest.fixture
def index() -> DeviceIndex:
    return DeviceIndex(house().values())


def test_as_captured(index: DeviceIndex) -> None:
    assert ask(index, "on", "kitchen") == "No kitchen devices are on."
    assert ask(index, "on", "lights") == "1 of the 3 lights is on: Living Room Lamp (40 %)."
    assert ask(index, "unlocked", "doors") == "Front Door Lock is unlocked."
    assert ask(index, "open") == "1 device is open: Front Door."
    assert ask(index, "battery") == (
        "Battery levels, lowest first: Front Door Lock 64 %, Bedroom Sensor 87 % and Garage Motion 100 %."
    )
    assert ask(index, "low_battery") == "No battery is low (all above 20 %)."
    assert ask(index, "on", "sensors") == "None of the sensors can be switched on or off."
    assert (
        ask(index, "off", "porch")
        == "Both porch devices are off: Porch Double Switch and Porch Double Switch 2."
    )
    assert ask(index, "on") == "1 device is on: Living Room Lamp (40 %)."


def test_answers_follow_the_live_values(index: DeviceIndex) -> None:
    d = {dev.key: dev for dev in index.devices}
    d["2"].values[m.SWITCH_CURRENT].value = True
    d["8"].values[m.SWITCH_CURRENT].value = True
    assert ask(index, "on", "kitchen") == "Both kitchen devices are on: Kitchen Light and Coffee Maker Plug."
    d["9"].values[m.LEVEL_CURRENT].value = 99
    assert (
        ask(index, "on", "lights")
        == "All 3 lights are on: Kitchen Light, Living Room Lamp (40 %) and Bedroom Color Bulb."
    )
    d["5"].values[m.LOCK_CURRENT].value = 255
    assert ask(index, "unlocked", "doors") == "No doors are unlocked."
    assert ask(index, "locked", "locks") == "Front Door Lock is locked."
    d["10"].values[m.COVER_CURRENT].value = 50
    d["5"].values[m.LOCK_DOOR].value = "closed"
    assert ask(index, "open") == "1 device is open: Living Room Blinds."
    assert ask(index, "closed") == "1 device is closed: Front Door."
    d["5"].values[m.BATTERY_LEVEL].value = 15
    d["7"].values[m.BATTERY_LEVEL].value = None
    assert ask(index, "low_battery") == "Low batteries: Front Door Lock 15 %; Garage Motion has not reported."
    d["11.2"].values[m.SWITCH_CURRENT].value = None
    assert (
        ask(index, "off", "switches")
        == "1 of the 2 switches is off: Porch Double Switch; Porch Double Switch 2 has not reported."
    )


def test_many_names_are_cut_short() -> None:
    lights = [house()["3"] for _ in range(12)]
    text = answer(Question.ON, lights, "lights", False).sentence
    assert text.startswith("All 12 lights are on: ") and text.endswith("and 4 more.")


def test_a_battery_level_no_float_holds_is_no_level(index: DeviceIndex) -> None:
    """A 400-digit battery level made "which batteries are low?" raise."""
    lock = next(d for d in index.devices if d.key == "5")
    lock.values[m.BATTERY_LEVEL].value = 10**400
    assert "Front Door Lock has not reported" in ask(index, "battery")
    ask(index, "low_battery")


def test_doors_at_locks_are_said_by_their_doors() -> None:
    """Issue 43 item 12: "All 3 doors are open: the door at Front Door Lock, the door at Back Door Lock and
    the door at Side Door Lock." A lock named for its door says the door; the others share one phrase."""
    (lock,) = [d for d in house().values() if d.key == "5"]
    locks = [
        replace(lock, key=str(i), name=name) for i, name in enumerate(("Back Door Lock", "Side Door Lock"))
    ]
    assert answer(Question.OPEN, [lock, *locks], "doors", False).sentence == (
        "All 3 doors are open: Front Door, Back Door and Side Door."
    )
    others = [replace(lock, key=str(i), name=name) for i, name in enumerate(("Deadbolt", "Cellar Lock"))]
    assert answer(Question.OPEN, [lock, *others], "doors", False).sentence == (
        "All 3 doors are open: Front Door and the doors at Deadbolt and Cellar Lock."
    )
