"""Issue 16 end to end: the network-care tools over MCP, on Mosquitto and the simulated house, every change
through the write gate (confirmation, audit, read-only), including a full S2 inclusion with the PIN asked
through elicitation and through the two-step flow."""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
from collections.abc import Callable
from typing import Any

import mcp_types
import paho.mqtt.publish as publish
import pytest

from tests.codes_in import shows_code
from tests.conftest import MessageCollector
from tests.integration.mcp_harness import (
    Answer,
    api_topic,
    call,
    connected,
    eventually,
    settings_for,
    sim_value,
    wait_for_answer,
    wait_writes,
)
from zwave_mcp.server.tools import admin_tools
from zwave_mcp.simulator import SimConfig, Simulator
from zwave_mcp.simulator.admin import NewDevice, make_qr
from zwave_mcp.simulator.samples import house_with_config

pytestmark = pytest.mark.integration

ADMIN_TOOLS = {spec.name for spec in admin_tools()}
# The ones a read-only server still lists: those whose annotations say they only read.
READ_TOOLS = {spec.name for spec in admin_tools() if spec.annotations and spec.annotations.read_only_hint}


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(house=house_with_config(9))


def admin_settings(mosquitto: Any, sim: Simulator, **extra: Any) -> Any:
    return settings_for(mosquitto, sim, admin=True, **extra)


async def confirmed(client: Any, tool: str, args: dict[str, Any]) -> Answer:
    """Call a change that needs the person's say-so: the token flow, as a client without elicitation does."""
    first = await call(client, tool, args)
    assert first.result["outcome"] == "needs_confirmation", first.text
    token = first.result["confirmationToken"]
    return await call(client, tool, {**args, "confirmationToken": token})


def audit_lines(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str, str]]:
    return [
        (r.tool, r.action, r.outcome)  # type: ignore[attr-defined]
        for r in caplog.records
        if r.name == "zwave_mcp.audit"
    ]


# --- the tool list ------------------------------------------------------------------------------------


async def test_admin_tools_are_listed_only_with_zwave_mcp_admin(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim), wait=False) as client:
        plain = {t.name for t in (await client.list_tools()).tools}
    async with connected(admin_settings(mosquitto, sim), wait=False) as client:
        with_admin = {t.name for t in (await client.list_tools()).tools}
    assert not plain & ADMIN_TOOLS
    assert with_admin == plain | ADMIN_TOOLS and len(with_admin) == len(plain) + len(ADMIN_TOOLS)
    async with connected(admin_settings(mosquitto, sim, read_only=True), wait=False) as client:
        read_only = {t.name for t in (await client.list_tools()).tools}
    assert read_only & ADMIN_TOOLS == READ_TOOLS


# --- reads --------------------------------------------------------------------------------------------


async def test_node_details(mosquitto: Any, sim: Simulator) -> None:
    async with connected(admin_settings(mosquitto, sim)) as client:
        sensor = await call(client, "get_zwave_node_details", {"deviceName": "bedroom sensor"})
        light = await call(client, "get_zwave_node_details", {"deviceName": "kitchen light"})
    assert sensor.result["powerSource"] == "sleeping" and sensor.result["wakeUpIntervalSeconds"] == 3600
    assert sensor.result["battery"] == 87 and sensor.result["firmwareVersion"] == "1.0"
    assert "waking every 1 hour" in sensor.text and "None" not in sensor.text
    assert light.result["statistics"]["roundTripMs"] == 68.4 and light.result["powerSource"] == "listening"
    assert light.result["interviewStage"] == "Complete" and 1 in light.result["neighbours"]
    assert light.text.startswith("Kitchen Light (node 2) is a listening device")


async def test_config_parameters_list_and_write(
    mosquitto: Any, sim: Simulator, collector: Callable[[str], MessageCollector]
) -> None:
    traffic = collector(f"{sim.config.prefix}/#")
    async with connected(admin_settings(mosquitto, sim)) as client:
        listed = await call(client, "list_zwave_config_parameters", {"deviceName": "bedroom color bulb"})
        params = {p["number"]: p for p in listed.result["parameters"]}
        assert params[2] == {
            **params[2],
            "label": "Motion clear delay",
            "min": 5,
            "max": 600,
            "unit": "seconds",
            "default": 30,
            "value": 30,
        }
        assert params[3]["options"] == {"Off": 0, "On": 1}
        too_big = await call(
            client,
            "set_zwave_config_parameter",
            {"deviceName": "bedroom color bulb", "parameter": 2, "value": 9999},
        )
        assert too_big.is_error and "5 to 600 seconds" in too_big.error
        traffic.clear()
        written = await confirmed(
            client,
            "set_zwave_config_parameter",
            {"deviceName": "bedroom color bulb", "parameter": "LED indicator", "value": "off"},
        )
    assert written.result["outcome"] == "confirmed" and written.result["reported"] == 0, written.text
    assert sim_value(sim, 9, 112, 3) == 0
    assert "LED indicator" in written.text and "as the device reported" in written.text
    # The collector is a client of its own: the request can reach it after the answer reached us.
    sent = [[vid, value] for vid, value in wait_writes(traffic, 1)]
    assert sent == [[{"nodeId": 9, "commandClass": 112, "endpoint": 0, "property": 3}, 0]]


