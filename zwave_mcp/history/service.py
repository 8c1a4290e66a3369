"""Answers from the store: a device's, room's or kind's history and the last time something happened; the
shared parts (the store, what is asked about, times) that `usage.py` and `batteries.py` use too. Names resolve through the live device index, so the hide policy holds here too: a
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
from dataclasses import KW_ONLY, dataclass
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from zwave_mcp.answers import and_list, capital
from zwave_mcp.devices.kinds.lock import by_user, fold, lock_echoes, lock_phrase, user_number
from zwave_mcp.devices.levels import is_number
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.presses import press_of, press_values
from zwave_mcp.devices.resolve import echo
from zwave_mcp.devices.sensor_types import TYPES
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.model import ZValue, where_it_stood
from zwave_mcp.gateway.state import user_name
from zwave_mcp.history.models import (
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
    Phrase,
    describe_gateway,
    describe_status,
    describe_value,
    number,
    reading_label,
    spoken_label,
)
from zwave_mcp.policy.actions import spoken_action
from zwave_mcp.policy.outcome import attempt_said
from zwave_mcp.zwave.classes import CC

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
NUMERIC_CCS = (CC.MULTILEVEL_SENSOR, CC.METER, CC.BATTERY)
# Values that are requests or settings, not what the device reports about the world.
_NOISE_PREFIXES = ("target", "duration", "lockTimeout", "alarm", "reset")
_NOISE_CCS = (CC.CONFIGURATION, CC.MANUFACTURER_SPECIFIC, CC.VERSION, CC.WAKE_UP)


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
    if value is None or not is_number(raw):
        return False
    return value.command_class in NUMERIC_CCS and not value.states


def _unit(value: ZValue | None) -> str:
    return f" {value.unit}" if value is not None and value.unit else ""


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def ago(seconds: float) -> str:
    if seconds < 90:
        return f"{int(seconds)} seconds"
    if seconds < 5400:
        return f"{round(seconds / 60)} minutes"
    if seconds < 2 * 86400:
        hours = round(seconds / 3600)
        return f"{hours} hour{'' if hours == 1 else 's'}"
    return f"{round(seconds / 86400)} days"


SourceKind = Literal["value", "status", "gateway", "lock"]


@dataclass(frozen=True, slots=True)
class _Source:
    """What one stored series is, for the devices asked about."""

    device: Device | None
    value: ZValue | None
    kind: SourceKind
    key: str


RECENT_MAX = 10_000  # stored events read for one recent-events answer (it says how many it leaves out)


@dataclass(eq=False)
class HistoryService:
    """`clock` (epoch seconds) and `tz` (None: the machine's zone) are injectable for tests."""

    recorder: Recorder
    devices: DeviceService
    inventory: Inventory
    _: KW_ONLY
    clock: Callable[[], float] = time.time
    tz: tzinfo | None = None

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.clock(), self.tz).astimezone(self.tz)

    def dt(self, at_ms: int) -> datetime:
        return datetime.fromtimestamp(at_ms / 1000, self.tz).astimezone(self.tz)

    def iso(self, at_ms: int) -> str:
        return self.dt(at_ms).isoformat(timespec="seconds")

    # ---- the store ------------------------------------------------------------------------------

    async def store(self) -> Store:
        recorder = self.recorder
        if recorder.state == "opening":
            await asyncio.to_thread(recorder.wait_open, OPEN_WAIT_S)
        if recorder.state != "ready" or recorder.store is None:
            reason = recorder.reason or "the history store is still opening"
            raise UserError(f"History cannot answer: {reason}. Live readings and controls still work.")
        await asyncio.to_thread(recorder.flush, FLUSH_WAIT_S)  # what just happened is asked about next
        return recorder.store

    async def query(self, work: Callable[[], T]) -> T:
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

    def targets(
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

        def add(device: Device | None, value: ZValue | None, kind: SourceKind, key: str) -> None:
            sid = ids.get((kind, key))
            if sid is not None:
                sources[sid] = _Source(device, value, kind, key)

        nodes_seen: set[int] = set()
        for device in devices:
            for value in device.all_values() + press_values(device):
                if not _is_noise(value):
                    add(device, value, "value", value.value_id)
            if device.node_id not in nodes_seen:
                nodes_seen.add(device.node_id)
                add(device, None, "status", str(device.node_id))
            if device.has(Capability.LOCK):  # who locked or unlocked it, and how
                add(device, None, "lock", str(device.node_id))
        if gateway:
            for kind, key in list(ids):
                if kind == "gateway":
                    add(None, None, "gateway", key)
        return sources

    def _phrase(self, source: _Source, raw: Any) -> Phrase:
        if source.kind == "lock":
            text, state = lock_phrase(raw)
            return Phrase(text, state, raw)
        if source.kind == "status":
            return describe_status(raw)
        if source.kind == "gateway":
            return describe_gateway(source.key, raw)
        return describe_value(source.value, raw)

    def _event(self, source: _Source, row: Row) -> HistoryEvent:
        phrase = self._phrase(source, row.new)
        press = press_of(source.value, row.new) if source.value is not None else None
        return HistoryEvent(
            button=press.button if press else None,
            press=press.kind if press else None,
            at=self.iso(row.at),
            device=source.device.name if source.device else None,
            deviceKey=source.device.key if source.device else None,
            what=phrase.text,
            value=phrase.shown,
            state=phrase.state,
            source=source.kind,
        )

    def _by_user(self, source: _Source, row: Row, user: str | None) -> bool:
        """Is this row one the question is about: with a user asked about, only that user's lock events."""
        if user is None:
            return True
        if source.kind != "lock":
            return False
        return by_user(row.new, user)

    def lock_targets(self, device_name: str | None, room: str | None) -> tuple[list[Device], str]:
        """The locks asked about with a user: the one named, those of a room, else every lock."""
        return self.targets(device_name, room, None if device_name or room else Capability.LOCK)

    def memory_since_ms(self) -> int:
        """Since when the memory recent events are answered from has been kept without a break: the
        service's watch when this server reads the service's file, else this server's own start (its
        in-memory picture's)."""
        reading = self.recorder.reading
        return reading.since_ms if reading is not None else self.recorder.started_ms

    def since_words(self, at_ms: int) -> str:
        """ "since 14:02, when zwave-mcp started watching" (with the date when it was not today)."""
        at, now = self.dt(at_ms), self.now()
        when = at.strftime("%H:%M") if at.date() == now.date() else f"{at.day} {at:%b} {at:%H:%M}"
        return f"since {when}, when zwave-mcp started watching"

    async def recent(
        self, start_ms: int, device_name: str | None, user: str | None, limit: int
    ) -> tuple[list[tuple[int, HistoryEvent]], int]:
        """The stored events since `start_ms`, newest first (at most `limit`), and how many there are:
        what a server reading the service's file answers "what changed lately" from."""
        targets = self.lock_targets if user is not None else self.targets
        devices, label = targets(device_name, None)
        period = Period(self.dt(start_ms), self.now(), "lately")
        result = await self.history_of(
            devices, label, period, RECENT_MAX, gateway=device_name is None and user is None, user=user
        )
        timed = [(int(datetime.fromisoformat(e.at).timestamp() * 1000), e) for e in result.events]
        timed.reverse()
        return timed[:limit], len(timed)

    def period_info(self, period: Period) -> PeriodInfo:
        return PeriodInfo(
            start=period.start.isoformat(timespec="seconds"),
            end=period.end.isoformat(timespec="seconds"),
            words=period.words,
        )

    # ---- history ----------------------------------------------------------------------------------

    async def history(self, args: HistoryArgs) -> HistoryResult:
        period = parse_period(args.period, self.now())
        if args.user:
            devices, _ = self.lock_targets(args.deviceName, args.room)
            return await self.history_of(devices, args.user, period, args.limit, user=args.user)
        devices, label = self.targets(args.deviceName, args.room, args.kind)
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
        user: str | None = None,
    ) -> HistoryResult:
        store = await self.store()
        sources = self._sources(store, devices, gateway=gateway)
        if user is not None:  # a question about a lock user: only the lock series
            sources = {sid: s for sid, s in sources.items() if s.kind == "lock"}
        keys = [d.key for d in devices] if user is None else []
        start, end = period.start_ms, period.end_ms + 1

        def read() -> tuple[list[Row], list[Any]]:
            rows = store.rows(list(sources), start, end)
            return rows, store.outcomes(keys, start, end, limit)

        rows, outcomes = await self.query(read)
        echoes = _lock_echoes(sources, rows)
        events: list[tuple[int, HistoryEvent]] = []
        numeric: dict[int, list[tuple[int, float]]] = {}
        for row in rows:
            source = sources[row.series]
            if id(row) in echoes or not self._by_user(source, row, user):
                continue
            if source.kind == "value" and _is_numeric(source.value, row.new):
                numeric.setdefault(row.series, []).append((row.at, float(row.new)))
            elif (source.kind == "status" or _idle_notice(source, row)) and row.old is None:
                continue  # the status first seen at a load: where things stood, not something that happened
            elif source.kind == "gateway" and where_it_stood(source.key, row.old):
                continue  # likewise a gateway state first seen ("zwave-js-ui came online" at our start)
            else:
                events.append((row.at, self._event(source, row)))
        names = {d.key: d.name for d in devices}  # the name people use now, as value events have it
        for o in outcomes:
            event = HistoryEvent(
                at=self.iso(o.at),
                device=names.get(o.device_key or "", o.device),
                deviceKey=o.device_key,
                what=attempt_said(o.outcome, spoken_action(o.action)),
                value=o.value,
                source="command",
            )
            events.append((o.at, event))
        events = _told_once(sorted(events, key=lambda e: e[0]))
        truncated = len(events) > limit
        events = events[-limit:]
        readings = [self._numeric(sources[sid], points) for sid, points in numeric.items()]
        readings.sort(key=lambda r: (r.device, r.label))
        if user is not None:
            summary = self._user_sentence(user, period, events, truncated)
        else:
            summary = self._history_sentence(label, len(devices) == 1, period, events, readings, truncated)
        result = HistoryResult(
            summary=summary,
            period=self.period_info(period),
            events=[e for _, e in events],
            readings=readings,
            truncated=truncated,
        )
        if chart:
            await self.attach_chart(result, lambda: self._history_chart(label, period, sources, numeric))
        return result

    def _numeric(self, source: _Source, points: list[tuple[int, float]]) -> NumericSeries:
        assert source.device is not None and source.value is not None
        values = [v for _, v in points]
        return NumericSeries(
            device=source.device.name,
            deviceKey=source.device.key,
            label=reading_label(source.value),
            unit=source.value.unit,
            count=len(values),
            min=min(values),
            max=max(values),
            last=values[-1],
            lastAt=self.iso(points[-1][0]),
        )

    def _user_sentence(
        self, user: str, period: Period, events: list[tuple[int, HistoryEvent]], truncated: bool
    ) -> str:
        """ "Today, Cleaner used the locks twice: Side Door Lock was unlocked with the keypad by Cleaner
        (user 3) at 09:02 and … at 14:02." """
        if not events:
            return f"There is no record of {user} at a lock {period.words}."
        user = self._spelled(user)
        now = self.now()
        many = len(events) > SPOKEN_EVENTS or truncated
        spoken = _latest_first(events) if many else events
        phrases = and_list([f"{e.device or 'a lock'} {e.what} {when(self.dt(at), now)}" for at, e in spoken])
        count = _times(len(events)) + ("+" if truncated else "")
        latest = "; the latest: " if many else ": "
        return f"{capital(period.words)}, {user} used the locks {count}{latest}{phrases}."

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
            # One device's few events are told as they happened; "the latest:" lists the newest first.
            many = len(events) > SPOKEN_EVENTS or truncated
            spoken = _latest_first(events) if many or not single else events
            if single:
                phrases = [f"{e.what} {when(self.dt(at), now)}" for at, e in spoken]
                text = and_list(phrases)
                if many:
                    count = f"{len(events)}{'+' if truncated else ''}"
                    parts.append(f"{label} changed {count} times {period.words}; the latest: {text}")
                else:
                    parts.append(f"{label} {text}")
            else:
                phrases = [
                    f"{e.device or 'the gateway'} {e.what} {when(self.dt(at), now)}" for at, e in spoken
                ]
                lead = f"{capital(period.words)}, {label} had {len(events)}{'+' if truncated else ''} change{'' if len(events) == 1 else 's'}"
                parts.append(f"{lead}; the latest: {'; '.join(phrases)}")
        for r in readings[:SPOKEN_SERIES]:
            unit = f" {r.unit}" if r.unit else ""
            who = "it" if single and events else r.device
            at = when(datetime.fromisoformat(r.lastAt), now)
            if r.count == 1:
                parts.append(f"{who} reported {spoken_label(r.label)} {number(r.last)}{unit} {at}")
            else:
                parts.append(
                    f"{who} reported {spoken_label(r.label)} {_times(r.count)}, from {number(r.min)} to "
                    f"{number(r.max)}{unit}, last {number(r.last)}{unit} {at}"
                )
        if len(readings) > SPOKEN_SERIES:
            more = len(readings) - SPOKEN_SERIES
            parts.append(
                f"{more} more {'kind of reading is' if more == 1 else 'kinds of readings are'} in the result"
            )
        if not events and single:
            parts[0] = f"{capital(period.words)}, {parts[0].replace('it reported', label + ' reported', 1)}"
        return capital(". ".join(capital(p) if i else p for i, p in enumerate(parts))) + "."

    # ---- the last time ------------------------------------------------------------------------------

    async def last_event(self, args: LastEventArgs) -> LastEventResult:
        gateway_state = args.state in ("online", "offline")
        user = args.user
        if user is not None:
            devices, _ = self.lock_targets(args.deviceName, args.room)
            label = user
        else:
            devices, label = (
                ([], "zwave-js-ui")
                if gateway_state and not args.deviceName
                else self.targets(args.deviceName, args.room, args.kind)
            )
        store = await self.store()
        sources = self._sources(store, devices, gateway=gateway_state and user is None)
        if user is not None:
            sources = {sid: s for sid, s in sources.items() if s.kind == "lock"}
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
            rows = await self.query(
                functools.partial(store.rows, series, 0, 2**62, limit=limit, newest_first=True)
            )
            echoes = _lock_echoes(wanted_sources, rows)
            for row in rows:
                source = wanted_sources[row.series]
                if id(row) in echoes or not self._by_user(source, row, user):
                    continue
                if (source.kind == "status" or _idle_notice(source, row)) and row.old is None:
                    continue
                if args.state == "any" or self._phrase(source, row.new).state == args.state:
                    found, found_at = self._event(source, row), row.at
                    break
            if found is not None or len(rows) < limit:
                break
        wanted = "changed" if args.state == "any" else _STATE_WORDS.get(args.state, args.state)
        if found is None or found_at is None:
            kept = f"{self.recorder.keep_days:g} days"
            if user is not None:
                doing = "" if args.state == "any" else f" having {wanted}"
                return LastEventResult(
                    summary=f"There is no record of {user} at a lock{doing} in the stored history (kept "
                    f"{kept}){self._known_users(user, devices)}.",
                    found=False,
                )
            return LastEventResult(
                summary=f"There is no record of {label} having {wanted} in the stored history (kept {kept}).",
                found=False,
            )
        now = self.now()
        elapsed = max(0.0, now.timestamp() - found_at / 1000)
        who = f"{found.device} " if found.device else ""  # a gateway phrase names its own subject
        ago_text = "just now" if elapsed < 5 else f"{ago(elapsed)} ago"
        summary = f"The last time {who}{found.what} was {when(self.dt(found_at), now)}, {ago_text}."
        # "Back Door Lock was unlocked with the keypad by Cleaner (user 3) at 14:02, …"
        if found.source == "lock":
            summary = f"{found.device or 'The lock'} {found.what} {when(self.dt(found_at), now)}, {ago_text}."
        if found.press is not None:  # "Button 2 on WallMote was held at 20:14, 5 minutes ago."
            subject = found.what.removesuffix(f" was {found.press}")
            on = f" on {found.device}" if found.device else ""
            summary = f"{capital(subject)}{on} was {found.press} {when(self.dt(found_at), now)}, {ago_text}."
        return LastEventResult(summary=summary, found=True, event=found, agoSeconds=round(elapsed, 1))

    async def lock_user_names(self, node_id: int, start_ms: int, end_ms: int) -> list[tuple[int, int, str]]:
        """(at, user id, name) of the lock's stored events that named their user, oldest first: the names
        its users had when they came and went, for a lock's own log said with them. Empty when history
        cannot answer (off, still opening) or has none."""
        try:
            store = await self.store()
        except UserError:
            return []
        sid = store.series_ids.get(("lock", str(node_id)))
        if sid is None:
            return []
        rows = await self.query(lambda: store.rows([sid], start_ms, end_ms))
        return [
            (row.at, row.new["userId"], row.new["userName"])
            for row in rows
            if isinstance(row.new, dict)
            and isinstance(row.new.get("userId"), int)
            and isinstance(row.new.get("userName"), str)
        ]

    def _spelled(self, user: str) -> str:
        """A user's name as the locks spell it ("the cleaner" → "Cleaner"); as asked when none does."""
        return next((name for name in self._lock_user_names() if fold(name) == fold(user)), user)

    def _lock_user_names(self, locks: Sequence[Device] = ()) -> list[str]:
        """The names of the users of `locks` (of every lock when none is given), as the locks have them."""
        asked = {d.node_id for d in locks}
        known: list[str] = []
        for node in self.inventory.nodes.values():
            if asked and node.id not in asked:
                continue
            if node.access is not None and self.devices.visible_node(node.id):
                for entry in node.access.users:  # a `LockUsers`, set by the gateway
                    name = user_name(node, entry.user_id)
                    if name and name not in known:
                        known.append(name)
        return known

    def _known_users(self, user: str, locks: Sequence[Device]) -> str:
        """ "; the locks' users are Alice, Bob" when `user` is none of the users of the locks asked about (a
        misheard name); "" for a user named by number ("user 3")."""
        known = self._lock_user_names(locks)
        if not known or user_number(user) is not None or fold(user) in map(fold, known):
            return ""
        whose = f"{locks[0].name}'s users are" if len(locks) == 1 else "the locks' users are"
        return f"; {whose} {', '.join(known[:12])}"

    # ---- charts --------------------------------------------------------------------------------------

    async def attach_chart(self, result: Any, draw: Callable[[], bytes | str]) -> None:
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
            lines.append((name, [(self.dt(at), v) for at, v in points]))
        return chart.lines(f"{capital(label)}, {period.words}", lines)


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
    "pressed": "had a button pressed",
    "jammed": "jammed",
    **{word: f"detected {kind.noun}" for word, kind in TYPES.items()},
}


