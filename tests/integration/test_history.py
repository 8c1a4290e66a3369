"""History on Mosquitto + the simulator: changes made, the server restarted, the same questions answered
from the store; a meter reset inside a period; a damaged or locked file; the hide policy; charts."""

from __future__ import annotations

import copy
import json
import sqlite3
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.integration.mcp_harness import Answer, call, connected, settings_for, wait_for_answer
from zwave_mcp.simulator import FAST, Simulator, capture_config
from zwave_mcp.simulator.simulator import rebase_times
from zwave_mcp.zwave.wire import value_key

pytestmark = pytest.mark.integration

CONTROL = "control_zwave_device"
KWH = value_key(50, 0, "value", 65537)
DAY_MS = 86_400_000
WALLMOTE = Path(__file__).resolve().parents[2] / "fixtures" / "devices" / "wallmote_central_scene_state.json"
RELAYS = Path(__file__).resolve().parents[2] / "fixtures" / "devices" / "relay_mtlc_zwn_rsm2_state.json"


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    # The house's own reports a day old (a simulator dates them to its start): the last hour then holds
    # only what each test does.
    sim = simulator_factory(config=capture_config("a", timing=FAST, periodic=False), start=False)
    rebase_times(list(sim.nodes.values()), int(time.time() * 1000) - DAY_MS)
    sim.start()
    return sim


@pytest.fixture
def store_file(tmp_path: Path) -> Path:
    return tmp_path / "state" / "history.sqlite3"


def settings(mosquitto: Any, sim: Simulator, path: Path | str, **extra: Any) -> Any:
    return settings_for(mosquitto, sim, history_path=str(path), **extra)


async def lock_and_unlock(client: Any) -> None:
    locked = await call(client, CONTROL, {"deviceName": "front door", "action": "lock"})
    assert locked.outcome == "confirmed", locked.text
    asked = await call(client, CONTROL, {"deviceName": "front door", "action": "unlock"})
    token = asked.result["confirmationToken"]
    unlocked = await call(
        client, CONTROL, {"deviceName": "front door", "action": "unlock", "confirmationToken": token}
    )
    assert unlocked.outcome == "confirmed", unlocked.text


async def test_history_survives_a_restart(mosquitto: Any, sim: Simulator, store_file: Path) -> None:
    async with connected(settings(mosquitto, sim, store_file)) as client:
        await lock_and_unlock(client)
        first = await call(client, "get_device_history", {"deviceName": "front door", "period": "last hour"})
        last_unlock = await call(client, "get_last_event", {"deviceName": "front door", "state": "unlocked"})
        locks = await call(client, "get_device_history", {"kind": "lock", "period": "last hour"})
        entry = await call(client, "get_last_event", {"room": "entry"})
    assert not first.is_error, first.text
    assert locks.text.startswith("Front Door Lock was locked at "), locks.text  # the one lock, by name
    assert {e["device"] for e in locks.result["events"]} == {"Front Door Lock"}
    assert entry.result["found"] and entry.result["event"]["device"] == "Front Door Lock", entry.text
    lock_events = [e for e in first.result["events"] if e["source"] == "value"]
    assert [e["state"] for e in lock_events][-2:] == ["locked", "unlocked"], first.result["events"]
    assert (
        "Front Door Lock" in first.text and "was locked at" in first.text and "was unlocked at" in first.text
    )
    commands = [e for e in first.result["events"] if e["source"] == "command"]
    assert {(e["what"]) for e in commands} >= {
        "was told to lock, and it was confirmed",
        "was told to unlock, and it was confirmed",
    }
    assert last_unlock.result["found"] is True, last_unlock.text
    assert last_unlock.text.startswith("The last time Front Door Lock was unlocked was at ")
    assert store_file.exists()

    # A new server on the same file (the broker re-publishes every retained value): same answers,
    # no duplicates.
    async with connected(settings(mosquitto, sim, store_file)) as client:
        again = await call(client, "get_device_history", {"deviceName": "front door", "period": "last hour"})
        last_again = await call(client, "get_last_event", {"deviceName": "front door", "state": "unlocked"})
        locked_last = await call(client, "get_last_event", {"deviceName": "front door", "state": "locked"})
    assert again.result["events"] == first.result["events"]
    assert last_again.result["event"] == last_unlock.result["event"]
    assert locked_last.result["found"] is True
    at = datetime.fromisoformat(again.result["events"][0]["at"])
    assert at.utcoffset() is not None, "structured times carry their offset"