async def test_config_write_confirmed_by_elicitation(mosquitto: Any, sim: Simulator) -> None:
    asked: list[str] = []

    async def accept(_context: Any, params: Any) -> mcp_types.ElicitResult:
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"confirm": True})

    async with connected(
        admin_settings(mosquitto, sim), elicitation_callback=accept, mode="legacy"
    ) as client:
        answer = await call(
            client,
            "set_zwave_config_parameter",
            {"deviceName": "bedroom color bulb", "parameter": 1, "value": 8},
        )
    assert answer.result["outcome"] == "confirmed" and sim_value(sim, 9, 112, 1) == 8
    assert asked and "parameter 1 (Motion sensitivity)" in asked[0]


# --- rename -------------------------------------------------------------------------------------------


async def test_rename_and_relocate_follow_at_once(mosquitto: Any, sim: Simulator) -> None:
    async with connected(admin_settings(mosquitto, sim)) as client:
        renamed = await call(
            client,
            "rename_zwave_device",
            {"deviceName": "kitchen light", "newName": "Pantry Light", "newLocation": "Pantry"},
        )
        assert renamed.result["name"] == "Pantry Light" and renamed.result["location"] == "Pantry"
        assert sim.nodes[2]["name"] == "Pantry Light" and sim.nodes[2]["loc"] == "Pantry"
        on = await call(client, "control_zwave_device", {"deviceName": "pantry light", "action": "on"})
        assert on.result["outcome"] == "confirmed", on.text
        old = await call(client, "control_zwave_device", {"deviceName": "kitchen light", "action": "off"})
        assert old.is_error
        # zwave-js-ui still publishes under the old topic until each value is re-published: still mapped.
        listed = await call(client, "get_device_sensor_data", {"deviceName": "pantry light"})
        assert not listed.is_error


async def test_policy_lists_follow_a_rename_at_once(mosquitto: Any, sim: Simulator) -> None:
    async with connected(admin_settings(mosquitto, sim, deny="Pantry Light")) as client:
        before = await call(client, "control_zwave_device", {"deviceName": "kitchen light", "action": "on"})
        assert not before.is_error, before.text
        await call(client, "rename_zwave_device", {"deviceName": "kitchen light", "newName": "Pantry Light"})
        after = await call(client, "control_zwave_device", {"deviceName": "pantry light", "action": "off"})
    assert after.is_error and "deny list" in after.error, after.text
    assert sim_value(sim, 2, 37, "currentValue") is True  # the refused write never went out


async def test_a_rename_made_in_zwave_js_ui_is_seen_at_once(
    mosquitto: Any, sim: Simulator, collector: Callable[[str], MessageCollector]
) -> None:
    """Renamed and moved through zwave-js-ui's own API (its UI, another client), not through zwave-mcp:
    the simulator publishes what zwave-js-ui publishes (a Node Naming and Location value event), and the
    running server answers with the new name and room within the 5 s the real gateway takes."""
    events = collector(f"{sim.config.prefix}/_EVENTS/#")
    async with connected(settings_for(mosquitto, sim)) as client:
        for api, args in (("setNodeName", [2, "Pantry Light"]), ("setNodeLocation", [2, ""])):
            publish.single(
                api_topic(sim, api), json.dumps({"args": args}), qos=1, hostname=sim.host, port=sim.port
            )
        renamed = await wait_for_answer(
            client,
            "list_zwave_devices",
            {"filter": "pantry"},
            lambda a: a.result["count"] == 1 and not a.result["devices"][0].get("location"),
            timeout=5.0,
        )
        assert renamed.result["devices"][0]["name"] == "Pantry Light", renamed.text
        old = await call(client, "control_zwave_device", {"deviceName": "kitchen light", "action": "on"})
        assert old.is_error
    naming = [m.json()["data"] for m in events.snapshot() if m.topic.endswith("/node/node_value_updated")]
    (event,) = [d for d in naming if d[1].get("commandClass") == 119 and d[1]["property"] == "name"]
    assert event[0]["name"] == "Pantry Light"
    assert event[1]["prevValue"] == "Kitchen Light" and event[1]["newValue"] == "Pantry Light"


# --- a change to a node reaches every device of it -----------------------------------------------------

PORCH_1 = "porch double switch 1"


