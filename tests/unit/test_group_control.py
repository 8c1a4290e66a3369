"""Group changes, planned and said, on the captured house (pure: no gateway)."""

from __future__ import annotations

from typing import Any

from tests.unit.test_devices_build import house
from zwave_mcp.config import load_settings
from zwave_mcp.devices import model as m
from zwave_mcp.devices.gate import DeviceOutcome, GroupWrites
from zwave_mcp.devices.group_control import group_change, group_sentence, plan_group
from zwave_mcp.devices.resolve import DeviceIndex
from zwave_mcp.policy import Policy
from zwave_mcp.policy.outcome import Outcome


def policy(**env: str) -> Policy:
    return Policy.from_settings(load_settings(environ={f"ZWAVE_MCP_{k.upper()}": v for k, v in env.items()}))


def outcomes(plan: Any, **by_name: Outcome) -> list[DeviceOutcome]:
    return [
        DeviceOutcome(p.device, by_name.get(p.device.name, Outcome.CONFIRMED), p.argument, None, True, "", ())
        for p in plan.plans
    ]


def test_plan_keeps_what_can_do_it_and_names_what_the_policy_refuses() -> None:
    index = DeviceIndex(house().values())
    plan = plan_group(index.group("everything"), "off", {}, policy(deny="Coffee Maker Plug"))
    assert [p.device.name for p in plan.plans] == [
        "Kitchen Light",
        "Living Room Lamp",
        "Bedroom Color Bulb",
        "Porch Double Switch",
        "Porch Double Switch 2",
    ]
    skipped = {s.device.name: (s.why, s.named) for s in plan.skipped}
    assert skipped["Coffee Maker Plug"] == ("the policy does not let it be changed", True)
    assert skipped["Bedroom Sensor"] == ("cannot be switched off", False)
    assert plan.summary == (
        "turn off the devices (Kitchen Light, Living Room Lamp, Bedroom Color Bulb, Porch Double Switch "
        "and Porch Double Switch 2)"
    )


def test_sentences() -> None:
    index = DeviceIndex(house().values())
    lights = plan_group(index.group("kitchen and living room lights"), "off", {}, policy())
    assert group_sentence(lights, outcomes(lights)) == "Turned off both kitchen and living room lights."
    porch = plan_group(index.group("kitchen and porch"), "off", {}, policy())
    late = outcomes(porch, **{"Porch Double Switch 2": Outcome.UNCONFIRMED})
    assert group_sentence(porch, late) == (
        "Turned off 3 of 4 kitchen and porch devices; Porch Double Switch 2 did not report back."
    )
    dim = plan_group(index.group("lights"), "dim", {"level": 30}, policy())
    assert group_sentence(dim, outcomes(dim, **{"Bedroom Color Bulb": Outcome.WORKING})) == (
        "Set 1 of 2 lights to 30 %; Bedroom Color Bulb is still on the way."
    )
    none = outcomes(porch, **{d.device.name: Outcome.UNCONFIRMED for d in porch.plans})
    assert group_sentence(porch, none).startswith(
        "Sent the command to turn off the kitchen and porch devices, but none confirmed it; Kitchen Light, "
    )
    heat = plan_group(index.group("thermostats"), "set_temperature", {"value": 21.5}, policy())
    assert group_sentence(heat, outcomes(heat)) == "Set Hallway Thermostat heating to 21.5 °C."


def test_multicast_only_where_nodes_share_the_write() -> None:
    devices = house()
    devices["9"].values[m.LEVEL_CURRENT].value = 40
    index = DeviceIndex(devices.values())
    change = group_change(plan_group(index.group("everything"), "off", {}, policy()))
    multicast, single = GroupWrites()._plan(change)
    assert [[e.device.name for e in g] for g in multicast] == [
        ["Kitchen Light", "Coffee Maker Plug"],  # Binary Switch, endpoint 0, false
        ["Living Room Lamp", "Bedroom Color Bulb"],  # Multilevel Switch, endpoint 0, 0
    ]
    assert sorted(e.device.name for e in single) == ["Porch Double Switch", "Porch Double Switch 2"]
    devices["2"].node.status = "Dead"  # a dead node hears no multicast: it goes on its own
    multicast, single = GroupWrites()._plan(change)
    assert [[e.device.name for e in g] for g in multicast] == [["Living Room Lamp", "Bedroom Color Bulb"]]
