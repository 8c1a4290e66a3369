"""Every sentence the tools can say about the captured house, against a file a person has read.

tests/golden/sentences.txt holds, for every device of the captured house: its list line, its state
sentence in each state it can be in, its sensor and verify answers, every action's plan and outcome
sentences, what each of its values says in the recent events; then every question about every room and
kind, and the gateway and status events. A changed sentence fails this test and shows up in review as a
diff of that file. After reading the diff, regenerate with:

    ZWAVE_MCP_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/unit/test_golden_sentences.py
"""

from __future__ import annotations

import copy
import difflib
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from tests.unit.test_devices_build import house
from zwave_mcp.config import load_settings
from zwave_mcp.devices import model as m
from zwave_mcp.devices.control import available_actions, control_change, plan_control
from zwave_mcp.devices.describe import change_phrase, sentence
from zwave_mcp.devices.errors import ActionNotSupported, InvalidValue, StateUnknown
from zwave_mcp.devices.gate import DeviceOutcome
from zwave_mcp.devices.gate.evidence import EffectOutcome, Report, per_device
from zwave_mcp.devices.gate.evidence import sentence as evidence_sentence
from zwave_mcp.devices.group_control import group_sentence, plan_group
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.questions import Question, answer
from zwave_mcp.devices.readings import readings
from zwave_mcp.devices.resolve import DeviceIndex
from zwave_mcp.devices.service import _nothing_to_do, control_sentence
from zwave_mcp.names import agreeing
from zwave_mcp.policy import Policy
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.server.tools.events import gateway_phrase, status_phrase
from zwave_mcp.server.tools.present import list_summary, page_of, sensor_summary, summarize, verify_summary

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "sentences.txt"
UPDATE = "ZWAVE_MCP_UPDATE_GOLDEN"

# Arguments each action is rendered with (a person would say these).
ACTION_ARGS: dict[str, list[dict[str, Any]]] = {
    "dim": [{"level": 30}, {"level": "+10"}],
    "set_level": [{"level": 50}, {"level": 100}],
    "set_position": [{"position": 40}],
    "set_temperature": [{"value": 21.5}, {"value": 21.5, "setpoint": "cooling"}],
    "set_mode": [{"mode": "cool"}, {"mode": "off"}],
    "set_color": [{"color": "red"}, {"color": "warm white"}, {"color": "#ff5000"}],
}
# States each role is put in, to render the sentences a device says in each.
ROLE_STATES: dict[str, list[Any]] = {
    m.SWITCH_CURRENT: [True, False, None],
    m.LEVEL_CURRENT: [0, 1, 50, 98, 99, None],
    m.COVER_CURRENT: [0, 40, 99, None],
    m.LOCK_CURRENT: [0, 1, 255, 254, None],
    m.LOCK_DOOR: ["open", "closed", None],
    m.THERMOSTAT_MODE: [0, 1, 2, 3, None],
    m.COLOR_CURRENT: [
        {"warmWhite": 255, "coldWhite": 0, "red": 0, "green": 0, "blue": 0},
        {"warmWhite": 0, "coldWhite": 0, "red": 255, "green": 0, "blue": 0},
        {"warmWhite": 0, "coldWhite": 0, "red": 255, "green": 80, "blue": 0},
    ],
    m.BATTERY_LEVEL: [5, None],
}


def _report(plan: Any) -> None:
    """Make the device report what the plan expects (what a confirmed outcome is rendered after)."""
    for expectation in plan.expectations:
        value = expectation.value
        if expectation.match == "nonzero":
            value.value = True if value.type == "boolean" else int(value.max or 99)
        elif expectation.match == "contains":
            value.value = {**(value.value if isinstance(value.value, dict) else {}), **expectation.expected}
        else:
            value.value = expectation.expected


