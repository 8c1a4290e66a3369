"""The live picture of the Z-Wave network, kept current from zwave-js-ui's topics and events. No I/O.

`Inventory` holds `nodes` (by id), `status` (`GatewayStatus`) and the topic `index`; `load_nodes` replaces
the picture with a getNodes result, `apply` routes one received message into it, and listeners hear every
`InventoryEvent` (`add_listener`) and every load (`add_load_listener`); `history` keeps the last changes.

What becomes an `InventoryEvent` (see `model.InventoryEvent`): "value" when a value's value or its `lastUpdate` time
changes (a report with a new time counts even when the value is the same, so a waiter sees it);
"removed" when a value becomes undefined through a deleted retained message (raw mode); "status" for
node status; "node" for name/location/ready changes; "gateway" for client online, version, driver
(`set_driver_ready` adds what the API showed), all nodes ready, controller status. `lastActive`
updates the node silently (it changes with every frame). "lock" for a lock's Access Control event (a keypad,
manual, remote or auto lock/unlock, a jam, wrong codes…: `gateway.lock_events`), from its event topic or
`node_notification`, whichever comes first (the other is its echo); `new` is the event as kept, with the user
id and, where the lock's users name them (`ZNode.access`), the name.

Lock codes never enter the picture (`gateway.secrets`): a User Code value keeps no value, its topics and
value events are no changes, and every `_EVENTS` message is cleared of codes before anyone hears it.

Sources, in order of trust: `_EVENTS/.../node_value_updated` carries the exact ValueID and `newValue`
(lossless); value-object payloads carry the value id; value topics are mapped through `index`.
"""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from zwave_mcp.gateway.firmware_events import firmware_event
from zwave_mcp.gateway.lock_events import LockEvent, from_notification, from_topic
from zwave_mcp.gateway.model import InventoryEvent, ValueState, ZNode, ZValue, is_momentary
from zwave_mcp.gateway.nodes import (
    UNIT_MAX,
    apply_node_fields,
    as_float,
    json_problem,
    long_lived_objects,
    parse_node,
    parse_states,
    parse_value,
    reject,
    type_problem,
)
from zwave_mcp.gateway.payloads import (
    PayloadType,
    Undecodable,
    ValuePayload,
    decode_client_status,
    decode_client_version,
    decode_driver_status,
    decode_event,
    decode_last_active,
    decode_node_status,
    decode_nodeinfo,
    decode_value,
)
from zwave_mcp.gateway.secrets import is_secret_value, scrub_event
from zwave_mcp.gateway.topics import GatewayTopics, IndexHit, TopicInfo, TopicKind, ValueTopicIndex
from zwave_mcp.safetext import json_kind, outside_text, plain_text
from zwave_mcp.zwave import wire
from zwave_mcp.zwave.classes import CC

logger = logging.getLogger(__name__)

# zwave-js NodeStatus numbers in event `data[0].status` → the texts of `<node>/status`.
_NODE_STATUS_BY_NUMBER = {0: "Unknown", 1: "Asleep", 2: "Awake", 3: "Dead", 4: "Alive"}
# Event name → the status it means.
_STATUS_EVENTS = {"node_dead": "Dead", "node_alive": "Alive", "node_sleep": "Asleep", "node_wakeup": "Awake"}
# zwave-js ControllerStatus (`controller/status_changed` data[0]).
CONTROLLER_STATUSES = {0: "ready", 1: "unresponsive", 2: "jammed"}
PRESS_ECHO_S = 1.0  # an event this soon after a press on the value topic, saying the same, is its echo
LOCK_ECHO_S = 1.0  # a lock event told again this soon, the other way (topic / node_notification), is one
USERS_FRESH_S = 5.0  # a lock's users read this recently name its next event without a read (see reread_users)
# Values a node gains from events between two loads (`node_value_added`, or an update or metadata event of a
# value the picture lacks). zwave-js adds values as it learns them (an interview, the first report of a new
# meter or notification type): a few dozen at a time, and every getNodes load brings all a node really has.
# A broken or hostile publisher's flood of made-up values grew the picture and history's series ~1.8 kB a
# value with no end; beyond this many a node they are dropped until the next load (bench section 11).
MAX_VALUES_ADDED = 256
ADDED_DROPS_TOLD_EVERY_S = 60.0  # such drops are told in one log line per this long, with their count


