"""Issue 41: a tool is one module-level function and one entry in its family's `TOOLS`; resources, prompts
and the completion handler are module-level functions too, and the server binds the app to each."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

from zwave_mcp.config import load_settings
from zwave_mcp.devices.writes import VALUE_ARGUMENTS
from zwave_mcp.server.app import build_app
from zwave_mcp.server.completions import complete
from zwave_mcp.server.prompts import PROMPTS
from zwave_mcp.server.resources import RESOURCES
from zwave_mcp.server.tools import PUBLIC, admin_tools, tool_specs
from zwave_mcp.server.tools.models import ChangeArgs, ControlArgs, GroupControlArgs


def module_level(function: Callable[..., Any]) -> bool:
    """Defined at the top of its module (a closure's qualified name has '<locals>' in it)."""
    module = sys.modules[function.__module__]
    return function.__qualname__ == function.__name__ and getattr(module, function.__name__) is function


def test_every_handler_is_a_module_level_function() -> None:
    handlers = [spec.handler for spec in [*PUBLIC, *admin_tools()]]
    handlers += [read for *_, read in RESOURCES] + [prompt for *_, prompt in PROMPTS] + [complete]
    assert [f.__qualname__ for f in handlers if not module_level(f)] == []
    # Each takes the app first: the server gives it (tools: then args and ctx, as the executor calls them).
    assert {next(iter(inspect.signature(f).parameters)) for f in handlers} <= {"app", "_app"}


def test_the_server_binds_each_tool_to_its_app() -> None:
    app = build_app(load_settings(environ={"ZWAVE_MCP_ADMIN": "true"}))
    specs = tool_specs(app)
    assert [s.name for s in specs] == [s.name for s in [*PUBLIC, *admin_tools()]]
    assert len({s.name for s in specs}) == len(specs)
    for spec, listed in zip(specs, [*PUBLIC, *admin_tools()], strict=True):
        assert isinstance(spec.handler, partial) and spec.handler.args == (app,)
        assert spec.handler.func is listed.handler
    assert [s.name for s in tool_specs(build_app(load_settings(environ={})))] == [s.name for s in PUBLIC]


def test_one_device_and_a_group_share_their_change_arguments() -> None:
    # The devices' value arguments are the tools' (one list, in devices/writes), each declared once.
    assert set(ChangeArgs.model_fields) - {"action", "confirmationToken"} == set(VALUE_ARGUMENTS)
    assert {"level", "value", "position", "setpoint", "mode", "color"} == set(VALUE_ARGUMENTS)
    shared = ["action", "level", "value", "position", "setpoint", "mode", "color", "confirmationToken"]
    assert list(ControlArgs.model_fields) == ["deviceName", *shared]
    assert list(GroupControlArgs.model_fields) == ["target", *shared]


def test_reads_are_annotated_read_only_and_changes_never_are() -> None:
    specs = [*PUBLIC, *admin_tools()]
    assert all(s.annotations is not None for s in specs)
    assert [s.name for s in specs if s.mutating and s.annotations and s.annotations.read_only_hint] == []
    # Listed in read-only mode (listing users is a read), yet every change it makes is one.
    unmarked = [
        s.name for s in specs if not s.mutating and s.annotations and not s.annotations.read_only_hint
    ]
    assert unmarked == ["manage_lock_users"]
