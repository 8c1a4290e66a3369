"""`Simulator`: a zwave-js-ui MQTT gateway emulated on any broker, from a house of getNodes-shaped dicts.

It talks MQTT 3.1.1 like zwave-js-ui's mqtt.js client: last will on `_CLIENTS/.../status`, QoS 1,
retained state topics, non-retained events and API replies.

Restarts behave like the real gateway's ("Observed later on the real gateway" in the captures' README):
every API answers "Z-Wave client not connected" until the driver is ready; for `timing.nodes_ready`
after that, getNodes lists every node not ready, status Unknown, without values, then (with
`timing.node_ready_gap`) each with its values as it comes up, node by node; after a crash the
retained `driver/status` true from before stays on the broker until the new driver is ready; after a
broker restart (no persistence) only the client status and version are published again. `restart()`
(or a message on `restart_topic`, outside zwave-js-ui's API) replays a graceful or crash restart. It never imports `zwave_mcp.gateway`'s
client-side code, so tests against it check our client against an independent model of the captures.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import random
import socket
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from zwave_mcp.simulator import api, devices, locks, naming, payloads
from zwave_mcp.simulator.admin import Admin
from zwave_mcp.simulator.dumps import key_of
from zwave_mcp.simulator.firmware import Firmware
from zwave_mcp.simulator.host import LockSide
from zwave_mcp.simulator.house import BROADCAST_ID, CONTROLLER_ID, Node, load_house, sleeps
from zwave_mcp.simulator.scheduler import Action, Radio, Scheduler
from zwave_mcp.simulator.settings import SimConfig, Timing
from zwave_mcp.zwave.classes import CC, MeterProps, MultilevelSensorProps, SwitchProps
from zwave_mcp.zwave.wire import value_key

log = logging.getLogger(__name__)

APP_VERSION = "11.22.2"
RESTART_MODES = ("graceful", "crash")
# The values the simulated house changes by itself: a sensor's temperature, a plug's watts, motion.
_AIR_TEMPERATURE = value_key(CC.MULTILEVEL_SENSOR, 0, MultilevelSensorProps.AIR_TEMPERATURE)
_ELECTRIC_WATTS = value_key(
    CC.METER, 0, MeterProps.VALUE, 66049
)  # key: electric (1 << 16), W (2 << 8), consumed (1)
_SWITCH_STATE = value_key(CC.BINARY_SWITCH, 0, SwitchProps.CURRENT)
_MOTION = value_key(CC.BINARY_SENSOR, 0, "Motion")
_MOTION_STATUS = value_key(CC.NOTIFICATION, 0, "Home Security", "Motion sensor status")


def rebase_times(nodes: list[Node], now_ms: int) -> None:
    """Move a house's report times (`lastUpdate`, `lastActive`) so that its latest is now, keeping how far
    apart they are: a house recorded days ago, started a minute ago, does not have a battery "read 5 days
    ago" (its battery was read a few minutes before its other reports, as in the recording)."""
    times = [
        t
        for node in nodes
        for t in (
            node.get("lastActive"),
            *(v.get("lastUpdate") for v in (node.get("values") or {}).values() if isinstance(v, dict)),
        )
        if isinstance(t, int) and not isinstance(t, bool)
    ]
    if not times:
        return
    shift = now_ms - max(times)
    for node in nodes:
        if isinstance(node.get("lastActive"), int) and not isinstance(node["lastActive"], bool):
            node["lastActive"] += shift
        for value in (node.get("values") or {}).values():
            if isinstance(value, dict) and isinstance(value.get("lastUpdate"), int):
                value["lastUpdate"] += shift


