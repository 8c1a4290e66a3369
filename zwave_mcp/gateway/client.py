"""`ZwaveGateway`: one zwave-js-ui gateway, as the rooms above see it.

A façade over the rooms below it, each with one job: `lanes` (the two MQTT connections), `sync` (the
picture loaded and kept whole), `waiters` (a value's reports watched, or waited for), `api`
(request/reply), `health` (one snapshot of it all). Here: life (start, settle, stop) and the API calls
the devices layer makes. Everything runs on the asyncio loop thread; reads of the inventory are plain
dict lookups.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Callable
from typing import Any

from zwave_mcp.config import Settings
from zwave_mcp.gateway.access import read_lock_users
from zwave_mcp.gateway.api import (
    CC_COMMAND_API,
    CC_READS,
    REQUEST_QOS,
    ApiClient,
    ApiReply,
    GatewayError,
    WriteResult,
)
from zwave_mcp.gateway.health import GatewayHealth, build_health
from zwave_mcp.gateway.lanes import Lanes
from zwave_mcp.gateway.lock_names import LockNames
from zwave_mcp.gateway.model import ZNode, ZValue
from zwave_mcp.gateway.mqtt import MqttTransport
from zwave_mcp.gateway.nodes import decode_with_values
from zwave_mcp.gateway.state import Inventory
from zwave_mcp.gateway.sync import Sync
from zwave_mcp.gateway.topics import GatewayTopics
from zwave_mcp.gateway.waiters import Waiters
from zwave_mcp.logs import watch_task

log = logging.getLogger(__name__)

# Calls made this soon after start wait for the first load instead of answering "unavailable".
STARTUP_GRACE_S = 10.0
# After a poll, wait at most this long for the value lane to show the polled value (see `poll_value`):
# long enough for any healthy backlog, short enough that a flood cannot hold a call up.
CATCH_UP_MAX_S = 0.1
SETTLE_POLL_S = 0.05  # how often that wait looks whether the broker has failed meanwhile


class ApiFailed(GatewayError):
    """zwave-js-ui answered `success: false`; the message is its own error text."""


class ZwaveGateway:
    def __init__(self, settings: Settings, inventory: Inventory | None = None) -> None:
        self.settings = settings
        self.topics = GatewayTopics(settings.prefix, settings.gateway_name)
        self.inventory = inventory or Inventory(self.topics, keep_details=settings.admin)
        # The rooms below call each other through these (built after the lanes they need).
        self.lanes = Lanes(
            settings,
            self.topics,
            on_value=self._on_message,
            on_values_up=lambda: self.sync.values_connected(),
            on_values_down=lambda reason: self.sync.values_lost(reason),
            on_reply=lambda api, payload: self.api.handle_reply(api, payload),
            on_control_up=lambda: self.sync.control_connected(),
            # Replies to calls in flight would come on the lane that is gone.
            on_control_down=lambda reason: self.api.fail_all(reason),
        )
        self.api = ApiClient(self.lanes.control, self.topics, default_timeout=settings.api_timeout)
        self.api.decoders["getNodes"] = functools.partial(
            decode_with_values, details=self.inventory.keep_details
        )
        # Names given to the users of locks that keep none (User Code), kept beside the history file.
        self.lock_names = LockNames(settings)
        self.waiters = Waiters(self.inventory)
        self.sync = Sync(
            self.inventory,
            self.topics,
            self.api,
            self.lock_names,
            values_up=lambda: self.lanes.values.connected,
            on_loaded=self.waiters.recheck,
        )
        self.started_monotonic: float | None = None
        self.inventory.add_listener(self.sync.on_change)
        self.inventory.add_listener(self.waiters.on_change)
        # A lock event is named from the lock's users as they are now (`Inventory.reread_users`).
        self.inventory.reread_users = self._reread_users
        self._user_reads: dict[int, list[Callable[[bool], None]]] = {}
        self._reading: set[asyncio.Task[None]] = set()  # held here: the loop keeps only weak references

    def _reread_users(self, node_id: int, then: Callable[[bool], None]) -> None:
        """Read a lock's users again (`accessControlGetState`, zwave-js's cache: no radio traffic), then
        `then(read)` for each event waiting on it: one read for events that come while one is under way."""
        waiting = self._user_reads.get(node_id)
        if waiting is not None:
            waiting.append(then)
            return
        self._user_reads[node_id] = [then]

        async def read() -> None:
            try:
                await read_lock_users(self, node_id, timeout=self.settings.api_timeout)
                done = True
            except Exception as exc:  # the event is said all the same, without a name it cannot trust
                log.warning(
                    "lock users not read again; its event is said without a name",
                    extra={"node": node_id, "why": str(exc)[:200]},
                )
                done = False
            for each in self._user_reads.pop(node_id, []):
                each(done)

        task = watch_task(asyncio.get_running_loop().create_task(read(), name=f"lock-users-{node_id}"))
        self._reading.add(task)
        task.add_done_callback(self._reading.discard)

    def _on_message(self, topic: str, payload: bytes | bytearray, retain: bool) -> None:
        """Every value-lane message (the benchmarks and tests feed messages here)."""
        self.sync.on_message(topic, payload, retain)

    # -- the rooms' state, as the rooms above read it ----------------------------------------------------
    @property
    def transport(self) -> MqttTransport:
        """The value lane."""
        return self.lanes.values

    @property
    def control(self) -> MqttTransport:
        """The control lane (API requests and replies)."""
        return self.lanes.control

    @property
    def loaded(self) -> bool:
        """A getNodes result has been loaded at least once."""
        return self.sync.loaded

    @property
    def info(self) -> dict[str, Any]:
        """zwave-js-ui's getInfo, from the last load."""
        return self.sync.info

    @property
    def nodes(self) -> dict[int, ZNode]:
        return self.inventory.nodes

    # -- life -------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Connect in the background; returns at once (tools answer "unavailable" until it is up)."""
        self.started_monotonic = time.monotonic()
        self.lanes.start()

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
            not self.sync.loaded
            and time.monotonic() < deadline
            and not self.broker_failed()
            and not self.sync.gateway_silent()  # a wrong prefix or name: said at once, not after the grace
        ):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self.sync.synced.wait(), min(SETTLE_POLL_S, deadline - time.monotonic())
                )

    async def settled_reason(self) -> str | None:
        """`settle`, then why the house cannot be used (None: it can): what a read that needs the house
        (a resource, a prompt) checks first, so it never answers from a house not loaded yet."""
        await self.settle()
        return self.unavailable_reason()

    def gateway_silent(self) -> bool:
        """No zwave-js-ui of our prefix and name is on the broker (see `Sync.gateway_silent`)."""
        return self.sync.gateway_silent()

    def broker_failed(self) -> bool:
        """The broker refused a lane or could not be reached since the last connection attempt."""
        return self.lanes.broker_failed()

    async def stop(self) -> None:
        await self.sync.stop()
        await self.lanes.stop()
        self.api.fail_all("the Z-Wave service is shutting down")

    async def wait_ready(self, timeout: float) -> bool:
        """Wait (bounded) until the inventory is loaded on the current connection."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.sync.synced.wait(), timeout)
        return self.sync.synced.is_set()

    def resync(self) -> None:
        """Reload the network from `getNodes` (a node was added or removed: topics alone cannot add one)."""
        self.sync.resync()

    # -- what it says -----------------------------------------------------------------------------------
    def unavailable_reason(self) -> str | None:
        """Why tools cannot work right now, in one sentence; None when the gateway is usable."""
        words = f"on prefix {self.settings.prefix!r} with name {self.settings.gateway_name!r}"
        return self.lanes.problem() or self.sync.problem(words)

    def health(self) -> GatewayHealth:
        return build_health(self.lanes, self.sync, self.inventory, self.unavailable_reason())

    def name_lock_user(self, node_id: int, user_id: int, name: str | None) -> None:
        """Keep (or drop) the name zwave-mcp gives a user of a lock that keeps none, and save it."""
        self.inventory.name_lock_user(node_id, user_id, name)
        self.lock_names.save()

    # -- API --------------------------------------------------------------------------------------------
    async def call(self, api: str, *args: Any, timeout: float | None = None) -> ApiReply:
        return await self.api.call(api, *args, timeout=timeout)

    async def read_cc(
        self,
        node_id: int,
        endpoint: int,
        command_class: int,
        command: str,
        *args: Any,
        timeout: float | None = None,
    ) -> ApiReply:
        """A command class API's read through zwave-js-ui's `sendCommand`; only the reads of `CC_READS`
        (that API also sends commands that change a device, which are the gate's)."""
        if command not in CC_READS.get(command_class, ()):
            raise GatewayError(f"{command} of command class {command_class} is not a read")
        ctx = {"nodeId": node_id, "commandClass": int(command_class), "endpoint": endpoint}
        return await self.api.call(CC_COMMAND_API, ctx, command, list(args), timeout=timeout)

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

    async def poll_value(self, value: ZValue, timeout: float | None = None) -> Any:
        """The device's value, read from it; the picture shows it too when this returns (bounded).

        zwave-js-ui publishes a polled value before it replies, but the reply comes on the control lane
        and can overtake it on the value lane; a caller that reads the picture next (a confirmation
        sentence, verify_device, recent events) would see the old value. So wait for the picture to show
        the polled value, at most CATCH_UP_MAX_S: under a flood the bound wins, and the picture follows a
        moment later.
        """
        before = self.inventory.value(value.value_id)
        mark = before.last_update_ms if before is not None else None
        result = await self._call_ok("pollValue", value.api_value_id(), timeout=timeout)
        # The report of this poll, not the picture as it was: an unchanged value is re-reported with a new
        # time, and a caller reads the reading's age next.
        await self.waiters.value(
            value.value_id, lambda v: v.value == result and v.last_update_ms != mark, CATCH_UP_MAX_S
        )
        return result

    async def get_scenes(self, timeout: float | None = None) -> list[dict[str, Any]]:
        result = await self._call_ok("_getScenes", timeout=timeout)
        return [s for s in result if isinstance(s, dict)] if isinstance(result, list) else []

    async def activate_scene(self, scene_id: int, timeout: float | None = None) -> bool:
        return bool(await self._call_ok("_activateScene", scene_id, timeout=timeout))
