"""Issue 45 item 1 end to end: direct associations in people's words, on the demo house (`captured+locks`)
whose Garage Motion, Porch Double Switch and Hallway Dimmer have real devices' association groups, over a
real Mosquitto, with the simulator answering getAssociations, checkAssociation, addAssociations and
removeAssociations as zwave-js-ui 11.22.2 does.

A motion sensor is made to switch a light by names and the association is read back; the lifeline is
not removed without the person's yes; a lock as the target needs a yes too; a full group, a target that
takes no commands and a wrong group are refused before anything is sent; read-only mode and a hidden or
denied device refuse the change."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import MessageCollector
from tests.integration.mcp_harness import call, connected, eventually, settings_for
from zwave_mcp.simulator import Simulator, api, house

pytestmark = pytest.mark.integration

MOTION, LIGHT, SWITCH, LAMP, REMOTE = 7, 2, 11, 3, 21
ADD = {"deviceName": "garage motion", "action": "add", "targetDevice": "kitchen light"}


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(house=house.CAPTURED_WITH_LOCKS)


def admin(mosquitto: Any, sim: Simulator, **extra: Any) -> Any:
    return settings_for(mosquitto, sim, admin=True, **extra)


def held(sim: Simulator, node_id: int, group: int) -> list[dict[str, int]]:
    """What the simulated device's group holds now."""
    with sim._lock:
        return list(sim.associations.get(node_id, {}).get((0, group), []))


def sent(traffic: MessageCollector, api: str, count: int) -> list[Any]:
    """The `api` requests the collector has heard, once it has heard `count` of them: a '#' subscriber can
    hear a request after the call it belongs to has been answered (seen on a loaded CI machine)."""
    ending = f"/api/{api}/set"
    heard = 0

    def the_last_expected(message: Any) -> bool:
        nonlocal heard
        heard += message.topic.endswith(ending)
        return heard >= count

    traffic.wait_for(the_last_expected, what=f"{count} {api} request(s)")
    return [m for m in traffic.snapshot() if m.topic.endswith(ending)]


async def test_a_motion_sensor_is_made_to_switch_a_light_by_names_and_read_back(
    mosquitto: Any, sim: Simulator, collector: Callable[[str], MessageCollector]
) -> None:
    traffic = collector(f"{sim.config.prefix}/#")
    async with connected(admin(mosquitto, sim)) as client:
        before = await call(client, "list_zwave_associations", {"deviceName": "garage motion"})
        added = await call(client, "change_zwave_association", ADD)
        after = await call(client, "list_zwave_associations", {"deviceName": "garage motion"})
        again = await call(client, "change_zwave_association", ADD)
    assert before.text == ("On Garage Motion, Lifeline reports to zwave-mcp; PIR Control controls nothing.")
    # No yes asked: a light switched by a motion sensor opens, unlocks or silences nothing.
    assert added.result["outcome"] == "confirmed", added.text
    assert added.text == (
        "Garage Motion's PIR Control now controls Kitchen Light; read back from the device: "
        "PIR Control controls Kitchen Light."
    )
    assert added.result["readBack"] == ["PIR Control controls Kitchen Light"]
    assert held(sim, MOTION, 2) == [{"nodeId": LIGHT}]
    assert after.text == (
        "On Garage Motion, Lifeline reports to zwave-mcp; PIR Control controls Kitchen Light."
    )
    assert again.result["outcome"] == "unchanged" and "already controls Kitchen Light" in again.text
    [request] = [m.json() for m in sent(traffic, "addAssociations", 1)]
    assert request["args"] == [{"nodeId": MOTION}, 2, [{"nodeId": LIGHT}]]


async def test_a_group_is_chosen_by_its_label_and_a_device_stops_controlling(
    mosquitto: Any, sim: Simulator
) -> None:
    add = {"deviceName": "porch double switch", "action": "add", "targetDevice": "living room lamp"}
    async with connected(admin(mosquitto, sim)) as client:
        wrong = await call(client, "change_zwave_association", {**add, "group": "double tap"})
        added = await call(client, "change_zwave_association", {**add, "group": "on/off control"})
        what = await call(client, "list_zwave_associations", {"deviceName": "porch double switch"})
        stopped = await call(
            client,
            "change_zwave_association",
            {"deviceName": "porch double switch", "action": "remove", "targetDevice": "living room lamp"},
        )
    assert wrong.is_error and "'Lifeline' or 'On/Off Control'" in wrong.error
    assert "Nothing was sent." in wrong.error
    assert added.result["outcome"] == "confirmed", added.text
    assert "Lifeline reports to zwave-mcp; On/Off Control controls Living Room Lamp" in what.text
    assert stopped.result["outcome"] == "confirmed", stopped.text
    assert stopped.text == (
        "Porch Double Switch's On/Off Control no longer controls Living Room Lamp; read back from the "
        "device: On/Off Control controls nothing."
    )
    assert held(sim, SWITCH, 2) == []


