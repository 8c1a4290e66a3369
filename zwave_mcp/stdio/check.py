"""`zwave-mcp check-stdio`: prove that a stdio MCP server keeps stdout pure and ends cleanly.

Spawns any server command (the parent's environment passes through, so `ZWAVE_MCP_*` settings reach it),
drives a scripted session over raw lines - initialize, notifications/initialized, tools/list, ping, every
read-only tool (annotated readOnlyHint; every tool with `--include-writes`, which a real home should not
get) called with plausible arguments, extra script messages, malformed lines, a ping to prove the server
still serves, a last ping left in flight, then EOF - and checks that:

- every stdout line is a JSON-RPC 2.0 message (a bad line is reported with its number and content, and
  reading goes on);
- every request got exactly one response (ids matched);
- the process exits with code 0 within a bounded time after stdin EOF.

Spawn + initialize are retried with exponential backoff (`RETRY_DELAYS`); when the server dies, the
error shows the tail of its stderr. Exit code 0 when pure, 1 otherwise, 2 for bad usage. A readable
summary goes to stderr; `--json` prints a machine-readable report on stdout (this is no MCP server).

Script file (`--script FILE`), either
- a JSON object with any of: `"tool_args": {"tool": {...arguments}}` (used instead of generated
  arguments), `"skip_tools": ["tool", ...]` (never called), `"messages": [...]` (extra lines sent after
  the tool calls: an object is sent as JSON, a string is sent verbatim as raw text); or
- JSONL: one such message per line (an object sent as JSON, a JSON string sent verbatim).
Requests (objects with `method` and `id`) among the messages must be answered like ours.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from zwave_mcp.safetext import terminal_safe
from zwave_mcp.stdio.wire import (
    METHOD_NOT_FOUND,
    LineSplitter,
    Oversize,
    classify_line,
    error_line,
    readable_id,
)

RETRY_DELAYS: tuple[float, ...] = (0.0, 2.0, 4.0)
"""Wait before each spawn/initialize attempt: 3 attempts, exponential backoff (seed spec 002)."""
INIT_TIMEOUT = 10.0
REPLY_TIMEOUT = 30.0
EXIT_TIMEOUT = 10.0
STDERR_TAIL_LINES = 20
PREVIEW_CHARS = 200
MAX_STDOUT_LINE = 64 * 1024 * 1024

PROTOCOL_VERSION = "2025-11-25"
CLIENT_INFO = {"name": "zwave-mcp check-stdio", "version": "1"}

# Probes a robust server survives; the ids on the invalid ones let a good server answer -32600 with them.
MALFORMED_LINES: tuple[bytes, ...] = (
    b"this line is not json",
    b'{"a":1}',
    b"[1,2]",
    b'{"jsonrpc":"2.0","id":"check-invalid","method":5}',
    b"{" + b"x" * (2 * 1024 * 1024),  # a 2 MB unparsable line
)
PROBE_IDS = frozenset({"check-invalid"})


class UsageError(Exception):
    """Bad command line or script file; exit code 2."""


# --------------------------------------------------------------------------------------------------
# Script and generated arguments


@dataclass
class Script:
    tool_args: dict[str, dict[str, Any]] = field(default_factory=dict)
    skip_tools: set[str] = field(default_factory=set)
    messages: list[bytes] = field(default_factory=list)


def _message_line(item: Any) -> bytes:
    return item.encode() if isinstance(item, str) else json.dumps(item).encode()


def load_script(path: Path) -> Script:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read script {path}: {exc.strerror}") from exc
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict) and not {"jsonrpc", "method"} & whole.keys():
        unknown = whole.keys() - {"tool_args", "skip_tools", "messages"}
        if unknown:
            raise UsageError(
                f"script {path}: unknown keys {sorted(unknown)}; use tool_args, skip_tools, messages"
            )
        tool_args = whole.get("tool_args", {})
        if not isinstance(tool_args, dict) or not all(isinstance(v, dict) for v in tool_args.values()):
            raise UsageError(f"script {path}: tool_args must map tool names to argument objects")
        return Script(
            tool_args=tool_args,
            skip_tools=set(whole.get("skip_tools", [])),
            messages=[_message_line(m) for m in whole.get("messages", [])],
        )
    messages = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            messages.append(_message_line(json.loads(line)))
        except ValueError as exc:
            raise UsageError(
                f"script {path} line {number}: not JSON ({exc}); quote raw text as a JSON string"
            ) from exc
    return Script(messages=messages)


def example_value(schema: Any, defs: dict[str, Any], depth: int = 0) -> Any:
    """A plausible value for a JSON Schema (enum/default/examples first, then by type and bounds)."""
    if not isinstance(schema, dict) or depth > 8:
        return "example"
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return example_value(defs.get(ref.rsplit("/", 1)[-1], {}), defs, depth + 1)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    if schema.get("examples"):
        return schema["examples"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        options = [o for o in schema.get(key, []) if not (isinstance(o, dict) and o.get("type") == "null")]
        if options:
            return example_value(options[0], defs, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind in ("integer", "number"):
        low = schema.get(
            "minimum", schema.get("exclusiveMinimum", 0) + (1 if "exclusiveMinimum" in schema else 0)
        )
        value = min(max(low, 1), schema.get("maximum", max(low, 1)))
        return int(value) if kind == "integer" else float(value)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    if kind == "array":
        return [example_value(schema.get("items", {}), defs, depth + 1)] * int(schema.get("minItems", 0))
    if kind == "object" or "properties" in schema:
        return example_args(schema, defs, depth + 1)
    formats = {
        "date-time": "2025-01-01T00:00:00Z",
        "date": "2025-01-01",
        "uri": "https://example.com",
        "email": "a@example.com",
    }
    text = formats.get(schema.get("format", ""), "example")
    return text.ljust(int(schema.get("minLength", 0)), "x")


def example_args(schema: Any, defs: dict[str, Any] | None = None, depth: int = 0) -> dict[str, Any]:
    """Arguments filling a tool inputSchema's required properties."""
    if not isinstance(schema, dict):
        return {}
    defs = {**(defs or {}), **schema.get("$defs", {}), **schema.get("definitions", {})}
    props = schema.get("properties", {})
    return {name: example_value(props.get(name, {}), defs, depth) for name in schema.get("required", [])}