async def test_the_gates_attempts_are_said_in_words(mosquitto: Any, sim: Simulator, store_file: Path) -> None:
    """Each attempt in a device's history is a spoken sentence, not the gate's labels ("was told to on
    (confirmed)"); when nothing else happened to the device, the answer says it."""
    async with connected(settings(mosquitto, sim, store_file)) as client:
        on = await call(client, CONTROL, {"deviceName": "kitchen light", "action": "on"})
        again = await call(
            client, CONTROL, {"deviceName": "front door", "action": "unlock"}
        )  # it is unlocked
        light = await call(
            client, "get_device_history", {"deviceName": "kitchen light", "period": "last hour"}
        )
        door = await call(client, "get_device_history", {"deviceName": "front door", "period": "last hour"})
    assert on.outcome == "confirmed" and again.outcome == "unchanged", (on.text, again.text)
    told = [(e["device"], e["what"]) for e in light.result["events"] if e["source"] == "command"]
    assert told == [("Kitchen Light", "was told to turn on, and it was confirmed")], light.result["events"]
    assert [e["what"] for e in door.result["events"]] == [
        "was not told to unlock, as it was already as asked"
    ]
    assert door.text.startswith("Front Door Lock was not told to unlock, as it was already as asked at "), (
        door.text
    )
    assert door.text.count(".") == 1 and door.text.endswith("."), door.text


async def test_one_motion_is_one_event_and_the_latest_come_first(
    mosquitto: Any, sim: Simulator, store_file: Path
) -> None:
    """Issue 43 items 11 and 14: a motion sensor reports one motion by its Notification and by its Binary
    Sensor value, which the history told as two ("detected motion at 19:43, detected motion at 19:43, …");
    and "the latest:" listed the oldest of the latest first."""
    motion = sim.nodes[7]
    notification = motion["values"][value_key(113, 0, "Home Security", "Motion sensor status")]
    sensor = motion["values"][value_key(48, 0, "Motion")]
    lamp = sim.nodes[3]["values"][value_key(38, 0, "currentValue")]
    async with connected(settings(mosquitto, sim, store_file)) as client:
        for new in ((8, True), (0, False)):
            sim.set_value(motion, notification, new[0])
            sim.set_value(motion, sensor, new[1])
            await anyio.sleep(0.3)
        for level in (10, 20, 30, 40, 50, 60, 70):
            sim.set_value(sim.nodes[3], lamp, level)
            await anyio.sleep(0.05)
        await anyio.sleep(0.3)
        garage = await call(
            client, "get_device_history", {"deviceName": "garage motion", "period": "last hour"}
        )
        lamp_history = await call(
            client, "get_device_history", {"deviceName": "living room lamp", "period": "last hour"}
        )
    told = [e["what"] for e in garage.result["events"]]
    assert told == ["detected motion", "stopped sensing motion"], garage.result["events"]
    assert garage.text.startswith("Garage Motion detected motion at "), garage.text
    assert "; the latest: was set to 70 % at " in lamp_history.text, lamp_history.text
    said = lamp_history.text.split("the latest: ")[1]
    assert said.index("70 %") < said.index("60 %") < said.index("50 %"), said


async def test_energy_across_a_meter_reset(mosquitto: Any, sim: Simulator, store_file: Path) -> None:
    plug = sim.nodes[8]
    meter = plug["values"][KWH]
    async with connected(settings(mosquitto, sim, store_file)) as client:
        start = datetime.now().astimezone()
        time.sleep(0.01)
        for reading in (13.0, 13.5, 0.0, 0.4):  # +0.66, +0.5, reset, +0.4 after the reset
            sim.set_value(plug, meter, reading)
            time.sleep(0.02)
        await _until_stored(client, 4)
        used = await call(
            client, "get_energy_usage", {"deviceName": "coffee maker", "period": f"since {start.isoformat()}"}
        )
        today = await call(client, "get_energy_usage", {"deviceName": "coffee maker"})
        house = await call(client, "get_energy_usage", {"period": "today"})
    assert not used.is_error, used.text
    device = used.result["devices"][0]
    # The first reading's span began long before `start`, so almost none of its 0.66 kWh counts.
    assert device["kWh"] == pytest.approx(0.9, abs=0.01), used.result
    assert device["resets"] == 1
    assert "Coffee Maker Plug used 0.90 kWh since" in used.text and "reset once" in used.text
    assert today.text.startswith("Coffee Maker Plug used ") and "in the last 7 days" in today.text
    assert house.result["totalKWh"] == today.result["totalKWh"]
    assert house.text.startswith("The house used ")


