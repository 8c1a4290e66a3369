"""Sliding-window rate limits, per device and overall, so a looping model cannot flap a relay.

A window remembers when each admitted command happened; a command is admitted while fewer than `limit`
happened in the last `window_s` seconds. When refused, the wait is exact: until the oldest command in the
window leaves it. A limit of 0 switches that limit off.

One command is one change the write gate lets through, whatever it spans: a group command ("turn off
everything") counts once against the overall limit and once against each device it changes, and it is
admitted whole or not at all (`admit_many`), so a refused group counts nothing and a house of any size can
switch everything off under the default limits.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

DEFAULT_WINDOW_S = 60.0


@dataclass(frozen=True, slots=True)
class RateRefusal:
    """Which limit was hit (`"device"` or `"overall"`), the limit, and whole seconds until a retry works."""

    scope: str
    limit: int
    window_s: float
    retry_after_s: int


class RateLimiter:
    """Thread-safe. `check_many` looks without counting; `admit_many` counts when allowed (every limit or none)."""

    def __init__(
        self,
        *,
        per_device: int = 10,
        overall: int = 60,
        per_client: int = 0,
        window_s: float = DEFAULT_WINDOW_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if per_device < 0 or overall < 0 or per_client < 0 or window_s <= 0:
            raise ValueError("rate limits must be >= 0 and the window positive")
        self.per_device = per_device
        self.overall = overall
        self.per_client = per_client  # one HTTP client's commands, inside the house's overall limit
        self.window_s = window_s
        self._clock = clock
        self._by_device: dict[str, deque[float]] = {}
        self._by_client: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()
        self._lock = threading.Lock()

    def _prune(self, times: deque[float], now: float) -> None:
        while times and times[0] <= now - self.window_s:
            times.popleft()

    def _refusal(self, times: deque[float], limit: int, scope: str, now: float) -> RateRefusal | None:
        if limit == 0:
            return None
        self._prune(times, now)
        if len(times) < limit:
            return None
        # The (len - limit + 1)-th oldest must leave the window before one more fits.
        frees_at = times[len(times) - limit] + self.window_s
        return RateRefusal(scope, limit, self.window_s, max(1, math.ceil(frees_at - now)))

    def check_many(
        self, device_keys: Iterable[str], *, client: str | None = None
    ) -> tuple[str, RateRefusal] | None:
        """Whether one command to all these devices (from `client`, None: no per-client limit) would be
        admitted, without counting it: None, or (the device key that is over its limit, or "" for the
        overall or the client's limit; the refusal)."""
        now = self._clock()
        with self._lock:
            return self._check_many(list(dict.fromkeys(device_keys)), now, client)

    def _check_many(self, keys: list[str], now: float, client: str | None) -> tuple[str, RateRefusal] | None:
        if client is not None and (times := self._by_client.get(client)):
            refusal = self._refusal(times, self.per_client, "client", now)
            if refusal is not None:
                return "", refusal
        for key in keys:
            times = self._by_device.get(key)
            refusal = self._refusal(times, self.per_device, "device", now) if times else None
            if refusal is not None:
                return key, refusal
        overall = self._refusal(self._all, self.overall, "overall", now)
        return None if overall is None else ("", overall)

    def admit_many(
        self, device_keys: Iterable[str], *, client: str | None = None
    ) -> tuple[str, RateRefusal] | None:
        """Count one command to all these devices (once overall, once per device, once for `client`) if
        every limit allows it; otherwise count nothing and say which limit refused (as `check_many`)."""
        keys = list(dict.fromkeys(device_keys))
        now = self._clock()
        with self._lock:
            refused = self._check_many(keys, now, client)
            if refused is not None:
                return refused
            # A limit that is off keeps no times: nothing would read or prune them, and a service that
            # runs for months with ZWAVE_MCP_RATE_LIMIT_TOTAL=0 grew one entry a change for good.
            if self.per_device:
                for key in keys:
                    self._by_device.setdefault(key, deque()).append(now)
            if client is not None and self.per_client:
                self._by_client.setdefault(client, deque()).append(now)
            if self.overall:
                self._all.append(now)
            self._forget_idle(now)
            return None

    def _forget_idle(self, now: float) -> None:
        """Devices and clients whose window emptied are dropped: the tables stay as small as the active set
        (a service runs for months; clients come and go)."""
        for table in (self._by_device, self._by_client):
            for key in [k for k, times in table.items() if times and times[-1] <= now - self.window_s]:
                del table[key]