def _outcome_sentences(plan: Any) -> Iterator[str]:
    """The control tool's answer for each outcome the gate can reach, from the same records it builds."""
    change = control_change(plan)
    for outcome in (Outcome.UNCONFIRMED, Outcome.WORKING, Outcome.QUEUED, Outcome.FAILED, Outcome.UNKNOWN):
        parts = [
            EffectOutcome(
                e, outcome, _now(e), reason="zwave-js gave no reason" if outcome is Outcome.FAILED else ""
            )
            for e in change.effects
        ]
        devices = per_device(parts)
        said = control_sentence(
            devices[0].as_reported(), plan.action, evidence_sentence(change, devices), outcome
        )
        yield f"outcome {outcome} | {said}"
    before = {v.value_id: v.value for v in plan.device.all_values()}
    _report(plan)
    parts = [EffectOutcome(e, Outcome.CONFIRMED, _now(e, after=True)) for e in change.effects]
    devices = per_device(parts)
    said = control_sentence(
        devices[0].as_reported(), plan.action, evidence_sentence(change, devices), Outcome.CONFIRMED
    )
    yield f"outcome confirmed | {said}"
    for v in plan.device.all_values():
        v.value = before[v.value_id]


def _now(effect: Any, after: bool = False) -> Report | None:
    return None if effect.expect is None else Report(effect.expect.value.value, after_write=after)


def _samples(value: Any) -> list[Any]:
    """Values this value can take: its states, or typical ones for its type; and never-reported (None)."""
    if value.states:
        found = [s.value for s in value.states]
    elif value.type == "boolean":
        found = [True, False]
    elif value.type == "number":
        found = [0, 40, 99] if value.max == 99 else [0, 21.5]
    else:
        found = [value.value] if value.value is not None else []
    return [*found, None]


def _device_lines(device: Device) -> Iterator[str]:
    summary = summarize(device)
    yield f"list | {list_summary(1, [summary], 0, 50, True)}"
    yield f"state | {sentence(device)}"
    yield f"verify | {verify_summary(device, available_actions(device))}"
    yield f"sensors | {sensor_summary(device, readings(device, 0))}"
    dead = copy.copy(device)
    dead.node = copy.copy(device.node)
    dead.node.status = "Dead"
    yield f"verify (dead) | {verify_summary(dead, available_actions(dead))}"
    yield f"list (dead) | {list_summary(1, [summarize(dead)], 0, 50, True)}"
    for role, states in ROLE_STATES.items():
        value = device.values.get(role)
        if value is None:
            continue
        before = value.value
        for state in states:
            value.value = state
            yield f"state with {role} = {state!r} | {sentence(device)}"
            if role == m.COLOR_CURRENT and m.LEVEL_CURRENT in device.values:
                device.values[m.LEVEL_CURRENT].value = 50
                yield f"state with {role} = {state!r}, level 50 | {sentence(device)}"
                device.values[m.LEVEL_CURRENT].value = 0
        value.value = before
    for cap_values in device.readings.values():
        for value in cap_values:
            before = value.value
            for state in _samples(value):
                value.value = state
                yield f"sensors with {value.label} = {state!r} | {sensor_summary(device, readings(device, 0))}"
            value.value = before
    for value in device.all_values():
        for sample in _samples(value):
            said = agreeing(device.name, f"{device.name} {change_phrase(device, value, sample)}")
            yield f"event {value.label} = {sample!r} | {said}"
    for action in available_actions(device):
        for args in ACTION_ARGS.get(action, [{}]):
            try:
                plan = plan_control(device, action, **args)
            except (ActionNotSupported, InvalidValue, StateUnknown) as exc:
                yield f"{action} {args} refused | {exc.message}"
                continue
            yield f"{action} {args} plan | {plan.summary}"
            for line in _outcome_sentences(plan):
                yield f"{action} {args} {line}"


def _questions(index: DeviceIndex) -> Iterator[str]:
    rooms = sorted({d.location for d in index.devices if d.location})
    targets = ["everything", *rooms, "lights", "plugs", "switches", "blinds", "locks", "thermostats"]
    targets += ["sensors", "doors", "kitchen lights", "kitchen and living room lights"]
    for target in targets:
        group = index.group(target)
        everything = group.everything
        for question in Question:
            said = answer(question, group.devices, group.label, everything).sentence
            yield f"question {question} about {target!r} | {said}"


GROUP_ACTIONS: list[tuple[str, dict[str, Any]]] = [
    ("on", {}),
    ("off", {}),
    ("dim", {"level": 30}),
    ("open", {}),
    ("close", {}),
    ("lock", {}),
    ("unlock", {}),
    ("set_temperature", {"value": 21.5}),
    ("set_mode", {"mode": "heat"}),
]


