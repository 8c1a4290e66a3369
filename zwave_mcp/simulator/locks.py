"""Lock events as zwave-js-ui 11.22.2 publishes them (captures' README, "Access Control notifications").

One notification from a lock gives, within ~1 ms and in this order: `lastActive`; the V1 alarm fields
`alarmType` and `alarmLevel` (0, retained) with their `node_value_updated`; for lock and unlock operations
the Door Lock `currentMode` (255 locked, 0 unlocked, retained) with its event; then the event itself on
a topic named after it, not retained (`{"time", "value": <parameters>}` in the time-value and value-object
modes, `{"time"}` without parameters; the bare parameters in raw mode, or an empty payload), and the
`node_notification` event `[<summary>, 113, {"type": 6, "event": n, "label": "Access Control",
"eventLabel": …, "parameters": {"userId": 3}}]` (no `parameters` key when there are none). States (jammed,
keypad disabled) are ordinary retained values (`Access Control` / `Lock state` 11 or 0, `Keypad state` 16
or 0) with their `node_value_updated`, and no `node_notification`.

With manually configured topics (`topics == "manual"` is not simulated) no event topic exists; events
still go out when `send_events` is on.
"""

from __future__ import annotations

import json
from typing import Any

from zwave_mcp.simulator import lock_extras, naming, payloads
from zwave_mcp.simulator.host import SimulatorHost
from zwave_mcp.zwave.classes import CC, DoorLockProps, NotificationProps
from zwave_mcp.zwave.wire import value_key

# mock command → (Access Control event number, zwave-js eventLabel, Door Lock mode it leaves, or None)
EVENTS: dict[str, tuple[int, str, int | None]] = {
    "manual_lock": (1, "Manual lock operation", 255),
    "manual_unlock": (2, "Manual unlock operation", 0),
    "rf_lock": (3, "RF lock operation", 255),
    "rf_unlock": (4, "RF unlock operation", 0),
    "keypad_lock": (5, "Keypad lock operation", 255),
    "keypad_unlock": (6, "Keypad unlock operation", 0),
    "auto_lock": (9, "Auto lock locked operation", 255),
    "code_limit_exceeded": (0x13, "Manually enter user access code exceeds code limit", None),
    "invalid_credential": (0x32, "Invalid credential used", None),
}
STATES = {"Lock state": {"jammed": 11, "idle": 0}, "Keypad state": {"disabled": 16, "idle": 0}}


def lock_event(
    sim: SimulatorHost, node_id: int, event: str, user_id: int | None = None, extra: Any = None
) -> None:
    """Play one Access Control event of a lock (`EVENTS`), with the user id where the lock gives one.
    `extra`: more parameters, as another zwave-js version might pass (a test of what is kept)."""
    number, label, mode = EVENTS[event]
    node = sim.nodes[node_id]
    parameters = {**({"userId": user_id} if user_id is not None else {}), **(extra or {})} or None
    sim.touch(node)
    values = node["values"]
    for prop in ("alarmType", "alarmLevel"):
        value = values.get(value_key(CC.NOTIFICATION, 0, prop))
        if value is not None:
            sim.set_value(node, value, 0)
    if mode is not None:
        current = values.get(value_key(CC.DOOR_LOCK, 0, DoorLockProps.CURRENT_MODE))
        if current is not None:
            sim.set_value(node, current, mode)
    topic = notification_topic(sim, node, "Access Control", label)
    if topic is not None:
        sim.publish(topic, notification_payload(sim, parameters), retain=False)
    args: dict[str, Any] = {"type": 6, "event": number, "label": "Access Control", "eventLabel": label}
    if parameters is not None:
        args["parameters"] = parameters
    sim.event("node", "node_notification", [payloads.node_summary(node), CC.NOTIFICATION, args])
    lock_extras.record(sim, node, event, user_id)  # a lock with a log of its own writes it there too


def lock_state(sim: SimulatorHost, node_id: int, which: str, state: str) -> None:
    """A lock state value: `which` "Lock state" ("jammed"/"idle") or "Keypad state" ("disabled"/"idle")."""
    node = sim.nodes[node_id]
    sim.touch(node)
    value = node["values"].get(value_key(CC.NOTIFICATION, 0, NotificationProps.ACCESS_CONTROL, which))
    if value is None:
        raise KeyError(f"node {node_id} has no Access Control {which} value")
    sim.set_value(node, value, STATES[which][state])


def notification_topic(sim: SimulatorHost, node: dict[str, Any], label: str, event_label: str) -> str | None:
    """`Gateway.valueTopic` of zwave-js-ui's notification valueId (property = label, propertyKey = event
    label, no endpoint)."""
    fake = {
        "commandClass": CC.NOTIFICATION,
        "endpoint": 0,
        "property": label,
        "propertyName": label,
        "propertyKey": event_label,
    }
    return naming.value_topic(node, fake, sim.config)


def notification_payload(sim: SimulatorHost, parameters: dict[str, Any] | None) -> str:
    if sim.config.payload == "raw":
        return "" if parameters is None else payloads.dumps(parameters)
    body: dict[str, Any] = {"time": payloads.now_ms()}
    if parameters is not None:
        body["value"] = parameters
    return payloads.dumps(body)


# What the trigger topic's "state" names → (value, state) of `lock_state`.
TRIGGER_STATES = {
    "jammed": ("Lock state", "jammed"),
    "unjammed": ("Lock state", "idle"),
    "keypad_disabled": ("Keypad state", "disabled"),
    "keypad_enabled": ("Keypad state", "idle"),
}


def triggered(sim: SimulatorHost, raw: bytes) -> None:
    """A message on the simulator's own lock trigger (`naming.lock_event_topic`): `{"node": 12, "event":
    "keypad_unlock", "user": 3}` or `{"node": 12, "state": "jammed"}`; anything else is ignored."""
    try:
        asked = json.loads(raw)
    except ValueError:
        return
    if (
        not isinstance(asked, dict)
        or not isinstance(asked.get("node"), int)
        or asked["node"] not in sim.nodes
    ):
        return
    user = asked.get("user")
    with sim._lock:
        if asked.get("event") in EVENTS:
            lock_event(sim, asked["node"], asked["event"], user if isinstance(user, int) else None)
        elif asked.get("state") in TRIGGER_STATES:
            which, state = TRIGGER_STATES[asked["state"]]
            lock_state(sim, asked["node"], which, state)
