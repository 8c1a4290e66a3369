"""`zwave-mcp demo`: a simulated Z-Wave home driven through the real server, as an MCP client would.

A broker (Mosquitto when installed, else amqtt in-process) and the zwave-js-ui simulator run here; the server
runs as a stdio subprocess (`python -m zwave_mcp`) and is driven with the MCP SDK's stdio client through a
short scripted conversation. stdout gets only the transcript; the server's stderr goes to a temporary log
shown (its tail) only when something fails. `--serve` keeps the broker and simulator running instead and
prints the Claude Desktop entry that points at them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from zwave_mcp.devices.build import build_devices, is_user_node
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.logs import is_secret_name
from zwave_mcp.simulator.admin import NewDevice
from zwave_mcp.simulator.broker import HOST, EmbeddedBroker, MosquittoBroker, find_mosquitto
from zwave_mcp.simulator.house import CAPTURED_WITH_LOCKS, Node, captured_scenes, load_house
from zwave_mcp.simulator.settings import RECORDED, SimConfig, Timing
from zwave_mcp.simulator.simulator import Simulator

log = logging.getLogger(__name__)

PREFIX = "zwave"
WIDTH = 100
READY_TIMEOUT_S = 15.0
LOG_TAIL_LINES = 30
# The recorded delays, brisker: ramps, second polls and replies keep their order but the demo takes seconds.
DEMO_TIMING: Timing = replace(
    RECORDED.scaled(0.3),
    driver_ready=0.3,
    wakeup_interval=5.0,  # the sleeping bedroom sensor wakes (and reports) every few seconds
    meter_interval=8.0,
    motion_interval=6.0,
    motion_clear=2.0,
)
EXIT_FAILED = 1
PASSED_THROUGH = ("PYTHONPATH", "XDG_CACHE_HOME", "XDG_STATE_HOME")
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class DemoError(Exception):
    """Something the person running the demo should read: printed as one clear message."""


# ---------------------------------------------------------------------------------------------- the home
def house_size(nodes: Iterable[dict[str, Any]]) -> str:
    """The house's size ("11 devices on 10 nodes"), counted as the server will list it (a two-channel
    switch is two devices; the controller and the Broadcast node are none), never written by hand."""
    parsed = [node for node in map(parse_node, nodes) if node is not None and is_user_node(node)]
    devices = len(build_devices(parsed))
    return f"{devices} device{'s' * (devices != 1)} on {len(parsed)} node{'s' * (len(parsed) != 1)}"


@dataclass
class Home:
    """A running broker and simulator. `close()` stops both and is safe to call more than once."""

    broker: MosquittoBroker | EmbeddedBroker
    broker_label: str
    simulator: Simulator | None = None
    admin: bool = False  # --admin: the network-care tools, and a new device waiting to be included

    @property
    def port(self) -> int:
        return self.broker.port

    @property
    def mqtt_url(self) -> str:
        return f"mqtt://{HOST}:{self.port}"

    @property
    def mqtt_version(self) -> str:
        return "5" if isinstance(self.broker, MosquittoBroker) else "3.1.1"  # amqtt speaks 3.1.1 only

    def server_env(self) -> dict[str, str]:
        env = {
            "ZWAVE_MCP_MQTT_URL": self.mqtt_url,
            "ZWAVE_MCP_PREFIX": PREFIX,
            "ZWAVE_MCP_MQTT_VERSION": self.mqtt_version,
            # A demo house's history is not the person's: keep it in memory, gone with the server.
            "ZWAVE_MCP_HISTORY_PATH": ":memory:",
        }
        if self.admin:
            env["ZWAVE_MCP_ADMIN"] = "true"
        return env

    def close(self) -> None:
        sim, self.simulator = self.simulator, None
        if sim is not None:
            with contextlib.suppress(Exception):
                sim.stop()
            with contextlib.suppress(Exception):
                sim.scheduler.stop()
        if isinstance(self.broker, MosquittoBroker):
            self.broker.close()
        else:
            self.broker.stop()


def make_broker(choice: str, port: int | None) -> tuple[MosquittoBroker | EmbeddedBroker, str]:
    """Mosquitto when asked for or found; else amqtt in this process. Returns the broker and its label."""
    mosquitto = find_mosquitto() if choice in ("auto", "mosquitto") else None
    if choice == "mosquitto" and mosquitto is None:
        raise DemoError("Mosquitto is not installed (not on PATH, not at /usr/sbin/mosquitto).")
    if mosquitto is not None:
        return MosquittoBroker(port=port, executable=mosquitto), f"Mosquitto ({mosquitto})"
    try:
        import amqtt  # noqa: F401  # a dependency of zwave-mcp: missing only from a broken install
    except ImportError:
        raise DemoError(
            "the demo needs an MQTT broker, and the embedded one (amqtt) is not installed: "
            "reinstall zwave-mcp, or install Mosquitto."
        ) from None
    return EmbeddedBroker(port=port), "embedded amqtt broker (in this process, MQTT 3.1.1)"


def start_home(
    broker_choice: str, port: int | None = None, admin: bool = False, house: list[Node] | None = None
) -> Home:
    """Broker, then the simulated zwave-js-ui with the captured house (or `house`, without the captured
    house's scenes). Stops what started if a step fails."""
    broker, label = make_broker(broker_choice, port)
    home = Home(broker, label, admin=admin)
    try:
        try:
            broker.start()
        except (OSError, TimeoutError, RuntimeError) as exc:
            raise DemoError(f"the MQTT broker did not start: {exc}") from exc
        config = SimConfig(prefix=PREFIX, timing=DEMO_TIMING)
        if house is None:
            # The captured house and the two keypad locks recorded later (users and PINs: issue 37).
            home.simulator = Simulator(HOST, home.port, CAPTURED_WITH_LOCKS, config, captured_scenes())
        else:
            home.simulator = Simulator(HOST, home.port, house, config)
        try:
            home.simulator.start(wait=False)
        except (OSError, TimeoutError) as exc:
            raise DemoError(f"the simulated zwave-js-ui could not connect to the broker: {exc}") from exc
    except BaseException:
        home.close()
        raise
    return home


def server_command() -> list[str]:
    """The venv's `zwave-mcp` script next to this interpreter when there is one, else `python -m zwave_mcp`."""
    script = Path(sys.executable).parent / "zwave-mcp"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script.absolute())]
    return [sys.executable, "-m", "zwave_mcp"]


