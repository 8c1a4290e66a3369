"""Direct associations as zwave-js-ui 11.22.2 answers them (`api/lib/ZwaveClient.ts`) over zwave-js's
controller (`packages/cc/src/lib/utils.ts`, `Controller.ts`; its errors carry zwave-js's code suffix).

A node has associations where its node object has `groups` (the demo house's come from real devices'
config files: `houses/association_groups.json`); an endpoint with a multi channel group also takes
associations to endpoints. Each lifeline group starts with the controller in it, as zwave-js sets it up
at the interview. The device keeps no more than a group's `maxNodes`
(zwave-js does not check that: the device drops the rest).

- `getAssociations(nodeId, refresh)`: `[{endpoint, groupId, nodeId, targetEndpoint?}]`, `[]` for a node
  without groups; for a node zwave-js-ui does not know, the TypeError of its logging (as the test bed
  answers: "Cannot read properties of undefined (reading 'id')");
- `checkAssociation(source, groupId, destination)`: zwave-js's AssociationCheckResult (1 OK, 4 self), or
  its error for a missing node or endpoint, or a node without associations;
- `addAssociations(source, groupId, [destinations])`: the check results, adding the OK ones (errors of
  zwave-js's `addAssociations`: no such group, no multi channel);
- `removeAssociations(source, groupId, [destinations])`: `success` with no result, whatever happened (but
  the same TypeError for a node it does not know).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from zwave_mcp.simulator.admin_api import AdminHost
from zwave_mcp.simulator.dumps import CONTROLLER_ID, Node
from zwave_mcp.simulator.host import Respond, arg, found_node, js_undefined
from zwave_mcp.simulator.house import sleeps

OK, FORBIDDEN_DESTINATION_LR, FORBIDDEN_SOURCE_LR, FORBIDDEN_SELF = 1, 2, 3, 4
LONG_RANGE_FIRST_ID = 256
# Group (endpoint, group) → its destinations ({nodeId, endpoint?}), per node.
Table = dict[tuple[int, int], list[dict[str, int]]]


class ZWaveError(RuntimeError):
    """zwave-js's error: its message with the code suffix it appends ("… (ZW0211)")."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(f"{message} (ZW{code:04d})")


NODE_NOT_FOUND, ENDPOINT_NOT_FOUND, CC_NOT_SUPPORTED, INVALID_GROUP = 211, 212, 302, 1300


def _groups(node: Node, endpoint: int) -> list[dict[str, Any]]:
    return [g for g in node.get("groups") or [] if g.get("endpoint", 0) == endpoint]


def _endpoints(node: Node) -> set[int]:
    return {int(e.get("index", 0)) for e in node.get("endpoints") or [{"index": 0}]} | {0}


def table(sim: AdminHost, node: Node) -> Table:
    """The node's associations as the device holds them; the lifelines hold the controller to begin with."""
    held = sim.associations.get(node["id"])
    if held is None:
        held = {(g.get("endpoint", 0), g["value"]): [] for g in node.get("groups") or []}
        for group in node.get("groups") or []:
            if group.get("isLifeline"):
                held[(group.get("endpoint", 0), group["value"])].append({"nodeId": CONTROLLER_ID})
        sim.associations[node["id"]] = held
    return held


def _where(node_id: int, endpoint: int) -> str:
    return f"{node_id}" + (f", endpoint {endpoint}" if endpoint > 0 else "")


def _address(raw: Any) -> tuple[Any, int | None]:
    if not isinstance(raw, dict):
        raise TypeError(js_undefined("nodeId"))
    endpoint = raw.get("endpoint")
    return raw.get("nodeId"), endpoint if isinstance(endpoint, int) else None


def _node_or_throw(sim: AdminHost, node_id: Any) -> Node:
    node = sim.node(node_id)
    if node is None or node.get("virtual"):
        raise ZWaveError(f"Node {node_id} was not found!", NODE_NOT_FOUND)
    return node


def _endpoint_or_throw(node: Node, endpoint: int) -> None:
    if endpoint not in _endpoints(node):
        raise ZWaveError(f"Endpoint {endpoint} does not exist on Node {node['id']}", ENDPOINT_NOT_FOUND)


def check(sim: AdminHost, source: Any, group: Any, destination: Any) -> int:
    """zwave-js's `checkAssociation` (no security classes and no AGI command lists in the simulator)."""
    source_id, source_ep = _address(source)
    node = _node_or_throw(sim, source_id)
    _endpoint_or_throw(node, source_ep or 0)
    target_id, target_ep = _address(destination)
    target = _node_or_throw(sim, target_id)
    if target_id != CONTROLLER_ID:
        _endpoint_or_throw(target, target_ep or 0)
    if not _groups(node, source_ep or 0):
        raise ZWaveError(
            f"Node {_where(source_id, source_ep or 0)} does not support associations!", CC_NOT_SUPPORTED
        )
    if target_id >= LONG_RANGE_FIRST_ID:
        return FORBIDDEN_DESTINATION_LR
    if source_id >= LONG_RANGE_FIRST_ID and (group != 1 or target_id != CONTROLLER_ID):
        return FORBIDDEN_SOURCE_LR
    if target_id == CONTROLLER_ID:
        return OK
    if target_id == source_id:
        return FORBIDDEN_SELF
    return OK


