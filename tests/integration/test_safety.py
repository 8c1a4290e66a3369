"""Issue 6, proven on the broker: read-only, confirmation tokens and elicitation, no topic injection, rate
limits, dry run, the audit log and secrets, against Mosquitto and the simulated captured house.

"Nothing was published" is checked with a subscriber on the whole broker (`#`), not with our own answers.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest

from tests.conftest import MessageCollector
from tests.integration.mcp_harness import (
    api_topic,
    call,
    connected,
    settings_for,
    sim_value,
    wait_for_answer,
    wait_until_healthy,
    wait_writes,
    writes,
)
from tests.integration.test_tools import HOUSE, create_scene
from zwave_mcp.gateway.api import CORRELATION_KEY
from zwave_mcp.server.tools import PUBLIC
from zwave_mcp.simulator import FAST, Simulator, capture_config

pytestmark = pytest.mark.integration

C = "control_zwave_device"
MUTATING_TOOLS = {spec.name for spec in PUBLIC if spec.mutating}
READ_ONLY_REFUSAL = (
    "{tool} is disabled: zwave-mcp runs in read-only mode (ZWAVE_MCP_READ_ONLY), so nothing can be switched "
    "or set. Reading devices still works."
)
# Plausible arguments for each action, so a refusal is never just a validation error.
ACTION_ARGS: dict[str, dict[str, Any]] = {
    "dim": {"level": 30},
    "set_level": {"level": "+10"},
    "set_position": {"position": 50},
    "set_temperature": {"value": 21},
    "set_mode": {"mode": "cool"},
    "set_color": {"color": "red"},
}


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(config=capture_config("a", timing=FAST, periodic=False))


@pytest.fixture
def broker_traffic(collector: Callable[[str], MessageCollector]) -> MessageCollector:
    """Everything on the broker, every prefix: an injected topic could not hide from this."""
    return collector("#")


def set_requests(messages: list[Any]) -> list[str]:
    """Every write a client sent: value `/set` topics and write API requests (`…/api/writeValue/set`).

    A read (`getInfo`, `getNodes`) is no write: the session's own start-up reads can land after the
    traffic is cleared on a loaded machine, and a dry run may still read."""
    from tests.unit.test_only_the_gate_writes import WRITE_APIS

    def is_write(topic: str) -> bool:
        if "/api/" in topic:
            return bool(WRITE_APIS.match(topic.rsplit("/", 2)[-2]))
        return topic.endswith("/set") or "writeValue" in topic

    return [f"{m.topic} {m.payload[:120]}" for m in messages if is_write(m.topic)]


async def lock_the_door(client: Any, sim: Simulator) -> None:
    answer = await call(client, C, {"deviceName": "front door", "action": "lock"})
    assert answer.outcome == "confirmed" and sim_value(sim, 5, 98, "currentMode") == 255, answer.text


# --- read-only --------------------------------------------------------------------------------------


async def test_read_only_lists_no_mutating_tool_and_publishes_nothing(
    mosquitto: Any, sim: Simulator, broker_traffic: MessageCollector
) -> None:
    async with connected(settings_for(mosquitto, sim, read_only=True)) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        assert listed.isdisjoint(MUTATING_TOOLS) and "list_zwave_devices" in listed
        broker_traffic.clear()
        attempts = 0
        for name, (_room, actions) in HOUSE.items():
            for action in actions:
                args = {"deviceName": name, "action": action, **ACTION_ARGS.get(action, {})}
                for tool_args in (args, {**args, "confirmationToken": "A" * 22}):
                    answer = await call(client, C, tool_args)
                    assert answer.error == READ_ONLY_REFUSAL.format(tool=C), (tool_args, answer.text)
                    attempts += 1
        scene = await call(client, "activate_zwave_scene", {"scene": "Evening"})
        assert scene.error == READ_ONLY_REFUSAL.format(tool="activate_zwave_scene")
        assert attempts == 2 * sum(len(actions) for _room, actions in HOUSE.values()) > 40
        # Reads still work, and their own API request proves the collector was listening all along.
        state = await call(
            client,
            "get_device_sensor_data",
            {"deviceName": "coffee maker", "refresh": True, "maxAgeSeconds": 0},
        )
        assert not state.is_error
        broker_traffic.wait_for(
            lambda m: m.topic.endswith("/api/pollValue/set"), what="the refresh's pollValue"
        )
    # Only reads went out: the refresh's pollValue (and the start-up getInfo/getNodes, which a `#`
    # subscriber may still be receiving behind the broker's replay of every retained topic).
    reads = {api_topic(sim, api) for api in ("getInfo", "getNodes", "pollValue")}
    published = {
        m.topic for m in broker_traffic.snapshot() if m.topic.endswith("/set") or "writeValue" in m.topic
    }
    assert api_topic(sim, "pollValue") in published and published <= reads, published - reads


# --- confirmation tokens ----------------------------------------------------------------------------


async def test_unlock_needs_a_token_that_works_once(
    mosquitto: Any, sim: Simulator, collector: Callable[[str], MessageCollector]
) -> None:
    sent = collector(api_topic(sim, "writeValue"))
    async with connected(settings_for(mosquitto, sim)) as client:
        await lock_the_door(client, sim)
        asked = await call(client, C, {"deviceName": "front door", "action": "unlock"})
        assert asked.outcome == "needs_confirmation" and not asked.is_error
        token = asked.result["confirmationToken"]
        assert sim_value(sim, 5, 98, "currentMode") == 255

        done = await call(
            client, C, {"deviceName": "front door", "action": "unlock", "confirmationToken": token}
        )
        assert done.outcome == "confirmed", done.text
        assert sim_value(sim, 5, 98, "currentMode") == 0, "the simulated door is really unlocked"
        assert [value for _vid, value in wait_writes(sent, 2)] == [255, 0], "the ask itself sent nothing"

        await lock_the_door(client, sim)
        again = await call(
            client, C, {"deviceName": "front door", "action": "unlock", "confirmationToken": token}
        )
        assert again.error == (
            "That confirmation token was already used (for unlock Front Door Lock (Entry)) and works only once, "
            "so nothing was done; ask for the action again without a token to get a new one."
        )
        guessed = await call(
            client, C, {"deviceName": "front door", "action": "unlock", "confirmationToken": "A" * 22}
        )
        assert guessed.error == (
            "That confirmation token is not one this server issued (tokens are forgotten on restart), so nothing "
            "was done; ask for the action again without a token to get a new one."
        )
        # A fresh token for the door, presented for the thermostat at a value that needs confirmation.
        other = (await call(client, C, {"deviceName": "front door", "action": "unlock"})).result[
            "confirmationToken"
        ]
        hot = await call(
            client,
            C,
            {
                "deviceName": "thermostat",
                "action": "set_temperature",
                "value": 29,
                "confirmationToken": other,
            },
        )
        assert hot.error == (
            "That confirmation token was issued for unlock Front Door Lock (Entry), not for this device, action and "
            "value, so nothing was done and the token is now cancelled; ask for the action you want without a "
            "token to get a new one."
        )
        assert sim_value(sim, 6, 67, "setpoint", key=1) == 20
        after = await call(
            client, C, {"deviceName": "front door", "action": "unlock", "confirmationToken": other}
        )
        assert after.is_error, "a token replayed for another device is cancelled for its own device too"
    assert sim_value(sim, 5, 98, "currentMode") == 255
    assert [value for _vid, value in wait_writes(sent, 3)] == [255, 0, 255]


async def test_an_expired_token_is_refused(mosquitto: Any, sim: Simulator) -> None:
    ttl = 0.3
    async with connected(settings_for(mosquitto, sim, confirm_token_ttl=ttl)) as client:
        await lock_the_door(client, sim)
        asked = await call(client, C, {"deviceName": "front door", "action": "unlock"})
        assert asked.result["expiresInSeconds"] == ttl
        await anyio.sleep(ttl + 0.1)  # expiry is a matter of time: nothing to wait on but the clock
        late = await call(
            client,
            C,
            {
                "deviceName": "front door",
                "action": "unlock",
                "confirmationToken": asked.result["confirmationToken"],
            },
        )
        assert late.error == (
            "That confirmation token expired (tokens last 0.3 s), so nothing was done; ask for the action again "
            "without a token to get a new one."
        )
    assert sim_value(sim, 5, 98, "currentMode") == 255


async def test_forbidden_sensitive_actions_are_refused(mosquitto: Any, sim: Simulator) -> None:
    async with connected(settings_for(mosquitto, sim, forbid_sensitive=True)) as client:
        await lock_the_door(client, sim)
        refused = await call(client, C, {"deviceName": "front door", "action": "unlock"})
        assert refused.error == (
            "Refused to unlock Front Door Lock (Entry): it can unlock a door, and sensitive actions are switched "
            "off by policy (ZWAVE_MCP_FORBID_SENSITIVE); do it at the device itself instead."
        )
    assert sim_value(sim, 5, 98, "currentMode") == 255


# --- elicitation ------------------------------------------------------------------------------------


def answering(action: str, prompts: list[str]) -> Any:
    async def elicit(_context: Any, params: Any) -> mcp_types.ElicitResult:
        prompts.append(params.message)
        content = {"confirm": True} if action == "accept" else None
        return mcp_types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]

    return elicit


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("action", ["accept", "decline", "cancel"])
async def test_elicitation_accept_unlocks_decline_does_not(
    mosquitto: Any, sim: Simulator, action: str, mode: str
) -> None:
    """Both eras ask the person natively: "legacy" by `elicitation/create` mid-call, "auto" (2026-07-28) by
    an input-required result the client answers on its retry."""
    prompts: list[str] = []
    async with connected(
        settings_for(mosquitto, sim), elicitation_callback=answering(action, prompts), mode=mode
    ) as client:
        assert (client.protocol_version == "2026-07-28") is (mode == "auto")
        await lock_the_door(client, sim)
        answer = await call(client, C, {"deviceName": "front door", "action": "unlock"})
    assert prompts == [
        "Do you want to unlock Front Door Lock (Entry)? Confirmation is needed because it can unlock a door."
    ]
    if action == "accept":
        assert answer.outcome == "confirmed" and sim_value(sim, 5, 98, "currentMode") == 0
    else:
        word = "declined" if action == "decline" else "cancelled"
        assert answer.outcome == "declined" and answer.text == (
            f"Did not unlock Front Door Lock (Entry): the person {word} the confirmation."
        )
        assert sim_value(sim, 5, 98, "currentMode") == 255


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_client_without_elicitation_gets_a_token(mosquitto: Any, sim: Simulator, mode: str) -> None:
    async with connected(settings_for(mosquitto, sim), mode=mode) as client:
        await lock_the_door(client, sim)
        answer = await call(client, C, {"deviceName": "front door", "action": "unlock"})
        assert answer.outcome == "needs_confirmation" and answer.result["confirmationToken"]
        assert sim_value(sim, 5, 98, "currentMode") == 255
        done = await call(
            client,
            C,
            {
                "deviceName": "front door",
                "action": "unlock",
                "confirmationToken": answer.result["confirmationToken"],
            },
        )
        assert done.outcome == "confirmed" and sim_value(sim, 5, 98, "currentMode") == 0


async def test_an_elicitation_error_falls_back_on_a_token(mosquitto: Any, sim: Simulator) -> None:
    """A client that declared elicitation but answers the request with an error still gets a way through."""

    async def failing(_context: Any, _params: Any) -> mcp_types.ErrorData:
        return mcp_types.ErrorData(code=-32603, message="no user here")

    async with connected(settings_for(mosquitto, sim), elicitation_callback=failing, mode="legacy") as client:
        await lock_the_door(client, sim)
        answer = await call(client, C, {"deviceName": "front door", "action": "unlock"})
    assert answer.outcome == "needs_confirmation" and answer.result["confirmationToken"]
    assert sim_value(sim, 5, 98, "currentMode") == 255


# --- injection --------------------------------------------------------------------------------------

LONG = "x" * 10_000
EVIL_NAMES: list[tuple[str, str]] = [
    (
        "kitchen/#",
        "'kitchen/#' matches 2 devices: Kitchen Light (Kitchen), Coffee Maker Plug (Kitchen). Say which one. "
        "To change all 2 kitchen devices, use control_zwave_group with target 'kitchen devices'.",
    ),
    ("+", "No device named '+'."),
    ("#", "No device named '#'."),
    ("zwave/+/set", "No device named 'zwave/+/set'."),
    (
        "kitchen\u0000light",
        "Parameter 'deviceName' contains the control character U+0000 at position 8; use plain text.",
    ),
    (LONG, "Parameter 'deviceName' is too long: at most 200 characters."),
]
EVIL_VALUES: list[tuple[dict[str, Any], str]] = [
    (
        {"deviceName": "living room lamp", "action": "dim", "level": "#"},
        "Living Room Lamp level must be a number, or a change like +10 or -20; got '#'.",
    ),
    (
        {"deviceName": "living room lamp", "action": "dim", "level": LONG},
        f"Living Room Lamp level must be a number, or a change like +10 or -20; got '{'x' * 59}…'.",
    ),
    (
        {"deviceName": "thermostat", "action": "set_mode", "mode": "heat/#"},
        "Hallway Thermostat has no mode 'heat/#'; it has: Off, Heat, Cool, Auto.",
    ),
    (
        {"deviceName": "thermostat", "action": "set_mode", "value": "+"},
        "Hallway Thermostat has no mode '+'; it has: Off, Heat, Cool, Auto.",
    ),
    (
        {"deviceName": "thermostat", "action": "set_mode", "mode": LONG},
        "Parameter 'mode' is too long: at most 40 characters.",
    ),
    (
        {"deviceName": "bedroom color bulb", "action": "set_color", "color": "red\u0000"},
        "Parameter 'color' contains the control character U+0000 at position 4; use plain text.",
    ),
    (
        {"deviceName": "bedroom color bulb", "action": "set_color", "color": "#/+"},
        "Bedroom Color Bulb cannot be set to '#/+'; give a colour name like red or warm white, or a hex code like #ff5000.",
    ),
    (
        {"deviceName": "front door", "action": "unlock", "confirmationToken": "#/+\u0000"},
        "That confirmation token is not one this server issued (tokens are forgotten on restart), so nothing was "
        "done; ask for the action again without a token to get a new one.",
    ),
    (
        {"deviceName": "front door", "action": "unlock", "confirmationToken": LONG},
        "Parameter 'confirmationToken' is too long: at most 200 characters.",
    ),
]


async def test_injected_names_and_values_never_reach_a_topic(
    mosquitto: Any, sim: Simulator, broker_traffic: MessageCollector
) -> None:
    wrong: list[str] = []
    async with connected(settings_for(mosquitto, sim)) as client:
        await lock_the_door(client, sim)  # a token is looked at only when the unlock would change something
        broker_traffic.wait_for(lambda m: m.topic.endswith("/api/writeValue/set"), what="the lock's write")
        broker_traffic.clear()
        calls: list[tuple[str, dict[str, Any], str]] = []
        for name, expected in EVIL_NAMES:
            calls += [(C, {"deviceName": name, "action": "on"}, expected)]
            # A read names no group tool: only a change says how to change them all.
            calls += [("get_device_state", {"deviceName": name}, expected.split(" To change all ")[0])]
        calls += [(C, args, expected) for args, expected in EVIL_VALUES]
        calls += [
            ("activate_zwave_scene", {"scene": "#"}, "No scene named '#'. The scenes are: none."),
            (
                "activate_zwave_scene",
                {"scene": LONG},
                "Parameter 'scene' is too long: at most 200 characters.",
            ),
            (
                "list_zwave_devices",
                {"filter": LONG},
                "Parameter 'filter' is too long: at most 200 characters.",
            ),
        ]
        for tool, args, expected in calls:
            started = time.perf_counter()
            answer = await call(client, tool, args)
            took = time.perf_counter() - started
            if not answer.is_error or answer.text != expected or took > 1.0:
                wrong.append(
                    f"{tool} {str(args)[:80]}: {answer.text[:200]!r} in {took:.2f} s; expected {expected[:200]!r}"
                )
        # The slash in a name is punctuation to the resolver: it finds the kitchen light through the
        # inventory, and the topic is zwave-js-ui's API topic, never the text that was typed.
        slash = await call(client, C, {"deviceName": "kitchen/light", "action": "on"})
        assert slash.outcome == "confirmed" and sim_value(sim, 2, 37, "currentValue") is True
        broker_traffic.wait_for(lambda m: m.topic.endswith("/api/writeValue/set"), what="the one real write")
    assert not wrong, "\n".join(wrong)
    requests = [m for m in broker_traffic.snapshot() if m.topic.endswith("/set")]
    # Every request went to one of zwave-js-ui's fixed API topics (the collector may still be delivering
    # the start-up getInfo/getNodes: a `#` subscription first replays every retained topic on the broker).
    apis = {api_topic(sim, api) for api in ("getInfo", "getNodes", "writeValue", "pollValue", "_getScenes")}
    assert {m.topic for m in requests} <= apis, {m.topic for m in requests} - apis
    assert [arg for _vid, arg in writes(requests)] == [True]
    for message in broker_traffic.snapshot():
        for needle in ("#", "+", "\u0000", "x" * 200, "kitchen/light", "heat/"):
            assert needle not in message.topic, message.topic
        assert "x" * 200 not in message.payload and "\\u0000" not in message.payload


# --- rate limits, dry run, audit ------------------------------------------------------------------


async def test_rate_limit_says_when_to_retry(
    mosquitto: Any, sim: Simulator, collector: Callable[[str], MessageCollector]
) -> None:
    sent = collector(api_topic(sim, "writeValue"))
    async with connected(settings_for(mosquitto, sim, rate_limit_device=2)) as client:
        for _ in range(2):
            assert (
                await call(client, C, {"deviceName": "kitchen light", "action": "toggle"})
            ).outcome == "confirmed"
        refused = await call(client, C, {"deviceName": "kitchen light", "action": "toggle"})
        assert refused.error == (
            "Refused to turn on Kitchen Light (Kitchen): Kitchen Light (Kitchen) already had 2 commands in "
            "the last 60 s (the limit per device); try again in 60 s."
        )
        other = await call(client, C, {"deviceName": "coffee maker", "action": "on"})
        assert other.outcome == "confirmed", "the limit is per device"
    assert [vid["nodeId"] for vid, _value in wait_writes(sent, 3)] == [2, 2, 8]


async def test_dry_run_answers_with_the_exact_message_and_publishes_nothing(
    mosquitto: Any,
    sim: Simulator,
    simulator_factory: Callable[..., Simulator],
    broker_traffic: MessageCollector,
) -> None:
    async with connected(settings_for(mosquitto, sim, dry_run=True)) as client:
        broker_traffic.clear()
        dry = await call(client, C, {"deviceName": "kitchen light", "action": "on"})
        assert dry.outcome == "dry_run"
        assert dry.text == "Dry run: would turn on Kitchen Light by sending 1 MQTT message; nothing was sent."
        dim = await call(client, C, {"deviceName": "living room lamp", "action": "dim", "level": 30})
        assert dim.outcome == "dry_run"
        await wait_until_healthy(client)
        assert set_requests(broker_traffic.snapshot()) == []
        assert sim_value(sim, 2, 37, "currentValue") is False
    # The same command for real, on a second house: what goes out is what the dry run said.
    real_sim = simulator_factory(config=capture_config("a", timing=FAST, periodic=False))
    async with connected(settings_for(mosquitto, real_sim)) as client:
        broker_traffic.clear()
        assert (await call(client, C, {"deviceName": "kitchen light", "action": "on"})).outcome == "confirmed"
    sent = broker_traffic.wait_for(lambda m: m.topic.endswith("/api/writeValue/set"), what="the real write")
    payload = sent.json()
    payload.pop(CORRELATION_KEY)  # a fresh id per request, by design
    prefix_of = {sim.config.prefix: real_sim.config.prefix}
    (would,) = dry.result["wouldSend"]
    assert would["topic"].replace(sim.config.prefix, prefix_of[sim.config.prefix], 1) == sent.topic
    assert would["payload"] == payload


async def test_audit_lines_for_every_decision(
    mosquitto: Any, sim: Simulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="zwave_mcp.audit")
    async with connected(settings_for(mosquitto, sim)) as client:
        await call(client, C, {"deviceName": "front door", "action": "lock"})
        token = (await call(client, C, {"deviceName": "front door", "action": "unlock"})).result[
            "confirmationToken"
        ]
        await call(client, C, {"deviceName": "front door", "action": "unlock", "confirmationToken": token})
        await call(client, C, {"deviceName": "front door", "action": "unlock", "confirmationToken": token})
        await lock_the_door(client, sim)
        await call(client, C, {"deviceName": "front door", "action": "unlock", "confirmationToken": token})
        sim.kill_node(2)
        await wait_for_answer(
            client, "verify_device", {"deviceName": "kitchen light"}, lambda a: not a.result["ready"]
        )
        await call(client, C, {"deviceName": "kitchen light", "action": "on"})
        # A value the device cannot take: refused before anything is sent, not a failure (issue 43 item 19).
        await call(client, C, {"deviceName": "thermostat", "action": "set_mode", "mode": "sauna"})
    records = [r for r in caplog.records if r.name == "zwave_mcp.audit"]
    lines = [(r.tool, r.action, getattr(r, "device", None), r.outcome) for r in records]  # type: ignore[attr-defined]
    assert lines == [
        (C, "lock", "Front Door Lock (Entry)", "confirmed"),
        (C, "unlock", "Front Door Lock (Entry)", "needs_confirmation"),
        (C, "unlock", "Front Door Lock (Entry)", "confirmed"),
        (C, "unlock", "Front Door Lock (Entry)", "unchanged"),  # already unlocked: nothing asked or sent
        (C, "lock", "Front Door Lock (Entry)", "confirmed"),
        (C, "unlock", "Front Door Lock (Entry)", "refused"),
        (C, "on", "Kitchen Light (Kitchen)", "failed"),
        (C, "set_mode", None, "refused"),
    ]
    assert records[2].confirmed_by == "token"  # type: ignore[attr-defined]
    assert "already used" in records[5].reason and "did not accept" in records[6].reason  # type: ignore[attr-defined]
    assert records[7].reason == "Hallway Thermostat has no mode 'sauna'; it has: Off, Heat, Cool, Auto."  # type: ignore[attr-defined]


# --- secrets ----------------------------------------------------------------------------------------

PASSWORD = "Sup3r-S3cret-pw"


async def _rpc(
    proc: asyncio.subprocess.Process, rid: int, method: str, params: dict[str, Any] | None
) -> dict[str, Any]:
    assert proc.stdin is not None and proc.stdout is not None
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    await proc.stdin.drain()
    while True:
        line = await asyncio.wait_for(proc.stdout.readline(), 15)
        assert line, "the server closed stdout"
        reply = json.loads(line)
        if reply.get("id") == rid:
            return dict(reply)


# On the embedded amqtt broker a subprocess server logging at debug level never finishes its first load
# (seen, not yet understood; every other subprocess test loads there): Mosquitto runs this one.
@pytest.mark.mosquitto_only
async def test_the_mqtt_password_never_appears_in_what_the_server_writes(
    mosquitto: Any, sim: Simulator, tmp_path: Path
) -> None:
    url = f"mqtt://zwuser:{PASSWORD}@{mosquitto.host}:{mosquitto.port}"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "ZWAVE_MCP_MQTT_URL": url,
        "ZWAVE_MCP_PREFIX": sim.config.prefix,
        "ZWAVE_MCP_LOG_LEVEL": "debug",
        "ZWAVE_MCP_CONFIRM_TIMEOUT": "2",
    }
    stderr_path = tmp_path / "stderr.txt"
    stdout = b""
    with stderr_path.open("wb") as stderr:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "zwave_mcp",
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
        )
        try:
            init = {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            }
            await _rpc(proc, 1, "initialize", init)
            assert proc.stdin is not None
            proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            # A bound, not a budget: on the embedded broker the first MQTT 5 attempt costs its 5 s timeout.
            deadline = time.monotonic() + 30
            rid = 2
            while True:
                rid += 1
                health = await _rpc(proc, rid, "tools/call", {"name": "check_zwave_health", "arguments": {}})
                if health["result"]["structuredContent"]["result"]["healthy"]:
                    break
                assert time.monotonic() < deadline, health
                await asyncio.sleep(0.05)
            calls = [
                {"name": C, "arguments": {"deviceName": "kitchen light", "action": "on"}},
                {"name": C, "arguments": {"deviceName": "front door", "action": "unlock"}},
                {"name": C, "arguments": {"deviceName": "zebra", "action": "on", "password": PASSWORD}},
                {"name": "list_zwave_devices", "arguments": {"limit": "x"}},
            ]
            for params in calls:
                rid += 1
                await _rpc(proc, rid, "tools/call", params)
            assert sim_value(sim, 2, 37, "currentValue") is True, "the server really worked with that URL"
            proc.stdin.close()
            stdout = await asyncio.wait_for(proc.stdout.read(), 15)  # type: ignore[union-attr]
            assert await asyncio.wait_for(proc.wait(), 15) == 0
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    config = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "zwave_mcp",
        "config",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    config_out, config_err = await asyncio.wait_for(config.communicate(), 30)
    written = {"stdout": stdout, "stderr": stderr_path.read_bytes(), "config": config_out + config_err}
    assert len(written["stderr"]) > 1000, "debug logging wrote something to search"
    assert b"zwuser" in written["config"], "the config output shows the (redacted) URL"
    for where, data in written.items():
        assert PASSWORD.encode() not in data, f"the password appears in {where}"


async def test_dry_run_scene_shows_its_message_and_activates_nothing(
    mosquitto: Any,
    sim: Simulator,
    collector: Callable[[str], MessageCollector],
    broker_traffic: MessageCollector,
) -> None:
    await create_scene(sim, collector, mosquitto)
    async with connected(settings_for(mosquitto, sim, dry_run=True)) as client:
        broker_traffic.clear()
        dry = await call(client, "activate_zwave_scene", {"scene": "evening"})
        await wait_until_healthy(client)
        assert (
            dry.text == "Dry run: would activate scene 'Evening' by sending 1 MQTT message; nothing was sent."
        )
        (would,) = dry.result["wouldSend"]
        assert would["topic"] == api_topic(sim, "_activateScene")
        assert would["payload"] == {"args": [1]}
        assert [r for r in set_requests(broker_traffic.snapshot()) if "_activateScene" in r] == []
        assert sim_value(sim, 2, 37, "currentValue") is False
