"""Reading tools: list devices, verify one, its whole state, its sensor readings."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from mcp.server.mcpserver import Context

from zwave_mcp.devices.control import available_actions
from zwave_mcp.devices.describe import sentence
from zwave_mcp.devices.errors import DeviceNotFound
from zwave_mcp.devices.kinds.lock import lock_settings, relock_words
from zwave_mcp.devices.model import Capability
from zwave_mcp.devices.questions import answer as ask
from zwave_mcp.devices.readings import readings
from zwave_mcp.server.app import App
from zwave_mcp.server.tools.models import (
    DeviceArgs,
    DeviceCheck,
    DeviceList,
    DeviceState,
    ListDevicesArgs,
    LockSettings,
    SensorArgs,
    SensorData,
    ValueReport,
)
from zwave_mcp.server.tools.present import (
    age_seconds,
    last_press_words,
    list_summary,
    now_ms,
    page_of,
    sensor_summary,
    summarize,
    verify_summary,
)
from zwave_mcp.server.tools.spec import tool


async def list_zwave_devices(app: App, args: ListDevicesArgs, _ctx: Context | None) -> DeviceList:
    """List the Z-Wave devices with their room, type, current state and status, or answer a question about
    many at once: target names a room, a kind, both or everything ('kitchen', 'lights', 'the kitchen lights',
    'everything'); state asks which are on/off/open/closed/locked/unlocked, battery levels, or whether any
    sensor senses smoke, co, a water_leak, motion… ('is anything on in the kitchen?' = target 'kitchen', state
    'on'; 'any leaks?' = state 'water_leak'). Paginated (limit/offset) with a total."""
    chosen = app.devices.select(
        text=args.filter,
        location=args.location,
        capability=args.capability,
        include_inactive=args.includeInactive,
    )
    group = app.devices.group_or_device(args.target) if args.target else None
    if group is not None:
        wanted = {d.key for d in group.devices}
        chosen = [d for d in chosen if d.key in wanted]
    unknown: list[str] = []
    answer_text = None
    if args.state is not None:
        everything = group is None or group.everything
        label = group.label if group is not None else "devices"
        if args.location and (group is None or everything):
            everything, label = False, f"{args.location.strip().lower()} devices"
        answer = ask(args.state, chosen, label, everything and not (args.filter or args.capability))
        answer_text, chosen, unknown = answer.sentence, answer.matching, [d.name for d in answer.unknown]
    page = chosen[args.offset : args.offset + args.limit]
    shown = [summarize(d) for d in page]
    page_number, pages = page_of(len(chosen), args.offset, args.limit, len(shown))
    narrowed = bool(args.filter or args.location or args.capability or args.target)
    summary = answer_text or list_summary(len(chosen), shown, args.offset, args.limit, narrowed)
    return DeviceList(
        summary=summary,
        total=len(chosen),
        offset=args.offset,
        count=len(shown),
        page=page_number,
        pages=pages,
        devices=shown,
        notReported=unknown,
    )


async def verify_device(app: App, args: DeviceArgs, _ctx: Context | None) -> DeviceCheck:
    """Check that a device exists and is ready, and list the actions it takes."""
    try:
        device = app.devices.resolve(args.deviceName)
    except DeviceNotFound as exc:
        return DeviceCheck(summary=exc.message, exists=False)
    actions = available_actions(device) if app.policy.can_control(device) else []
    node = device.node
    ready = node.ready and node.status != "Dead"
    return DeviceCheck(
        summary=verify_summary(device, actions),
        exists=True,
        device=summarize(device),
        ready=ready,
        sleeping=node.is_sleeping_device,
        actions=actions,
    )


async def get_device_state(app: App, args: DeviceArgs, _ctx: Context | None) -> DeviceState:
    """Everything currently known about one device: its state and every reading with its unit in one sentence
    (alarms, temperature, humidity, power and energy totals, battery…); the result lists each reading
    (quantity, value, unit, when reported) and every value with its age."""
    device = app.devices.resolve(args.deviceName)
    now = now_ms()
    values = [
        ValueReport(
            label=v.label,
            value=v.value,
            text=v.state_text(),
            unit=v.unit,
            ageSeconds=age_seconds(v.last_update_ms, now),
            valueId=v.value_id,
            writeable=v.writeable,
        )
        for v in device.all_values()
    ]
    return DeviceState(
        summary=sentence(device, last_press=last_press_words(device, datetime.now().astimezone())),
        device=summarize(device),
        readings=readings(device, now),
        values=values,
        lockSettings=_lock_settings(device),
    )


async def get_device_sensor_data(app: App, args: SensorArgs, _ctx: Context | None) -> SensorData:
    """A device's sensor readings (temperature, humidity, motion, power, energy, battery…) with units and age.
    refresh=true asks the device again for readings older than maxAgeSeconds."""
    device = app.devices.resolve(args.deviceName)
    found = readings(device, now_ms())
    refreshed: set[str] = set()
    if args.refresh:
        old = [r.value_id for r in found if r.age_s is None or r.age_s > args.maxAgeSeconds]
        values = [v for v in device.all_values() if v.value_id in old]
        refreshed = set(await app.devices.refresh(device, values))
        found = readings(device, now_ms())
    items = [replace(r, source="refreshed") if r.value_id in refreshed else r for r in found]
    return SensorData(summary=sensor_summary(device, found), device=summarize(device), readings=items)


TOOLS = [
    tool(list_zwave_devices, title="List devices"),
    tool(verify_device, title="Verify a device"),
    tool(get_device_state, title="Device state"),
    tool(get_device_sensor_data, title="Sensor readings"),
]


def _lock_settings(device: Any) -> LockSettings | None:
    """A door lock's own settings as it reports them ("does it lock itself again?"); None for others."""
    if not device.has(Capability.LOCK):
        return None
    found = lock_settings(device)
    known = {k: v for k, v in found.items() if k in LockSettings.model_fields and _fits(k, v)}
    return LockSettings(relock=relock_words(device), **known)


def _fits(key: str, value: Any) -> bool:
    kind = bool if key in ("twistAssist", "blockToBlock") else (int, float)
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
