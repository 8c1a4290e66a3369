"""Issue 45 item 1, the pure parts: association groups and links read at the gateway's edge, a group found
by its label, a change checked before it is sent, what an association change needs a yes for, and the
simulator's zwave-js answers (check results and errors, from zwave-js's `packages/cc/src/lib/utils.ts`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.model import Device
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.admin import AdminApiFailed
from zwave_mcp.gateway.associations import Group, Link, _added, groups_of, parse_links
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.network.associations import (
    aims_at,
    check_room,
    device_sentence,
    link_to,
    pick_group,
    takes_commands,
)
from zwave_mcp.policy.sensitive import SafeBand, sensitivity
from zwave_mcp.policy.terms import DeviceList
from zwave_mcp.simulator import Simulator, associations
from zwave_mcp.simulator.dumps import load_house_file
from zwave_mcp.simulator.house import CAPTURED_WITH_LOCKS, load_house

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"

LIFELINE = Group(0, 1, "Lifeline", 1, lifeline=True, multi_channel=False)
PIR = Group(0, 2, "PIR Control", 4, lifeline=False, multi_channel=False)


@pytest.fixture(scope="module")
def devices() -> dict[str, Device]:
    nodes = [parse_node(raw) for raw in load_house(CAPTURED_WITH_LOCKS)]
    return {d.name: d for d in build_devices(n for n in nodes if n is not None and not n.is_controller)}


def test_groups_are_read_from_the_node_and_what_does_not_fit_is_left_out(devices: dict[str, Device]) -> None:
    motion = devices["Garage Motion"]
    assert groups_of(motion.node) == [LIFELINE, PIR]
    dimmer = groups_of(devices["Hallway Dimmer"].node)
    assert [(g.label, g.lifeline) for g in dimmer] == [
        ("Lifeline", True),
        ("Local Load", False),
        ("Double Tap", True),  # the GE 14294's config file marks it as a lifeline too
    ]
    odd = replace(motion.node, details={})
    odd.details["groups"] = [
        {"title": "Ok", "endpoint": 0, "value": 3, "maxNodes": 2},
        {"title": "No number", "endpoint": 0},
        {"title": "Zero", "value": 0},
        "junk",
        {"value": 4, "maxNodes": "many", "title": None},
    ]
    assert [(g.number, g.label, g.max_nodes) for g in groups_of(odd)] == [
        (3, "Ok", 2),
        (4, "Unnamed group 4", 1),
    ]


def test_links_are_read_in_zwave_js_uis_shape() -> None:
    result = [
        {"endpoint": 0, "groupId": 1, "nodeId": 1},
        {"endpoint": 0, "groupId": 2, "nodeId": 11, "targetEndpoint": 2},
        {"groupId": "2", "nodeId": 3},
        None,
    ]
    assert parse_links(result) == [Link(0, 1, 1), Link(0, 2, 11, 2)]
    assert parse_links({"not": "a list"}) == []
    assert Link(0, 2, 11, 2).address() == {"nodeId": 11, "endpoint": 2}
    assert Link(0, 2, 3).address() == {"nodeId": 3}


def test_add_associations_answering_a_refusal_is_no_success() -> None:
    assert _added([1]) == [1]
    with pytest.raises(AdminApiFailed, match="a device cannot control itself"):
        _added([4])


def test_a_group_is_found_by_its_label_its_number_or_as_the_only_one_that_controls(
    devices: dict[str, Device],
) -> None:
    motion = devices["Garage Motion"]
    assert pick_group([LIFELINE, PIR], "pir control", motion) == PIR
    assert pick_group([LIFELINE, PIR], "PIR", motion) == PIR
    assert pick_group([LIFELINE, PIR], 2, motion) == PIR
    assert pick_group([LIFELINE, PIR], None, motion) == PIR
    with pytest.raises(
        UserError, match="has no group called 'double tap'; it has 'Lifeline' or 'PIR Control'"
    ):
        pick_group([LIFELINE, PIR], "double tap", motion)
    with pytest.raises(UserError, match="has only its lifeline"):
        pick_group([LIFELINE], None, motion)
    with pytest.raises(UserError, match="no association groups"):
        pick_group([], None, motion)


def test_a_change_is_checked_before_it_is_sent(devices: dict[str, Device]) -> None:
    motion, second = devices["Garage Motion"], devices["Porch Double Switch 2"]
    assert takes_commands(devices["Kitchen Light"]) and takes_commands(devices["Living Room Lamp"])
    assert takes_commands(devices["Front Door Lock"]) and takes_commands(second)
    assert not takes_commands(devices["Bedroom Sensor"])
    full = [Link(0, 2, n) for n in (2, 3, 8, 9)]
    with pytest.raises(UserError, match="already controls 4 of the 4 it can hold"):
        check_room(PIR, full, motion)
    check_room(PIR, full[:3], motion)
    # One part of a double device is only reached by a multi channel group.
    with pytest.raises(UserError, match="can only control whole devices"):
        link_to(second, PIR)
    multi = Group(0, 2, "On/Off Control", 5, lifeline=False, multi_channel=True)
    assert link_to(second, multi) == Link(0, 2, 11, 2)
    # The node's main part (endpoint 1, named after the node) is the node to a group of nodes.
    first = devices["Porch Double Switch"]
    assert link_to(first, PIR) == Link(0, 2, 11) and link_to(first, multi) == Link(0, 2, 11, 1)
    assert aims_at(Link(0, 2, 11), first) and aims_at(Link(0, 2, 11, 1), first)
    assert not aims_at(Link(0, 2, 11), second) and aims_at(Link(0, 2, 11, 2), second)
    assert aims_at(Link(0, 2, 2), devices["Kitchen Light"]) and not aims_at(
        Link(0, 2, 3), devices["Kitchen Light"]
    )


def test_what_a_device_controls_is_said_by_labels_and_names(devices: dict[str, Device]) -> None:
    names = {(2, None): "Kitchen Light", (11, 2): "Porch Double Switch 2"}
    links = [Link(0, 1, 1), Link(0, 2, 2), Link(0, 2, 11, 2), Link(0, 2, 40)]
    said = device_sentence(
        devices["Garage Motion"], [LIFELINE, PIR], links, lambda n, e: names.get((n, e)), 1
    )
    assert said == (
        "On Garage Motion, Lifeline reports to zwave-mcp; PIR Control controls Kitchen Light, "
        "Porch Double Switch 2 and a device zwave-mcp does not show."
    )


def test_many_groups_that_control_nothing_are_said_together(devices: dict[str, Device]) -> None:
    """The Hallway Remote's eight button groups, each "controls nothing", made a sentence of nine clauses
    that hid the one that mattered; from three such groups they are counted (their labels stay in the list)."""
    buttons = [Group(0, n, f"Button {n - 1}", 5, lifeline=False, multi_channel=False) for n in range(2, 10)]
    remote = devices["Garage Motion"]
    names = {(3, None): "Living Room Lamp"}
    said = device_sentence(remote, [LIFELINE, *buttons], [Link(0, 1, 1)], lambda n, e: names.get((n, e)), 1)
    assert said == "On Garage Motion, Lifeline reports to zwave-mcp; its other 8 groups control nothing."
    one = device_sentence(
        remote, [LIFELINE, *buttons], [Link(0, 1, 1), Link(0, 3, 3)], lambda n, e: names.get((n, e)), 1
    )
    assert one == (
        "On Garage Motion, Lifeline reports to zwave-mcp; Button 2 controls Living Room Lamp; "
        "its other 7 groups control nothing."
    )
    assert device_sentence(remote, buttons, [], lambda n, e: None, 1) == (
        "On Garage Motion, none of its 8 groups controls anything."
    )
    # Two idle groups are still named.
    assert device_sentence(remote, [LIFELINE, *buttons[:2]], [Link(0, 1, 1)], lambda n, e: None, 1) == (
        "On Garage Motion, Lifeline reports to zwave-mcp; Button 1 controls nothing; Button 2 controls nothing."
    )


def _fixture_devices(file: str) -> list[Device]:
    nodes = [parse_node(raw) for raw in load_house_file(FIXTURES / file)]
    return build_devices(n for n in nodes if n is not None and not n.is_controller)


def why(device: Device, *words: str) -> str | None:
    return sensitivity(
        device,
        frozenset(words),
        None,
        unit=None,
        band=SafeBand(),
        confirm_actions=frozenset(),
        confirm_devices=DeviceList(),
    )


def test_what_an_association_needs_a_yes_for(devices: dict[str, Device]) -> None:
    assert why(devices["Front Door Lock"], "be_controlled") == "it lets another device unlock it by itself"
    assert why(devices["Living Room Blinds"], "be_controlled") == "it lets another device open it by itself"
    assert why(devices["Kitchen Light"], "be_controlled") is None
    assert why(devices["Garage Motion"], "dissociate", "stop_reports").startswith(
        "the device would stop reporting to zwave-mcp"
    )
    siren = _fixture_devices("aeotec_zw164_siren_state.json")[0]
    assert why(siren, "be_controlled") == "it lets another device silence it by itself"
    valve = _fixture_devices("zooz_zac36_titan_valve_actuator_state.json")[0]
    assert why(valve, "be_controlled") == "it lets another device open it by itself"
    # A lock's own group controlling a light opens nothing: the lock rule is for what is done to a lock.
    assert why(devices["Front Door Lock"], "associate") is None
    assert why(devices["Front Door Lock"], "dissociate") is None
    # A person who wants every association confirmed lists it (security.md says so).
    listed = sensitivity(
        devices["Garage Motion"],
        frozenset({"associate"}),
        None,
        unit=None,
        band=SafeBand(),
        confirm_actions=frozenset({"associate"}),
        confirm_devices=DeviceList(),
    )
    assert listed == "'associate' is on the list of actions that need confirmation"


@pytest.fixture
def sim() -> Simulator:
    return Simulator(house=CAPTURED_WITH_LOCKS)


def test_the_simulator_checks_as_zwave_js_does(sim: Simulator) -> None:
    motion = {"nodeId": 7}
    assert associations.check(sim, motion, 2, {"nodeId": 2}) == associations.OK
    assert associations.check(sim, motion, 1, {"nodeId": 1}) == associations.OK
    assert associations.check(sim, motion, 2, {"nodeId": 7}) == associations.FORBIDDEN_SELF
    errors: list[tuple[Any, Any, str]] = [
        ({"nodeId": 99}, {"nodeId": 2}, "Node 99 was not found! (ZW0211)"),
        (motion, {"nodeId": 99}, "Node 99 was not found! (ZW0211)"),
        (motion, {"nodeId": 11, "endpoint": 5}, "Endpoint 5 does not exist on Node 11 (ZW0212)"),
        ({"nodeId": 3}, {"nodeId": 2}, "Node 3 does not support associations! (ZW0302)"),
        (None, {"nodeId": 2}, "Cannot read properties of undefined (reading 'nodeId')"),
    ]
    for source, destination, message in errors:
        with pytest.raises(Exception) as raised:
            associations.check(sim, source, 2, destination)
        assert str(raised.value) == message


def test_the_simulator_adds_as_zwave_js_does(sim: Simulator) -> None:
    node = sim.nodes[7]
    for target in (2, 3, 8, 9, 10):
        associations._add(sim, node, 0, 2, {"nodeId": target})
    # PIR Control holds 4: the device drops the fifth, as zwave-js does not check.
    assert associations.table(sim, node)[(0, 2)] == [{"nodeId": n} for n in (2, 3, 8, 9)]
    assert associations.table(sim, node)[(0, 1)] == [{"nodeId": 1}]  # the lifeline, from the interview
    with pytest.raises(Exception, match=r"^Group 5 does not exist on node 7 \(ZW1300\)$"):
        associations._add(sim, node, 0, 5, {"nodeId": 2})
    with pytest.raises(Exception, match=r"^Node 7 does not support multi channel associations! \(ZW0302\)$"):
        associations._add(sim, node, 0, 2, {"nodeId": 11, "endpoint": 2})
    switch = sim.nodes[11]
    associations._add(sim, switch, 0, 2, {"nodeId": 2})
    associations._add(sim, switch, 0, 2, {"nodeId": 9, "endpoint": 0})
    assert associations.table(sim, switch)[(0, 2)] == [{"nodeId": 2}, {"nodeId": 9, "endpoint": 0}]


def test_an_unknown_node_fails_as_on_the_test_bed(sim: Simulator) -> None:
    """zwave-js-ui 11.22.2 on the test bed: getAssociations(99) and removeAssociations of node 99 fail with
    its logging's TypeError, addAssociations with its own sentence."""
    answers: list[Any] = []
    for api, args, message in [
        ("getAssociations", [99], "Cannot read properties of undefined (reading 'id')"),
        (
            "removeAssociations",
            [{"nodeId": 99}, 2, [{"nodeId": 2}]],
            "Cannot read properties of undefined (reading 'id')",
        ),
        ("addAssociations", [{"nodeId": 99}, 2, [{"nodeId": 2}]], "Node 99 not found"),
    ]:
        with pytest.raises(Exception) as raised:
            associations.HANDLERS[api](sim, args, lambda *a, **k: answers.append(a))
        assert str(raised.value) == message
    assert answers == []
