"""The gate's pure parts on the captured house: what an effect amounts to, the policy judged on effects (not
action names), the binding of a confirmation, one name normalizer, and sentences built from evidence only."""

from __future__ import annotations

import pytest

from tests.unit.test_devices_build import house
from zwave_mcp.devices import model as m
from zwave_mcp.devices.control import control_change, plan_control
from zwave_mcp.devices.gate import DeviceOutcome, EffectOutcome, Report, value_effect
from zwave_mcp.devices.gate.evidence import sentence, spoken_value, was_already
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.resolve import DeviceIndex
from zwave_mcp.names import normalize
from zwave_mcp.policy import Policy, PolicyConfig, parse_terms
from zwave_mcp.policy.actions import ACTIONS, normalize_action
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.policy.terms import DeviceList


def by_name() -> dict[str, Device]:
    return {device.name: device for device in house().values()}


@pytest.fixture
def d() -> dict[str, Device]:
    return by_name()


def words(d: dict[str, Device], name: str, action: str, **args: object) -> frozenset[str]:
    change = control_change(plan_control(d[name], action, **args))  # type: ignore[arg-type]
    return frozenset().union(*(e.words for e in change.effects))


def test_effects_say_what_a_write_does_whatever_the_action_was_called(d: dict[str, Device]) -> None:
    assert words(d, "Living Room Lamp", "set_level", level=30) >= {"on"}
    assert "on" not in words(d, "Living Room Lamp", "set_level", level=0)
    assert words(d, "Living Room Blinds", "set_position", position=100) >= {"open"}
    assert words(d, "Living Room Blinds", "set_position", position=5) >= {"open"}
    assert words(d, "Living Room Blinds", "set_position", position=0) >= {"close"}
    assert words(d, "Front Door Lock", "unlock") == {"unlock"}
    assert words(d, "Front Door Lock", "lock") == {"lock"}
    d["Kitchen Light"].values[m.SWITCH_CURRENT].value = False
    assert words(d, "Kitchen Light", "toggle") == {"on"}
    lock = d["Front Door Lock"]
    target = lock.values[m.LOCK_TARGET]
    assert value_effect(lock, target, 0).words == {"unlock"}  # a scene's lock value: an unlock like any other
    porch = d["Porch Double Switch"]
    basic = porch.node.find_value(32, "targetValue", 0)
    assert basic is not None and "on" in value_effect(porch, basic, 99).words  # Basic Set 99: on


def test_confirm_lists_are_judged_on_effects(d: dict[str, Device]) -> None:
    on = Policy(PolicyConfig(confirm_actions=frozenset({"on"})))
    opening = Policy(PolicyConfig(confirm_actions=frozenset({"open"})))
    lamp, blinds = d["Living Room Lamp"], d["Living Room Blinds"]
    dim = control_change(plan_control(lamp, "dim", level=30)).effects[0]
    assert on.judge(lamp, dim.words, dim.argument, action_text="dim").needs_confirmation
    opened = control_change(plan_control(blinds, "set_position", position=100)).effects[0]
    assert opening.judge(blinds, opened.words, opened.argument, action_text="x").needs_confirmation
    closed = control_change(plan_control(blinds, "set_position", position=0)).effects[0]
    assert opening.judge(blinds, closed.words, closed.argument, action_text="x").allowed


def test_binding_is_the_exact_effect(d: dict[str, Device]) -> None:
    lamp = d["Living Room Lamp"]
    a = control_change(plan_control(lamp, "dim", level=30)).binding()
    b = control_change(plan_control(lamp, "dim", level=30)).binding()
    c = control_change(plan_control(lamp, "dim", level=31)).binding()
    assert a == b != c


def test_policy_lists_use_the_one_name_normalizer(d: dict[str, Device]) -> None:
    door = d["Living Room Blinds"]
    door.name = "Garage Door"
    index = DeviceIndex(d.values())
    deny = DeviceList(parse_terms("Garage Doors"), "ZWAVE_MCP_DENY")
    assert index.resolve("garage doors") is door and deny.first_match(door) is not None
    assert normalize("Garage Doors") == normalize("garage-door")
    node_entry = DeviceList(parse_terms("Porch Double Switch"), "ZWAVE_MCP_DENY")
    assert node_entry.first_match(d["Porch Double Switch"]) and node_entry.first_match(
        d["Porch Double Switch 2"]
    )
    light = d["Kitchen Light"]
    light.aliases = ("the big light",)
    assert DeviceList(parse_terms("Big Lights"), "x").first_match(light) is None
    assert DeviceList(parse_terms("The Big Light"), "x").first_match(light) is not None


