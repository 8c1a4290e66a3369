"""Issue 45 item 2 end to end: firmware updates on the simulator (played as zwave-js-ui 11.22.2 and
zwave-js 15 do: `getAvailableFirmwareUpdates`, `firmwareUpdateOTA` answering at the end, the
`node_firmware_update_progress` / `_finished` events, the re-interview with the new version), over a real
Mosquitto.

The device with an update on offer is the demo house's Hallway Dimmer, a real GE 14294 (its node dump in
`fixtures/devices/`, firmware 5.26), and the update is what zwave-js's firmware service offers it: 5.29."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.integration.mcp_harness import call, connected, eventually, settings_for
from zwave_mcp.simulator import Simulator, house
from zwave_mcp.zwave.classes import CC

pytestmark = pytest.mark.integration

DIMMER_ID, LOCK_ID, SENSOR_ID = 20, 5, 4
UPDATE = {"deviceName": "hallway dimmer"}
# zwave-js's FirmwareUpdateCapabilities of a device that can take new firmware.
UPGRADABLE = {
    "firmwareUpgradable": True,
    "firmwareTargets": [0],
    "continuesToFunction": True,
    "supportsActivation": False,
    "supportsResuming": False,
    "supportsNonSecureTransfer": False,
}


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    sim = simulator_factory(house=house.CAPTURED_WITH_LOCKS)
    sim.firmware.step_s = 0.05  # a tenth of the transfer; a real one takes minutes
    return sim


def admin(mosquitto: Any, sim: Simulator, **extra: Any) -> Any:
    return settings_for(mosquitto, sim, admin=True, **extra)


def set_battery(sim: Simulator, node_id: int, level: int) -> None:
    node = sim.nodes[node_id]
    value = next(
        v for v in node["values"].values() if v["commandClass"] == CC.BATTERY and v["property"] == "level"
    )
    sim.set_value(node, value, level)


async def test_an_update_is_listed_with_what_changed_and_the_power_it_needs(
    mosquitto: Any, sim: Simulator
) -> None:
    async with connected(admin(mosquitto, sim)) as client:
        one = await call(client, "list_zwave_firmware_updates", UPDATE)
        every = await call(client, "list_zwave_firmware_updates", {})
        none = await call(client, "list_zwave_firmware_updates", {"deviceName": "kitchen light"})
    assert one.text == (
        "There is a firmware update for Hallway Dimmer from 5.26 to 5.29 (on mains; what changed: Fixed scene "
        "actuator and scene activation and 1 more change)."
    ), one.text
    [dimmer] = one.result["devices"]
    assert dimmer["updates"] == [
        {
            "version": "5.29",
            "changelog": "Fixed scene actuator and scene activation; Modified the dimming duration for Command "
            "Class Switch_Multilevel_Set",
            "channel": "stable",
            "downgrade": False,
            "files": 1,
        }
    ]
    assert dimmer["onMains"] is True and dimmer["needsAwake"] is False
    assert every.result["serviceReached"] is True
    offered = [d["device"] for d in every.result["devices"] if d["updates"]]
    assert offered == ["Hallway Dimmer"], every.text
    assert every.text.startswith("1 device of "), every.text
    sleeper = next(d for d in every.result["devices"] if d["nodeId"] == SENSOR_ID)
    assert sleeper["needsAwake"] is True and sleeper["onMains"] is False
    assert none.text == "The firmware service has no update for Kitchen Light."


async def test_a_firmware_service_out_of_reach_is_said_as_such(mosquitto: Any, sim: Simulator) -> None:
    sim.firmware.service_reachable = False
    async with connected(admin(mosquitto, sim)) as client:
        listed = await call(client, "list_zwave_firmware_updates", {})
        update = await call(client, "update_zwave_firmware", UPDATE)
    assert listed.result["serviceReached"] is False
    assert listed.text == (
        "zwave-js-ui could not reach zwave-js's firmware service (fetch failed), so no update can be listed."
    ), listed.text
    dimmer = next(d for d in listed.result["devices"] if d["nodeId"] == DIMMER_ID)
    assert dimmer["updates"] == [] and "not checked" in dimmer["problem"]
    assert update.is_error and update.error == (
        "zwave-js-ui could not ask the firmware service about Hallway Dimmer (fetch failed). Nothing was sent."
    ), update.error
    assert sim.nodes[DIMMER_ID]["firmwareVersion"] == "5.26"


async def test_low_battery_asleep_and_dead_devices_are_refused_with_what_to_do(
    mosquitto: Any, sim: Simulator
) -> None:
    set_battery(sim, LOCK_ID, 30)
    for node_id in (LOCK_ID, SENSOR_ID):  # the mock's devices say they cannot take firmware; these two can
        sim.nodes[node_id]["firmwareCapabilities"] = UPGRADABLE
    async with connected(admin(mosquitto, sim)) as client:
        low = await call(client, "update_zwave_firmware", {"deviceName": "front door lock"})
        kitchen = await call(client, "update_zwave_firmware", {"deviceName": "kitchen light"})
        asleep = await call(client, "update_zwave_firmware", {"deviceName": "bedroom sensor"})
        sim.nodes[DIMMER_ID]["status"] = "Dead"
        sim.publish_status(sim.nodes[DIMMER_ID])
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            dead = await call(client, "update_zwave_firmware", UPDATE)
            if dead.is_error and "not responding" in dead.error:
                break
            await asyncio.sleep(0.05)
    assert low.is_error and low.error.endswith(
        "Front Door Lock's battery is at 30 %; a firmware update needs at least 50 %: replace or charge the "
        "battery and ask again. Nothing was sent."
    ), low.error
    assert asleep.is_error and "Bedroom Sensor is asleep; a firmware update needs it awake" in asleep.error
    # As every device of zwave-js's mock stick says (its firmwareCapabilities), and the test bed's too.
    assert kitchen.is_error and kitchen.error == (
        "Kitchen Light says its firmware cannot be updated over Z-Wave. Nothing was sent."
    )
    assert dead.is_error and "Hallway Dimmer is not responding" in dead.error
    assert sim.nodes[DIMMER_ID]["firmwareVersion"] == "5.26"


async def test_an_update_runs_with_the_yes_and_progress_and_the_new_version_is_read_back(
    mosquitto: Any, sim: Simulator
) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async with connected(admin(mosquitto, sim)) as client:
        asked = await call(client, "update_zwave_firmware", UPDATE)
        token = asked.result["confirmationToken"]
        result = await client.call_tool(
            "update_zwave_firmware",
            {**UPDATE, "confirmationToken": token, "waitSeconds": 20},
            progress_callback=on_progress,
        )
        envelope = result.structured_content or {}
        assert not result.is_error, envelope
        done = envelope["result"]
        details = await call(client, "get_zwave_node_details", UPDATE)
        events = await call(client, "get_recent_events", {"deviceName": "hallway dimmer", "minutes": 5})
        again = await call(client, "list_zwave_firmware_updates", UPDATE)
    # The question names the device and both versions.
    assert asked.result["outcome"] == "needs_confirmation"
    assert "update the firmware of Hallway Dimmer from 5.26 to 5.29" in asked.text, asked.text
    assert done["outcome"] == "done", done
    assert done["summary"] == (
        "Firmware update of Hallway Dimmer: the update succeeded and the device restarts; Hallway Dimmer now "
        "reports firmware 5.29."
    ), done
    assert done["job"]["result"]["result"] == {
        "success": True,
        "status": 255,
        "waitTime": 5,
        "reInterview": True,
    }
    assert done["job"]["result"]["firmwareVersion"] == "5.29"
    # MCP progress notifications while it ran, each further than the last.
    assert [p[0] for p in progress] == sorted({p[0] for p in progress}), progress
    assert progress[0][0] == 0 and progress[-1][0] == 100 and len(progress) >= 5, progress
    assert "firmware 5.29" in details.text
    said = [e["what"] for e in events.result["events"]]
    assert "finished its firmware update, which succeeded and the device restarts" in said, said
    assert "received 50 % of its firmware update" in said, said
    # The service now offers the version it came from, as a downgrade: not an update.
    assert again.text == "The firmware service has no update for Hallway Dimmer (only older firmware: 5.26)."
    assert sim.nodes[DIMMER_ID]["firmwareVersion"] == "5.29"


async def test_an_update_that_keeps_running_answers_with_its_job_and_can_be_aborted(
    mosquitto: Any, sim: Simulator
) -> None:
    sim.firmware.step_s = 1.0  # ten seconds in all
    async with connected(admin(mosquitto, sim)) as client:
        asked = await call(client, "update_zwave_firmware", UPDATE)
        token = asked.result["confirmationToken"]
        running = await call(
            client, "update_zwave_firmware", {**UPDATE, "confirmationToken": token, "waitSeconds": 0.5}
        )
        second = await call(client, "update_zwave_firmware", {"deviceName": "front door lock"})
        job_id = running.result["job"]["jobId"]
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # followed with get_zwave_job while it runs
            followed = await call(client, "get_zwave_job", {"jobId": job_id})
            if (followed.result["jobs"][0]["progress"] or 0) >= 10:
                break
            await asyncio.sleep(0.1)
        cancel = await call(client, "cancel_zwave_job", {"jobId": job_id})
        if cancel.result.get("outcome") == "needs_confirmation":
            cancel = await call(
                client,
                "cancel_zwave_job",
                {"jobId": job_id, "confirmationToken": cancel.result["confirmationToken"]},
            )
        events = await call(client, "get_recent_events", {"deviceName": "hallway dimmer", "minutes": 5})
    assert running.result["outcome"] == "running", running.text
    assert running.text.startswith("Firmware update of Hallway Dimmer is still running"), running.text
    assert f"jobId {job_id}" in running.text
    assert second.is_error and "A firmware update is already running on this network" in second.error
    assert followed.result["jobs"][0]["state"] == "running" and "% sent" in followed.text, followed.text
    assert cancel.result["outcome"] != "needs_confirmation" and "Cancelled" in cancel.text, cancel.text
    await eventually(lambda: "firmwareUpdate" not in sim.nodes[DIMMER_ID], what="the update to stop")
    said = [e["what"] for e in events.result["events"]]
    assert "finished its firmware update, which failed: the transfer failed or was aborted" in said, said
    assert sim.nodes[DIMMER_ID]["firmwareVersion"] == "5.26"


async def test_updates_are_refused_in_read_only_mode_and_for_hidden_or_denied_devices(
    mosquitto: Any, sim: Simulator
) -> None:
    async with connected(admin(mosquitto, sim, read_only=True)) as client:
        listed = await call(client, "list_zwave_firmware_updates", UPDATE)
        read_only = await call(client, "update_zwave_firmware", UPDATE)
    async with connected(admin(mosquitto, sim, hide="Hallway Dimmer")) as client:
        hidden = await call(client, "update_zwave_firmware", UPDATE)
        every = await call(client, "list_zwave_firmware_updates", {})
    async with connected(admin(mosquitto, sim, deny="Hallway Dimmer")) as client:
        denied = await call(client, "update_zwave_firmware", UPDATE)
    assert "5.29" in listed.text  # reading what is on offer changes nothing
    assert read_only.is_error and "read-only" in read_only.error.lower(), read_only.error
    assert hidden.is_error and "Hallway Dimmer" not in every.text
    assert all(d["nodeId"] != DIMMER_ID for d in every.result["devices"])
    assert denied.is_error, denied.text
    assert sim.nodes[DIMMER_ID]["firmwareVersion"] == "5.26"
    assert "firmwareUpdate" not in sim.nodes[DIMMER_ID]


async def test_a_dry_run_shows_the_update_and_one_audit_line_is_left_per_attempt(
    mosquitto: Any, sim: Simulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="zwave_mcp.audit")
    async with connected(admin(mosquitto, sim, dry_run=True)) as client:
        asked = await call(client, "update_zwave_firmware", UPDATE)
        shown = await call(
            client,
            "update_zwave_firmware",
            {**UPDATE, "confirmationToken": asked.result["confirmationToken"]},
        )
    assert shown.result["outcome"] == "dry_run", shown.text
    (message,) = shown.result["wouldSend"]
    assert message["topic"].endswith("/api/firmwareUpdateOTA/set")
    assert message["payload"]["args"] == [DIMMER_ID, {"version": "5.29"}]  # no download address in it
    audit = [(r.tool, r.action, r.outcome) for r in caplog.records if r.name == "zwave_mcp.audit"]  # type: ignore[attr-defined]
    assert audit == [
        ("update_zwave_firmware", "firmware_update", "needs_confirmation"),
        ("update_zwave_firmware", "firmware_update", "dry_run"),
    ]
    assert sim.nodes[DIMMER_ID]["firmwareVersion"] == "5.26" and "firmwareUpdate" not in sim.nodes[DIMMER_ID]


async def test_the_porch_switch_is_its_node_for_its_firmware(mosquitto: Any, sim: Simulator) -> None:
    """Issue 45's own "update the porch switch": the name fits both halves of the Porch Double Switch, one
    node with one firmware, and was answered "'porch switch' matches 2 devices … Say which one."."""
    async with connected(admin(mosquitto, sim)) as client:
        listed = await call(client, "list_zwave_firmware_updates", {"deviceName": "porch switch"})
        update = await call(client, "update_zwave_firmware", {"deviceName": "the porch switch"})
        lamp = await call(client, "update_zwave_firmware", {"deviceName": "lamp"})
    assert listed.text == "The firmware service has no update for Porch Double Switch.", listed.text
    assert update.is_error and update.error.startswith("Porch Double Switch "), update.error
    assert "Say which one" not in update.error
    # A name that fits several nodes is still a question.
    assert lamp.is_error and "Say which one" in lamp.error
