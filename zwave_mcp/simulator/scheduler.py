"""One timer thread for every delayed action of the simulator, and a serial "radio" queue on top.

A single thread keeps ordering predictable and makes `stop()` cancel everything at once. Callbacks must
be short (they publish); a failing callback is logged and never kills the thread.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable

log = logging.getLogger(__name__)

Action = Callable[[], None]


class Scheduler:
    def __init__(self, name: str = "zwave-sim-timers") -> None:
        self._heap: list[tuple[float, int, Action]] = []
        self._counter = itertools.count()
        self._cond = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def call_later(self, delay: float, action: Action) -> None:
        with self._cond:
            if self._stopped:
                return
            heapq.heappush(self._heap, (time.monotonic() + max(0.0, delay), next(self._counter), action))
            self._cond.notify()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._heap.clear()
            self._cond.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopped and (not self._heap or self._heap[0][0] > time.monotonic()):
                    timeout = self._heap[0][0] - time.monotonic() if self._heap else None
                    self._cond.wait(timeout)
                if self._stopped:
                    return
                _, _, action = heapq.heappop(self._heap)
            try:
                action()
            except Exception:
                log.exception("simulator action failed")


class Radio:
    """zwave-js sends one command at a time: jobs run in order, each after its own latency.

    This is what makes a fast ON→OFF show the stale poll of the ON write in between (as recorded), and
    what lets a dead node hold up every other write.
    """

    def __init__(self, scheduler: Scheduler) -> None:
        self._scheduler = scheduler
        self._jobs: deque[tuple[float, Action]] = deque()
        self._busy = False
        self._lock = threading.Lock()

    def submit(self, latency: float, action: Action) -> None:
        with self._lock:
            self._jobs.append((latency, action))
            if self._busy:
                return
            self._busy = True
        self._start_next()

    def reset(self) -> None:
        with self._lock:
            self._jobs.clear()
            self._busy = False

    def _start_next(self) -> None:
        with self._lock:
            if not self._jobs:
                self._busy = False
                return
            latency, action = self._jobs.popleft()
        self._scheduler.call_later(latency, lambda: self._finish(action))

    def _finish(self, action: Action) -> None:
        try:
            action()
        finally:
            self._start_next()
