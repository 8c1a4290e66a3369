"""Nodes → devices.

One device per node, unless more than one endpoint carries its own actuators (the Porch Double Switch:
Basic on the root, a Binary Switch on endpoints 1 and 2). Then each such endpoint is a device of its own
("Porch Double Switch 2", key "11.2"), and the root is a device only when it has something of its own
besides a battery (a root Basic is only a mirror and is ignored). There is no "parent" device: a name
that fits both endpoints is ambiguous, which is safer than switching both.
"""

from __future__ import annotations

from collections.abc import Iterable

from zwave_mcp.devices import model as m
from zwave_mcp.devices.boundary import fault_reason, note_fault
from zwave_mcp.devices.discovery import Found, discover
from zwave_mcp.devices.discovery_schemas import ROLE_VIEWS, TABLE
from zwave_mcp.devices.model import KIND_ORDER, Capability, Device
from zwave_mcp.gateway.model import ZNode
from zwave_mcp.policy.sensitive import names_an_entry

# zwave-js-ui's virtual Broadcast nodes (classic and Long Range); not devices.
BROADCAST_NODE_IDS = frozenset({255, 4095})


def is_user_node(node: ZNode) -> bool:
    return not node.is_controller and node.id not in BROADCAST_NODE_IDS


def build_devices(nodes: Iterable[ZNode]) -> list[Device]:
    """All devices of the house, in node id then endpoint order."""
    devices: list[Device] = []
    for node in sorted(nodes, key=lambda n: n.id):
        devices.extend(understood_devices(node))
    return devices


def understood_devices(node: ZNode) -> list[Device]:
    """`devices_for_node` inside the boundary: a node whose discovery fails is one device "not understood
    yet" (with the reason, see `boundary`), and the other nodes of the house are not touched by it."""
    try:
        return devices_for_node(node)
    except Exception as exc:
        name = device_name(node.display_name, None)
        device = Device(
            key=str(node.id),
            node_id=node.id,
            endpoint=None,
            name=name,
            location=node.display_location,
            kind=None,
            capabilities=(),
            node=node,
            unclaimed=tuple(node.values.values()),
        )
        note_fault(device, fault_reason(exc, "working out what it is"))
        return [device]


def devices_for_node(node: ZNode) -> list[Device]:
    """The devices of one node (call it alone to patch an index after a rename or a re-interview)."""
    if not is_user_node(node):
        return []
    detected = discover(node, TABLE)
    actuated = [ep for ep, found in detected.items() if found.has_actuator()]
    if len(actuated) <= 1:
        whole = Found()
        for found in detected.values():
            whole.merge(found)
        return [_device(node, str(node.id), None, device_name(node.display_name, None), whole)]

    devices: list[Device] = []
    root = Found()
    for ep, found in detected.items():
        if ep == 0 or ep not in actuated:
            root.merge(found)
    battery = root.values.get(m.BATTERY_LEVEL)
    if root.capabilities - {Capability.BATTERY}:
        devices.append(_device(node, str(node.id), 0, device_name(node.display_name, 0), root))
    for ep in actuated:
        if ep == 0:
            continue
        found = detected[ep]
        if battery is not None and Capability.BATTERY not in found.capabilities:
            found.capabilities.add(Capability.BATTERY)
            found.values[m.BATTERY_LEVEL] = battery
        devices.append(_device(node, f"{node.id}.{ep}", ep, device_name(node.display_name, ep), found))
    return devices


def device_name(node_name: str, endpoint: int | None) -> str:
    """A device's name from its node's: the node's own for the whole node or its root, "<node> <n>" for
    endpoint n ("Porch Double Switch 2")."""
    return f"{node_name} {endpoint}" if endpoint else node_name


def _views(found: Found) -> None:
    """Roles that name a value the device already has (a thermostat's temperature among its readings, an
    old lock's state), once all endpoints are in."""
    for capability, role, wanted in ROLE_VIEWS:
        if capability in found.capabilities and role not in found.values:
            for values in (*found.readings.values(), list(found.values.values())):
                value = next((v for v in values if wanted.fits(v)), None)
                if value is not None:
                    found.values[role] = value
                    break


def _device(node: ZNode, key: str, endpoint: int | None, name: str, found: Found) -> Device:
    _views(found)
    ordered = tuple(c for c in KIND_ORDER if c in found.capabilities)
    return Device(
        key=key,
        node_id=node.id,
        endpoint=endpoint,
        name=name,
        location=node.display_location,
        kind=ordered[0] if ordered else None,
        capabilities=ordered,
        node=node,
        values=found.values,
        readings={c: found.readings[c] for c in KIND_ORDER if c in found.readings},
        is_entry=found.is_entry or (Capability.COVER in found.capabilities and names_an_entry(name)),
        purposes=found.purposes,
        data=found.data,
        unclaimed=tuple(found.unclaimed),
    )
