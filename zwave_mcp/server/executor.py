"""The tool executor: every tool call passes through here, on top of the SDK's own tool list and call path.

Two halves, because the SDK validates arguments before a tool function runs:
- `ToolExecutor.middleware` (an SDK `ServerMiddleware`) sees the raw `tools/call` first: unknown tool names,
  argument aliases (snake_case ↔ camelCase, `command` → `action`), validation with messages that name the
  parameter and what is allowed, and the read-only gate. A call it rejects never reaches the SDK; one it lets
  through goes on with the arguments under the tool's own names.
- `ToolExecutor.execute` runs the tool: timeout, timing, slow-call warning, one log line per call
  (arguments redacted), and the result envelope `{success, tool_name, execution_time_ms, result | error}`
  with one spoken sentence as text content.

In between, `tools/call` is the SDK's own: its handler finds the registered function, validates the
arguments against the schema it derived, calls the function and checks the envelope against the output
schema. The function (`_sdk_function`) hands the arguments as the middleware passed them on to `execute`.

There is no second registry: `ToolSpec`s are registered on the `MCPServer` (that is what `tools/list`
serves), and the executor keeps the same specs by name for the middleware.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import inspect
import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Annotated, Any, Generic, TypeVar

from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_REQUEST,
    CallToolResult,
    ContentBlock,
    ImageContent,
    InputRequiredResult,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel, ValidationError

from zwave_mcp.answers import ToolResult
from zwave_mcp.errors import PolicyRefusal, UserError
from zwave_mcp.logs import is_secret_name, redact
from zwave_mcp.policy.caller import STDIO, Caller, Reach, acting_as
from zwave_mcp.server.asking import InputRequired

if TYPE_CHECKING:
    from zwave_mcp.devices.gate import Gate

log = logging.getLogger(__name__)

ResultT = TypeVar("ResultT", bound=BaseModel)

# Requests that read the house: a caller needs `Reach.READ` for them as for a read-only tool. (Listing what
# exists is not reading the house; a change is judged by the gate on its effect.)
READING_METHODS = frozenset(
    {"resources/read", "resources/subscribe", "subscriptions/listen", "prompts/get", "completion/complete"}
)
WhoCalls = Callable[[ServerRequestContext[Any, Any]], Caller]


# Argument names that old clients and the seeds' specs use for our parameters.
# "target" as control_zwave_group names it: where a tool has no `target`, it is the device acted on
# ("make the motion sensor control the hall light", change_zwave_association's `targetDevice`).
STATIC_ALIASES: Mapping[str, str] = {"command": "action", "target": "targetDevice"}


class ToolEnvelope(BaseModel, Generic[ResultT]):
    """What every tool call returns as structured content."""

    success: bool
    tool_name: str
    execution_time_ms: float
    result: ResultT | None = None
    error: str | None = None


# A tool function: `(app, args, ctx)` in its family's `TOOLS`, called as `(args, ctx)` once the server has
# bound its app (`server.tools.tool_specs`). It uses its context to ask the person and to send progress; one
# called without a context (in-process callers such as tests) asks nothing and reports no progress.
Handler = Callable[..., Awaitable[ToolResult]]


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its public name, argument and result models, and the coroutine that does the work."""

    name: str
    description: str
    args_model: type[BaseModel]
    result_model: type[ToolResult]
    handler: Handler
    mutating: bool = False
    # Tools that answer without zwave-js-ui (health, tool help) run even while the gateway is down.
    needs_gateway: bool = True
    annotations: ToolAnnotations | None = None
    title: str | None = None
    # What the caller needs to call it at all: a read-only tool reads; network care is the network's. A
    # change's own reach is judged by the gate on its effect (None: nothing before the gate).
    reach: Reach | None = None
    # A tool that reads and changes (manage_lock_users lists users and changes them): which calls are an
    # attempt at a change, as the audit names it ({"action": "add_user"}), None for a read. Every attempt,
    # one refused before the tool runs (a bad action) included, leaves its one audit line.
    attempt: Callable[[Mapping[str, Any]], Mapping[str, Any] | None] | None = None

    def audited(self, arguments: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The arguments the audit line of this call names, or None when the call changes nothing."""
        if self.mutating:
            return arguments
        return self.attempt(arguments) if self.attempt is not None else None

    @property
    def needs(self) -> Reach | None:
        return self.reach or (None if self.mutating else Reach.READ)

    @functools.cached_property
    def field_names(self) -> frozenset[str]:
        return frozenset(f.alias or n for n, f in self.args_model.model_fields.items())

    @functools.cached_property
    def json_read_fields(self) -> frozenset[str]:
        """The parameters whose strings the SDK may read as JSON (`sdk_reading`): all not typed plain `str`."""
        return frozenset(
            f.alias or n for n, f in self.args_model.model_fields.items() if f.annotation is not str
        )


# --- argument aliases -------------------------------------------------------------------------------


def snake_to_camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest if part)


def camel_to_snake(name: str) -> str:
    return "".join("_" + ch.lower() if ch.isupper() else ch for ch in name).lstrip("_")


def normalize_arguments(
    arguments: Mapping[str, Any], field_names: Iterable[str]
) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """Map aliases onto the tool's parameter names.

    Returns (arguments, rewrites old→new, ignored names). A canonical name given alongside its alias wins;
    names the tool does not know are dropped (the seeds: extra parameters are ignored).
    """
    known = set(field_names)
    result = {key: value for key, value in arguments.items() if key in known}
    rewrites: dict[str, str] = {}
    ignored: list[str] = []
    for key, value in arguments.items():
        if key in known:
            continue
        target = STATIC_ALIASES.get(key)
        if target not in known:
            target = next((c for c in (snake_to_camel(key), camel_to_snake(key)) if c in known), None)
        if target is None or target in result:
            ignored.append(key)
        else:
            result[target] = value
            rewrites[key] = target
    return result, rewrites, ignored


def sdk_reading(arguments: dict[str, Any], json_read_fields: frozenset[str]) -> dict[str, Any]:
    """The arguments as the SDK's `tools/call` reads them before it validates (its `FuncMetadata.pre_parse_json`,
    for clients that send lists as JSON text): a string for a parameter not typed plain `str` that holds a
    JSON array, object or null is taken as that. `arguments` itself when nothing is read so."""
    read = arguments
    for key, value in arguments.items():
        if key not in json_read_fields or not isinstance(value, str):
            continue
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            continue
        if not isinstance(parsed, str | int | float):
            read = {**read, key: parsed}
    return read


# --- validation messages ----------------------------------------------------------------------------


def _schema_type(prop: Mapping[str, Any]) -> str:
    if "enum" in prop:
        return "one of " + ", ".join(map(str, prop["enum"]))
    if "anyOf" in prop:
        kinds = [_schema_type(p) for p in prop["anyOf"] if p.get("type") != "null"]
        return " or ".join(kinds)
    return {
        "integer": "an integer",
        "number": "a number",
        "string": "a string",
        "boolean": "true or false",
    }.get(str(prop.get("type")), str(prop.get("type", "a value")))


@functools.lru_cache(maxsize=128)
def _properties(args_model: type[BaseModel]) -> dict[str, Any]:
    """The JSON-schema properties of an argument model, with `Optional[...]` unwrapped to its real type."""
    schema = args_model.model_json_schema()
    defs: dict[str, Any] = schema.get("$defs", {})
    props: dict[str, Any] = dict(schema.get("properties", {}))
    for name, prop in props.items():
        arms = [p for p in prop.get("anyOf", []) if p.get("type") != "null"]
        if len(arms) == 1:
            prop = props[name] = {**arms[0], **{k: v for k, v in prop.items() if k != "anyOf"}}
        ref = prop.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):  # an Enum type: its values live in $defs
            props[name] = {**defs.get(ref.removeprefix("#/$defs/"), {}), **prop}
    return props


def _short_repr(value: Any, limit: int = 80) -> str:
    """What the caller gave, quoted in a message: a value of any size from the client, so cut."""
    if isinstance(value, list | dict) and len(value) > limit:
        return f"a {'list' if isinstance(value, list) else 'mapping'} of {len(value)} items"
    if isinstance(value, int) and value.bit_length() > 4 * limit:
        return f"a number of {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_validation_error(exc: ValidationError, args_model: type[BaseModel]) -> str:
    """Turn pydantic's errors into sentences that name the parameter, what it needs and what was given."""
    props = _properties(args_model)
    sentences: list[str] = []
    for err in exc.errors():
        # Tool arguments are flat: deeper `loc` parts are pydantic's union arms ('level.float'), not paths.
        name = str(err["loc"][0]) if err["loc"] else "arguments"
        prop = props.get(str(err["loc"][0]), {}) if err["loc"] else {}
        wanted = _schema_type(prop) if prop else ""
        given = err.get("input")
        shown = repr(given[:60] + "…") if isinstance(given, str) and len(given) > 60 else _short_repr(given)
        if is_secret_name(name):
            shown = "a value not shown here"  # a PIN or a password is never repeated back
        kind = err["type"]
        if kind == "missing":
            hint = f" ({prop['description']})" if prop.get("description") else ""
            sentences.append(f"Missing required parameter '{name}': {wanted or 'a value'}{hint}.")
        elif kind in ("enum", "literal_error"):
            allowed = ", ".join(map(str, prop.get("enum") or [])) or err["msg"]
            sentences.append(f"Parameter '{name}' must be one of: {allowed} (got {shown}).")
        elif kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
            low, high = prop.get("minimum"), prop.get("maximum")
            if low is not None and high is not None:
                bounds = f"between {low} and {high}"
            else:
                bounds = err["msg"].removeprefix("Input should be ").lower()
            sentences.append(f"Parameter '{name}' must be {bounds} (got {shown}).")
        elif kind == "string_too_short" and prop.get("minLength") == 1:
            sentences.append(f"Parameter '{name}' must not be empty.")
        elif kind == "string_too_short":
            sentences.append(f"Parameter '{name}' is too short: at least {prop.get('minLength')} characters.")
        elif kind == "string_too_long":
            sentences.append(f"Parameter '{name}' is too long: at most {prop.get('maxLength')} characters.")
        elif wanted:
            sentences.append(f"Parameter '{name}' must be {wanted} (got {shown}).")
        else:
            sentences.append(f"Parameter '{name}': {err['msg']} (got {shown}).")
    return " ".join(dict.fromkeys(sentences))


