"""`DeviceLocks`: one change at a time per device, several devices taken in one order, nothing kept."""

from __future__ import annotations

import asyncio

from zwave_mcp.devices.serial import DeviceLocks


async def test_a_second_change_of_a_device_waits_for_the_first() -> None:
    locks, order = DeviceLocks(), []
    first_in, release = asyncio.Event(), asyncio.Event()

    async def first() -> None:
        async with locks.holding(["2"]):
            first_in.set()
            await release.wait()
            order.append("first done")

    async def second() -> None:
        await first_in.wait()
        async with locks.holding(["2"]):
            order.append("second ran")

    tasks = [asyncio.create_task(first()), asyncio.create_task(second())]
    await first_in.wait()
    await asyncio.sleep(0)  # let the second reach the lock
    assert order == [] and locks.busy("2")
    release.set()
    await asyncio.gather(*tasks)
    assert order == ["first done", "second ran"]
    assert not locks.busy("2")  # a lock nobody uses is not kept


async def test_other_devices_do_not_wait() -> None:
    locks = DeviceLocks()
    async with locks.holding(["2"]), locks.holding(["3"]):
        assert locks.busy("2") and locks.busy("3")


async def test_overlapping_groups_never_wait_for_each_other_crosswise() -> None:
    locks, done = DeviceLocks(), []
    both_asked = asyncio.Event()

    async def change(keys: list[str], name: str) -> None:
        async with locks.holding(keys):
            await both_asked.wait()
            done.append(name)

    tasks = [asyncio.create_task(change(["3", "2"], "a")), asyncio.create_task(change(["2", "3"], "b"))]
    await asyncio.sleep(0)
    both_asked.set()
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    assert sorted(done) == ["a", "b"] and not locks.busy("2") and not locks.busy("3")


async def test_a_cancelled_waiter_gives_its_place_back() -> None:
    locks = DeviceLocks()
    async with locks.holding(["2"]):
        waiter = asyncio.create_task(locks.holding(["2"]).__aenter__())
        await asyncio.sleep(0)
        waiter.cancel()
        await asyncio.gather(waiter, return_exceptions=True)
    assert not locks.busy("2")