async def test_a_hidden_device_is_not_changed_through_its_sibling_nor_named(
    mosquitto: Any, simulator_factory: Callable[..., Simulator]
) -> None:
    """Issue 30: renaming the visible "Porch Double Switch" renamed the whole node, and the hidden
    switch 2 came out as "Patio Switch 2", listed and switchable. Every change addressed to the node is
    judged on all its devices; the refusal does not name the hidden one."""
    sim = simulator_factory(house=house_with_config(11))
    async with connected(admin_settings(mosquitto, sim, hide="Porch Double Switch 2")) as client:
        for tool, args in (
            ("rename_zwave_device", {"deviceName": PORCH_1, "newName": "Patio Switch"}),
            ("rename_zwave_device", {"deviceName": PORCH_1, "newLocation": "Patio"}),
            ("set_zwave_config_parameter", {"deviceName": PORCH_1, "parameter": 3, "value": 0}),
            ("run_zwave_maintenance", {"operation": "refresh_values", "deviceName": PORCH_1}),
            ("run_zwave_maintenance", {"operation": "reinterview", "deviceName": PORCH_1}),
        ):
            answer = await call(client, tool, args)
            assert answer.is_error and "hides part of that node" in answer.error, (tool, answer.text)
            assert "Switch 2" not in answer.text and "11.2" not in answer.text, answer.text
        listed = await call(client, "list_zwave_devices", {})
    assert sim.nodes[11]["name"] == "Porch Double Switch" and sim.nodes[11]["loc"] == "Porch"
    assert sim_value(sim, 11, 112, 3) != 0
    assert [d["name"] for d in listed.result["devices"] if d["nodeId"] == 11] == ["Porch Double Switch"]


async def test_a_denied_sibling_refuses_the_change_by_name(mosquitto: Any, sim: Simulator) -> None:
    async with connected(admin_settings(mosquitto, sim, deny="Porch Double Switch 2")) as client:
        answer = await call(client, "rename_zwave_device", {"deviceName": PORCH_1, "newName": "Patio Switch"})
    assert answer.is_error and "Porch Double Switch 2" in answer.error and "deny list" in answer.error
    assert sim.nodes[11]["name"] == "Porch Double Switch"


async def test_a_sibling_on_the_confirm_list_is_asked_about_and_the_answer_names_every_device(
    mosquitto: Any, sim: Simulator
) -> None:
    settings = admin_settings(mosquitto, sim, confirm_devices="Porch Double Switch 2")
    async with connected(settings) as client:
        args = {"deviceName": PORCH_1, "newName": "Patio Switch"}
        asked = await call(client, "rename_zwave_device", args)
        assert asked.outcome == "needs_confirmation", asked.text
        assert "Porch Double Switch and Porch Double Switch 2" in asked.text
        other = await call(
            client, "rename_zwave_device", {**args, "newName": "Garden Switch", **_token(asked)}
        )
        assert other.is_error and sim.nodes[11]["name"] == "Porch Double Switch"  # bound to the effect
        asked = await call(client, "rename_zwave_device", args)
        done = await call(client, "rename_zwave_device", {**args, **_token(asked)})
        switched = await call(
            client, "control_zwave_device", {"deviceName": "patio switch 2", "action": "on"}
        )
    assert done.text == (
        "Renamed node 11: Porch Double Switch and Porch Double Switch 2 are now Patio Switch and "
        "Patio Switch 2."
    )
    assert (
        done.result["devices"] == ["Patio Switch", "Patio Switch 2"]
        and sim.nodes[11]["name"] == "Patio Switch"
    )
    assert switched.outcome == "needs_confirmation"  # the confirm entry still covers the renamed switch 2


async def test_a_device_renamed_outside_stays_on_the_hide_list(
    mosquitto: Any, sim: Simulator, collector: Callable[[str], MessageCollector]
) -> None:
    """The hide list named "Porch Double Switch 2"; the node renamed in zwave-js-ui keeps it hidden."""
    async with connected(settings_for(mosquitto, sim, hide="Porch Double Switch 2")) as client:
        publish.single(
            api_topic(sim, "setNodeName"),
            json.dumps({"args": [11, "Patio Switch"]}),
            qos=1,
            hostname=sim.host,
            port=sim.port,
        )
        shown = await wait_for_answer(
            client, "list_zwave_devices", {"filter": "patio"}, lambda a: a.result["count"] >= 1
        )
        hidden = await call(client, "control_zwave_device", {"deviceName": "patio switch 2", "action": "on"})
        by_key = await call(client, "control_zwave_device", {"deviceName": "11.2", "action": "on"})
    assert [d["name"] for d in shown.result["devices"]] == ["Patio Switch"], shown.text
    assert hidden.is_error and by_key.is_error and sim_value(sim, 11, 37, "currentValue", endpoint=2) is False


async def test_node_wide_answers_name_every_device_of_the_node(
    mosquitto: Any, simulator_factory: Callable[..., Simulator]
) -> None:
    sim = simulator_factory(house=house_with_config(11))
    async with connected(admin_settings(mosquitto, sim)) as client:
        config = await confirmed(
            client, "set_zwave_config_parameter", {"deviceName": PORCH_1, "parameter": 3, "value": 0}
        )
        refresh = await call(
            client, "run_zwave_maintenance", {"operation": "refresh_values", "deviceName": PORCH_1}
        )
        interview = await confirmed(
            client, "run_zwave_maintenance", {"operation": "reinterview", "deviceName": PORCH_1}
        )
    both = "node 11 (Porch Double Switch and Porch Double Switch 2)"
    assert config.text.startswith(f"Parameter 3 (LED indicator) of {both} is now 0"), config.text
    assert refresh.text == f"N{both[1:]} was asked for all its values; they update as it answers."
    assert interview.text == f"Reinterview of {both}: the interview completed.", interview.text
    for answer in (config, refresh, interview):
        assert answer.result["devices"] == ["Porch Double Switch", "Porch Double Switch 2"]