@dataclass(slots=True)
class GatewayStatus:
    """Gateway-level facts learned from the topics."""

    client_online: bool | None = None  # `_CLIENTS/.../status`; stale True after a graceful stop
    client_status_time_ms: int | None = None
    will_received: bool = False  # the broker published the last will (zwave-js-ui died)
    version: str | None = None
    driver_ready: bool | None = None  # `driver/status`, `driver_ready` event
    all_nodes_ready: bool | None = None
    controller_status: str | None = None  # "ready" | "unresponsive" | "jammed" | "status <n>"
    last_driver_error: str | None = None
    last_message_monotonic: float | None = None
    messages_seen: int = 0
    undecodable_count: int = 0
    unmapped_count: int = 0  # node topics the index could not map (unknown name, manual topics)
    stale_count: int = 0  # topics under a node's former name/location (ignored)
    added_dropped_count: int = 0  # values events added beyond MAX_VALUES_ADDED a node (dropped)


@dataclass(frozen=True, slots=True)
class Recorded:
    at: float  # wall-clock seconds when the change was applied
    change: InventoryEvent


Listener = Callable[[InventoryEvent], None]
EventListener = Callable[[str, str, list[Any]], None]


class Inventory:
    def __init__(
        self,
        topics: GatewayTopics,
        payload_type: PayloadType = PayloadType.AUTO,
        *,
        history_size: int = 500,
        clock: Callable[[], float] = time.time,
        keep_details: bool = True,
    ) -> None:
        self.topics = topics
        # Keep each node's keeper facts (`ZNode.details`: security, statistics, neighbours)? Only the
        # admin tools read them; without those, not keeping them saves ~5 MB at 4,000 nodes.
        self.keep_details = keep_details
        self.payload_type = payload_type
        self.nodes: dict[int, ZNode] = {}
        self.status = GatewayStatus()
        self.index = ValueTopicIndex(self.nodes)
        self.history: deque[Recorded] = deque(maxlen=history_size)
        self._listeners: list[Listener] = []
        self._load_listeners: list[Callable[[list[ZNode]], None]] = []
        # Raw `_EVENTS` messages (scope, name, data) for those that follow a process (inclusion, interviews).
        self._event_listeners: list[EventListener] = []
        self._clock = clock
        # Momentary values: when each was last reported and what it said (to tell an event's echo of a
        # topic's report from a new press).
        self._presses_heard: dict[str, tuple[float, Any]] = {}
        # Lock events: per node, when the last was heard, what it said and whether from node_notification.
        self._locks_heard: dict[int, tuple[float, tuple[str, int | None], bool]] = {}
        # Firmware updates: per node, the last step of progress the events list was told (firmware.py).
        self._firmware_steps: dict[int, int] = {}
        # Names zwave-mcp gives the users of locks that keep none (User Code), lock node → user → name
        # (`gateway.lock_names`, this home's table): put on `ZNode.access` at every load and read.
        self.given_names: dict[int, dict[int, str]] = {}
        # A lock that keeps its users' names (User Credential) can have them changed by another client
        # (zwave-js-ui's UI, Home Assistant), which never shows on MQTT: before one of its events is named,
        # `reread_users(node_id, then)` reads its users again (the gateway sets it; `then(read)` names
        # the event, without a name when the read failed), unless they were read in the last
        # `USERS_FRESH_S`. Without it (a picture alone) the names last read are used.
        self.reread_users: Callable[[int, Callable[[bool], None]], None] | None = None
        self._users_read_at: dict[int, float] = {}
        # Per node, the values events added since the last load (at most MAX_VALUES_ADDED), and when drops
        # beyond that were last told (with how many were dropped since).
        self._added: dict[int, int] = {}
        self._added_told_at: float | None = None
        self._added_untold = 0

    # ---- picture -------------------------------------------------------------------------------

    def load_nodes(self, getnodes_result: list[dict[str, Any]]) -> None:
        """Replace the picture with a `getNodes` result. Gateway status and listeners are kept."""
        nodes: dict[int, ZNode] = {}
        with long_lived_objects():
            for raw in getnodes_result if isinstance(getnodes_result, list) else []:
                if isinstance(raw, ZNode):  # parsed while decoding (`decode_with_values`)
                    nodes[raw.id] = raw
                elif isinstance(raw, dict):
                    node = parse_node(raw, self.keep_details)
                    if node is not None:
                        nodes[node.id] = node
            now = self._clock()
            for node in nodes.values():
                if node.access is not None:
                    self._users_read_at[node.id] = now  # getNodes carries each lock's access state
                if node.access is not None and node.id in self.given_names:
                    node.access = self._named(node.id, node.access)
            self.nodes = nodes
            self._added.clear()  # the load brought every value each node has
            # Presses heard are kept only to tell an echo within PRESS_ECHO_S: the older ones go, or the
            # ids of values a load took away (and made-up ones) would stay for as long as the server runs.
            now = self._clock()
            self._presses_heard = {
                vid: heard for vid, heard in self._presses_heard.items() if now - heard[0] < PRESS_ECHO_S
            }
            self.index.rebuild(nodes)
        # A load replaces the picture without Changes; the history compares it with what it stored.
        for cb in list(self._load_listeners):
            try:
                cb(list(nodes.values()))
            except Exception:
                logger.warning("inventory load listener failed", exc_info=True)

    def node(self, node_id: int) -> ZNode | None:
        return self.nodes.get(node_id)

    def value(self, value_id: str) -> ZValue | None:
        """A value by zwave-js-ui id (`"2-37-0-currentValue"`); the node id is its first part."""
        head, _, _ = value_id.partition("-")
        if not head.isdigit():
            return None
        node = self.nodes.get(int(head))
        return node.values.get(value_id) if node is not None else None

    # ---- listeners -----------------------------------------------------------------------------

    def add_listener(self, cb: Listener) -> Callable[[], None]:
        self._listeners.append(cb)

        def unsubscribe() -> None:
            if cb in self._listeners:
                self._listeners.remove(cb)

        return unsubscribe

    def add_load_listener(self, cb: Callable[[list[ZNode]], None]) -> None:
        """Called with the nodes after every `load_nodes`."""
        self._load_listeners.append(cb)

    def add_event_listener(self, cb: EventListener) -> None:
        self._event_listeners.append(cb)

    def rename(
        self, node_id: int, name: str | None = None, location: str | None = None
    ) -> list[InventoryEvent]:
        """What zwave-js-ui now calls a node (after the gate renamed or moved it): names, the topic
        index (old topics stay mapped until each value is published again) and listeners follow at once."""
        changes = self._learn_node_names(node_id, name, location)
        if changes:
            self._emit(changes)
        return changes

    def _emit(self, changes: list[InventoryEvent]) -> None:
        now = self._clock()
        for change in changes:
            if change.at_ms is None:
                change.at_ms = int(now * 1000)
            self.history.append(Recorded(now, change))
            for cb in list(self._listeners):
                try:
                    cb(change)
                except Exception:
                    logger.warning("inventory listener failed", exc_info=True)

    # ---- ingestion -----------------------------------------------------------------------------

    def apply(
        self, topic: str, payload: bytes, retain: bool = False, info: TopicInfo | None = None
    ) -> list[InventoryEvent]:
        """Route one message into the picture; returns (and emits) what changed. Never raises.

        `info`: `topics.classify(topic)` when the caller has it already. `retain`: delivered from the
        broker's retained store. It matters only for topics the index does not know: a live object payload
        or nodeinfo there is mapped by the ids inside it (and teaches the index a new name); a retained one
        may be a stale leftover under an old name and is ignored."""
        self.status.messages_seen += 1
        self.status.last_message_monotonic = time.monotonic()
        try:
            changes = self._route(topic, payload, retain, info or self.topics.classify(topic))
        except Exception:  # a bug here must not kill the MQTT callback thread
            logger.warning("failed to apply message on %s", topic, exc_info=True)
            return []
        if changes:
            self._emit(changes)
        return changes

    def _undecodable(self, topic: str, result: Undecodable) -> list[InventoryEvent]:
        self.status.undecodable_count += 1
        logger.debug("undecodable payload on %s: %s (%d bytes)", topic, result.reason, result.size)
        return []

    def _route(self, topic: str, payload: bytes, retain: bool, info: TopicInfo) -> list[InventoryEvent]:
        kind = info.kind
        if kind is TopicKind.NODE:
            return self._node_topic(topic, info.rest, payload, retain)
        if kind is TopicKind.EVENT:
            data = decode_event(payload)
            if isinstance(data, Undecodable):
                logger.warning("dropped an event zwave-js-ui cannot have sent on %s: %s", topic, data.reason)
                return self._undecodable(topic, data)
            scrub_event(info.name, data)  # lock codes go no further than here
            for listener in list(self._event_listeners):
                try:
                    listener(info.scope, info.name, data)
                except Exception:
                    logger.warning("event listener failed", exc_info=True)
            return self._event(info.scope, info.name, data)
        if kind is TopicKind.CLIENT_STATUS:
            cs = decode_client_status(payload)
            if isinstance(cs, Undecodable):
                return self._undecodable(topic, cs)
            old = self.status.client_online
            self.status.client_online = cs.online
            self.status.client_status_time_ms = cs.time_ms
            self.status.will_received = cs.is_last_will
            changes = [InventoryEvent("gateway", None, "client_online", old, cs.online, cs.time_ms)]
            if cs.online is False:
                changes += self._statuses_unknown()
            return changes
        if kind is TopicKind.CLIENT_VERSION:
            version = decode_client_version(payload)
            if isinstance(version, Undecodable):
                return self._undecodable(topic, version)
            return self._gateway_fact("version", outside_text(version, 40))
        if kind is TopicKind.DRIVER_STATUS:
            ready = decode_driver_status(payload)
            if isinstance(ready, Undecodable):
                return self._undecodable(topic, ready)
            return self._set_driver_ready(ready)
        return []  # API replies (caller's), /set requests, foreign topics

    def set_driver_ready(self, ready: bool) -> None:
        """What the API showed of the driver (a call answered, or "not connected"): newer than the
        retained `driver/status`, which can be stale after a crash or missing after a broker restart."""
        self._emit(self._set_driver_ready(ready))

    def _set_driver_ready(self, ready: bool) -> list[InventoryEvent]:
        if not ready:
            self.status.all_nodes_ready = False
        return self._gateway_fact("driver_ready", ready)

    def _gateway_fact(self, fact: str, new: Any) -> list[InventoryEvent]:
        """Set one `GatewayStatus` fact; a "gateway" change named after it when it differs."""
        old = getattr(self.status, fact)
        setattr(self.status, fact, new)
        return [] if old == new else [InventoryEvent("gateway", None, fact, old, new)]

    # ---- node topics ---------------------------------------------------------------------------

    def _node_topic(self, topic: str, rest: str, payload: bytes, retain: bool) -> list[InventoryEvent]:
        hit = self.index.resolve(rest)
        if hit is None:
            return self._unmapped(topic, rest, payload, retain)
        if hit.stale:
            self.status.stale_count += 1
            logger.debug("ignoring %s: node %d has a new name or location", topic, hit.node_id)
            return []
        node = self.nodes.get(hit.node_id)
        if node is None:
            return []
        if hit.attribute is not None:
            return self._node_attribute(topic, node, hit, payload)
        decoded = decode_value(payload, self.payload_type)
        if isinstance(decoded, Undecodable):
            if decoded.reason != "empty":
                reject(node.id, hit.value_id, f"a payload that is {decoded.reason} ({decoded.size} bytes)")
            return self._undecodable(topic, decoded)
        value = node.values.get(hit.value_id or "")
        if value is None:
            return []
        if decoded.value_object is not None:
            obj_id = decoded.value_object.get("id")
            if isinstance(obj_id, str) and obj_id != value.value_id and self.value(obj_id) is not None:
                value = self.value(obj_id) or value  # the payload's own id is lossless
        return self._set_value(value, decoded, live=not retain)

    def _unmapped(self, topic: str, rest: str, payload: bytes, retain: bool) -> list[InventoryEvent]:
        if "/Access_Control/" in rest and not retain:
            # A lock's Access Control event (`…/notification/endpoint_0/Access_Control/Keypad_unlock_operation`):
            # an event, not a value, so no value maps it; it is the node's.
            found = self.index.node_part(rest)
            event = from_topic(found[1], payload) if found is not None else None
            if found is not None and event is not None and found[0] in self.nodes:
                return self._lock_event(self.nodes[found[0]], event, from_event=False)
        # A live message on a topic we do not know may come from a rename we have not heard of.
        # Object payloads and nodeinfo carry ids, so they can be mapped without guessing.
        if not retain and payload[:1] == b"{":
            tail = rest.rsplit("/", 1)[-1]
            if tail == "nodeinfo":
                info = decode_nodeinfo(payload)
                if not isinstance(info, Undecodable) and info["id"] in self.nodes:
                    return self._nodeinfo(self.nodes[info["id"]], info)
            else:
                decoded = decode_value(payload, self.payload_type)
                if isinstance(decoded, ValuePayload) and decoded.value_object is not None:
                    obj = decoded.value_object
                    value = self.value(obj["id"]) if isinstance(obj.get("id"), str) else None
                    if value is not None:
                        changes = self._learn_node_names(
                            value.node_id, obj.get("nodeName"), obj.get("nodeLocation")
                        )
                        return changes + self._set_value(value, decoded, live=True)
        self.status.unmapped_count += 1
        logger.debug("no node value for topic %s", topic)
        return []

    def _node_attribute(self, topic: str, node: ZNode, hit: IndexHit, payload: bytes) -> list[InventoryEvent]:
        if hit.attribute == "status":
            st = decode_node_status(payload)
            if isinstance(st, Undecodable):
                return self._undecodable(topic, st)
            changes: list[InventoryEvent] = []
            if st.available is not None and st.available != node.available:
                node.available = st.available
            if st.status is not None:
                changes += self._set_status(node, st.status, st.time_ms)
            elif st.available is False:  # raw mode: only true/false; false = not available (dead)
                changes += self._set_status(node, "Dead", None)
            elif st.available is True and node.status == "Dead":
                changes += self._set_status(node, "Alive", None)
            return changes
        if hit.attribute == "lastActive":
            la = decode_last_active(payload)
            if isinstance(la, Undecodable):
                return self._undecodable(topic, la)
            node.last_active_ms = la.value
            return []
        info = decode_nodeinfo(payload)
        if isinstance(info, Undecodable):
            return self._undecodable(topic, info)
        return self._nodeinfo(node, info)

    def _nodeinfo(self, node: ZNode, info: wire.Node) -> list[InventoryEvent]:
        old = (node.name, node.location, node.status, node.ready)
        apply_node_fields(node, info, self.keep_details)
        changes: list[InventoryEvent] = []
        if (node.name, node.location) != old[:2]:
            changes.append(self._renamed(node, old[0], old[1]))
        if node.status != old[2]:
            changes.append(InventoryEvent("status", node.id, None, old[2], node.status))
        if node.ready != old[3]:
            changes.append(InventoryEvent("node", node.id, None, {"ready": old[3]}, {"ready": node.ready}))
        return changes

    def _statuses_unknown(self) -> list[InventoryEvent]:
        """zwave-js-ui is gone: nobody watches the nodes, so "Alive" would be a claim we cannot make.
        The next getNodes (when it is back) brings the real statuses."""
        changes: list[InventoryEvent] = []
        for node in self.nodes.values():
            if node.status != "Unknown":
                changes.append(InventoryEvent("status", node.id, None, node.status, "Unknown"))
                node.status = "Unknown"
        return changes

    def _set_status(self, node: ZNode, status: str, at_ms: int | None) -> list[InventoryEvent]:
        if node.status == status:
            return []
        old = node.status
        node.status = status
        if status == "Dead":
            node.available = False
        elif status in ("Alive", "Awake", "Asleep"):
            node.available = True
        return [InventoryEvent("status", node.id, None, old, status, at_ms)]

    def _set_value(self, value: ZValue, decoded: ValuePayload, live: bool = False) -> list[InventoryEvent]:
        if is_secret_value(value.command_class, value.property):
            return []  # a lock code (retained user_code topics): never kept, never news
        old = value.value
        new = decoded.value
        typed = decoded.value_object.get("type") if decoded.value_object is not None else None
        if (problem := json_problem(new) or type_problem(typed or value.type, new)) is not None:
            reject(value.node_id, value.value_id, f"its new value: {problem}")
            return []
        if is_momentary(value):
            return self._press(value, new, decoded.time_ms, live)
        old_time = value.last_update_ms
        value.value = new
        if decoded.time_ms is not None:
            value.last_update_ms = decoded.time_ms
        elif live:
            # Raw payloads carry no time; a live one was just reported, a retained one is of unknown age.
            value.last_update_ms = int(self._clock() * 1000)
        if decoded.value_object is not None:
            _apply_metadata(value, decoded.value_object)
        if decoded.deleted:
            return (
                [] if old is None else [InventoryEvent("removed", value.node_id, value.value_id, old, None)]
            )
        if old == new and type(old) is type(new) and value.last_update_ms == old_time:
            return []
        return [InventoryEvent("value", value.node_id, value.value_id, old, new, decoded.time_ms)]

    def _press(
        self, value: ZValue, new: Any, time_ms: int | None, live: bool, from_event: bool = False
    ) -> list[InventoryEvent]:
        """A momentary value's report (a button press): one InventoryEvent per press, even when it repeats the
        last one. zwave-js-ui clears the value 1 s later (no report from the device: ignored, so the last
        press stays in the picture), and tells each press twice when events are on, on the value topic and
        then as `node_value_updated`: an event that repeats the topic's report heard just before is that
        same press. A retained copy is old news, never a press."""
        if new is None or not live:
            return []
        if time_ms is not None and time_ms == value.last_update_ms and new == value.value:
            return []  # the same message again (a QoS 1 redelivery), not a second press
        now = self._clock()
        heard = self._presses_heard.get(value.value_id)
        if from_event and heard is not None and heard[1] == new and now - heard[0] < PRESS_ECHO_S:
            return []
        self._presses_heard[value.value_id] = (now, new)
        old = value.value
        value.value = new
        value.last_update_ms = time_ms if time_ms is not None else int(now * 1000)
        if not value.stateless:
            value.update_meta(stateless=True)
        return [InventoryEvent("value", value.node_id, value.value_id, old, new, time_ms, momentary=True)]

    def _learn_node_names(self, node_id: int, name: Any, location: Any) -> list[InventoryEvent]:
        node = self.nodes.get(node_id)
        if node is None:
            return []
        old = (node.name, node.location)
        if isinstance(name, str):
            node.name = name
        if isinstance(location, str):
            node.location = location
        if (node.name, node.location) == old:
            return []
        return [self._renamed(node, *old)]

    def _renamed(self, node: ZNode, old_name: str, old_location: str) -> InventoryEvent:
        """The topic index follows the new name; listeners hear of it."""
        self.index.update_node(node)
        return InventoryEvent(
            "node",
            node.id,
            None,
            {"name": old_name, "location": old_location},
            {"name": node.name, "location": node.location},
        )

    # ---- events --------------------------------------------------------------------------------

    def _event(self, scope: str, name: str, data: list[Any]) -> list[InventoryEvent]:
        if scope == "node":
            return self._node_event(name, data)
        if scope == "driver":
            if name == "driver_ready":
                return self._set_driver_ready(True)
            if name == "all_nodes_ready":
                return self._gateway_fact("all_nodes_ready", True)
            if name == "driver_error":
                first = data[0] if data else None
                message = first.get("message") if isinstance(first, dict) else first
                said = outside_text(message)  # kept in health and the history, said in every event list
                self.status.last_driver_error = said
                return [InventoryEvent("gateway", None, "driver_error", None, said)]
            return []
        if scope == "controller" and name == "status_changed" and data:
            code = data[0]
            text = (
                CONTROLLER_STATUSES.get(code, f"status {code}")
                if isinstance(code, int)
                else outside_text(code)
            )
            return self._gateway_fact("controller_status", text)
        return []

    def _node_event(self, name: str, data: list[Any]) -> list[InventoryEvent]:
        summary = data[0] if data and isinstance(data[0], dict) else None
        if summary is None or not isinstance(summary.get("id"), int):
            return []
        node = self.nodes.get(summary["id"])
        if node is None:
            return []
        # Events are never retained, so their node summary is current: learn renames from it.
        changes = self._learn_node_names(node.id, summary.get("name"), summary.get("location"))
        if name in _STATUS_EVENTS:
            changes += self._set_status(node, _STATUS_EVENTS[name], None)
        elif name == "node_ready":
            if not node.ready:
                node.ready = True
                changes.append(InventoryEvent("node", node.id, None, {"ready": False}, {"ready": True}))
            status = _NODE_STATUS_BY_NUMBER.get(summary.get("status", -1))
            if status is not None and status != "Unknown":
                changes += self._set_status(node, status, None)
        elif name in ("node_value_updated", "node_value_added") and len(data) > 1:
            naming = _naming_change(data[1])
            if naming is not None:
                # A rename in zwave-js-ui (its UI, its API, another client): zwave-js holds the name and
                # room as Node Naming and Location values, and this event is all zwave-js-ui publishes for
                # it. The value itself says a room was cleared, which the summary (no "location") cannot.
                changes += self._learn_node_names(node.id, *naming)
            changes += self._value_event(node, data[1], added=name == "node_value_added")
        elif (
            name == "statistics_updated" and len(data) > 1 and isinstance(data[1], dict) and self.keep_details
        ):
            node.details["statistics"] = data[1]  # node statistics: RTT, errors, last seen
        elif name == "node_metadata_updated" and len(data) > 1:
            self._metadata_event(node, data[1])
        elif name == "node_notification" and len(data) > 2:
            event = from_notification(data[1], data[2])
            if event is not None:
                changes += self._lock_event(node, event, from_event=True)
        elif (firmware := firmware_event(node.id, name, data, self._firmware_steps)) is not None:
            changes.append(firmware)
        return changes

    def set_access(self, node_id: int, access: Any) -> Any:
        """A lock's users as just read from zwave-js-ui (`gateway.access.LockUsers`, no codes): the names
        its next events are said with. Returns them with the names zwave-mcp gives (`given_names`)."""
        access = self._named(node_id, access)
        node = self.nodes.get(node_id)
        if node is not None:
            node.access = access
            self._users_read_at[node_id] = self._clock()
        return access

    def name_lock_user(self, node_id: int, user_id: int, name: str | None) -> None:
        """Give (or, with None, take back) the name of a user of a lock that keeps no names."""
        names = self.given_names.setdefault(node_id, {})
        if name:
            names[user_id] = name
        else:
            names.pop(user_id, None)
        node = self.nodes.get(node_id)
        if node is not None and node.access is not None:
            node.access = self._named(node_id, node.access)

    def _named(self, node_id: int, access: Any) -> Any:
        with_names = getattr(access, "with_names", None)
        return with_names(self.given_names.get(node_id, {})) if with_names is not None else access

    def _lock_event(self, node: ZNode, event: LockEvent, from_event: bool) -> list[InventoryEvent]:
        """One lock operation (keypad, manual, remote, auto; with its user): a "lock" event whose `new` is
        the event as kept (`LockEvent.as_stored`, with the user's name when the lock's users name them).
        zwave-js-ui tells each event twice, on its topic and as `node_notification` ~1 ms apart: the
        second telling is dropped."""
        now = self._clock()
        said = (event.kind.key, event.user_id)
        heard = self._locks_heard.get(node.id)
        if heard is not None and heard[1] == said and heard[2] != from_event and now - heard[0] < LOCK_ECHO_S:
            return []
        self._locks_heard[node.id] = (now, said, from_event)
        if event.user_id is not None and self.reread_users is not None and self._names_stale(node, now):

            def then(read: bool) -> None:  # the users as read just now: the name the user has at the event
                fresh = self.nodes.get(node.id)
                name = user_name(fresh, event.user_id) if read and fresh is not None else None
                self._emit(
                    [InventoryEvent("lock", node.id, None, None, event.as_stored(name), event.time_ms)]
                )

            self.reread_users(node.id, then)
            return []
        stored = event.as_stored(user_name(node, event.user_id))
        return [InventoryEvent("lock", node.id, None, None, stored, event.time_ms)]

    def _names_stale(self, node: ZNode, now: float) -> bool:
        """The lock keeps its users' names and they were not read in the last `USERS_FRESH_S`."""
        rules = getattr(node.access, "rules", None)
        if rules is None or not getattr(rules, "names", False):
            return False
        return now - self._users_read_at.get(node.id, -math.inf) > USERS_FRESH_S

    def _event_value(self, node: ZNode, args: Any, create: bool) -> ZValue | None:
        if not isinstance(args, dict):
            return None
        cc, prop = args.get("commandClass"), args.get("property")
        if not isinstance(cc, int) or prop is None:
            return None
        raw_endpoint = args.get("endpoint")
        endpoint = raw_endpoint if isinstance(raw_endpoint, int) else 0
        vid = f"{node.id}-{wire.value_key(cc, endpoint, prop, args.get('propertyKey'))}"
        value = node.values.get(vid)
        if value is None and create:
            added = self._added.get(node.id, 0)
            if added >= MAX_VALUES_ADDED:
                self._drop_added(node.id, vid)
                return None
            raw = {**args, "id": vid, "nodeId": node.id, "endpoint": endpoint}
            metadata = args.get("metadata")
            if isinstance(metadata, dict):
                raw.update(metadata)
            elif metadata is not None:
                reject(node.id, vid, f"metadata is {json_kind(metadata)}, zwave-js sends an object")
            raw.pop("value", None)
            value = parse_value(cast(wire.Value, raw), node.id)
            if value is not None:
                node.values[vid] = value
                self._added[node.id] = added + 1
                self.index.invalidate_values(node.id)
        return value

    def _drop_added(self, node_id: int, value_id: str) -> None:
        """A value beyond MAX_VALUES_ADDED for its node: dropped, and told in one line per
        ADDED_DROPS_TOLD_EVERY_S (a flood would otherwise write a line per value)."""
        self.status.added_dropped_count += 1
        self._added_untold += 1
        now = self._clock()
        if self._added_told_at is not None and now - self._added_told_at < ADDED_DROPS_TOLD_EVERY_S:
            return
        logger.warning(
            "dropped %d value(s) that events added beyond %d a node since the last load (the last: node %d, "
            "value %s); the next load brings every value a node really has",
            self._added_untold,
            MAX_VALUES_ADDED,
            node_id,
            plain_text(value_id, 80),
            extra={"node": node_id, "dropped": self._added_untold},
        )
        self._added_told_at = now
        self._added_untold = 0

    def _value_event(self, node: ZNode, args: Any, added: bool) -> list[InventoryEvent]:
        value = self._event_value(node, args, create=True)
        if value is None or "newValue" not in args or is_secret_value(value.command_class, value.property):
            return []
        new = args["newValue"]
        if (problem := json_problem(new) or type_problem(value.type, new)) is not None:
            reject(node.id, value.value_id, f"its new value: {problem}")
            return []
        if is_momentary(value) or args.get("stateless") is True:
            return self._press(value, new, None, True, from_event=True)
        old = value.value
        value.value = new
        if old == new and type(old) is type(new):
            return []
        return [InventoryEvent("value", node.id, value.value_id, old, new)]

    def _metadata_event(self, node: ZNode, args: Any) -> None:
        value = self._event_value(node, args, create=True)
        meta = args.get("metadata") if isinstance(args, dict) else None
        if value is not None and isinstance(meta, dict):
            _apply_metadata(value, cast(wire.Metadata, meta))  # which checks each key