def _group_changes(index: DeviceIndex) -> Iterator[str]:
    policy = Policy.from_settings(load_settings(environ={"ZWAVE_MCP_DENY": "Coffee Maker Plug"}))
    for target in ["everything", "kitchen", "lights", "kitchen and living room lights", "porch", "locks"]:
        group = index.group(target)
        for action, args in GROUP_ACTIONS:
            key = f"group {action} {args} on {target!r}"
            plan = plan_group(group, action, args, policy)
            if not plan.plans:
                yield f"{key} refused | {_nothing_to_do(plan)}"
                continue
            yield f"{key} summary | {plan.summary}"
            done = [
                DeviceOutcome(p.device, Outcome.CONFIRMED, p.argument, None, True, "", ()) for p in plan.plans
            ]
            yield f"{key} confirmed | {group_sentence(plan, done)}"
            late = [*done[:-1], replace(done[-1], outcome=Outcome.UNCONFIRMED)]
            yield f"{key} one late | {group_sentence(plan, late)}"


def _paging(index: DeviceIndex) -> Iterator[str]:
    shown = [summarize(d) for d in index.devices]
    total = len(shown)
    for offset in (0, 8):
        page = shown[offset : offset + 8]
        yield f"list page {offset // 8 + 1} | {list_summary(total, page, offset, 8, False)}"
    yield f"list from between pages | {list_summary(total, shown[8:], 8, 50, False)}"
    yield f"list past the end | {list_summary(total, [], 50, 8, False)}"
    yield f"list nothing | {list_summary(0, [], 0, 50, True)}"


def _events() -> Iterator[str]:
    for what, new in [
        ("client_online", True),
        ("client_online", False),
        ("driver_ready", True),
        ("driver_ready", False),
        ("driver_ready", None),
        ("all_nodes_ready", True),
        ("all_nodes_ready", False),
        ("version", "11.22.2"),
        ("driver_error", "Failed to open the serial port"),
        ("controller_status", "Jammed"),
    ]:
        yield f"gateway {what} = {new!r} | {gateway_phrase(what, new)}"
    for old, new in [
        ("Alive", "Dead"),
        ("Dead", "Alive"),
        ("Awake", "Asleep"),
        ("Asleep", "Awake"),
        (None, "Unknown"),
    ]:
        yield f"status {old} → {new} | Kitchen Light {status_phrase(old, new)}"


def render() -> str:
    devices = house()
    lines: list[str] = []
    for device in devices.values():
        lines.append(f"## {device.key} {device.name}")
        lines.extend(_device_lines(device))
        lines.append("")
    index = DeviceIndex(house().values())
    sections: list[tuple[str, Callable[[], Iterator[str]]]] = [
        ("questions", lambda: _questions(index)),
        ("group changes", lambda: _group_changes(index)),
        ("lists", lambda: _paging(index)),
        ("events", _events),
    ]
    for title, make in sections:
        lines.append(f"## {title}")
        lines.extend(make())
        lines.append("")
    return "\n".join(lines)


def test_every_sentence_matches_the_reviewed_file() -> None:
    text = render()
    if os.environ.get(UPDATE):
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    expected = GOLDEN.read_text(encoding="utf-8") if GOLDEN.exists() else ""
    diff = "\n".join(
        difflib.unified_diff(expected.splitlines(), text.splitlines(), "reviewed", "now", lineterm="")
    )
    assert text == expected, f"Sentences changed; review, then regenerate with {UPDATE}=1:\n{diff[:6000]}"


def test_no_raw_words_in_any_sentence() -> None:
    """Words that must never reach a person: Python's None/True/False, zwave-js labels and enum names."""
    banned = [r"\bNone\b(?! of)", r"\bTrue\b", r"\bFalse\b", "Current value", "Target value", "ecured", "_"]
    for line in render().splitlines():
        if not line or line.startswith("##"):
            continue
        said = line.split(" | ", 1)[1]  # the sentence, not the values it was rendered with
        for word in banned:
            assert not re.search(word, said), f"{word!r} in: {line}"


def test_a_page_from_an_offset_between_pages_is_counted_after_the_skipped_devices() -> None:
    """Issue 43 item 16: offset 8 of 13 at 50 a page answered "page 1 of 1" as if nothing were skipped."""
    assert page_of(13, 8, 50, 5) == (2, 2)
    assert page_of(11, 0, 8, 8) == (1, 2) and page_of(11, 8, 8, 3) == (2, 2)
    assert page_of(13, 0, 50, 13) == (1, 1)
