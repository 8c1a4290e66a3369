"""A remote's state sentence says its latest press, with its time, where the tool has a clock: the
WallMote Quad (a real node dump, fixtures/devices) pressed as zwave-js reports it (Central Scene `scene`,
the button as property key, the key attribute as the value, the gateway's lastUpdate)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.describe import sentence
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.presses import button_of, press_values
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.server.tools.present import last_press_words
from zwave_mcp.simulator.dumps import load_house_file

DUMP = Path(__file__).resolve().parents[2] / "fixtures" / "devices" / "wallmote_central_scene_state.json"
NOW = datetime(2026, 11, 25, 20, 30, tzinfo=UTC)


def wallmote() -> Device:
    nodes = [parse_node(raw) for raw in load_house_file(DUMP)]
    (device,) = build_devices(n for n in nodes if n is not None and not n.is_controller)
    return replace(device, name="WallMote")


def press(device: Device, button: int, key_attribute: int, at: datetime) -> None:
    value = next(v for v in press_values(device) if button_of(v) == button)
    value.value, value.last_update_ms = key_attribute, int(at.timestamp() * 1000)


def test_the_last_press_is_said_with_its_time() -> None:
    remote = wallmote()
    assert last_press_words(remote, NOW) is None  # no press in the live picture: nothing is claimed
    assert sentence(remote, last_press=None) == "WallMote reports battery 100 %."
    press(remote, 1, 0, NOW - timedelta(hours=3))
    press(remote, 2, 2, NOW - timedelta(minutes=16))  # held, the latest
    said = last_press_words(remote, NOW)
    assert said == "the last press was button 2, held at 20:14"
    assert sentence(remote, last_press=said) == (
        "WallMote reports battery 100 %; the last press was button 2, held at 20:14."
    )
    evening = NOW.astimezone(timezone(timedelta(hours=-5)))  # the zone of the clock it is said by
    assert last_press_words(remote, evening) == "the last press was button 2, held at 15:14"
    press(remote, 3, 3, NOW - timedelta(days=1))
    assert last_press_words(remote, NOW) == "the last press was button 2, held at 20:14"


def test_a_press_from_yesterday_and_a_time_no_calendar_has() -> None:
    remote = wallmote()
    press(remote, 4, 3, NOW - timedelta(days=1, hours=1))
    assert last_press_words(remote, NOW) == "the last press was button 4, pressed twice yesterday at 19:30"
    value = next(v for v in press_values(remote) if button_of(v) == 4)
    value.last_update_ms = 10**18  # what a broken gateway might send
    assert last_press_words(remote, NOW) is None
