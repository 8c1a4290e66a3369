"""The policy on the real devices of the captured house (fixtures/recorded/getNodes.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.policy_devices import check_mutation
from zwave_mcp.config import load_settings
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.model import Device
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.policy import Policy

GET_NODES = Path(__file__).resolve().parents[2] / "fixtures" / "recorded" / "getNodes.json"


@pytest.fixture(scope="module")
def house() -> dict[str, Device]:
    raw = json.loads(GET_NODES.read_text(encoding="utf-8"))
    nodes = [n for n in (parse_node(r) for r in raw) if n is not None]
    return {d.name: d for d in build_devices(nodes)}


def policy(**env: str) -> Policy:
    return Policy.from_settings(load_settings(environ={"ZWAVE_MCP_" + k.upper(): v for k, v in env.items()}))


def test_front_door_unlock_needs_confirmation(house):
    door = house["Front Door Lock"]
    asked = check_mutation(policy(), door, "unlock")
    assert asked.needs_confirmation and asked.action_text == "unlock Front Door Lock (Entry)"
    assert check_mutation(policy(), door, "lock").allowed


def test_deny_lock_and_cover_keeps_them_visible_and_read_only(house):
    p = policy(deny="lock,cover")
    read_only = {name for name, d in house.items() if p.visible(d) and not p.can_control(d)}
    assert read_only == {"Front Door Lock", "Living Room Blinds"}


def test_allow_kitchen_and_living_room(house):
    p = policy(allow="Kitchen,Living Room")
    controllable = {name for name, d in house.items() if p.can_control(d)}
    assert controllable == {"Kitchen Light", "Coffee Maker Plug", "Living Room Lamp", "Living Room Blinds"}


def test_node_11_selects_both_porch_endpoints(house):
    porch = [d for d in house.values() if d.node_id == 11]
    assert len(porch) >= 2
    p = policy(hide="node:11")
    assert not any(p.visible(d) for d in porch)
    assert all(p.visible(d) for d in house.values() if d.node_id != 11)


def test_thermostat_band_with_the_setpoint_unit(house):
    thermostat = house["Hallway Thermostat"]
    unit = next(v.unit for role, v in thermostat.values.items() if role.startswith("setpoint."))
    p = policy()
    assert check_mutation(p, thermostat, "set_temperature", 21, unit=unit).allowed
    assert check_mutation(p, thermostat, "set_temperature", 30, unit=unit).needs_confirmation