def test_one_action_table_with_aliases() -> None:
    assert {normalize_action(w) for w in ("turn_on", "Turn On", "turn-on", "switch on")} == {"on"}
    assert normalize_action("switch off") == "off" and normalize_action("brightness") == "set_level"
    assert all(normalize_action(a) == a for a in ACTIONS)


def test_the_sentence_comes_from_the_evidence_never_from_the_cache(d: dict[str, Device]) -> None:
    """Issue 19: asked "on", the answer said "now off" while the result said reported true."""
    light = d["Kitchen Light"]
    light.values[m.SWITCH_CURRENT].value = False  # the cache says off (a stale or rebuilt device)
    change = control_change(plan_control(light, "on"))
    effect = change.effects[0]
    part = EffectOutcome(effect, Outcome.CONFIRMED, Report(True, after_write=True))
    outcome = DeviceOutcome(light, Outcome.CONFIRMED, True, True, True, "", (part,))
    assert sentence(change, [outcome]) == "Done: Kitchen Light is now on, as the device reported."
    assert outcome.reported is True


def test_already_off_only_when_every_report_says_so(d: dict[str, Device]) -> None:
    """Issue 43 item 18: off before and off since is "already off", whatever zwave-js-ui answered; a report
    of something else meanwhile (an earlier "on" reported late), a failure, or no report before is not."""
    effect = control_change(plan_control(d["Kitchen Light"], "off")).effects[0]
    off = Report(False, after_write=True)
    for outcome in (Outcome.CONFIRMED, Outcome.UNCONFIRMED, Outcome.UNKNOWN):
        assert was_already(EffectOutcome(effect, outcome, off), False, [False]).already, outcome
    unknown = was_already(EffectOutcome(effect, Outcome.UNKNOWN), False, [])
    assert unknown.already and unknown.report == Report(False, after_write=False)  # said from its last report
    assert not was_already(EffectOutcome(effect, Outcome.CONFIRMED, off), False, [True, False]).already
    assert not was_already(EffectOutcome(effect, Outcome.CONFIRMED, off), True, [False]).already
    assert not was_already(EffectOutcome(effect, Outcome.CONFIRMED, off), None, [False]).already
    assert not was_already(EffectOutcome(effect, Outcome.FAILED), False, []).already


def test_every_outcome_has_a_plain_sentence(d: dict[str, Device]) -> None:
    light = d["Kitchen Light"]
    change = control_change(plan_control(light, "on"))
    effect = change.effects[0]
    for outcome in (
        Outcome.CONFIRMED,
        Outcome.WORKING,
        Outcome.QUEUED,
        Outcome.UNCONFIRMED,
        Outcome.FAILED,
        Outcome.UNKNOWN,
    ):
        report = Report(False, after_write=False)
        part = EffectOutcome(effect, outcome, report, reason="the device did not accept the command")
        text = sentence(change, [DeviceOutcome(light, outcome, True, False, False, part.reason, (part,))])
        assert "None" not in text and "True" not in text and text.endswith("."), (outcome, text)
        if outcome is not Outcome.CONFIRMED:
            assert not text.startswith("Done"), (outcome, text)


def test_spoken_values() -> None:
    d = by_name()
    lock = d["Front Door Lock"]
    assert spoken_value(lock, lock.values[m.LOCK_CURRENT], 255) == "locked"
    assert spoken_value(lock, lock.values[m.LOCK_CURRENT], 0) == "unlocked"
    blinds = d["Living Room Blinds"]
    assert spoken_value(blinds, blinds.values[m.COVER_CURRENT], 0) == "closed"
    assert spoken_value(blinds, blinds.values[m.COVER_CURRENT], 99) == "open"


def test_one_outcome_vocabulary_for_results_audit_and_gate() -> None:
    import typing

    from zwave_mcp.policy.audit import AuditEvent
    from zwave_mcp.server.tools.models import ControlResult, DeviceOutcomeModel, SceneActivation

    words = [o.value for o in Outcome]
    for model in (ControlResult, SceneActivation, DeviceOutcomeModel):
        schema = model.model_json_schema()
        assert schema["$defs"]["Outcome"]["enum"] == words, model
    hints = typing.get_type_hints(AuditEvent)
    assert hints["outcome"] is Outcome