# ---------------------------------------------------------------------------------------------- transcript
class Transcript:
    """Plain text on stdout, flushed line by line so a person sees the conversation as it happens."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def line(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def wrapped(self, label: str, text: str, indent: str = "  ") -> None:
        lead = f"{indent}{label}"
        self.line(
            textwrap.fill(
                text,
                width=WIDTH,
                initial_indent=lead,
                subsequent_indent=" " * len(lead),
                break_long_words=False,
                break_on_hyphens=False,
            )
        )


def _secret(key: str) -> bool:
    return is_secret_name(key) and key != "confirmationToken"  # the token is the answer's, shown there


def format_call(name: str, args: dict[str, Any]) -> str:
    """The call as the transcript shows it; a secret (a lock's PIN) is not printed."""
    shown = {k: "(not shown)" if _secret(k) and v is not None else v for k, v in args.items()}
    inner = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in shown.items())
    return f"{name}({inner})"


@dataclass
class ToolAnswer:
    text: str
    is_error: bool
    result: dict[str, Any]


def answer_of(reply: Any) -> ToolAnswer:
    texts = [block.text for block in reply.content if getattr(block, "type", None) == "text"]
    structured = reply.structured_content or {}
    result = structured.get("result") if isinstance(structured.get("result"), dict) else structured
    return ToolAnswer(" ".join(texts).strip() or "(no text)", bool(reply.is_error), result or {})