async def _until_stored(client: Any, count: int) -> None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        answer = await call(
            client, "get_device_history", {"deviceName": "coffee maker", "period": "last hour"}
        )
        kwh = [r for r in answer.result["readings"] if r["unit"] == "kWh"]
        if kwh and kwh[0]["count"] >= count:
            return
        await anyio.sleep(0.05)  # not time.sleep: the server storing the readings runs on this loop
    raise AssertionError(f"the meter readings were not stored: {answer.result}")


async def test_a_damaged_file_leaves_live_tools_working(
    mosquitto: Any, sim: Simulator, store_file: Path
) -> None:
    store_file.parent.mkdir(parents=True)
    store_file.write_bytes(b"this is not a database, just text that happens to sit here\n" * 200)
    async with connected(settings(mosquitto, sim, store_file)) as client:
        devices = await call(client, "list_zwave_devices")
        history = await call(client, "get_device_history", {"deviceName": "front door"})
        energy = await call(client, "get_energy_usage", {})
        control = await call(client, CONTROL, {"deviceName": "kitchen light", "action": "on"})
    assert not devices.is_error and devices.result["devices"]
    assert control.outcome == "confirmed", control.text
    for answer in (history, energy):
        assert answer.is_error
        assert answer.error.startswith("History cannot answer: the history file is damaged"), answer.error
        assert "Traceback" not in answer.error and "Live readings and controls still work" in answer.error
    assert store_file.read_bytes().startswith(b"this is not a database"), "the file is left for the person"