def user_name(node: ZNode, user_id: int | None) -> str | None:
    """The name of a lock's user as its access control has it (`ZNode.access`), None when unnamed."""
    access = node.access
    if user_id is None or access is None:
        return None
    try:
        user = access.user(user_id)
    except Exception:  # an access picture of another shape: no name rather than no event
        return None
    name = getattr(user, "name", None)
    return plain_text(name) or None if isinstance(name, str) else None


def _naming_change(args: Any) -> tuple[str | None, str | None] | None:
    """(name, location) from a Node Naming and Location value event (one of them None), else None: zwave-js
    keeps a node's name and room as values of that command class."""
    if not isinstance(args, dict) or args.get("commandClass") != CC.NODE_NAMING_AND_LOCATION:
        return None
    new = args.get("newValue")
    if not isinstance(new, str):
        return None
    prop = args.get("property")
    if prop == "name":
        return new, None
    if prop == "location":
        return None, new
    return None


def _apply_metadata(value: ZValue, meta: wire.Metadata) -> None:
    """Refresh a value's metadata from a value object or a metadata event (only keys present; one of a
    type zwave-js does not send is dropped, with one line)."""
    for key, wanted, fits in _METADATA_TYPES:
        item = meta.get(key)
        if item is not None and not fits(item):
            problem = json_problem(item) if type(item) in (int, float) else None
            said = problem or f"{json_kind(item)}, zwave-js sends {wanted}"
            reject(value.node_id, value.value_id, f"metadata {key} is {said}")
    changes: dict[str, Any] = {}
    if isinstance(meta.get("label"), str):
        changes["label"] = plain_text(meta["label"])
    if isinstance(meta.get("type"), str):
        changes["type"] = meta["type"]
    for attr in ("readable", "writeable"):
        if isinstance(meta.get(attr), bool):
            changes[attr] = meta[attr]
    if isinstance(meta.get("unit"), str):
        changes["unit"] = plain_text(meta["unit"], UNIT_MAX)
    for attr in ("min", "max"):
        raw = meta.get(attr)
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            changes[attr] = as_float(raw)  # None for an integer beyond any float
    states = meta.get("states")
    if isinstance(states, dict):  # zwave-js metadata form {"<value>": "<text>"}
        changes["states"] = [ValueState(_state_key(k), plain_text(str(v))) for k, v in states.items()]
    elif isinstance(states, list):
        changes["states"] = parse_states(states)
    value.update_meta(**changes)


def _is_number(item: Any) -> bool:
    return type(item) in (int, float) and json_problem(item) is None


_METADATA_TYPES: tuple[tuple[str, str, Callable[[Any], bool]], ...] = (
    ("label", "text", lambda item: isinstance(item, str)),
    ("type", "text", lambda item: isinstance(item, str)),
    ("unit", "text", lambda item: isinstance(item, str)),
    ("readable", "true or false", lambda item: isinstance(item, bool)),
    ("writeable", "true or false", lambda item: isinstance(item, bool)),
    ("min", "a number", _is_number),
    ("max", "a number", _is_number),
    ("states", "an object or a list", lambda item: isinstance(item, dict | list)),
)


def _state_key(key: str) -> int | str:
    """zwave-js writes a state's number as text ("1"); anything else stays text."""
    try:
        return int(key) if len(key) < 20 else key
    except ValueError:  # "²", "--5", "open": not a number int() takes
        return key


__all__ = ["CONTROLLER_STATUSES", "GatewayStatus", "Inventory", "Recorded"]