async def test_a_rename_through_the_second_endpoint_lists_the_node_in_order(
    mosquitto: Any, sim: Simulator
) -> None:
    async with connected(admin_settings(mosquitto, sim)) as client:
        done = await call(
            client, "rename_zwave_device", {"deviceName": "porch double switch 2", "newName": "Patio Switch"}
        )
    assert done.text == (
        "Renamed node 11: Porch Double Switch and Porch Double Switch 2 are now Patio Switch and "
        "Patio Switch 2."
    ), done.text


def _token(answer: Answer) -> dict[str, str]:
    return {"confirmationToken": answer.result["confirmationToken"]}


# --- rename: names that would mean something else ---------------------------------------------------------


async def test_rename_refuses_blank_names_keys_group_words_and_taken_names(
    mosquitto: Any, sim: Simulator
) -> None:
    async with connected(admin_settings(mosquitto, sim)) as client:
        for name, why in (
            ("   ", "blank"),
            ("2", "device number"),
            ("node 11.2", "device number"),
            ("lights", "kind of device"),
            ("all lights", "every device"),
            ("everything", "every device"),
            ("Kitchen", "room"),
            ("living room lamp", "Living Room Lamp"),
        ):
            answer = await call(
                client, "rename_zwave_device", {"deviceName": "kitchen light", "newName": name}
            )
            assert answer.is_error and why in answer.error and "Nothing was sent" in answer.error, (
                name,
                answer.text,
            )
        for room in ("Lights", "everything", "3"):
            answer = await call(
                client, "rename_zwave_device", {"deviceName": "kitchen light", "newLocation": room}
            )
            assert answer.is_error and "Not moved" in answer.error, (room, answer.text)
        fine = await call(
            client, "rename_zwave_device", {"deviceName": "kitchen light", "newName": "Porch Light"}
        )
    assert fine.text == "Renamed node 2: Kitchen Light is now Porch Light.", fine.text
    assert sim.nodes[2]["name"] == "Porch Light"


async def test_rename_takes_a_confirmation_token(mosquitto: Any, sim: Simulator) -> None:
    """A rename that needs confirmation can be finished by a client that cannot ask."""
    async with connected(admin_settings(mosquitto, sim, confirm_devices="Kitchen Light")) as client:
        done = await confirmed(
            client, "rename_zwave_device", {"deviceName": "kitchen light", "newLocation": "Pantry"}
        )
    assert done.text == "Moved node 2: Kitchen Light is now in Pantry.", done.text
    assert sim.nodes[2]["loc"] == "Pantry"


# --- maintenance --------------------------------------------------------------------------------------


async def test_ping_refresh_health_and_rebuild(mosquitto: Any, sim: Simulator) -> None:
    async with connected(admin_settings(mosquitto, sim)) as client:
        ping = await call(
            client, "run_zwave_maintenance", {"operation": "ping", "deviceName": "kitchen light"}
        )
        assert ping.result["outcome"] == "answered" and ping.text == "Kitchen Light answered the ping."
        refresh = await call(
            client, "run_zwave_maintenance", {"operation": "refresh_values", "deviceName": "kitchen light"}
        )
        assert not refresh.is_error
        health = await call(
            client,
            "run_zwave_maintenance",
            {"operation": "check_lifeline", "deviceName": "kitchen light", "rounds": 2},
        )
        assert health.result["outcome"] == "done", health.text
        assert (
            health.result["job"]["result"]["rating"] == 9
            and len(health.result["job"]["result"]["rounds"]) == 2
        )
        assert "rating 9 of 10" in health.text and "no failed pings" in health.text
        route = await call(
            client,
            "run_zwave_maintenance",
            {"operation": "check_route", "deviceName": "kitchen light", "targetDevice": "living room lamp"},
        )
        assert route.result["job"]["result"]["targetNodeId"] == 3
        network = await confirmed(client, "run_zwave_maintenance", {"operation": "rebuild_routes"})
        assert network.result["outcome"] == "done" and "completed" in network.text, network.text
        jobs = await call(client, "get_zwave_job", {})
        assert [j["state"] for j in jobs.result["jobs"]] == ["done", "done", "done"]


async def test_reinterview_waits_for_the_interview(mosquitto: Any, sim: Simulator) -> None:
    async with connected(admin_settings(mosquitto, sim)) as client:
        answer = await confirmed(
            client, "run_zwave_maintenance", {"operation": "reinterview", "deviceName": "kitchen light"}
        )
    assert answer.result["outcome"] == "done" and "interview completed" in answer.text, answer.text


