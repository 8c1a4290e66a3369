"""`ZwaveGateway`: one zwave-js-ui gateway seen through two MQTT connections to one broker.

The value lane (`transport`) subscribes to everything under the prefix and keeps the live picture; the
control lane (`control`) carries only API requests and their replies, so a reply never queues behind a
flood of value updates. On every (re)connect of the value lane: subscribe, then `getInfo` + `getNodes`
(on the control lane) rebuild the picture, then live topics keep it current. zwave-js-ui's first
`getNodes` after a restart lists its nodes without values, so loads repeat until the picture is whole:
`loader.LoadSchedule` says when (this module only feeds it and runs the loads). Messages that arrive on
the value lane between its subscription and the `getNodes` reply (the broker's retained store, live
updates) are buffered and replayed in order after `load_nodes`. The value lane may still hold older
updates when the reply overtakes them; they are applied in order after the load, so the picture can look
back for a moment but always ends on the latest state, and nothing is lost. Gateway-level topics (client status,
version, driver status) are applied at once so health stays right while loading.

Everything runs on the asyncio loop thread; reads of the inventory are plain dict lookups.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from zwave_mcp.config import Settings
from zwave_mcp.gateway.api import (
    REQUEST_QOS,
    ApiClient,
    ApiReply,
    ApiUnavailable,
    GatewayError,
    WriteResult,
)
from zwave_mcp.gateway.health import GatewayHealth, build_health
from zwave_mcp.gateway.loader import LoadSchedule, assess
from zwave_mcp.gateway.model import Change, ZNode, ZValue
from zwave_mcp.gateway.mqtt import NOT_CONNECTED_YET, MqttTransport
from zwave_mcp.gateway.nodes import decode_with_values
from zwave_mcp.gateway.state import Inventory
from zwave_mcp.gateway.topics import GatewayTopics, TopicKind
from zwave_mcp.safetext import plain_text

log = logging.getLogger(__name__)

# While loading, at most this many messages wait for the getNodes reply (oldest dropped beyond it).
MAX_BUFFERED_MESSAGES = 200_000
# Calls made this soon after start wait for the first load instead of answering "unavailable".
STARTUP_GRACE_S = 10.0
# After a poll, wait at most this long for the value lane to show the polled value (see `poll_value`):
# long enough for any healthy backlog, short enough that a flood cannot hold a call up.
CATCH_UP_MAX_S = 0.1
SETTLE_POLL_S = 0.05  # how often that wait looks whether the broker has failed meanwhile
# The broker hands over its retained messages at once on subscribing, zwave-js-ui's status among them: this
# long after connecting without a word from a zwave-js-ui of our prefix and name, none is there (with room
# for a busy machine; a getNodes that is not answered takes the API timeout, 10 s, to say as much).
SILENT_GATEWAY_S = 2.0
_GATEWAY_KINDS = (TopicKind.CLIENT_STATUS, TopicKind.CLIENT_VERSION, TopicKind.DRIVER_STATUS)
_SKIPPED_KINDS = (TopicKind.SET_REQUEST, TopicKind.FOREIGN)

ValuePredicate = Callable[[ZValue], bool]


def release_freed_memory() -> None:
    """Hand the heap freed after a big load back to the OS (glibc keeps it otherwise; ~100 MB at 4,000
    nodes). Best effort: a no-op where there is no glibc."""
    global _malloc_trim
    if _malloc_trim is None:
        try:
            _malloc_trim = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _malloc_trim = False
    if _malloc_trim:
        _malloc_trim(0)


_malloc_trim: Any = None


class ApiFailed(GatewayError):
    """zwave-js-ui answered `success: false`; the message is its own error text."""


class ZwaveGateway:
    def __init__(self, settings: Settings, inventory: Inventory | None = None) -> None:
        self.settings = settings
        self.topics = GatewayTopics(settings.prefix, settings.gateway_name)
        self.inventory = inventory or Inventory(self.topics, keep_details=settings.admin)
        # The value lane: everything under the prefix, in order, into the live picture. With `auto` it
        # prefers MQTT 3.1.1: it needs nothing of MQTT 5. (When paho parsed its packets, MQTT 5 also
        # halved the rate it could take in; the transport's own reader skips the properties, and both
        # versions now take in the same, bench section 9.)
        self.transport = MqttTransport(
            settings,
            on_message=self._on_message,
            on_connected=self._on_connected,
            on_disconnected=self._on_disconnected,
            prefer_version="3.1.1",
            name="values",
        )
        # The control lane: API requests and their replies only, so a reply never waits behind a backlog
        # of value updates on the value lane's socket (the broker keeps one ordered queue per connection).
        self.control = MqttTransport(
            settings,
            on_message=self._on_control_message,
            on_connected=self._on_control_connected,
            on_disconnected=self._on_control_disconnected,
            client_id_suffix="-control",
            name="api",
        )
        self.api = ApiClient(self.control, self.topics, default_timeout=settings.api_timeout)
        self.api.decoders["getNodes"] = functools.partial(
            decode_with_values, details=self.inventory.keep_details
        )
        self.transport.subscribe(self.topics.subscriptions())
        self.control.subscribe([self.topics.api_replies()])
        self.info: dict[str, Any] = {}
        self.loaded = False  # a getNodes result has been loaded at least once
        self.started_monotonic: float | None = None
        self.last_message_monotonic: float | None = None
        self._connected_monotonic: float | None = None  # the value lane's current connection
        self.gateway_names_seen: set[str] = set()  # zwave-js-ui names publishing under our prefix
        self._loading = False
        self.schedule = LoadSchedule()
        self._own_evidence = False  # the driver status being set comes from our own load
        self._stopping = False
        self._applying_retained = False  # the message being applied came from the broker's store
        self._driver_news = 0  # driver status changes seen; a load only speaks for the driver if none came
        self._buffer: deque[tuple[str, bytes | bytearray, bool]] = deque(maxlen=MAX_BUFFERED_MESSAGES)
        self._sync_task: asyncio.Task[None] | None = None
        self._sync_error: str | None = None
        self._sync_wakeup = asyncio.Event()
        self._synced = asyncio.Event()
        self._value_waiters: dict[str, list[tuple[ValuePredicate, asyncio.Future[ZValue]]]] = {}
        self._status_waiters: dict[int, list[tuple[Callable[[str], bool], asyncio.Future[str]]]] = {}
        self.inventory.add_listener(self._on_change)

    # -- life -------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Connect in the background; returns at once (tools answer "unavailable" until it is up)."""
        self.started_monotonic = time.monotonic()
        self.control.start()
        self.transport.start()

    async def settle(self, grace_s: float = STARTUP_GRACE_S) -> None:
        """Just after start, wait (at most until `grace_s` after start) for the first load.

        A client's first call often comes a few ms after `initialize`; answering it "unavailable" while
        the network is loading would be true but useless. It stops waiting as soon as the broker has
        refused or failed (that is worth saying at once); later outages are reported at once too.
        """
        if self.started_monotonic is None:
            return
        deadline = self.started_monotonic + grace_s
        while (
            not self.loaded
            and time.monotonic() < deadline
            and not self.broker_failed()
            and not self.gateway_silent()
        ):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._synced.wait(), min(SETTLE_POLL_S, deadline - time.monotonic()))

    async def settled_reason(self) -> str | None:
        """`settle`, then why the house cannot be used (None: it can): what a read that needs the house
        (a resource, a prompt) checks first, so it never answers from a house not loaded yet."""
        await self.settle()
        return self.unavailable_reason()

    def broker_failed(self) -> bool:
        """The broker refused a lane or could not be reached since the last connection attempt."""
        return any(
            not lane.connected and lane.last_error not in (None, NOT_CONNECTED_YET)
            for lane in (self.transport, self.control)
        )

    async def stop(self) -> None:
        self._stopping = True
        if self._sync_task is not None:
            self._sync_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._sync_task
            self._sync_task = None
        await self.transport.stop()
        await self.control.stop()
        self.api.fail_all("the Z-Wave service is shutting down")

    async def wait_ready(self, timeout: float) -> bool:
        """Wait (bounded) until the inventory is loaded on the current connection."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._synced.wait(), timeout)
        return self._synced.is_set()

    # -- transport callbacks (loop thread) --------------------------------------------------------------
    def gateway_silent(self) -> bool:
        """Connected for a while, nothing loaded, and not a word from a zwave-js-ui of our prefix and name
        (not even its retained status): a wrong prefix or name, or zwave-js-ui not on this broker."""
        status = self.inventory.status
        return (
            not self.loaded
            and self._connected_monotonic is not None
            and time.monotonic() - self._connected_monotonic >= SILENT_GATEWAY_S
            and status.client_online is None
            and status.version is None
        )

    def _on_connected(self) -> None:
        self._connected_monotonic = time.monotonic()
        self.schedule.want("connected to the broker")
        self._begin_sync()

    def _on_disconnected(self, reason: str) -> None:
        self._connected_monotonic = None
        self._synced.clear()
        self.schedule.disconnected()
        self.api.fail_all(reason)
        if self._sync_task is not None:
            self._sync_task.cancel()
            self._sync_task = None
        self._loading = False
        self._buffer.clear()

    def _on_control_connected(self) -> None:
        # A load that could not ask (no control lane yet) asks now; a loaded picture needs nothing.
        if self.transport.connected and not self._synced.is_set():
            self._begin_sync()

    def _on_control_disconnected(self, reason: str) -> None:
        self.api.fail_all(reason)  # their replies would come on the lane that is gone

    def _on_control_message(self, topic: str, payload: bytes | bytearray, retain: bool) -> None:
        if self.topics.classify(topic).kind is TopicKind.API_REPLY:
            self.api.handle_reply(topic.rpartition("/")[2], payload)

    def _on_message(self, topic: str, payload: bytes | bytearray, retain: bool) -> None:
        self.last_message_monotonic = time.monotonic()
        info = self.topics.classify(topic)
        kind = info.kind
        if kind is TopicKind.API_REPLY or kind in _SKIPPED_KINDS:
            # `<prefix>/#` cannot leave out the API replies; the control lane has its own copy.
            if kind is TopicKind.FOREIGN and topic.endswith("/status") and len(self.gateway_names_seen) < 8:
                self._note_other_gateway(topic)
            return
        elif self._loading and kind not in _GATEWAY_KINDS:
            self._buffer.append((topic, payload, retain))
        else:
            unmapped = self.inventory.status.unmapped_count
            self._applying_retained = retain
            self.inventory.apply(topic, bytes(payload), retain, info)  # classified once per message
            self._applying_retained = False
            if self.inventory.status.unmapped_count != unmapped and self.schedule.picture is not None:
                self._nudge("a value for a node the picture has empty")  # a no-op once it is whole

    def _note_other_gateway(self, topic: str) -> None:
        """A zwave-js-ui of another name under our prefix (its `_CLIENTS/ZWAVE_GATEWAY-<name>/status`)."""
        head = f"{self.settings.prefix}/_CLIENTS/ZWAVE_GATEWAY-"
        if topic.startswith(head):
            name = topic[len(head) : -len("/status")]
            if name and "/" not in name:
                self.gateway_names_seen.add(plain_text(name, 60))

    # -- (re)sync ---------------------------------------------------------------------------------------
    def _begin_sync(self) -> None:
        """Buffer from now on and (re)load; called on connect and when zwave-js-ui comes back."""
        self._synced.clear()
        self._loading = True
        self._wake_sync()

    def _wake_sync(self) -> None:
        if self._sync_task is None or self._sync_task.done():
            if self.transport.connected and not self._stopping:
                self._sync_task = asyncio.get_running_loop().create_task(self._sync(), name="zwave-sync")
        else:
            self._sync_wakeup.set()

    def _nudge(self, reason: str) -> None:
        self.schedule.nudge(reason)
        self._wake_sync()

    async def _sync(self) -> None:
        """Load whenever the schedule says so, for as long as the connection lasts."""
        while not self._stopping:
            self._sync_wakeup.clear()
            delay = self.schedule.delay()
            if delay is None or delay > 0:
                # Not wait_for: on Python 3.11 it swallows a cancel that comes as the event is set.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await self._sync_wakeup.wait()
                continue
            reason = self.schedule.started()
            driver_news = self._driver_news
            self._loading = True
            log.info("loading the Z-Wave network (%s)", reason)
            replies = await self._fetch()
            if replies is None:
                # zwave-js-ui (re)connected meanwhile: a request sent while it was away is lost.
                self.schedule.abandoned()
                continue
            info_reply, nodes_reply = replies
            if isinstance(nodes_reply, ApiUnavailable):
                self.schedule.disconnected()
                return  # the link dropped; the next connect starts a new sync
            if (
                isinstance(nodes_reply, ApiReply)
                and nodes_reply.success
                and isinstance(nodes_reply.result, list)
            ):
                if (
                    isinstance(info_reply, ApiReply)
                    and info_reply.success
                    and isinstance(info_reply.result, dict)
                ):
                    self.info = info_reply.result
                self._load(nodes_reply.result, driver_news)
                continue
            if isinstance(nodes_reply, ApiReply):
                self._sync_error = f"it refused getNodes: {nodes_reply.message or 'no node list'}"
            elif isinstance(nodes_reply, GatewayError):
                self._sync_error = str(nodes_reply)
            else:
                log.error("loading the Z-Wave network failed", exc_info=nodes_reply)
                self._sync_error = f"loading failed: {nodes_reply}"
            log.warning("cannot load the Z-Wave network yet: %s", self._sync_error)
            self.schedule.failed(self._sync_error)
            if self.schedule.driver_not_ready:
                self._set_driver_evidence(False, driver_news)
            self._replay_buffer()

    async def _fetch(self) -> tuple[ApiReply | BaseException, ApiReply | BaseException] | None:
        """getInfo and getNodes (replies or exceptions); None when the schedule wants a fresh start."""
        fetch = asyncio.ensure_future(
            asyncio.gather(self.api.call("getInfo"), self.api.call("getNodes"), return_exceptions=True)
        )
        try:
            while not fetch.done() and not self.schedule.restart_wanted():
                wake = asyncio.ensure_future(self._sync_wakeup.wait())
                either: set[asyncio.Future[Any]] = {fetch, wake}
                try:
                    await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    wake.cancel()
                self._sync_wakeup.clear()
            return fetch.result() if fetch.done() else None
        finally:
            if not fetch.done():
                fetch.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await fetch

    def _set_driver_evidence(self, ready: bool, news_at_request: int | None = None) -> None:
        """What the API showed of the driver, unless `driver/status` said something after the request."""
        if news_at_request is None:
            self._driver_news += 1  # inferred now: loads asked before speak for an older state
        elif news_at_request != self._driver_news:
            return
        self._own_evidence = True
        try:
            self.inventory.set_driver_ready(ready)
        finally:
            self._own_evidence = False

    def _replay_buffer(self) -> int:
        replayed = len(self._buffer)
        while self._buffer:
            topic, payload, retain = self._buffer.popleft()
            self.inventory.apply(topic, bytes(payload), retain)
        self._loading = False
        return replayed

    def _load(self, nodes: list[Any], driver_news: int | None = None) -> None:
        """Take a getNodes result; `driver_news` as when it was asked for (None: now)."""
        started = time.perf_counter()
        self.inventory.load_nodes(nodes)
        picture = assess(self.inventory.nodes)
        self.schedule.loaded(picture)  # first: news in the replay is news for this picture
        unmapped = self.inventory.status.unmapped_count
        replayed = self._replay_buffer()
        if self.inventory.status.unmapped_count != unmapped:
            self._nudge("values for nodes the picture has empty")
        # zwave-js-ui answers its API only while its driver is ready.
        self._set_driver_evidence(True, self._driver_news if driver_news is None else driver_news)
        self._sync_error = None
        self.loaded = True
        self._synced.set()
        self._recheck_waiters()
        release_freed_memory()
        log.info(
            "Z-Wave network loaded: %d nodes besides the controller (%d not ready yet), %d buffered "
            "messages replayed in %.1f ms",
            picture.devices,
            picture.waiting,
            replayed,
            (time.perf_counter() - started) * 1000,
        )

    def resync(self) -> None:
        """Reload the network from `getNodes` (a node was added or removed: topics alone cannot add one).
        Asked during a load, that load is given up for a new one, so the later change is not lost."""
        self.schedule.want("a node was added or removed")
        # The picture stays usable meanwhile (nothing restarted): buffer and reload, without `_synced`
        # cleared, which would make every tool say the network is reloading.
        self._loading = True
        self._wake_sync()

    # -- changes → waiters and re-syncs -----------------------------------------------------------------
    def _on_change(self, change: Change) -> None:
        if change.kind == "gateway":
            self._gateway_change(change)
            return
        if change.kind in ("node", "status") and change.node_id is not None:
            node = self.inventory.node(change.node_id)
            if node is not None and not node.values and not node.is_controller:
                self._nudge("news of a node the picture has empty")  # a no-op once it is whole
        if change.kind == "status" and change.node_id is not None:
            self._resolve_status(change.node_id)
        if change.value_id is not None and change.value_id in self._value_waiters:
            self._resolve_value(change.value_id)

    def _gateway_change(self, change: Change) -> None:
        """zwave-js-ui or its driver came (back): reload. Its earlier driver status is not evidence."""
        if change.value_id == "client_online" and change.new is True:
            if change.old is False:
                # It was offline (crashed or stopped): a retained driver/status true is from before.
                self._set_driver_evidence(False)
                self.schedule.want("zwave-js-ui came back online")
                self._begin_sync()
            elif not self._applying_retained:
                # It has just (re)connected to the broker: a request sent before may be lost, and a load
                # that failed while it was away can run now.
                self.schedule.want("zwave-js-ui connected to the broker")
                self._wake_sync()
        elif change.value_id == "driver_ready" and not self._own_evidence:
            self._driver_news += 1
            if change.new is not True:
                return
            if change.old is False or self.schedule.failure is not None:
                self.schedule.want("its Z-Wave driver is ready")
                self._begin_sync()
            else:
                self._nudge("its Z-Wave driver is ready")
        elif change.value_id == "all_nodes_ready":
            self._nudge("all its nodes are ready")

    def _resolve_value(self, value_id: str) -> None:
        value = self.inventory.value(value_id)
        waiters = self._value_waiters.get(value_id)
        if value is None or not waiters:
            return
        for entry in list(waiters):
            predicate, future = entry
            if future.done():
                continue
            try:
                matched = predicate(value)
            except Exception:
                log.debug("value predicate failed for %s", value_id, exc_info=True)
                matched = False
            if matched:
                future.set_result(value)

    def _resolve_status(self, node_id: int) -> None:
        node = self.inventory.node(node_id)
        for predicate, future in list(self._status_waiters.get(node_id, ())):
            if node is not None and not future.done() and predicate(node.status):
                future.set_result(node.status)

    def _recheck_waiters(self) -> None:
        """After a reload values may have moved without a Change; let waiters look again."""
        for value_id in list(self._value_waiters):
            self._resolve_value(value_id)
        for node_id in list(self._status_waiters):
            self._resolve_status(node_id)

    async def wait_for_value(
        self, value_id: str, predicate: ValuePredicate, timeout: float, check_current: bool = True
    ) -> ZValue | None:
        """The value once `predicate(value)` holds (driven by inventory changes, no polling); None on timeout."""
        current = self.inventory.value(value_id)
        if check_current and current is not None and predicate(current):
            return current
        future: asyncio.Future[ZValue] = asyncio.get_running_loop().create_future()
        entry = (predicate, future)
        self._value_waiters.setdefault(value_id, []).append(entry)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return None
        finally:
            waiters = self._value_waiters.get(value_id)
            if waiters is not None:
                with contextlib.suppress(ValueError):
                    waiters.remove(entry)
                if not waiters:
                    del self._value_waiters[value_id]

    async def wait_for_node_status(
        self, node_id: int, statuses: set[str] | str, timeout: float, check_current: bool = True
    ) -> str | None:
        """The node's status once it is one of `statuses` ("Alive", "Awake", …); None on timeout."""
        wanted = {statuses} if isinstance(statuses, str) else set(statuses)
        node = self.inventory.node(node_id)
        if check_current and node is not None and node.status in wanted:
            return node.status
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        entry = (wanted.__contains__, future)
        self._status_waiters.setdefault(node_id, []).append(entry)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return None
        finally:
            waiters = self._status_waiters.get(node_id)
            if waiters is not None:
                with contextlib.suppress(ValueError):
                    waiters.remove(entry)
                if not waiters:
                    del self._status_waiters[node_id]

    # -- state ------------------------------------------------------------------------------------------
    @property
    def nodes(self) -> dict[int, ZNode]:
        return self.inventory.nodes

    def _gateway_words(self) -> str:
        return f"on prefix {self.settings.prefix!r} with name {self.settings.gateway_name!r}"

    def unavailable_reason(self) -> str | None:
        """Why tools cannot work right now, in one sentence; None when the gateway is usable."""
        for lane in (self.transport, self.control):
            if not lane.connected:
                return lane.unavailable_text()
        status = self.inventory.status
        if status.client_online is False:
            return f"zwave-js-ui is offline ({self._gateway_words()}): the broker published its last will"
        if self.schedule.driver_not_ready:
            return "zwave-js-ui is starting: its Z-Wave driver is not ready yet (loading again when it is)"
        if not self._synced.is_set():  # not loaded since this connection or since zwave-js-ui came back
            if self._sync_error is not None or self.gateway_silent():
                why = (
                    self._sync_error
                    or "nothing on this broker comes from a zwave-js-ui of that prefix and name"
                )
                if self.gateway_names_seen and self._sync_error is None:
                    others = ", ".join(repr(n) for n in sorted(self.gateway_names_seen))
                    why += f"; one named {others} publishes on this prefix"
                return (
                    f"zwave-js-ui is not answering {self._gateway_words()} ({why}) — check that "
                    "it is running, that its MQTT gateway uses this broker, and its prefix and name settings"
                )
            if self.loaded:  # what was loaded before may be out of date: say so rather than use it
                return "reloading the Z-Wave network from zwave-js-ui (it or the MQTT broker restarted)"
            return "still loading the Z-Wave network from zwave-js-ui"
        if status.driver_ready is False:
            return "the Z-Wave driver is not ready (zwave-js-ui was stopped or lost its Z-Wave controller)"
        return self.schedule.problem()

    def _protocols(self) -> str | None:
        """The MQTT version in use: "5", or "5 (value lane 3.1.1)" when the lanes differ (see __init__)."""
        control, values = self.control.protocol, self.transport.protocol
        if control is None or values is None or control == values:
            return control and values
        return f"{control} (value lane {values})"

    def health(self) -> GatewayHealth:
        age = None if self.last_message_monotonic is None else time.monotonic() - self.last_message_monotonic
        return build_health(
            broker_connected=self.transport.connected and self.control.connected,
            broker_address=self.transport.address,
            broker_error=self.transport.last_error or self.control.last_error,
            broker_protocol=self._protocols(),
            status=self.inventory.status,
            nodes=self.inventory.nodes,
            inventory_loaded=self.loaded,
            last_message_age_s=age,
            info=self.info,
            problem=self.unavailable_reason(),
            waiting_for=self.schedule.waiting_for() if self.transport.connected else None,
        )

    # -- API --------------------------------------------------------------------------------------------
    async def call(self, api: str, *args: Any, timeout: float | None = None) -> ApiReply:
        return await self.api.call(api, *args, timeout=timeout)

    async def _call_ok(self, api: str, *args: Any, timeout: float | None = None) -> Any:
        reply = await self.api.call(api, *args, timeout=timeout)
        if not reply.success:
            raise ApiFailed(f"zwave-js-ui could not run {api}: {reply.message or 'no reason given'}")
        return reply.result

    async def write_value(
        self,
        value: ZValue | dict[str, Any],
        target: Any,
        options: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> WriteResult:
        """`api/writeValue`; the result carries zwave-js's SetValueStatus (the envelope alone means nothing).

        With `settings.dry_run` nothing is published: the result holds the exact message instead.
        """
        value_id = value.api_value_id() if isinstance(value, ZValue) else dict(value)
        args: list[Any] = [value_id, target]
        if options:
            args.append(options)
        if self.settings.dry_run:
            topic, payload = self.api.build_request("writeValue", args)
            return WriteResult(
                status=None,
                message="dry run: nothing was sent",
                value_id=value_id,
                target=target,
                dry_run_message={"topic": topic, "payload": payload, "qos": REQUEST_QOS, "retain": False},
            )
        reply = await self.api.call("writeValue", *args, timeout=timeout)
        return WriteResult.from_reply(reply, value_id, target)

    async def poll_value(self, value: ZValue | dict[str, Any], timeout: float | None = None) -> Any:
        """The device's value, read from it; the picture shows it too when this returns (bounded).

        zwave-js-ui publishes a polled value before it replies, but the reply comes on the control lane
        and can overtake it on the value lane; a caller that reads the picture next (a confirmation
        sentence, verify_device, recent events) would see the old value. So wait for the picture to show
        the polled value, at most CATCH_UP_MAX_S: under a flood the bound wins, and the picture follows a
        moment later.
        """
        value_id = value.api_value_id() if isinstance(value, ZValue) else dict(value)
        before = self.inventory.value(value.value_id) if isinstance(value, ZValue) else None
        mark = before.last_update_ms if before is not None else None
        result = await self._call_ok("pollValue", value_id, timeout=timeout)
        if isinstance(value, ZValue):
            # The report of this poll, not the picture as it was: an unchanged value is re-reported with a
            # new time, and a caller reads the reading's age next.
            await self.wait_for_value(
                value.value_id, lambda v: v.value == result and v.last_update_ms != mark, CATCH_UP_MAX_S
            )
        return result

    async def refresh_values(self, node_id: int, timeout: float | None = None) -> None:
        await self._call_ok("refreshValues", node_id, timeout=timeout)

    async def ping_node(self, node_id: int, timeout: float | None = None) -> bool:
        return bool(await self._call_ok("pingNode", node_id, timeout=timeout))

    async def get_scenes(self, timeout: float | None = None) -> list[dict[str, Any]]:
        result = await self._call_ok("_getScenes", timeout=timeout)
        return [s for s in result if isinstance(s, dict)] if isinstance(result, list) else []

    async def activate_scene(self, scene_id: int, timeout: float | None = None) -> bool:
        return bool(await self._call_ok("_activateScene", scene_id, timeout=timeout))
