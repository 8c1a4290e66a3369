"""`tools/call` answered by the stdio transport itself, without the MCP SDK's dispatcher, where that changes
nothing a client can see.

Why: the SDK's dispatch of one `tools/call` costs 0.6-0.8 ms on a small machine (bench section 2, "the
SDK's floor": its relay and dispatcher, a task and a cancel scope per request, the middleware chain, a
session and a context per request). For a write that is most of what a call adds to zwave-js-ui's own
round trip.

When the lane takes a call (everything else goes to the SDK, as before):
- the connection is of the handshake era (an `initialize` answered with a version before 2026-07-28) and
  its client declared no `elicitation`: a tool can then never ask it anything mid-call, and asking is the
  only thing besides progress that a tool uses its request context for;
- the request has no `_meta` (no progress token, no trace context) and no `requestState`, and its params
  pass the SDK's own validation for that version (a malformed call gets the SDK's own error);
- every middleware of the server is one that does nothing to such a call, or one the lane runs itself
  (`middleware_acting_on_direct_calls`).

What the lane keeps of the SDK's path: the executor's checks and execution (`call_without_context`, the
middleware's and handler's code), the SDK's result shaping for the version (`serialize_server_result`),
and cancellation: `notifications/cancelled` cancels the call and nothing is answered. It writes its
answer as a finished line (`answer_line`), without building the SDK's message model around it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mcp_types import INTERNAL_ERROR
from mcp_types.methods import serialize_server_result, validate_client_request
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError
from pydantic_core import to_json

from zwave_mcp.stdio.transport import error_line, unserializable_line

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from zwave_mcp.server.executor import ToolAnswer

log = logging.getLogger(__name__)

ToolCall = Callable[[str, Any], Awaitable["ToolAnswer | BaseModel"]]
"""Runs one tool by name with its arguments as they came (`ToolExecutor.call_without_context`)."""

RequestId = int | str

SendLine = Callable[[bytes, RequestId], Awaitable[None]]
"""Writes the line that answers a request (the transport's writer, and its bookkeeping of answers)."""


def can_ask(initialize_params: Any) -> bool:
    """Whether a client's `initialize` declared that it can be asked (`elicitation`, in any mode); anything
    unreadable counts as yes, which keeps its calls on the SDK's path."""
    if not isinstance(initialize_params, dict):
        return True
    capabilities = initialize_params.get("capabilities")
    if not isinstance(capabilities, dict):
        return True
    return "elicitation" in capabilities


def middleware_acting_on_direct_calls(server: MCPServer[Any]) -> list[str]:
    """The middleware of `server` that could act on a call the lane takes, and what else of the SDK's
    path would (empty: the lane may open)."""
    from mcp.server.request_state import RequestStateBoundary
    from opentelemetry import trace

    from zwave_mcp.server.client_log import ClientLogMiddleware
    from zwave_mcp.server.compat import lowlevel_server, tracing_middleware
    from zwave_mcp.server.executor import ToolCallMiddleware
    from zwave_mcp.server.prompts import PromptCheck

    acting = []
    for middleware in server.middleware:
        if isinstance(
            middleware, ToolCallMiddleware | PromptCheck | RequestStateBoundary | ClientLogMiddleware
        ):
            continue  # ours, run by the lane / prompts only / requestState and input-required results only /
            # 2026-era requests and the first request of a 2025-era connection only
        if isinstance(middleware, tracing_middleware()) and isinstance(
            trace.get_tracer_provider(), trace.ProxyTracerProvider
        ):
            continue  # spans, and no tracing is set up in this process
        acting.append(type(middleware).__name__)
    if lowlevel_server(server).cache_hints.get("tools/call") is not None:
        acting.append("a cache hint for tools/call")
    return acting


class DirectLane:
    """Takes the calls it may answer (see the module's docstring) and answers them through `send`."""

    def __init__(
        self,
        tool_call: Callable[[], ToolCall | None],
        send: SendLine,
    ) -> None:
        self._tool_call = tool_call  # asked once the server is finished: None keeps the lane closed
        self._call: ToolCall | None = None
        self._resolved = False
        self._send = send
        self._version: str | None = None  # the negotiated version while the lane is open
        self._initializing: dict[RequestId, bool] = {}  # `initialize` requests: whether that client can ask
        self._running: dict[RequestId, asyncio.Task[None]] = {}

    @property
    def open(self) -> bool:
        return self._version is not None

    def inbound(self, message: dict[str, Any]) -> bool:
        """Whether the lane takes this message (a valid JSON-RPC message); if not, it goes to the SDK."""
        method = message.get("method")
        if method == "tools/call":
            return self._take(message)
        if method == "notifications/cancelled":
            return self._cancel(message.get("params"))
        if method == "initialize" and "id" in message:
            self._initializing[message["id"]] = can_ask(message.get("params"))
            self._version = None  # closed until this handshake is answered
        return False

    def outbound(self, message: Any) -> None:
        """Sees every message the SDK writes: the answer to an `initialize` opens or closes the lane."""
        rid = getattr(message, "id", None)
        if rid is None or rid not in self._initializing:
            return
        asks = self._initializing.pop(rid)
        result = getattr(message, "result", None)
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        self._version = version if not asks and version in HANDSHAKE_PROTOCOL_VERSIONS else None
        if self._version is not None:
            log.debug("tools/call is answered without the SDK's dispatcher", extra={"version": version})

    def close(self) -> None:
        """Serving ends: calls still running are cancelled (the transport answers what stays pending)."""
        self._version = None
        for task in list(self._running.values()):
            task.cancel()

    # -- the calls ----------------------------------------------------------------------------------

    def _take(self, message: dict[str, Any]) -> bool:
        rid = message.get("id")
        params = message.get("params")
        if self._version is None or rid is None or rid in self._running or not isinstance(params, dict):
            return False
        if "_meta" in params or "requestState" in params:
            return False
        call = self._resolve()
        if call is None:
            return False
        if not plain_call(params):
            try:
                validate_client_request("tools/call", self._version, params)
            except Exception:  # ValidationError, or a version the SDK no longer knows: its path answers
                return False
        task = asyncio.get_running_loop().create_task(self._answer(rid, params, call, self._version))
        self._running[rid] = task
        task.add_done_callback(lambda _: self._running.pop(rid, None))  # also when cancelled unstarted
        return True

    def _resolve(self) -> ToolCall | None:
        if not self._resolved:
            self._resolved = True
            self._call = self._tool_call()
        return self._call

    def _cancel(self, params: Any) -> bool:
        rid = params.get("requestId") if isinstance(params, dict) else None
        task = self._running.get(rid) if isinstance(rid, int | str) else None
        if task is None:
            return False
        task.cancel()  # a cancelled request is never answered (the SDK does the same)
        return True

    async def _answer(self, rid: RequestId, params: dict[str, Any], call: ToolCall, version: str) -> None:
        try:
            result = await call(params["name"], params.get("arguments"))
            line = answer_line(rid, result, version)
        except ValidationError:
            log.exception("a tool returned an invalid result")
            line = error_line(rid, INTERNAL_ERROR, "Handler returned an invalid result")  # the SDK's words
        except Exception:
            log.exception("a direct tools/call failed")
            line = error_line(rid, INTERNAL_ERROR, "Internal error")
        await self._send(line, rid)


def plain_call(params: dict[str, Any]) -> bool:
    """Whether a call's params have the plainest shape, a string `name` and `arguments` that are an object
    or absent: valid in the `tools/call` schema of every era, so the SDK's validation (~18 µs a call
    in-process) cannot refuse it."""
    return isinstance(params.get("name"), str) and (
        params.keys() == {"name"}
        or (params.keys() == {"name", "arguments"} and type(params["arguments"]) is dict)
    )


def answer_line(rid: RequestId, result: ToolAnswer | BaseModel, version: str) -> bytes:
    """The JSON-RPC line answering a call with `result`, shaped for `version` by the SDK's own shaping.

    The structured content goes around that shaping: it is a free JSON object in every era's schema, so
    the shaping would hand it back as it is, after validating and copying it twice (most of the cost of
    an answer). A placeholder stands in for it, and the content goes back where the shaping kept it."""
    if isinstance(result, BaseModel):  # an answer the executor does not give on this lane's connections
        dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    else:
        dumped = result.wire()
    structured = dumped.get("structuredContent")
    if structured is not None:
        dumped["structuredContent"] = {}
    shaped = _shaped_text_answer(version, dumped)
    if shaped is None:
        shaped = serialize_server_result("tools/call", version, dumped)
    if structured is not None and "structuredContent" in shaped:
        shaped["structuredContent"] = structured
    try:
        return to_json({"jsonrpc": "2.0", "id": rid, "result": shaped}) + b"\n"
    except Exception as exc:  # text that cannot be encoded slipped through: the request still gets an answer
        return unserializable_line(rid, True, exc)


_TEXT_SLOT = "\x00the answer's text\x00"
_shapes: dict[tuple[str, bool, tuple[str, ...]], dict[str, Any] | None] = {}


def _shaped_text_answer(version: str, dumped: dict[str, Any]) -> dict[str, Any] | None:
    """The SDK's shaping of an answer that is one text block (most answers), without running it again.

    Such an answer's shaping depends on nothing but the version, the error flag and which keys are there
    (the text is any string, valid in every era): it is shaped once with a stand-in for
    the text (~15 µs a call), and each answer takes that shape with its own text in the stand-in's place.
    None for any other answer, which the caller shapes as usual."""
    content = dumped.get("content")
    if not (
        dumped.keys() <= {"content", "structuredContent", "isError"}
        and type(content) is list
        and len(content) == 1
        and type(block := content[0]) is dict
        and block.keys() == {"type", "text"}
        and block["type"] == "text"
        and type(text := block["text"]) is str
        and type(is_error := dumped.get("isError", False)) is bool
    ):
        return None
    key = (version, is_error, tuple(dumped))  # the keys present too: an absent isError may shape otherwise
    if key not in _shapes:
        stand_in = {**dumped, "content": [{"type": "text", "text": _TEXT_SLOT}]}
        shaped = serialize_server_result("tools/call", version, stand_in)
        blocks = shaped.get("content")
        first = blocks[0] if type(blocks) is list and len(blocks) == 1 else None
        # An era whose shaping is not one block holding the text as given is shaped as usual, every time.
        _shapes[key] = shaped if type(first) is dict and first.get("text") == _TEXT_SLOT else None
    template = _shapes[key]
    if template is None:
        return None
    shaped = dict(template)
    shaped["content"] = [{**template["content"][0], "text": text}]
    return shaped
