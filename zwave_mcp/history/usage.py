"""Energy answers: kWh a device, a room or the house used over a period, from the meters' readings in the
store (plus the live reading), counted by `energy.py` across resets and gaps."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING

from zwave_mcp.devices.levels import is_number
from zwave_mcp.devices.model import Capability
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.history import energy as energy_math
from zwave_mcp.history.models import DeviceEnergy, EnergyArgs, EnergyResult
from zwave_mcp.history.periods import Period, parse_period
from zwave_mcp.history.service import cap

if TYPE_CHECKING:
    from zwave_mcp.history.service import HistoryService
    from zwave_mcp.history.store import Store


async def energy(service: HistoryService, args: EnergyArgs) -> EnergyResult:
    period = parse_period(args.period, service.now())
    devices, label = service.targets(args.deviceName, args.room, None)
    meters = [
        (d, [v for v in d.readings.get(Capability.METER, []) if (v.unit or "").lower() == "kwh"])
        for d in devices
    ]
    meters = [(d, values) for d, values in meters if values]
    if not meters:
        raise UserError(
            f"{cap(label)} has no energy meter (kWh)."
            if args.deviceName
            else f"No device in {label} reports energy in kWh."
        )
    store = await service.store()
    now = service.now()
    week_start = int((now - timedelta(days=7)).timestamp() * 1000)
    with_week = period.words == "today"
    start, end = period.start_ms, period.end_ms + 1
    first = min(start, week_start) if with_week else start

    def read() -> list[list[list[tuple[int, float]]]]:
        return [[_readings(store, v, first, end) for v in values] for _, values in meters]

    all_readings = await service.query(read)
    results: list[DeviceEnergy] = []
    for (device, _values), per_value in zip(meters, all_readings, strict=True):
        used = [energy_math.used_between(r, start, end) for r in per_value]
        week = [energy_math.used_between(r, week_start, end) for r in per_value] if with_week else []
        results.append(
            DeviceEnergy(
                device=device.name,
                deviceKey=device.key,
                kWh=_sum(used),
                last7DaysKWh=_sum(week) if with_week else None,
                resets=sum(energy_math.resets([p for p in r if p[0] >= start]) for r in per_value),
                readings=sum(len(r) for r in per_value),
            )
        )
    total = _sum([r.kWh for r in results])
    summary = _energy_sentence(label, len(devices) == 1 and bool(args.deviceName), period, results, total)
    result = EnergyResult(
        summary=summary, period=service.period_info(period), totalKWh=total, devices=results
    )
    if args.chart:
        per_value_all = [r for per_value in all_readings for r in per_value]
        await service.attach_chart(result, lambda: _energy_chart(label, period, per_value_all))
    return result


def _readings(store: Store, value: ZValue, start: int, end: int) -> list[tuple[int, float]]:
    sid = store.series_ids.get(("value", value.value_id))
    points = store.numbers(sid, start, end) if sid is not None else []
    live = value.value
    at = value.last_update_ms
    if is_number(live) and at is not None and at < end and (not points or at > points[-1][0]):
        points.append((at, float(live)))
    return points


def _energy_sentence(
    label: str, single: bool, period: Period, results: list[DeviceEnergy], total: float | None
) -> str:
    if single:
        r = results[0]
        if r.kWh is None:
            return (
                f"{r.device} has too few meter readings {period.words} to tell its energy use; "
                "history needs two readings."
            )
        text = f"{r.device} used {_kwh(r.kWh)} {period.words}"
        if r.last7DaysKWh is not None:
            text += f" and {_kwh(r.last7DaysKWh)} in the last 7 days"
        if r.resets:
            text += f" (its meter was reset {'once' if r.resets == 1 else f'{r.resets} times'} in between)"
        return text + "."
    if total is None:
        return f"The meters in {label} have too few readings {period.words} to tell the energy used."
    ranked = sorted((r for r in results if r.kWh), key=lambda r: -(r.kWh or 0))
    top = ", ".join(f"{r.device} {_kwh(r.kWh or 0)}" for r in ranked[:3])
    return f"{cap(label)} used {_kwh(total)} {period.words}" + (f"; most: {top}." if top else ".")


def _energy_chart(label: str, period: Period, readings: list[list[tuple[int, float]]]) -> bytes | str:
    from zwave_mcp.history import chart

    hourly = period.end - period.start <= timedelta(hours=36)
    step = timedelta(hours=1) if hourly else timedelta(days=1)
    edge = period.start.replace(minute=0, second=0, microsecond=0)
    if not hourly:
        edge = edge.replace(hour=0)
    edges = []
    while edge < period.end:
        edges.append(edge)
        edge += step
    ms = [int(e.timestamp() * 1000) for e in edges]
    totals = [0.0] * len(edges)
    for r in readings:
        for i, used in enumerate(energy_math.per_day(r, ms, period.end_ms + 1)):
            totals[i] += used or 0.0
    labels = [e.strftime("%H:%M" if hourly else "%a %d") for e in edges]
    return chart.bars(f"{cap(label)}: energy {period.words} (kWh)", labels, totals)


def _sum(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(sum(known), 3) if known else None


def _kwh(value: float) -> str:
    return f"{value:.1f} kWh" if value >= 0.95 or value == 0 else f"{value:.2f} kWh"
