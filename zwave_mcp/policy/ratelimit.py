"""Sliding-window rate limits, per device and overall, so a looping model cannot flap a relay.

A window remembers when each admitted command happened; a command is admitted while fewer than `limit`
happened in the last `window_s` seconds. When refused, the wait is exact: until the oldest command in the
window leaves it. A limit of 0 switches that limit off.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable
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
    """Thread-safe. `check` looks without counting; `admit` counts when allowed (both or neither limit)."""

    def __init__(
        self,
        *,
        per_device: int = 10,
        overall: int = 60,
        window_s: float = DEFAULT_WINDOW_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if per_device < 0 or overall < 0 or window_s <= 0:
            raise ValueError("rate limits must be >= 0 and the window positive")
        self.per_device = per_device
        self.overall = overall
        self.window_s = window_s
        self._clock = clock
        self._by_device: dict[str, deque[float]] = {}
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

    def check(self, device_key: str) -> RateRefusal | None:
        now = self._clock()
        with self._lock:
            return self._check(device_key, now)

    def _check(self, device_key: str, now: float) -> RateRefusal | None:
        device_times = self._by_device.get(device_key, deque())
        return self._refusal(device_times, self.per_device, "device", now) or self._refusal(
            self._all, self.overall, "overall", now
        )

    def admit(self, device_key: str) -> RateRefusal | None:
        """Count one command to `device_key` if both limits allow it; otherwise say which refused."""
        now = self._clock()
        with self._lock:
            refusal = self._check(device_key, now)
            if refusal is not None:
                return refusal
            self._by_device.setdefault(device_key, deque()).append(now)
            self._all.append(now)
            # Devices whose window emptied are dropped so the table stays as small as the active set.
            for key in [
                k for k, times in self._by_device.items() if times and times[-1] <= now - self.window_s
            ]:
                del self._by_device[key]
            return None
