"""Questions about many devices at once, answered in one sentence from the live picture.

"is anything on in the kitchen?" → `answer(Question.ON, kitchen group)`; "which doors are unlocked?",
"what is open?", "which lights are on?", "battery levels"; "is there smoke anywhere?", "any leaks?", "is
there motion in the garage?" (`Question.SMOKE`, … answered from the binary sensors' alarm state). Pure: the caller picks the group (devices
and its label, from `DeviceIndex.group`), this module picks the devices the question is about and words
the answer. A device the question does not apply to (a sensor for "on") is left out; one that has not
reported is named as unknown rather than counted either way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated

from pydantic import BeforeValidator

from zwave_mcp.answers import and_list, capital, plural
from zwave_mcp.devices import model as m
from zwave_mcp.devices.kinds.cover import cover_open
from zwave_mcp.devices.kinds.lock import door_open, lock_state, lock_troubles
from zwave_mcp.devices.kinds.switch import is_on
from zwave_mcp.devices.levels import is_number, level_percent
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.readings import LOW_BATTERY_PERCENT, OPENINGS, Reading, readings
from zwave_mcp.devices.sensor_types import TYPES, SensorType
from zwave_mcp.names import word_reader

MAX_NAMED = 8  # names said in one sentence before "and N more"


class Question(StrEnum):
    ON = "on"
    OFF = "off"
    OPEN = "open"
    CLOSED = "closed"
    LOCKED = "locked"
    UNLOCKED = "unlocked"
    BATTERY = "battery"
    LOW_BATTERY = "low_battery"
    # Binary sensors, by their type word (sensor_types.TYPES): "is there smoke?"
    SMOKE = "smoke"
    CO = "co"
    CO2 = "co2"
    HEAT = "heat"
    FREEZE = "freeze"
    WATER_LEAK = "water_leak"
    MOTION = "motion"
    TAMPER = "tamper"
    GLASS_BREAK = "glass_break"
    INTRUSION = "intrusion"


SENSOR_QUESTIONS = frozenset(q for q in Question if str(q) in TYPES)
# What people and models ask when they mean a question (plurals and spacing are read by
# `names.word_reader`): "battery levels", "leaks", "carbon monoxide".
QUESTION_WORDS: dict[str, str] = {
    **dict.fromkeys(("battery level", "batteries"), "battery"),
    **dict.fromkeys(("low batteries", "battery low"), "low_battery"),
    **dict.fromkeys(("leak", "flood"), "water_leak"),
    "carbon monoxide": "co",
    "carbon dioxide": "co2",
    **dict.fromkeys(("glass", "glass breakage"), "glass_break"),
    "overheat": "heat",
    "frost": "freeze",
    "movement": "motion",
    "tampering": "tamper",
    **dict.fromkeys(("intruder", "break-in"), "intrusion"),
    **dict.fromkeys(("shut", "close"), "closed"),
    "lock": "locked",
    "unlock": "unlocked",
}
# A question as a tool argument: the schema lists the names, the words above and plurals are read too.
QuestionWord = Annotated[Question, BeforeValidator(word_reader(Question, QUESTION_WORDS))]


@dataclass(slots=True)
class Answer:
    sentence: str
    matching: list[Device] = field(default_factory=list)  # the devices the answer names
    unknown: list[Device] = field(default_factory=list)  # asked about, but not reported


def _switchable(device: Device) -> bool:
    return device.has(Capability.SWITCH) or device.has(Capability.DIMMER) or device.has(Capability.FAN)


def _on(device: Device) -> bool | None:
    return is_on(device) if _switchable(device) else None


def _opens(device: Device) -> bool:
    """A cover that opens (a blind that only tilts its slats does not: they are not a way in or out)."""
    return device.has(Capability.COVER) and m.COVER_TARGET in device.values


def _open(device: Device) -> bool | None:
    """Covers, doors a lock reports, contact sensors: open at all."""
    if _opens(device):
        return cover_open(device)
    if device.has(Capability.LOCK):
        return door_open(device)
    states = [r.alarm for r in readings(device, 0) if r.sensor in OPENINGS and r.alarm is not None]
    return any(states) if states else None


def _locked(device: Device) -> bool | None:
    if not device.has(Capability.LOCK):
        return None
    state = lock_state(device)
    return None if state is None else state == "locked"


def _battery(device: Device) -> float | None:
    value = device.values.get(m.BATTERY_LEVEL)
    if value is None or not is_number(value.value):
        return None
    return float(value.value)


def _negate(test: Callable[[Device], bool | None]) -> Callable[[Device], bool | None]:
    def negated(device: Device) -> bool | None:
        result = test(device)
        return None if result is None else not result

    return negated


def _applies_open(device: Device) -> bool:
    if _opens(device) or (device.has(Capability.LOCK) and m.LOCK_DOOR in device.values):
        return True
    return any(r.sensor in OPENINGS for r in readings(device, 0))


_TESTS: dict[Question, tuple[Callable[[Device], bool | None], Callable[[Device], bool], str]] = {
    # question: (does it hold?, does the question apply to this device?, what a device it applies to can be:
    # "None of the blinds can be switched on or off")
    Question.ON: (_on, _switchable, "switched on or off"),
    Question.OFF: (_negate(_on), _switchable, "switched on or off"),
    Question.OPEN: (_open, _applies_open, "open or closed"),
    Question.CLOSED: (_negate(_open), _applies_open, "open or closed"),
    Question.LOCKED: (_locked, lambda d: d.has(Capability.LOCK), "locked or unlocked"),
    Question.UNLOCKED: (_negate(_locked), lambda d: d.has(Capability.LOCK), "locked or unlocked"),
}


def answer(question: Question, devices: list[Device], label: str, everything: bool) -> Answer:
    """One sentence about `devices` (a group called `label`; `everything` when it is the whole house)."""
    loading = [d for d in devices if d.node.loading]  # what they are is not known yet: said, not left out
    rest = [d for d in devices if d not in loading]
    if question in (Question.BATTERY, Question.LOW_BATTERY):
        if loading and not any(m.BATTERY_LEVEL in d.values for d in rest):
            return _with_loading(Answer(""), loading)  # not "none runs on batteries": not known yet
        return _with_loading(_battery_answer(question, rest, label, everything), loading)
    if question in SENSOR_QUESTIONS:
        return _with_loading(_sensor_answer(TYPES[str(question)], rest, label, everything), loading)
    holds, applies, can = _TESTS[question]
    asked = [d for d in devices if applies(d)]
    matching = [d for d in asked if holds(d) is True]
    unknown = [d for d in asked if holds(d) is None]
    state = str(question)
    if not asked and loading:
        return _with_loading(Answer(""), loading)
    if not asked:
        text = f"No device can be {can}" if everything else f"None of the {label} can be {can}"
    elif not matching and len(asked) == 1 and not unknown and asked[0].name == label:
        text = f"{_names(asked, question)} is not {state}"  # asked about one device by its name
    elif not matching:
        text = f"Nothing is {state}" if everything else f"No {label} are {state}"
    elif len(matching) == len(asked) == 1 and not everything:
        text = f"{_names(matching, question)} is {state}"
    else:
        verb = "is" if len(matching) == 1 else "are"
        text = f"{_count(len(matching), len(asked), label, everything)} {verb} {state}: {_names(matching, question)}"
    text += _not_reported(unknown)
    if question in (Question.LOCKED, Question.UNLOCKED):
        # A jammed lock is not simply locked: every answer about locks says it ("it" once it was named).
        text += _troubles(asked, named=len(asked) == 1 and text.startswith(asked[0].name))
    return _with_loading(Answer(capital(text) + ".", matching, unknown), loading)


def _troubles(locks: list[Device], *, named: bool) -> str:
    """ "; Front Door Lock and Back Door Lock are jammed", "; it is jammed" after the one lock's name ("" when
    no lock reports trouble)."""
    by_trouble: dict[str, list[str]] = {}
    for lock in locks:
        for trouble in lock_troubles(lock):
            by_trouble.setdefault(trouble, []).append(lock.name)
    said = []
    for trouble, names in by_trouble.items():
        who = "it" if named else and_list(names, most=MAX_NAMED)
        if trouble.startswith(("its ", "it ")):
            said.append(f"{who} {'says' if len(names) == 1 else 'say'} {trouble}")
        else:
            said.append(f"{who} {'is' if len(names) == 1 else 'are'} {trouble}")
    return "".join(f"; {s}" for s in said)


def _with_loading(found: Answer, loading: list[Device]) -> Answer:
    """The answer, adding "Kitchen Light is still loading" for devices zwave-js-ui has sent nothing of."""
    if not loading:
        return found
    said = f"{and_list([d.name for d in loading])} {'is' if len(loading) == 1 else 'are'} still loading"
    sentence = f"{found.sentence[:-1]}; {said}." if found.sentence else f"{capital(said)}."
    return Answer(sentence, found.matching, found.unknown + loading)


def _count(found: int, asked: int, label: str, everything: bool) -> str:
    if everything:
        return plural(found, "device")
    if found == asked:
        return ("Both " if found == 2 else f"All {found} ") + label
    return f"{found} of the {asked} {label}"


def _names(devices: list[Device], question: Question) -> str:
    shown = []
    at_locks = []  # locks whose name does not say their door
    for d in devices:
        if question in (Question.OPEN, Question.CLOSED) and d.has(Capability.LOCK):
            # The lock reports its door; the lock is not what opens. "Front Door Lock" is on the front door.
            if door := _door_of(d.name):
                shown.append(door)
            else:
                at_locks.append(d.name)
            continue
        level = level_percent(d.values.get(m.LEVEL_CURRENT)) if question is Question.ON else None
        shown.append(f"{d.name} ({level} %)" if level is not None and 0 < level < 100 else d.name)
    if at_locks:
        doors = "the door" if len(at_locks) == 1 else "the doors"
        shown.append(f"{doors} at {and_list(at_locks, most=MAX_NAMED)}")
    return and_list(shown, most=MAX_NAMED)


def _door_of(lock_name: str) -> str | None:
    """The door a lock's name says it is on ("Front Door Lock" → "Front Door"); None when it says none."""
    words = lock_name.split()
    if len(words) > 2 and words[-1].casefold() == "lock" and words[-2].casefold() in ("door", "gate"):
        return " ".join(words[:-1])
    return None


