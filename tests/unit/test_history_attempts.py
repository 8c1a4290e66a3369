"""A device's history says each write-gate attempt as a spoken sentence: every action the gate can record,
with every outcome, is plain words ("Porch Relay was told to turn on, and it was confirmed"), never a raw
label ("was told to on (confirmed)"), and claims no more than its outcome promises."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import pytest

from tests.codes_in import shows_code
from zwave_mcp.devices.lock_users import ACTIONS as LOCK_USER_ACTIONS
from zwave_mcp.devices.lock_users import gate_action
from zwave_mcp.devices.model import Device
from zwave_mcp.gateway.model import ZNode
from zwave_mcp.history.periods import parse_period
from zwave_mcp.history.recorder import Recorder
from zwave_mcp.history.service import HistoryService
from zwave_mcp.policy.actions import ACTIONS, SPOKEN_ACTIONS, spoken_action
from zwave_mcp.policy.outcome import NOT_SENT, Outcome, attempt_said
from zwave_mcp.server.tools.admin_models import Maintenance

PACKAGE = Path(__file__).resolve().parents[2] / "zwave_mcp"
NOW_S = 1_800_000_000.0
PIN = "4821"
RELAY = Device(
    key="4", node_id=4, endpoint=None, name="Porch Relay", location="Porch", kind=None, capabilities=(),
    node=ZNode(id=4, name="Porch Relay", location="Porch"),
)  # fmt: skip


def literal_actions() -> set[str]:
    """The action names written into the code that builds the gate's changes (admin calls, scenes, the
    inclusion's answers): found in the source, so a new one cannot be left unsaid."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name in ("Change", "AdminChange"):  # Change(tool, action, …) or action=…
                given = [k.value for k in node.keywords if k.arg == "action"] or node.args[1:2]
            elif name == "send_answer":  # send_answer(action, what, request, …)
                given = node.args[:1]
            else:
                continue
            for expr in given:
                for leaf in [expr.body, expr.orelse] if isinstance(expr, ast.IfExp) else [expr]:
                    if isinstance(leaf, ast.Constant) and isinstance(leaf.value, str):
                        found.add(leaf.value)
    return found


def recorded_actions() -> list[str]:
    """Every action the gate can record: the control vocabulary (devices and groups), keypad users as the
    gate names them, network care, and the literal ones."""
    users = {gate_action(a) for a in LOCK_USER_ACTIONS if a != "list"}
    return sorted({*ACTIONS, *users, *get_args(Maintenance), *literal_actions()})


def test_the_walk_finds_the_gates_actions() -> None:
    actions = recorded_actions()
    assert {"on", "set_level", "add_user", "change_pin", "set_parameter", "rebuild_routes"} <= set(actions)
    assert {"activate_scene", "cancel_job", "start_inclusion", "stop_exclusion", "enter_pin"} <= set(actions)


def test_every_recorded_action_has_its_own_words() -> None:
    """None of them falls back to its label's words."""
    assert [a for a in recorded_actions() if a not in SPOKEN_ACTIONS] == []


@pytest.fixture
def recorder(tmp_path: Path) -> Iterator[Recorder]:
    rec = Recorder(str(tmp_path / "history.sqlite3"), clock=lambda: NOW_S)
    rec.start()
    assert rec.wait_open(5)
    yield rec
    rec.stop()


async def test_every_action_and_outcome_is_said_as_a_sentence(recorder: Recorder) -> None:
    attempts = [(action, outcome) for action in recorded_actions() for outcome in Outcome]
    for i, (action, outcome) in enumerate(attempts):
        recorder.record_outcome(
            {
                "tool": "a_tool",
                "action": action,
                "device_key": RELAY.key,
                "device": "Porch Relay (Porch)",
                "value": {"user": 3, "code": PIN},  # the sentence never says the value (the gate drops PINs)
                "outcome": str(outcome),
                "time": NOW_S - 3000 + i,
            }
        )
    # The history of given devices asks neither the device service nor the inventory.
    service = HistoryService(recorder, None, None, clock=lambda: NOW_S)  # type: ignore[arg-type]
    period = parse_period("last 2 hours", service.now())
    result = await service.history_of([RELAY], RELAY.name, period, len(attempts) + 1)

    assert not result.truncated and len(result.events) == len(attempts)
    for (action, outcome), event in zip(attempts, result.events, strict=True):
        said = f"{event.device} {event.what}."
        assert event.source == "command" and event.value == {"user": 3, "code": PIN}  # structured: as it was
        assert "_" not in said and "(" not in said and ")" not in said, said
        assert not re.search(r"\bto (on|off)\b", said), said
        assert said.startswith(
            (
                "Porch Relay was told to ",
                "Porch Relay was asleep when told to ",
                "Porch Relay may have been told to ",
                "Porch Relay was not told to ",
            )
        ), said
        assert spoken_action(action) in said and not shows_code(said, PIN), said
        # Claims no more than the outcome: told only when sent, confirmed only when a report came.
        if outcome in NOT_SENT:
            assert said.startswith("Porch Relay was not told to "), said
        assert ("confirmed" in said) == (outcome is Outcome.CONFIRMED), said
    assert result.summary.endswith(".") and "_" not in result.summary and not shows_code(result.summary, PIN)


@pytest.mark.parametrize(
    ("action", "outcome", "said"),
    [
        ("on", "confirmed", "was told to turn on, and it was confirmed"),
        ("set_level", "needs_confirmation", "was not told to set the level without a confirmation"),
        ("add_user", "refused", "was not told to add a user, as that was refused"),
        ("unlock", "declined", "was not told to unlock, as the person declined"),
        ("set_temperature", "queued", "was asleep when told to set the temperature"),
        ("off", "unconfirmed", "was told to turn off but did not report back in time"),
        ("lock", "unknown", "may have been told to lock, with no answer from zwave-js-ui"),
        ("rebuild_routes", "failed", "was told to rebuild its routes, but it failed"),
        ("set_color", "unchanged", "was not told to change colour, as it was already as asked"),
    ],
)  # fmt: skip
def test_attempts_in_words(action: str, outcome: str, said: str) -> None:
    assert attempt_said(outcome, spoken_action(action)) == said


def test_an_action_or_outcome_from_another_version_still_makes_a_sentence() -> None:
    assert spoken_action("set_night_light") == "set the night light"
    assert spoken_action("flash_leds") == "flash leds"
    assert spoken_action("Turn On") == "turn on"  # an alias is said as its action
    assert spoken_action("") == "make a change"
    assert attempt_said("postponed", "flash leds") == "had a request to flash leds"
