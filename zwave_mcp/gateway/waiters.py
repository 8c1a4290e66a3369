"""Waiting for the live picture to show something: a value that meets a test, a node in a status.

Driven by the inventory's changes (no polling); after a reload, values may have moved without a change,
so `recheck()` lets every waiter look again. Everything runs on the asyncio loop thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TypeVar

from zwave_mcp.gateway.model import Change, ZValue
from zwave_mcp.gateway.state import Inventory

log = logging.getLogger(__name__)

ValuePredicate = Callable[[ZValue], bool]
_Key = TypeVar("_Key")
_Result = TypeVar("_Result")


class Waiters:
    def __init__(self, inventory: Inventory) -> None:
        self.inventory = inventory
        self._values: dict[str, list[tuple[ValuePredicate, asyncio.Future[ZValue]]]] = {}
        self._statuses: dict[int, list[tuple[Callable[[str], bool], asyncio.Future[str]]]] = {}

    def on_change(self, change: Change) -> None:
        if change.kind == "status" and change.node_id is not None:
            self._resolve_status(change.node_id)
        if change.value_id is not None and change.value_id in self._values:
            self._resolve_value(change.value_id)

    def recheck(self) -> None:
        for value_id in list(self._values):
            self._resolve_value(value_id)
        for node_id in list(self._statuses):
            self._resolve_status(node_id)

    def _resolve_value(self, value_id: str) -> None:
        value = self.inventory.value(value_id)
        waiters = self._values.get(value_id)
        if value is None or not waiters:
            return
        for predicate, future in list(waiters):
            if future.done():
                continue
            try:
                matched = predicate(value)
            except Exception:
                log.debug("value predicate failed for %s", value_id, exc_info=True)
                matched = False
            if matched:
                future.set_result(value)

    def _resolve_status(self, node_id: int) -> None:
        node = self.inventory.node(node_id)
        for predicate, future in list(self._statuses.get(node_id, ())):
            if node is not None and not future.done() and predicate(node.status):
                future.set_result(node.status)

    async def value(
        self, value_id: str, predicate: ValuePredicate, timeout: float, check_current: bool = True
    ) -> ZValue | None:
        """The value once `predicate(value)` holds; None on timeout."""
        current = self.inventory.value(value_id)
        if check_current and current is not None and predicate(current):
            return current
        return await _wait(self._values, value_id, predicate, timeout)

    async def node_status(
        self, node_id: int, statuses: set[str] | str, timeout: float, check_current: bool = True
    ) -> str | None:
        """The node's status once it is one of `statuses` ("Alive", "Awake", …); None on timeout."""
        wanted = {statuses} if isinstance(statuses, str) else set(statuses)
        node = self.inventory.node(node_id)
        if check_current and node is not None and node.status in wanted:
            return node.status
        return await _wait(self._statuses, node_id, wanted.__contains__, timeout)


async def _wait(
    table: dict[_Key, list[tuple[Callable[..., bool], asyncio.Future[_Result]]]],
    key: _Key,
    predicate: Callable[..., bool],
    timeout: float,
) -> _Result | None:
    future: asyncio.Future[_Result] = asyncio.get_running_loop().create_future()
    entry = (predicate, future)
    table.setdefault(key, []).append(entry)
    try:
        return await asyncio.wait_for(future, timeout)
    except TimeoutError:
        return None
    finally:
        waiters = table.get(key)
        if waiters is not None:
            with contextlib.suppress(ValueError):
                waiters.remove(entry)
            if not waiters:
                del table[key]
