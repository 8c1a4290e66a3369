"""Failed passphrase attempts, limited for the whole home: one passphrase, so one budget for every guesser.

At most `failures` wrong passphrases within `window_s` seconds; once they are spent every attempt is
refused unheard (the right passphrase too) until the oldest of them is older than the window. An attempt
takes its place in the budget before the passphrase is checked (`start`), so guesses sent all at once
cannot outrun the count. The clock is injected (tests advance it; no sleeps).
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
        self._checking = 0  # attempts being checked now
        self._lock = threading.Lock()

    def _forget_old(self, now: float) -> None:
        while self._failures and self._failures[0] <= now - self.limit.window_s:
            self._failures.popleft()

    def start(self) -> float:
        """0 when an attempt may be heard now (it then holds a place until `finish`); else the seconds
        until one may."""
        with self._lock:
            now = self._clock()
            self._forget_old(now)
            if len(self._failures) + self._checking < self.limit.failures:
                self._checking += 1
                return 0.0
            oldest = self._failures[0] if self._failures else now
            return max(1.0, oldest + self.limit.window_s - now)

    def finish(self, *, failed: bool) -> None:
        with self._lock:
            self._checking -= 1
            if failed:
                self._failures.append(self._clock())
