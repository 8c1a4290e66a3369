"""`zwave-mcp explain`: how zwave-mcp understands each device, for a person or a bug report.

For every node: the product and its device class, then each device zwave-mcp makes of it (name and key,
kind, what can be read with its units, what can be done, what its state answer says), then the node's
values no device uses. Those are what a bug report about "my fan is a dimmer" needs. Offline from a
house file (`--house`: any format `zwave_mcp.simulator.dumps` reads: Home Assistant device diagnostics,
zwave-js-server node states, zwave-js-ui's nodes dump or getNodes reply), or from the live gateway with the usual settings (hidden
devices stay hidden: their whole node is left out).

Only the devices layer's public API is used (`build_devices`, `Device.kind/capabilities/all_values`,
`describe.readings`, `control.available_actions`), so this keeps working as discovery changes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from operator import attrgetter
from typing import Any

from zwave_mcp.answers import capital, plural
from zwave_mcp.devices import describe
from zwave_mcp.devices.build import build_devices, is_user_node
from zwave_mcp.devices.control import available_actions
from zwave_mcp.devices.model import Device
from zwave_mcp.gateway.model import ZNode, ZValue
from zwave_mcp.safetext import JSON_TERMINAL_UNSAFE, json_text, terminal_safe
from zwave_mcp.zwave.classes import ADMINISTRATIVE

LIVE_MARGIN_S = 2.0  # beyond the API timeout, for the getNodes reply to be taken in
LIVE_POLL_S = 0.1


# -- the report (pure) ---------------------------------------------------------------------------------------
def explain_nodes(nodes: Iterable[ZNode], now_ms: int | None = None) -> dict[str, Any]:
    """Every user node (not the controller) with its devices and its unused values, as plain data."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    ordered = sorted((n for n in nodes if is_user_node(n)), key=lambda n: n.id)
    devices = build_devices(ordered)
    by_node: dict[int, list[Device]] = {}
    for device in devices:
        by_node.setdefault(device.node_id, []).append(device)
    report = [_node_report(node, by_node.get(node.id, []), now) for node in ordered]
    return {
        "nodes": len(report),
        "devices": len(devices),
        "not_understood": sum(1 for d in devices if not d.understood and not d.node.loading),
        "loading": sum(1 for d in devices if d.node.loading),
        "report": report,
    }


def _node_report(node: ZNode, devices: list[Device], now_ms: int) -> dict[str, Any]:
    used = {v.value_id for d in devices for v in d.all_values()}
    unused = [v for v in node.values.values() if v.value_id not in used]
    listed = [v for v in unused if v.command_class not in ADMINISTRATIVE]
    listed.sort(key=attrgetter("endpoint", "command_class", "value_id"))
    return {
        "node": node.id,
        "name": node.display_name,
        "location": node.display_location,
        "manufacturer": node.manufacturer,
        "product": node.product_label,
        "description": node.product_description,
        "device_class": {"generic": node.generic_class, "specific": node.specific_class},
        "power": _power(node),
        "status": node.status,
        "values": len(node.values),
        "devices": [_device_report(d, now_ms) for d in devices],
        "unused": [_value_report(v) for v in listed],
        "unused_administrative": len(unused) - len(listed),
    }


def _device_report(device: Device, now_ms: int) -> dict[str, Any]:
    endpoint_of = {v.value_id: v.endpoint for v in device.all_values()}
    found = describe.readings(device, now_ms)
    actions = available_actions(device)
    says = describe.sentence(device)  # before the fault is read: describing it may be what fails
    return {
        "key": device.key,
        "name": device.name,
        "endpoint": device.endpoint,
        "part": device.part,
        "kind": device.kind.value if device.kind is not None and device.fault is None else None,
        # zwave-js-ui has not sent its values yet (just after it started): what it is cannot be known yet
        "loading": device.node.loading,
        "fault": device.fault,  # why zwave-mcp failed on it (then it is "not understood yet")
        "capabilities": [c.value for c in device.capabilities],
        "readings": [
            {
                "label": r.label,
                "spoken_label": r.spoken_label or r.label.lower(),
                "idle": r.idle,
                "value": r.value,
                "unit": r.unit,
                "text": r.text,
                "endpoint": endpoint_of.get(r.value_id, 0),
                "value_id": r.value_id,
            }
            for r in found
        ],
        "actions": actions,
        "says": says,
        "values": sorted(v.value_id for v in device.all_values()),
    }


def _value_report(value: ZValue) -> dict[str, Any]:
    return {
        "value_id": value.value_id,
        "command_class": value.command_class,
        "command_class_name": value.command_class_name,
        "endpoint": value.endpoint,
        "label": value.label,
        "value": value.value,
        "unit": value.unit,
        "writeable": value.writeable,
    }


