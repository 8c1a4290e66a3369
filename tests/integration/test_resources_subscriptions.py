"""Resource subscriptions end to end: a device changes in the simulator, a subscribed client hears of it.

Both subscription styles, in-process over `mcp.Client`: the 2026-07-28 `subscriptions/listen` stream
(`client.listen`) and the 2025-era `resources/subscribe` (`mode="legacy"`, notifications through the
client's `message_handler`). Absence ("the sibling was not notified") is checked with a barrier: a second,
later change whose notification must arrive, so anything that was going to arrive before it has.
"""

from __future__ import annotations

import itertools
import json
import time
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.subscriptions import ResourceUpdated
from mcp_types import ResourceUpdatedNotification

from tests.integration.mcp_harness import settings_for, wait_until_healthy
from zwave_mcp.server.build import build_server
from zwave_mcp.server.compat import lowlevel_server
from zwave_mcp.server.resource_updates import DEVICE_MIN_INTERVAL_S, DEVICES_URI, HEALTH_URI, device_uri
from zwave_mcp.simulator import Simulator
from zwave_mcp.zwave.wire import value_key

# The bar: a subscriber hears of a device change within a second.
NOTIFY_WITHIN_S = 1.0
MULTILEVEL_SWITCH = 38
BINARY_SWITCH = 37

LAMP = "3"  # Living Room Lamp, a dimmer
KITCHEN = "2"  # Kitchen Light, a binary switch
PORCH_1, PORCH_2 = "11.1", "11.2"  # two endpoints of one node


def change(sim: Simulator, node_id: int, cc: int, prop: str, new: Any, endpoint: int = 0) -> None:
    """The device reports a new value on its own (as a press on a wall switch would)."""
    node = sim.nodes[node_id]
    sim.set_value(node, node["values"][value_key(cc, endpoint, prop)], new)


def lamp_level(sim: Simulator) -> int:
    value = sim.nodes[3]["values"][value_key(MULTILEVEL_SWITCH, 0, "currentValue")]["value"]
    assert isinstance(value, int)
    return value