async def test_a_long_health_check_runs_in_the_background_and_can_be_cancelled(
    mosquitto: Any, simulator_factory: Callable[..., Simulator]
) -> None:
    slow = SimConfig.fast(timing=dataclasses.replace(SimConfig.fast().timing, health_round=0.5))
    sim = simulator_factory(config=slow)
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async with connected(admin_settings(mosquitto, sim)) as client:
        reply = await client.call_tool(
            "run_zwave_maintenance",
            {"operation": "check_lifeline", "deviceName": "kitchen light", "rounds": 10, "waitSeconds": 1.6},
            progress_callback=on_progress,
        )
        started = Answer(reply.content[0].text, bool(reply.is_error), reply.structured_content or {})  # type: ignore[union-attr]
        assert started.result["outcome"] == "running", started.text
        # MCP progress notifications while it ran: rounds of 10, with zwave-js-ui's own rating
        assert progress and progress[-1][1] == 10 and "last rating" in str(progress[-1][2]), progress
        job_id = started.result["job"]["jobId"]
        assert f"jobId {job_id}" in started.text
        status = await call(client, "get_zwave_job", {"jobId": job_id})
        assert status.result["jobs"][0]["state"] == "running"
        cancelled = await call(client, "cancel_zwave_job", {"jobId": job_id})
        assert cancelled.result["jobs"][0]["state"] == "cancelled", cancelled.text
    assert not sim.admin._health  # zwave-js-ui was told to abort


async def test_cancelling_a_job_that_needs_confirmation_takes_a_token(
    mosquitto: Any, simulator_factory: Callable[..., Simulator]
) -> None:
    """Every changing tool finishes a confirmation by token: cancelling a job on a device of the confirm
    list too (it had no confirmationToken, so a client that cannot ask could never cancel it)."""
    slow = SimConfig.fast(timing=dataclasses.replace(SimConfig.fast().timing, health_round=0.5))
    sim = simulator_factory(config=slow)
    args = {"operation": "check_lifeline", "deviceName": "kitchen light", "rounds": 10, "waitSeconds": 0}
    async with connected(admin_settings(mosquitto, sim, confirm_devices="Kitchen Light")) as client:
        started = await confirmed(client, "run_zwave_maintenance", args)
        assert started.result["outcome"] == "running", started.text
        cancelled = await confirmed(client, "cancel_zwave_job", {"jobId": started.result["job"]["jobId"]})
    assert cancelled.result["jobs"][0]["state"] == "cancelled", cancelled.text


async def test_a_checks_progress_is_its_own_and_only_increases(
    mosquitto: Any, simulator_factory: Callable[..., Simulator]
) -> None:
    """zwave-js-ui's controller status still tells the previous check's last round when the next one
    starts ("3/3 done"); a call's notices are its own rounds, each further than the one before."""
    # Rounds slower than the status polls (0.5 s), so the call sees several of its own rounds.
    slow = SimConfig.fast(timing=dataclasses.replace(SimConfig.fast().timing, health_round=0.6))
    sim = simulator_factory(config=slow)
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    args = {"operation": "check_lifeline", "deviceName": "kitchen light", "waitSeconds": 10}
    async with connected(admin_settings(mosquitto, sim)) as client:
        first = await call(client, "run_zwave_maintenance", {**args, "rounds": 4})
        assert first.result["outcome"] == "done", first.text
        assert sim.admin.cnt_status.startswith("Health check 2-->1: 4/4 done")
        reply = await client.call_tool(
            "run_zwave_maintenance", {**args, "rounds": 3}, progress_callback=on_progress
        )
        assert not reply.is_error and (reply.structured_content or {})["result"]["outcome"] == "done"
    assert len(progress) >= 2, progress
    assert all(total == 3 for _done, total, _message in progress), progress
    assert str(progress[0][2]).startswith("round 1 of 3"), progress
    assert all(a[0] < b[0] for a, b in itertools.pairwise(progress)), progress


# --- inclusion ----------------------------------------------------------------------------------------


def answering(device: NewDevice, asked: list[str], grant: bool = True) -> Any:
    """A person at the client: agrees to start, grants the security asked for, reads the PIN off the label."""

    async def elicit(_context: Any, params: Any) -> mcp_types.ElicitResult:
        asked.append(params.message)
        fields = set((params.requested_schema or {}).get("properties", {}))
        if "pin" in fields:
            return mcp_types.ElicitResult(action="accept", content={"pin": device.pin})
        if "grant" in fields:
            return mcp_types.ElicitResult(action="accept", content={"grant": grant})
        return mcp_types.ElicitResult(action="accept", content={"confirm": True})

    return elicit


async def test_s2_inclusion_with_the_pin_through_elicitation(
    mosquitto: Any, sim: Simulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="zwave_mcp.audit")
    device = sim.admin.press_button(NewDevice(name="Porch Motion", location="Porch"))
    asked: list[str] = []
    async with connected(
        admin_settings(mosquitto, sim), elicitation_callback=answering(device, asked), mode="legacy"
    ) as client:
        answer = await call(client, "start_zwave_inclusion", {"security": "s2", "waitSeconds": 8})
        assert answer.result["phase"] == "interview_completed", answer.text
        assert answer.result["security"] == "S2 authenticated" and answer.result["nodeId"] == 12
        assert (
            answer.text
            == "Porch Motion (node 12) joined the network with S2 authenticated security and is ready."
        )
        assert "S2 authenticated and S2 unauthenticated" in asked[1]
        assert device.dsk[5:] in asked[2]
        found = await call(client, "list_zwave_devices", {"filter": "porch motion"})
        assert [d["name"] for d in found.result["devices"]] == ["Porch Motion"]
    assert ("answer_zwave_inclusion", "enter_pin", "confirmed") in audit_lines(caplog)
    assert not shows_code(caplog.text, device.pin)  # the PIN is never logged


