"""Keeping the live picture whole: load it from zwave-js-ui's API, buffer what arrives meanwhile, replay.

On every (re)connect of the value lane: subscribe, then `getInfo` + `getNodes` (on the control lane)
rebuild the picture, then live topics keep it current. zwave-js-ui's first `getNodes` after a restart
lists its nodes without values, so loads repeat until the picture is whole: `loader.LoadSchedule` says
when (this module only feeds it and runs the loads). Messages that arrive on the value lane between its
subscription and the `getNodes` reply (the broker's retained store, live updates) are buffered and
replayed in order after `load_nodes`. The value lane may still hold older updates when the reply
overtakes them; they are applied in order after the load, so the picture can look back for a moment but
always ends on the latest state, and nothing is lost. Gateway-level topics (client status, version,
driver status) are applied at once so health stays right while loading.

Everything runs on the asyncio loop thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from zwave_mcp.gateway.api import ApiClient, ApiReply, ApiUnavailable, GatewayError
from zwave_mcp.gateway.loader import LoadSchedule, assess
from zwave_mcp.gateway.lock_names import LockNames, home_of
from zwave_mcp.gateway.model import InventoryEvent
from zwave_mcp.gateway.state import Inventory
from zwave_mcp.gateway.topics import GatewayTopics, TopicKind
from zwave_mcp.logs import watch_task
from zwave_mcp.safetext import plain_text

log = logging.getLogger(__name__)

# While loading, at most this many messages wait for the getNodes reply (oldest dropped beyond it).
MAX_BUFFERED_MESSAGES = 200_000
# The broker hands over its retained messages at once on subscribing, zwave-js-ui's status among them: this
# long after connecting without a word from a zwave-js-ui of our prefix and name, none is there (with room
# for a busy machine; a getNodes that is not answered takes the API timeout, 10 s, to say as much).
SILENT_GATEWAY_S = 2.0
_GATEWAY_KINDS = (TopicKind.CLIENT_STATUS, TopicKind.CLIENT_VERSION, TopicKind.DRIVER_STATUS)
_SKIPPED_KINDS = (TopicKind.SET_REQUEST, TopicKind.FOREIGN)


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


class Sync:
    """The picture's loads for one gateway. `lock_names` gives each load the names of this home's lock
    users; `values_up()` says whether the value lane is connected; `on_loaded()` runs after every load
    (the waiters look again)."""

    def __init__(
        self,
        inventory: Inventory,
        topics: GatewayTopics,
        api: ApiClient,
        lock_names: LockNames,
        values_up: Callable[[], bool],
        on_loaded: Callable[[], None],
    ) -> None:
        self.inventory = inventory
        self.topics = topics
        self.api = api
        self.lock_names = lock_names
        self._values_up = values_up
        self._on_loaded = on_loaded
        self.info: dict[str, Any] = {}
        self.loaded = False  # a getNodes result has been loaded at least once
        self.synced = asyncio.Event()  # loaded on the current connection
        self.error: str | None = None  # why the last load failed
        self.stopped: str | None = None  # why the load task died (a bug), until a load succeeds
        self.schedule = LoadSchedule()
        self.last_message_monotonic: float | None = None
        self.connected_monotonic: float | None = None  # the value lane's current connection
        self.gateway_names_seen: set[str] = set()  # zwave-js-ui names publishing under our prefix
        self.loading = False
        self.buffer: deque[tuple[str, bytes | bytearray, bool]] = deque(maxlen=MAX_BUFFERED_MESSAGES)
        self.stopping = False
        self._own_evidence = False  # the driver status being set comes from our own load
        self._applying_retained = False  # the message being applied came from the broker's store
        self._driver_news = 0  # driver status changes seen; a load only speaks for the driver if none came
        self._task: asyncio.Task[None] | None = None
        self._wakeup = asyncio.Event()

    # -- the lanes ---------------------------------------------------------------------------------------
    def on_message(self, topic: str, payload: bytes | bytearray, retain: bool) -> None:
        """Every value-lane message: into the picture, or into the buffer while a load is under way."""
        self.last_message_monotonic = time.monotonic()
        info = self.topics.classify(topic)
        kind = info.kind
        if kind is TopicKind.API_REPLY or kind in _SKIPPED_KINDS:
            # `<prefix>/#` cannot leave out the API replies; the control lane has its own copy.
            if kind is TopicKind.FOREIGN and topic.endswith("/status") and len(self.gateway_names_seen) < 8:
                self._note_other_gateway(topic)
            return
        elif self.loading and kind not in _GATEWAY_KINDS:
            self.buffer.append((topic, payload, retain))
        else:
            unmapped = self.inventory.status.unmapped_count
            self._applying_retained = retain
            self.inventory.apply(topic, bytes(payload), retain, info)  # classified once per message
            self._applying_retained = False
            if self.inventory.status.unmapped_count != unmapped and self.schedule.picture is not None:
                self._nudge("a value for a node the picture has empty")  # a no-op once it is whole

    def _note_other_gateway(self, topic: str) -> None:
        """A zwave-js-ui of another name under our prefix (its `_CLIENTS/ZWAVE_GATEWAY-<name>/status`)."""
        head = f"{self.topics.prefix}/_CLIENTS/ZWAVE_GATEWAY-"
        if topic.startswith(head):
            name = topic[len(head) : -len("/status")]
            if name and "/" not in name:
                self.gateway_names_seen.add(plain_text(name, 60))

    def gateway_silent(self) -> bool:
        """Connected for a while, nothing loaded, and not a word from a zwave-js-ui of our prefix and name
        (not even its retained status): a wrong prefix or name, or zwave-js-ui not on this broker."""
        status = self.inventory.status
        return (
            not self.loaded
            and self.connected_monotonic is not None
            and time.monotonic() - self.connected_monotonic >= SILENT_GATEWAY_S
            and status.client_online is None
            and status.version is None
        )

    def values_connected(self) -> None:
        self.connected_monotonic = time.monotonic()
        self.schedule.want("connected to the broker")
        self.begin()

    def values_lost(self, reason: str) -> None:
        self.connected_monotonic = None
        self.synced.clear()
        self.schedule.disconnected()
        self.api.fail_all(reason)
        self._cancel()
        self.loading = False
        self.buffer.clear()

    def control_connected(self) -> None:
        # A load that could not ask (no control lane yet) asks now; a loaded picture needs nothing.
        if self._values_up() and not self.synced.is_set():
            self.begin()

    async def stop(self) -> None:
        self.stopping = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def _cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    # -- (re)sync ---------------------------------------------------------------------------------------
    def begin(self) -> None:
        """Buffer from now on and (re)load; called on connect and when zwave-js-ui comes back."""
        self.synced.clear()
        self.loading = True
        self._wake()

    def resync(self) -> None:
        """Reload the network from `getNodes` (a node was added or removed: topics alone cannot add one).
        Asked during a load, that load is given up for a new one, so the later change is not lost."""
        self.schedule.want("a node was added or removed")
        # The picture stays usable meanwhile (nothing restarted): buffer and reload, without `synced`
        # cleared, which would make every tool say the network is reloading.
        self.loading = True
        self._wake()

    def _wake(self) -> None:
        if self._task is None or self._task.done():
            if self._values_up() and not self.stopping:
                task = asyncio.get_running_loop().create_task(self._run(), name="zwave-sync")
                self._task = watch_task(task, self._died)
        else:
            self._wakeup.set()

    def _died(self, why: str) -> None:
        """The load task stopped on a bug (logged by `watch_task`): tools and health say so, not "still
        loading"; the next (re)connect starts it again."""
        self.stopped = why

    def _nudge(self, reason: str) -> None:
        self.schedule.nudge(reason)
        self._wake()

    async def _run(self) -> None:
        """Load whenever the schedule says so, for as long as the connection lasts."""
        while not self.stopping:
            self._wakeup.clear()
            delay = self.schedule.delay()
            if delay is None or delay > 0:
                # Not wait_for: on Python 3.11 it swallows a cancel that comes as the event is set.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await self._wakeup.wait()
                continue
            reason = self.schedule.started()
            driver_news = self._driver_news
            self.loading = True
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
                self.inventory.given_names = self.lock_names.for_home(home_of(self.info))
                self.load(nodes_reply.result, driver_news)
                continue
            if isinstance(nodes_reply, ApiReply):
                self.error = f"it refused getNodes: {nodes_reply.message or 'no node list'}"
            elif isinstance(nodes_reply, GatewayError):
                self.error = str(nodes_reply)
            else:
                log.error("loading the Z-Wave network failed", exc_info=nodes_reply)
                self.error = f"loading failed: {nodes_reply}"
            log.warning("cannot load the Z-Wave network yet: %s", self.error)
            self.schedule.failed(self.error)
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
                wake = asyncio.ensure_future(self._wakeup.wait())
                either: set[asyncio.Future[Any]] = {fetch, wake}
                try:
                    await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    wake.cancel()
                self._wakeup.clear()
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
        replayed = len(self.buffer)
        while self.buffer:
            topic, payload, retain = self.buffer.popleft()
            self.inventory.apply(topic, bytes(payload), retain)
        self.loading = False
        return replayed

    def load(self, nodes: list[Any], driver_news: int | None = None) -> None:
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
        self.error = self.stopped = None
        self.loaded = True
        self.synced.set()
        self._on_loaded()
        release_freed_memory()
        log.info(
            "Z-Wave network loaded: %d nodes besides the controller (%d not ready yet), %d buffered "
            "messages replayed in %.1f ms",
            picture.devices,
            picture.waiting,
            replayed,
            (time.perf_counter() - started) * 1000,
        )

    # -- changes → re-syncs -----------------------------------------------------------------------------
    def on_change(self, change: InventoryEvent) -> None:
        if change.kind == "gateway":
            self._gateway_change(change)
        elif change.kind in ("node", "status") and change.node_id is not None:
            node = self.inventory.node(change.node_id)
            if node is not None and not node.values and not node.is_controller:
                self._nudge("news of a node the picture has empty")  # a no-op once it is whole

    def _gateway_change(self, change: InventoryEvent) -> None:
        """zwave-js-ui or its driver came (back): reload. Its earlier driver status is not evidence."""
        if change.value_id == "client_online" and change.new is True:
            if change.old is False:
                # It was offline (crashed or stopped): a retained driver/status true is from before.
                self._set_driver_evidence(False)
                self.schedule.want("zwave-js-ui came back online")
                self.begin()
            elif not self._applying_retained:
                # It has just (re)connected to the broker: a request sent before may be lost, and a load
                # that failed while it was away can run now.
                self.schedule.want("zwave-js-ui connected to the broker")
                self._wake()
        elif change.value_id == "driver_ready" and not self._own_evidence:
            self._driver_news += 1
            if change.new is not True:
                return
            if change.old is False or self.schedule.failure is not None:
                self.schedule.want("its Z-Wave driver is ready")
                self.begin()
            else:
                self._nudge("its Z-Wave driver is ready")
        elif change.value_id == "all_nodes_ready":
            self._nudge("all its nodes are ready")

    # -- what it says -----------------------------------------------------------------------------------
    def problem(self, gateway_words: str) -> str | None:
        """Why the picture cannot be used (the broker being up), in one sentence; None when it can."""
        status = self.inventory.status
        if status.client_online is False:
            return f"zwave-js-ui is offline ({gateway_words}): the broker published its last will"
        if self.schedule.driver_not_ready:
            return "zwave-js-ui is starting: its Z-Wave driver is not ready yet (loading again when it is)"
        if not self.synced.is_set():  # not loaded since this connection or since zwave-js-ui came back
            if self.stopped is not None:
                return (
                    f"zwave-mcp stopped loading the Z-Wave network on an internal error ({self.stopped}); "
                    "the details are in its log; it tries again when it reconnects or restarts"
                )
            if self.error is not None or self.gateway_silent():
                why = self.error or "nothing on this broker comes from a zwave-js-ui of that prefix and name"
                if self.gateway_names_seen and self.error is None:
                    others = ", ".join(repr(n) for n in sorted(self.gateway_names_seen))
                    why += f"; one named {others} publishes on this prefix"
                return (
                    f"zwave-js-ui is not answering {gateway_words} ({why}) — check that "
                    "it is running, that its MQTT gateway uses this broker, and its prefix and name settings"
                )
            if self.loaded:  # what was loaded before may be out of date: say so rather than use it
                return "reloading the Z-Wave network from zwave-js-ui (it or the MQTT broker restarted)"
            return "still loading the Z-Wave network from zwave-js-ui"
        if status.driver_ready is False:
            return "the Z-Wave driver is not ready (zwave-js-ui was stopped or lost its Z-Wave controller)"
        return self.schedule.problem()
