"""MCP resources: the inventory, one device, and health, as JSON documents."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from mcp.server.mcpserver import MCPServer

if TYPE_CHECKING:
    from zwave_mcp.server import App

DEVICES_URI = "zwave://devices"
HEALTH_URI = "zwave://health"


def device_uri(key: str) -> str:
    return f"zwave://devices/{key}"


def register_resources(server: MCPServer[App], app: App) -> None:
    from zwave_mcp.tools.present import summarize

    @server.resource(DEVICES_URI, name="devices", title="Z-Wave devices", mime_type="application/json")
    def devices() -> str:
        return json.dumps([summarize(d).model_dump(mode="json") for d in app.devices.devices()])

    @server.resource(
        "zwave://devices/{key}", name="device", title="One Z-Wave device", mime_type="application/json"
    )
    def device(key: str) -> str:
        found = app.devices.index.get(key)
        if found is None:
            raise ValueError(f"No device with key '{key[:40]}'; zwave://devices lists the keys.")
        values = {
            v.value_id: {"label": v.label, "value": v.value, "unit": v.unit, "lastUpdate": v.last_update_ms}
            for v in found.all_values()
        }
        return json.dumps({"device": summarize(found).model_dump(mode="json"), "values": values})

    @server.resource(HEALTH_URI, name="health", title="Z-Wave health", mime_type="application/json")
    def health() -> str:
        report = app.gateway.health()
        return json.dumps(
            {
                "ok": report.ok,
                "problem": report.problem,
                "broker": {"connected": report.broker_connected, "address": report.broker_address},
                "zwaveJsUi": report.zwave_js_ui_state,
                "driverReady": report.driver_ready,
                "nodes": report.nodes_by_status,
                "lastMessageAgeSeconds": report.last_message_age_s,
            }
        )
