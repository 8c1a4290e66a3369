"""`driverFunction` (arbitrary JavaScript inside zwave-js-ui) is never exposed and never sent (issue 16)."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.source_code import docstring_ids
from zwave_mcp.gateway.api import ApiClient, GatewayError
from zwave_mcp.gateway.topics import GatewayTopics

PACKAGE = Path(__file__).resolve().parents[2] / "zwave_mcp"


def test_no_code_outside_the_simulator_names_driver_function() -> None:
    """Only docstrings and comments may mention it: no string in code (an API name to call) holds it."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        if "simulator" in path.relative_to(PACKAGE).parts:
            continue
        tree = ast.parse(path.read_text("utf-8"))
        docstrings = docstring_ids(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and "driverfunction" in node.value.casefold()
                and id(node) not in docstrings
                and path.name != "api.py"  # the one guard that refuses it
            ):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []


class _Transport:
    connected = True

    def __init__(self) -> None:
        self.sent: list[Any] = []

    def publish(self, topic: str, payload: Any, qos: int = 0, retain: bool = False) -> None:
        self.sent.append((topic, payload))

    async def wait_connected(self, timeout: float) -> bool:
        return True

    def unavailable_text(self) -> str:
        return ""


def test_the_api_client_refuses_to_send_it() -> None:
    transport = _Transport()
    client = ApiClient(transport, GatewayTopics())
    with pytest.raises(GatewayError, match="never sent"):
        asyncio.run(client.call("driverFunction", "return 1"))
    assert transport.sent == []