class Inbox:
    """Resource-updated notifications a 2025-era client received, with arrival times."""

    def __init__(self) -> None:
        self.got: list[tuple[str, float]] = []
        self._arrived = anyio.Event()

    async def handler(self, message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            self.got.append((str(message.params.uri), time.monotonic()))
            self._arrived.set()
            self._arrived = anyio.Event()

    def uris(self) -> list[str]:
        return [uri for uri, _ in self.got]

    async def wait_for(self, uri: str, after: int = 0, timeout: float = NOTIFY_WITHIN_S) -> float:
        """Arrival time of the first notification for `uri` at index >= `after`; fails after `timeout`."""
        with anyio.move_on_after(timeout):
            while True:
                for uri_got, at in self.got[after:]:
                    if uri_got == uri:
                        return at
                await self._arrived.wait()
        raise AssertionError(f"no notifications/resources/updated for {uri} within {timeout} s: {self.got}")


@asynccontextmanager
async def legacy_client(mosquitto: Any, sim: Simulator, inbox: Inbox) -> AsyncIterator[Client]:
    server = build_server(settings_for(mosquitto, sim))
    async with Client(server, mode="legacy", message_handler=inbox.handler) as client:
        await wait_until_healthy(client)
        yield client


async def subscribe(client: Client, *uris: str) -> None:
    with warnings.catch_warnings():  # resources/subscribe is deprecated at 2026-07-28; this is the old client
        warnings.simplefilter("ignore")
        for uri in uris:
            await client.subscribe_resource(uri)


async def unsubscribe(client: Client, uri: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        await client.unsubscribe_resource(uri)


async def next_event(sub: Any, timeout: float = NOTIFY_WITHIN_S) -> ResourceUpdated:
    with anyio.fail_after(timeout):
        event = await sub.__anext__()
    assert isinstance(event, ResourceUpdated), event
    return event


# ---- 2026-07-28: subscriptions/listen ------------------------------------------------------------------


async def test_listen_stream_hears_a_device_change_within_a_second(
    mosquitto: Any, simulator_factory: Any
) -> None:
    sim = simulator_factory()
    server = build_server(settings_for(mosquitto, sim))
    async with Client(server) as client:
        assert client.protocol_version == "2026-07-28"
        await wait_until_healthy(client)
        assert client.server_capabilities.resources is not None
        assert client.server_capabilities.resources.subscribe is True
        new_level = (lamp_level(sim) + 37) % 99
        async with client.listen(resource_subscriptions=[device_uri(LAMP)]) as sub:
            started = time.monotonic()
            change(sim, 3, MULTILEVEL_SWITCH, "currentValue", new_level)
            event = await next_event(sub)
            elapsed = time.monotonic() - started
            assert event.uri == device_uri(LAMP)
            assert elapsed < NOTIFY_WITHIN_S
            # The cue is honest: reading the resource now shows what the device reported.
            read = await client.read_resource(device_uri(LAMP))
            values = json.loads(read.contents[0].text)["values"]
            assert values["3-38-0-currentValue"]["value"] == new_level


async def test_listen_stream_gets_only_the_uris_it_asked_for(mosquitto: Any, simulator_factory: Any) -> None:
    sim = simulator_factory()
    server = build_server(settings_for(mosquitto, sim))
    async with Client(server) as client:
        await wait_until_healthy(client)
        async with client.listen(resource_subscriptions=[device_uri(KITCHEN), DEVICES_URI]) as sub:
            change(sim, 3, MULTILEVEL_SWITCH, "currentValue", (lamp_level(sim) + 11) % 99)  # not asked for
            change(sim, 2, BINARY_SWITCH, "currentValue", True)  # the barrier
            seen = {(await next_event(sub)).uri, (await next_event(sub)).uri}
            # The lamp's change reached zwave://devices (it summarizes every device) but not as a lamp URI.
            assert seen == {DEVICES_URI, device_uri(KITCHEN)}


# ---- 2025-era: resources/subscribe ---------------------------------------------------------------------


async def test_resources_subscribe_hears_a_device_change_within_a_second(
    mosquitto: Any, simulator_factory: Any
) -> None:
    sim = simulator_factory()
    inbox = Inbox()
    async with legacy_client(mosquitto, sim, inbox) as client:
        assert client.protocol_version != "2026-07-28"
        assert client.server_capabilities.resources is not None
        assert client.server_capabilities.resources.subscribe is True
        await subscribe(client, device_uri(LAMP), device_uri(KITCHEN))
        started = time.monotonic()
        change(sim, 3, MULTILEVEL_SWITCH, "currentValue", (lamp_level(sim) + 23) % 99)
        arrived = await inbox.wait_for(device_uri(LAMP))
        assert arrived - started < NOTIFY_WITHIN_S
        mark = len(inbox.got)
        change(sim, 2, BINARY_SWITCH, "currentValue", True)
        await inbox.wait_for(device_uri(KITCHEN), after=mark)
        assert inbox.uris().count(device_uri(KITCHEN)) == 1
        assert DEVICES_URI not in inbox.uris()  # never subscribed to


async def test_a_write_through_the_gateway_notifies_too(mosquitto: Any, simulator_factory: Any) -> None:
    sim = simulator_factory()
    inbox = Inbox()
    async with legacy_client(mosquitto, sim, inbox) as client:
        await subscribe(client, device_uri(KITCHEN))
        reply = await client.call_tool(
            "control_zwave_device", {"deviceName": "kitchen light", "action": "on"}
        )
        assert not reply.is_error, reply.content
        await inbox.wait_for(device_uri(KITCHEN))


async def test_unsubscribe_stops_notifications(mosquitto: Any, simulator_factory: Any) -> None:
    sim = simulator_factory()
    inbox = Inbox()
    async with legacy_client(mosquitto, sim, inbox) as client:
        await subscribe(client, device_uri(LAMP), device_uri(KITCHEN))
        await unsubscribe(client, device_uri(LAMP))
        change(sim, 3, MULTILEVEL_SWITCH, "currentValue", (lamp_level(sim) + 29) % 99)
        change(sim, 2, BINARY_SWITCH, "currentValue", True)
        await inbox.wait_for(device_uri(KITCHEN))
        assert device_uri(LAMP) not in inbox.uris()


async def test_an_endpoint_change_notifies_that_endpoint_only(mosquitto: Any, simulator_factory: Any) -> None:
    sim = simulator_factory()
    inbox = Inbox()
    async with legacy_client(mosquitto, sim, inbox) as client:
        await subscribe(client, device_uri(PORCH_1), device_uri(PORCH_2), device_uri(KITCHEN))
        change(sim, 11, BINARY_SWITCH, "currentValue", True, endpoint=2)
        change(sim, 2, BINARY_SWITCH, "currentValue", True)
        await inbox.wait_for(device_uri(PORCH_2))
        await inbox.wait_for(device_uri(KITCHEN))
        assert device_uri(PORCH_1) not in inbox.uris()


async def test_a_dead_node_updates_its_device_and_health(mosquitto: Any, simulator_factory: Any) -> None:
    sim = simulator_factory()
    inbox = Inbox()
    async with legacy_client(mosquitto, sim, inbox) as client:
        await subscribe(client, device_uri(KITCHEN), HEALTH_URI, DEVICES_URI)
        sim.kill_node(2)
        for uri in (device_uri(KITCHEN), HEALTH_URI, DEVICES_URI):
            await inbox.wait_for(uri)
        health = json.loads((await client.read_resource(HEALTH_URI)).contents[0].text)
        assert health["nodes"].get("Dead", 0) >= 1, health


async def test_a_chatty_meter_is_coalesced(mosquitto: Any, simulator_factory: Any) -> None:
    """A device reporting every 20 ms for 0.7 s: notifications at least one interval apart, the last after it."""
    sim = simulator_factory()
    inbox = Inbox()
    reports = 35
    async with legacy_client(mosquitto, sim, inbox) as client:
        await subscribe(client, device_uri(LAMP))
        base = lamp_level(sim)
        for i in range(1, reports + 1):
            change(sim, 3, MULTILEVEL_SWITCH, "currentValue", (base + i) % 99)
            await anyio.sleep(0.02)  # the device's pace, not a wait for the server
        last_report_at = time.monotonic()
        # Quiet: nothing more within two intervals after the last notification.
        while True:
            try:
                await inbox.wait_for(
                    device_uri(LAMP), after=len(inbox.got), timeout=2 * DEVICE_MIN_INTERVAL_S
                )
            except AssertionError:
                break
        times = [at for uri, at in inbox.got if uri == device_uri(LAMP)]
        assert 2 <= len(times) < reports / 4, times
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert min(gaps) >= DEVICE_MIN_INTERVAL_S * 0.9, gaps
        assert times[-1] >= last_report_at  # the trailing notification covers the last report
        values = json.loads((await client.read_resource(device_uri(LAMP))).contents[0].text)["values"]
        assert values["3-38-0-currentValue"]["value"] == (base + reports) % 99


@pytest.mark.parametrize("style", ["listen", "subscribe"])
async def test_nobody_subscribed_costs_nothing(mosquitto: Any, simulator_factory: Any, style: str) -> None:
    """Without subscribers no notification is built; after subscribing, the same change is sent."""
    sim = simulator_factory()
    inbox = Inbox()
    server = build_server(settings_for(mosquitto, sim))
    mode = "legacy" if style == "subscribe" else "auto"
    async with Client(server, mode=mode, message_handler=inbox.handler) as client:
        await wait_until_healthy(client)
        updates = lowlevel_server(server).get_request_handler("resources/subscribe")
        assert updates is not None
        notifier = updates.handler.__self__  # the ResourceUpdates behind the handler
        assert not notifier.has_subscribers
        change(sim, 2, BINARY_SWITCH, "currentValue", True)
        read = await client.read_resource(device_uri(KITCHEN))
        with anyio.fail_after(3):
            while json.loads(read.contents[0].text)["values"]["2-37-0-currentValue"]["value"] is not True:
                await anyio.sleep(0.01)
                read = await client.read_resource(device_uri(KITCHEN))
        assert notifier.sent == 0
        if style == "subscribe":
            await subscribe(client, device_uri(KITCHEN))
            change(sim, 2, BINARY_SWITCH, "currentValue", False)
            await inbox.wait_for(device_uri(KITCHEN))
        else:
            async with client.listen(resource_subscriptions=[device_uri(KITCHEN)]) as sub:
                assert notifier.has_subscribers
                change(sim, 2, BINARY_SWITCH, "currentValue", False)
                assert (await next_event(sub)).uri == device_uri(KITCHEN)
        assert notifier.sent >= 1