def _not_reported(devices: list[Device]) -> str:
    """ "; Porch Sensor has not reported" ("" when every device asked about has)."""
    if not devices:
        return ""
    return f"; {and_list([d.name for d in devices])} {'has' if len(devices) == 1 else 'have'} not reported"


def _sensed(device: Device, kind: SensorType) -> list[Reading]:
    return [r for r in readings(device, 0) if r.sensor == kind.word]


def sensor_alarm(device: Device, kind: SensorType) -> bool | None:
    """Does the device sense `kind` now (smoke, a leak, motion)? None when it has not said."""
    states = [r.alarm for r in _sensed(device, kind) if r.alarm is not None]
    return any(states) if states else None


def _sensor_answer(kind: SensorType, devices: list[Device], label: str, everything: bool) -> Answer:
    """ "No smoke at Hallway Smoke Alarm.", "There is a water leak at Laundry Leak Sensor.", "No smoke
    anywhere (3 sensors checked)." """
    asked = [d for d in devices if _sensed(d, kind)]
    matching = [d for d in asked if sensor_alarm(d, kind) is True]
    unknown = [d for d in asked if sensor_alarm(d, kind) is None]
    bare = kind.noun.removeprefix("an ").removeprefix("a ")
    where = "anywhere" if everything else f"among the {label}"
    if not asked:
        can = kind.sensed
        text = f"No device can sense {can}" if everything else f"None of the {label} can sense {can}"
    elif matching:
        text = f"There is {kind.noun} at {_names(matching, Question.ON)}"
        calm = len(asked) - len(matching) - len(unknown)
        if calm:
            text += f"; {plural(calm, 'other sensor')} report{'s' if calm == 1 else ''} none"
    elif len(asked) == 1 and not everything:
        text = (
            f"No {bare} at {asked[0].name}" if not unknown else f"{asked[0].name} has not reported {bare} yet"
        )
        unknown = [] if text.endswith(" yet") else unknown
    else:
        checked = len(asked) - len(unknown)
        text = f"No {bare} {where} ({plural(checked, 'sensor')} checked)"
    text += _not_reported(unknown)
    return Answer(capital(text) + ".", matching, unknown)


def _battery_answer(question: Question, devices: list[Device], label: str, everything: bool) -> Answer:
    powered = [d for d in devices if m.BATTERY_LEVEL in d.values]
    where = "" if everything else f" among the {label}"
    if not powered:
        return Answer(
            "No device runs on batteries." if everything else f"None of the {label} runs on batteries."
        )
    known = sorted((d for d in powered if _battery(d) is not None), key=lambda d: (_battery(d), d.name))
    unknown = [d for d in powered if _battery(d) is None]
    if question is Question.LOW_BATTERY:
        low = [d for d in known if (_battery(d) or 0) <= LOW_BATTERY_PERCENT]
        if not low:
            text = f"No battery is low{where} (all above {LOW_BATTERY_PERCENT} %)"
        else:
            text = f"Low batteries{where}: {and_list([_battery_name(d) for d in low])}"
        known = low
    else:
        listed = and_list([_battery_name(d) for d in known], most=MAX_NAMED)
        text = f"Battery levels{where}, lowest first: {listed}"
        if not known:
            text = f"No battery level has been reported{where}"
    text += _not_reported(unknown)
    return Answer(text + ".", known, unknown)


def _battery_name(device: Device) -> str:
    return f"{device.name} {(_battery(device) or 0):g} %"