async def test_declining_the_security_question_adds_the_device_without_security(
    mosquitto: Any, sim: Simulator
) -> None:
    device = sim.admin.press_button(NewDevice(name="Shed Sensor", location="Shed"))
    asked: list[str] = []
    async with connected(
        admin_settings(mosquitto, sim),
        elicitation_callback=answering(device, asked, grant=False),
        mode="legacy",
    ) as client:
        answer = await call(client, "start_zwave_inclusion", {"waitSeconds": 8})
    assert answer.result["phase"] == "interview_completed" and answer.result["security"] == "none", (
        answer.text
    )
    assert "without security" in answer.text and not any("PIN" in a for a in asked)
    assert answer.text.startswith("Security downgrade: ") and "exclude it and include it again" in answer.text
    assert answer.result["securityDowngraded"] is True
    assert sim.nodes[12]["security"] == "None"


async def test_hidden_devices_cannot_be_cared_for(mosquitto: Any, sim: Simulator) -> None:
    async with connected(admin_settings(mosquitto, sim, hide="Kitchen Light")) as client:
        for tool, args in (
            ("get_zwave_node_details", {"deviceName": "kitchen light"}),
            ("rename_zwave_device", {"deviceName": "kitchen light", "newName": "X"}),
            ("run_zwave_maintenance", {"operation": "ping", "deviceName": "kitchen light"}),
        ):
            answer = await call(client, tool, args)
            assert answer.is_error and "Kitchen Light" not in answer.error, (tool, answer.text)
    assert sim.nodes[2]["name"] == "Kitchen Light"


async def test_s2_inclusion_two_step_without_elicitation(mosquitto: Any, sim: Simulator) -> None:
    device = sim.admin.press_button(NewDevice(name="Garage Sensor", location="Garage"))
    async with connected(admin_settings(mosquitto, sim)) as client:
        started = await confirmed(client, "start_zwave_inclusion", {"security": "s2", "waitSeconds": 5})
        assert started.result["pending"] == "grant", started.text
        assert started.result["requestedSecurity"] == ["S2 authenticated", "S2 unauthenticated"]
        status = await call(client, "get_zwave_inclusion_status", {})
        assert status.result["pending"] == "grant"
        pin_asked = await call(client, "answer_zwave_inclusion", {"grant": True, "waitSeconds": 5})
        assert pin_asked.result["pending"] == "pin" and pin_asked.result["partialDsk"] == device.dsk[5:]
        wrong_kind = await call(client, "answer_zwave_inclusion", {"grant": True})
        assert wrong_kind.is_error and "PIN" in wrong_kind.error
        done = await call(client, "answer_zwave_inclusion", {"pin": device.pin, "waitSeconds": 5})
        assert done.result["phase"] == "interview_completed" and done.result["security"] == "S2 authenticated"
        assert done.result["name"] == "Garage Sensor"
        params = await call(client, "list_zwave_config_parameters", {"deviceName": "garage sensor"})
        assert len(params.result["parameters"]) == 3


def full_width(digits: str) -> str:
    """Digits as a Japanese keyboard types them (U+FF10..U+FF19)."""
    return "".join(chr(0xFF10 + int(d)) for d in digits)


async def test_a_pin_typed_in_full_width_digits_secures_the_device(mosquitto: Any, sim: Simulator) -> None:
    device = sim.admin.press_button(NewDevice(name="Garage Sensor", location="Garage"))
    async with connected(admin_settings(mosquitto, sim)) as client:
        await confirmed(client, "start_zwave_inclusion", {"security": "s2", "waitSeconds": 5})
        await call(client, "answer_zwave_inclusion", {"grant": True, "waitSeconds": 5})
        done = await call(client, "answer_zwave_inclusion", {"pin": full_width(device.pin), "waitSeconds": 5})
    assert done.result["security"] == "S2 authenticated", done.text
    assert done.result["securityDowngraded"] is False and "downgrade" not in done.text
    assert sim.nodes[12]["security"] == "S2_Authenticated"


