"""The MQTT API: `<prefix>/_CLIENTS/ZWAVE_GATEWAY-<name>/api/<api>/set` → reply on `.../api/<api>`.

Envelope as recorded: `{success, message, result?, args, origin}`; `origin` is the request payload as
parsed (extra keys included, so a client may put a correlation key there) and shares objects with
`args` (which `_addSceneValue` mutates). Malformed JSON is not rejected: `origin` is the raw string and
the API runs with no arguments. Replies go out on the scheduler thread, so a slow call (a write to a
sleeping node) never holds up another API.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from zwave_mcp.simulator import database, devices, firmware, lock_extras, payloads
from zwave_mcp.simulator.access import HANDLERS as ACCESS_HANDLERS
from zwave_mcp.simulator.admin_api import HANDLERS as ADMIN_HANDLERS
from zwave_mcp.simulator.admin_api import AdminHost, answered
from zwave_mcp.simulator.associations import HANDLERS as ASSOCIATION_HANDLERS
from zwave_mcp.simulator.dumps import key_of
from zwave_mcp.simulator.host import Respond, arg, found_node, js_undefined, node_arg
from zwave_mcp.zwave.classes import CC

log = logging.getLogger(__name__)

OK = "Success zwave api call"
NOT_CONNECTED = "Z-Wave client not connected"  # every API before the driver is ready (callApi)
_MISSING: Any = object()

Handler = Callable[[AdminHost, list[Any], Respond], None]


def parse_request(raw: bytes) -> tuple[Any, list[Any] | None]:
    """(origin, args); args None means "Args must be an array"."""
    text = raw.decode("utf-8", "replace")
    try:
        origin: Any = json.loads(text)
    except ValueError:
        origin = text
    args: Any = origin.get("args") if isinstance(origin, dict) else None
    if not args and not isinstance(args, list):
        args = []  # JavaScript's `payload.args || []`
    return origin, args if isinstance(args, list) else None


def handle(sim: AdminHost, api_name: str, raw: bytes) -> None:
    origin, args = parse_request(raw)
    t = sim.timing

    def send(body: dict[str, Any]) -> None:
        sim.scheduler.call_later(t.api_reply, lambda: sim.reply(api_name, _finish(body)))

    if args is None:
        send({"success": False, "message": "Args must be an array", "origin": origin})
        return
    if not sim.driver_up:
        send({"success": False, "message": NOT_CONNECTED, "args": args, "origin": origin})
        return
    handler = HANDLERS.get(api_name)
    if handler is None:
        send({"success": False, "message": "Unknown API", "args": args, "origin": origin})
        return

    def respond(result: Any = _MISSING, error: str | None = None, delay: float = 0.0) -> None:
        body: dict[str, Any] = {"success": error is None, "message": error or OK}
        if error is None and result is not _MISSING:
            body["result"] = result
        body["args"] = args
        body["origin"] = origin
        if delay > 0:
            sim.scheduler.call_later(delay, lambda: sim.reply(api_name, _finish(body)))
        else:
            sim.reply(api_name, _finish(body))

    try:
        handler(sim, args, respond)
    except Exception as exc:  # a JS exception inside zwave-js-ui becomes `success: false`
        log.debug("simulated API %s failed", api_name, exc_info=True)
        respond(error=str(exc), delay=t.api_reply)


def _finish(body: dict[str, Any]) -> dict[str, Any]:
    return json.loads(payloads.dumps(body))  # a snapshot: later mutations do not leak into this reply


# ---------------------------------------------------------------------- handlers
def _info(sim: AdminHost, args: list[Any]) -> dict[str, Any]:
    # While the nodes come up after a start the real gateway says "driver ready" (11.22.2, checked).
    status, cnt_status = ("driver ready", "Driver ready") if sim.interviewing else ("scan done", None)
    return {
        "homeid": sim.config.home_id,
        "name": f"0x{sim.config.home_id:08x}",
        "controllerId": 1,
        "uptime": round(sim.uptime(), 9),
        "status": status,
        "cntStatus": cnt_status or sim.admin.cnt_status,
        "inclusionState": sim.admin.inclusion_state,
        "appVersion": "11.22.2",
        "zwaveVersion": "15.29.0",
        "serverVersion": "3.10.2",
    }


def _get_nodes(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    def later() -> None:
        with sim._lock:
            nodes = json.loads(payloads.dumps(sorted(sim.nodes.values(), key=_getnodes_order)))
            if sim.interviewing:  # just after the driver is ready: nothing known of a node until it is up
                for node in nodes:
                    if not node.get("virtual") and not node.get("ready", True):
                        node.update(ready=False, status="Unknown", values={})
        respond(nodes)

    sim.scheduler.call_later(sim.timing.get_nodes, later)


def _getnodes_order(node: dict[str, Any]) -> tuple[int, int]:
    # zwave-js-ui lists the virtual Broadcast node first, then the real nodes by id.
    return (0 if node.get("virtual") else 1, int(node.get("id", 0)))


def _write_value(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    vid = arg(args, 0)
    if not isinstance(vid, dict):
        raise RuntimeError(js_undefined("nodeId"))
    delay = sim.write_reply_delay  # a fault: the reply comes late (the write itself is carried out)
    devices.write_value(sim, vid, arg(args, 1), arg(args, 2), lambda result: respond(result, delay=delay))


def _write_multicast(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    # zwave-js-ui catches and logs every error of a multicast and returns undefined: the reply is always
    # `success: true` with no `result` key (ZwaveClient.writeMulticast).
    if sim.multicast_unanswered:
        return  # a fault: the stick cannot multicast, and the call never comes back
    devices.write_multicast(sim, arg(args, 0), arg(args, 1), arg(args, 2), arg(args, 3), lambda: respond())


# zwave-js keeps a node's name and location as values of Node Naming and Location: zwave-js-ui's
# `setNodeName`/`setNodeLocation` set `zwaveNode.name`/`.location` when they differ, and the value event that
# follows is all it publishes, as `_EVENTS/.../node/node_value_added` (the first time) or `node_value_updated`,
# with the node summary already carrying the new name (capture 0, t≈163-165). No status or nodeinfo topic
# (its `emitNodeUpdate` names only the changed property, not the status) and no value topic (these values are
# left out of the node's values): see `ZwaveClient.ts` `setNodeName`, `_onNodeValueAdded`, `_updateValue`.
# Checked on the real gateway (11.22.2, configs a/b/c): the same name again publishes nothing, and a room
# cleared to "" is still a value zwave-js holds, so setting one later is `node_value_updated` from "".
_NAMING_PROPERTY = {"name": "name", "loc": "location"}


def _named(field: str) -> Handler:
    prop = _NAMING_PROPERTY[field]

    def handler(sim: AdminHost, args: list[Any], respond: Respond) -> None:
        node = sim.node(arg(args, 0))
        if node is None:
            respond(error="Invalid Node ID", delay=sim.timing.api_reply)
            return
        new = str(arg(args, 1) or "")
        with sim._lock:
            held = sim.naming_value(node, field)
            node[field] = new
            # Value topics are NOT republished under the new name (recorded).
            if held != new:  # zwave-js-ui writes zwave-js's name only when it differs: no event otherwise
                sim.hold_naming_value(node, field, new)
                value = {
                    "commandClassName": "Node Naming and Location",
                    "commandClass": CC.NODE_NAMING_AND_LOCATION,
                    "property": prop,
                    "newValue": new,
                    "propertyName": prop,
                }
                if held is not None:  # a name or room zwave-js already holds ("" too): this is its update
                    value["prevValue"] = held
                name = "node_value_added" if held is None else "node_value_updated"
                sim.event("node", name, [payloads.node_summary(node), value])
        respond(True, delay=sim.timing.api_reply)

    return handler


def _ping(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = node_arg(sim, args, "ping")
    if node.get("status") == "Dead":
        sim.radio.submit(sim.timing.dead_fail, lambda: respond(False))
        return

    def done() -> None:
        sim.touch(node)
        respond(True)

    sim.radio.submit(sim.timing.ping, done)


def _refresh(method: str, by_class: bool) -> Handler:
    """`refreshValues`: every readable value of a node is read (and published) again; `refreshCCValues`
    (`by_class`): those of the command class in the second argument, taking twice as long."""

    def handler(sim: AdminHost, args: list[Any], respond: Respond) -> None:
        node = node_arg(sim, args, method)
        cc = arg(args, 1) if by_class else None

        def done() -> None:
            with sim._lock:
                sim.touch(node)
                for value in node.get("values", {}).values():
                    if value.get("readable") and (cc is None or value.get("commandClass") == cc):
                        sim.set_value(node, value, value.get("value"))
            respond()

        sim.radio.submit(sim.timing.refresh * (2 if by_class else 1), done)

    return handler


def _poll_value(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    vid = arg(args, 0)
    if not isinstance(vid, dict):
        raise RuntimeError(js_undefined("nodeId"))
    node = sim.node(vid.get("nodeId"))
    if node is None:
        raise RuntimeError(js_undefined("pollValue"))
    value = node.get("values", {}).get(key_of(vid))

    def done() -> None:
        if sim.silent:  # a fault: the device does not answer the Get
            respond(error="The node did not acknowledge the command (ZW0204)")
            return
        if value is None:
            respond()
            return
        sim.touch(node)
        sim.set_value(node, value, value.get("value"))
        respond(value.get("value"))

    sim.radio.submit(sim.timing.poll, done)


def _send_command(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    ctx, command = arg(args, 0), arg(args, 1)
    if not isinstance(ctx, dict):
        raise RuntimeError(js_undefined("nodeId"))
    node = found_node(sim, ctx.get("nodeId"))
    cc, ep = ctx.get("commandClass"), ctx.get("endpoint") or 0
    if cc == CC.DOOR_LOCK_LOGGING:
        args_of = arg(args, 2)
        if args_of is not None and not isinstance(args_of, list):
            raise RuntimeError("if args is given, it must be an array")
        lock_extras.door_lock_logging(
            sim, node, ep, command, args_of if isinstance(args_of, list) else [], respond
        )
        return
    values = [
        v
        for v in node.get("values", {}).values()
        if v.get("commandClass") == cc and (v.get("endpoint") or 0) == ep
    ]
    if command != "get" or not values:
        raise RuntimeError(f"The command {command} is not supported by the simulator")
    result = {str(v.get("property")): v.get("value") for v in values if v.get("readable") and "value" in v}
    sim.radio.submit(sim.timing.poll, lambda: respond(result))


def _find_scene(sim: AdminHost, scene_id: Any) -> dict[str, Any]:
    for scene in sim.scenes:
        if scene["sceneid"] == scene_id:
            return scene
    raise RuntimeError("No scene found with given sceneid")


def _create_scene(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    new_id = max((s["sceneid"] for s in sim.scenes), default=0) + 1
    sim.scenes.append({"sceneid": new_id, "label": arg(args, 0), "values": []})
    respond(True, delay=sim.timing.api_reply)


def _add_scene_value(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    scene = _find_scene(sim, arg(args, 0))
    vid = arg(args, 1)
    if not isinstance(vid, dict):
        raise RuntimeError(js_undefined("id"))
    # Entries are matched on `id` (so without one, undefined === undefined: a second value replaces the
    # first, as recorded). A match gets the new value/timeout; otherwise the valueId itself is mutated
    # (so `args` and `origin` show value/timeout) and appended.
    entry = next((e for e in scene["values"] if e.get("id") == vid.get("id")), None)
    if entry is None:
        entry = vid
        scene["values"].append(vid)
    entry.update(value=arg(args, 2), timeout=arg(args, 3))
    respond(sim.scenes, delay=sim.timing.api_reply)


def _activate_scene(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    scene = _find_scene(sim, arg(args, 0))
    respond(True, delay=sim.timing.api_reply)
    scale = sim.timing.scene_step / 0.3 if sim.timing.scene_step else 0.0
    for entry in list(scene["values"]):
        vid = {k: entry.get(k) for k in ("nodeId", "commandClass", "endpoint", "property", "propertyKey")}
        if vid["propertyKey"] is None:
            del vid["propertyKey"]
        # `timeout` is in seconds: zwave-js-ui waits `timeout * 1000` ms (captures README, "Observed later").
        delay = sim.timing.api_reply + float(entry.get("timeout") or 0) * scale

        sim.scheduler.call_later(delay, _scene_write(sim, vid, entry.get("value")))


def _scene_write(sim: AdminHost, vid: dict[str, Any], new: Any) -> Callable[[], None]:
    return lambda: devices.write_value(sim, vid, new, None, lambda result: None)


HANDLERS: dict[str, Handler] = {
    "getInfo": answered(_info),
    "getNodes": _get_nodes,
    "writeValue": _write_value,
    "writeMulticast": _write_multicast,
    "setNodeName": _named("name"),
    "setNodeLocation": _named("loc"),
    "refreshValues": _refresh("refreshValues", by_class=False),
    "refreshCCValues": _refresh("refreshCCValues", by_class=True),
    "pingNode": _ping,
    "pollValue": _poll_value,
    "sendCommand": _send_command,
    "_getScenes": answered(lambda sim, args: sim.scenes),
    "_createScene": _create_scene,
    "_addSceneValue": _add_scene_value,
    "_sceneGetValues": answered(lambda sim, args: _find_scene(sim, arg(args, 0))["values"]),
    "_activateScene": _activate_scene,
    "getDeviceConfigurationParams": answered(lambda sim, args: database.configuration_params(arg(args, 0))),
    **ADMIN_HANDLERS,
    **ACCESS_HANDLERS,
    **firmware.HANDLERS,
    **ASSOCIATION_HANDLERS,
    **lock_extras.HANDLERS,
}