async def test_the_lifeline_is_not_removed_without_the_persons_yes(mosquitto: Any, sim: Simulator) -> None:
    remove = {"deviceName": "garage motion", "action": "remove", "group": "lifeline"}
    async with connected(admin(mosquitto, sim)) as client:
        asked = await call(client, "change_zwave_association", remove)
        assert asked.result["outcome"] == "needs_confirmation", asked.text
        assert "would stop reporting to zwave-mcp" in asked.text
        assert held(sim, MOTION, 1) == [{"nodeId": 1}]  # nothing sent before the yes
        removed = await call(
            client,
            "change_zwave_association",
            {**remove, "confirmationToken": asked.result["confirmationToken"]},
        )
    assert removed.result["outcome"] == "confirmed", removed.text
    assert removed.text.startswith("Garage Motion's Lifeline no longer reports to zwave-mcp")
    assert held(sim, MOTION, 1) == []


async def test_a_lock_as_the_target_needs_the_yes_and_checks_come_first(
    mosquitto: Any, sim: Simulator, collector: Callable[[str], MessageCollector]
) -> None:
    traffic = collector(f"{sim.config.prefix}/#")
    async with connected(admin(mosquitto, sim)) as client:
        lock = await call(
            client,
            "change_zwave_association",
            {**ADD, "targetDevice": "front door lock"},
        )
        sensor = await call(client, "change_zwave_association", {**ADD, "targetDevice": "bedroom sensor"})
        for target in ("living room lamp", "coffee maker plug", "bedroom color bulb", "hallway dimmer"):
            done = await call(client, "change_zwave_association", {**ADD, "targetDevice": target})
            assert done.result["outcome"] == "confirmed", done.text
        full = await call(client, "change_zwave_association", ADD)
    assert lock.result["outcome"] == "needs_confirmation", lock.text
    assert "which lets another device unlock it by itself" in lock.text
    assert sensor.is_error and "takes no on/off or level commands" in sensor.error
    # PIR Control holds 4 (the ZSE29's config file): a fifth is refused before anything is sent.
    assert full.is_error and "already controls 4 of the 4 it can hold" in full.error
    assert len(held(sim, MOTION, 2)) == 4
    assert len(sent(traffic, "addAssociations", 4)) == 4


async def test_associations_in_read_only_mode_and_for_a_hidden_or_denied_device(
    mosquitto: Any, sim: Simulator
) -> None:
    async with connected(admin(mosquitto, sim, read_only=True)) as client:
        listed = await call(client, "list_zwave_associations", {"deviceName": "garage motion"})
        refused = await call(client, "change_zwave_association", ADD)
    assert "PIR Control" in listed.text
    assert refused.is_error, refused.text
    async with connected(admin(mosquitto, sim, hide="Kitchen Light")) as client:
        hidden = await call(client, "change_zwave_association", ADD)
    assert hidden.is_error and "Kitchen Light" not in hidden.error
    async with connected(admin(mosquitto, sim, deny="Garage Motion")) as client:
        denied = await call(client, "change_zwave_association", ADD)
    assert denied.is_error, denied.text
    # Said once: it was "Refused to let …: it would let Garage Motion's PIR Control control Kitchen Light, but …".
    assert denied.error == (
        "Refused to let Garage Motion's PIR Control control Kitchen Light: the policy makes this device "
        "read-only ('Garage Motion' is on the deny list, ZWAVE_MCP_DENY); you can still read its state."
    )
    async with connected(admin(mosquitto, sim, deny="Kitchen Light")) as client:
        target_denied = await call(client, "change_zwave_association", ADD)
    assert target_denied.is_error and "Kitchen Light' is on the deny list" in target_denied.error
    assert held(sim, MOTION, 2) == []


