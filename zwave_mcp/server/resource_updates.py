"""Resource-updated notifications: inventory changes → coalesced `notifications/resources/updated`.

Two kinds of client listen, and both are served from one place:

- 2026-07-28 clients open a `subscriptions/listen` stream; the SDK's `ListenHandler` filters by URI, we only
  publish `ResourceUpdated` events on the server's `SubscriptionBus`.
- 2025-era clients call `resources/subscribe`; we remember (connection, URI) and send the notification on
  that connection ourselves (`ServerSession.send_resource_updated`), as the SDK's migration notes say.

A chatty meter reports many times a second, and every report is a cue for the client to read the resource
again. So each URI is sent at once the first time (a subscriber sees a change within milliseconds) and then
at most once per `min_interval_s`; changes inside that window collapse into one trailing notification.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import ResourceUpdated, ServerEvent, SubscriptionBus
from mcp_types import EmptyResult, SubscribeRequestParams, UnsubscribeRequestParams

from zwave_mcp.logs import watch_task
from zwave_mcp.server.compat import connection_key

if TYPE_CHECKING:
    from zwave_mcp.devices.model import Device
    from zwave_mcp.gateway.model import InventoryEvent

log = logging.getLogger(__name__)

DEVICES_URI = "zwave://devices"
HEALTH_URI = "zwave://health"
DEVICE_URI_PREFIX = "zwave://devices/"

# At most one notification per URI per interval: one device's resource, and the lists that summarize many.
DEVICE_MIN_INTERVAL_S = 0.5
SUMMARY_MIN_INTERVAL_S = 1.0
# Cap on URIs one 2025-era connection may subscribe to (a client cannot grow our memory without bound).
MAX_URIS_PER_CONNECTION = 1000


def device_uri(key: str) -> str:
    return f"{DEVICE_URI_PREFIX}{key}"


class CountingBus:
    """The server's `SubscriptionBus`, knowing whether any `subscriptions/listen` stream is open.

    With nobody listening on either path, inventory changes cost one attribute check.
    """

    def __init__(self, inner: SubscriptionBus) -> None:
        self._inner = inner
        self.listeners = 0

    async def publish(self, event: ServerEvent) -> None:
        await self._inner.publish(event)

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        unsubscribe = self._inner.subscribe(listener)
        self.listeners += 1
        done = False

        def counted_unsubscribe() -> None:
            nonlocal done
            if not done:
                done = True
                self.listeners -= 1
            unsubscribe()

        return counted_unsubscribe


class _LegacySubscriber:
    """One 2025-era connection and the URIs it subscribed to."""

    def __init__(self, session: ServerSession) -> None:
        self.session = session
        self.uris: set[str] = set()


class ResourceUpdates:
    """Turns `InventoryEvent`s into coalesced resource-updated notifications for both subscription styles.

    `devices()` gives the devices clients can read (the device index, current at call time).
    Call `start()` on the server's event loop and `await stop()` when the server stops.
    """

    def __init__(self, bus: CountingBus, devices: Callable[[], Iterable[Device]]) -> None:
        self._bus = bus
        self._devices = devices
        self._legacy: dict[object, _LegacySubscriber] = {}
        self._pending_changes: list[InventoryEvent] = []
        self._pending_uris: set[str] = set()
        self._last_sent: dict[str, float] = {}
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self.sent = 0  # notifications handed to the bus or a session (for tests and debugging)

    # -- who listens ------------------------------------------------------------------------------------

    @property
    def has_subscribers(self) -> bool:
        return self._bus.listeners > 0 or any(s.uris for s in self._legacy.values())

    async def on_subscribe(
        self, ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams
    ) -> EmptyResult:
        """The `resources/subscribe` handler (2025-era clients)."""
        subscriber = self._legacy.setdefault(connection_key(ctx.session), _LegacySubscriber(ctx.session))
        if len(subscriber.uris) < MAX_URIS_PER_CONNECTION:
            subscriber.uris.add(str(params.uri))
        log.debug("resources/subscribe", extra={"uri": str(params.uri)[:200]})
        return EmptyResult()

    async def on_unsubscribe(
        self, ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams
    ) -> EmptyResult:
        """The `resources/unsubscribe` handler (2025-era clients)."""
        key = connection_key(ctx.session)
        subscriber = self._legacy.get(key)
        if subscriber is not None:
            subscriber.uris.discard(str(params.uri))
            if not subscriber.uris:
                del self._legacy[key]
        return EmptyResult()

    # -- what changed -----------------------------------------------------------------------------------

    def on_change(self, change: InventoryEvent) -> None:
        """Inventory listener (runs on the event loop, from the MQTT reader): cheap, never raises."""
        if self._wake is None or not self.has_subscribers:
            return
        self._pending_changes.append(change)
        self._wake.set()

    def uris_for(self, changes: Iterable[InventoryEvent]) -> set[str]:
        """The resources these changes touch."""
        uris: set[str] = set()
        by_node: dict[int, list[InventoryEvent]] = {}
        for change in changes:
            if change.kind == "gateway":
                uris.update((HEALTH_URI, DEVICES_URI))
            elif change.node_id is not None:
                by_node.setdefault(change.node_id, []).append(change)
        if not by_node:
            return uris
        of_node: dict[int, list[Device]] = {}
        for d in self._devices():
            if d.node_id in by_node:
                of_node.setdefault(d.node_id, []).append(d)
        for node_id, node_changes in by_node.items():
            devices = of_node.get(node_id, [])
            if not devices:
                continue  # the controller, or a node hidden by policy: nothing a client can read changed
            touched = False
            for change in node_changes:
                if change.kind == "status":
                    uris.add(HEALTH_URI)  # health counts nodes by status
                if change.kind in ("value", "removed") and change.value_id is not None and len(devices) > 1:
                    # One endpoint's relay is not its sibling's business.
                    owners = [
                        d for d in devices if any(v.value_id == change.value_id for v in d.all_values())
                    ]
                else:
                    owners = devices
                uris.update(device_uri(d.key) for d in owners)
                touched = touched or bool(owners)
            if touched:
                uris.add(DEVICES_URI)
        return uris

    # -- sending ----------------------------------------------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._wake = asyncio.Event()
            task = asyncio.get_running_loop().create_task(self._run(), name="zwave-resource-updates")
            self._task = watch_task(task)

    async def stop(self) -> None:
        task, self._task = self._task, None
        self._wake = None
        self._legacy.clear()
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _due_at(self, uri: str) -> float:
        interval = DEVICE_MIN_INTERVAL_S if uri.startswith(DEVICE_URI_PREFIX) else SUMMARY_MIN_INTERVAL_S
        return self._last_sent.get(uri, -1e9) + interval

    async def _run(self) -> None:
        wake = self._wake
        assert wake is not None
        while True:
            timeout = self._next_due_in()
            if timeout is None:
                await wake.wait()
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), timeout)
            wake.clear()
            try:
                await self._flush()
            except Exception:  # a bad change or a broken session must not end notifications for everyone
                log.warning("resource update notifications failed", exc_info=True)

    def _next_due_in(self) -> float | None:
        if not self._pending_uris:
            return None
        return max(0.0, min(map(self._due_at, self._pending_uris)) - time.monotonic())

    async def _flush(self) -> None:
        changes, self._pending_changes = self._pending_changes, []
        if changes:
            self._pending_uris |= self.uris_for(changes)
        now = time.monotonic()
        due = sorted(u for u in self._pending_uris if self._due_at(u) <= now)
        for uri in due:
            self._pending_uris.discard(uri)
            self._last_sent[uri] = now
            await self._send(uri)

    async def _send(self, uri: str) -> None:
        if self._bus.listeners:
            await self._bus.publish(ResourceUpdated(uri=uri))
            self.sent += 1
        for key, subscriber in list(self._legacy.items()):
            if uri not in subscriber.uris:
                continue
            try:
                await subscriber.session.send_resource_updated(uri)
                self.sent += 1
            except Exception as exc:  # the client went away: forget it rather than fail the others
                log.debug("dropping a resource subscriber", extra={"reason": type(exc).__name__})
                self._legacy.pop(key, None)
