"""Watching the live picture for the reports of one value: the one way anything here waits for a value.

`Waiters.watch(value_id)` records the reports of one value from then on, with their loop times, so that a
writer can tell a report after its write from one before (the gate's evidence); `Waiters.value` waits
for a value that meets a test, on a watch of its own. Driven by the inventory's changes (no polling);
after a reload, values may have moved without a report, so `recheck()` lets every test look again.
Everything runs on the asyncio loop thread.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from zwave_mcp.gateway.model import InventoryEvent, ZValue
from zwave_mcp.gateway.state import Inventory

ValuePredicate = Callable[[ZValue], bool]


def holds(predicate: Callable[[Any], bool], value: Any) -> bool:
    """`predicate(value)`, where a test that raises does not hold."""
    try:
        return bool(predicate(value))
    except Exception:
        return False


class Watch:
    """The reports of one value since the watch was opened: (loop time, value reported), in order."""

    def __init__(self, look: Callable[[], None]) -> None:
        self.reports: list[tuple[float, Any]] = []
        self._news = asyncio.Event()
        self._look = look  # called at once on every change of the value and after a reload (see `value`)

    def _heard(self, at: float, change: InventoryEvent) -> None:
        if change.kind == "value":
            self.reports.append((at, change.new))
            self._news.set()
        self._look()

    async def first(self, since: float, test: Callable[[Any], bool], deadline: float, skip: int = 0) -> Any:
        """The first value reported from `since` (loop time) on that meets `test`, after `skip` such
        reports; None when none came by `deadline`."""
        loop = asyncio.get_running_loop()
        checked = 0
        while True:
            for at, value in self.reports[checked:]:
                if at >= since and holds(test, value):
                    if skip <= 0:
                        return value
                    skip -= 1
            checked = len(self.reports)
            remaining = deadline - loop.time()
            if remaining <= 0:
                return None
            self._news.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(remaining):  # wait_for would run the wait in a task of its own
                    await self._news.wait()


class Waiters:
    def __init__(self, inventory: Inventory) -> None:
        self.inventory = inventory
        self._watches: dict[str, list[Watch]] = {}

    def on_change(self, change: InventoryEvent) -> None:
        for watch in list(self._watches.get(change.value_id or "", ())):
            watch._heard(asyncio.get_running_loop().time(), change)

    def recheck(self) -> None:
        for watch in [w for watches in self._watches.values() for w in watches]:
            watch._look()

    @contextlib.contextmanager
    def watch(self, value_id: str, look: Callable[[], None] = lambda: None) -> Iterator[Watch]:
        """A `Watch` of `value_id` until the block ends; `look()` runs on each of its changes."""
        watch = Watch(look)
        watching = self._watches.setdefault(value_id, [])
        watching.append(watch)
        try:
            yield watch
        finally:
            # Only this finally takes a watch out, and a list leaves the table once empty: ours is in it.
            watching.remove(watch)
            if not watching:
                del self._watches[value_id]

    async def value(self, value_id: str, predicate: ValuePredicate, timeout: float) -> ZValue | None:
        """The value once `predicate(value)` holds; None on timeout."""
        found: asyncio.Future[ZValue] = asyncio.get_running_loop().create_future()

        def look() -> None:  # on the change itself: a value that held for a moment is not missed
            current = self.inventory.value(value_id)
            if current is not None and not found.done() and holds(predicate, current):
                found.set_result(current)

        look()
        if found.done():
            return found.result()
        with self.watch(value_id, look), contextlib.suppress(TimeoutError):
            return await asyncio.wait_for(found, timeout)
        return None