# ---------------------------------------------------------------------------------------------- the script
@dataclass
class Step:
    said: str  # what the person says
    tool: str
    args: dict[str, Any]
    expect: Callable[[ToolAnswer], bool]  # did the server answer as the script expects?
    before: Callable[[Home], None] | None = None  # something that happens in the house first
    narration: str | None = None


def _outcome(*wanted: str) -> Callable[[ToolAnswer], bool]:
    return lambda a: not a.is_error and a.result.get("outcome") in wanted


def _ok(a: ToolAnswer) -> bool:
    return not a.is_error


def _refused(a: ToolAnswer) -> bool:
    return a.is_error


def _pull_coffee_plug(home: Home) -> None:
    if home.simulator is not None:
        home.simulator.kill_node(8)  # Coffee Maker Plug in the captured house


SCRIPT: list[Step] = [
    Step("What devices do I have?", "list_zwave_devices", {}, _ok),
    Step(
        "Turn on the kitchen light.",
        "control_zwave_device",
        {"deviceName": "kitchen light", "action": "on"},
        _outcome("confirmed"),
    ),
    Step(
        "Dim the living room lamp to 30 %.",
        "control_zwave_device",
        {"deviceName": "living room lamp", "action": "dim", "level": 30},
        _outcome("confirmed"),
    ),
    Step(
        "Is anything on in the kitchen?",
        "list_zwave_devices",
        {"target": "kitchen", "state": "on"},
        _ok,
    ),
    Step(
        "Turn off the kitchen and the porch.",
        "control_zwave_group",
        {"target": "kitchen and porch", "action": "off"},
        _outcome("confirmed"),
    ),
    Step("Start Movie Night.", "activate_zwave_scene", {"scene": "movie night"}, _ok),
    Step("Which lights are on?", "list_zwave_devices", {"target": "lights", "state": "on"}, _ok),
    Step("How warm is it in the bedroom?", "get_device_sensor_data", {"deviceName": "bedroom sensor"}, _ok),
    Step("Is everything working?", "check_zwave_health", {}, lambda a: a.result.get("healthy") is True),
    Step(
        "Switch the bedroom sensor on.",
        "control_zwave_device",
        {"deviceName": "bedroom sensor", "action": "on"},
        _refused,
    ),
    Step(
        "Lock the front door.",
        "control_zwave_device",
        {"deviceName": "front door", "action": "lock"},
        _outcome("confirmed"),
    ),
]
UNLOCK = {"deviceName": "front door", "action": "unlock"}
DEAD_NODE = Step(
    "Turn on the coffee maker.",
    "control_zwave_device",
    {"deviceName": "coffee maker", "action": "on"},
    lambda a: a.result.get("outcome") != "confirmed",
    before=_pull_coffee_plug,
    narration="(In the simulated house, the coffee maker's plug stops answering: a dead node.)",
)
WHO_MAY = Step("Who has a code for the side door?", "manage_lock_users", {"deviceName": "side door"}, _ok)
# The dog walker's PIN, as the person would type it; the transcript and every answer leave it out.
ADD_CODE = {"deviceName": "side door", "action": "add", "name": "Dog Walker", "pin": "2580"}
WHO_CAME_IN = Step(
    "Who came in the side door?",
    "get_last_event",
    {"deviceName": "side door"},
    lambda a: not a.is_error and "by Dog Walker (user 4)" in a.text,
)
NEW_DEVICE = NewDevice(name="Hallway Motion", location="Hallway")
NEW_DEVICE_DETAILS = Step(
    "What security and firmware does the new sensor have?",
    "get_zwave_node_details",
    {"deviceName": "hallway motion"},
    lambda a: a.result.get("security") == "S2 authenticated",
)
HEALTH_AFTER = Step(
    "Is everything still working?",
    "check_zwave_health",
    {},
    lambda a: a.result.get("healthy") is False and "dead" in a.text,
)


