"""Issue 42: what a caller's access covers is checked at the call, before anything runs: reading the house
(tools, resources, prompts) needs home:read, network care home:admin; each refusal is one sentence naming
the scope, and a refused mutating call leaves its one audit line. The caller comes from `who_calls`, as the
home service's comes from the SDK's auth context; no broker is needed (nothing is reached)."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from zwave_mcp.config import load_settings
from zwave_mcp.policy.caller import Caller, Reach
from zwave_mcp.server.build import ZwaveServer
from zwave_mcp.service.callers import needs

pytestmark = pytest.mark.anyio

NOBODY = Caller("stranger", frozenset(), remote=True, needs=needs)
CONTROLLER = Caller("tablet", frozenset({Reach.READ, Reach.CONTROL}), remote=True, needs=needs)


@asynccontextmanager
async def calling_as(caller: Caller) -> AsyncIterator[Client]:
    settings = load_settings(
        {"mqtt_url": "mqtt://127.0.0.1:1", "history_path": "off", "admin": True, "tool_timeout": 2},
        environ={},
    )
    server = ZwaveServer(settings, who_calls=lambda _ctx: caller).server
    async with Client(server, mode="legacy") as client:
        yield client


def _text(result: Any) -> str:
    return str(result.content[0].text)


async def test_a_client_without_read_access_reads_nothing() -> None:
    async with calling_as(NOBODY) as client:
        listed = await client.call_tool("list_zwave_devices", {})
        assert listed.is_error and _text(listed) == (
            "Refused to read the home: this client is not allowed to read the home; that needs the home:read scope."
        )
        with pytest.raises(MCPError, match="that needs the home:read scope"):
            await client.read_resource("zwave://devices/2")
        with pytest.raises(MCPError, match="that needs the home:read scope"):
            await client.get_prompt("device_status", {"device": "Kitchen Light"})


async def test_network_care_needs_the_admin_scope_with_one_audit_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="zwave_mcp.audit")
    async with calling_as(CONTROLLER) as client:
        renamed = await client.call_tool(
            "rename_zwave_device", {"deviceName": "kitchen light", "name": "Lamp"}
        )
        details = await client.call_tool("get_zwave_node_details", {"deviceName": "kitchen light"})
    said = (
        "Refused to use the network-care tools: this client is not allowed to care for the Z-Wave network; "
        "that needs the home:admin scope."
    )
    assert renamed.is_error and _text(renamed) == said
    assert details.is_error and _text(details) == said
    audit = [r for r in caplog.records if r.name == "zwave_mcp.audit"]
    assert [(getattr(r, "client", None), getattr(r, "outcome", None)) for r in audit] == [
        ("tablet", "refused")
    ]
    assert json.dumps(getattr(audit[0], "reason", "")).count("home:admin") == 1
