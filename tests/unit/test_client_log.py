"""The `logging` capability: `logging/setLevel`, and log records sent as `notifications/message`.

In-process with the SDK's own `Client`, in both protocol eras, on a small server with the same
`ClientLog` the real server installs (a tool that logs at the level it is given), and on the real server.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import LoggingMessageNotificationParams, ToolAnnotations

from zwave_mcp.config import load_settings
from zwave_mcp.server import client_log
from zwave_mcp.server.build import build_server
from zwave_mcp.server.client_log import BURST, PER_SECOND, Budget, ClientLog, mcp_level

LOGGER = "zwave_mcp.test_client_log"
pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")


def test_python_levels_map_to_mcp_levels() -> None:
    assert [mcp_level(n) for n in (5, 10, 20, 25, 30, 40, 50)] == [
        "debug",
        "debug",
        "info",
        "notice",
        "warning",
        "error",
        "critical",
    ]


def test_the_budget_allows_a_burst_then_a_steady_rate_and_counts_the_rest() -> None:
    now = [100.0]
    budget = Budget(clock=lambda: now[0])
    assert all(budget.take() for _ in range(BURST))
    assert not budget.take() and not budget.take()
    assert budget.take_dropped() == 2 and budget.take_dropped() == 0
    now[0] += 1 / PER_SECOND
    assert budget.take() and not budget.take()


# --- a small server with the real ClientLog -----------------------------------------------------------


def logging_server() -> tuple[MCPServer, ClientLog]:
    server = MCPServer("log-test")
    logs = ClientLog()
    logs.install(server)

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def say(level: str, text: str) -> str:
        """Log `text` at `level` (a Python level name), then answer."""
        logging.getLogger(LOGGER).log(logging.getLevelName(level.upper()), text)
        return "said"

    return server, logs


class Heard:
    """What the client's logging callback received."""

    def __init__(self) -> None:
        self.messages: list[LoggingMessageNotificationParams] = []

    async def __call__(self, params: LoggingMessageNotificationParams) -> None:
        self.messages.append(params)

    def texts(self) -> list[tuple[str, str]]:
        return [(m.level, m.data["message"]) for m in self.messages if m.logger == LOGGER]

    async def wait_for(self, count: int) -> None:
        async with asyncio.timeout(5):
            while len(self.texts()) < count:
                await asyncio.sleep(0.01)


@pytest.fixture
async def started() -> AsyncIterator[tuple[MCPServer, ClientLog]]:
    server, logs = logging_server()
    logger = logging.getLogger(LOGGER)
    level = logger.level
    logger.setLevel(logging.DEBUG)  # the records exist whatever the root logger's level: the client filters
    logs.start()
    try:
        yield server, logs
    finally:
        await logs.stop()
        logger.setLevel(level)


async def test_2025_era_warnings_arrive_without_asking_and_debug_does_not(
    started: tuple[MCPServer, ClientLog],
) -> None:
    server, _ = started
    heard = Heard()
    async with Client(server, mode="legacy", logging_callback=heard) as client:
        assert client.server_capabilities.logging is not None, "the logging capability is declared"
        await client.call_tool("say", {"level": "debug", "text": "too small"})
        await client.call_tool("say", {"level": "warning", "text": "the broker went away"})
        await heard.wait_for(1)
        await asyncio.sleep(0.05)
    assert heard.texts() == [("warning", "the broker went away")]


