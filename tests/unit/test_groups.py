"""Group phrases on the captured house: rooms, kinds, both, declared groups, the whole house."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.test_devices_build import house
from zwave_mcp.devices import model as m
from zwave_mcp.devices.errors import AmbiguousDevice, DeviceNotFound
from zwave_mcp.devices.groups import Kind, kind_of
from zwave_mcp.devices.resolve import DeviceIndex, load_aliases

ALIASES = {"upstairs": ["Bedroom", "Hallway Thermostat"], "porch light": "11.1", "outside": ["Porch", "7"]}
EVERYTHING = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "11.1", "11.2"]


@pytest.fixture(scope="module")
def index() -> DeviceIndex:
    return DeviceIndex(house().values(), ALIASES)


def test_kinds_of_the_captured_house(index: DeviceIndex) -> None:
    kinds = {d.key: sorted(index.kinds(d)) for d in index.devices}
    assert kinds == {
        "2": [Kind.LIGHT],  # a binary switch named "Light"
        "3": [Kind.LIGHT],  # a dimmer named "Lamp"
        "4": [Kind.SENSOR],
        "5": [Kind.DOOR, Kind.LOCK],  # a lock is on a door: "which doors are unlocked?"
        "6": [Kind.THERMOSTAT],
        "7": [Kind.SENSOR],
        "8": [Kind.PLUG],  # a switch with a meter
        "9": [Kind.LIGHT],
        "10": [Kind.BLIND],
        "11.1": [Kind.SWITCH],
        "11.2": [Kind.SWITCH],
    }


def test_names_are_a_hint_capabilities_decide() -> None:
    d = house()
    plug = d["8"]
    plug.readings.pop(m.Capability.METER)
    plug.capabilities = (m.Capability.SWITCH,)
    assert kind_of(plug, ["coffee", "maker", "plug"]) is Kind.PLUG  # named a plug, no meter
    assert kind_of(plug, ["coffee", "maker"]) is Kind.SWITCH
    assert kind_of(d["3"], ["fan"]) is Kind.LIGHT  # a dimmer is a light whatever its name
    assert kind_of(d["2"], ["porch", "switch"]) is Kind.SWITCH


@pytest.mark.parametrize(
    ("said", "label", "keys"),
    [
        ("kitchen", "kitchen devices", ["2", "8"]),
        ("the living room", "living room devices", ["3", "10"]),
        ("lights", "lights", ["2", "3", "9"]),
        ("all lights", "lights", ["2", "3", "9"]),
        ("the kitchen lights", "kitchen lights", ["2"]),
        ("lights in the bedroom", "bedroom lights", ["9"]),
        ("kitchen and living room lights", "kitchen and living room lights", ["2", "3"]),
        (
            "Kitchen, Living Room & Porch",
            "kitchen, living room and porch devices",
            ["2", "3", "8", "10", "11.1", "11.2"],
        ),
        ("everything", "devices", EVERYTHING),
        ("the whole house", "devices", EVERYTHING),
        ("all devices", "devices", EVERYTHING),
        ("switches", "switches", ["11.1", "11.2"]),
        ("plugs", "plugs", ["8"]),
        ("blinds", "blinds", ["10"]),
        ("locks", "locks", ["5"]),
        ("doors", "doors", ["5"]),
        ("thermostats", "thermostats", ["6"]),
        ("sensors", "sensors", ["4", "7"]),
        ("lights and plugs", "lights and plugs", ["2", "3", "8", "9"]),
        ("upstairs", "upstairs devices", ["4", "6", "9"]),
        ("upstairs lights", "upstairs lights", ["9"]),
        ("outside", "outside devices", ["7", "11.1", "11.2"]),
        ("garage lights", "garage lights", []),
    ],
)
def test_group_phrases(index: DeviceIndex, said: str, label: str, keys: list[str]) -> None:
    group = index.group(said)
    assert group.label == label
    assert [d.key for d in group.devices] == keys


@pytest.mark.parametrize(
    "said", ["Porch Double Switch 2", "frobnicate", "kitchen toaster", "", "x" * 300, "kitchen\x00"]
)
def test_not_group_phrases(index: DeviceIndex, said: str) -> None:
    assert index.parse_group(said) is None
    with pytest.raises(DeviceNotFound) as err:
        index.group(said)
    if said.strip():
        assert (
            "a kind (lights, plugs, switches, blinds, locks, thermostats, sensors, doors, fans, valves, sirens, smoke alarms, remotes)"
            in err.value.message
        )


def test_a_bare_room_is_still_ambiguous_for_one_device(index: DeviceIndex) -> None:
    with pytest.raises(AmbiguousDevice) as err:
        index.resolve("kitchen", for_mutation=True)
    assert [d.key for d in err.value.candidates] == ["2", "8"]
    with pytest.raises(AmbiguousDevice) as err:
        index.resolve("upstairs", for_mutation=True)  # a declared group, named where one device is meant
    assert [d.key for d in err.value.candidates] == ["4", "6", "9"]
    assert index.resolve("porch light", for_mutation=True).key == "11.1"


def test_group_alias_file(tmp_path: Path) -> None:
    file = tmp_path / "aliases.json"
    file.write_text(json.dumps({"Upstairs": ["Bedroom", "6"], "lamp": "3"}), encoding="utf-8")
    aliases = load_aliases(file)
    assert aliases == {"Upstairs": ("Bedroom", "6"), "lamp": "3"}
    file.write_text(json.dumps({"upstairs": []}), encoding="utf-8")
    with pytest.raises(ValueError, match="the group 'upstairs' must list rooms, device names or keys"):
        load_aliases(file)
