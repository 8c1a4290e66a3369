"""Failed passphrase attempts, limited for the whole home: one passphrase, so one budget for every guesser.

At most `failures` wrong passphrases within `window_s` seconds; once they are spent every attempt is
refused unheard (the right passphrase too) until the oldest of them is older than the window. The clock is
injected (tests advance it; no sleeps).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class AttemptLimit:
    failures: int = 5
    window_s: float = 15 * 60.0


DEFAULT_LIMIT = AttemptLimit()


class FailedAttempts:
    def __init__(self, limit: AttemptLimit, clock: Callable[[], float]) -> None:
        self.limit = limit
        self._clock = clock
        self._failures: deque[float] = deque()
        self._lock = threading.Lock()

    def _forget_old(self, now: float) -> None:
        while self._failures and self._failures[0] <= now - self.limit.window_s:
            self._failures.popleft()

    def wait_s(self) -> float:
        """0 when an attempt may be heard now; else the seconds until one may."""
        with self._lock:
            now = self._clock()
            self._forget_old(now)
            if len(self._failures) < self.limit.failures:
                return 0.0
            return max(1.0, self._failures[0] + self.limit.window_s - now)

    def failed(self) -> None:
        with self._lock:
            now = self._clock()
            self._forget_old(now)
            self._failures.append(now)
