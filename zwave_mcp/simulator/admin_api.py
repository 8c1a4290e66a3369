"""zwave-js-ui's network-care API calls in the simulator (inclusion, exclusion, provisioning, failed nodes,
health checks, route rebuilds, neighbours), answered with the controller's state in `admin.py`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from zwave_mcp.simulator.admin import STRATEGY_S2, Admin, neighbours_of, parse_qr
from zwave_mcp.simulator.host import Respond, SimulatorHost
from zwave_mcp.simulator.house import CONTROLLER_ID, Node


class AdminHost(SimulatorHost, Protocol):
    """A simulator with a controller: what the API handlers use."""

    admin: Admin


# --------------------------------------------------------------------------- API handlers
def _arg(args: list[Any], index: int) -> Any:
    return args[index] if index < len(args) else None


def _node(sim: AdminHost, args: list[Any], method: str) -> Node:
    node = sim.node(_arg(args, 0))
    if node is None:
        raise RuntimeError(f"Cannot read properties of undefined (reading '{method}')")
    return node


def _real_node(sim: AdminHost, args: list[Any], method: str) -> Node:
    node = _node(sim, args, method)
    if node.get("virtual"):
        raise RuntimeError(f"Node {node['id']} is a virtual node")
    return node


def _quick(sim: AdminHost, respond: Respond, result: Any = None, *, missing: bool = False) -> None:
    if missing:
        respond(delay=sim.timing.api_reply)
    else:
        respond(result, delay=sim.timing.api_reply)


def _start_inclusion(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    _quick(sim, respond, sim.admin.start_inclusion(_arg(args, 0), _arg(args, 1)))


def _stop_inclusion(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    _quick(sim, respond, sim.admin.stop_inclusion())


def _start_exclusion(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    _quick(sim, respond, sim.admin.start_exclusion())


def _stop_exclusion(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    _quick(sim, respond, sim.admin.stop_exclusion())


def _grant(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    sim.admin.grant(_arg(args, 0))
    _quick(sim, respond, missing=True)


def _validate_dsk(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    sim.admin.validate_dsk(_arg(args, 0))
    _quick(sim, respond, missing=True)


def _abort_inclusion(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    sim.admin.abort_inclusion()
    _quick(sim, respond, missing=True)


def _parse_qr(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    parsed = parse_qr(_arg(args, 0))
    node = next((n for n in sim.nodes.values() if n.get("dsk") == parsed["dsk"]), None)
    result: dict[str, Any] = {
        "parsed": parsed,
        "exists": node is None and sim.admin._provisioned(parsed["dsk"]) is not None,
    }
    if node is not None:
        result["nodeId"] = node["id"]
    _quick(sim, respond, result)


def _provision(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    _quick(sim, respond, sim.admin.provision(_arg(args, 0)))


def _provisioning_entries(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    _quick(sim, respond, list(sim.admin.provisioning))


def _unprovision(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    sim.admin.unprovision(_arg(args, 0))
    _quick(sim, respond, missing=True)


def _is_failed(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = _node(sim, args, "isFailedNode")
    sim.radio.submit(sim.timing.ping, lambda: respond(node.get("status") == "Dead"))


def _remove_failed(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = sim.node(_arg(args, 0))
    if node is None:
        raise RuntimeError(f"Node {_arg(args, 0)} not found")

    def run() -> None:
        try:
            sim.admin.remove_failed(node)
        except RuntimeError as exc:
            respond(error=str(exc))
            return
        respond()

    sim.radio.submit(sim.timing.ping * 2, run)


def _replace_failed(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = sim.node(_arg(args, 0))
    if node is None or node.get("status") != "Dead":
        raise RuntimeError("The node could not be replaced because it has not failed (ZW0361)")
    strategy = _arg(args, 1)
    options = _arg(args, 2) if isinstance(_arg(args, 2), dict) else {}
    _quick(
        sim,
        respond,
        sim.admin.start_inclusion(STRATEGY_S2 if strategy is None else strategy, options, int(node["id"])),
    )


def _refresh_info(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = _node(sim, args, "refreshInfo")
    sim.admin.refresh_info(node)
    _quick(sim, respond, missing=True)


def _lifeline(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = _real_node(sim, args, "checkLifelineHealth")
    rounds = _arg(args, 1) if isinstance(_arg(args, 1), int) else 5
    sim.admin.health_check(node, CONTROLLER_ID, rounds, lambda r: respond(r), lifeline=True)


def _route(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = _real_node(sim, args, "checkRouteHealth")
    target = _arg(args, 1)
    if sim.node(target) is None:
        raise RuntimeError(f"Node {target} not found")
    rounds = _arg(args, 2) if isinstance(_arg(args, 2), int) else 5
    sim.admin.health_check(node, int(target), rounds, lambda r: respond(r), lifeline=False)


def _abort_health(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = _node(sim, args, "abortHealthCheck")
    sim.admin.abort_health(int(node["id"]))
    _quick(sim, respond, missing=True)


def _rebuild_node(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = sim.node(_arg(args, 0))
    if node is None:
        raise RuntimeError(f"Node {_arg(args, 0)} not found")
    sim.admin.rebuild_node(node, lambda ok: respond(ok))


def _begin_rebuild(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    _quick(sim, respond, sim.admin.begin_rebuild())


def _stop_rebuild(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    _quick(sim, respond, sim.admin.stop_rebuild())


def _neighbours(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = _node(sim, args, "getNodeNeighbors")
    found = neighbours_of(sim, int(node["id"]))
    node["neighbors"] = found
    sim.radio.submit(sim.timing.ping, lambda: respond(found))


HANDLERS: dict[str, Callable[[AdminHost, list[Any], Respond], None]] = {
    "startInclusion": _start_inclusion,
    "stopInclusion": _stop_inclusion,
    "startExclusion": _start_exclusion,
    "stopExclusion": _stop_exclusion,
    "grantSecurityClasses": _grant,
    "validateDSK": _validate_dsk,
    "abortInclusion": _abort_inclusion,
    "parseQRCodeString": _parse_qr,
    "provisionSmartStartNode": _provision,
    "getProvisioningEntries": _provisioning_entries,
    "unprovisionSmartStartNode": _unprovision,
    "isFailedNode": _is_failed,
    "removeFailedNode": _remove_failed,
    "replaceFailedNode": _replace_failed,
    "refreshInfo": _refresh_info,
    "checkLifelineHealth": _lifeline,
    "checkRouteHealth": _route,
    "abortHealthCheck": _abort_health,
    "rebuildNodeRoutes": _rebuild_node,
    "beginRebuildingRoutes": _begin_rebuild,
    "stopRebuildingRoutes": _stop_rebuild,
    "getNodeNeighbors": _neighbours,
}