class Simulator:
    """Start with `start()`; `stop()` is the graceful SIGTERM, `crash()` the SIGKILL (last will)."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 1883,
        house: list[Node] | str | None = None,
        config: SimConfig | None = None,
        scenes: list[dict[str, Any]] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.config = config or SimConfig()
        self.timing: Timing = self.config.timing
        nodes = house if isinstance(house, list) else load_house(house)
        rebase_times(nodes, payloads.now_ms())
        self.nodes: dict[int, Node] = {int(n["id"]): n for n in nodes}
        self.scenes: list[dict[str, Any]] = [dict(s) for s in scenes or []]
        # Faults (see "fault injection" below): a silent device, late writeValue replies.
        self.silent = False
        self.write_reply_delay = 0.0
        self.multicast_unanswered = False
        self.multicast_missed: set[int] = set()
        # (node id, currentValue id) → the last non-zero level, what a dimmer goes back to on Set 0xFF.
        self.last_levels: dict[tuple[int, str], Any] = {}
        # (node id, "name" or "loc") → the Node Naming and Location value zwave-js holds, once set by the API.
        self._naming_held: dict[tuple[int, str], str] = {}
        # What the devices' association groups hold (simulator/associations.py fills it as it is asked).
        self.associations: dict[int, dict[tuple[int, int], list[dict[str, int]]]] = {}
        self.ready = threading.Event()
        self.driver_up = False  # zwave-js-ui's `driverReady`: its API answers only while this holds
        self.interviewing = False  # driver ready, nodes not yet: getNodes lists them empty
        self._lock = threading.RLock()
        self._topic_values: dict[str, tuple[int, str]] = {}
        self._wake_queue: dict[int, list[Action]] = {}
        self._client: mqtt.Client | None = None
        self._connected = threading.Event()
        self._running = False
        self._started_at = time.monotonic()
        self._rng = random.Random(0)
        self.scheduler = Scheduler()
        self.radio = Radio(self.scheduler)
        self.admin = Admin(self)  # inclusion, health checks, route rebuilds (simulator/admin.py)
        self.firmware = Firmware(self)  # the firmware service and updates (simulator/firmware.py)
        self.lock_side = LockSide()  # what the locks keep that zwave-js-ui does not show (lock_extras.py)

    # ------------------------------------------------------------------ lifecycle
    @property
    def client_id(self) -> str:
        suffix = self.config.client_id_suffix
        if suffix is None:
            suffix = uuid.uuid4().hex[:8]
        return naming.client_name(self.config) + (f"_{suffix}" if suffix else "")

    def start(self, wait: bool = True, timeout: float = 10.0) -> None:
        """Connect, publish `version` and `status`, then (after `timing.driver_ready`) the driver, node
        statuses and every cached value, in the recorded order. With `wait`, return once all is out."""
        if self._running:
            return
        if not self.scheduler._thread.is_alive():  # stopped by the last stop or crash
            self.scheduler = Scheduler()
            self.radio = Radio(self.scheduler)
        self.ready.clear()
        self._connected.clear()
        self._started_at = time.monotonic()
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            protocol=mqtt.MQTTv311,
            clean_session=True,
        )
        client.will_set(naming.clients_topic(self.config, "status"), '{"value":false}', qos=1, retain=True)
        client.on_connect = self._on_connect
        # zwave-js-ui retries every 3 s (mqtt.reconnectPeriod 3000 in the captured settings).
        client.reconnect_delay_set(min_delay=1, max_delay=3)
        client.on_message = self._on_message
        client.on_socket_open = _no_delay
        self._client = client
        self._running = True
        client.connect(self.host, self.port, keepalive=self.config.keepalive)
        client.loop_start()
        if not self._connected.wait(timeout):
            self._running = False
            client.loop_stop()
            raise TimeoutError(f"simulator could not connect to {self.host}:{self.port}")
        coming_up = self.timing.nodes_ready + self.timing.node_ready_gap * len(self.nodes)
        if wait and not self.ready.wait(timeout + self.timing.driver_ready + coming_up):
            raise TimeoutError("simulator start-up publishing did not finish")

    @property
    def online(self) -> bool:
        """Connected to the broker right now (paho reconnects by itself after a broker restart)."""
        client = self._client
        return self._running and client is not None and client.is_connected()

    def stop(self) -> None:
        """Graceful stop (SIGTERM): only `driver/status` false, then a clean DISCONNECT, so the broker
        drops the will and `_CLIENTS/.../status` stays a stale `true`."""
        client = self._going_down()
        if client is None:
            return
        try:
            info = client.publish(f"{self.config.prefix}/driver/status", "false", qos=1, retain=True)
            info.wait_for_publish(timeout=3)
        except Exception:
            log.debug("driver/status false not delivered", exc_info=True)
        client.disconnect()
        client.loop_stop()
        self._client = None

    def crash(self) -> None:
        """Drop the TCP connection without DISCONNECT (SIGKILL): the broker publishes the last will."""
        client = self._going_down()
        if client is None:
            return
        sock = client.socket()
        # The connection dies first, as with a killed process (the broker publishes the will at once);
        # then the network thread stops (it may take a second) without ever sending DISCONNECT.
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        client.loop_stop()
        if isinstance(sock, socket.socket):
            sock.close()
        self._client = None

    def _going_down(self) -> mqtt.Client | None:
        """What a stop and a crash share: the driver goes, its timers and radio queue with it. The client
        to disconnect, None when not running."""
        client = self._client
        if not self._running or client is None:
            return None
        self._running = False
        self.scheduler.stop()
        self.radio.reset()
        self.driver_up = False
        self.interviewing = False
        return client

    @property
    def restart_topic(self) -> str:
        """Publish `graceful` (default) or `crash` here to restart the simulator: a demo and test hook
        that is not part of zwave-js-ui's API."""
        return naming.restart_topic(self.config)

    def restart(self, mode: str = "graceful", downtime: float | None = None) -> threading.Thread:
        """Stop (`graceful`, SIGTERM) or crash (`crash`, SIGKILL), then start again after `downtime`
        seconds (default `timing.restart_downtime`), on a thread of its own (so it may be called from
        an MQTT callback); returns that thread."""
        if mode not in RESTART_MODES:
            raise ValueError(f"restart mode must be one of {RESTART_MODES}, not {mode!r}")
        pause = self.timing.restart_downtime if downtime is None else downtime

        def run() -> None:
            log.info("simulator restart (%s)", mode)
            (self.crash if mode == "crash" else self.stop)()
            time.sleep(max(0.0, pause))
            try:
                self.start(wait=False)
            except (OSError, TimeoutError):
                log.warning("simulator could not start again after a %s restart", mode, exc_info=True)

        thread = threading.Thread(target=run, name="zwave-sim-restart", daemon=True)
        thread.start()
        return thread

    # ------------------------------------------------------------------ state helpers (used by devices/api)
    def node(self, node_id: Any) -> Node | None:
        if isinstance(node_id, bool) or not isinstance(node_id, int):
            return None
        return self.nodes.get(node_id)

    def uptime(self) -> float:
        return time.monotonic() - self._started_at

    def publish(self, topic: str, payload: str, retain: bool = True) -> None:
        client = self._client
        if client is None or not self._running:
            return
        client.publish(topic, payload, qos=1, retain=retain)

    def naming_value(self, node: Node, field: str) -> str | None:
        """The name ("name") or room ("loc") zwave-js holds as a Node Naming and Location value, None if it
        holds none: a name or room the house came with is held, an empty one never was set."""
        key = (int(node["id"]), field)
        if key in self._naming_held:
            return self._naming_held[key]
        return str(node[field]) if node.get(field) else None

    def hold_naming_value(self, node: Node, field: str, value: str) -> None:
        self._naming_held[(int(node["id"]), field)] = value

    def event(self, kind: str, name: str, data: list[Any]) -> None:
        if self.config.send_events:
            self.publish(
                naming.events_topic(self.config, kind, name), payloads.dumps({"data": data}), retain=False
            )

    def publish_value(self, node: Node, value: dict[str, Any]) -> None:
        topic = naming.value_topic(node, value, self.config)
        key = key_of(value)
        with self._lock:
            # zwave-js-ui maps `/set` topics from what it has published (so a rename is not seen until
            # each value is published again, and the old topic keeps working).
            self._topic_values[topic] = (int(node["id"]), key)
        self.publish(
            topic, payloads.value_payload(value, node, self.config), retain=not value.get("stateless")
        )

    def set_value(self, node: Node, value: dict[str, Any], new: Any) -> None:
        with self._lock:
            prev = value.get("value")
            value["value"] = new
            value["lastUpdate"] = payloads.now_ms()
            self.publish_value(node, value)
            self.event(
                "node",
                "node_value_updated",
                [payloads.node_summary(node), payloads.value_event_args(value, prev)],
            )

    def touch(self, node: Node) -> None:
        """A frame from the node: `lastActive` moves."""
        with self._lock:
            node["lastActive"] = payloads.now_ms()
            self.publish(
                naming.node_topic(node, self.config) + "/lastActive",
                payloads.last_active_payload(node, self.config),
            )

    def publish_status(self, node: Node) -> None:
        base = naming.node_topic(node, self.config)
        self.publish(base + "/status", payloads.node_status_payload(node, self.config))
        if self.config.publish_node_details:
            self.publish(base + "/nodeinfo", payloads.nodeinfo_payload(node))

    def reply(self, api_name: str, body: dict[str, Any]) -> None:
        self.publish(naming.clients_topic(self.config, f"api/{api_name}"), payloads.dumps(body), retain=False)

    # ------------------------------------------------------------------ fault injection and device events
    def lock_event(self, node_id: int, event: str, user_id: int | None = None, extra: Any = None) -> None:
        """A keypad lock's Access Control event as zwave-js-ui publishes it (`simulator/locks.py`):
        `event` one of `locks.EVENTS` ("keypad_unlock", "manual_lock", "auto_lock", …)."""
        with self._lock:
            locks.lock_event(self, node_id, event, user_id, extra)

    def lock_state(self, node_id: int, which: str, state: str) -> None:
        """A lock's state value: "Lock state" jammed/idle, "Keypad state" disabled/idle."""
        with self._lock:
            locks.lock_state(self, node_id, which, state)

    def kill_node(self, node_id: int) -> None:
        """Dead status + `node_dead`; later writes fail with status 2 after `timing.dead_fail`."""
        with self._lock:
            node = self.nodes[node_id]
            node["status"] = "Dead"
            node["available"] = False
            self.publish_status(node)
            self.event("node", "node_dead", [payloads.node_summary(node)])

    def fail_polls(self, failing: bool = True) -> None:
        """The devices stop answering Gets: `pollValue` fails ("did not acknowledge", ZW0204) and the
        re-poll zwave-js makes ~1.1 s after an unsupervised write publishes nothing. The optimistic value
        zwave-js publishes with the write's reply still goes out: it is zwave-js's guess, not a report."""
        self.silent = failing

    def delay_write_replies(self, seconds: float) -> None:
        """`writeValue` replies come this much later than the write is carried out (0: as recorded), e.g.
        past the client's API timeout while the device has long reported its new state."""
        self.write_reply_delay = max(0.0, seconds)

    def stop_answering_multicast(self) -> None:
        """`writeMulticast` is never answered and reaches no node, as on a stick that cannot multicast (the
        real test bed's mock stick: zwave-js-ui's call never returns)."""
        self.multicast_unanswered = True

    def miss_multicast(self, node_id: int) -> None:
        """`writeMulticast` is answered, but node `node_id` never hears it, as a node out of the controller's
        direct range (a multicast is not routed): zwave-js still publishes its optimistic value, and the
        node stays as it was until it is written on its own."""
        self.multicast_missed.add(node_id)

    def add_scene(self, label: str, values: list[dict[str, Any]]) -> int:
        """A scene as `_createScene` + `_addSceneValue` would leave it; each value is a ValueID with its
        `value` and `timeout` (seconds). The value `id` is filled in as zwave-js-ui's UI does. Returns the id."""
        with self._lock:
            new_id = max((sc["sceneid"] for sc in self.scenes), default=0) + 1
            entries = []
            for raw in values:
                entry = dict(raw)
                entry.setdefault("id", f"{entry.get('nodeId')}-{key_of(entry)}")
                entry.setdefault("timeout", 0)
                entries.append(entry)
            self.scenes.append({"sceneid": new_id, "label": label, "values": entries})
        return new_id

    def queue_for_wakeup(self, node_id: int, action: Action) -> None:
        with self._lock:
            self._wake_queue.setdefault(node_id, []).append(action)

    def pending_writes(self, node_id: int) -> int:
        with self._lock:
            return len(self._wake_queue.get(node_id, []))

    def wake_up(self, node_id: int, report: bool = False) -> None:
        """A sleeping node's Wake Up Notification: `Awake`, queued writes go out, then `Asleep`."""
        with self._lock:
            node = self.nodes[node_id]
            node["status"] = "Awake"
            self.touch(node)
            self.publish_status(node)
            self.event("node", "node_wakeup", [payloads.node_summary(node), {"wakeUpCount": 1}])
            if report:
                self._sensor_report(node)
            queued = self._wake_queue.pop(node_id, [])
        for action in queued:
            action()
        asleep_after = self.timing.awake_time + len(queued) * self.timing.write_unsupervised * 2
        self.scheduler.call_later(asleep_after, lambda: self._fall_asleep(node_id))

    def _fall_asleep(self, node_id: int) -> None:
        with self._lock:
            if self._wake_queue.get(node_id):
                self.wake_up(node_id)  # writes arrived while awake: they go out now
                return
            node = self.nodes[node_id]
            if node.get("status") != "Awake":
                return
            node["status"] = "Asleep"
            self.publish_status(node)
            self.event("node", "node_sleep", [payloads.node_summary(node)])

    def _sensor_report(self, node: Node) -> None:
        value = node.get("values", {}).get(_AIR_TEMPERATURE)
        if value is not None and isinstance(value.get("value"), int | float):
            self.set_value(node, value, round(float(value["value"]) + self._rng.choice((-0.1, 0.1)), 1))

    # ------------------------------------------------------------------ MQTT callbacks
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("simulator connect refused: %s", reason)
            return
        base = naming.clients_topic(self.config, "")
        client.subscribe(
            [
                (base + "api/#", 1),
                (base + "broadcast/#", 1),
                (base + "multicast/#", 1),
                (self.restart_topic, 1),
                (naming.lock_event_topic(self.config), 1),
            ]
        )
        depths = {len(t.split("/")) for t in self._writable_topics()}
        for depth in sorted(depths):
            client.subscribe("/".join([self.config.prefix, *["+"] * (depth - 1), "set"]), 1)
        first = not self._connected.is_set()
        self._connected.set()
        self.publish(naming.clients_topic(self.config, "version"), payloads.gateway_payload(APP_VERSION))
        self.publish(naming.clients_topic(self.config, "status"), payloads.gateway_payload(True))
        if first:
            self.scheduler.call_later(self.timing.driver_ready, self._driver_ready)

    def _writable_topics(self) -> list[str]:
        return [
            naming.value_topic(node, value, self.config)
            for node in self.nodes.values()
            for value in node.get("values", {}).values()
            if value.get("writeable")
        ]

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            self._dispatch(msg.topic, bytes(msg.payload))
        except Exception:
            log.debug("simulator ignored a message on %s", msg.topic, exc_info=True)

    def _dispatch(self, topic: str, raw: bytes) -> None:
        if topic == self.restart_topic:
            mode = raw.decode("utf-8", "replace").strip().lower() or "graceful"
            if mode in RESTART_MODES:
                self.restart(mode)
            return
        if topic == naming.lock_event_topic(self.config):
            locks.triggered(self, raw)
            return
        if not topic.endswith("/set"):
            return
        clients = naming.clients_topic(self.config, "")
        if topic.startswith(clients + "api/"):
            api.handle(self, topic[len(clients + "api/") : -len("/set")], raw)
        elif topic.startswith(clients + "multicast") or topic.startswith(clients + "broadcast"):
            # Echoed retained at once, before the command runs; the captured stick could not multicast.
            echo = topic[: -len("/set")]
            text = raw.decode("utf-8", "replace")
            self.scheduler.call_later(self.timing.echo, lambda: self.publish(echo, text))
        else:
            self._topic_write(topic[: -len("/set")], raw)

    def _topic_write(self, value_topic: str, raw: bytes) -> None:
        with self._lock:
            target = self._topic_values.get(value_topic)
        if target is None:
            return  # unknown topic: silently ignored, as recorded
        node = self.nodes.get(target[0])
        value = node.get("values", {}).get(target[1]) if node else None
        if node is None or value is None:
            return
        new, options = parse_set_payload(raw)
        if value.get("property") == SwitchProps.CURRENT and isinstance(value.get("targetValue"), str):
            value = node.get("values", {}).get(value["targetValue"]) or value
        if not value.get("writeable"):
            return  # read-only values (a sensor's `Motion/set`) are ignored
        if isinstance(new, bool) and value.get("type") == "number":
            new = 0xFF if new else (value.get("min") or 0)
        vid = {k: value.get(k) for k in ("nodeId", "commandClass", "endpoint", "property")}
        if value.get("propertyKey") is not None:
            vid["propertyKey"] = value["propertyKey"]
        vid["nodeId"] = node["id"]
        devices.write_value(self, vid, new, options, lambda result: None)

    # ------------------------------------------------------------------ start-up publishing
    def _driver_ready(self) -> None:
        """The driver is ready; the nodes are not yet (their values come `timing.nodes_ready` later)."""
        with self._lock:
            self.driver_up = True
            self.interviewing = True
            self.publish(f"{self.config.prefix}/driver/status", "true")
            ordered = sorted(self.nodes.values(), key=lambda n: int(n["id"]))
            for node in ordered:
                if node.get("virtual"):
                    for value in node.get("values", {}).values():
                        self.publish_value(node, value)
            real = [n for n in ordered if not n.get("virtual")]
            for node in real:
                node.update(status="Unknown", ready=False, inited=False)
                self.publish_status(node)
            home = self.config.home_id
            self.event(
                "driver", "driver_ready", [{"homeid": home, "name": f"0x{home:08x}", "controllerId": 1}]
            )
        self.scheduler.call_later(self.timing.nodes_ready, self._nodes_ready)

    def _nodes_ready(self) -> None:
        """The nodes come up one by one, `timing.node_ready_gap` apart, then `all nodes ready`."""
        with self._lock:
            ordered = sorted(self.nodes.values(), key=lambda n: int(n["id"]))
            real = [n for n in ordered if not n.get("virtual")]
            controller = self.nodes.get(CONTROLLER_ID)
            sleepers = [n for n in real if sleeps(n) and n.get("id") != CONTROLLER_ID]
            listeners = [n for n in real if not sleeps(n) and n.get("id") != CONTROLLER_ID]
        steps: list[tuple[Node, str, str, bool]] = []
        if controller is not None:
            steps.append((controller, "Alive", "node_alive", False))
        steps += [(node, "Asleep", "node_sleep", False) for node in sleepers]
        steps += [(node, "Alive", "node_alive", True) for node in listeners]
        self._next_node_up(steps)

    def _next_node_up(self, steps: list[tuple[Node, str, str, bool]]) -> None:
        with self._lock:
            while steps:
                self._node_comes_up(*steps.pop(0))
                if steps and self.timing.node_ready_gap > 0:
                    # A restart meanwhile stops the scheduler, and with it the rest of this start-up.
                    self.scheduler.call_later(self.timing.node_ready_gap, lambda: self._next_node_up(steps))
                    return
            self.interviewing = False
            self.event("driver", "all_nodes_ready", [])
        self._start_periodic()
        self.ready.set()

    def _node_comes_up(self, node: Node, status: str, event: str, announce_active: bool) -> None:
        if announce_active:
            self.publish(
                naming.node_topic(node, self.config) + "/lastActive",
                payloads.last_active_payload(node, self.config),
            )
        node["status"] = status
        self.publish_status(node)
        self.event("node", event, [payloads.node_summary(node)])
        for value in node.get("values", {}).values():
            self.publish_value(node, value)
        node.update(ready=True, inited=True)
        self.publish_status(node)
        self.event("node", "node_ready", [payloads.node_summary(node)])

    # ------------------------------------------------------------------ periodic behaviour
    def _start_periodic(self) -> None:
        if not self.config.periodic:
            return
        t = self.timing
        self._every(t.wakeup_interval, self._wake_sleepers)
        self._every(t.meter_interval, self._meter_reports)
        self._every(t.motion_interval, self._motion)

    def _every(self, interval: float, action: Callable[[], None]) -> None:
        def tick() -> None:
            if not self._running:
                return
            action()
            self.scheduler.call_later(interval, tick)

        self.scheduler.call_later(interval, tick)

    def _wake_sleepers(self) -> None:
        for node in list(self.nodes.values()):
            if sleeps(node) and not node.get("virtual") and node.get("status") == "Asleep":
                self.wake_up(int(node["id"]), report=True)

    def _meter_reports(self) -> None:
        with self._lock:
            for node in list(self.nodes.values()):
                meter = node.get("values", {}).get(_ELECTRIC_WATTS)
                if meter is None or node.get("status") == "Dead":
                    continue
                switch = node.get("values", {}).get(_SWITCH_STATE)
                watts = round(1200 + self._rng.uniform(-25, 25), 1) if switch and switch.get("value") else 0
                self.touch(node)
                self.set_value(node, meter, watts)

    def _motion(self) -> None:
        with self._lock:
            moving = [
                n for n in self.nodes.values() if _MOTION in n.get("values", {}) and n.get("status") != "Dead"
            ]
            for node in moving:
                self._set_motion(node, True)
        for node in moving:
            self.scheduler.call_later(
                self.timing.motion_clear, functools.partial(self._set_motion, node, False)
            )

    def _set_motion(self, node: Node, active: bool) -> None:
        with self._lock:
            values = node.get("values", {})
            self.touch(node)
            for key, new in ((_MOTION_STATUS, 8 if active else 0), (_MOTION, active)):
                value = values.get(key)
                if value is not None:
                    self.set_value(node, value, new)


def parse_set_payload(raw: bytes) -> tuple[Any, Any]:
    """A value-topic write: `{"value": X, "options": {...}}` or a bare value; `on`/`off`/`lock`/`unlock`
    (any case) become booleans."""
    text = raw.decode("utf-8", "replace")
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = text
    options = None
    if isinstance(parsed, dict) and "value" in parsed:
        options = parsed.get("options")
        parsed = parsed["value"]
    if isinstance(parsed, str) and parsed.strip().lower() in ("on", "off", "lock", "unlock"):
        parsed = parsed.strip().lower() in ("on", "lock")
    return parsed, options


def _no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    # Replies are delayed on purpose by the timing profile; Nagle would only add noise on top.
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


__all__ = ["BROADCAST_ID", "RESTART_MODES", "Simulator", "parse_set_payload"]