def _power(node: ZNode) -> str:
    if node.is_listening:
        return "always listening"
    return "frequently listening (FLiRS)" if node.is_frequent_listening else "sleeping (battery)"


# -- text ---------------------------------------------------------------------------------------------------
def render_text(explained: dict[str, Any], source: str) -> str:
    lines = [
        f"zwave-mcp explain: {plural(explained['nodes'], 'node')}, {plural(explained['devices'], 'device')} "
        f"from {source}"
        + (f"; {explained['not_understood']} not understood yet" if explained["not_understood"] else "")
        + (f"; {explained['loading']} still loading" if explained.get("loading") else ""),
    ]
    for node in explained["report"]:
        lines.append("")
        product = " ".join(p for p in (node["manufacturer"], node["product"]) if p)
        about = f" ({node['description']})" if node["description"] else ""
        where = f" in {node['location']}" if node["location"] else ""
        lines.append(f'Node {node["node"]} "{node["name"]}"{where}: {product}{about}')
        dc = node["device_class"]
        lines.append(
            f"  device class {dc['generic']}/{dc['specific']} (generic/specific), {node['power']}, "
            f"status {node['status']}, {plural(node['values'], 'value')}"
        )
        if not node["devices"]:
            lines.append("  no device: zwave-mcp does not understand this node yet")
        for device in node["devices"]:
            lines.extend(_device_lines(device))
        lines.extend(_unused_lines(node))
    # Every name, label, property and value in it came from the network or a file: shown, never obeyed.
    return "\n".join(terminal_safe(line) for line in lines) + "\n"


def _device_lines(device: dict[str, Any]) -> list[str]:
    if device.get("loading"):
        kind = "still loading (zwave-js-ui has not sent its values yet)"
    elif device.get("fault"):
        kind = f"not understood yet: zwave-mcp {device['fault']}"
    else:
        kind = device["kind"] or "not understood yet"
    others = [c for c in device["capabilities"] if c != device["kind"]]
    also = f" (also {', '.join(others)})" if others else ""
    where = f", endpoint {device['endpoint']}" if device["endpoint"] is not None else ""
    if device["endpoint"] is not None and device["part"] is None:
        where += ", the node's main part"  # the node's own name: what it is bought for (`build`)
    lines = [f"  - {device['name']} [key {device['key']}{where}]: {kind}{also}"]
    several = len({r["endpoint"] for r in device["readings"]}) > 1
    readings = [_reading_text(r, several) for r in device["readings"]]
    if len(readings) <= 2:
        lines.append(f"      reads: {'; '.join(readings) if readings else 'nothing'}")
    else:
        lines.append("      reads:")
        lines.extend(f"        {reading}" for reading in readings)
    actions = device["actions"]
    lines.append(f"      does:  {', '.join(actions) if actions else 'nothing (it only reports)'}")
    lines.append(f"      uses {plural(len(device['values']), 'value')}")
    lines.append(f"      says:  {device['says']}")
    return lines


def _reading_text(reading: dict[str, Any], with_endpoint: bool) -> str:
    """ "Air temperature: 21.98 °C", "door closed", "Lock state: nothing to report", "Low battery level: no":
    the reading as zwave-mcp says it (issue 43 item 15: it showed zwave-js's labels and states, "The current
    status of the door: door closed", "Lock state: idle")."""
    value, text, label = reading["value"], reading["text"], str(reading["spoken_label"])
    where = f" (endpoint {reading['endpoint']})" if with_endpoint else ""
    if text and str(text).startswith(label) and not where:
        return capital(str(text))  # "door closed" says what it is
    if value is None:
        shown = "not reported yet"
    elif isinstance(value, bool):
        shown = "yes" if value else "no"
    elif text == "idle" or (reading["idle"] and not text):
        shown = "nothing to report"
    elif text:
        shown = str(text)
    else:
        shown = f"{value}{' ' + reading['unit'] if reading['unit'] else ''}"
    return f"{capital(label)}{where}: {shown}"


def _unused_lines(node: dict[str, Any]) -> list[str]:
    admin = node["unused_administrative"]
    admin_note = f" (and {admin} configuration and other administrative values)" if admin else ""
    if not node["unused"]:
        return [f"  unused values: none{admin_note}"]
    lines = [f"  unused values: {len(node['unused'])}{admin_note}"]
    for value in node["unused"]:
        if value["value"] is None:
            current = "no value"
        else:
            current = json_text(value["value"], ensure_ascii=False, default=str)
            current += f" {value['unit']}" if value["unit"] else ""
        access = "writeable" if value["writeable"] else "read-only"
        lines.append(
            f"      {value['command_class_name'] or value['command_class']}: {value['label']}"
            f" [{value['value_id']}] = {current} ({access})"
        )
    return lines


