"""Answers from the store: a device's, room's or kind's history, the last time something happened, energy
used, and batteries. Names resolve through the live device index, so the hide policy holds here too: a
hidden device resolves to nothing and its rows are never read.

Queries run in a worker thread (`asyncio.to_thread`); a store that cannot be read answers a sentence that
says why, never a traceback.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any, TypeVar

from zwave_mcp.devices.model import BATTERY_LEVEL, Capability, Device
from zwave_mcp.devices.resolve import echo
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.history import energy as energy_math
from zwave_mcp.history.models import (
    BatteryArgs,
    BatteryInfo,
    BatteryResult,
    DeviceEnergy,
    EnergyArgs,
    EnergyResult,
    HistoryArgs,
    HistoryEvent,
    HistoryResult,
    LastEventArgs,
    LastEventResult,
    NumericSeries,
    PeriodInfo,
)
from zwave_mcp.history.periods import Period, parse_period, when
from zwave_mcp.history.words import (
    CC_BATTERY,
    CC_METER,
    CC_MULTILEVEL_SENSOR,
    Phrase,
    describe_gateway,
    describe_status,
    describe_value,
    spoken_label,
)

if TYPE_CHECKING:
    from zwave_mcp.devices.service import DeviceService
    from zwave_mcp.gateway.state import Inventory
    from zwave_mcp.history.recorder import Recorder
    from zwave_mcp.history.store import Row, Store

log = logging.getLogger(__name__)
T = TypeVar("T")

OPEN_WAIT_S = 5.0
FLUSH_WAIT_S = 2.0
SPOKEN_EVENTS = 4
SPOKEN_SERIES = 3
LAST_EVENT_PAGE = 500
LAST_EVENT_SCAN = 50_000
TREND_DAYS = 30
NUMERIC_CCS = (CC_MULTILEVEL_SENSOR, CC_METER, CC_BATTERY)
# Values that are requests or settings, not what the device reports about the world.
_NOISE_PREFIXES = ("target", "duration", "lockTimeout", "alarm", "reset")
_NOISE_CCS = (112, 114, 134, 132)  # configuration, manufacturer, version, wake up


def _is_noise(value: ZValue) -> bool:
    prop = str(value.property)
    return (
        value.command_class in _NOISE_CCS
        or prop.startswith(_NOISE_PREFIXES)
        or "Handles" in prop
        or "Configuration" in prop
        or not value.readable
    )


def _is_numeric(value: ZValue | None, raw: Any) -> bool:
    if value is None or isinstance(raw, bool) or not isinstance(raw, int | float):
        return False
    return value.command_class in NUMERIC_CCS and not value.states


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _unit(value: ZValue | None) -> str:
    return f" {value.unit}" if value is not None and value.unit else ""


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def _ago(seconds: float) -> str:
    if seconds < 90:
        return f"{int(seconds)} seconds"
    if seconds < 5400:
        return f"{round(seconds / 60)} minutes"
    if seconds < 2 * 86400:
        hours = round(seconds / 3600)
        return f"{hours} hour{'' if hours == 1 else 's'}"
    return f"{round(seconds / 86400)} days"


@dataclass(frozen=True, slots=True)
class _Source:
    """What one stored series is, for the devices asked about."""

    device: Device | None
    value: ZValue | None
    kind: str  # value | status | gateway
    key: str


class HistoryService:
    """`clock` (epoch seconds) and `tz` (None: the machine's zone) are injectable for tests."""

    def __init__(
        self,
        recorder: Recorder,
        devices: DeviceService,
        inventory: Inventory,
        *,
        clock: Callable[[], float] = time.time,
        tz: tzinfo | None = None,
    ) -> None:
        self.recorder = recorder
        self.devices = devices
        self.inventory = inventory
        self._clock = clock
        self._tz = tz

    def now(self) -> datetime:
        return datetime.fromtimestamp(self._clock(), self._tz).astimezone(self._tz)

    def _dt(self, at_ms: int) -> datetime:
        return datetime.fromtimestamp(at_ms / 1000, self._tz).astimezone(self._tz)

    def _iso(self, at_ms: int) -> str:
        return self._dt(at_ms).isoformat(timespec="seconds")

    # ---- the store ------------------------------------------------------------------------------

    async def _store(self) -> Store:
        recorder = self.recorder
        if recorder.state == "opening":
            await asyncio.to_thread(recorder.wait_open, OPEN_WAIT_S)
        if recorder.state != "ready" or recorder.store is None:
            reason = recorder.reason or "the history store is still opening"
            raise UserError(f"History cannot answer: {reason}. Live readings and controls still work.")
        await asyncio.to_thread(recorder.flush, FLUSH_WAIT_S)  # what just happened is asked about next
        return recorder.store

    async def _query(self, work: Callable[[], T]) -> T:
        import sqlite3

        from zwave_mcp.history.store import explain

        try:
            return await asyncio.to_thread(work)
        except sqlite3.Error as exc:
            reason = explain(exc, self.recorder.path or "")
            log.warning("history query failed: %s", reason)
            raise UserError(
                f"History cannot answer: {reason}. Live readings and controls still work."
            ) from None

    # ---- what is asked about -------------------------------------------------------------------

    def _targets(
        self, device_name: str | None, room: str | None, kind: Capability | None = None
    ) -> tuple[list[Device], str]:
        """The visible devices asked about, and how to name them in a sentence."""
        if device_name:
            device = self.devices.resolve(device_name)
            return [device], device.name
        found = self.devices.select(location=room, capability=kind, include_inactive=True)
        if room and not found and not self.devices.select(location=room, include_inactive=True):
            rooms = sorted({d.location for d in self.devices.devices() if d.location})
            hint = f" Rooms: {', '.join(rooms[:12])}." if rooms else ""
            raise UserError(f"No devices in a room named '{echo(room)}'.{hint}")
        if len(found) == 1:  # a room or kind with one device: say its name
            return found, found[0].name
        what = f"{kind} devices" if kind else "devices"
        if room:
            return found, f"the {room}" if kind is None else f"the {what} in the {room}"
        return found, "the house" if kind is None else f"the {what}"

    def _sources(self, store: Store, devices: Sequence[Device], *, gateway: bool) -> dict[int, _Source]:
        ids = store.series_ids
        sources: dict[int, _Source] = {}
        nodes_seen: set[int] = set()
        for device in devices:
            for value in device.all_values():
                if _is_noise(value):
                    continue
                sid = ids.get(("value", value.value_id))
                if sid is not None:
                    sources[sid] = _Source(device, value, "value", value.value_id)
            if device.node_id not in nodes_seen:
                nodes_seen.add(device.node_id)
                sid = ids.get(("status", str(device.node_id)))
                if sid is not None:
                    sources[sid] = _Source(device, None, "status", str(device.node_id))
        if gateway:
            for (kind, key), sid in list(ids.items()):
                if kind == "gateway":
                    sources[sid] = _Source(None, None, "gateway", key)
        return sources

    def _phrase(self, source: _Source, raw: Any) -> Phrase:
        if source.kind == "status":
            return describe_status(raw)
        if source.kind == "gateway":
            return describe_gateway(source.key, raw)
        return describe_value(source.value, raw)

    def _event(self, source: _Source, row: Row) -> HistoryEvent:
        phrase = self._phrase(source, row.new)
        return HistoryEvent(
            at=self._iso(row.at),
            device=source.device.name if source.device else None,
            deviceKey=source.device.key if source.device else None,
            what=phrase.text,
            value=phrase.shown,
            state=phrase.state,
            source="gateway"
            if source.kind == "gateway"
            else "status"
            if source.kind == "status"
            else "value",
        )

    def _period(self, text: str) -> Period:
        return parse_period(text, self.now())

    def _period_info(self, period: Period) -> PeriodInfo:
        return PeriodInfo(
            start=period.start.isoformat(timespec="seconds"),
            end=period.end.isoformat(timespec="seconds"),
            words=period.words,
        )

    # ---- history ----------------------------------------------------------------------------------

    async def history(self, args: HistoryArgs) -> HistoryResult:
        period = self._period(args.period)
        devices, label = self._targets(args.deviceName, args.room, args.kind)
        return await self.history_of(
            devices,
            label,
            period,
            args.limit,
            chart=args.chart,
            gateway=not (args.deviceName or args.room or args.kind),
        )

    async def history_of(
        self,
        devices: Sequence[Device],
        label: str,
        period: Period,
        limit: int,
        *,
        chart: bool = False,
        gateway: bool = False,
    ) -> HistoryResult:
        store = await self._store()
        sources = self._sources(store, devices, gateway=gateway)
        keys = [d.key for d in devices]
        start, end = period.start_ms, period.end_ms + 1

        def read() -> tuple[list[Row], list[Any]]:
            rows = store.rows(list(sources), start, end)
            return rows, store.outcomes(keys, start, end, limit)

        rows, outcomes = await self._query(read)
        events: list[tuple[int, HistoryEvent]] = []
        numeric: dict[int, list[tuple[int, float]]] = {}
        for row in rows:
            source = sources[row.series]
            if source.kind == "value" and _is_numeric(source.value, row.new):
                numeric.setdefault(row.series, []).append((row.at, float(row.new)))
            elif source.kind == "status" and row.old is None:
                continue  # the status first seen at a load: where things stood, not something that happened
            else:
                events.append((row.at, self._event(source, row)))
        names = {d.key: d.name for d in devices}  # the name people use now, as value events have it
        for o in outcomes:
            text = f"was told to {o.action.replace('_', ' ')} ({o.outcome.replace('_', ' ')})"
            events.append(
                (
                    o.at,
                    HistoryEvent(
                        at=self._iso(o.at),
                        device=names.get(o.device_key or "", o.device),
                        deviceKey=o.device_key,
                        what=text,
                        value=o.value,
                        state=None,
                        source="command",
                    ),
                )
            )
        events.sort(key=lambda e: e[0])
        truncated = len(events) > limit
        events = events[-limit:]
        readings = [self._numeric(sources[sid], points) for sid, points in numeric.items()]
        readings.sort(key=lambda r: (r.device, r.label))
        summary = self._history_sentence(label, len(devices) == 1, period, events, readings, truncated)
        result = HistoryResult(
            summary=summary,
            period=self._period_info(period),
            events=[e for _, e in events],
            readings=readings,
            truncated=truncated,
        )
        if chart:
            await self._attach_chart(result, lambda: self._history_chart(label, period, sources, numeric))
        return result

    def _numeric(self, source: _Source, points: list[tuple[int, float]]) -> NumericSeries:
        assert source.device is not None and source.value is not None
        values = [v for _, v in points]
        return NumericSeries(
            device=source.device.name,
            deviceKey=source.device.key,
            label=source.value.label or str(source.value.property),
            unit=source.value.unit,
            count=len(values),
            min=min(values),
            max=max(values),
            last=values[-1],
            lastAt=self._iso(points[-1][0]),
        )

    def _history_sentence(
        self,
        label: str,
        single: bool,
        period: Period,
        events: list[tuple[int, HistoryEvent]],
        readings: list[NumericSeries],
        truncated: bool,
    ) -> str:
        now = self.now()
        if not events and not readings:
            return f"Nothing was recorded for {label} {period.words}."
        # Speak what the devices reported; the gate's records (requests) are said only when nothing else
        # happened, and are always in the structured result.
        reported = [e for e in events if e[1].source != "command"]
        events = reported or events
        parts: list[str] = []
        if events:
            spoken = events[-SPOKEN_EVENTS:]
            if single:
                phrases = [f"{e.what} {when(self._dt(at), now)}" for at, e in spoken]
                text = _join(phrases)
                if len(events) > len(spoken) or truncated:
                    count = f"{len(events)}{'+' if truncated else ''}"
                    parts.append(f"{label} changed {count} times {period.words}; the latest: {text}")
                else:
                    parts.append(f"{label} {text}")
            else:
                phrases = [
                    f"{e.device or 'the gateway'} {e.what} {when(self._dt(at), now)}" for at, e in spoken
                ]
                lead = f"{_cap(period.words)}, {label} had {len(events)}{'+' if truncated else ''} change{'' if len(events) == 1 else 's'}"
                parts.append(f"{lead}; the latest: {'; '.join(phrases)}")
        for r in readings[:SPOKEN_SERIES]:
            unit = f" {r.unit}" if r.unit else ""
            who = "it" if single and events else r.device
            at = when(datetime.fromisoformat(r.lastAt), now)
            if r.count == 1:
                parts.append(f"{who} reported {spoken_label(r.label)} {_number(r.last)}{unit} {at}")
            else:
                parts.append(
                    f"{who} reported {spoken_label(r.label)} {_times(r.count)}, from {_number(r.min)} to "
                    f"{_number(r.max)}{unit}, last {_number(r.last)}{unit} {at}"
                )
        if len(readings) > SPOKEN_SERIES:
            more = len(readings) - SPOKEN_SERIES
            parts.append(
                f"{more} more {'kind of reading is' if more == 1 else 'kinds of readings are'} in the result"
            )
        if not events and single:
            parts[0] = f"{_cap(period.words)}, {parts[0].replace('it reported', label + ' reported', 1)}"
        return _cap(". ".join(_cap(p) if i else p for i, p in enumerate(parts))) + "."

    # ---- the last time ------------------------------------------------------------------------------

    async def last_event(self, args: LastEventArgs) -> LastEventResult:
        gateway_state = args.state in ("online", "offline")
        devices, label = (
            ([], "zwave-js-ui")
            if gateway_state and not args.deviceName
            else self._targets(args.deviceName, args.room, args.kind)
        )
        store = await self._store()
        sources = self._sources(store, devices, gateway=gateway_state)
        if gateway_state:
            sources = {
                sid: s for sid, s in sources.items() if s.kind == "gateway" and s.key == "client_online"
            }
        found: HistoryEvent | None = None
        found_at: int | None = None
        wanted_sources = {
            sid: s for sid, s in sources.items() if not (s.kind == "value" and _is_numeric(s.value, 0.0))
        }  # numeric readings (temperatures, meters) never reach a state
        # The newest rows first: most questions are answered by the first page.
        series = list(wanted_sources)
        for limit in (LAST_EVENT_PAGE, LAST_EVENT_SCAN):
            rows = await self._query(
                functools.partial(store.rows, series, 0, 2**62, limit=limit, newest_first=True)
            )
            for row in rows:
                source = wanted_sources[row.series]
                if source.kind == "value" and _is_numeric(source.value, row.new):
                    continue
                if source.kind == "status" and row.old is None:
                    continue
                if args.state == "any" or self._phrase(source, row.new).state == args.state:
                    found, found_at = self._event(source, row), row.at
                    break
            if found is not None or len(rows) < limit:
                break
        wanted = "changed" if args.state == "any" else _STATE_WORDS.get(args.state, args.state)
        if found is None or found_at is None:
            kept = f"{self.recorder.keep_days:g} days"
            return LastEventResult(
                summary=f"There is no record of {label} having {wanted} in the stored history (kept {kept}).",
                found=False,
            )
        now = self.now()
        ago = max(0.0, now.timestamp() - found_at / 1000)
        who = f"{found.device} " if found.device else ""  # a gateway phrase names its own subject
        ago_text = "just now" if ago < 5 else f"{_ago(ago)} ago"
        summary = f"The last time {who}{found.what} was {when(self._dt(found_at), now)}, {ago_text}."
        return LastEventResult(summary=summary, found=True, event=found, agoSeconds=round(ago, 1))

    # ---- energy ----------------------------------------------------------------------------------------

    async def energy(self, args: EnergyArgs) -> EnergyResult:
        period = self._period(args.period)
        devices, label = self._targets(args.deviceName, args.room, None)
        meters = [
            (d, [v for v in d.readings.get(Capability.METER, []) if (v.unit or "").lower() == "kwh"])
            for d in devices
        ]
        meters = [(d, values) for d, values in meters if values]
        if not meters:
            raise UserError(
                f"{_cap(label)} has no energy meter (kWh)."
                if args.deviceName
                else f"No device in {label} reports energy in kWh."
            )
        store = await self._store()
        now = self.now()
        week_start = int((now - timedelta(days=7)).timestamp() * 1000)
        with_week = period.words == "today"
        start, end = period.start_ms, period.end_ms + 1
        first = min(start, week_start) if with_week else start

        def read() -> list[list[list[tuple[int, float]]]]:
            return [[self._readings(store, v, first, end) for v in values] for _, values in meters]

        all_readings = await self._query(read)
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
        summary = self._energy_sentence(
            label, len(devices) == 1 and bool(args.deviceName), period, results, total
        )
        result = EnergyResult(
            summary=summary, period=self._period_info(period), totalKWh=total, devices=results
        )
        if args.chart:
            per_value_all = [r for per_value in all_readings for r in per_value]
            await self._attach_chart(result, lambda: self._energy_chart(label, period, per_value_all))
        return result

    def _readings(self, store: Store, value: ZValue, start: int, end: int) -> list[tuple[int, float]]:
        sid = store.series_ids.get(("value", value.value_id))
        points = store.numbers(sid, start, end) if sid is not None else []
        live = value.value
        at = value.last_update_ms
        is_number = isinstance(live, int | float) and not isinstance(live, bool)
        if is_number and at is not None and at < end and (not points or at > points[-1][0]):
            points.append((at, float(live)))
        return points

    def _energy_sentence(
        self, label: str, single: bool, period: Period, results: list[DeviceEnergy], total: float | None
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
                text += (
                    f" (its meter was reset {'once' if r.resets == 1 else f'{r.resets} times'} in between)"
                )
            return text + "."
        if total is None:
            return f"The meters in {label} have too few readings {period.words} to tell the energy used."
        ranked = sorted((r for r in results if r.kWh), key=lambda r: -(r.kWh or 0))
        top = ", ".join(f"{r.device} {_kwh(r.kWh or 0)}" for r in ranked[:3])
        return f"{_cap(label)} used {_kwh(total)} {period.words}" + (f"; most: {top}." if top else ".")

    # ---- batteries ---------------------------------------------------------------------------------------

    async def batteries(self, args: BatteryArgs) -> BatteryResult:
        devices, label = self._targets(
            args.deviceName, args.room, None if args.deviceName else Capability.BATTERY
        )
        by_node: dict[int, tuple[Device, ZValue]] = {}
        for device in devices:
            value = device.value(BATTERY_LEVEL) or next(
                iter(device.readings.get(Capability.BATTERY, [])), None
            )
            if value is not None and device.node_id not in by_node:
                by_node[device.node_id] = (device, value)
        if not by_node:
            if args.deviceName:
                raise UserError(f"{label} has no battery.")
            raise UserError(
                f"No device in the {echo(args.room)} has a battery."
                if args.room
                else "No device has a battery."
            )
        store = await self._store()
        now = self.now()
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

        stored = await self._query(read)
        infos: list[BatteryInfo] = []
        for (device, value), (points, stored_seen) in zip(by_node.values(), stored, strict=True):
            level = (
                value.value
                if isinstance(value.value, int | float) and not isinstance(value.value, bool)
                else None
            )
            reading_at = value.last_update_ms
            if level is None and points:
                reading_at, level = points[-1]
            inside = [p for p in points if p[0] >= trend_start]
            trend = trend_days = None
            if inside and level is not None and (reading_at or now_ms) - inside[0][0] > 3600_000:
                trend = round(float(level) - inside[0][1], 1)
                trend_days = round(((reading_at or now_ms) - inside[0][0]) / 86_400_000, 1)
            heard = [
                t
                for t in (
                    device.node.last_active_ms,
                    stored_seen,
                    *(v.last_update_ms for v in device.node.values.values()),
                )
                if t
            ]
            last_heard = max(heard) if heard else None
            silent = last_heard is None or (now_ms - last_heard) > args.silentHours * 3600_000
            infos.append(
                BatteryInfo(
                    device=device.name,
                    deviceKey=device.key,
                    level=level,
                    low=level is not None and level <= args.lowPercent,
                    readingAt=self._iso(reading_at) if reading_at else None,
                    readingAgeSeconds=round((now_ms - reading_at) / 1000, 1) if reading_at else None,
                    trendPoints=trend,
                    trendDays=trend_days,
                    lastHeardAt=self._iso(last_heard) if last_heard else None,
                    silent=silent,
                    status=device.node.status,
                )
            )
        infos.sort(key=lambda i: (i.level if i.level is not None else 101, i.device))
        summary = self._battery_sentence(infos, now_ms)
        return BatteryResult(
            summary=summary,
            batteries=infos,
            low=[i.device for i in infos if i.low],
            silent=[i.device for i in infos if i.silent],
        )

    def _battery_sentence(self, infos: list[BatteryInfo], now_ms: int) -> str:
        def level_text(i: BatteryInfo) -> str:
            text = (
                f"{i.device} {_number(i.level)} %" if i.level is not None else f"{i.device} (level unknown)"
            )
            if i.trendPoints and i.trendDays:
                direction = "down" if i.trendPoints < 0 else "up"
                text += f", {direction} {_number(abs(i.trendPoints))} points in {_ago(i.trendDays * 86400)}"
            if i.readingAgeSeconds is not None and i.readingAgeSeconds > 86400:
                text += f", read {_ago(i.readingAgeSeconds)} ago"
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
                parts.append(f"{i.device} has not reported for {_ago(age)}")
        return ". ".join(parts) + "."

    # ---- charts --------------------------------------------------------------------------------------

    async def _attach_chart(self, result: Any, draw: Callable[[], bytes | str]) -> None:
        out = await asyncio.to_thread(draw)
        if isinstance(out, bytes):
            result._png = out
            result.chart = "attached"
        else:
            result.chart = out
            result.summary += f" No chart: {out}."

    def _history_chart(
        self,
        label: str,
        period: Period,
        sources: dict[int, _Source],
        numeric: dict[int, list[tuple[int, float]]],
    ) -> bytes | str:
        from zwave_mcp.history import chart

        if not numeric:
            return "there are no numeric readings to draw"
        lines = []
        for sid, points in list(numeric.items())[:4]:
            s = sources[sid]
            name = f"{s.device.name if s.device else ''} {s.value.label if s.value else ''}{_unit(s.value)}".strip()
            lines.append((name, [(self._dt(at), v) for at, v in points]))
        return chart.lines(f"{_cap(label)}, {period.words}", lines)

    def _energy_chart(
        self, label: str, period: Period, readings: list[list[tuple[int, float]]]
    ) -> bytes | str:
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
        return chart.bars(f"{_cap(label)}: energy {period.words} (kWh)", labels, totals)


_STATE_WORDS = {
    "motion": "detected motion",
    "on": "turned on",
    "off": "turned off",
    "dead": "gone dead",
    "alive": "come back",
    "asleep": "fallen asleep",
    "awake": "woken up",
    "online": "come online",
    "offline": "gone offline",
}


def _join(phrases: list[str]) -> str:
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]


def _sum(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(sum(known), 3) if known else None


def _kwh(value: float) -> str:
    return f"{value:.1f} kWh" if value >= 0.95 or value == 0 else f"{value:.2f} kWh"
