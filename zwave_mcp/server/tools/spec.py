"""How a tool is declared: `tool(function, ...)` reads its `ToolSpec` off the function, as the SDK reads a
decorated one. The tool's name is the function's, its description the function's docstring (as one line), its
argument and result models the function's annotations (`(app, args: XArgs, ctx) -> XResult`); a tool that only
reads is annotated `READ`, one that changes something `CONTROL`, unless it says otherwise."""

from __future__ import annotations

import inspect
from typing import Any, get_type_hints

from mcp_types import ToolAnnotations

from zwave_mcp.server.executor import Handler, ToolSpec

READ = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
CONTROL = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True
)


def tool(
    function: Handler, *, mutating: bool = False, annotations: ToolAnnotations | None = None, **options: Any
) -> ToolSpec:
    """The `ToolSpec` of a tool function; `options` are the rest of `ToolSpec`'s (title, needs_gateway)."""
    hints = get_type_hints(function)
    args = list(inspect.signature(function).parameters)[1]  # after the app, which the server binds
    return ToolSpec(
        function.__name__,
        " ".join((function.__doc__ or "").split()),  # the docstring's lines, wrapped for the reader
        hints[args],
        hints["return"],
        function,
        mutating=mutating,
        annotations=annotations or (CONTROL if mutating else READ),
        **options,
    )
