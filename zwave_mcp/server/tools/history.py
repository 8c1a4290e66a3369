"""History tools (read-only): what happened over a period, the last time something happened, energy used,
and batteries, answered from the history store (`zwave_mcp.history`)."""

from __future__ import annotations

from mcp.server.mcpserver import Context

from zwave_mcp.history.batteries import batteries
from zwave_mcp.history.models import (
    BatteryArgs,
    BatteryResult,
    EnergyArgs,
    EnergyResult,
    HistoryArgs,
    HistoryResult,
    LastEventArgs,
    LastEventResult,
)
from zwave_mcp.history.usage import energy
from zwave_mcp.server.app import App
from zwave_mcp.server.tools.spec import tool


async def get_device_history(app: App, args: HistoryArgs, _ctx: Context | None) -> HistoryResult:
    """What a device, a room or a kind of device did over a period ('last hour', 'today', 'since 6 pm',
    'yesterday', ISO ranges), from the stored history that survives restarts; with no device or room, the
    whole house. chart=true adds a PNG of the numeric readings."""
    return await app.history.service.history(args)


async def get_last_event(app: App, args: LastEventArgs, _ctx: Context | None) -> LastEventResult:
    """When something last happened: a device (or room) last opened, closed, locked, unlocked, saw motion,
    turned on or off, went dead, fell asleep, woke up; or zwave-js-ui last went online or offline. From the
    stored history."""
    return await app.history.service.last_event(args)


async def get_energy_usage(app: App, args: EnergyArgs, _ctx: Context | None) -> EnergyResult:
    """Energy (kWh) a device, a room or the whole house used over a period, from the meters' readings (meter
    resets and gaps handled); for 'today' also the last 7 days. chart=true adds a PNG of energy per hour or
    day."""
    return await energy(app.history.service, args)


async def get_battery_report(app: App, args: BatteryArgs, _ctx: Context | None) -> BatteryResult:
    """Battery levels with the reading's age and its trend, low batteries, and battery devices that have gone
    silent (not reported for silentHours)."""
    return await batteries(app.history.service, args)


TOOLS = [
    tool(get_device_history, title="Device history"),
    tool(get_last_event, title="Last time something happened"),
    tool(get_energy_usage, title="Energy use"),
    tool(get_battery_report, title="Batteries"),
]
