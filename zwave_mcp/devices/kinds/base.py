"""`KindSpec`: the parts one kind module hands to the shared modules, which find them in `kinds.KINDS`;
and the words the kinds' change phrases share (`told_or_did`).

Every part is optional and answers None for a device, value or role that is not its kind's: the shared
module then asks the next kind, and says what is left in its own general words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from zwave_mcp.devices.discovery import Found
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.readings import Reading
from zwave_mcp.devices.writes import Planner
from zwave_mcp.gateway.model import ZValue

# (the action words a write amounts to, the argument the policy reads): what the gate judges.
Words = tuple[frozenset[str], Any]


def _none(*_: Any) -> None:
    return None


def told_or_did(told: bool, order: str, done: str) -> str:
    """A change by whether its value is the one written ("was told to open") or the device's report ("opened")."""
    return f"was told to {order}" if told else done


@dataclass(frozen=True, slots=True)
class KindSpec:
    name: str
    # control: the actions the kind takes on a device, and the planner of each
    actions: Callable[[Device], Iterable[str]] = lambda device: ()
    planners: Mapping[str, Planner] = field(default_factory=dict)
    # describe: the state in a few words (`spoken`: as the sentence says it, with a blind's slats and
    # without the power it draws, which the sentence says apart; else as a list shows it), the sentence over
    # the device's readings, what one reported change means (device, value, its role, the new value),
    # and what a value is called: by its role ("fan mode"), else as the kind works it out ("heating
    # setpoint"); and its start/stop-level-change values' roles, each with the move it starts ("opening":
    # true written is "started opening", false "stopped opening"; the value is the "movement")
    summary: Callable[[Device, bool], str | None] = _none
    sentence: Callable[[Device, list[Reading]], str | None] = _none
    change_phrase: Callable[[Device | None, ZValue, str | None, Any], str | None] = _none
    nouns: Mapping[str, str] = field(default_factory=dict)
    noun: Callable[[str | None, ZValue], str | None] = _none
    moves: Mapping[str, str] = field(default_factory=dict)
    # the gate: what a write amounts to (device, value, its role, target), a reported value in words
    effect_words: Callable[[Device, ZValue, str | None, Any], Words | None] = _none
    spoken_value: Callable[[Device, ZValue, str | None, Any], str | None] = _none
    # build: one node's findings by endpoint made whole (a kind spread over endpoints), then one
    # device's findings completed once all its endpoints are in (roles that name a value it already has)
    gather: Callable[[dict[int, Found]], None] = _none
    settle: Callable[[Found], None] = _none
    # control: other words a person says for the kind's actions ("turn off the water" closes a valve)
    synonyms: Mapping[str, str] = field(default_factory=dict)
    # describe: the sentence's first words after the name, from the state summary, where "is <summary>"
    # would not say it ("has not reported its position yet")
    opening: Callable[[Device, str], str | None] = _none
    # control: why a device of the kind takes no action at all, said instead of "cannot <action>"
    no_control: Callable[[Device], str | None] = _none
    # the gate's sentence of a confirmed change in the kind's own words (device, the values written, the
    # report in words, the change's summary), and what the device's state adds to a change it was asked
    # (device, action, whether it was confirmed): "… is off, so the new colour shows when it is turned on."
    done_sentence: Callable[[Device, list[ZValue], str, str], str | None] = _none
    after_change_note: Callable[[Device, str, bool], str | None] = _none
    # a group: the kind's actions a group takes, each with (its past tense, what was asked, what a device
    # that cannot do it cannot do): "set_color": ("Set", "set", "change colour")
    group_words: Mapping[str, tuple[str, str, str]] = field(default_factory=dict)
    # and how its plans' summaries lead to a target after the device's name, besides " to " (" heating to ")
    group_targets: tuple[str, ...] = ()
    # build: the node's main part takes what its other parts measure for it (device, the other parts)
    adopt: Callable[[Found, list[Found]], None] = _none
