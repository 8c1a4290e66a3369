"""zwave-js-ui's network-care API calls in the simulator (inclusion, exclusion, provisioning, failed nodes,
health checks, route rebuilds, neighbours), answered with the controller's state in `admin.py`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from zwave_mcp.simulator.admin import STRATEGY_S2, Admin, neighbours_of, parse_qr
from zwave_mcp.simulator.host import Respond, SimulatorHost, arg, found_node, node_arg
from zwave_mcp.simulator.house import CONTROLLER_ID, Node


class AdminHost(SimulatorHost, Protocol):
    """A simulator with a controller: what the API handlers use."""

    admin: Admin


Handler = Callable[[AdminHost, list[Any], Respond], None]


# --------------------------------------------------------------------------- API handlers
def _real_node(sim: AdminHost, args: list[Any], method: str) -> Node:
    node = node_arg(sim, args, method)
    if node.get("virtual"):
        raise RuntimeError(f"Node {node['id']} is a virtual node")
    return node


def answered(call: Callable[[AdminHost, list[Any]], Any]) -> Handler:
    """A call the controller answers at once with what `call` returns."""
    return lambda sim, args, respond: respond(call(sim, args), delay=sim.timing.api_reply)


def _done(call: Callable[[AdminHost, list[Any]], None]) -> Handler:
    """A call the controller carries out at once and answers without a result (zwave-js-ui's undefined)."""

    def handler(sim: AdminHost, args: list[Any], respond: Respond) -> None:
        call(sim, args)
        respond(delay=sim.timing.api_reply)

    return handler


def _parse_qr(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    parsed = parse_qr(arg(args, 0))
    node = next((n for n in sim.nodes.values() if n.get("dsk") == parsed["dsk"]), None)
    result: dict[str, Any] = {
        "parsed": parsed,
        "exists": node is None and sim.admin._provisioned(parsed["dsk"]) is not None,
    }
    if node is not None:
        result["nodeId"] = node["id"]
    respond(result, delay=sim.timing.api_reply)


def _is_failed(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = node_arg(sim, args, "isFailedNode")
    sim.radio.submit(sim.timing.ping, lambda: respond(node.get("status") == "Dead"))


def _remove_failed(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = found_node(sim, arg(args, 0))

    def run() -> None:
        try:
            sim.admin.remove_failed(node)
        except RuntimeError as exc:
            respond(error=str(exc))
            return
        respond()

    sim.radio.submit(sim.timing.ping * 2, run)


def _replace_failed(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = sim.node(arg(args, 0))
    if node is None or node.get("status") != "Dead":
        raise RuntimeError("The node could not be replaced because it has not failed (ZW0361)")
    strategy = arg(args, 1)
    options = arg(args, 2) if isinstance(arg(args, 2), dict) else {}
    added = sim.admin.start_inclusion(STRATEGY_S2 if strategy is None else strategy, options, int(node["id"]))
    respond(added, delay=sim.timing.api_reply)


def _lifeline(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = _real_node(sim, args, "checkLifelineHealth")
    rounds = arg(args, 1) if isinstance(arg(args, 1), int) else 5
    sim.admin.health_check(node, CONTROLLER_ID, rounds, lambda r: respond(r), lifeline=True)


def _route(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = _real_node(sim, args, "checkRouteHealth")
    target = int(found_node(sim, arg(args, 1))["id"])
    rounds = arg(args, 2) if isinstance(arg(args, 2), int) else 5
    sim.admin.health_check(node, target, rounds, lambda r: respond(r), lifeline=False)


def _rebuild_node(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = found_node(sim, arg(args, 0))
    sim.admin.rebuild_node(node, lambda ok: respond(ok))


def _neighbours(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = node_arg(sim, args, "getNodeNeighbors")
    found = neighbours_of(sim, int(node["id"]))
    node["neighbors"] = found
    sim.radio.submit(sim.timing.ping, lambda: respond(found))


HANDLERS: dict[str, Handler] = {
    "startInclusion": answered(lambda sim, args: sim.admin.start_inclusion(arg(args, 0), arg(args, 1))),
    "stopInclusion": answered(lambda sim, args: sim.admin.stop_inclusion()),
    "startExclusion": answered(lambda sim, args: sim.admin.start_exclusion()),
    "stopExclusion": answered(lambda sim, args: sim.admin.stop_exclusion()),
    "grantSecurityClasses": _done(lambda sim, args: sim.admin.grant(arg(args, 0))),
    "validateDSK": _done(lambda sim, args: sim.admin.validate_dsk(arg(args, 0))),
    "abortInclusion": _done(lambda sim, args: sim.admin.abort_inclusion()),
    "parseQRCodeString": _parse_qr,
    "provisionSmartStartNode": answered(lambda sim, args: sim.admin.provision(arg(args, 0))),
    "getProvisioningEntries": answered(lambda sim, args: list(sim.admin.provisioning)),
    "isFailedNode": _is_failed,
    "removeFailedNode": _remove_failed,
    "replaceFailedNode": _replace_failed,
    "refreshInfo": _done(lambda sim, args: sim.admin.interview(node_arg(sim, args, "refreshInfo"))),
    "checkLifelineHealth": _lifeline,
    "checkRouteHealth": _route,
    "abortHealthCheck": _done(
        lambda sim, args: sim.admin.abort_health(int(node_arg(sim, args, "abortHealthCheck")["id"]))
    ),
    "rebuildNodeRoutes": _rebuild_node,
    "beginRebuildingRoutes": answered(lambda sim, args: sim.admin.begin_rebuild()),
    "stopRebuildingRoutes": answered(lambda sim, args: sim.admin.stop_rebuild()),
    "getNodeNeighbors": _neighbours,
}