# --------------------------------------------------------------------------------------------------
# Report


@dataclass
class Report:
    command: list[str]
    # The verdict and exit code: the protocol held (and, with --strict-tools, no tool erred).
    passed: bool = False
    protocol_passed: bool = False
    strict_tools: bool = False
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    attempts: list[str] = field(default_factory=list)
    stdout_lines: int = 0
    requests: int = 0
    answered: int = 0
    tools_called: list[str] = field(default_factory=list)
    tool_outcomes: dict[str, str] = field(default_factory=dict)
    tools_not_called: list[str] = field(default_factory=list)  # write tools, left alone by default
    exit_code: int | None = None
    exit_seconds: float | None = None
    stderr_tail: list[str] = field(default_factory=list)

    def tool_errors(self) -> dict[str, list[str]]:
        """Each distinct error a called tool answered, with the tools that answered it (in call order)."""
        groups: dict[str, list[str]] = {}
        for name in self.tools_called:
            outcome = self.tool_outcomes.get(name, "")
            if not outcome.startswith("ok: "):
                groups.setdefault(outcome.removeprefix("tool error: "), []).append(name)
        return groups

    def tools_line(self) -> str:
        """How the called tools answered: `tools: 2 of 11 answered (a, b); 9 answered an error: <text> (c, …)`."""
        called = len(self.tools_called)
        if not called:
            return "tools: none called"
        groups = self.tool_errors()
        failed = sum(len(names) for names in groups.values())
        answered = [name for name in self.tools_called if self.tool_outcomes.get(name, "").startswith("ok: ")]
        line = f"tools: {len(answered)} of {called} answered" + (f" ({_names(answered)})" if answered else "")
        if failed:
            causes = "; ".join(f"{text} ({_names(names)})" for text, names in groups.items())
            line += f"; {failed} answered an error: {causes}"
        return line

    def summary(self) -> str:
        verdict = "PASS" if self.passed else "FAIL"
        lines = [f"check-stdio: {verdict}  {' '.join(self.command)}"]
        lines += [f"  attempt: {attempt}" for attempt in self.attempts]
        protocol = "PASS" if self.protocol_passed else "FAIL"
        lines.append(
            f"  protocol: {protocol} (stdout: {self.stdout_lines} line(s); "
            f"requests: {self.requests}, answered: {self.answered}; exit code: {self.exit_code}"
            + (f" after {self.exit_seconds:.2f} s" if self.exit_seconds is not None else "")
            + ")"
        )
        lines.append(f"  {self.tools_line()}")
        if self.tool_errors():
            lines.append(
                "  (--strict-tools is on: a tool error fails the check)"
                if self.strict_tools
                else "  (tool errors do not change the exit code; --strict-tools makes them fail)"
            )
        if self.tools_not_called:
            lines.append(
                f"  not called (they may change things; --include-writes calls them): "
                f"{_names(self.tools_not_called)}"
            )
        lines += [f"  problem: {p}" for p in self.problems]
        lines += [f"  warning: {w}" for w in self.warnings]
        if self.stderr_tail and not self.passed:
            lines.append(f"  server stderr (last {len(self.stderr_tail)} line(s)):")
            lines += [f"    | {t}" for t in self.stderr_tail]
        # Tool names, error texts, ids and stderr come from the checked server: none may colour, retitle,
        # clear or write the terminal's clipboard, nor forge a line (a verdict of its own).
        return "\n".join(terminal_safe(line) for line in lines)


