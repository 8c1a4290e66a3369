"""The gateway's one report watcher (issue 41): `Waiters.watch` records the reports of one value from when it
is opened, with loop times, and `Waiters.value` waits on a watch of its own; the gate watches through it and
keeps no listener of its own on the inventory."""

from __future__ import annotations

import asyncio

from zwave_mcp.config import load_settings
from zwave_mcp.devices.gate import Gate
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.gateway.model import InventoryEvent
from zwave_mcp.policy import Policy, PolicyConfig
from zwave_mcp.simulator import captured_house

LIGHT = "2-37-0-currentValue"  # the captured house's Kitchen Light


def _gateway() -> ZwaveGateway:
    gateway = ZwaveGateway(load_settings({"mqtt_url": "mqtt://127.0.0.1:1"}, environ={}))
    gateway.inventory.load_nodes(captured_house())
    return gateway


def _report(gateway: ZwaveGateway, value: object, value_id: str = LIGHT) -> None:
    """The device reports `value`: the picture shows it, and the inventory says so."""
    zvalue = gateway.inventory.value(value_id)
    assert zvalue is not None
    old, zvalue.value = zvalue.value, value
    gateway.inventory._emit([InventoryEvent("value", 2, value_id, old, value)])


def test_a_watch_records_the_reports_of_its_value_while_open() -> None:
    gateway = _gateway()

    async def run() -> tuple[list[object], list[object], object, object, object]:
        loop = asyncio.get_running_loop()
        _report(gateway, 10)  # before the watch: not recorded
        with gateway.waiters.watch(LIGHT) as watch:
            opened = loop.time()
            _report(gateway, 20)
            _report(gateway, 30, "2-37-0-targetValue")  # another value
            loop.call_later(0.02, _report, gateway, 40)
            second = await watch.first(opened, lambda v: v >= 20, loop.time() + 1, skip=1)
            late = loop.time()
            none_yet = await watch.first(late, lambda v: v >= 20, loop.time() + 0.02)
            too_few = await watch.first(opened, lambda v: v >= 20, loop.time(), skip=2)
            recorded = [value for at, value in watch.reports if at >= opened]
            before_late = [value for at, value in watch.reports if at < late]
        _report(gateway, 50)  # after it closed: not recorded
        assert [at for at, _ in watch.reports] == sorted(at for at, _ in watch.reports)
        return recorded, before_late, second, none_yet, too_few

    recorded, before_late, second, none_yet, too_few = asyncio.run(run())
    assert recorded == [20, 40] and before_late == [20, 40]
    assert second == 40 and none_yet is None and too_few is None
    assert gateway.waiters._watches == {}


def test_a_value_that_held_for_a_moment_is_not_missed() -> None:
    """The test is applied on the change itself, not when the waiting call runs again: a value that moved
    on within the same turn of the loop (a flood) still counts."""
    gateway = _gateway()

    async def run() -> object:
        waiting = asyncio.ensure_future(gateway.waiters.value(LIGHT, lambda v: v.value == 99, 0.5))
        await asyncio.sleep(0)
        _report(gateway, 99)
        _report(gateway, 0)
        found = await waiting
        return None if found is None else found.value_id

    assert asyncio.run(run()) == LIGHT
    assert gateway.waiters._watches == {}


def test_a_reload_lets_a_waiting_value_look_again() -> None:
    gateway = _gateway()

    async def run() -> object:
        waiting = asyncio.ensure_future(gateway.waiters.value(LIGHT, lambda v: v.value == 7, 0.5))
        await asyncio.sleep(0)
        zvalue = gateway.inventory.value(LIGHT)
        assert zvalue is not None
        zvalue.value = 7  # moved without a report (a reload)
        gateway.waiters.recheck()
        return await waiting

    assert asyncio.run(run()) is not None


def test_the_gate_watches_through_the_waiters_with_no_listener_of_its_own() -> None:
    gateway = _gateway()
    settings = gateway.settings
    listeners = len(gateway.inventory._listeners)
    Gate(gateway, Policy(PolicyConfig()), settings)
    assert len(gateway.inventory._listeners) == listeners