class Conversation:
    """Drives the server through the script, printing each turn; counts the turns that went off-script."""

    def __init__(self, client: Any, home: Home, transcript: Transcript) -> None:
        self.client = client
        self.home = home
        self.t = transcript
        self.off_script: list[str] = []
        self.calls = 0

    async def call(self, name: str, args: dict[str, Any]) -> ToolAnswer:
        self.calls += 1
        started = time.perf_counter()
        answer = answer_of(await self.client.call_tool(name, args))
        took_ms = (time.perf_counter() - started) * 1000
        self.t.line(f"  [tool] {format_call(name, args)}  {took_ms:.0f} ms")
        self.t.wrapped("Assistant: ", answer.text)
        return answer

    def check(self, step: str, ok: bool) -> None:
        if not ok:
            self.off_script.append(step)
            self.t.line("  (not what the script expected)")

    async def say(self, step: Step) -> ToolAnswer:
        if step.before is not None:
            step.before(self.home)
        if step.narration:
            self.t.line(step.narration)
        self.t.line(f"You: {step.said}")
        answer = await self.call(step.tool, step.args)
        self.check(step.said, step.expect(answer))
        self.t.line()
        return answer

    async def unlock_with_confirmation(self) -> None:
        self.t.line("You: Unlock the front door.")
        asked = await self.call("control_zwave_device", UNLOCK)
        token = asked.result.get("confirmationToken")
        self.check("unlock the front door", asked.result.get("outcome") == "needs_confirmation")
        self.t.line()
        if not isinstance(token, str):
            return
        self.t.line("You: Yes, I'm at the door: unlock it.")
        done = await self.call("control_zwave_device", {**UNLOCK, "confirmationToken": token})
        self.check("confirm the unlock", done.result.get("outcome") == "confirmed")
        self.t.line()

    async def run(self) -> None:
        for step in SCRIPT:
            await self.say(step)
        await self.unlock_with_confirmation()
        await self.say(WHO_MAY)
        await self.add_a_code()
        await self.who_came_in()
        await self.say(DEAD_NODE)
        await self.say(HEALTH_AFTER)
        if self.home.admin:
            await self.include_a_device()

    async def add_a_code(self) -> None:
        """A code for the dog walker on the keypad lock: asked, agreed, then the lock's users read again."""
        self.t.line("(The dog walker's code is typed in with the request; no transcript or answer shows it.)")
        self.t.line("You: Add a code for the dog walker on the side door.")
        asked = await self.call("manage_lock_users", ADD_CODE)
        token = asked.result.get("confirmationToken")
        self.check("add a code", asked.result.get("outcome") == "needs_confirmation")
        self.t.line()
        if not isinstance(token, str):
            return
        self.t.line("You: Yes, give the dog walker that code.")
        done = await self.call("manage_lock_users", {**ADD_CODE, "confirmationToken": token})
        self.check("confirm the new code", done.result.get("outcome") == "confirmed")
        self.t.line()

    async def who_came_in(self) -> None:
        """The dog walker types the new code at the side door: the keypad unlock is said by name."""
        sim = self.home.simulator
        if sim is not None:
            sim.lock_event(13, "keypad_unlock", 4)  # user 4: the dog walker, added just before
        self.t.line("(In the simulated house, the dog walker types their code at the side door.)")
        self.t.line(f"You: {WHO_CAME_IN.said}")
        deadline = time.monotonic() + 3.0
        while True:  # the event travels over MQTT: ask again until the server has heard it (bounded)
            answer = answer_of(await self.client.call_tool(WHO_CAME_IN.tool, WHO_CAME_IN.args))
            if WHO_CAME_IN.expect(answer) or time.monotonic() > deadline:
                break
            await anyio.sleep(0.05)
        self.calls += 1
        self.t.line(f"  [tool] {format_call(WHO_CAME_IN.tool, WHO_CAME_IN.args)}")
        self.t.wrapped("Assistant: ", answer.text)
        self.check(WHO_CAME_IN.said, WHO_CAME_IN.expect(answer))
        self.t.line()

    async def include_a_device(self) -> None:
        """--admin: a new sensor joins with S2 security, the PIN read off its label (the two-step flow)."""
        sim = self.home.simulator
        device = sim.admin.press_button(NEW_DEVICE) if sim is not None else NEW_DEVICE
        self.t.line(
            f"(A new motion sensor is unpacked and its button pressed; its label reads DSK {device.dsk}.)"
        )
        self.t.line("You: Add the new motion sensor in the hallway, securely.")
        args = {"security": "s2", "name": device.name, "location": device.location}
        asked = await self.call("start_zwave_inclusion", args)
        token = asked.result.get("confirmationToken")
        self.check("start the inclusion", isinstance(token, str))
        self.t.line()
        self.t.line("You: Yes, go ahead.")
        grant = await self.call("start_zwave_inclusion", {**args, "confirmationToken": token})
        self.check("the security question", grant.result.get("pending") == "grant")
        self.t.line()
        self.t.line("You: Yes, grant it.")
        pin = await self.call("answer_zwave_inclusion", {"grant": True})
        self.check("the PIN question", pin.result.get("pending") == "pin")
        self.t.line()
        self.t.line(f"You: The PIN is {device.pin}.")
        done = await self.call("answer_zwave_inclusion", {"pin": device.pin})
        self.check("the inclusion", done.result.get("phase") == "interview_completed")
        self.t.line()
        await self.say(NEW_DEVICE_DETAILS)