NAME_CHARS = 80  # a tool name in the summary


def _names(names: Sequence[str]) -> str:
    """The checked server's tool names as the summary lists them, each cut to `NAME_CHARS`."""
    return ", ".join(name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…" for name in names)


def _preview(raw: bytes | str) -> str:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return repr(text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + "…")


def _shown_id(rid: Any) -> str:
    """A request id the server sent back, as a problem line quotes it (any JSON, so cut)."""
    shown = repr(rid)
    return shown if len(shown) <= PREVIEW_CHARS else shown[:PREVIEW_CHARS] + "…"


# --------------------------------------------------------------------------------------------------
# One spawned server


class AttemptFailed(Exception):
    pass


class _ServerGone(Exception):
    pass


class Session:
    """A spawned server, its raw stdout checked line by line, its stderr tail kept."""

    def __init__(self, command: Sequence[str], report: Report) -> None:
        self.command = list(command)
        self.report = report
        self.proc: asyncio.subprocess.Process | None = None
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self.sent: dict[Any, str] = {}  # request id → method
        self.answers: dict[Any, dict[str, Any]] = {}
        self._waiters: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self._stdout_done = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._next_id = 0
        self.traceback_seen = False

    async def start(self) -> None:
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        except OSError as exc:
            raise AttemptFailed(f"cannot start {self.command[0]!r}: {exc.strerror or exc}") from exc
        stderr = self._read_lines(self.proc.stderr, 64 * 1024, self._keep_stderr)
        self._tasks = [asyncio.create_task(self._read_stdout()), asyncio.create_task(stderr)]

    # reading ------------------------------------------------------------------------------------

    @staticmethod
    async def _read_lines(
        stream: asyncio.StreamReader | None, max_line: int, take: Callable[[bytes | Oversize], None]
    ) -> None:
        assert stream is not None
        splitter = LineSplitter(max_line)
        while chunk := await stream.read(65536):
            for line in splitter.feed(chunk):
                take(line)
        for line in splitter.finish():
            take(line)

    async def _read_stdout(self) -> None:
        assert self.proc is not None
        try:
            await self._read_lines(self.proc.stdout, MAX_STDOUT_LINE, self._check_line)
        finally:
            self._stdout_done.set()
            for waiter in self._waiters.values():
                if not waiter.done():
                    waiter.set_exception(_ServerGone())

    def _keep_stderr(self, line: bytes | Oversize) -> None:
        text = "<very long line>" if isinstance(line, Oversize) else line.decode("utf-8", "replace").rstrip()
        self.traceback_seen |= "Traceback (most recent call last)" in text
        self.stderr_tail.append(text if len(text) <= 500 else text[:500] + "…")

    def _check_line(self, line: bytes | Oversize) -> None:
        self.report.stdout_lines += 1
        number = self.report.stdout_lines
        verdict = classify_line(line)
        if verdict.kind == "message":
            self._on_message(number, verdict.value)
            return
        content = f"<{line.size} bytes>" if isinstance(line, Oversize) else _preview(line)
        problem = {
            "blank": "empty line (only JSON-RPC messages belong there)",
            "parse_error": f"not JSON ({verdict.reason}): {content}",
            "invalid": f"not a JSON-RPC 2.0 message ({verdict.reason}): {content}",
        }[verdict.kind]
        self.report.problems.append(f"stdout line {number}: {problem}")

    def _on_message(self, number: int, msg: dict[str, Any]) -> None:
        if "method" in msg:
            if "id" in msg:  # a server→client request (roots, sampling...): we offer none of them
                reply = error_line(msg["id"], METHOD_NOT_FOUND, "not supported").rstrip(b"\n")
                asyncio.get_running_loop().create_task(self._send_quietly(reply))
            return
        rid = msg.get("id")
        if rid is None:
            return  # an answer to a malformed line (id null)
        if rid in self.answers:
            self.report.problems.append(
                f"stdout line {number}: second response to request id {_shown_id(rid)}"
            )
        elif rid not in self.sent and rid not in PROBE_IDS:
            self.report.problems.append(
                f"stdout line {number}: response to unknown request id {_shown_id(rid)}"
            )
        self.answers.setdefault(rid, msg)
        waiter = self._waiters.pop(rid, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(msg)

    # writing ------------------------------------------------------------------------------------

    async def send_line(self, data: bytes) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(data + b"\n")
            await self.proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise _ServerGone() from exc

    async def _send_quietly(self, data: bytes) -> None:
        with contextlib.suppress(_ServerGone, AssertionError, RuntimeError):
            await self.send_line(data)

    def track(self, message: dict[str, Any]) -> Any:
        """Remember a request we send; returns its id."""
        rid = message["id"]
        if rid in self.sent:
            self.report.warnings.append(f"request id {rid!r} used twice; answers cannot be told apart")
        self.sent[rid] = str(message.get("method"))
        self.report.requests += 1
        return rid

    async def request(self, method: str, params: dict[str, Any] | None, timeout: float) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": f"check-{self._next_id}", "method": method}
        if params is not None:
            message["params"] = params
        rid = self.track(message)
        waiter: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters[rid] = waiter
        if self._stdout_done.is_set():
            raise _ServerGone()
        await self.send_line(json.dumps(message).encode())
        try:
            return await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            raise AttemptFailed(f"no response to {method} (id {rid!r}) within {timeout:g} s") from None

    # ending ---------------------------------------------------------------------------------------

    async def close_stdin_and_wait(self, timeout: float) -> tuple[int | None, float]:
        assert self.proc is not None and self.proc.stdin is not None
        started = time.monotonic()
        self.proc.stdin.close()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            await self.proc.stdin.wait_closed()
        try:
            async with asyncio.timeout(timeout):
                code = await self.proc.wait()
                await asyncio.gather(*self._tasks)
        except TimeoutError:
            await self.kill()
            return None, time.monotonic() - started
        return code, time.monotonic() - started

    async def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.proc.wait()
        for task in self._tasks:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 2.0)

    async def exit_note(self) -> str:
        """Why the server went away, for attempt errors."""
        if self.proc is None:
            return ""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.proc.wait(), 1.0)
        return "" if self.proc.returncode is None else f" (server exited with code {self.proc.returncode})"


