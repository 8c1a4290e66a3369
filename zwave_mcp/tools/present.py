"""Devices as the tools show them: the shared summary every result embeds."""

from __future__ import annotations

import time

from zwave_mcp.devices.describe import state_summary
from zwave_mcp.devices.model import Device
from zwave_mcp.tools.models import DeviceSummary


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


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
