"""The stdio wire's framing and classification: pure, standard library only, no I/O.

Shared by the transport (`zwave_mcp.stdio.transport`) and the purity checker (`zwave_mcp.stdio.check`):
- `LineSplitter` cuts a byte stream into lines without ever holding more than `MAX_LINE_BYTES` of one
  (an over-long line comes out as `Oversize`, its content discarded while it streamed in);
- `classify_line` sorts a line: blank, a JSON-RPC message, unparsable (answered -32700, id null) or not a
  JSON-RPC message (answered -32600, with its id when one can be read). The SDK drops such lines without
  an answer (python-sdk #2751), and a client waiting on that id would hang;
- lone surrogates in what is read become U+FFFD (`zwave_mcp.safetext`), so nothing read here can make a
  reply unserializable; `error_line` is the one JSON-RPC error line we write ourselves.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from zwave_mcp.safetext import json_kind, loads_json

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603

MAX_LINE_BYTES = 8 * 1024 * 1024
"""Longest input line we parse; longer lines are discarded as they stream in (memory stays bounded)."""


@dataclass(frozen=True)
class Oversize:
    """A line longer than the limit; its content was discarded while reading."""

    size: int


class LineSplitter:
    """Split a byte stream into lines without ever holding more than `max_line` bytes of one line."""

    def __init__(self, max_line: int = MAX_LINE_BYTES) -> None:
        self._max = max_line
        self._buf = bytearray()
        self._skipped: int | None = None  # bytes of the current over-long line seen so far

    def feed(self, chunk: bytes) -> list[bytes | Oversize]:
        out: list[bytes | Oversize] = []
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            piece = chunk[start:] if nl < 0 else chunk[start:nl]
            self._take(piece)
            if nl < 0:
                return out
            out.append(self._end_line())
            start = nl + 1

    def finish(self) -> list[bytes | Oversize]:
        """The last line when the stream ends without a newline."""
        if self._skipped is None and not self._buf:
            return []
        return [self._end_line()]

    def _take(self, piece: bytes) -> None:
        if self._skipped is not None:
            self._skipped += len(piece)
            return
        self._buf += piece
        if len(self._buf) > self._max:
            self._skipped = len(self._buf)
            self._buf = bytearray()

    def _end_line(self) -> bytes | Oversize:
        if self._skipped is not None:
            line: bytes | Oversize = Oversize(self._skipped)
            self._skipped = None
        else:
            line = bytes(self._buf)
        self._buf = bytearray()
        return line


def iter_lines(read: Callable[[], bytes], max_line: int = MAX_LINE_BYTES) -> Iterator[bytes | Oversize]:
    """Lines from a blocking `read()` that returns b"" at end of stream."""
    splitter = LineSplitter(max_line)
    while chunk := read():
        yield from splitter.feed(chunk)
    yield from splitter.finish()


Kind = Literal["blank", "message", "parse_error", "invalid"]


@dataclass(frozen=True)
class LineVerdict:
    """What one input line is, and (for bad lines) the JSON-RPC error that answers it."""

    kind: Kind
    value: Any = None
    request_id: int | str | None = None
    reason: str = ""

    def error_reply(self) -> bytes | None:
        if self.kind == "parse_error":
            return error_line(None, PARSE_ERROR, f"Parse error: {self.reason}")
        if self.kind == "invalid":
            return error_line(self.request_id, INVALID_REQUEST, f"Invalid Request: {self.reason}")
        return None


def error_line(request_id: int | str | None, code: int, message: str) -> bytes:
    reply = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return json.dumps(reply, separators=(",", ":")).encode() + b"\n"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_STRICT_JSON = json.JSONDecoder(parse_constant=_reject_constant)


def parse_json(line: bytes | str) -> Any:
    """json.loads that refuses NaN/Infinity and reports absurd nesting as a ValueError.

    Lone surrogates (`"\\ud800"`) become U+FFFD, so nothing read here can make a reply unserializable.
    """
    try:
        return loads_json(line, decoder=_STRICT_JSON, parse_constant=_reject_constant)
    except RecursionError as exc:
        raise ValueError("nested too deeply") from exc


def readable_id(value: Any) -> int | str | None:
    """The request id of a JSON object, when it has one MCP accepts (a string or an integer)."""
    if isinstance(value, dict):
        rid = value.get("id")
        if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)):
            return rid
    return None


def jsonrpc_problem(value: Any) -> str | None:
    """Why `value` is not a JSON-RPC 2.0 message (request, notification or response), or None if it is."""
    if isinstance(value, list):
        return "batches are not supported" if value else "empty array"
    if not isinstance(value, dict):
        return f"expected an object, got {json_kind(value)}"
    if value.get("jsonrpc") != "2.0":
        return 'missing "jsonrpc": "2.0"'
    has_id = "id" in value
    rid = value.get("id")
    if has_id and rid is not None and readable_id(value) is None:
        return "id must be a string or an integer"
    if "method" in value:
        if not isinstance(value["method"], str):
            return "method must be a string"
        if "result" in value or "error" in value:
            return "a request cannot carry result or error"
        if "params" in value and not isinstance(value["params"], dict | list):
            return "params must be an object or an array"
        if has_id and rid is None:
            return "a request id cannot be null"
        return None
    if ("result" in value) == ("error" in value):
        return "needs exactly one of method, result or error"
    if not has_id:
        return "a response needs an id"
    if "error" in value:
        err = value["error"]
        if not isinstance(err, dict) or not isinstance(err.get("code"), int) or "message" not in err:
            return "error must be an object with an integer code and a message"
    elif rid is None:
        return "a result needs a non-null id"
    return None


def classify_line(line: bytes | str | Oversize) -> LineVerdict:
    """Sort one input line: blank (ignored), a JSON-RPC message, unparsable, or an invalid message."""
    if isinstance(line, Oversize):
        return LineVerdict("parse_error", reason=f"line of {line.size} bytes is too long")
    if not line.strip():
        return LineVerdict("blank")
    try:
        value = parse_json(line)
    except ValueError as exc:  # includes UnicodeDecodeError
        return LineVerdict("parse_error", reason=short(str(exc)))
    problem = jsonrpc_problem(value)
    if problem is not None:
        return LineVerdict("invalid", value=value, request_id=readable_id(value), reason=problem)
    return LineVerdict("message", value=value, request_id=readable_id(value))


def short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