# --------------------------------------------------------------------------------------------------
# The whole check


@dataclass
class Options:
    command: list[str]
    script: Script = field(default_factory=Script)
    retry_delays: tuple[float, ...] = RETRY_DELAYS
    init_timeout: float = INIT_TIMEOUT
    reply_timeout: float = REPLY_TIMEOUT
    exit_timeout: float = EXIT_TIMEOUT
    read_only: bool = True  # call only tools annotated readOnlyHint
    strict: bool = False
    strict_tools: bool = False  # a tool answering an error fails the check too


async def _connect(options: Options, report: Report) -> Session | None:
    """Spawn and initialize, retrying with backoff; None (and the reasons in the report) if all fail."""
    session: Session | None = None
    for attempt, delay in enumerate(options.retry_delays, 1):
        if delay:
            await asyncio.sleep(delay)
        report.stdout_lines = 0
        report.problems.clear()
        report.requests = 0
        session = Session(options.command, report)
        try:
            await session.start()
            params = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO}
            reply = await session.request("initialize", params, options.init_timeout)
            if "error" in reply:
                raise AttemptFailed(
                    f"initialize answered with an error: {_preview(json.dumps(reply['error']))}"
                )
            if attempt > 1:
                report.attempts.append(f"connected on attempt {attempt}")
            return session
        except (AttemptFailed, _ServerGone) as exc:
            reason = str(exc) or "server closed stdout before answering initialize"
            reason += await session.exit_note()
            report.attempts.append(f"attempt {attempt} failed: {reason}")
            await session.kill()
    report.problems.append(f"MCP connection failed after {len(options.retry_delays)} attempts")
    if session is not None:
        report.stderr_tail = list(session.stderr_tail)
    return None


