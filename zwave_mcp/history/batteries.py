"""Battery answers: each battery's level, the reading's age and its trend over the stored readings, low
batteries, and battery devices that have gone silent."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from zwave_mcp.devices.levels import is_number
from zwave_mcp.devices.model import BATTERY_LEVEL, Capability, Device
from zwave_mcp.devices.resolve import echo
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.history.models import BatteryArgs, BatteryInfo, BatteryResult
from zwave_mcp.history.service import ago
from zwave_mcp.history.words import number

if TYPE_CHECKING:
    from zwave_mcp.history.service import HistoryService

TREND_DAYS = 30


async def batteries(service: HistoryService, args: BatteryArgs) -> BatteryResult:
    devices, label = service.targets(
        args.deviceName, args.room, None if args.deviceName else Capability.BATTERY
    )
    by_node: dict[int, tuple[Device, ZValue]] = {}
    for device in devices:
        value = device.values.get(BATTERY_LEVEL) or next(
            iter(device.readings.get(Capability.BATTERY, [])), None
        )
        if value is not None and device.node_id not in by_node:
            by_node[device.node_id] = (device, value)
    if not by_node:
        if args.deviceName:
            raise UserError(f"{label} has no battery.")
        raise UserError(
            f"No device in the {echo(args.room)} has a battery." if args.room else "No device has a battery."
        )
    store = await service.store()
    now = service.now()
    now_ms = int(now.timestamp() * 1000)
    trend_start = now_ms - TREND_DAYS * 86_400_000

    def read() -> list[tuple[list[tuple[int, float]], int | None]]:
        by_node_sids: dict[str, list[int]] = {}
        for (kind, key), sid in list(store.series_ids.items()):
            if kind == "value":
                by_node_sids.setdefault(key.split("-", 1)[0], []).append(sid)
        out = []
        for device, value in by_node.values():
            series = store.series_ids.get(("value", value.value_id))
            points = store.numbers(series, trend_start, now_ms + 1) if series is not None else []
            node_sids = by_node_sids.get(str(device.node_id), [])
            seen = [t for _, _, t in store.latest_of(node_sids).values() if t is not None]
            out.append((points, max(seen, default=None)))
        return out

    stored = await service.query(read)
    infos: list[BatteryInfo] = []
    for (device, value), (points, stored_seen) in zip(by_node.values(), stored, strict=True):
        level = value.value if is_number(value.value) else None
        reading_at = value.last_update_ms
        if level is None and points:
            reading_at, level = points[-1]
        inside = [p for p in points if p[0] >= trend_start]
        trend = trend_days = None
        if inside and level is not None and (reading_at or now_ms) - inside[0][0] > 3600_000:
            trend = round(float(level) - inside[0][1], 1)
            trend_days = round(((reading_at or now_ms) - inside[0][0]) / 86_400_000, 1)
        node = device.node
        heard = (node.last_active_ms, stored_seen, *(v.last_update_ms for v in node.values.values()))
        last_heard = max((t for t in heard if t), default=None)
        silent = last_heard is None or (now_ms - last_heard) > args.silentHours * 3600_000
        infos.append(
            BatteryInfo(
                device=device.name,
                deviceKey=device.key,
                level=level,
                low=level is not None and level <= args.lowPercent,
                readingAt=service.iso(reading_at) if reading_at else None,
                readingAgeSeconds=round((now_ms - reading_at) / 1000, 1) if reading_at else None,
                trendPoints=trend,
                trendDays=trend_days,
                lastHeardAt=service.iso(last_heard) if last_heard else None,
                silent=silent,
                status=device.node.status,
            )
        )
    infos.sort(key=lambda i: (i.level if i.level is not None else 101, i.device))
    summary = _battery_sentence(infos, now_ms)
    return BatteryResult(
        summary=summary,
        batteries=infos,
        low=[i.device for i in infos if i.low],
        silent=[i.device for i in infos if i.silent],
    )


def _battery_sentence(infos: list[BatteryInfo], now_ms: int) -> str:
    def level_text(i: BatteryInfo) -> str:
        text = f"{i.device} {number(i.level)} %" if i.level is not None else f"{i.device} (level unknown)"
        if i.trendPoints and i.trendDays:
            direction = "down" if i.trendPoints < 0 else "up"
            text += f", {direction} {number(abs(i.trendPoints))} points in {ago(i.trendDays * 86400)}"
        if i.readingAgeSeconds is not None and i.readingAgeSeconds > 86400:
            text += f", read {ago(i.readingAgeSeconds)} ago"
        return text

    parts = []
    low = [i for i in infos if i.low]
    if low:
        parts.append("Low: " + "; ".join(level_text(i) for i in low))
    rest = [i for i in infos if not i.low]
    if rest:
        parts.append(("Others: " if low else "Batteries: ") + "; ".join(level_text(i) for i in rest[:6]))
    for i in [i for i in infos if i.silent][:3]:
        if i.lastHeardAt is None:
            parts.append(f"{i.device} has not reported since history began")
        else:
            age = now_ms / 1000 - datetime.fromisoformat(i.lastHeardAt).timestamp()
            parts.append(f"{i.device} has not reported for {ago(age)}")
    return ". ".join(parts) + "."