# --- the executor -----------------------------------------------------------------------------------


def _envelope(
    spec_name: str, started: float, *, result: ToolResult | None = None, error: str | None = None
) -> CallToolResult:
    """A call's answer: the spoken sentence, the envelope (`ToolEnvelope`'s shape, the output schema), and
    the charts some results carry."""
    # The dict has `ToolEnvelope`'s shape; built by hand because parametrizing the generic model on every
    # call cost more than the rest of a read.
    envelope = {
        "success": error is None,
        "tool_name": spec_name,
        "execution_time_ms": round((time.perf_counter() - started) * 1000, 3),
        "result": None if result is None else result.model_dump(mode="json", by_alias=True),
        "error": error,
    }
    content: list[ContentBlock] = [
        TextContent(type="text", text=result.summary if result is not None else (error or ""))
    ]
    # Only history and energy results draw charts. Looked up on the class: a pydantic model's attribute
    # miss raises and formats an error inside (~5 µs a call).
    draw = getattr(type(result), "images", None) if result is not None else None
    content += [
        ImageContent(type="image", data=base64.b64encode(data).decode("ascii"), mime_type=mime)
        for data, mime in (draw(result) if draw is not None else ())
    ]
    return CallToolResult(content=content, structured_content=envelope, is_error=error is not None)


