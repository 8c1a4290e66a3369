"""Helpers for the tool and safety tests: the server in-process on Mosquitto + the simulator.

`connected(settings)` opens an in-process `mcp.Client` on `build_server(settings)` and waits (bounded) until
the gateway has loaded the house; `call(client, tool, args)` returns the structured envelope, the spoken
text and `isError` together, so tests assert on what a client really received.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from zwave_mcp.config import Settings
from zwave_mcp.server.build import build_server
from zwave_mcp.simulator import Simulator
from zwave_mcp.simulator.dumps import load_house_file
from zwave_mcp.zwave.wire import value_key

# Real node dumps of public origin (fixtures/devices/README.md says where each comes from).
DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"
READY_TIMEOUT_S = 10.0
CONFIGS = ("a", "b", "c")

# Every mutation in a test suite that flips the same relay many times would hit the default rate limit.
TEST_SETTINGS: dict[str, Any] = {
    "api_timeout": 3.0,
    "confirm_timeout": 2.0,
    "tool_timeout": 10.0,
    "rate_limit_device": 0,
    "rate_limit_total": 0,
}


def settings_for(broker: Any, sim: Simulator, **extra: Any) -> Settings:
    return Settings(
        mqtt_url=broker.url,
        prefix=sim.config.prefix,
        gateway_name=sim.config.name,
        **{**TEST_SETTINGS, **extra},
    )


@dataclass
class Answer:
    """One tools/call as the client saw it."""

    text: str
    is_error: bool
    envelope: dict[str, Any]

    @property
    def result(self) -> dict[str, Any]:
        result = self.envelope.get("result")
        assert isinstance(result, dict), f"no result in {self.envelope} ({self.text})"
        return result

    @property
    def error(self) -> str:
        assert self.is_error, f"expected an error, got: {self.text}"
        error = self.envelope.get("error")
        assert isinstance(error, str)
        return error

    @property
    def outcome(self) -> str:
        return str(self.result.get("outcome"))


async def call(client: Client, tool: str, args: dict[str, Any] | None = None) -> Answer:
    reply = await client.call_tool(tool, args or {})
    texts = [c.text for c in reply.content if getattr(c, "type", "") == "text"]
    assert len(texts) == 1, f"{tool}: expected one text content, got {reply.content}"
    envelope = reply.structured_content or {}
    assert envelope.get("tool_name") == tool and envelope.get("success") is (not reply.is_error), envelope
    return Answer(texts[0], bool(reply.is_error), envelope)


async def wait_until_healthy(client: Client, timeout: float = READY_TIMEOUT_S) -> Answer:
    deadline = time.monotonic() + timeout
    while True:
        answer = await call(client, "check_zwave_health")
        if answer.result["healthy"]:
            return answer
        if time.monotonic() > deadline:
            raise AssertionError(f"the gateway did not become healthy within {timeout} s: {answer.text}")
        await anyio.sleep(0.02)


@asynccontextmanager
async def connected(
    settings: Settings, *, wait: bool = True, elicitation_callback: Any = None, mode: str = "auto"
) -> AsyncIterator[Client]:
    """The server in-process. `mode="legacy"` gives the client a back-channel (needed for elicitation)."""
    server = build_server(settings)
    try:
        async with Client(server, elicitation_callback=elicitation_callback, mode=mode) as client:
            if wait:
                await wait_until_healthy(client)
            yield client
    except BaseExceptionGroup as group:
        raise _only_error(group) from None


def _only_error(error: BaseException) -> BaseException:
    """The client's task groups wrap a failed assertion in groups of one; show the assertion itself."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


async def eventually(check: Callable[[], Any], timeout: float = 3.0, what: str = "the condition") -> Any:
    """Poll a cheap, synchronous check (simulator state) until it is truthy; bounded, with a clear failure."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout} s")
        await anyio.sleep(0.01)


def sim_value(sim: Simulator, node_id: int, cc: int, prop: str, endpoint: int = 0, key: Any = None) -> Any:
    """A value as the simulated device holds it (the truth, independent of what the server believes)."""
    value = sim.nodes[node_id]["values"][value_key(cc, endpoint, prop, key)]
    return value.get("value")


async def wait_for_answer(
    client: Client,
    tool: str,
    args: dict[str, Any],
    predicate: Callable[[Answer], bool],
    timeout: float = 5.0,
) -> Answer:
    """Call a tool until its answer satisfies `predicate` (e.g. health after a crash); bounded."""
    deadline = time.monotonic() + timeout
    while True:
        answer = await call(client, tool, args)
        if predicate(answer):
            return answer
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{tool} never gave the expected answer within {timeout} s; last: {answer.text}"
            )
        await anyio.sleep(0.02)


def api_topic(sim: Simulator, api: str) -> str:
    """The request topic of a zwave-js-ui API on this simulator (what our gateway publishes to)."""
    return f"{sim.config.prefix}/_CLIENTS/ZWAVE_GATEWAY-{sim.config.name}/api/{api}/set"


def writes(messages: list[Any]) -> list[tuple[dict[str, Any], Any]]:
    """(valueId, value) of every writeValue request among collected messages."""
    found = []
    for message in messages:
        if message.topic.endswith("/api/writeValue/set"):
            args = message.json()["args"]
            found.append((args[0], args[1]))
    return found


def sim_value_by_id(sim: Simulator, value_id: str) -> Any:
    """A value of the simulated house by our `valueId` (`<node>-<cc>-<endpoint>-<property>[-<key>]`)."""
    node_id, key = value_id.split("-", 1)
    return sim.nodes[int(node_id)]["values"][key].get("value")


def wait_writes(collector: Any, count: int, timeout: float = 3.0) -> list[tuple[dict[str, Any], Any]]:
    """The writeValue requests a collector saw, once at least `count` arrived (its thread may lag behind
    the tool's answer). Earlier, unexpected writes from the same client arrive first, so they show too."""
    deadline = time.monotonic() + timeout
    while len(found := writes(collector.snapshot())) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"expected {count} writeValue requests within {timeout} s, saw {found}")
        time.sleep(0.005)
    return found


def house_of_dumps(dumps: Iterable[tuple[str, str, str]]) -> list[dict[str, Any]]:
    """A house of real devices: each (file under fixtures/devices, name, room) gives its node that name and
    room; the dumps' controllers are one controller."""
    nodes: dict[int, dict[str, Any]] = {}
    for file, name, room in dumps:
        for node in load_house_file(DEVICES / file):
            if node["id"] != 1:
                node["name"], node["loc"] = name, room
            nodes.setdefault(node["id"], node)
    return [nodes[i] for i in sorted(nodes)]