async def test_a_wrong_pin_is_said_as_a_security_downgrade(mosquitto: Any, sim: Simulator) -> None:
    device = sim.admin.press_button(NewDevice(name="Garage Sensor", location="Garage"))
    wrong = "0" * 5 if device.pin != "00000" else "11111"
    async with connected(admin_settings(mosquitto, sim)) as client:
        await confirmed(client, "start_zwave_inclusion", {"security": "s2", "waitSeconds": 5})
        await call(client, "answer_zwave_inclusion", {"grant": True, "waitSeconds": 5})
        refused = await call(client, "answer_zwave_inclusion", {"pin": "34a67"})
        assert refused.is_error and "5 digits (0-9)" in refused.error, refused.text
        done = await call(client, "answer_zwave_inclusion", {"pin": wrong, "waitSeconds": 5})
        status = await call(client, "get_zwave_inclusion_status", {})
    assert sim.nodes[12]["security"] == "None"  # the simulator, as zwave-js: S2 failed, no security
    for answer in (done, status):
        assert answer.result["phase"] == "interview_completed", answer.text
        assert answer.result["outcome"] == "security_downgraded" and answer.result["securityDowngraded"]
        assert answer.text == (
            "Security downgrade: Garage Sensor (node 12) joined the network without security, less than the "
            "S2 authenticated security it asked for (the secure set-up failed, as a wrong or missing PIN "
            "makes it); exclude it and include it again with the PIN from its label."
        )


async def test_a_pin_never_entered_is_said_as_a_security_downgrade(
    mosquitto: Any, simulator_factory: Callable[..., Simulator]
) -> None:
    fast = SimConfig.fast()
    sim = simulator_factory(config=SimConfig.fast(timing=dataclasses.replace(fast.timing, pin_timeout=0.3)))
    sim.admin.press_button(NewDevice(name="Garage Sensor", location="Garage"))
    async with connected(admin_settings(mosquitto, sim)) as client:
        await confirmed(client, "start_zwave_inclusion", {"security": "s2", "waitSeconds": 5})
        asked = await call(client, "answer_zwave_inclusion", {"grant": True, "waitSeconds": 0})
        assert asked.result["pending"] == "pin", asked.text  # … and nobody reads the label
        done = await wait_for_answer(
            client,
            "get_zwave_inclusion_status",
            {},
            lambda a: a.result["phase"] == "interview_completed",
        )
    assert done.result["securityDowngraded"] is True and done.text.startswith("Security downgrade: "), (
        done.text
    )
    assert "exclude it and include it again" in done.text


async def test_s0_inclusion_asks_nothing_more(mosquitto: Any, sim: Simulator) -> None:
    sim.admin.press_button(NewDevice(name="Old Lock", location="Shed", requested=[7]))
    async with connected(admin_settings(mosquitto, sim)) as client:
        done = await confirmed(client, "start_zwave_inclusion", {"security": "s0", "waitSeconds": 5})
    assert done.result["phase"] == "interview_completed" and done.result["security"] == "S0 legacy", done.text
    assert done.result["pending"] is None


async def test_smart_start_provisioning_from_a_qr_code(mosquitto: Any, sim: Simulator) -> None:
    device = NewDevice(name="x", dsk="22222-33333-44444-55555-66666-77777-88888-99999")
    async with connected(admin_settings(mosquitto, sim)) as client:
        answer = await confirmed(
            client,
            "provision_zwave_device",
            {"qrCode": make_qr(device.dsk, [1]), "name": "Attic Sensor", "location": "Attic"},
        )
        assert answer.result["outcome"] == "provisioned" and "S2 authenticated" in answer.text
        sim.admin.press_button(device)
        await eventually(lambda: 12 in sim.nodes and sim.nodes[12].get("ready"), what="SmartStart join")
        status = await call(client, "get_zwave_inclusion_status", {})
        assert status.result["phase"] in ("node_added", "interview_completed")
        bad = await call(client, "provision_zwave_device", {"qrCode": "90" + "0" * 60})
        assert bad.is_error and "could not read that QR code" in bad.error


async def test_exclusion_and_failed_nodes(mosquitto: Any, sim: Simulator) -> None:
    async with connected(admin_settings(mosquitto, sim)) as client:
        sim.admin.press_button_to_leave(2)
        left = await confirmed(client, "start_zwave_exclusion", {"waitSeconds": 5})
        assert (
            left.result["phase"] == "node_removed"
            and left.text == "Kitchen Light was removed from the network."
        )
        not_failed = await call(client, "remove_failed_zwave_node", {"deviceName": "living room lamp"})
        assert not_failed.is_error and "has not failed" in not_failed.error
        sim.kill_node(3)
        removed = await confirmed(client, "remove_failed_zwave_node", {"deviceName": "living room lamp"})
        assert removed.result["outcome"] == "removed" and 3 not in sim.nodes
        sim.kill_node(8)
        newcomer = sim.admin.press_button(NewDevice(name="New Plug", location="Kitchen", requested=[0]))
        replaced = await confirmed(client, "replace_failed_zwave_node", {"deviceName": "coffee maker plug"})
        assert replaced.result["pending"] == "grant", replaced.text
        done = await call(client, "answer_zwave_inclusion", {"grant": True, "waitSeconds": 5})
        assert done.result["phase"] == "interview_completed" and done.result["nodeId"] == 8, done.text
        assert sim.nodes[8]["name"] == newcomer.name
        stopped = await call(client, "stop_zwave_inclusion", {})
        assert stopped.result["outcome"] == "nothing_to_stop"