async def wait_until_ready(client: Any, timeout: float) -> ToolAnswer:
    """Poll check_zwave_health until the gateway is healthy; the last answer either way."""
    deadline = time.monotonic() + timeout
    while True:
        answer = answer_of(await client.call_tool("check_zwave_health", {}))
        if answer.result.get("healthy") is True or time.monotonic() >= deadline:
            return answer
        await anyio.sleep(0.1)


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no server log)"
    tail = text.splitlines()[-lines:]
    return "\n".join(tail) if tail else "(the server wrote nothing to stderr)"


def innermost(exc: BaseException) -> BaseException:
    """The first real error inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


async def converse(
    home: Home, transcript: Transcript, server_log: TextIO, ready_timeout: float = READY_TIMEOUT_S
) -> None:
    """Start the server subprocess, initialize, list tools, wait for the gateway, run the script."""
    command = server_command()
    env = home.server_env()
    # The SDK passes the child only a safe subset of the environment: add where Python finds the code,
    # and where the person keeps caches and state, so the server's tool-list cache lands there too.
    for name in PASSED_THROUGH:
        if name in os.environ:
            env[name] = os.environ[name]
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    transcript.line(f"  MCP server    {' '.join(command)} (stdio subprocess, started by the MCP client)")
    transcript.line()
    started = time.monotonic()
    # mode="legacy": the initialize handshake, as Claude Desktop and other clients do it today.
    async with Client(stdio_client(params, errlog=server_log), mode="legacy") as client:
        info = client.server_info
        name = f"{info.name} {info.version}" if info is not None else "the server"
        tools = (await client.list_tools()).tools
        transcript.wrapped(
            "",
            f"Connected to {name} (MCP {client.protocol_version}); {len(tools)} tools: "
            + ", ".join(t.name for t in tools)
            + ".",
            indent="",
        )
        health = await wait_until_ready(client, ready_timeout)
        if health.result.get("healthy") is not True:
            advice = " ".join(health.result.get("advice") or [])
            transcript.wrapped(
                "",
                f"zwave-js-ui did not become ready within {ready_timeout:g} s, so the demo stops here. "
                f"The server says: {health.text} {advice}".strip(),
                indent="",
            )
            raise DemoError(f"the simulated zwave-js-ui did not become ready within {ready_timeout:g} s")
        transcript.line(
            f"zwave-js-ui is ready ({time.monotonic() - started:.1f} s after the server started)."
        )
        transcript.line()
        conversation = Conversation(client, home, transcript)
        await conversation.run()
    if conversation.off_script:
        raise DemoError(
            f"{len(conversation.off_script)} of the answers were not what the script expects: "
            + "; ".join(conversation.off_script)
        )
    transcript.line(f"{conversation.calls} tool calls, every answer as expected.")


async def run_with_signals(work: Callable[[], Awaitable[None]]) -> bool:
    """Run `work`, cancelled by SIGINT or SIGTERM. True if a signal stopped it.

    The handlers stay installed until `work` has finished its own (shielded) clean-up, so a second signal
    cannot kill this process while the server subprocess is still being stopped.
    """
    stopped: list[int] = []
    work_scope = anyio.CancelScope()
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with anyio.create_task_group() as group:

            async def watch() -> None:
                async for signum in signals:
                    stopped.append(signum)
                    work_scope.cancel()

            group.start_soon(watch)
            with work_scope:
                await work()
            group.cancel_scope.cancel()
    return bool(stopped)


# ---------------------------------------------------------------------------------------------- processes
def child_pids() -> list[int]:
    """Live children of this process (Linux /proc; empty elsewhere)."""
    me = os.getpid()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[1] == str(me) and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def reap_children(timeout: float = 3.0) -> None:
    """Last resort after the orderly stops: terminate, then kill, any child still alive."""
    pids = child_pids()
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while pids and time.monotonic() < deadline:
        for pid in list(pids):
            with contextlib.suppress(ChildProcessError, OSError):
                done, _ = os.waitpid(pid, os.WNOHANG)
                if done:
                    pids.remove(pid)
        time.sleep(0.05)
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def signals_raise_interrupt() -> Iterator[None]:
    """SIGTERM behaves like Ctrl-C while this is active, so `finally` blocks run and clean up."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """During clean-up a second Ctrl-C or SIGTERM must not leave a broker or simulator behind."""
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def shut_down(home: Home | None) -> None:
    with signals_deferred():
        if home is not None:
            home.close()
        reap_children()


# ---------------------------------------------------------------------------------------------- commands
@contextlib.contextmanager
def open_server_log() -> Iterator[tuple[TextIO, Path]]:
    """A temporary file for the server's stderr (a real file: the child process writes to it directly)."""
    fd, name = tempfile.mkstemp(prefix="zwave-mcp-demo-", suffix=".log")
    with open(fd, "w+", encoding="utf-8") as server_log:
        yield server_log, Path(name)


