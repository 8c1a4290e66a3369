"""One change at a time per device.

A change planned from the device's state (toggle, a relative level "+10" or setpoint "-1", the setpoint
the current mode uses) must read the state the change before it left, not the state that change is
replacing: two toggles at once both read "off" and both turn it on. The write gate (`Gate.run`) holds
`DeviceLocks.holding(keys)` around the read → plan → judge → send → evidence of a change, for every device
the change touches, and never while the person is asked for a yes: it lets go, asks, then holds them again
and plans from the state after the answer.

Absolute changes ("off", "30 %") take the same locks: a toggle that starts while "off" is on its way
would otherwise read the state "off" is about to replace, and two writes to one device in flight at once
can each take the other's report as its own evidence. A group change takes the locks of all its devices,
always in key order, so two group changes that share devices wait for each other and never crosswise.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable


class DeviceLocks:
    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._users: dict[str, int] = {}  # holders and waiters; a lock nobody uses is dropped

    @contextlib.asynccontextmanager
    async def holding(self, keys: Iterable[str]) -> AsyncIterator[None]:
        """Hold the locks of these device keys (in key order) for the body; waits for their holders."""
        ordered = sorted(set(keys))
        for key in ordered:
            self._users[key] = self._users.get(key, 0) + 1
        try:
            async with contextlib.AsyncExitStack() as held:
                for key in ordered:
                    await held.enter_async_context(self._locks.setdefault(key, asyncio.Lock()))
                yield
        finally:
            for key in ordered:
                self._users[key] -= 1
                if not self._users[key]:
                    del self._users[key]
                    self._locks.pop(key, None)

    def busy(self, key: str) -> bool:
        """Whether a change of this device is running or waiting (for tests and logs)."""
        return key in self._users
