"""Firmware updates (issue 45 item 2), the pure parts and the update job with an injected clock: the
service's answer read and said, the refusals, the choice of version, the events list's steps, and the job's
outcome from zwave-js's result and the version read back."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from zwave_mcp.devices.model import Device
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.admin import AdminApiFailed, AdminRequest
from zwave_mcp.gateway.firmware import (
    CHANGELOG_MAX,
    FirmwareApi,
    parse_updates,
    plain_changelog,
    service_reason,
)
from zwave_mcp.gateway.firmware_events import (
    FINISHED_EVENT,
    PROGRESS_EVENT,
    firmware_event,
    firmware_phrase,
    result_words,
)
from zwave_mcp.gateway.model import InventoryEvent, ZNode
from zwave_mcp.gateway.nodes import parse_value
from zwave_mcp.network import firmware
from zwave_mcp.network.jobs import Job, Jobs
from zwave_mcp.simulator import house
from zwave_mcp.simulator.firmware import HANDLERS, UNREACHABLE_ALL, Firmware, offered
from zwave_mcp.zwave.classes import CC

GE_UPDATE = {
    "version": "5.29",
    "changelog": "1. Fixed scene actuator and scene activation\n2. Modified the dimming duration",
    "channel": "stable",
    "files": [{"target": 0, "url": "https://example.invalid/5.29.hex", "integrity": "sha256:00"}],
    "downgrade": False,
    "normalizedVersion": "5.29.0",
    "device": {"manufacturerId": 99, "productType": 18756, "productId": 12344, "firmwareVersion": "5.26"},
}


def device(
    status: str = "Alive", battery: int | None = None, sleeping: bool = False, version: str = "5.26"
) -> Device:
    node = ZNode(
        id=20, name="Hallway Dimmer", status=status, is_listening=not sleeping, firmware_version=version
    )
    if battery is not None or sleeping:
        raw = {"commandClass": int(CC.BATTERY), "endpoint": 0, "property": "level", "value": battery}
        value = parse_value(cast(Any, raw), node.id)
        assert value is not None
        node.values[value.value_id] = value
    return Device(
        key="20", node_id=20, endpoint=None, name="Hallway Dimmer", location="Hallway", kind=None,
        capabilities=(), node=node,
    )  # fmt: skip


def test_the_services_answer_is_read_and_its_changelog_made_plain_and_short() -> None:
    [update] = parse_updates([GE_UPDATE, {"version": "6.0", "files": []}, "junk", {"files": [{}]}])
    assert (update.version, update.from_version, update.files, update.downgrade) == ("5.29", "5.26", 1, False)
    assert update.changelog == "Fixed scene actuator and scene activation; Modified the dimming duration"
    assert update.raw is GE_UPDATE  # sent back to zwave-js as it came
    linked = plain_changelog(
        "* Fixed bugs by [someone](https://example.invalid)\n* Added \u202eother things."
    )
    assert linked == "Fixed bugs by someone; Added other things"
    assert len(plain_changelog("x" * 5000)) <= CHANGELOG_MAX
    assert plain_changelog(None) == ""


def test_a_service_out_of_reach_is_said_in_few_words() -> None:
    # What the real test bed's zwave-js-ui 11.22.2 (zwave-js 15.29, its fetch blocked) answered.
    bed = (
        "Cannot check for firmware updates for node 2: Cannot check for firmware updates: fetch failed: "
        "outbound network disabled by realgw (firmware.zwave-js.io) (ZW0261)"
    )
    assert service_reason(bed) == "fetch failed: outbound network disabled by realgw (firmware.zwave-js.io)"
    assert service_reason("Node 99 was not found! (ZW0211)") == "Node 99 was not found!"


def test_zwave_js_results_are_said_in_words() -> None:
    assert result_words({"status": 255, "success": True, "reInterview": True}) == (
        True,
        "succeeded and the device restarts",
    )
    assert result_words({"status": 1, "success": False, "reInterview": False}) == (
        False,
        "failed: the transfer failed or was aborted",
    )
    assert result_words({"status": 42, "success": False}) == (False, "failed (status 42)")
    assert result_words(None) == (None, "ended without zwave-js saying how")


def test_the_events_list_hears_an_update_every_ten_percent_and_its_end() -> None:
    steps: dict[int, int] = {}
    summary = {"id": 20}
    heard = [
        firmware_event(20, PROGRESS_EVENT, [summary, {"progress": p}], steps)
        for p in (0.4, 3.0, 10.2, 15.0, 99.9, "bad", float("nan"))
    ]
    told = [e.new for e in heard if e is not None]
    assert told == [{"progress": 0}, {"progress": 10}, {"progress": 90}]
    end = firmware_event(20, FINISHED_EVENT, [summary, {"status": 255, "success": True}], steps)
    assert end is not None and end.new == {"finished": "succeeded and the device restarts", "success": True}
    assert steps == {}  # the next update starts again at 0
    assert firmware_event(20, "node_value_updated", [summary], steps) is None
    assert firmware_phrase({"progress": 40}) == "received 40 % of its firmware update"
    assert firmware_phrase(end.new) == "finished its firmware update, which succeeded and the device restarts"


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"status": "Dead"}, "Hallway Dimmer is not responding"),
        ({"sleeping": True, "battery": 90, "status": "Asleep"}, "Hallway Dimmer is asleep"),
        ({"battery": 49}, "battery is at 49 %; a firmware update needs at least 50 %"),
        ({"sleeping": True, "battery": None, "status": "Awake"}, "has not reported its battery level"),
    ],
)
def test_a_device_that_could_not_finish_the_transfer_is_refused_with_what_to_do(
    kwargs: dict[str, Any], said: str
) -> None:
    problem = firmware.refusal(device(**kwargs), None)
    assert problem is not None and said in problem and problem.endswith("Nothing was sent.")


def test_a_device_that_says_it_cannot_take_firmware_is_refused_before_anything_else() -> None:
    dead_and_stuck = device(status="Dead", battery=10)
    dead_and_stuck.node.details["firmwareCapabilities"] = {"firmwareUpgradable": False}
    assert firmware.refusal(dead_and_stuck, None) == (
        "Hallway Dimmer says its firmware cannot be updated over Z-Wave. Nothing was sent."
    )


def test_a_device_that_can_take_an_update_and_one_update_at_a_time() -> None:
    assert firmware.refusal(device(), None) is None
    assert firmware.refusal(device(battery=50), None) is None
    assert firmware.refusal(device(sleeping=True, battery=80, status="Awake"), None) is None
    running = Job(id="job-7", operation=firmware.OPERATION, target="Porch Switch")
    problem = firmware.refusal(device(), running)
    assert problem is not None and "already running on this network (Porch Switch, job-7)" in problem
    jobs = Jobs()
    jobs._jobs["job-7"] = running
    assert firmware.running_update(jobs) is running
    running.state = "done"
    assert firmware.running_update(jobs) is None


def test_the_power_an_update_needs() -> None:
    assert firmware.power_of(device().node) == firmware.Power(on_mains=True, needs_awake=False, battery=None)
    assert firmware.power_of(device(battery=70).node) == firmware.Power(False, False, 70)
    assert firmware.power_words(firmware.power_of(device(sleeping=True, battery=70).node)) == (
        "it must be woken and kept awake for the transfer"
    )


def test_the_version_is_the_one_asked_for_else_the_newest_that_is_not_older() -> None:
    older = {**GE_UPDATE, "version": "5.20", "downgrade": True}
    newer = {**GE_UPDATE, "version": "5.30"}
    updates = parse_updates([older, GE_UPDATE, newer])
    assert firmware.pick(updates, None, device()).version == "5.30"
    assert firmware.pick(updates, "5.29.0", device()).version == "5.29"
    assert firmware.pick(updates, "5.20", device()).version == "5.20"  # a downgrade only when named
    with pytest.raises(UserError, match=r"no update to version '6\.1' on offer; the firmware service offers"):
        firmware.pick(updates, "6.1", device())
    with pytest.raises(UserError, match="only older firmware"):
        firmware.pick(parse_updates([older]), None, device())
    assert firmware.version_key("5.29") == (5, 29, 0) and firmware.version_key("v1.2.3-beta") == (1, 2, 3)


# ---- the job, with a gateway that answers as zwave-js-ui does and an injected clock -------------------
class FakeInventory:
    def __init__(self, node: ZNode) -> None:
        self.nodes = {node.id: node}
        self.listeners: list[Any] = []

    def node(self, node_id: int) -> ZNode | None:
        return self.nodes.get(node_id)

    def add_listener(self, cb: Any) -> Any:
        self.listeners.append(cb)
        return lambda: self.listeners.remove(cb)


class FakeGateway:
    def __init__(self, node: ZNode, restarted_at: float | None) -> None:
        self.inventory = FakeInventory(node)
        self.restarted_at = restarted_at  # the clock's time the device reports its new version
        self.now = 0.0
        self.resyncs = 0

    def clock(self) -> float:
        self.now += 1.0  # every look at the clock is a second later: no real waiting
        if self.restarted_at is not None and self.now >= self.restarted_at:
            node = self.inventory.nodes[20]
            node.firmware_version = "5.29"
        return self.now

    def resync(self) -> None:
        self.resyncs += 1


def run_job(result: Any, restarted_at: float | None, fails: str | None = None) -> tuple[Job, FakeGateway]:
    dimmer = device()
    gateway = FakeGateway(dimmer.node, restarted_at)
    api = FirmwareApi(cast(Any, gateway))
    [update] = parse_updates([GE_UPDATE])

    async def send() -> Any:
        for listener in list(gateway.inventory.listeners):  # zwave-js-ui's events while it sends
            for step in (0, 10, 50, 100):
                listener(InventoryEvent("firmware", 20, None, None, {"progress": step}))
        if fails:
            raise AdminApiFailed(fails)
        return result

    request = AdminRequest("firmwareUpdateOTA", [20, {"version": "5.29"}], send)
    work = firmware.update_work(api, request, dimmer, update, read_back_s=60, poll_s=0, clock=gateway.clock)
    job = Job(id="job-1", operation=firmware.OPERATION, target="Hallway Dimmer")
    seen: list[float | None] = []
    original = job.report

    def report(progress: float | None, total: float | None, message: str | None) -> None:
        original(progress, total, message)
        seen.append(job.progress)

    job.report = report  # type: ignore[method-assign]
    try:
        job.message, job.result = asyncio.run(work(job))
        job.state = "done"
    except UserError as exc:
        job.state, job.message = "failed", str(exc)
    job.result = {**(job.result or {}), "seen": seen}
    return job, gateway


def test_a_successful_update_is_read_back_from_the_device() -> None:
    job, gateway = run_job({"status": 255, "success": True, "reInterview": True}, restarted_at=25)
    assert (
        job.message
        == "the update succeeded and the device restarts; Hallway Dimmer now reports firmware 5.29"
    )
    assert job.result is not None and job.result["firmwareVersion"] == "5.29"
    assert job.result["seen"][:4] == [0.0, 0.0, 10.0, 50.0] and job.result["seen"][-1] == 100.0
    assert gateway.resyncs >= 1  # zwave-js-ui's nodes were read again while waiting
    assert gateway.inventory.listeners == []  # the job stops listening when it ends


def test_a_success_the_device_does_not_show_is_said_as_such() -> None:
    job, _ = run_job({"status": 255, "success": True, "reInterview": True}, restarted_at=None)
    assert job.message is not None and job.message.startswith(
        "zwave-js says the update succeeded and the device restarts, but Hallway Dimmer still reports firmware 5.26"
    )


def test_a_failed_or_refused_update_says_zwave_js_words() -> None:
    job, _ = run_job({"status": 0, "success": False, "reInterview": False}, restarted_at=None)
    assert job.message == (
        "the update failed: the device found a checksum error; Hallway Dimmer still runs firmware 5.26"
    )
    refused, _ = run_job(None, None, fails="Firmware update already in progress")
    assert refused.state == "failed"
    assert refused.message == "zwave-js-ui did not update Hallway Dimmer: Firmware update already in progress"


def test_the_simulated_service_leaves_out_the_current_version_and_marks_downgrades() -> None:
    [dimmer] = house.hallway_dimmer()
    assert [(u["version"], u["downgrade"], u["normalizedVersion"]) for u in offered(dimmer)] == [
        ("5.29", False, "5.29.0")
    ]
    dimmer["firmwareVersion"] = "5.29"
    assert [(u["version"], u["downgrade"]) for u in offered(dimmer)] == [("5.26", True)]
    assert offered({**dimmer, "manufacturerId": 0xFFF0}) == []


def test_the_simulated_service_out_of_reach_fails_every_device_s_check_too() -> None:
    class Sim:
        firmware = Firmware(cast(Any, None))

    answers: list[dict[str, Any]] = []
    check_all = HANDLERS["getAllAvailableFirmwareUpdates"]
    check_all(Sim(), [], lambda result=None, **kw: answers.append({"result": result, **kw}))
    Sim.firmware.service_reachable = False
    check_all(Sim(), [], lambda result=None, **kw: answers.append({"result": result, **kw}))
    assert answers == [
        {"result": {}, "delay": 0.3},  # zwave-js's Map, as zwave-js-ui's JSON says it
        {"result": None, "error": UNREACHABLE_ALL, "delay": 0.3},
    ]
