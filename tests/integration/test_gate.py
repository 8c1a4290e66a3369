"""Issue 12, every case of its "Why" list, on Mosquitto + the simulated captured house: one write gate that
no route can bypass, and answers that never claim what the device did not report.

"Nothing was sent" is checked on the broker (every request topic of the simulated gateway), not in our
own answers.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import MessageCollector
from tests.integration.mcp_harness import (
    api_topic,
    call,
    connected,
    eventually,
    settings_for,
    sim_value,
)
from tests.integration.test_safety import answering
from zwave_mcp.simulator import FAST, Simulator, capture_config, captured_house

pytestmark = pytest.mark.integration

C = "control_zwave_device"
S = "activate_zwave_scene"
LOCK_VALUE = {"nodeId": 5, "commandClass": 98, "endpoint": 0, "property": "targetMode"}
KITCHEN_VALUE = {"nodeId": 2, "commandClass": 37, "endpoint": 0, "property": "targetValue"}
LAMP_VALUE = {"nodeId": 3, "commandClass": 38, "endpoint": 0, "property": "targetValue"}


def house_with(**renames: str) -> list[dict[str, Any]]:
    """The captured house with nodes renamed: `house_with(n8="Garage Door Opener")`."""
    house = copy.deepcopy(captured_house())
    for node in house:
        new = renames.get(f"n{node['id']}")
        if new is not None:
            node["name"] = new
    return house


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(config=capture_config("a", timing=FAST, periodic=False))


@pytest.fixture
def requests(sim: Simulator, collector: Callable[[str], MessageCollector]) -> MessageCollector:
    """Every API request sent to the simulated zwave-js-ui."""
    return collector(api_topic(sim, "+"))


def sent(requests: MessageCollector, api: str) -> list[Any]:
    """The requests of `api` the collector has so far. It is a connection of its own and may lag behind an
    answer: a test that expects a request waits for it first (`requests.wait_for`)."""
    return [m.json()["args"] for m in requests.snapshot() if m.topic.endswith(f"/api/{api}/set")]


def audit_lines(caplog: pytest.LogCaptureFixture) -> list[Any]:
    return [r for r in caplog.records if r.name == "zwave_mcp.audit"]


async def lock_door(client: Any, sim: Simulator) -> None:
    answer = await call(client, C, {"deviceName": "front door", "action": "lock"})
    assert answer.outcome == "confirmed" and sim_value(sim, 5, 98, "currentMode") == 255, answer.text


# --- scenes go through the gate, value by value ------------------------------------------------------


async def test_scene_that_unlocks_a_denied_lock_is_refused_naming_the_lock(
    mosquitto: Any, sim: Simulator, requests: MessageCollector
) -> None:
    sim.add_scene("Leave home", [{**KITCHEN_VALUE, "value": True}, {**LOCK_VALUE, "value": 0}])
    settings = settings_for(mosquitto, sim, deny="Front Door Lock", forbid_sensitive=True)
    async with connected(settings) as client:
        await lock_door_direct(sim)
        answer = await call(client, S, {"scene": "leave home"})
        assert answer.is_error and "Front Door Lock" in answer.error and "deny list" in answer.error, (
            answer.text
        )
        assert answer.error.startswith(
            "Refused to activate scene 'Leave home': it would unlock Front Door Lock"
        )
    assert sent(requests, "_activateScene") == []
    assert sim_value(sim, 5, 98, "currentMode") == 255 and sim_value(sim, 2, 37, "currentValue") is False


async def lock_door_direct(sim: Simulator) -> None:
    node = sim.nodes[5]
    for value in node["values"].values():
        if value.get("commandClass") == 98 and value.get("property") in ("targetMode", "currentMode"):
            sim.set_value(node, value, 255)


async def test_scene_that_unlocks_needs_one_confirmation_bound_to_the_scene(
    mosquitto: Any, sim: Simulator, requests: MessageCollector
) -> None:
    sim.add_scene("Leave home", [{**KITCHEN_VALUE, "value": True}, {**LOCK_VALUE, "value": 0}])
    async with connected(settings_for(mosquitto, sim)) as client:
        await lock_door(client, sim)
        asked = await call(client, S, {"scene": "Leave home"})
        assert asked.outcome == "needs_confirmation" and not asked.is_error, asked.text
        assert "it would unlock Front Door Lock (Entry)" in asked.text
        token = asked.result["confirmationToken"]
        assert sent(requests, "_activateScene") == []
        # The scene's token is bound to the scene and its values: it cannot unlock the door by itself.
        stolen = await call(
            client, C, {"deviceName": "front door", "action": "unlock", "confirmationToken": token}
        )
        assert stolen.is_error and "not for this" in stolen.error
        asked = await call(client, S, {"scene": "Leave home"})
        done = await call(
            client, S, {"scene": "Leave home", "confirmationToken": asked.result["confirmationToken"]}
        )
        assert done.outcome == "confirmed", done.text
        requests.wait_for(lambda m: m.topic.endswith("/api/_activateScene/set"), what="the scene's request")
        assert len(sent(requests, "_activateScene")) == 1
        assert sim_value(sim, 5, 98, "currentMode") == 0
        reported = {d["device"]: d["outcome"] for d in done.result["devices"]}
        assert reported == {"Kitchen Light": "confirmed", "Front Door Lock": "confirmed"}
        assert (
            done.text
            == "Scene 'Leave home' started: Kitchen Light and Front Door Lock reported the new state."
        )


async def test_scene_touching_a_hidden_device_shows_none_of_its_values_and_is_refused(
    mosquitto: Any, sim: Simulator, requests: MessageCollector
) -> None:
    sim.add_scene("Evening", [{**KITCHEN_VALUE, "value": True}, {**LAMP_VALUE, "value": 30}])
    async with connected(settings_for(mosquitto, sim, hide="Kitchen Light")) as client:
        listed = await call(client, "list_zwave_scenes")
        assert listed.result["scenes"] == [{"id": 1, "label": "Evening", "values": 1}]
        answer = await call(client, S, {"scene": "Evening"})
        assert answer.is_error and "Kitchen" not in answer.text, answer.text
        assert answer.error == (
            "Refused to activate scene 'Evening': it would change a device the policy hides (ZWAVE_MCP_HIDE)."
        )
    assert sent(requests, "_activateScene") == []


async def test_scene_answer_says_which_devices_reported_and_what_is_still_due(
    mosquitto: Any, sim: Simulator
) -> None:
    # zwave-js-ui's scene `timeout` is in seconds: a value due in 1000 s cannot have reported yet.
    sim.add_scene("Night", [{**KITCHEN_VALUE, "value": True}, {**LAMP_VALUE, "value": 30, "timeout": 1000}])
    async with connected(settings_for(mosquitto, sim, confirm_timeout=0.5)) as client:
        answer = await call(client, S, {"scene": "Night"})
    assert answer.outcome == "unconfirmed", answer.text
    assert {d["device"]: d["outcome"] for d in answer.result["devices"]} == {
        "Kitchen Light": "confirmed",
        "Living Room Lamp": "unconfirmed",
    }
    assert answer.text == (
        "Scene 'Night' started: Living Room Lamp did not report in time; Kitchen Light reported the new "
        "state. Some of its values are set only after a delay of up to 1000 s, so they cannot have reported yet."
    )
    assert sim_value(sim, 3, 38, "currentValue") != 30


# --- confirm lists are judged by what an action does -------------------------------------------------


async def test_confirm_on_covers_toggle_to_on_and_any_level(
    mosquitto: Any, sim: Simulator, requests: MessageCollector
) -> None:
    async with connected(settings_for(mosquitto, sim, confirm_actions="on")) as client:
        for args in (
            {"deviceName": "kitchen light", "action": "toggle"},
            {"deviceName": "living room lamp", "action": "set_level", "level": 30},
            {"deviceName": "living room lamp", "action": "dim", "level": "+10"},
            {"deviceName": "kitchen light", "action": "turn on"},
        ):
            answer = await call(client, C, args)
            assert answer.outcome == "needs_confirmation", (args, answer.text)
            assert "'on' is on the list of actions that need confirmation" in answer.text
        off = await call(client, C, {"deviceName": "living room lamp", "action": "set_level", "level": 0})
        assert off.outcome == "confirmed", off.text
    requests.wait_for(lambda m: m.topic.endswith("/api/writeValue/set"), what="the write of level 0")
    assert [args[1] for args in sent(requests, "writeValue")] == [0]


async def test_confirm_open_covers_any_position_above_zero(
    mosquitto: Any, sim: Simulator, requests: MessageCollector
) -> None:
    async with connected(settings_for(mosquitto, sim, confirm_actions="open")) as client:
        for position in (100, 5):
            answer = await call(
                client, C, {"deviceName": "blinds", "action": "set_position", "position": position}
            )
            assert answer.outcome == "needs_confirmation", answer.text
    assert sent(requests, "writeValue") == []


async def test_a_relay_named_like_a_garage_door_opener_needs_confirmation(
    mosquitto: Any, simulator_factory: Callable[..., Simulator], collector: Callable[[str], MessageCollector]
) -> None:
    sim = simulator_factory(
        config=capture_config("a", timing=FAST, periodic=False), house=house_with(n8="Garage Door Opener")
    )
    requests = collector(api_topic(sim, "+"))
    async with connected(settings_for(mosquitto, sim)) as client:
        for action in ("on", "toggle"):
            answer = await call(client, C, {"deviceName": "garage door opener", "action": action})
            assert answer.outcome == "needs_confirmation", answer.text
            assert "it can open a way into the house" in answer.text
        off = await call(client, C, {"deviceName": "garage door opener", "action": "off"})
        assert (
            off.outcome == "unchanged"
            and off.text == "Garage Door Opener is already off, so nothing was sent."
        )
    assert sent(requests, "writeValue") == []


# --- names in policy lists ---------------------------------------------------------------------------


async def test_a_node_entry_covers_its_endpoint_devices_and_plurals_match(
    mosquitto: Any, simulator_factory: Callable[..., Simulator], collector: Callable[[str], MessageCollector]
) -> None:
    sim = simulator_factory(
        config=capture_config("a", timing=FAST, periodic=False), house=house_with(n10="Garage Door")
    )
    requests = collector(api_topic(sim, "+"))
    async with connected(settings_for(mosquitto, sim, deny="Porch Double Switch, Garage Doors")) as client:
        for name, action in (
            ("porch double switch 1", "on"),
            ("porch switch 2", "on"),
            ("garage doors", "close"),
        ):
            answer = await call(client, C, {"deviceName": name, "action": action})
            assert answer.is_error and "deny list" in answer.error, (name, answer.text)
    assert sent(requests, "writeValue") == []


async def test_entries_that_match_no_device_are_warned_and_rechecked_after_a_rename(
    mosquitto: Any, simulator_factory: Callable[..., Simulator], caplog: pytest.LogCaptureFixture
) -> None:
    sim = simulator_factory(config=capture_config("c", timing=FAST, periodic=False))
    caplog.set_level(logging.WARNING, logger="zwave_mcp.devices.service")
    async with connected(settings_for(mosquitto, sim, deny="Kitchen Light, Attic Fan")) as client:
        await eventually(
            lambda: any("'Attic Fan' on the deny list" in r.getMessage() for r in caplog.records),
            what="the start-up warning",
        )
        assert not any("'Kitchen Light'" in r.getMessage() for r in caplog.records)
        renamed = sim.nodes[2]
        # Moved too: "kitchen light" would still name a light left in the kitchen, as a tool argument does.
        renamed["name"], renamed["loc"] = "Pantry Light", "Pantry"
        sim.publish_status(renamed)  # config c publishes node details: zwave-mcp sees the rename
        await eventually(
            lambda: any("'Kitchen Light' on the deny list" in r.getMessage() for r in caplog.records),
            what="the warning after the rename",
        )
        answer = await call(client, "list_zwave_devices", {"filter": "pantry"})
        assert answer.result["count"] == 1


# --- hidden means hidden: events ---------------------------------------------------------------------


async def test_a_hidden_device_changes_are_not_in_recent_events(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim, hide="Kitchen Light")) as client:
        node = sim.nodes[2]
        current = next(v for v in node["values"].values() if v.get("property") == "currentValue")
        sim.set_value(node, current, True)
        lamp = sim.nodes[3]
        level = next(v for v in lamp["values"].values() if v.get("property") == "currentValue")
        sim.set_value(lamp, level, 55)
        answer = await eventually_events(client, "Living Room Lamp")
    assert "Kitchen" not in answer.text and all(
        e["device"] != "Kitchen Light" for e in answer.result["events"]
    )


async def eventually_events(client: Any, device: str) -> Any:
    for _ in range(100):
        answer = await call(client, "get_recent_events", {"minutes": 5})
        if any(e["device"] == device for e in answer.result["events"]):
            return answer
        await anyio_sleep(0.02)
    raise AssertionError(f"no event of {device}")


async def anyio_sleep(seconds: float) -> None:
    import anyio

    await anyio.sleep(seconds)


# --- never claim what the device did not report -----------------------------------------------------


async def test_unsupervised_write_whose_check_back_failed_is_not_confirmed(
    mosquitto: Any, sim: Simulator
) -> None:
    sim.fail_polls()  # the device answers no Get; zwave-js still publishes its optimistic echo
    async with connected(settings_for(mosquitto, sim, confirm_timeout=0.5)) as client:
        answer = await call(client, C, {"deviceName": "kitchen light", "action": "on"})
    assert answer.outcome == "unconfirmed", answer.text
    assert answer.text == (
        "The command to turn on Kitchen Light was sent, but Kitchen Light has not confirmed it; "
        "it last reported off."
    )
    assert answer.result["reported"] is False
    # The live picture already holds zwave-js's optimistic echo ("on"); the answer shows the report.
    assert sim_value(sim, 2, 37, "currentValue") is True
    assert answer.result["device"]["state"] == "off", answer.result["device"]


async def test_a_write_not_waited_for_shows_the_last_report_not_the_echo(
    mosquitto: Any, sim: Simulator
) -> None:
    # The echo goes out with the write and its reply comes 0.3 s later, so the picture holds the echo
    # when the answer is made; the device itself says nothing.
    sim.fail_polls()
    sim.delay_write_replies(0.3)
    async with connected(settings_for(mosquitto, sim, confirm_timeout=0)) as client:
        answer = await call(client, C, {"deviceName": "kitchen light", "action": "on"})
        picture = await call(client, "get_device_state", {"deviceName": "kitchen light"})
    assert picture.result["device"]["state"] == "on"  # what zwave-js-ui shows: its own guess
    assert answer.outcome == "unconfirmed", answer.text
    assert answer.text.endswith("has not confirmed it; it last reported off."), answer.text
    assert answer.result["reported"] is False
    assert answer.result["device"]["state"] == "off", answer.result["device"]


async def test_a_group_write_shows_each_device_as_it_last_reported(mosquitto: Any, sim: Simulator) -> None:
    sim.fail_polls()
    sim.delay_write_replies(0.3)
    async with connected(settings_for(mosquitto, sim, confirm_timeout=0)) as client:
        answer = await call(client, "control_zwave_group", {"target": "kitchen lights", "action": "on"})
    members = {d["device"]["name"]: d for d in answer.result["devices"]}
    assert members["Kitchen Light"]["outcome"] == "unconfirmed", answer.text
    assert members["Kitchen Light"]["reported"] is False
    assert members["Kitchen Light"]["device"]["state"] == "off", members["Kitchen Light"]


async def test_write_reply_after_the_api_timeout_is_unknown_and_says_what_the_lock_reports_now(
    mosquitto: Any, sim: Simulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="zwave_mcp.audit")
    async with connected(
        settings_for(mosquitto, sim, api_timeout=0.5),
        elicitation_callback=answering("accept", []),
        mode="legacy",
    ) as client:
        await lock_door(client, sim)
        sim.delay_write_replies(2.0)
        answer = await call(client, C, {"deviceName": "front door", "action": "unlock"})
    assert answer.outcome == "unknown" and not answer.is_error, answer.text
    assert answer.text == (
        "zwave-js-ui did not answer in time, so the command to unlock Front Door Lock may still have been "
        "carried out; Front Door Lock now reports unlocked. The door is open."  # the lock's own door report
    )
    assert answer.result["reported"] == 0 and sim_value(sim, 5, 98, "currentMode") == 0
    assert [r.outcome for r in audit_lines(caplog)][-1] == "unknown"  # type: ignore[attr-defined]


async def test_a_failed_write_to_a_sleeping_device_leaves_an_audit_line(
    mosquitto: Any,
    simulator_factory: Callable[..., Simulator],
    caplog: pytest.LogCaptureFixture,
) -> None:
    house = copy.deepcopy(captured_house())
    for node in house:
        if node["id"] == 2:
            node.update(isListening=False, status="Asleep")
    sim = simulator_factory(config=capture_config("a", timing=FAST, periodic=False), house=house)
    caplog.set_level(logging.INFO, logger="zwave_mcp.audit")
    async with connected(settings_for(mosquitto, sim)) as client:
        sim.kill_node(2)
        answer = await call(client, C, {"deviceName": "kitchen light", "action": "on"})
    assert answer.outcome == "failed", answer.text
    lines = audit_lines(caplog)
    assert [(r.action, r.outcome) for r in lines] == [("on", "failed")]  # type: ignore[attr-defined]
    assert "did not accept" in lines[0].reason  # type: ignore[attr-defined]


# --- one action vocabulary ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "action"),
    [
        ("turn_on", "on"),
        ("switch off", "off"),
        ("turn-on", "on"),
        ("Turn On", "on"),
        ("brightness", "set_level"),
    ],
)
async def test_action_words_people_use_are_accepted(
    mosquitto: Any, sim: Simulator, said: str, action: str
) -> None:
    args: dict[str, Any] = {"deviceName": "living room lamp", "action": said}
    if action == "set_level":
        args["level"] = 20
    async with connected(settings_for(mosquitto, sim)) as client:
        answer = await call(client, C, args)
    assert not answer.is_error and answer.result["action"] == action, answer.text
    assert answer.outcome == "confirmed", answer.text


async def test_zwave_mcp_config_lists_entries_that_match_no_device(mosquitto: Any, sim: Simulator) -> None:
    from zwave_mcp.commands.config_check import policy_entry_report

    report = await policy_entry_report(
        settings_for(mosquitto, sim, deny="Porch Double Switch, Attic Fan", hide="node:99"), timeout=5.0
    )
    assert report == {
        "policy_entries_matching_no_device": [
            "'Attic Fan' on the deny list (ZWAVE_MCP_DENY) matches no device",
            "'node:99' on the hide list (ZWAVE_MCP_HIDE) matches no device",
        ]
    }
    assert await policy_entry_report(settings_for(mosquitto, sim)) == {}, "no lists, nothing to check"
