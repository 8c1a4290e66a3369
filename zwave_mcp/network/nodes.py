"""A node's details as a person asks for them: who made it, how it is powered and secured, how it talks."""

from __future__ import annotations

from typing import Any

from zwave_mcp.devices.levels import is_number
from zwave_mcp.devices.model import Device
from zwave_mcp.gateway.admin import security_words
from zwave_mcp.gateway.model import ZNode
from zwave_mcp.network.models import NodeDetails, Statistics
from zwave_mcp.zwave.classes import CC


def _statistics(raw: Any) -> Statistics | None:
    if not isinstance(raw, dict):
        return None

    def number(key: str) -> Any:
        value = raw.get(key)
        return value if is_number(value) else None

    dropped = [d for d in (number("commandsDroppedRX"), number("commandsDroppedTX")) if d is not None]
    return Statistics(
        roundTripMs=number("rtt"),
        commandsSent=number("commandsTX"),
        commandsReceived=number("commandsRX"),
        commandsDropped=sum(dropped) if dropped else None,
        timeouts=number("timeoutResponse"),
        lastSeen=raw.get("lastSeen") if isinstance(raw.get("lastSeen"), str) else None,
        signalDbm=number("rssi"),
    )


def _power(node: ZNode) -> str:
    if node.is_listening:
        return "listening"
    return "frequently listening" if node.is_frequent_listening else "sleeping"


def _int_value(node: ZNode, cc: int, prop: str) -> int | None:
    value = node.find_value(cc, prop)
    raw = value.value if value is not None else None
    return int(raw) if raw is not None and is_number(raw) else None


def node_details(node: ZNode, device: Device, neighbours: list[int] | None, now_ms: int) -> NodeDetails:
    """The node's details, said in one sentence; `now_ms` is the clock's time (the last-active age)."""
    details = node.details
    last = node.last_active_ms
    stats = _statistics(details.get("statistics"))
    security = details.get("security")
    security = security_words(security) if isinstance(security, str) else None
    wake = _int_value(node, CC.WAKE_UP, "wakeUpInterval") if _power(node) == "sleeping" else None
    battery = _int_value(node, CC.BATTERY, "level")
    sentence = f"{device.name} (node {node.id}) is a {_power(node)} device"
    if node.manufacturer:
        sentence += f" by {node.manufacturer}"
    facts = []
    if node.firmware_version:
        facts.append(f"firmware {node.firmware_version}")
    if security is not None:
        facts.append("no security" if security == "none" else f"{security} security")
    if wake:
        facts.append(f"waking every {_duration(wake)}")
    if battery is not None:
        facts.append(f"battery {battery} %")
    if stats is not None and stats.roundTripMs is not None:
        facts.append(f"last round trip {stats.roundTripMs:g} ms")
    if node.status == "Dead":
        facts.append("currently not responding")
    summary = sentence + (", " + ", ".join(facts) if facts else "") + "."
    return NodeDetails(
        summary=summary,
        nodeId=node.id,
        name=device.name,
        location=device.location,
        manufacturer=node.manufacturer,
        product=node.product_label,
        productCode=details.get("hexId") if isinstance(details.get("hexId"), str) else None,
        firmwareVersion=node.firmware_version,
        security=security,
        secure=details.get("isSecure") if isinstance(details.get("isSecure"), bool) else None,
        powerSource=_power(node),  # type: ignore[arg-type]
        wakeUpIntervalSeconds=wake,
        battery=battery,
        status=node.status,
        interviewStage=node.interview_stage,
        lastActiveSecondsAgo=round((now_ms - last) / 1000, 1) if isinstance(last, int) else None,
        statistics=stats,
        neighbours=neighbours,
        protocol={0: "Z-Wave", 1: "Z-Wave Long Range"}.get(details.get("protocol", -1)),
    )


def _duration(seconds: int) -> str:
    if seconds % 3600 == 0:
        return f"{seconds // 3600} hour{'s' if seconds != 3600 else ''}"
    if seconds % 60 == 0:
        return f"{seconds // 60} minutes"
    return f"{seconds} seconds"