def _validated(node: Node, endpoint: int, group: int, destination: dict[str, Any]) -> dict[str, Any]:
    """zwave-js's `addAssociations` checks for one destination that passed `check`, before anything is
    sent (its errors); the address the device is to hold."""
    where = _where(node["id"], endpoint)
    groups = _groups(node, endpoint)
    to_endpoint = isinstance(destination.get("endpoint"), int)
    multi = any(g.get("multiChannel") for g in groups)
    if not groups and not to_endpoint:
        raise ZWaveError(f"Node {where} does not support associations!", CC_NOT_SUPPORTED)
    if to_endpoint and not multi:
        raise ZWaveError(f"Node {where} does not support multi channel associations!", CC_NOT_SUPPORTED)
    entry = next((g for g in groups if g.get("value") == group), None)
    if entry is None:
        raise ZWaveError(f"Group {group} does not exist on node {where}", INVALID_GROUP)
    if to_endpoint and not entry.get("multiChannel"):
        raise ZWaveError(
            f"Node {where}, group {group} does not support multi channel associations!", CC_NOT_SUPPORTED
        )
    return {"nodeId": destination["nodeId"], **({"endpoint": destination["endpoint"]} if to_endpoint else {})}


def _hold(sim: AdminHost, node: Node, endpoint: int, group: int, address: dict[str, Any]) -> None:
    """The device takes the Association Set: up to the group's `maxNodes` (a full group drops the rest,
    as a device does; zwave-js does not check)."""
    entry = next(g for g in _groups(node, endpoint) if g.get("value") == group)
    held = table(sim, node).setdefault((endpoint, group), [])
    if address not in held and len(held) < int(entry.get("maxNodes") or 1):
        held.append(address)


def _add(sim: AdminHost, node: Node, endpoint: int, group: int, destination: dict[str, Any]) -> None:
    _hold(sim, node, endpoint, group, _validated(node, endpoint, group, destination))


def _on_device(sim: AdminHost, node: Node, action: Callable[[], None]) -> None:
    """Association Set/Remove and the Get after it go to the device: at once if it listens, else on waking."""
    if sleeps(node):
        sim.queue_for_wakeup(node["id"], action)
    else:
        sim.radio.submit(sim.timing.write_supervised, action)


def _unknown_node() -> TypeError:
    """zwave-js-ui logs a node it does not know with `logNode(undefined, …)`, which throws (the test bed
    answers getAssociations(99) and removeAssociations of node 99 so)."""
    return TypeError(js_undefined("id"))


def _get_associations(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = sim.node(arg(args, 0))
    if node is None:
        raise _unknown_node()

    def listed(delay: float = 0.0) -> None:
        found: list[dict[str, Any]] = []
        if node is not None:
            for (endpoint, group), held in sorted(table(sim, node).items()):
                for a in held:
                    record = {"endpoint": endpoint, "groupId": group, "nodeId": a["nodeId"]}
                    if "endpoint" in a:
                        record["targetEndpoint"] = a["endpoint"]
                    found.append(record)
        respond(found, delay=delay)

    if node is not None and arg(args, 1) and node.get("groups"):
        _on_device(sim, node, listed)  # refresh: read again from the device
    else:
        listed(sim.timing.api_reply)  # zwave-js's cache


def _check_association(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    respond(check(sim, arg(args, 0), arg(args, 1), arg(args, 2)), delay=sim.timing.api_reply)


def _add_associations(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    source, group, destinations = arg(args, 0), arg(args, 1), arg(args, 2)
    source_id, endpoint = _address(source)
    node = found_node(sim, source_id)
    if not isinstance(destinations, list):
        raise TypeError("associations is not iterable")
    results = [check(sim, source, group, d) for d in destinations]
    # zwave-js refuses before anything is sent (raises); what passes goes to the device.
    taken = [
        _validated(node, endpoint or 0, group, d)
        for d, r in zip(destinations, results, strict=True)
        if r == OK
    ]

    def done() -> None:
        for address in taken:
            _hold(sim, node, endpoint or 0, group, address)
        sim.touch(node)
        respond(results)

    _on_device(sim, node, done)


def _remove_associations(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    source, group, destinations = arg(args, 0), arg(args, 1), arg(args, 2)
    source_id, endpoint = _address(source)
    node = sim.node(source_id)
    if node is None:
        raise _unknown_node()

    def done() -> None:
        held = table(sim, node).get((endpoint or 0, group))
        for raw in destinations if isinstance(destinations, list) else []:
            if held is None or not isinstance(raw, dict):
                continue  # zwave-js throws (no such group); zwave-js-ui swallows it
            address = {
                "nodeId": raw.get("nodeId"),
                **({"endpoint": raw["endpoint"]} if isinstance(raw.get("endpoint"), int) else {}),
            }
            held[:] = [a for a in held if a != address]
        sim.touch(node)
        respond()

    _on_device(sim, node, done)


HANDLERS: dict[str, Callable[[AdminHost, list[Any], Respond], None]] = {
    "getAssociations": _get_associations,
    "checkAssociation": _check_association,
    "addAssociations": _add_associations,
    "removeAssociations": _remove_associations,
}
