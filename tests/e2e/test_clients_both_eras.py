"""The SDK's own `Client` over stdio, in both protocol eras, against the real server as a subprocess.

`mode="legacy"` speaks the 2025 handshake era (`initialize`; elicitation mid-call; `resources/subscribe`);
`mode="auto"` negotiates 2026-07-28 (per-request envelope; questions as input-required results;
`subscriptions/listen`). Each era calls every tool, unlocks the Front Door Lock after the person said yes,
hears of a device change, and completes names; a client that declares no elicitation unlocks with a token.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import PromptReference, ResourceUpdatedNotification

from tests.e2e.test_server_stdio import CHECK_SCRIPT, SERVER, TOOLS, server_env
from tests.integration.mcp_harness import Answer, call, sim_value, wait_for_answer
from tests.integration.test_tools import create_scene
from zwave_mcp.simulator import FAST, Simulator, capture_config
from zwave_mcp.zwave.wire import value_key

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

MODES = ["legacy", "auto"]
UNLOCK = {"deviceName": "front door", "action": "unlock"}
QUESTION = (
    "Do you want to unlock Front Door Lock (Entry)? Confirmation is needed because it can unlock a door."
)
KITCHEN_URI = "zwave://devices/2"


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(config=capture_config("a", timing=FAST, periodic=False))


def params(mosquitto: Any, sim: Simulator, home: Path) -> StdioServerParameters:
    return StdioServerParameters(command=SERVER[0], args=SERVER[1:], env=server_env(mosquitto, sim, home))


class Person:
    """Answers every question with yes, and remembers what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def __call__(self, _context: Any, request: Any) -> mcp_types.ElicitResult:
        self.asked.append(request.message)
        return mcp_types.ElicitResult(action="accept", content={"confirm": True})