async def test_inclusion_stops_at_its_time_limit(
    mosquitto: Any, simulator_factory: Callable[..., Simulator]
) -> None:
    # zwave-js-ui's own limit (commandsTimeout) far away: what stops it is ours.
    patient = SimConfig.fast(timing=dataclasses.replace(SimConfig.fast().timing, inclusion_timeout=60.0))
    sim = simulator_factory(config=patient)
    async with connected(admin_settings(mosquitto, sim)) as client:
        started = await confirmed(client, "start_zwave_inclusion", {"timeoutSeconds": 5, "waitSeconds": 0})
        assert started.result["phase"] == "including"
        assert sim.admin.inclusion_state == 1
        ended = await call(client, "get_zwave_inclusion_status", {})
        assert ended.result["phase"] == "including"
        await eventually(lambda: sim.admin.inclusion_state == 0, timeout=8, what="the time limit")
        # The simulator has stopped; its event reaches the server's value lane a moment later.
        await wait_for_answer(
            client, "get_zwave_inclusion_status", {}, lambda a: a.result["phase"] == "stopped"
        )
        again = await call(client, "stop_zwave_inclusion", {})
        assert again.result["outcome"] == "nothing_to_stop"


# --- read-only and audit ----------------------------------------------------------------------------------

CHANGES: dict[str, dict[str, Any]] = {
    "set_zwave_config_parameter": {"deviceName": "bedroom color bulb", "parameter": 3, "value": 0},
    "rename_zwave_device": {"deviceName": "kitchen light", "newName": "X"},
    "change_zwave_association": {"deviceName": "kitchen light", "action": "add", "targetDevice": "bulb"},
    "run_zwave_maintenance": {"operation": "ping", "deviceName": "kitchen light"},
    "cancel_zwave_job": {"jobId": "job-1"},
    "start_zwave_inclusion": {},
    "answer_zwave_inclusion": {"pin": "12345"},
    "stop_zwave_inclusion": {},
    "start_zwave_exclusion": {},
    "provision_zwave_device": {"qrCode": make_qr("11111-22222-33333-44444-55555-66666-77777-88888", [1])},
    "remove_failed_zwave_node": {"deviceName": "kitchen light"},
    "replace_failed_zwave_node": {"deviceName": "kitchen light"},
    "update_zwave_firmware": {"deviceName": "kitchen light"},
}


async def test_every_change_is_refused_in_read_only_mode_and_audited(
    mosquitto: Any,
    sim: Simulator,
    caplog: pytest.LogCaptureFixture,
    collector: Callable[[str], MessageCollector],
) -> None:
    assert set(CHANGES) == ADMIN_TOOLS - READ_TOOLS
    caplog.set_level(logging.INFO, logger="zwave_mcp.audit")
    traffic = collector("#")
    async with connected(admin_settings(mosquitto, sim, read_only=True)) as client:
        traffic.clear()
        for tool, args in CHANGES.items():
            answer = await call(client, tool, args)
            assert answer.is_error and "read-only mode" in answer.error, (tool, answer.text)
    lines = audit_lines(caplog)
    assert [line[0] for line in lines] == list(CHANGES) and {line[2] for line in lines} == {"refused"}
    # Only zwave-js-ui's changing APIs count: the start-up load's getInfo/getNodes may still be on its way.
    assert not [m.topic for m in traffic.snapshot() if m.topic.endswith("/set") and _names_a_write(m.topic)]


async def test_admin_changes_are_audited_with_their_outcome(
    mosquitto: Any, sim: Simulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="zwave_mcp.audit")
    async with connected(admin_settings(mosquitto, sim)) as client:
        await call(client, "rename_zwave_device", {"deviceName": "kitchen light", "newName": "Pantry Light"})
        await confirmed(client, "start_zwave_exclusion", {"waitSeconds": 0})
        await call(client, "stop_zwave_inclusion", {})
    assert audit_lines(caplog) == [
        ("rename_zwave_device", "rename", "confirmed"),
        ("start_zwave_exclusion", "start_exclusion", "needs_confirmation"),
        ("start_zwave_exclusion", "start_exclusion", "confirmed"),
        ("stop_zwave_inclusion", "stop_exclusion", "confirmed"),
    ]


async def test_dry_run_shows_the_admin_call_and_sends_nothing(mosquitto: Any, sim: Simulator) -> None:
    async with connected(admin_settings(mosquitto, sim, dry_run=True)) as client:
        answer = await call(
            client, "rename_zwave_device", {"deviceName": "kitchen light", "newName": "Pantry"}
        )
    assert answer.result["outcome"] == "dry_run" and sim.nodes[2]["name"] == "Kitchen Light"
    (message,) = answer.result["wouldSend"]
    assert message["topic"].endswith("/api/setNodeName/set") and message["payload"]["args"] == [2, "Pantry"]


def _names_a_write(topic: str) -> bool:
    from tests.unit.test_only_the_gate_writes import WRITE_APIS

    return bool(WRITE_APIS.match(topic.rsplit("/", 2)[-2]))
