"""get_recent_events: what changed lately, from the bounded in-memory history of the live picture, or, for a
server beside the home service, from the service's history file (its memory outlives any client).

The answer says where that memory starts when the period asked about reaches back before it ("since 14:02,
when zwave-mcp started watching"), and gateway facts first seen at our own start are not events: the
gateway was up before we looked ("zwave-js-ui came online" was our start)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from mcp.server.mcpserver import Context

from zwave_mcp.answers import plural
from zwave_mcp.devices.describe import change_phrase
from zwave_mcp.devices.kinds.lock import by_user, fold, lock_echoes, lock_phrase, user_number
from zwave_mcp.devices.model import Capability
from zwave_mcp.devices.presses import Press, press_of
from zwave_mcp.devices.resolve import echo
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.firmware_events import firmware_phrase
from zwave_mcp.gateway.model import InventoryEvent, where_it_stood
from zwave_mcp.gateway.state import user_name
from zwave_mcp.history.service import SAME_EVENT_S
from zwave_mcp.names import agreeing
from zwave_mcp.safetext import outside_text
from zwave_mcp.server.app import App
from zwave_mcp.server.tools.models import Event, RecentEvents, RecentEventsArgs
from zwave_mcp.server.tools.spec import tool


def spoken_value(value: Any) -> str:
    """A raw value as words: True → on (not Python's `True`), a colour dict → `red 255, green 0, …`."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, dict):
        return ", ".join(f"{k} {spoken_value(v)}" for k, v in value.items()) or "nothing"
    if isinstance(value, list):
        return ", ".join(spoken_value(v) for v in value) or "nothing"
    return outside_text(value)


_GATEWAY = {
    ("client_online", True): "zwave-js-ui came online",
    ("client_online", False): "zwave-js-ui went offline",
    ("driver_ready", True): "the Z-Wave driver became ready",
    ("driver_ready", False): "the Z-Wave driver stopped",
    ("all_nodes_ready", True): "every Z-Wave device finished loading",
    ("all_nodes_ready", False): "Z-Wave devices are loading again",
}
_STATUS = {
    "Dead": "stopped responding",
    "Asleep": "went to sleep",
    "Awake": "woke up",
    "Alive": "is responding",
}


def describe_change(app: App, change: InventoryEvent) -> tuple[str | None, str]:
    """(device name, what happened in words) for one change: "Kitchen Light", "turned on"."""
    node = app.gateway.inventory.node(change.node_id) if change.node_id is not None else None
    device_name = node.display_name if node is not None else None
    if change.kind == "value" and node is not None and change.value_id:
        value = node.values.get(change.value_id)
        device = app.devices.device_of_value(change.value_id)  # hidden ones never get here (see below)
        if device is not None:
            device_name = device.name
        if value is None:
            return device_name, "reported a value that is no longer known"
        return device_name, change_phrase(device, value, change.new)
    if change.kind == "status":
        return device_name, status_phrase(change.old, change.new)
    if change.kind == "gateway":
        return None, gateway_phrase(str(change.value_id), change.new)
    if change.kind == "removed":
        return device_name, "dropped a value"
    if change.kind == "lock" and change.node_id is not None:
        return lock_name(app, change.node_id), lock_phrase(change.new)[0]
    if change.kind == "firmware":
        return device_name, firmware_phrase(change.new)
    return device_name, "changed"


def lock_name(app: App, node_id: int) -> str | None:
    """The name of the lock a node's lock events are about (its lock device; else the node's name)."""
    devices = app.devices.devices_of_node(node_id)
    lock = next((d for d in devices if d.has(Capability.LOCK)), devices[0] if devices else None)
    if lock is not None:
        return lock.name
    node = app.gateway.inventory.node(node_id)
    return node.display_name if node is not None else None


def _lock_echoes(app: App, recorded: list[Any]) -> set[int]:
    """The Door Lock mode changes (ids of the `Recorded`) that only repeat a lock event (`lock_echoes`)."""
    events = [(r.change.node_id, r.at * 1000, r.change.new) for r in recorded if r.change.kind == "lock"]
    modes = []
    for r in recorded:
        change = r.change
        if change.kind == "value" and change.value_id and "-98-" in change.value_id:
            value = app.gateway.inventory.value(change.value_id)
            if value is not None and value.property == "currentMode":
                modes.append((id(r), change.node_id, r.at * 1000, change.new))
    return lock_echoes(events, modes)


def status_phrase(old: object, new: object) -> str:
    """A node status change, to follow the device's name: "stopped responding", "woke up"."""
    if new == "Alive" and old == "Dead":
        return "is responding again"
    return _STATUS.get(str(new), "has not been heard from yet")


def gateway_phrase(what: str, new: object) -> str:
    known = _GATEWAY.get((what, new)) if isinstance(new, bool) else None
    if known:
        return known
    if what == "driver_ready" and new is None:
        return "zwave-js-ui no longer says whether the Z-Wave driver is ready"
    if new is None:
        return f"zwave-js-ui no longer reports its {what.replace('_', ' ')}"
    if what == "version":
        return f"zwave-js-ui reports version {outside_text(new, 40)}"
    if what == "driver_error":
        return f"the Z-Wave driver reported an error: {outside_text(new)}"
    if what == "controller_status":
        return f"the Z-Wave controller says: {outside_text(new)}"
    return f"the gateway's {what.replace('_', ' ')} is now {spoken_value(new)}"


def _press(app: App, change: InventoryEvent) -> Press | None:
    """The button press a change is, if it is one."""
    if not change.momentary or change.value_id is None:
        return None
    value = app.gateway.inventory.value(change.value_id)
    return press_of(value, change.new) if value is not None else None


def _shown(app: App, change: InventoryEvent) -> bool:
    if change.value_id is not None and change.kind in ("value", "removed"):
        return app.devices.visible_value(change.value_id)
    return app.devices.visible_node(change.node_id)


async def get_recent_events(app: App, args: RecentEventsArgs, _ctx: Context | None) -> RecentEvents:
    """What changed lately (switches, readings, motion, who unlocked a door, devices going dead or asleep),
    newest first, from the server's in-memory history."""
    minutes, device_name, limit, user = args.minutes, args.deviceName, args.limit, args.user
    now = time.time()
    since_ms = app.history.service.memory_since_ms()
    reaches_back = now - minutes * 60 < since_ms / 1000  # the period starts before the memory does
    span = app.history.service.since_words(since_ms) if reaches_back else _last(minutes)
    if app.history.recorder.reading is not None:
        return await _from_the_service(app, args, now, span)
    node_ids: set[int] | None = None
    if device_name:
        node_ids = {app.devices.resolve(device_name).node_id}
    period = [r for r in app.gateway.inventory.history if r.at >= now - minutes * 60]
    echoes = _lock_echoes(app, period)
    events: list[Event] = []
    total = 0  # every change of the period, also those past `limit`: the answer says how many it leaves out
    told: dict[str | None, tuple[str, float]] = {}  # per device, the latest words listed and their time
    for recorded in reversed(period):
        change = recorded.change
        if change.kind == "node" or (node_ids is not None and change.node_id not in node_ids):
            continue
        if id(recorded) in echoes:
            continue
        if user is not None and not (
            change.kind == "lock" and change.node_id is not None and by_user(change.new, user)
        ):
            continue
        if change.kind == "value" and change.old == change.new and not change.momentary:
            continue  # a fresh report of the same value: news for waiters, not for people (a press is news)
        if change.kind == "gateway" and where_it_stood(change.value_id, change.old):
            continue  # first seen at our start: where the gateway stood, not something it did
        if not _shown(app, change):
            continue  # hidden means hidden: a hidden device's changes are not events either
        device, what = describe_change(app, change)
        press = _press(app, change)
        last = told.get(device)
        if press is None and last is not None and last[0] == what and last[1] - recorded.at <= SAME_EVENT_S:
            continue  # one happening told by two of the device's values (motion: a notification and a sensor)
        told[device] = (what, recorded.at)
        total += 1
        if len(events) >= limit:
            continue
        events.append(
            Event(
                at=datetime.fromtimestamp(recorded.at, UTC).isoformat(timespec="seconds"),
                ageSeconds=round(now - recorded.at, 1),
                device=device,
                what=what,
                value=outside_text(change.new) if isinstance(change.new, str) else change.new,
                button=press.button if press else None,
                press=press.kind if press else None,
            )
        )
    if user is not None and not total:
        known = lock_user_names(app)
        if user_number(user) is None and fold(user) not in map(fold, known):  # "user 3" needs no name
            listed = f" Lock users: {', '.join(known[:12])}." if known else " No lock names its users."
            raise UserError(f"No lock user is named '{echo(user)}'.{listed}")
        return RecentEvents(summary=f"No lock event by {user} {span}.", events=[], total=0)
    summary = events_summary(total, events, span)
    return RecentEvents(summary=summary, events=events, total=total)


def _last(minutes: float) -> str:
    return f"in the last {minutes:g} minute{'' if minutes == 1 else 's'}"


async def _from_the_service(app: App, args: RecentEventsArgs, now: float, span: str) -> RecentEvents:
    """Recent events as the home service's file has them (this server reads it and writes none)."""
    start_ms = int((now - args.minutes * 60) * 1000)
    found, total = await app.history.service.recent(start_ms, args.deviceName, args.user, args.limit)
    events = [
        Event(
            at=datetime.fromtimestamp(at / 1000, UTC).isoformat(timespec="seconds"),
            ageSeconds=round(now - at / 1000, 1),
            device=event.device,
            what=event.what,
            value=event.value,
            button=event.button,
            press=event.press,
        )
        for at, event in found
    ]
    if args.user is not None and not total:
        return RecentEvents(summary=f"No lock event by {args.user} {span}.", events=[], total=0)
    return RecentEvents(summary=events_summary(total, events, span), events=events, total=total)


def lock_user_names(app: App) -> list[str]:
    """The names of every user of every visible lock, as the locks' access control has them now."""
    found: list[str] = []
    for node in app.gateway.inventory.nodes.values():
        users = getattr(node.access, "users", None) if node.access is not None else None
        if not users or not app.devices.visible_node(node.id):
            continue
        for user in users.values() if isinstance(users, dict) else users:
            name = user_name(node, getattr(user, "user_id", None))
            if name and name not in found:
                found.append(name)
    return found


SAID_IN_SUMMARY = 5


def events_summary(total: int, events: list[Event], span: str) -> str:
    """ "8 changes in the last 60 minutes, latest first: A turned on; …; E woke up; and 3 more." (`span`:
    "in the last 60 minutes", or "since 14:02, when zwave-mcp started watching")."""
    if not total:
        return f"Nothing changed {span}."
    said = [
        agreeing(e.device, f"{e.device} {e.what}") if e.device else e.what for e in events[:SAID_IN_SUMMARY]
    ]
    more = f"; and {total - len(said)} more" if total > len(said) else ""
    return f"{plural(total, 'change')} {span}, latest first: {'; '.join(said)}{more}."


TOOLS = [tool(get_recent_events, needs_gateway=False, title="Recent events")]
