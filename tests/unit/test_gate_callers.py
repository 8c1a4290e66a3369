"""Issue 42: the gate for many clients. A change beyond the caller's access is refused with the scope it
needs, judged on its effect (a scene that would unlock needs the doors), with one audit line; a
confirmation is bound to the client that asked for it; one client's rate limit holds apart from the house's;
and every audit line names the client ("stdio" over stdio)."""

from __future__ import annotations

import json

from tests.unit.test_gate_flow import AuditLines, Rig, asker, audit
from zwave_mcp.devices.gate import ActivateScene, Change, WriteValues, value_effect
from zwave_mcp.policy import PolicyConfig
from zwave_mcp.policy.caller import Caller, Reach, acting_as
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.service.callers import needs

__all__ = ["audit"]  # the fixture, shared with test_gate_flow

READER = Caller("phone", frozenset({Reach.READ}), remote=True, needs=needs)
CONTROLLER = Caller("tablet", frozenset({Reach.READ, Reach.CONTROL}), remote=True, needs=needs)
DOORKEEPER = Caller("laptop", frozenset({Reach.READ, Reach.CONTROL, Reach.DOORS}), remote=True, needs=needs)


def _client_of(line: object) -> str:
    return str(getattr(line, "client", None) or json.loads(getattr(line, "message", "{}")).get("client"))


def test_a_read_only_client_asking_to_unlock_is_refused_with_the_scope_it_needs(audit: AuditLines) -> None:
    rig = Rig()
    ask, asked = asker("accept")
    with acting_as(READER):
        result = rig.apply(rig.change("front door", "unlock"), ask=ask)
    assert result.outcome is Outcome.REFUSED and asked == [] and rig.writes == []
    assert result.sentence == (
        "Refused to unlock Front Door Lock (Entry): this client is not allowed to work the doors, garage doors, "
        "gates, valves, sirens and lock users; that needs the home:doors scope."
    )
    assert [r.outcome for r in audit] == ["refused"]  # type: ignore[attr-defined]


def test_everyday_control_is_not_the_doors() -> None:
    rig = Rig()
    with acting_as(CONTROLLER):
        on = rig.apply(rig.change("kitchen light", "on"))
        unlock = rig.apply(rig.change("front door", "unlock"))
    assert on.outcome is Outcome.CONFIRMED or on.outcome is Outcome.UNCONFIRMED, on.sentence
    assert unlock.outcome is Outcome.REFUSED and "home:doors" in unlock.sentence
    with acting_as(READER):
        off = rig.apply(rig.change("kitchen light", "off"))
    assert off.outcome is Outcome.REFUSED and off.sentence.endswith("that needs the home:control scope.")


def test_a_scene_that_would_unlock_needs_the_doors_whatever_it_is_called() -> None:
    rig = Rig()
    light, door = rig.device("kitchen light"), rig.device("front door")
    effects = [
        value_effect(light, light.values["switch.target"], True),
        value_effect(door, door.values["lock.target"], 0),
    ]
    scene = Change("activate_zwave_scene", "activate", "activate scene 'Welcome'", effects, ActivateScene(3))
    with acting_as(CONTROLLER):
        result = rig.apply(scene)
    assert result.outcome is Outcome.REFUSED and rig.calls == []
    assert (
        result.sentence.startswith("Refused to activate scene 'Welcome': ")
        and "home:doors" in result.sentence
    )


def test_a_confirmation_is_bound_to_the_client_that_asked_for_it() -> None:
    rig = Rig()
    with acting_as(DOORKEEPER):
        asked = rig.apply(rig.change("front door", "unlock"))
    assert asked.outcome is Outcome.NEEDS_CONFIRMATION and asked.token
    other = Caller("stranger", DOORKEEPER.may, remote=True, needs=needs)
    with acting_as(other):
        spent = rig.apply(rig.change("front door", "unlock"), token=asked.token)
    assert spent.outcome is not Outcome.CONFIRMED and rig.writes == [], "another client cannot spend it"
    with acting_as(DOORKEEPER):
        again = rig.apply(rig.change("front door", "unlock"))
        done = rig.apply(rig.change("front door", "unlock"), token=again.token)
    assert done.outcome in (Outcome.CONFIRMED, Outcome.UNCONFIRMED) and rig.writes, done.sentence


def test_one_clients_limit_holds_apart_from_the_house() -> None:
    rig = Rig(PolicyConfig(rate_limit_client=1, rate_limit_device=0, rate_limit_total=3))
    with acting_as(CONTROLLER):
        first = rig.apply(rig.change("kitchen light", "on"))
        second = rig.apply(rig.change("living room lamp", "on"))
    assert first.outcome is not Outcome.REFUSED
    assert second.outcome is Outcome.REFUSED and "(the limit per client)" in second.sentence
    other = Caller("kiosk", CONTROLLER.may, remote=True, needs=needs)
    with acting_as(other):
        assert rig.apply(rig.change("living room lamp", "on")).outcome is not Outcome.REFUSED
    # stdio is one client: the house's limit is its own, not the per-client one.
    assert rig.apply(rig.change("kitchen light", "off")).outcome is not Outcome.REFUSED
    assert rig.apply(rig.change("kitchen light", "on")).outcome is Outcome.REFUSED, "the house's limit holds"


def test_every_audit_line_names_the_client(audit: AuditLines) -> None:
    rig = Rig()
    rig.apply(rig.change("kitchen light", "on"))
    with acting_as(CONTROLLER):
        light = rig.device("kitchen light")
        rig.apply(
            Change(
                "t",
                "on",
                "turn on the kitchen light",
                [value_effect(light, light.values["switch.target"], True)],
                WriteValues(),
            )
        )
    assert [_client_of(r) for r in audit] == ["stdio", "tablet"]