def run_demo(broker_choice: str, out: TextIO, admin: bool = False) -> int:
    transcript = Transcript(out)
    home: Home | None = None
    with (
        open_server_log() as (server_log, log_path),
        signals_raise_interrupt(),
    ):
        failure: str | None = None
        interrupted = False
        server_started = False  # before that, the server's log holds nothing worth showing or keeping
        try:
            transcript.line(
                "zwave-mcp demo: a simulated Z-Wave home, driven through the MCP stdio protocol as an AI "
                "assistant would."
            )
            transcript.line(
                "(No AI model here: the scripted requests are yours, the answers are the tools'.)"
            )
            home = start_home(broker_choice, admin=admin)
            transcript.line(f"  MQTT broker   {home.broker_label} on {HOST}:{home.port}")
            house = house_size(home.simulator.nodes.values()) if home.simulator is not None else "no house"
            transcript.line(
                f"  zwave-js-ui   simulated: the captured house ({house}), prefix '{PREFIX}', brisk timing"
            )
            running = home
            server_started = True
            interrupted = anyio.run(run_with_signals, lambda: converse(running, transcript, server_log))
        except BaseException as exc:  # task groups wrap errors (even KeyboardInterrupt): look inside
            inner = innermost(exc)
            if isinstance(inner, KeyboardInterrupt):
                interrupted = True
            elif isinstance(inner, DemoError):
                failure = str(inner)
            elif isinstance(inner, Exception):
                failure = f"the demo failed: {describe(inner)}"
            else:
                raise
        finally:
            shut_down(home)
        if interrupted:
            print("zwave-mcp demo: interrupted; broker, simulator and server stopped.", file=sys.stderr)
            code = EXIT_INTERRUPTED
        elif failure is not None:
            print(f"zwave-mcp demo: {failure}", file=sys.stderr)
            if server_started:
                server_log.flush()
                print(f"--- last lines of the server's log ({log_path}) ---", file=sys.stderr)
                print(log_tail(log_path), file=sys.stderr)
            code = EXIT_FAILED
        else:
            transcript.line("Done: server, simulator and broker stopped.")
            code = 0
    if code != EXIT_FAILED or not server_started:
        log_path.unlink(missing_ok=True)  # kept on failure: the person may want more than the tail
    return code