async def test_2025_era_set_level_is_answered_and_honoured_per_connection(
    started: tuple[MCPServer, ClientLog],
) -> None:
    server, _ = started
    chatty, quiet = Heard(), Heard()
    async with (
        Client(server, mode="legacy", logging_callback=chatty) as one,
        Client(server, mode="legacy", logging_callback=quiet) as other,
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            assert (await one.set_logging_level("debug")).model_dump(exclude_none=True) == {}
            await other.set_logging_level("error")
        await one.call_tool("say", {"level": "debug", "text": "details"})
        await one.call_tool("say", {"level": "warning", "text": "careful"})
        await one.call_tool("say", {"level": "error", "text": "broken"})
        await chatty.wait_for(3)
        await quiet.wait_for(1)
        await asyncio.sleep(0.05)
    assert chatty.texts() == [("debug", "details"), ("warning", "careful"), ("error", "broken")]
    assert quiet.texts() == [("error", "broken")]


async def test_2025_era_nothing_is_sent_before_initialized_and_it_waits_until_then(
    started: tuple[MCPServer, ClientLog], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, _ = started
    gate = asyncio.Event()
    monkeypatch.setattr(client_log, "_initialized", lambda _connection: gate.is_set())
    heard = Heard()
    async with Client(server, mode="legacy", logging_callback=heard) as client:
        await client.call_tool("say", {"level": "warning", "text": "early"})
        await asyncio.sleep(0.1)
        assert heard.texts() == []
        gate.set()
        logging.getLogger(LOGGER).warning("later")  # wakes the sender: both go, in order
        await heard.wait_for(2)
    assert heard.texts() == [("warning", "early"), ("warning", "later")]


async def test_2025_era_a_flood_is_cut_to_the_budget_and_the_cut_is_said(
    started: tuple[MCPServer, ClientLog], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, _ = started
    # The budget's clock stands still unless the test moves it: a slow machine neither refills the budget
    # during the flood nor needs a real second's sleep after it.
    now = [1000.0]
    monkeypatch.setattr(client_log, "time", SimpleNamespace(monotonic=lambda: now[0]))
    heard = Heard()
    async with Client(server, mode="legacy", logging_callback=heard) as client:
        await client.call_tool("say", {"level": "info", "text": "prime"})  # initialized by now
        for number in range(BURST + 30):
            logging.getLogger(LOGGER).warning("flood %d", number)
        await heard.wait_for(BURST)
        now[0] += 1.2 / PER_SECOND
        logging.getLogger(LOGGER).warning("after the flood")
        await heard.wait_for(BURST + 1)
        await asyncio.sleep(0.05)
    texts = [text for _, text in heard.texts()]
    assert texts[:BURST] == [f"flood {n}" for n in range(BURST)]
    assert len(texts) <= BURST + 3, texts
    said = [m.data["message"] for m in heard.messages if m.logger == client_log.__name__]
    assert said and said[0].startswith("30 log message(s) were not sent"), said


async def test_2026_era_a_request_that_opts_in_hears_its_own_records_at_its_level(
    started: tuple[MCPServer, ClientLog],
) -> None:
    server, _ = started
    heard, deaf = Heard(), Heard()
    async with Client(server, mode="auto", log_level="warning", logging_callback=heard) as client:
        assert client.protocol_version == "2026-07-28"
        assert client.server_capabilities.logging is not None
        await client.call_tool("say", {"level": "debug", "text": "too small"})
        result = await client.call_tool("say", {"level": "warning", "text": "mind the door"})
        # Sent on the request's own stream before its answer: here when the call returns.
        assert heard.texts() == [("warning", "mind the door")]
        assert not result.is_error
        logging.getLogger(LOGGER).error("outside any request")
        await asyncio.sleep(0.1)
    async with Client(server, mode="auto", logging_callback=deaf) as client:  # no opt-in
        await client.call_tool("say", {"level": "error", "text": "unheard"})
    assert heard.texts() == [("warning", "mind the door")]
    assert deaf.texts() == []


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_real_server_declares_logging_and_answers_set_level(mode: str) -> None:
    server = build_server(load_settings(environ={"ZWAVE_MCP_MQTT_URL": "mqtt://127.0.0.1:1"}))
    async with Client(server, mode=mode) as client:
        assert client.server_capabilities.logging is not None
        if mode == "legacy":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                answer: Any = await client.set_logging_level("info")
            assert answer.model_dump(exclude_none=True) == {}


async def test_the_handler_stays_while_any_lifespan_uses_it() -> None:
    """An in-process server may serve several clients at once: the first to end leaves the log to the rest."""
    logs = ClientLog()
    logs.start()
    logs.start()
    await logs.stop()
    assert logs in logging.getLogger().handlers
    await logs.stop()
    assert logs not in logging.getLogger().handlers