async def test_dry_run_shows_the_call_and_a_removal_the_device_ignored_is_not_claimed(
    mosquitto: Any, sim: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with connected(admin(mosquitto, sim, dry_run=True)) as client:
        dry = await call(client, "change_zwave_association", ADD)
    assert dry.result["outcome"] == "dry_run", dry.text
    (message,) = dry.result["wouldSend"]
    assert message["topic"].endswith("/api/addAssociations/set")
    assert message["payload"]["args"] == [{"nodeId": MOTION}, 2, [{"nodeId": LIGHT}]]
    assert held(sim, MOTION, 2) == []
    # zwave-js-ui answers removeAssociations with success whatever happened: only the read-back tells.
    monkeypatch.setitem(api.HANDLERS, "removeAssociations", lambda sim, args, respond: respond())
    remove = {"deviceName": "garage motion", "action": "remove", "targetDevice": "kitchen light"}
    async with connected(admin(mosquitto, sim)) as client:
        await call(client, "change_zwave_association", ADD)
        ignored = await call(client, "change_zwave_association", remove)
    assert ignored.result["outcome"] == "unconfirmed", ignored.text
    assert ignored.text == (
        "The change was sent to Garage Motion, but the associations read back do not show it: "
        "PIR Control controls Kitchen Light."
    )
    assert held(sim, MOTION, 2) == [{"nodeId": LIGHT}]


async def test_the_remote_is_asleep_so_a_change_waits_for_it_to_wake_up(
    mosquitto: Any, sim: Simulator
) -> None:
    remote = {
        "deviceName": "hallway remote",
        "group": "button 1 (basic set)",
        "targetDevice": "living room lamp",
    }
    async with connected(admin(mosquitto, sim)) as client:
        groups = await call(client, "list_zwave_associations", {"deviceName": "hallway remote"})
        queued = await call(client, "change_zwave_association", {**remote, "action": "add"})
        assert held(sim, REMOTE, 2) == [] and sim.pending_writes(REMOTE) == 1
        sim.wake_up(REMOTE)
        assert held(sim, REMOTE, 2) == [{"nodeId": LAMP}]
        # It stays awake for a moment after its queue went out: a removal sent then would be taken at once
        # (on the embedded broker it was), so the removal starts once it sleeps again.
        await eventually(lambda: sim.nodes[REMOTE].get("status") == "Asleep", what="the remote asleep again")
        stopped = asyncio.create_task(
            call(client, "change_zwave_association", {**remote, "action": "remove"})
        )
        await eventually(lambda: sim.pending_writes(REMOTE) == 1, what="the removal queued for the remote")
        sim.wake_up(REMOTE)  # it wakes while zwave-js-ui still waits: the answer comes, and the read-back
        answer = await stopped
    assert (
        groups.text == "On Hallway Remote, Lifeline reports to zwave-mcp; its other 8 groups control nothing."
    )
    assert [g["label"] for g in groups.result["groups"]][1:3] == [
        "Button 1 (Basic Set)",
        "Button 1 (Multilevel)",
    ]
    assert queued.result["outcome"] == "queued", queued.text
    assert queued.text == (
        "Hallway Remote is asleep, so it takes the change when it next wakes up (a press of its button wakes "
        "most battery devices), and list_zwave_associations then shows it; for now, Button 1 (Basic Set) "
        "controls nothing."
    )
    assert answer.result["outcome"] == "confirmed", answer.text
    assert answer.text == (
        "Hallway Remote's Button 1 (Basic Set) no longer controls Living Room Lamp; read back from the device: "
        "Button 1 (Basic Set) controls nothing."
    )
    assert held(sim, REMOTE, 2) == []


async def test_the_parts_of_a_double_switch_as_targets(mosquitto: Any, sim: Simulator) -> None:
    async with connected(admin(mosquitto, sim)) as client:
        main = await call(client, "change_zwave_association", {**ADD, "targetDevice": "porch double switch"})
        second = await call(
            client, "change_zwave_association", {**ADD, "targetDevice": "porch double switch 2"}
        )
        itself = await call(
            client,
            "change_zwave_association",
            {"deviceName": "porch double switch", "action": "add", "targetDevice": "porch double switch 2"},
        )
    # The node's main part is the node to a group of nodes; its second part only a multi channel group reaches.
    assert main.result["outcome"] == "confirmed", main.text
    assert main.result["readBack"] == ["PIR Control controls Porch Double Switch"]
    assert held(sim, MOTION, 2) == [{"nodeId": SWITCH}]
    assert second.is_error and "PIR Control can only control whole devices" in second.error
    # zwave-js's own check (checkAssociation) refuses a device controlling itself before anything is sent.
    assert itself.is_error and "a device cannot control itself. Nothing was sent." in itself.error
    assert held(sim, SWITCH, 2) == []


async def test_the_porch_switch_is_its_node_though_the_name_fits_both_halves(
    mosquitto: Any, sim: Simulator
) -> None:
    """Issue 45's own "what does the porch switch control?": the name fits both halves of the Porch Double
    Switch (its node, whose groups both share), and was answered "'porch switch' matches 2 devices … Say which
    one." Associations belong to the node; a name that fits parts of one node with the same groups is it."""
    add = {"deviceName": "porch switch", "action": "add", "targetDevice": "living room lamp"}
    async with connected(admin(mosquitto, sim)) as client:
        before = await call(client, "list_zwave_associations", {"deviceName": "the porch switch"})
        added = await call(client, "change_zwave_association", add)
        removed = await call(client, "change_zwave_association", {**add, "action": "remove"})
        lamp = await call(client, "list_zwave_associations", {"deviceName": "lamp"})
    assert (
        before.text
        == "On Porch Double Switch, Lifeline reports to zwave-mcp; On/Off Control controls nothing."
    )
    assert added.result["outcome"] == "confirmed", added.text
    assert held(sim, SWITCH, 2) == []  # taken away again by the second call
    assert removed.result["outcome"] == "confirmed", removed.text
    assert "Porch Double Switch's On/Off Control no longer controls Living Room Lamp" in removed.text
    # Parts of different nodes stay a question: 'lamp' fits three devices.
    assert lamp.is_error and "matches" in lamp.error and "Say which one" in lamp.error
