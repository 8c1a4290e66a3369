"""Devices as the tools show them: the shared summary every result embeds, and the tools' sentences
(pure functions, so the golden-file test renders exactly what the tools say)."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from zwave_mcp.answers import plural
from zwave_mcp.devices.describe import state_summary
from zwave_mcp.devices.errors import still_loading
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.presses import last_press
from zwave_mcp.devices.readings import Reading, iso_time, spoken_readings
from zwave_mcp.history.periods import when
from zwave_mcp.names import agreeing
from zwave_mcp.server.tools.models import DeviceSummary


def now_ms() -> int:
    return int(time.time() * 1000)


def summarize(device: Device) -> DeviceSummary:
    return DeviceSummary(
        key=device.key,
        name=device.name,
        location=device.location,
        type=str(device.kind) if device.kind else None,
        capabilities=[str(c) for c in device.capabilities],
        state=state_summary(device),
        status=device.node.status,
        nodeId=device.node_id,
        endpoint=device.endpoint,
    )


def age_seconds(last_update_ms: int | None, now: int) -> float | None:
    return None if last_update_ms is None else round(max(0, now - last_update_ms) / 1000, 1)


def last_press_words(device: Device, now: datetime) -> str | None:
    """ "the last press was button 2, held at 20:14" (`now`'s zone, as the history answers say times);
    None when the device holds no press with a time the calendar has."""
    found = last_press(device)
    if found is None or iso_time(found[1]) is None:
        return None
    press, at_ms = found
    at = datetime.fromtimestamp(at_ms / 1000, UTC)
    return f"the last press was {press.subject}, {press.kind} {when(at, now)}"


def spoken_state(device: DeviceSummary) -> str:
    # A dead device's last values are stale: say so in the sentence, not only in `status`.
    return f"{device.state}, not responding" if device.status == "Dead" else device.state


LISTED_IN_SUMMARY = 8


def page_of(total: int, offset: int, limit: int, count: int) -> tuple[int, int]:
    """(page, pages) of `count` devices shown from `offset` on: the pages before it are those the skipped
    devices fill, so an offset between pages (8 of 13, 50 a page) is page 2 of 2, not page 1 of 1."""
    page = -(-offset // limit) + 1
    return page, page + -(-max(0, total - offset - count) // limit)


def list_summary(total: int, shown: list[DeviceSummary], offset: int, limit: int, narrowed: bool) -> str:
    """ "11 devices: A (on), …", "11 devices, page 2 of 2: …", "13 devices, 9 to 13: …" (from an offset
    between pages), "No devices match."."""
    if not total:
        return "No devices match." if narrowed else "No devices."
    if not shown:
        return f"{plural(total, 'device')} in all, none from offset {offset} on."
    listing = ", ".join(f"{d.name} ({spoken_state(d)})" for d in shown[:LISTED_IN_SUMMARY])
    more = f", and {len(shown) - LISTED_IN_SUMMARY} more" if len(shown) > LISTED_IN_SUMMARY else ""
    page, pages = page_of(total, offset, limit, len(shown))
    where = ""
    if len(shown) < total:
        where = (
            f", page {page} of {pages}" if offset % limit == 0 else f", {offset + 1} to {offset + len(shown)}"
        )
    return f"{plural(total, 'device')}{where}: {listing}{more}."


# A device no discovery rule made anything of: never "it only reports readings".
NOT_UNDERSTOOD = "zwave-mcp does not understand it yet; the command zwave-mcp explain lists its values."


def verify_summary(device: Device, actions: list[str]) -> str:
    node = device.node
    if node.loading:  # what it can do is not known yet: not "it only reports readings"
        return still_loading(f"{device.label} exists but")
    if node.status == "Dead":
        condition = "is not responding (dead)"
    elif node.is_sleeping_device:
        condition = "is a battery device that sleeps; commands wait until it wakes up"
    else:
        condition = "is ready" if node.ready else "is not ready yet (still being interviewed)"
    if actions:
        can = f"It can: {', '.join(a.replace('_', ' ') for a in actions)}."
    elif device.unclaimed and not device.understood:
        can = NOT_UNDERSTOOD
    elif (
        node.told_nothing
    ):  # interviewed, and not one value: what it does is not known, and waiting won't tell
        can = "It has not reported anything yet, so what it does is not known."
    else:
        can = "It only reports readings."
    return f"{device.label} exists and {condition}. {can}"


def sensor_summary(device: Device, found: list[Reading]) -> str:
    if device.node.loading:
        return still_loading(device.name)
    said = spoken_readings(found)
    return (
        f"{device.name}: {', '.join(said)}."
        if said
        else agreeing(device.name, f"{device.name} has no sensor readings.")
    )
