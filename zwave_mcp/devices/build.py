"""Nodes → devices, the way a person owns them (Home Assistant's device with its entities is the model).

A node is one device unless more than one of its endpoints acts on its own (a double relay, a fan/light
module, a floor thermostat with a relay on endpoint 4). Then:

- **the node's own name is its main function**, the thing people buy it for (`main_part`): the endpoint a
  model row names (`Schema.main_part`), else the one whose kind the node's device class is for (a
  Thermostat's thermostat, a Multilevel Switch's light before its fan), else the first kind in
  `KIND_ORDER` (a lock before a light before a switch), else the lowest endpoint, as Home Assistant gives
  the device's own name to the first endpoint's entity. A thermostat comes first of all: it is what a
  node that has one is for (a pool controller's heater beside its relays). Its key is "<node>.<endpoint>" ("11.1"; the root's
  is "<node>") and it answers to "<name> <endpoint>" too, its name before there was a main part;
- **it says every reading of every endpoint that is not a device of its own**: the root's meters and
  buttons, a floor thermostat's sensor endpoints, the node's battery; a thermostat also takes the meters
  of the endpoints it switches (they measure the heating it drives);
- **every other endpoint that acts is a part**, named "<name> <label>" with the label zwave-js gives the
  endpoint from the device's configuration ("Kitchen RGBW White channel"), else "<name> <endpoint>"
  ("Porch Double Switch 2"), key "<node>.<endpoint>"; it reads what its own endpoint reads, and the
  node's battery.

Before that, each kind makes one of what a node spreads over its endpoints (`KindSpec.gather`: a
thermostat whose mode and setpoints sit on different endpoints), and after it completes each device
(`KindSpec.settle`: a thermostat's own temperature).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from zwave_mcp.devices import model as m
from zwave_mcp.devices.boundary import fault_reason, note_fault
from zwave_mcp.devices.discovery import Found, discover
from zwave_mcp.devices.discovery_schemas import TABLE
from zwave_mcp.devices.kinds import KINDS
from zwave_mcp.devices.model import KIND_ORDER, Capability, Device
from zwave_mcp.gateway.model import ZNode
from zwave_mcp.policy.sensitive import names_an_entry
from zwave_mcp.safetext import plain_text
from zwave_mcp.zwave import classes as zc
from zwave_mcp.zwave.classes import CC

# zwave-js-ui's virtual Broadcast nodes (classic and Long Range); not devices.
BROADCAST_NODE_IDS = frozenset({255, 4095})


def is_user_node(node: ZNode) -> bool:
    return not node.is_controller and node.id not in BROADCAST_NODE_IDS and not is_other_controller(node)


def is_other_controller(node: ZNode) -> bool:
    """Another hub or gateway on the network (a Fibaro Home Center, a second stick): of the Static
    Controller device class, with nothing but Basic (and housekeeping) to show. It is no device to switch:
    a hub's Basic values are commands it sends, not a state of its own. (A portable controller, a remote,
    stays a device: its Basic is its presses.)"""
    if node.generic_class != zc.GENERIC_STATIC_CONTROLLER:
        return False
    return all(
        v.command_class == CC.BASIC or v.command_class in zc.HOUSEKEEPING for v in node.values.values()
    )


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
    for kind in KINDS:
        kind.gather(detected)  # a thermostat spread over endpoints made one
    actuated = [ep for ep, found in detected.items() if found.has_actuator()]
    name = node.display_name
    if len(actuated) <= 1:
        whole = Found()
        for found in detected.values():
            whole.merge(found)
        return _with_parts(node, str(node.id), None, name, whole)

    main = main_part(node, {ep: detected[ep] for ep in actuated})
    owner = Found()
    owner.merge(detected[main])
    for ep, found in detected.items():
        if ep not in actuated:
            owner.merge(found)  # the root's meters and buttons, sensor endpoints, the battery
    for kind in KINDS:
        kind.adopt(owner, [detected[ep] for ep in actuated if ep != main])  # a thermostat's relays' meters
    battery = owner.values.get(m.BATTERY_LEVEL)
    siblings = tuple((ep, device_name(name, part_label(node, ep))) for ep in actuated if ep != main)
    devices: list[Device] = []
    for ep in actuated:
        if ep == main:
            key = f"{node.id}.{ep}" if ep else str(node.id)
            main_names = (device_name(name, str(ep)),)
            devices.extend(_with_parts(node, key, ep, name, owner, other_names=main_names, siblings=siblings))
            continue
        found = detected[ep]
        if battery is not None and Capability.BATTERY not in found.capabilities:
            found.capabilities.add(Capability.BATTERY)
            found.values[m.BATTERY_LEVEL] = battery
        part = part_label(node, ep)
        numbered = () if part == str(ep) else (device_name(name, str(ep)),)
        devices.extend(
            _with_parts(
                node, f"{node.id}.{ep}", ep, device_name(name, part), found, part=part, other_names=numbered
            )
        )
    return devices


def _with_parts(
    node: ZNode, key: str, endpoint: int | None, name: str, found: Found, **more: Any
) -> list[Device]:
    """The device, then the parts a model row names on its endpoint (`Schema.part`: a plug's night light),
    each a device of its own, "<name> <part>", key "<key>.<part>"."""
    devices = [_device(node, key, endpoint, name, found, **more)]
    for part, claims in found.parts.items():
        if claims.has_actuator():
            part_name = device_name(node.display_name, part)
            devices.append(
                _device(node, f"{key}.{part.replace(' ', '-')}", endpoint, part_name, claims, part=part)
            )
    return devices


def device_name(node_name: str, part: str | None) -> str:
    """A device's name from its node's: the node's own for the whole node or its main part, "<node> <part>"
    for another part ("Porch Double Switch 2", "Kitchen RGBW White channel")."""
    return f"{node_name} {part}" if part else node_name


def part_label(node: ZNode, endpoint: int) -> str:
    """How a part of a node is told apart: the label zwave-js gives its endpoint from the device's
    configuration ("White channel", "Relay 4"), else its endpoint number."""
    own = plain_text(str(node.endpoint_labels.get(endpoint) or ""), 40)
    if own.casefold() in ("", "root endpoint", f"endpoint {endpoint}"):
        return str(endpoint)
    return own


# The kinds a node's device class is for, best first (a Multilevel Switch is bought for its light).
_CLASS_KINDS: dict[int, tuple[Capability, ...]] = {
    zc.GENERIC_THERMOSTAT: (Capability.THERMOSTAT,),
    zc.GENERIC_ENTRY_CONTROL: (Capability.LOCK, Capability.COVER),
    zc.GENERIC_BINARY_SWITCH: (Capability.SWITCH, Capability.VALVE, Capability.SIREN),
    zc.GENERIC_MULTILEVEL_SWITCH: (Capability.COLOR, Capability.DIMMER, Capability.FAN, Capability.COVER),
}


def _class_kinds(node: ZNode) -> tuple[Capability, ...]:
    generic, specific = node.generic_class, node.specific_class
    if generic == zc.GENERIC_MULTILEVEL_SWITCH and specific in zc.MOTOR_SPECIFIC_CLASSES:
        return (Capability.COVER,)
    if generic == zc.GENERIC_MULTILEVEL_SWITCH and specific == zc.SPECIFIC_FAN_SWITCH:
        return (Capability.FAN,)
    if generic == zc.GENERIC_BINARY_SWITCH and specific == zc.SPECIFIC_VALVE:
        return (Capability.VALVE,)
    if generic == zc.GENERIC_BINARY_SWITCH and specific == zc.SPECIFIC_SIREN:
        return (Capability.SIREN,)
    return _CLASS_KINDS.get(generic if generic is not None else -1, ())


def main_part(node: ZNode, acting: dict[int, Found]) -> int:
    """The endpoint that is the node's main function, among the endpoints that act (see the module)."""
    wanted = _class_kinds(node)

    def rank(ep: int) -> tuple[int, int, int, int, int]:
        found = acting[ep]
        kind = next(c for c in KIND_ORDER if c in found.capabilities and c in m.ACTUATORS)
        return (
            0 if found.main_part else 1,
            # a thermostat is what a node with one is bought for, whatever its device class (a pool
            # controller or boiler module of the Binary Switch class with relays beside its thermostat)
            0 if kind == Capability.THERMOSTAT else 1,
            wanted.index(kind) if kind in wanted else len(wanted),
            KIND_ORDER.index(kind),
            ep,
        )

    return min(acting, key=rank)


def _device(
    node: ZNode,
    key: str,
    endpoint: int | None,
    name: str,
    found: Found,
    *,
    part: str | None = None,
    other_names: tuple[str, ...] = (),
    siblings: tuple[tuple[int, str], ...] = (),
) -> Device:
    for kind in KINDS:
        kind.settle(found)
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
        templates=found.templates,
        unclaimed=tuple(found.unclaimed),
        part=part,
        other_names=other_names,
        siblings=siblings,
    )
