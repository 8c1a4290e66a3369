"""`zwave-mcp demo`: a simulated Z-Wave home driven through the real server, as an MCP client would.

A broker (Mosquitto when installed, else amqtt in-process) and the zwave-js-ui simulator run here; the server
runs as a stdio subprocess (`python -m zwave_mcp`) and is driven with the MCP SDK's stdio client through a
short scripted conversation. stdout gets only the transcript; the server's stderr goes to a temporary log
shown (its tail) only when something fails. `--serve` keeps the broker and simulator running instead and
prints the Claude Desktop entry that points at them; `--serve --http [HOST:]PORT` also runs the home service
(`zwave-mcp serve --http`, with its sign-in) on the simulated home and prints its connector URL.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from zwave_mcp.commands.demo_home import PREFIX, DemoError, Home, house_size, start_home
from zwave_mcp.commands.demo_tour import NEW_DEVICE, Conversation, Transcript, wait_until_ready
from zwave_mcp.simulator.broker import HOST
from zwave_mcp.simulator.house import Node, load_house

READY_TIMEOUT_S = 15.0
LOG_TAIL_LINES = 30
EXIT_FAILED = 1
PASSED_THROUGH = ("PYTHONPATH", "XDG_CACHE_HOME", "XDG_STATE_HOME")
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def server_command() -> list[str]:
    """The venv's `zwave-mcp` script next to this interpreter when there is one, else `python -m zwave_mcp`."""
    script = Path(sys.executable).parent / "zwave-mcp"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script.absolute())]
    return [sys.executable, "-m", "zwave_mcp"]


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
    env.update({name: os.environ[name] for name in PASSED_THROUGH if name in os.environ})
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
def signals_handled(
    handler: Callable[[int, FrameType | None], Any] | int,
    signals: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM),
) -> Iterator[None]:
    """`signals` go to `handler` while this is active; the previous handlers come back after."""
    previous = {sig: signal.signal(sig, handler) for sig in signals}
    try:
        yield
    finally:
        for sig, handler_before in previous.items():
            signal.signal(sig, handler_before)


def interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM behaves like Ctrl-C, so `finally` blocks run and clean up."""
    raise KeyboardInterrupt


def shut_down(home: Home | None) -> None:
    # During clean-up a second Ctrl-C or SIGTERM must not leave a broker or simulator behind.
    with signals_handled(signal.SIG_IGN):
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
        signals_handled(interrupt, (signal.SIGTERM,)),
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


SERVICE_START_S = 20.0


def demo_sign_in(state_dir: Path) -> str:
    """A passphrase for this run's home service, set in `state_dir` (a temporary folder of the demo's own):
    a first try needs no `zwave-mcp passphrase`, and the person's own home's sign-in is never touched."""
    from zwave_mcp.service.auth import open_store
    from zwave_mcp.service.auth.passphrase import META_KEY, hash_passphrase

    passphrase = secrets.token_urlsafe(9)
    with contextlib.closing(open_store(state_dir)) as store:
        store.set_meta(META_KEY, hash_passphrase(passphrase))
    return passphrase


def start_service(
    home: Home, listen: str, log: TextIO, log_path: Path, state_dir: Path
) -> tuple[subprocess.Popen[bytes], str]:
    """`zwave-mcp serve --http LISTEN` on the simulated home with its sign-in kept in `state_dir`, once it
    listens: (process, connector URL). Raises `DemoError` with the service's own words when it stops first
    (a port in use)."""
    from zwave_mcp.service.http import MCP_PATH, parse_listen

    host, port = parse_listen(listen)
    env = {
        **{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", *PASSED_THROUGH)},
        **home.server_env(),
    }
    command = [*server_command(), "serve", "--http", f"{host}:{port}", "--state-dir", str(state_dir)]
    process = subprocess.Popen(command, env=env, stderr=log)
    deadline = time.monotonic() + SERVICE_START_S
    while process.poll() is None and time.monotonic() < deadline:
        try:
            socket.create_connection((host, port), timeout=0.2).close()
            return process, f"http://{host}:{port}{MCP_PATH}"
        except OSError:
            time.sleep(0.1)
    process.kill()
    process.wait()
    log.flush()
    said = log_tail(log_path, 3)
    raise DemoError(f"the home service did not start:\n{said}")


def run_serve(
    broker_choice: str,
    port: int | None,
    out: TextIO,
    admin: bool = False,
    house: list[Node] | None = None,
    http: str | None = None,
) -> int:
    """Keep the broker and simulator running until SIGINT/SIGTERM, after printing the client entry (with
    `http`, the home service's connector URL)."""
    stop = threading.Event()
    home: Home | None = None
    service: subprocess.Popen[bytes] | None = None
    with (
        signals_handled(lambda *_: stop.set()),
        open_server_log() as (service_log, service_log_path),
        tempfile.TemporaryDirectory(prefix="zwave-mcp-demo-") as sign_in_dir,
    ):
        try:
            home = start_home(broker_choice, port, admin, house)
            if http is not None:
                passphrase = demo_sign_in(Path(sign_in_dir))
                service, url = start_service(home, http, service_log, service_log_path, Path(sign_in_dir))
                out.write(
                    f"zwave-mcp demo --serve --http: the home service runs on a simulated home at {url}\n"
                    "Add it as a custom connector in Claude or ChatGPT (through a tunnel or proxy: see "
                    "docs/remote.md), or point the MCP Inspector at it; on its consent page, sign in with "
                    f"this run's passphrase: {passphrase}\n"
                )
            if admin and home.simulator is not None:
                waiting = home.simulator.admin.press_button(NEW_DEVICE)
                out.write(
                    "A new motion sensor is waiting to be included (ask to add it); "
                    f"its PIN is {waiting.pin}.\n"
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
            if service is not None:  # first: the service writes what it heard before the home goes
                service.terminate()
                try:
                    service.wait(10)
                except subprocess.TimeoutExpired:
                    service.kill()
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
        "--http",
        nargs="?",
        const="",
        metavar="[HOST:]PORT",
        help="with --serve: also run the home service over Streamable HTTP (default 127.0.0.1:8765)",
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
    if args.http is not None and not args.serve:
        print("zwave-mcp demo: --http needs --serve", file=sys.stderr)
        return EXIT_USAGE
    if args.serve:
        return run_serve(args.broker, args.port, sys.stdout, args.admin, house, args.http)
    return run_demo(args.broker, sys.stdout, args.admin)
