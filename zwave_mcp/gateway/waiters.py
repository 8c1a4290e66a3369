"""Waiting for the live picture to show something: a value that meets a test, a node in a status.

Driven by the inventory's changes (no polling); after a reload, values may have moved without a change,
so `recheck()` lets every waiter look again. Everything runs on the asyncio loop thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from zwave_mcp.gateway.model import InventoryEvent, ZValue
from zwave_mcp.gateway.state import Inventory

log = logging.getLogger(__name__)

ValuePredicate = Callable[[ZValue], bool]


class Waiters:
    def __init__(self, inventory: Inventory) -> None:
        self.inventory = inventory
        self._values: dict[str, list[tuple[ValuePredicate, asyncio.Future[ZValue]]]] = {}

    def on_change(self, change: InventoryEvent) -> None:
        if change.value_id is not None and change.value_id in self._values:
            self._resolve_value(change.value_id)

    def recheck(self) -> None:
        for value_id in list(self._values):
            self._resolve_value(value_id)

    def _resolve_value(self, value_id: str) -> None:
        value = self.inventory.value(value_id)
        waiters = self._values.get(value_id)
        if value is None or not waiters:
            return
        for predicate, future in list(waiters):
            if future.done():
                continue
            try:
                if predicate(value):
                    future.set_result(value)
            except Exception:
                log.debug("value predicate failed for %s", value_id, exc_info=True)

    async def value(self, value_id: str, predicate: ValuePredicate, timeout: float) -> ZValue | None:
        """The value once `predicate(value)` holds; None on timeout."""
        current = self.inventory.value(value_id)
        if current is not None and predicate(current):
            return current
        future: asyncio.Future[ZValue] = asyncio.get_running_loop().create_future()
        entry = (predicate, future)
        waiting = self._values.setdefault(value_id, [])
        waiting.append(entry)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return None
        finally:
            # Only this finally takes an entry out, and a list leaves the table once empty: ours is in it.
            waiting.remove(entry)
            if not waiting:
                del self._values[value_id]