async def _drive(session: Session, options: Options) -> None:
    report, script = session.report, options.script
    await session.send_line(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())
    listed = await session.request("tools/list", None, options.reply_timeout)
    await session.request("ping", None, options.reply_timeout)
    tools = listed.get("result", {}).get("tools", []) if isinstance(listed.get("result"), dict) else []
    for tool in tools:
        name = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(name, str) or name in script.skip_tools:
            continue
        if options.read_only and not (tool.get("annotations") or {}).get("readOnlyHint"):
            report.tools_not_called.append(name)
            continue
        args = script.tool_args.get(name, example_args(tool.get("inputSchema")))
        answer = await session.request("tools/call", {"name": name, "arguments": args}, options.reply_timeout)
        report.tools_called.append(name)
        report.tool_outcomes[name] = tool_outcome(answer)
    for line in script.messages:
        with contextlib.suppress(ValueError):  # raw text is sent as it is, untracked
            value = json.loads(line)
            if isinstance(value, dict) and "method" in value and readable_id(value) is not None:
                session.track(value)
        await session.send_line(line)
    for line in MALFORMED_LINES:
        await session.send_line(line)
    # Still serving after all that? Then leave one request in flight and close stdin.
    await session.request("ping", None, options.reply_timeout)
    last = {"jsonrpc": "2.0", "id": "check-last", "method": "ping"}
    session.track(last)
    await session.send_line(json.dumps(last).encode())


def tool_outcome(answer: dict[str, Any]) -> str:
    """One line saying how a tools/call went: `ok: <text>`, `tool error: <text>` or `error <code>: <message>`."""
    error = answer.get("error")
    if isinstance(error, dict):
        return f"error {str(error.get('code'))[:20]}: {str(error.get('message'))[:PREVIEW_CHARS]}"
    raw = answer.get("result")
    result: dict[str, Any] = raw if isinstance(raw, dict) else {}
    texts = [
        c.get("text", "")
        for c in result.get("content", [])
        if isinstance(c, dict) and c.get("type") == "text"
    ]
    text = " ".join(texts)[:PREVIEW_CHARS]
    return f"tool error: {text}" if result.get("isError") else f"ok: {text}"


async def run_check(options: Options) -> Report:
    report = Report(command=options.command)
    session = await _connect(options, report)
    if session is None:
        return report
    try:
        await _drive(session, options)
    except AttemptFailed as exc:
        report.problems.append(str(exc))
    except _ServerGone:
        report.problems.append(f"server stopped reading or writing mid-session{await session.exit_note()}")
    code, seconds = await session.close_stdin_and_wait(options.exit_timeout)
    report.exit_code, report.exit_seconds = code, round(seconds, 3)
    if code is None:
        report.problems.append(f"server did not exit within {options.exit_timeout:g} s of stdin EOF (killed)")
    elif code != 0:
        report.problems.append(f"server exited with code {code} after stdin EOF (expected 0)")
    for rid, method in session.sent.items():
        if rid not in session.answers:
            report.problems.append(f"request {method} (id {rid!r}) got no response")
    report.answered = sum(1 for rid in session.sent if rid in session.answers)
    if "check-invalid" not in session.answers:
        report.warnings.append("the invalid request with id 'check-invalid' got no -32600 answer")
    if session.traceback_seen:
        report.warnings.append("the server's stderr shows a Python traceback")
    if options.strict:
        report.problems += [f"(strict) {w}" for w in report.warnings]
    report.stderr_tail = list(session.stderr_tail)
    report.protocol_passed = not report.problems
    report.strict_tools = options.strict_tools
    report.passed = report.protocol_passed and not (options.strict_tools and report.tool_errors())
    return report


