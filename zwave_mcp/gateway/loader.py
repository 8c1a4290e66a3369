"""When to (re)load the network picture from zwave-js-ui, and what it still waits for. No I/O.

zwave-js-ui's `getNodes` is not final when its driver is ready: for about 3 s after a restart it lists
every node with `ready: false`, status Unknown and no values, and the values arrive afterwards (node
ready events, value topics re-published from its cache). Loading once is therefore not enough. This
state machine, fed by `ZwaveGateway` and driven by an injected clock, says when the next `getNodes` is
due:

- at once when the link (re)connects, zwave-js-ui comes (back) online or its driver turns ready
  (`want`); a load running meanwhile is abandoned and started again (`restart_wanted`), since its
  request may have gone out while zwave-js-ui was away or not ready;
- soon (debounced, at most one load per `nudge_gap_s`, per `max_retry_s` once the timer retries have
  reached their cap) when the picture is waiting and something says it has moved on: a node ready
  event, a value for a node the picture has empty, `all nodes ready` (`nudge`);
- after a growing pause (`first_retry_s` doubling to `max_retry_s`) when a load failed or the picture is
  still waiting; timer retries of a picture that is only partly waiting stop once the pause reaches its
  cap, so a node that never finishes its interview costs no endless reloads (nudges still work).

`problem()` and `waiting_for()` are the words health uses for what it waits for.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from zwave_mcp.gateway.model import ZNode

BROADCAST_NODE_ID = 255
# zwave-js-ui's answer to any API while its driver is not ready (ZwaveClient.callApi).
DRIVER_NOT_READY_MESSAGE = "Z-Wave client not connected"


@dataclass(frozen=True, slots=True)
class Picture:
    """How far a loaded `getNodes` result is: devices (not the controller) and those still waiting
    (not ready and without a single value: zwave-js-ui has told nothing about them yet)."""

    devices: int
    waiting: int

    @property
    def complete(self) -> bool:
        return self.waiting == 0

    @property
    def empty(self) -> bool:
        return self.devices > 0 and self.waiting == self.devices


def assess(nodes: Mapping[int, ZNode]) -> Picture:
    devices = [n for n in nodes.values() if not n.is_controller and n.id != BROADCAST_NODE_ID]
    # A node ready without values does not keep the loads going (it may never have any).
    return Picture(len(devices), sum(1 for n in devices if n.loading and not n.ready))


class LoadSchedule:
    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        first_retry_s: float = 0.5,
        max_retry_s: float = 30.0,
        nudge_delay_s: float = 0.2,
        nudge_gap_s: float = 1.0,
    ) -> None:
        self._clock = clock
        self.first_retry_s = first_retry_s
        self.max_retry_s = max_retry_s
        self.nudge_delay_s = nudge_delay_s
        self.nudge_gap_s = nudge_gap_s
        self.picture: Picture | None = None  # of the last successful load
        self.failure: str | None = None  # why the last load failed (None after a success)
        self.driver_not_ready = False  # the last load failed because zwave-js-ui's driver is not ready
        self.loading = False
        self.loads = 0  # loads started, for logs and tests
        self._restart = False
        self._wanted = False  # what is due was wanted (not only nudged)
        self._due: float | None = None
        self._reason: str | None = None
        self._retry_s = first_retry_s
        self._last_end: float | None = None

    # -- inputs -----------------------------------------------------------------------------------------
    def want(self, reason: str) -> None:
        """Load as soon as possible; a running load is to be abandoned. A new episode (a connect,
        zwave-js-ui or its driver back): the pauses start short again."""
        self._set_due(self._clock(), reason)
        self._retry_s = self.first_retry_s
        self._wanted = True
        self._restart = self.loading

    def nudge(self, reason: str) -> None:
        """Something moved on; reload soon, but only if the picture is waiting or the last load failed."""
        if self.picture is not None and self.picture.complete and self.failure is None:
            return
        now = self._clock()
        due = now + self.nudge_delay_s
        if self._last_end is not None:
            # Long after a restart, a node that never finishes its interview must not turn a stream of
            # news (or of topics we cannot map) into a getNodes a second: space them like timer retries.
            gap = self.nudge_gap_s if self._retry_s < self.max_retry_s else self.max_retry_s
            due = max(due, self._last_end + gap)
        self._set_due(due, reason)

    def started(self) -> str:
        """A load starts now; returns why it was due."""
        reason = self._reason or "requested"
        self.loading = True
        self._restart = False
        self._wanted = False
        self.loads += 1
        self._due = None
        self._reason = None
        return reason

    def restart_wanted(self) -> bool:
        """The running load should be abandoned for a new one (see `want`)."""
        return self.loading and self._restart

    def abandoned(self) -> None:
        """The running load was given up (its replacement is due at once)."""
        self.loading = False
        self._restart = False

    def loaded(self, picture: Picture) -> None:
        now = self._end()
        self.picture = picture
        self.failure = None
        self.driver_not_ready = False
        if picture.complete:
            self._retry_s = self.first_retry_s
            if not self._wanted:  # news that came while loading is in this picture already
                self._due = None
                self._reason = None
            return
        if picture.empty or self._retry_s < self.max_retry_s:
            self._retry(now, f"{picture.waiting} of {picture.devices} devices not ready yet")

    def failed(self, why: str) -> None:
        now = self._end()
        self.failure = why
        self.driver_not_ready = DRIVER_NOT_READY_MESSAGE.lower() in why.lower()
        self._retry(now, "the last load failed")

    def disconnected(self) -> None:
        """The link dropped: nothing is due until it is back (`want` on connect)."""
        self.loading = False
        self._restart = False
        self._due = None
        self._reason = None

    # -- outputs ----------------------------------------------------------------------------------------
    def delay(self) -> float | None:
        """Seconds until the next load should start (0: now); None when none is due or one is running."""
        if self._due is None or self.loading:
            return None
        return max(0.0, self._due - self._clock())

    def problem(self) -> str | None:
        """Why the picture cannot be used yet, once something was loaded or tried; None otherwise."""
        if self.picture is not None and self.picture.empty and self.failure is None:
            return (
                f"zwave-js-ui is starting: none of its {self.picture.devices} devices is ready yet "
                "(reloading the network until they are)"
            )
        return None

    def waiting_for(self) -> str | None:
        """What the picture still waits for, in a few words; None when nothing."""
        if self.failure is not None and self.driver_not_ready:
            return "zwave-js-ui's Z-Wave driver to be ready"
        if self.picture is not None and not self.picture.complete:
            return f"{self.picture.waiting} of {self.picture.devices} devices to be ready"
        return None

    # -- internals --------------------------------------------------------------------------------------
    def _set_due(self, due: float, reason: str) -> None:
        if self._due is None or due < self._due:
            self._due = due
            self._reason = reason

    def _end(self) -> float:
        now = self._clock()
        self.loading = False
        self._last_end = now
        return now

    def _retry(self, now: float, reason: str) -> None:
        self._set_due(now + self._retry_s, reason)
        self._retry_s = min(self._retry_s * 2, self.max_retry_s)