async def test_a_locked_file_says_so(mosquitto: Any, sim: Simulator, store_file: Path) -> None:
    store_file.parent.mkdir(parents=True)
    holder = sqlite3.connect(store_file, isolation_level=None)
    holder.execute("CREATE TABLE other(x)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        async with connected(settings(mosquitto, sim, store_file)) as client:
            history = await call(client, "get_battery_report", {})
            live = await call(client, "get_device_sensor_data", {"deviceName": "garage motion"})
    finally:
        holder.close()
    assert history.is_error and "locked by another program" in history.error, history.text
    assert not live.is_error, live.text


async def test_hidden_devices_stay_hidden(mosquitto: Any, sim: Simulator, store_file: Path) -> None:
    async with connected(settings(mosquitto, sim, store_file, hide="Front Door Lock")) as client:
        named = await call(client, "get_device_history", {"deviceName": "front door lock"})
        house = await call(client, "get_device_history", {"period": "last 7 days", "limit": 500})
        batteries = await call(client, "get_battery_report", {})
    assert named.is_error and "No device named" in named.error
    assert all(e["deviceKey"] != "5" for e in house.result["events"]), house.result["events"]
    assert "Front Door Lock" not in house.text
    assert "Front Door Lock" not in {b["device"] for b in batteries.result["batteries"]}
    assert {b["device"] for b in batteries.result["batteries"]} == {"Bedroom Sensor", "Garage Motion"}
    with sqlite3.connect(store_file) as conn:  # not even kept in the file
        assert conn.execute("SELECT count(*) FROM series WHERE node = 5").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM series WHERE node = 8").fetchone()[0] > 0


async def test_a_change_during_a_broker_outage_is_recorded(
    mosquitto: Any, sim: Simulator, store_file: Path
) -> None:
    if not mosquitto.is_mosquitto:
        pytest.skip("needs Mosquitto (the embedded broker cannot restart)")
    light = sim.nodes[2]
    current = light["values"][value_key(37, 0, "currentValue")]
    house = {"period": "last 7 days", "limit": 500}
    async with connected(settings(mosquitto, sim, store_file)) as client:
        before = await call(client, "get_last_event", {"deviceName": "kitchen light", "state": "on"})
        events_before = (await call(client, "get_device_history", house)).result["events"]
        mosquitto.kill()
        try:
            sim.set_value(light, current, True)  # published into the void: nobody hears it
        finally:
            mosquitto.start()
        # The server reconnects, reloads the house, and finds the new value with the device's own time.
        after = await wait_for_answer(
            client,
            "get_last_event",
            {"deviceName": "kitchen light", "state": "on"},
            lambda a: not a.is_error and a.result["found"],
            timeout=30,
        )
        events_after = (await call(client, "get_device_history", house)).result["events"]
    assert before.result["found"] is False, before.text
    # The broker re-published every retained value: nothing new but the one real change.
    new = [e for e in events_after if e not in events_before]
    assert [(e["device"], e["what"]) for e in new] == [("Kitchen Light", "was turned on")], new
    assert len(events_after) == len(events_before) + 1
    assert after.result["event"]["at"] == _iso_ms(current["lastUpdate"])


def _iso_ms(at_ms: int) -> str:
    return datetime.fromtimestamp(at_ms / 1000).astimezone().isoformat(timespec="seconds")


async def test_bad_period_gets_examples(mosquitto: Any, sim: Simulator, store_file: Path) -> None:
    async with connected(settings(mosquitto, sim, store_file)) as client:
        answer = await call(
            client, "get_device_history", {"deviceName": "front door", "period": "fortnight ago-ish"}
        )
    assert answer.is_error
    assert answer.error.startswith("I cannot read the period 'fortnight ago-ish'. Try 'last hour'")


async def test_far_dates_get_a_sentence_never_an_exception(
    mosquitto: Any, sim: Simulator, store_file: Path
) -> None:
    year = datetime.now().astimezone().year
    async with connected(settings(mosquitto, sim, store_file)) as client:
        answers = {
            (tool, period): await call(client, tool, {"deviceName": "coffee maker", "period": period})
            for tool in ("get_device_history", "get_energy_usage")
            for period in (f"{year - 1}-01-01/9999-12-31", "0001-01-01T00:00:00+14:00")
        }
    for (tool, period), answer in answers.items():
        assert "unexpectedly" not in answer.text, (tool, period, answer.text)
        if period.startswith("0001"):
            assert answer.is_error and answer.error.startswith(
                f"The period '{period}' is outside the times history can hold, from 1 Jan 1970 up to now."
            ), (tool, answer.text)
        else:  # cut at now, and said so, with the year that is not this one
            assert not answer.is_error, (tool, answer.text)
            assert answer.result["period"]["words"] == f"between 1 Jan {year - 1} 00:00 and now"


async def test_two_homes_on_one_store_each_answer_only_their_own(
    mosquitto: Any, sim: Simulator, simulator_factory: Callable[..., Simulator], store_file: Path
) -> None:
    """The default store is shared by every zwave-mcp of the user: two gateways, two homes (the same
    captured house, so the same node ids and value ids), one file."""
    other = simulator_factory(config=capture_config("a", timing=FAST, periodic=False, home_id=0x7E570002))
    assert sim.config.home_id != other.config.home_id
    async with (
        connected(settings(mosquitto, sim, store_file)) as home,
        connected(settings(mosquitto, other, store_file)) as elsewhere,
    ):
        on = await call(home, CONTROL, {"deviceName": "kitchen light", "action": "on"})
        assert on.outcome == "confirmed", on.text
        ours = await call(home, "get_device_history", {"deviceName": "kitchen light", "period": "last hour"})
        theirs = await call(
            elsewhere, "get_device_history", {"deviceName": "kitchen light", "period": "last hour"}
        )
        their_last_on = await call(
            elsewhere, "get_last_event", {"deviceName": "kitchen light", "state": "on"}
        )
        their_house = await call(elsewhere, "get_device_history", {"period": "last hour", "limit": 500})
    assert other.nodes[2]["values"]["37-0-currentValue"]["value"] is False  # nothing changed over there
    assert ("value", "was turned on") in [(e["source"], e["what"]) for e in ours.result["events"]], ours.text
    assert any(e["source"] == "command" for e in ours.result["events"]), ours.text
    for answer in (theirs, their_house):
        assert not [
            e for e in answer.result["events"] if e["state"] == "on" and e["device"] == "Kitchen Light"
        ]
        assert not [e for e in answer.result["events"] if e["source"] == "command"], answer.text
    assert their_last_on.result["found"] is False, their_last_on.text
    with sqlite3.connect(store_file) as db:
        homes = {h for (h,) in db.execute("SELECT DISTINCT home FROM series")}
    assert homes == {"0x7e570001", "0x7e570002"}


async def test_batteries_and_silence(mosquitto: Any, sim: Simulator, store_file: Path) -> None:
    async with connected(settings(mosquitto, sim, store_file)) as client:
        fresh = await call(client, "get_battery_report", {"silentHours": 24 * 365})
        strict = await call(
            client, "get_battery_report", {"deviceName": "garage motion", "silentHours": 0.0001}
        )
    levels = {b["device"]: b["level"] for b in fresh.result["batteries"]}
    assert levels == {"Bedroom Sensor": 87, "Front Door Lock": 64, "Garage Motion": 100}
    assert fresh.result["silent"] == []
    assert fresh.text.startswith("Batteries: Front Door Lock 64 %")
    assert strict.result["silent"] == ["Garage Motion"]
    assert "Garage Motion has not reported for" in strict.text


async def test_charts_are_png_image_content(mosquitto: Any, sim: Simulator, store_file: Path) -> None:
    pytest.importorskip("matplotlib")
    async with connected(settings(mosquitto, sim, store_file)) as client:
        reply = await client.call_tool("get_energy_usage", {"deviceName": "coffee maker", "chart": True})
        plain = await client.call_tool("get_energy_usage", {"deviceName": "coffee maker"})
    kinds = [c.type for c in reply.content]
    assert kinds == ["text", "image"], reply.content
    image = reply.content[1]
    assert image.mime_type == "image/png"
    assert reply.structured_content["result"]["chart"] == "attached"
    assert [c.type for c in plain.content] == ["text"]


async def test_history_chart_and_a_missing_plotting_library(
    mosquitto: Any, sim: Simulator, store_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("matplotlib")
    args = {"deviceName": "bedroom sensor", "period": "last 7 days", "chart": True}
    async with connected(settings(mosquitto, sim, store_file)) as client:
        drawn = await client.call_tool("get_device_history", args)
        for module in ("matplotlib.figure", "matplotlib.backends.backend_agg"):
            monkeypatch.setitem(sys.modules, module, None)  # as if the charts extra were not installed
        missing = await client.call_tool("get_device_history", args)
    assert [c.type for c in drawn.content] == ["text", "image"]
    assert [c.type for c in missing.content] == ["text"]
    assert not missing.is_error
    text = missing.content[0].text
    assert "Bedroom Sensor reported" in text
    assert text.endswith("No chart: charts need matplotlib: install zwave-mcp[charts].")
    assert (
        missing.structured_content["result"]["chart"] == "charts need matplotlib: install zwave-mcp[charts]"
    )


async def test_history_off(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings(mosquitto, sim, "off")) as client:
        answer = await call(client, "get_device_history", {"deviceName": "front door"})
    assert answer.is_error and "history is turned off" in answer.error


async def test_device_history_resource(mosquitto: Any, sim: Simulator, store_file: Path) -> None:
    async with connected(settings(mosquitto, sim, store_file, hide="Kitchen Light")) as client:
        await call(client, CONTROL, {"deviceName": "coffee maker", "action": "on"})
        read = await client.read_resource("zwave://devices/8/history")
        with pytest.raises(Exception, match="No device with key '2'"):
            await client.read_resource("zwave://devices/2/history")
        device = await client.read_resource("zwave://devices/8")
    body = json.loads(read.contents[0].text)
    assert body["summary"].startswith("Coffee Maker Plug was turned on at ")
    assert body["period"]["words"] == "in the last 24 hours"
    assert "device" in json.loads(device.contents[0].text), "the device resource is still itself"


def presses(answer: Answer) -> int:
    """The button presses among recent events. The remote's own status (not heard from yet, asleep) may
    come in as events too: whether it does depends on when its status message arrives against the load."""
    return sum(event.get("button") is not None for event in answer.result["events"])


async def test_the_last_button_pressed(
    mosquitto: Any, simulator_factory: Callable[..., Simulator], store_file: Path
) -> None:
    """A WallMote Quad (a real node dump) in the house wakes, then a press on button 2, held, then the same
    press again, as zwave-js-ui sends them (unretained value topic and `node_value_updated`); the last-event
    and recent-event answers say which button and how it was pressed, and both presses are in the history
    among the remote's status events."""
    from zwave_mcp.simulator.dumps import load_house_file
    from zwave_mcp.simulator.house import captured_house

    remote = next(n for n in load_house_file(WALLMOTE) if not n.get("isControllerNode"))
    remote.update(name="WallMote", loc="Living Room")
    house = [n for n in captured_house() if n["id"] != remote["id"]] + [remote]
    sim = simulator_factory(config=capture_config("a", timing=FAST, periodic=False), house=house)
    node = sim.nodes[remote["id"]]
    button_2 = node["values"][value_key(91, 0, "scene", "002")]
    button_2["stateless"] = True  # as zwave-js-ui marks it once a press came
    async with connected(settings(mosquitto, sim, store_file)) as client:
        nothing = await call(client, "get_last_event", {"state": "pressed"})
        node["status"] = "Awake"  # a hand on a button wakes the remote: its status is news too
        sim.publish_status(node)
        await wait_for_answer(
            client, "get_recent_events", {"deviceName": "wallmote"}, lambda a: "woke up" in a.text
        )
        sim.set_value(node, button_2, 2)
        await wait_for_answer(
            client, "get_recent_events", {"deviceName": "wallmote"}, lambda a: presses(a) == 1
        )
        sim.set_value(node, button_2, 2)  # held again (a moment later, as a hand does)
        recent = await wait_for_answer(
            client, "get_recent_events", {"deviceName": "wallmote"}, lambda a: presses(a) >= 2
        )
        last = await wait_for_answer(
            client, "get_last_event", {"state": "pressed"}, lambda a: a.result["found"] is True
        )
        history = await call(client, "get_device_history", {"deviceName": "wallmote", "period": "last hour"})
    assert nothing.result["found"] is False, nothing.text
    assert last.text.startswith("Button 2 on WallMote was held at "), last.text
    assert (last.result["event"]["button"], last.result["event"]["press"]) == (2, "held")
    pressed = [
        (e["what"], e["button"], e["press"]) for e in recent.result["events"] if e.get("button") is not None
    ]
    assert pressed == [("button 2 was held", 2, "held")] * 2, recent.text
    assert "WallMote button 2 was held" in recent.text
    held = [e for e in history.result["events"] if e["state"] == "pressed"]
    assert len(held) == 2, history.result["events"]


async def test_a_hidden_part_stays_out_of_the_file_and_its_visible_sibling_is_kept(
    mosquitto: Any, simulator_factory: Callable[..., Simulator], store_file: Path
) -> None:
    """A two-relay module (a real node dump) with its second relay hidden: the hidden relay's values are
    never written to the history file, the visible relay's are (and its history answers), and what is about
    the node as a whole (its status) stays out, as the node is hidden whole wherever a node is shown."""
    from zwave_mcp.devices.build import build_devices
    from zwave_mcp.gateway.nodes import parse_node
    from zwave_mcp.simulator.dumps import load_house_file
    from zwave_mcp.simulator.house import captured_house

    relay = next(n for n in load_house_file(RELAYS) if not n.get("isControllerNode"))
    relay.update(name="Porch Relay", loc="Porch")
    house = [n for n in captured_house() if n["id"] != relay["id"]] + [relay]
    # The relays' value ids as the server's device index has them (parsed from a copy: the simulator
    # serves the dump itself).
    node = parse_node(copy.deepcopy(relay))
    assert node is not None
    parts = {d.name: {v.value_id for v in d.all_values()} for d in build_devices([node])}
    shown, hidden_ids = parts["Porch Relay"], parts["Porch Relay 2"]
    assert shown and hidden_ids
    sim = simulator_factory(config=capture_config("a", timing=FAST, periodic=False), house=house)
    async with connected(settings(mosquitto, sim, store_file, hide="Porch Relay 2")) as client:
        hidden = await call(client, "get_device_state", {"deviceName": "porch relay 2"})
        hidden_history = await call(client, "get_device_history", {"deviceName": "porch relay 2"})
        switched = await call(client, CONTROL, {"deviceName": "porch relay", "action": "on"})
        assert switched.outcome == "confirmed", switched.text
        mine = await call(client, "get_device_history", {"deviceName": "porch relay", "period": "last hour"})
        everything = await call(client, "get_device_history", {"period": "last 7 days", "limit": 500})
    assert hidden.is_error and "No device named" in hidden.error, hidden.text
    assert hidden_history.is_error and "No device named" in hidden_history.error, hidden_history.text
    assert not mine.is_error and "Porch Relay" in mine.text, mine.text
    events = mine.result["events"]
    assert any(e["device"] == "Porch Relay" and e["state"] == "on" for e in events), events
    assert "Porch Relay 2" not in everything.text
    assert all(e["device"] != "Porch Relay 2" for e in everything.result["events"])
    with sqlite3.connect(store_file) as conn:
        keys = {k for (k,) in conn.execute("SELECT key FROM series WHERE node = ?", (relay["id"],))}
        statuses = conn.execute(
            "SELECT count(*) FROM series WHERE kind = 'status' AND key = ?", (str(relay["id"]),)
        ).fetchone()
        assert conn.execute("SELECT count(*) FROM series WHERE node = 8").fetchone()[0] > 0
    assert keys & shown, keys  # the visible relay is recorded
    assert not keys & hidden_ids, keys & hidden_ids  # the hidden one is not
    assert statuses == (0,)  # the node as a whole is hidden
