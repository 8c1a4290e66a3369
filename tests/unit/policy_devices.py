"""Devices shaped like the captured house, as the policy sees them (its `PolicyDevice` protocol)."""

from __future__ import annotations

from dataclasses import dataclass

from zwave_mcp.policy import Policy
from zwave_mcp.policy.actions import normalize_action
from zwave_mcp.policy.core import Decision
from zwave_mcp.policy.sensitive import describe_action
from zwave_mcp.policy.terms import PolicyDevice


@dataclass(frozen=True)
class FakeDevice:
    key: str
    node_id: int
    name: str
    location: str
    capabilities: tuple[str, ...]
    is_entry: bool = False


KITCHEN_LIGHT = FakeDevice("2", 2, "Kitchen Light", "Kitchen", ("switch",))
LAMP = FakeDevice("3", 3, "Living Room Lamp", "Living Room", ("dimmer",))
FRONT_DOOR = FakeDevice("5", 5, "Front Door Lock", "Entry", ("lock", "notification", "battery"))
THERMOSTAT = FakeDevice("6", 6, "Hallway Thermostat", "Hallway", ("thermostat", "sensor"))
GARAGE_MOTION = FakeDevice("7", 7, "Garage Motion", "Garage", ("binary_sensor", "battery"))
COFFEE = FakeDevice("8", 8, "Coffee Maker Plug", "Kitchen", ("switch", "meter"))
BLINDS = FakeDevice("10", 10, "Living Room Blinds", "Living Room", ("cover",))
PORCH_1 = FakeDevice("11.1", 11, "Porch Double Switch 1", "Porch", ("switch",))
PORCH_2 = FakeDevice("11.2", 11, "Porch Double Switch 2", "Porch", ("switch",))
GARAGE_DOOR = FakeDevice("12", 12, "Garage Door", "Garage", ("cover",), is_entry=True)
SIREN = FakeDevice("13", 13, "Hall Siren", "Hallway", ("siren", "switch"))

HOUSE = (
    KITCHEN_LIGHT,
    LAMP,
    FRONT_DOOR,
    THERMOSTAT,
    GARAGE_MOTION,
    COFFEE,
    BLINDS,
    PORCH_1,
    PORCH_2,
    GARAGE_DOOR,
    SIREN,
)


def check_mutation(
    policy: Policy, device: PolicyDevice, action: str, value: object = None, *, unit: str | None = None
) -> Decision:
    """The policy's rules alone for one action by name, as the gate asks them (`Policy.judge`)."""
    action = normalize_action(action)
    return policy.judge(
        device,
        frozenset({action}),
        value,
        unit=unit,
        action_text=describe_action(device, action, value, unit),
    )