# --------------------------------------------------------------------------------------------------
# Command line


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zwave-mcp check-stdio",
        usage="zwave-mcp check-stdio [OPTIONS] -- COMMAND [ARGS...]",
        description="Check that a stdio MCP server writes only JSON-RPC to stdout, answers every request "
        "and exits cleanly on EOF. Starts COMMAND the way an MCP client does and calls its tools. Only tools "
        "annotated read-only (readOnlyHint) are called unless you pass --include-writes: pointed at a real "
        "home, a write tool would really switch lights or unlock doors.",
        epilog="Example: zwave-mcp check-stdio -- uvx zwave-mcp   (exit 0 when pure, 1 when not, 2 for bad "
        "usage). The summary also says how the tools answered (how many answered an error, grouped by "
        "error); those errors change the exit code only with --strict-tools.",
    )
    parser.add_argument(
        "--script", type=Path, help="JSON (tool_args/skip_tools/messages) or JSONL of messages"
    )
    parser.add_argument("--json", action="store_true", help="print a machine-readable report on stdout")
    parser.add_argument(
        "--include-writes",
        action="store_true",
        help="also call the tools not annotated read-only (they may change real devices)",
    )
    parser.add_argument("--strict", action="store_true", help="treat warnings as failures")
    parser.add_argument(
        "--strict-tools",
        action="store_true",
        help="also fail (exit 1) when a called tool answers an error; without it the summary says how "
        "the tools answered but only the protocol decides the exit code (generated arguments such as a "
        "device named 'example' can make a healthy server answer an error: give real ones with --script)",
    )
    parser.add_argument(
        "--backoff",
        default=",".join(f"{d:g}" for d in RETRY_DELAYS),
        help="seconds to wait before each spawn/initialize attempt (default %(default)s)",
    )
    for flag, default, seconds in (
        ("--init-timeout", INIT_TIMEOUT, "seconds"),
        ("--timeout", REPLY_TIMEOUT, "seconds per reply"),
        ("--exit-timeout", EXIT_TIMEOUT, "seconds"),
    ):
        parser.add_argument(flag, type=float, default=default, help=f"{seconds} (default %(default)s)")
    return parser


def parse_args(argv: Sequence[str]) -> tuple[Options, bool]:
    """Options before `--`, the server command after it (`--help` works without one)."""
    argv = list(argv)
    if "--" not in argv:
        if "-h" in argv or "--help" in argv:
            _parser().parse_args(["--help"])  # prints the help and exits 0
        raise UsageError("usage: zwave-mcp check-stdio [OPTIONS] -- COMMAND [ARGS...]")
    cut = argv.index("--")
    args = _parser().parse_args(argv[:cut])
    command = argv[cut + 1 :]
    if not command:
        raise UsageError("no server command after --")
    try:
        delays = tuple(float(part) for part in args.backoff.split(",") if part.strip())
    except ValueError as exc:
        raise UsageError(f"--backoff: expected comma-separated seconds, got {args.backoff!r}") from exc
    if not delays or min(delays) < 0:
        raise UsageError("--backoff: need at least one non-negative delay")
    options = Options(
        command=command,
        script=load_script(args.script) if args.script else Script(),
        retry_delays=delays,
        init_timeout=args.init_timeout,
        reply_timeout=args.timeout,
        exit_timeout=args.exit_timeout,
        read_only=not args.include_writes,
        strict=args.strict,
        strict_tools=args.strict_tools,
    )
    return options, args.json


def check_stdio_main(argv: list[str]) -> int:
    """Entry point for `zwave-mcp check-stdio ...` (argv excludes the subcommand). Returns the exit code."""
    try:
        options, as_json = parse_args(argv)
    except UsageError as exc:
        print(f"check-stdio: {exc}", file=sys.stderr)
        return 2
    report = asyncio.run(run_check(options))
    print(report.summary(), file=sys.stderr)
    if as_json:
        print(json.dumps({**asdict(report), "tool_errors": report.tool_errors()}, indent=2))
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(check_stdio_main(sys.argv[1:]))
