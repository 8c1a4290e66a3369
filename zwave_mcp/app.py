"""`App`: everything a tool, resource or prompt needs, built once per server. The MCP surface modules
(tools, resources, prompts, server) import it from here, so none of them imports another to get it."""

from __future__ import annotations

from dataclasses import dataclass

from zwave_mcp.config import Settings
from zwave_mcp.devices.gate import Gate
from zwave_mcp.devices.service import DeviceService
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.policy import Policy


@dataclass
class App:
    settings: Settings
    gateway: ZwaveGateway
    policy: Policy
    gate: Gate  # the one write gate: every change goes through `gate.apply`
    devices: DeviceService


def build_app(settings: Settings, gateway: ZwaveGateway | None = None) -> App:
    gateway = gateway or ZwaveGateway(settings)
    policy = Policy.from_settings(settings)
    gate = Gate(gateway, policy, settings)
    devices = DeviceService(gateway, policy, settings, gate)
    return App(settings=settings, gateway=gateway, policy=policy, gate=gate, devices=devices)