# A device saying the same thing twice within this many seconds is telling one happening twice (a motion
# is reported by its Notification and by its Binary Sensor value).
SAME_EVENT_S = 2.0


def _latest_first(events: list[tuple[int, HistoryEvent]]) -> list[tuple[int, HistoryEvent]]:
    """The SPOKEN_EVENTS newest events, newest first: what "the latest:" lists (it listed them oldest first)."""
    return events[-SPOKEN_EVENTS:][::-1]


def _told_once(events: list[tuple[int, HistoryEvent]]) -> list[tuple[int, HistoryEvent]]:
    """The events in time order with each happening once: a device's report that repeats the words of its
    previous report within SAME_EVENT_S is left out. The gate's own records and button presses (two
    presses are two) are kept."""
    last: dict[str | None, tuple[str, int]] = {}
    kept = []
    for at, event in events:
        if event.source != "command" and event.press is None:
            device = event.deviceKey or event.device
            before = last.get(device)
            if before is not None and before[0] == event.what and at - before[1] <= SAME_EVENT_S * 1000:
                continue
            last[device] = (event.what, at)
        kept.append((at, event))
    return kept


def _idle_notice(source: _Source, row: Row) -> bool:
    """A notification state at rest (a lock not jammed, its keypad working): first seen at a load, it is
    where things stood, not news."""
    value = source.value
    return (
        source.kind == "value"
        and value is not None
        and value.command_class == CC.NOTIFICATION
        and row.new == 0
    )


def _lock_echoes(sources: dict[int, _Source], rows: Sequence[Row]) -> set[int]:
    """The Door Lock mode rows (ids) that only repeat a lock event of the same lock (`lock_echoes`)."""
    events, modes = [], []
    for row in rows:
        source = sources[row.series]
        if source.device is None:
            continue
        value = source.value if source.kind == "value" else None
        if source.kind == "lock":
            events.append((source.device.node_id, row.at, row.new))
        elif value is not None and value.command_class == CC.DOOR_LOCK and value.property == "currentMode":
            modes.append((id(row), source.device.node_id, row.at, row.new))
    return lock_echoes(events, modes)
