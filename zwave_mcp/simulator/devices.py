"""What a device does with a write: the SetValueStatus, the value publishes, and their timing.

Statuses (zwave-js SetValueStatus): 255 supervised success, 254 unsupervised success, 1 Working (with
`remainingDuration`, final value when the ramp ends), 2 Fail (missing or dead node; no message),
5 InvalidValue (with zwave-js' message). Ranges are NOT checked, as recorded.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from zwave_mcp.simulator import access
from zwave_mcp.simulator.dumps import key_of
from zwave_mcp.simulator.host import SimulatorHost
from zwave_mcp.simulator.house import sleeps
from zwave_mcp.zwave.classes import CC, ColorProps, DoorLockProps, SwitchProps
from zwave_mcp.zwave.wire import value_key

log = logging.getLogger(__name__)

Result = dict[str, Any]
Done = Callable[[Result], None]

# The captured house has Supervision exactly on the nodes whose writes go through these CCs.
SUPERVISED_CCS = {CC.MULTILEVEL_SWITCH, CC.COLOR_SWITCH, CC.DOOR_LOCK, CC.WINDOW_COVERING}
COLOR_KEYS = {"warmWhite": 0, "coldWhite": 1, "red": 2, "green": 3, "blue": 4}


def js_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"


def _type_error(value: dict[str, Any], new: Any) -> str | None:
    expected = value.get("type")
    actual = js_type(new)
    wanted = {"number": "number", "boolean": "boolean", "string": "string", "color": "string"}.get(
        str(expected)
    )
    if wanted is None or wanted == actual:
        return None
    return (
        f'{value.get("commandClassName")}: "{value.get("property")}" must be of type "{expected}", '
        f'received "{actual}" (ZW0322)'
    )


def _seconds(options: Any) -> float | None:
    if isinstance(options, dict):
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*s?\s*", str(options.get("transitionDuration", "")))
        if match:
            return float(match.group(1))
    return None


def write_value(sim: SimulatorHost, vid: Any, new: Any, options: Any, done: Done) -> None:
    """Start a write. `done(result)` is called once, later, on the scheduler thread."""
    t = sim.timing
    node = sim.node(vid.get("nodeId")) if isinstance(vid, dict) else None
    if node is None or node.get("id") == 1:
        sim.scheduler.call_later(t.write_fail, lambda: done({"status": 2}))
        return
    cc, endpoint = vid.get("commandClass"), vid.get("endpoint") or 0
    if endpoint not in {e.get("index") for e in node.get("endpoints", [{"index": 0}])}:
        # zwave-js's EndpointNotFound (3), as the real test bed answered a write to endpoint 5 of node 2.
        missing = {"status": 3, "message": f"Endpoint {endpoint} does not exist on Node {node['id']}"}
        sim.scheduler.call_later(t.write_fail, lambda: done(missing))
        return
    value = node.get("values", {}).get(key_of(vid))
    if value is None or not value.get("writeable"):
        cc_name = next(
            (
                v.get("commandClassName")
                for v in node.get("values", {}).values()
                if v.get("commandClass") == cc
            ),
            None,
        )
        if cc_name is None:
            # zwave-js throws "Node 6 does not support the Command Class Binary Switch! (ZW0302)" and
            # zwave-js-ui answers the Fail it started with, without a message (the real test bed).
            sim.scheduler.call_later(t.write_fail, lambda: done({"status": 2}))
            return
        message = f'{cc_name}: "{vid.get("property")}" is not a supported property (ZW0322)'
        sim.scheduler.call_later(t.write_fail, lambda: done({"status": 5, "message": message}))
        return
    error = _type_error(value, new)
    if error is not None:
        sim.scheduler.call_later(t.write_fail, lambda: done({"status": 5, "message": error}))
        return
    if node.get("status") == "Dead":
        sim.radio.submit(t.dead_fail, lambda: done({"status": 2}))
        return
    if sleeps(node) and node.get("status") != "Awake":
        sim.queue_for_wakeup(node["id"], lambda: _send(sim, node, value, new, options, done))
        return
    _send(sim, node, value, new, options, done)


def _send(
    sim: SimulatorHost, node: dict[str, Any], value: dict[str, Any], new: Any, options: Any, done: Done
) -> None:
    t = sim.timing
    cc = value.get("commandClass")
    prop = value.get("property")
    if cc == CC.MULTILEVEL_SWITCH and prop == SwitchProps.RESTORE and new is True:
        # zwave-js sends Multilevel Switch Set 0xFF: the device ramps back to its last level.
        target = node.get("values", {}).get(value_key(cc, value.get("endpoint"), SwitchProps.TARGET))
        if target is not None:
            sim.radio.submit(t.write_working, lambda: _ramp(sim, node, target, 255, options, done))
            return
    if (
        cc == CC.USER_CODE
        and prop in ("userCode", "userIdStatus")
        and isinstance(value.get("propertyKey"), int)
    ):
        slot = int(value["propertyKey"])

        def user_code_set() -> None:  # supervised, as the captured User Code lock answers
            access.write_user_code(sim, node, str(prop), slot, new)
            done({"status": 255})

        sim.radio.submit(t.write_supervised, user_code_set)
        return
    if cc in (CC.MULTILEVEL_SWITCH, CC.WINDOW_COVERING) and prop == SwitchProps.TARGET:
        sim.radio.submit(t.write_working, lambda: _ramp(sim, node, value, new, options, done))
    elif cc in SUPERVISED_CCS:
        sim.radio.submit(t.write_supervised, lambda: _apply(sim, node, value, new, 255, done))
    else:
        sim.radio.submit(t.write_unsupervised, lambda: _apply(sim, node, value, new, 254, done))


def _current_of(node: dict[str, Any], value: dict[str, Any]) -> dict[str, Any] | None:
    """The `currentValue` that reports a `targetValue` (same CC, endpoint and property key).

    Only a `targetValue` has one: `Up`/`Down`/`levelChange*` start or stop a movement and
    `restorePrevious` is handled as a ramp, so none of them may overwrite the level with their boolean.
    """
    if value.get("property") != SwitchProps.TARGET:
        return None
    return node.get("values", {}).get(key_of({**value, "property": SwitchProps.CURRENT}))


def _apply(
    sim: SimulatorHost, node: dict[str, Any], value: dict[str, Any], new: Any, status: int, done: Done
) -> None:
    """Optimistic publishes together with the reply, then (unsupervised) the ~1.1 s re-poll."""
    cc, prop = value.get("commandClass"), value.get("property")
    sim.set_value(node, value, new)
    if cc == CC.DOOR_LOCK and prop == DoorLockProps.TARGET_MODE:
        _set_prop(sim, node, value, DoorLockProps.CURRENT_MODE, new)
    elif cc == CC.COLOR_SWITCH:
        _apply_color(sim, node, value, new)
    else:
        current = _current_of(node, value)
        if current is not None:
            sim.set_value(node, current, new)
    sim.touch(node)
    done({"status": status})
    current = _current_of(node, value)
    if status == 254 and current is not None and not sim.silent:
        sim.scheduler.call_later(
            sim.timing.second_poll - sim.timing.write_unsupervised, lambda: _repoll(sim, node, current)
        )


def _repoll(sim: SimulatorHost, node: dict[str, Any], current: dict[str, Any]) -> None:
    # The poll goes through the radio queue, so it reads the state before any write queued behind it
    # (a fast ON→OFF shows a stale `currentValue: true` in between, as recorded).
    def publish() -> None:
        sim.touch(node)
        sim.set_value(node, current, current.get("value"))

    sim.radio.submit(sim.timing.write_unsupervised, publish)


def _set_prop(sim: SimulatorHost, node: dict[str, Any], like: dict[str, Any], prop: str, new: Any) -> None:
    key = value_key(like.get("commandClass"), like.get("endpoint"), prop)
    target = node.get("values", {}).get(key)
    if target is not None:
        sim.set_value(node, target, new)


def _ramp(
    sim: SimulatorHost, node: dict[str, Any], value: dict[str, Any], new: Any, options: Any, done: Done
) -> None:
    t = sim.timing
    blinds = value.get("commandClass") == CC.WINDOW_COVERING
    seconds = _seconds(options)
    ramp = t.blinds_travel if blinds else t.dimmer_ramp
    if seconds is not None:
        ramp = ramp * seconds / 2.0  # the recorded ramps are for the mock's 2 s default
    sim.set_value(node, value, new)
    sim.touch(node)
    remaining = 3 if blinds else max(1, round(seconds) - 1 if seconds else 1)
    done({"status": 1, "remainingDuration": {"value": remaining, "unit": "seconds"}})
    current = _current_of(node, value)
    if current is None:
        return
    level = new
    key = (int(node["id"]), key_of(current))
    before = current.get("value")
    if isinstance(before, int | float) and not isinstance(before, bool) and before > 0:
        sim.last_levels[key] = before
    if isinstance(new, int | float) and not isinstance(new, bool):
        if new == 255:
            # Set 0xFF ("restore previous"): the most recent non-zero level, even after an off.
            level = sim.last_levels.get(key, 99)
        level = max(0, min(99, level))

    def finish() -> None:
        sim.set_value(node, current, level)
        sim.touch(node)

    sim.scheduler.call_later(ramp, finish)


def _apply_color(sim: SimulatorHost, node: dict[str, Any], value: dict[str, Any], new: Any) -> None:
    values = node.get("values", {})
    ep = value.get("endpoint") or 0
    current_obj = values.get(value_key(CC.COLOR_SWITCH, ep, ColorProps.CURRENT))
    colors: dict[str, int] = dict(current_obj.get("value") or {}) if current_obj else {}
    prop, key = value.get("property"), value.get("propertyKey")
    changes: dict[str, int] = {}
    if prop == ColorProps.HEX and isinstance(new, str) and re.fullmatch(r"#?[0-9a-fA-F]{6}", new):
        h = new.lstrip("#")
        changes = {"red": int(h[0:2], 16), "green": int(h[2:4], 16), "blue": int(h[4:6], 16)}
    elif prop == ColorProps.TARGET and key is None and isinstance(new, dict):
        changes = {k: int(v) for k, v in new.items() if k in COLOR_KEYS and isinstance(v, int | float)}
    elif prop == ColorProps.TARGET and isinstance(new, int | float):
        names = {v: k for k, v in COLOR_KEYS.items()}
        if key in names:
            changes = {names[key]: int(new)}
    colors.update(changes)
    for name, number in COLOR_KEYS.items():
        component = values.get(value_key(CC.COLOR_SWITCH, ep, ColorProps.CURRENT, number))
        if name in changes and component is not None:
            sim.set_value(node, component, changes[name])
    if current_obj is not None:
        sim.set_value(node, current_obj, colors)
    if prop != ColorProps.TARGET or key is not None:
        target_obj = values.get(value_key(CC.COLOR_SWITCH, ep, ColorProps.TARGET))
        if target_obj is not None and changes:
            sim.set_value(node, target_obj, changes)
    hex_value = values.get(value_key(CC.COLOR_SWITCH, ep, ColorProps.HEX))
    if hex_value is not None and prop != ColorProps.HEX:
        rgb = "".join(f"{int(colors.get(c, 0)):02x}" for c in ("red", "green", "blue"))
        sim.set_value(node, hex_value, rgb)


def write_multicast(
    sim: SimulatorHost, node_ids: Any, vid: Any, new: Any, options: Any, done: Callable[[], None]
) -> None:
    """zwave-js-ui's `writeMulticast`: one frame to all the nodes, then `done()` (it returns nothing).

    No node acknowledges a multicast. zwave-js then updates every addressed node's value optimistically
    (Binary/Multilevel Switch Set), which is published at once: an echo, not a report. Each listening,
    alive node then sends its new state on its own, as Z-Wave Plus devices do for a change they did not
    get by singlecast from the controller ("True Status"): a switch at once, a dimmer when its ramp ends.
    The captured stick could not multicast, so this part is modelled on zwave-js's source and the spec.
    """
    targets: list[tuple[dict[str, Any], dict[str, Any]]] = []
    if isinstance(node_ids, list) and isinstance(vid, dict):
        for node_id in node_ids:
            node = sim.node(node_id)
            if node is None or node.get("id") == 1:
                continue
            value = node.get("values", {}).get(key_of(vid))
            if value is not None and value.get("writeable") and _type_error(value, new) is None:
                targets.append((node, value))

    def frame() -> None:
        for node, value in targets:
            current = _current_of(node, value)
            level = _level(new) if value.get("commandClass") == CC.MULTILEVEL_SWITCH else new
            if int(node["id"]) in sim.multicast_missed:
                # zwave-js's optimistic value is published, but the device itself never heard the frame.
                if current is not None:
                    sim.publish_value(node, {**current, "value": level})
                continue
            sim.set_value(node, value, new)
            if current is not None:
                sim.set_value(node, current, level)
        done()
        for node, value in targets:
            awake = not sleeps(node) or node.get("status") == "Awake"
            heard = int(node["id"]) not in sim.multicast_missed
            if node.get("status") != "Dead" and awake and heard:
                _true_status(sim, node, value, new, options)

    sim.radio.submit(sim.timing.write_unsupervised, frame)


def _level(new: Any) -> Any:
    return max(0, min(99, new)) if isinstance(new, int | float) and not isinstance(new, bool) else new


def _true_status(
    sim: SimulatorHost, node: dict[str, Any], value: dict[str, Any], new: Any, options: Any
) -> None:
    current = _current_of(node, value)
    if current is None:
        return

    def report() -> None:
        sim.touch(node)
        sim.set_value(node, current, current.get("value"))

    if value.get("commandClass") == CC.MULTILEVEL_SWITCH:
        seconds = _seconds(options)
        ramp = sim.timing.dimmer_ramp * (seconds / 2.0 if seconds is not None else 1.0)
        sim.scheduler.call_later(ramp, lambda: sim.radio.submit(sim.timing.report, report))
    else:
        sim.radio.submit(sim.timing.report, report)