@dataclass(eq=False, kw_only=True)
class ToolExecutor:
    """Holds the tool specs, registers them on the server, and runs every call the same way."""

    timeout_s: float = 30.0
    slow_call_ms: float = 1000.0
    read_only: bool = False
    unavailable: Callable[[], str | None] | None = None
    settle: Callable[[], Awaitable[object]] | None = None
    attempts: Gate | None = None  # audits mutating calls that end before the gate
    # The caller of each request (the home service's sign-in over HTTP); by default the one stdio client.
    who_calls: WhoCalls = lambda _ctx: STDIO
    specs: dict[str, ToolSpec] = field(default_factory=dict, init=False)

    # registration ------------------------------------------------------------------------------

    def register(self, server: MCPServer[Any], spec: ToolSpec) -> None:
        """Put the tool on the server (unless read-only hides it) and remember it for the middleware, which
        goes on the server with the first tool."""
        self.specs[spec.name] = spec
        if self.middleware not in server.middleware:
            server.middleware.append(self.middleware)
        if self.read_only and spec.mutating:
            return
        server.add_tool(
            self._sdk_function(spec),
            name=spec.name,
            title=spec.title,
            description=spec.description,
            annotations=spec.annotations,
            structured_output=True,
        )

    def _sdk_function(self, spec: ToolSpec) -> Callable[..., Awaitable[CallToolResult | InputRequiredResult]]:
        """The function the SDK registers and calls: its signature is the argument model's fields (so the SDK
        derives the same input schema) and its return annotation the envelope (the output schema).

        `add_tool` takes a function and reads its signature; it has no way to take a model's fields."""

        async def run_tool(ctx: Context, **_checked_by_the_sdk: Any) -> CallToolResult | InputRequiredResult:
            # The arguments as the middleware passed them on, not the SDK's keyword arguments: those carry every
            # default and the SDK's JSON parsing of strings ('null' → None), and the log line and the audit
            # quote what was asked.
            request = ctx.request_context.params or {}
            return await self.execute(spec, request.get("arguments") or {}, ctx)

        params = [inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)]
        for name, info in spec.args_model.model_fields.items():
            default = (
                inspect.Parameter.empty if info.is_required() else info.get_default(call_default_factory=True)
            )
            params.append(
                inspect.Parameter(
                    info.alias or name,
                    inspect.Parameter.KEYWORD_ONLY,
                    default=default,
                    annotation=Annotated[info.annotation, info],
                )
            )
        envelope_model = ToolEnvelope[spec.result_model]  # type: ignore[name-defined]
        run_tool.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            params, return_annotation=Annotated[CallToolResult, envelope_model]
        )
        run_tool.__name__ = spec.name
        return run_tool

    # execution ---------------------------------------------------------------------------------

    def prepare(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any] | str:
        """Everything checked before a tool runs. Returns the arguments under the tool's own names, or a
        refusal."""
        spec = self.specs.get(name)
        if spec is None:
            shown = name if len(name) <= 80 and name.isprintable() else _short_repr(name)[1:-1]
            listed = sorted(n for n, s in self.specs.items() if not (self.read_only and s.mutating))
            return f"Unknown tool '{shown}'. Available tools: {', '.join(listed)}."
        if spec.mutating and self.read_only:
            return (
                f"{name} is disabled: zwave-mcp runs in read-only mode (ZWAVE_MCP_READ_ONLY), so nothing "
                "can be switched or set. Reading devices still works."
            )
        normalized, rewrites, ignored = normalize_arguments(arguments, spec.field_names)
        if rewrites:
            log.info("argument aliases rewritten", extra={"tool": name, "rewrites": rewrites})
        if ignored:
            log.debug("unknown arguments ignored", extra={"tool": name, "ignored": ignored[:20]})
        try:
            spec.args_model.model_validate(normalized)
            # The SDK validates again after its JSON reading of strings; where that would refuse what passed
            # here (an array in a text parameter), the caller gets our sentence instead of pydantic's.
            if (read := sdk_reading(normalized, spec.json_read_fields)) is not normalized:
                spec.args_model.model_validate(read)
        except ValidationError as exc:
            return describe_validation_error(exc, spec.args_model)
        return normalized

    async def execute(
        self,
        spec: ToolSpec,
        arguments: Mapping[str, Any],
        ctx: Context | None,
    ) -> CallToolResult | InputRequiredResult:
        """Run one tool: timeout, timing, logging and the envelope. Never raises.

        A tool that must ask the person on a 2026-07-28 connection raises `InputRequired`: the call ends
        with the SDK's input-required result (the question), and the client calls again with the answer.
        """
        started = time.perf_counter()
        outcome = "ok"
        error: str | None = None
        result: ToolResult | None = None
        audited = spec.audited(arguments) if self.attempts is not None else None
        attempt = self.attempts.begin() if audited is not None and self.attempts is not None else None
        refused = False
        try:
            args = spec.args_model.model_validate(dict(arguments))
            # asyncio's own timeout: the server always runs on asyncio, and anyio's cancel scope cost
            # ~50 µs per call here.
            async with asyncio.timeout(self.timeout_s):
                await self._check_available(spec)
                result = await spec.handler(args, ctx)
        except InputRequired as asked:
            self._log_call(spec.name, arguments, started, "input_required", None)
            return asked.result
        except TimeoutError:
            outcome = "timeout"
            error = f"{spec.name} took longer than {self.timeout_s:g} s and was cancelled; nothing more will be done."
        # A policy refusal, or no such device, a value it cannot take: refused before anything is sent.
        except UserError as exc:
            outcome = "refused" if isinstance(exc, PolicyRefusal) else "error"
            refused = True
            error = exc.message
        except ValidationError as exc:
            outcome = "invalid"
            refused = True
            error = describe_validation_error(exc, spec.args_model)
        except Exception as exc:
            outcome = "crash"
            error = (
                f"{spec.name} failed unexpectedly ({type(exc).__name__}); the details are in the server log."
            )
            log.exception("tool crashed", extra={"tool": spec.name})
        finally:
            if attempt is not None and audited is not None and self.attempts is not None:
                # A mutating call that ended before the write gate (no such device, a bad value, a
                # timeout) still leaves its one audit line.
                self.attempts.end(attempt, spec.name, audited, error, refused=refused)
        answer = _envelope(spec.name, started, result=result, error=error)
        self._log_call(spec.name, arguments, started, outcome, error)
        return answer

    async def _check_available(self, spec: ToolSpec) -> None:
        if not spec.needs_gateway or self.unavailable is None or self.unavailable() is None:
            return
        if self.settle is not None:
            await self.settle()  # just after start: wait for the first load rather than refuse
        reason = self.unavailable()
        if reason is not None:
            raise UserError(f"Z-Wave service unavailable: {reason}")

    def refusal(
        self, name: str, arguments: Mapping[str, Any], message: str, started: float
    ) -> CallToolResult:
        spec = self.specs.get(name)
        audited = spec.audited(arguments) if spec is not None else None
        if audited is not None and self.attempts is not None:
            # Refused for its arguments or read-only mode: nothing was sent (as in `execute`).
            self.attempts.end(self.attempts.begin(), name, audited, message, refused=True)
        self._log_call(name, arguments, started, "rejected", message)
        return _envelope(name, started, error=message)

    def _log_call(
        self, name: str, arguments: Mapping[str, Any], started: float, outcome: str, error: str | None
    ) -> None:
        duration_ms = round((time.perf_counter() - started) * 1000, 3)
        fields: dict[str, Any] = {
            "tool": name,
            "arguments": redact(dict(arguments)),
            "duration_ms": duration_ms,
            "outcome": outcome,
        }
        if error:
            fields["error"] = error
        if duration_ms > self.slow_call_ms:
            log.warning("slow tool call", extra=fields)
        else:
            log.info("tool call", extra=fields)

    async def middleware(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        """SDK middleware: every request runs as its caller (`acting_as`: the gate, the audit and the
        rate limits read it); a reading request needs the caller's read access; `tools/call` is
        intercepted before the SDK validates; everything else passes."""
        with acting_as(self.who_calls(ctx)) as caller:
            if ctx.method in READING_METHODS and not caller.allows(Reach.READ):
                log.warning(
                    "request refused: no read access", extra={"method": ctx.method, "client": caller.client}
                )
                raise MCPError(INVALID_REQUEST, caller.refusal("read the home", Reach.READ))
            if ctx.method != "tools/call" or not isinstance(ctx.params, Mapping):
                return await call_next(ctx)
            return await self._call(ctx, call_next, caller)

    async def _call(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext, caller: Caller) -> Any:
        assert isinstance(ctx.params, Mapping)
        started = time.perf_counter()
        name = str(ctx.params.get("name", ""))
        arguments = ctx.params.get("arguments") or {}
        if not isinstance(arguments, Mapping):
            return self.refusal(name, {}, "Tool arguments must be a JSON object.", started)
        spec = self.specs.get(name)
        if spec is not None and spec.needs is not None and not caller.allows(spec.needs):
            text = "use the network-care tools" if spec.needs is Reach.ADMIN else "read the home"
            return self.refusal(name, arguments, caller.refusal(text, spec.needs), started)
        normalized = self.prepare(name, arguments)
        if isinstance(normalized, str):
            return self.refusal(name, arguments, normalized, started)
        return await call_next(replace(ctx, params={**ctx.params, "arguments": normalized}))
