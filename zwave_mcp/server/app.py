"""`App`: everything a tool, resource or prompt needs, built once per server, and how their module-level
functions are given it. The MCP surface modules (tools, resources, prompts, server) import it from here, so
none of them imports another to get it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from zwave_mcp.config import Settings
from zwave_mcp.devices.gate import Gate, GateResult
from zwave_mcp.devices.service import DeviceService
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.history import History, build_history
from zwave_mcp.policy import Policy
from zwave_mcp.server.asking import QuestionSeal

if TYPE_CHECKING:
    from zwave_mcp.network.changes import NetworkCare


@dataclass
class App:
    settings: Settings
    gateway: ZwaveGateway
    policy: Policy
    gate: Gate  # the one write gate: every change goes through `gate.apply`
    devices: DeviceService
    questions: QuestionSeal  # signs the pending change a 2026-07-28 client carries between rounds
    history: History
    # Network care, only with ZWAVE_MCP_ADMIN (its inclusion tracker follows the controller's events from
    # the start): set by `build_app`, read only by the admin tools, which are listed only then.
    care: NetworkCare = field(init=False)


def build_app(settings: Settings, gateway: ZwaveGateway | None = None, *, service: bool = False) -> App:
    gateway = gateway or ZwaveGateway(settings)
    policy = Policy.from_settings(settings)
    gate = Gate(gateway, policy, settings)
    devices = DeviceService(gateway, policy, settings, gate)
    questions = QuestionSeal(policy.tokens.mac, ttl_s=policy.tokens.ttl_s)
    history = build_history(settings, devices, gateway.inventory, lambda: gateway.info, service=service)
    gate.add_listener(lambda result: _record_outcomes(history, result))
    app = App(settings, gateway, policy, gate, devices, questions, history)
    if settings.admin:
        from zwave_mcp.gateway.admin import NetworkAdmin
        from zwave_mcp.network.changes import NetworkCare
        from zwave_mcp.network.jobs import Jobs

        app.care = NetworkCare(gate, policy, NetworkAdmin(gateway), Jobs(), settings.tool_timeout)
    return app


def bound(function: Callable[..., Any], *first: Any) -> partial[Any]:
    """`function` given its first arguments (the app…), as the SDK registers it: it reads the name and
    docstring of what it is given (a bare partial has neither) and the rest of the signature."""
    given = partial(function, *first)
    vars(given).update(__name__=function.__name__, __doc__=function.__doc__)
    return given


def _record_outcomes(history: History, result: GateResult) -> None:
    """One history row per device the change touched, with that device's own outcome (the audit line
    joins several devices in one, which a device's history could not find)."""
    for outcome in result.devices:
        history.recorder.record_outcome(
            {
                "tool": result.change.tool,
                "action": result.change.action,
                "device_key": outcome.device.key,
                "device": outcome.device.label,
                "value": result.change.argument,
                "outcome": str(outcome.outcome),
                "reason": outcome.reason or result.reason,
                "time": result.at_ms / 1000,
            }
        )