def desktop_entry(home: Home) -> dict[str, Any]:
    command = server_command()
    return {
        "mcpServers": {"zwave-demo": {"command": command[0], "args": command[1:], "env": home.server_env()}}
    }


def run_serve(
    broker_choice: str, port: int | None, out: TextIO, admin: bool = False, house: list[Node] | None = None
) -> int:
    """Keep the broker and simulator running until SIGINT/SIGTERM, after printing the client entry."""
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    home: Home | None = None
    try:
        home = start_home(broker_choice, port, admin, house)
        if admin and home.simulator is not None:
            waiting = home.simulator.admin.press_button(NEW_DEVICE)
            out.write(
                f"A new motion sensor is waiting to be included (ask to add it); its PIN is {waiting.pin}.\n"
            )
        out.write(
            f"zwave-mcp demo --serve: a simulated Z-Wave home on {home.broker_label}, {home.mqtt_url}, "
            f"prefix '{PREFIX}'.\nAdd this to Claude Desktop's claude_desktop_config.json "
            "(or any MCP client's server list), then ask about your devices:\n\n"
        )
        out.write(json.dumps(desktop_entry(home), indent=2) + "\n\n")
        hint = "" if port else f" (--port {home.port} keeps this entry valid across restarts)"
        out.write(f"Running until Ctrl-C{hint}.\n")
        out.flush()
        stop.wait()
    except DemoError as exc:
        print(f"zwave-mcp demo: {exc}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        shut_down(home)
    print("zwave-mcp demo: stopped; broker and simulator are gone.", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zwave-mcp demo",
        description="Try zwave-mcp on a simulated Z-Wave home: no hardware, no broker to install.",
    )
    parser.add_argument(
        "--serve",
        action="store_true",
        help="keep the broker and simulator running and print the Claude Desktop entry for them",
    )
    parser.add_argument(
        "--broker",
        choices=("auto", "mosquitto", "embedded"),
        default="auto",
        help="auto (default): Mosquitto if installed, else the embedded amqtt broker",
    )
    parser.add_argument(
        "--admin",
        action="store_true",
        help="with the network-care tools (ZWAVE_MCP_ADMIN): the demo also includes a new S2 device",
    )
    parser.add_argument(
        "--port", type=int, default=None, help="broker port for --serve (default: a free one)"
    )
    parser.add_argument(
        "--house",
        default=None,
        metavar="FILE",
        help="with --serve: simulate a copy of your home instead of the captured one (the formats "
        "`zwave-mcp simulate --house` reads, e.g. Home Assistant's device diagnostics)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # The demo's own diagnostics (SDK, simulator) stay short and on stderr; stdout is the transcript.
    logging.basicConfig(stream=sys.stderr, level=logging.ERROR, format="zwave-mcp demo: %(message)s")
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdout.reconfigure(errors="replace")  # type: ignore[union-attr]  # "°C" on an ASCII terminal
    house: list[Node] | None = None
    if args.house is not None:
        if not args.serve:
            # The scripted conversation talks about the captured house's devices by name.
            print(
                "zwave-mcp demo: --house needs --serve (the scripted demo uses the captured house)",
                file=sys.stderr,
            )
            return EXIT_USAGE
        try:
            house = load_house(args.house)
        except (OSError, ValueError) as exc:
            print(f"zwave-mcp demo: cannot load house {args.house!r}: {exc}", file=sys.stderr)
            return EXIT_USAGE
    if args.serve:
        return run_serve(args.broker, args.port, sys.stdout, args.admin, house)
    return run_demo(args.broker, sys.stdout, args.admin)