class Inbox:
    """Resource-updated notifications a handshake-era client received."""

    def __init__(self) -> None:
        self.uris: list[str] = []

    async def __call__(self, message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            self.uris.append(str(message.params.uri))


async def ready(client: Client) -> None:
    await wait_for_answer(client, "list_zwave_devices", {}, lambda a: not a.is_error, timeout=15)


async def lock(client: Client, sim: Simulator) -> None:
    locked = await call(client, "control_zwave_device", {"deviceName": "front door", "action": "lock"})
    assert locked.outcome == "confirmed" and sim_value(sim, 5, 98, "currentMode") == 255, locked.text


def kitchen_reports(sim: Simulator, on: bool) -> None:
    """The kitchen light reports a new state by itself (a press on the wall switch)."""
    node = sim.nodes[2]
    sim.set_value(node, node["values"][value_key(37, 0, "currentValue")], on)


async def hears_a_change(client: Client, sim: Simulator, mode: str, inbox: Inbox) -> None:
    on = not sim_value(sim, 2, 37, "currentValue")
    if mode == "legacy":
        with (
            warnings.catch_warnings()
        ):  # resources/subscribe is deprecated at 2026-07-28; this is the old era
            warnings.simplefilter("ignore")
            await client.subscribe_resource(KITCHEN_URI)
        kitchen_reports(sim, on)
        with anyio.fail_after(5):
            while KITCHEN_URI not in inbox.uris:
                await anyio.sleep(0.01)
        return
    async with client.listen(resource_subscriptions=[KITCHEN_URI]) as stream:
        kitchen_reports(sim, on)
        with anyio.fail_after(5):
            event = await stream.__anext__()
        assert getattr(event, "uri", None) == KITCHEN_URI, event


@pytest.mark.parametrize("mode", MODES)
async def test_every_tool_an_asked_unlock_notifications_and_completions(
    mosquitto: Any, sim: Simulator, tmp_path: Path, collector: Callable[..., Any], mode: str
) -> None:
    await create_scene(sim, collector, mosquitto)
    person, inbox = Person(), Inbox()
    with anyio.fail_after(90):
        async with Client(
            params(mosquitto, sim, tmp_path), mode=mode, elicitation_callback=person, message_handler=inbox
        ) as client:
            assert (client.protocol_version == "2026-07-28") is (mode == "auto"), client.protocol_version
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            await ready(client)
            answers: dict[str, Answer] = {}
            for tool, args in CHECK_SCRIPT["tool_args"].items():
                answers[tool] = await call(client, tool, args)
            failed = {tool: a.text for tool, a in answers.items() if a.is_error}
            assert not failed, failed
            assert set(answers) == TOOLS

            await lock(client, sim)
            unlocked = await call(client, "control_zwave_device", UNLOCK)
            assert person.asked == [QUESTION]
            assert unlocked.outcome == "confirmed", unlocked.text
            assert sim_value(sim, 5, 98, "currentMode") == 0, "the simulated lock is really unlocked"

            await hears_a_change(client, sim, mode, inbox)

            done = await client.complete(
                PromptReference(name="device_status"), {"name": "device", "value": "fro"}
            )
            assert done.completion.values == ["Front Door Lock"]
            read = await client.read_resource(KITCHEN_URI)
            assert json.loads(read.contents[0].text)["device"]["name"] == "Kitchen Light"


@pytest.mark.parametrize("mode", MODES)
async def test_a_client_that_cannot_ask_unlocks_with_a_token(
    mosquitto: Any, sim: Simulator, tmp_path: Path, mode: str
) -> None:
    with anyio.fail_after(60):
        async with Client(params(mosquitto, sim, tmp_path), mode=mode) as client:
            await ready(client)
            await lock(client, sim)
            asked = await call(client, "control_zwave_device", UNLOCK)
            assert asked.outcome == "needs_confirmation", asked.text
            assert sim_value(sim, 5, 98, "currentMode") == 255, "nothing happened before the yes"
            token = asked.result["confirmationToken"]
            done = await call(client, "control_zwave_device", {**UNLOCK, "confirmationToken": token})
            assert done.outcome == "confirmed", done.text
            assert sim_value(sim, 5, 98, "currentMode") == 0


class Heard:
    """The log notifications a client received."""

    def __init__(self) -> None:
        self.messages: list[mcp_types.LoggingMessageNotificationParams] = []

    async def __call__(self, params: mcp_types.LoggingMessageNotificationParams) -> None:
        self.messages.append(params)


@pytest.mark.parametrize("level", ["warning", "error"])
async def test_a_2026_request_that_opts_in_hears_the_warnings_of_its_own_handling(
    mosquitto: Any, sim: Simulator, tmp_path: Path, level: str
) -> None:
    """A yes to "unlock?" sent twice (the same request state replayed): the server warns while it handles
    the second call and asks again; a client that asked for warnings (`_meta` log level) hears it, over
    stdio, with that call; one that asked for errors only does not."""
    heard = Heard()
    with anyio.fail_after(60):
        async with Client(
            params(mosquitto, sim, tmp_path),
            mode="auto",
            log_level=level,  # type: ignore[arg-type]
            logging_callback=heard,
            elicitation_callback=Person(),
        ) as client:
            assert client.protocol_version == "2026-07-28"
            assert client.server_capabilities.logging is not None
            await ready(client)
            await lock(client, sim)
            asked = await client.session.call_tool("control_zwave_device", UNLOCK, allow_input_required=True)
            assert isinstance(asked, mcp_types.InputRequiredResult), asked
            yes = {
                key: mcp_types.ElicitResult(action="accept", content={"confirm": True})
                for key in asked.input_requests or {}
            }
            for again in range(2):
                if again:
                    await lock(client, sim)  # an unlocked door would need no yes at all
                await client.session.call_tool(
                    "control_zwave_device",
                    UNLOCK,
                    input_responses=yes,  # type: ignore[arg-type]
                    request_state=asked.request_state,
                    allow_input_required=True,
                )
            replayed = [
                m for m in heard.messages if m.data.get("message") == "request state replayed; asking again"
            ]
    if level == "warning":
        assert [(m.level, m.logger) for m in replayed] == [("warning", "zwave_mcp.server.asking")], (
            heard.messages
        )
    else:
        assert replayed == [] and all(m.level in ("error", "critical") for m in heard.messages), (
            heard.messages
        )
