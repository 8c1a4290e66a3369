"""MCP resources: the inventory, one device, its last 24 hours of history, and health, as JSON documents,
with change subscriptions.

Each resource is a module-level function that takes the app first, listed in `RESOURCES`;
`register_resources` adds them and the 2025-era `resources/subscribe` handlers, and wires the inventory to
`ResourceUpdates` (see `resource_updates.py`), which notifies both kinds of subscriber.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp_types import SubscribeRequestParams, UnsubscribeRequestParams

from zwave_mcp.errors import UserError
from zwave_mcp.history.periods import parse_period
from zwave_mcp.safetext import json_text
from zwave_mcp.server.app import App, bound
from zwave_mcp.server.compat import lowlevel_server
from zwave_mcp.server.resource_updates import (
    DEVICE_URI_PREFIX,
    DEVICES_URI,
    HEALTH_URI,
    CountingBus,
    ResourceUpdates,
)
from zwave_mcp.server.tools.present import summarize


async def _require_service(app: App) -> None:
    """Fail the read the way the tools fail their calls: an empty or stale list would be a lie."""
    reason = await app.gateway.settled_reason()  # at start-up, wait (bounded) for the first load
    if reason is not None:
        # ResourceError's text reaches the client; any other exception would reach it as a bare "error".
        raise ResourceError(f"Z-Wave service unavailable: {reason}")


async def devices(app: App) -> str:
    """Every device with its key, room, type, state and status. Subscribe to hear of changes."""
    await _require_service(app)
    return json_text([summarize(d).model_dump(mode="json") for d in app.devices.devices()])


async def device(app: App, key: str) -> str:
    """One device (key from zwave://devices, e.g. 3 or 11.2) with every value it reports."""
    await _require_service(app)
    found = app.devices.index.get(key)
    if found is None:
        raise ResourceNotFoundError(f"No device with key '{key[:40]}'; zwave://devices lists the keys.")
    values = {
        v.value_id: {"label": v.label, "value": v.value, "unit": v.unit, "lastUpdate": v.last_update_ms}
        for v in found.all_values()
    }
    return json_text({"device": summarize(found).model_dump(mode="json"), "values": values})


async def device_history(app: App, key: str) -> str:
    """What one device (key from zwave://devices) reported and was told in the last 24 hours, from the history store."""
    await app.gateway.settle()
    found = app.devices.index.get(key)  # hidden devices are not in the index
    if found is None:
        raise ResourceNotFoundError(f"No device with key '{key[:40]}'; zwave://devices lists the keys.")
    service = app.history.service
    try:
        result = await service.history_of(
            [found], found.name, parse_period("last 24 hours", service.now()), 500
        )
    except UserError as exc:
        raise ResourceError(exc.message) from None
    return result.model_dump_json()


async def health(app: App) -> str:
    """Broker, zwave-js-ui and driver state, and node counts by status."""
    await app.gateway.settle()  # at start-up, the first load (bounded), as the devices resource does
    report = app.devices.health()
    return json_text(
        {
            "ok": report.ok,
            "problem": report.problem,
            "broker": {
                "connected": report.broker_connected,
                "address": report.broker_address,
                "mqttVersion": report.broker_protocol,
            },
            "zwaveJsUi": report.zwave_js_ui_state,
            "driverReady": report.driver_ready,
            "nodes": report.nodes_by_status,
            "lastMessageAgeSeconds": report.last_message_age_s,
            "policyEntriesMatchingNoDevice": app.devices.unmatched_entries(),
        }
    )


# Each resource (or template) as `resources/list` shows it (uri, name, title; the reader's docstring is its
# description), and its reader.
RESOURCES: list[tuple[str, str, str, Callable[..., Awaitable[str]]]] = [
    (DEVICES_URI, "devices", "Z-Wave devices", devices),
    (DEVICE_URI_PREFIX + "{key}", "device", "One Z-Wave device", device),
    (
        DEVICE_URI_PREFIX + "{key}/history",
        "device-history",
        "One Z-Wave device's last 24 hours",
        device_history,
    ),
    (HEALTH_URI, "health", "Z-Wave health", health),
]


def register_resources(server: MCPServer[Any], app: App, bus: CountingBus) -> ResourceUpdates:
    """Add the resources; returns the notifier the lifespan starts and stops. `bus` is the server's."""
    for uri, name, title, read in RESOURCES:
        server.resource(uri, name=name, title=title, mime_type="application/json")(bound(read, app))
    updates = ResourceUpdates(bus, app.devices.devices)
    app.gateway.inventory.add_listener(updates.on_change)
    # MCPServer has no decorator for these 2025-era methods; the low-level server takes any handler, and
    # registering them is what makes it advertise `resources.subscribe` to handshake-era clients.
    lowlevel = lowlevel_server(server)
    lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, updates.on_subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, updates.on_unsubscribe)
    return updates