# -- command ------------------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    from zwave_mcp.commands.settings_flags import add_settings_flags

    parser = argparse.ArgumentParser(
        prog="zwave-mcp explain",
        description="Print how zwave-mcp understands each device: kind, what it reads, what it can do, "
        "and the values no device uses. Attach the output (--json) to a bug report.",
        epilog="Without --house it reads the live network with the usual settings (ZWAVE_MCP_* or the flags "
        "below); hidden devices are left out.",
    )
    parser.add_argument(
        "--house",
        metavar="FILE",
        help="a house instead of the live network: captured, generated:N[:seed], or a file: Home Assistant "
        "device diagnostics (one or a list), zwave-js-server node state(s), zwave-js-ui's nodes dump or "
        "getNodes reply",
    )
    parser.add_argument("--json", action="store_true", help="print JSON (for a bug report) instead of text")
    add_settings_flags(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with _edge_lines():
        return _explain(args)


def _explain(args: argparse.Namespace) -> int:
    if args.house is not None:
        from zwave_mcp.gateway.nodes import parse_node
        from zwave_mcp.simulator.house import load_house

        try:
            house = load_house(args.house)
        except ValueError as exc:  # a DumpError, or a generated:N it cannot read
            return _fail(str(exc), 2)
        nodes = [n for n in (parse_node(raw) for raw in house) if n is not None]
        source = args.house
    else:
        from zwave_mcp.commands.settings_flags import settings_from
        from zwave_mcp.config import ConfigError

        try:
            settings = settings_from(args)
        except ConfigError as exc:
            return _fail(f"invalid setting: {exc}", 2)
        loaded = asyncio.run(_load_live(settings))
        if isinstance(loaded, str):
            return _fail(loaded, 1)
        nodes, source = loaded, "the live network"
    explained = explain_nodes(nodes)
    if args.json:
        text = json_text({"source": source, **explained}, indent=2, ensure_ascii=False, default=str)
        print(JSON_TERMINAL_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text))
    else:
        sys.stdout.write(render_text(explained, source))
    return 0


def _fail(why: str, code: int) -> int:
    print(terminal_safe(f"zwave-mcp explain: {why}"), file=sys.stderr)
    return code


class _EdgeLines(logging.Handler):
    """What the gateway's edge dropped and the devices zwave-mcp failed on, one plain line each on stderr
    (what a bug report needs); the rest of the server's log (connection retries) is not explain's output."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(terminal_safe(f"zwave-mcp explain: {record.getMessage()}"), file=sys.stderr)
        except Exception:
            self.handleError(record)


@contextlib.contextmanager
def _edge_lines() -> Iterator[None]:
    """While explaining: the edge's and the boundary's lines on stderr, plain; the rest of the log quiet.
    What it changed is put back after (explain also runs inside other programs: the tests)."""
    root = logging.getLogger("zwave_mcp")
    saved = [(root, root.level, root.propagate)]
    root.setLevel(logging.CRITICAL)
    root.propagate = False
    handler = _EdgeLines()
    said = [logging.getLogger(name) for name in _SAID]
    for logger in said:
        saved.append((logger, logger.level, logger.propagate))
        logger.setLevel(logging.WARNING)
        logger.addHandler(handler)
        logger.propagate = False
    try:
        yield
    finally:
        for logger in said:
            logger.removeHandler(handler)
        for logger, level, propagate in saved:
            logger.setLevel(level)
            logger.propagate = propagate


_SAID = ("zwave_mcp.gateway.nodes", "zwave_mcp.gateway.state", "zwave_mcp.devices.boundary")


async def _load_live(settings: Any) -> list[ZNode] | str:
    from zwave_mcp.config import ConfigError
    from zwave_mcp.server.app import build_app

    # A look, not a session: nothing recorded in the history file, nothing written to the network.
    settings = settings.model_copy(update={"history_path": "off", "read_only": True})
    try:
        app = build_app(settings)
    except ConfigError as exc:
        return f"invalid setting: {exc}"
    gateway = app.gateway
    gateway.start()
    # Bounded by how long a getNodes may take; over as soon as the reason it cannot load is known (the
    # broker refused or is unreachable, zwave-js-ui is not there under that prefix and name).
    deadline = time.monotonic() + settings.api_timeout + LIVE_MARGIN_S
    try:
        while time.monotonic() < deadline:
            if await gateway.wait_ready(LIVE_POLL_S):
                return [n for i, n in gateway.nodes.items() if app.devices.visible_node(i)]
            if (
                gateway.broker_failed()
                or gateway.gateway_silent()
                or gateway.sync.schedule.failure is not None
            ):
                break
        return gateway.unavailable_reason() or "the network did not load in time"
    finally:
        await gateway.stop()
