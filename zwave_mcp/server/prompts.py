"""MCP prompts: ready-made questions a client can offer the person.

A prompt's arguments land in text the model reads, so none is copied in as given: a device, room or scene
is looked up first and the prompt names it as the house does (and `completion/complete` offers those
names, see completions.py). A name that matches nothing is an error that says what exists.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, TypeVar

from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from zwave_mcp.devices.resolve import echo, normalize
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.server.app import App, bound
from zwave_mcp.server.tools.scenes import pick_scene, scenes_from

T = TypeVar("T")
MAX_MINUTES = 24 * 60


async def check_prompt(
    server: MCPServer[Any], ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> Any:
    """SDK middleware: a `prompts/get` for a prompt that does not exist, or without an argument it
    needs, is the client's mistake (-32602, saying what exists). The SDK would answer an internal error
    (error code 0 in one protocol era, -32603 in the other) and log a traceback."""
    if ctx.method != "prompts/get" or not isinstance(ctx.params, Mapping):
        return await call_next(ctx)
    name, given = ctx.params.get("name"), ctx.params.get("arguments") or {}
    prompts = {prompt.name: prompt for prompt in await server.list_prompts()}
    prompt = prompts.get(name) if isinstance(name, str) else None
    if prompt is None:
        shown = echo(name) if isinstance(name, str) else repr(type(name).__name__)
        raise MCPError(INVALID_PARAMS, f"No prompt named '{shown}'. The prompts are: {', '.join(prompts)}.")
    needed = [a.name for a in prompt.arguments or [] if a.required]
    missing = [a for a in needed if not isinstance(given, Mapping) or a not in given]
    if missing:
        raise MCPError(INVALID_PARAMS, f"The prompt {name} needs the argument {', '.join(missing)}.")
    return await call_next(ctx)


async def _house(app: App) -> None:
    """As resources and completions do: just after start, wait (bounded) for the first load; a house
    that cannot be read is said so, never answered as an empty one ("The rooms are: none")."""
    reason = await app.gateway.settled_reason()
    if reason is not None:
        raise MCPError(INTERNAL_ERROR, f"Z-Wave service unavailable: {reason}.")


def home_status_summary(_app: App) -> str:
    """A short spoken summary of the home: what is on, open or unlocked, and anything wrong."""
    return (
        "Give me a short summary of my home. Call check_zwave_health, then list_zwave_devices. Mention "
        "anything unlocked or open, lights that are on, the temperatures, low batteries and devices that "
        "are not responding. Keep it to a few plain sentences I can listen to."
    )


def what_changed(_app: App, minutes: str = "60") -> str:
    """What changed recently (minutes, 1-1440, default 60), from the server's event history."""
    # The argument lands in text the model reads: only a number gets through.
    digits = minutes.strip()  # isdecimal, not isdigit: int() refuses digits such as "²"
    minutes = str(min(max(int(digits), 1), MAX_MINUTES)) if digits.isdecimal() and len(digits) < 6 else "60"
    return (
        f"What changed in my home in the last {minutes} minutes? Call get_recent_events with "
        f"minutes={minutes} and tell me the notable changes in plain sentences, newest first."
    )


async def device_status(app: App, device: str) -> str:
    """Everything about one device (its name as you say it): state, readings, battery, whether it responds."""
    await _house(app)
    found = _or_invalid(lambda: app.devices.resolve(device))
    return (
        f"How is {found.label} doing? Call get_device_state with deviceName={found.name!r} and tell me its "
        "state, its readings and battery if it has them, and whether it is responding, in plain sentences."
    )


async def room_status(app: App, room: str) -> str:
    """What is on, open or unlocked in one room, and its temperatures."""
    await _house(app)
    wanted = normalize(room)
    rooms = {normalize(d.location): d.location for d in app.devices.devices() if d.location}
    if wanted not in rooms:
        known = ", ".join(sorted(set(rooms.values()))) or "none"
        raise MCPError(INVALID_PARAMS, f"No room named '{echo(room)}'. The rooms are: {known}.")
    name = rooms[wanted]
    return (
        f"What is happening in the {name}? Call list_zwave_devices with location={name!r} and tell me what "
        "is on, open or unlocked there, and the temperature, in a few plain sentences."
    )


async def start_scene(app: App, scene: str) -> str:
    """Start one of zwave-js-ui's scenes by name, and say what it did."""
    await _house(app)
    try:
        raw = await app.gateway.get_scenes(timeout=app.settings.api_timeout)
    except GatewayError as exc:
        raise MCPError(INVALID_PARAMS, f"Could not read the scenes from zwave-js-ui: {exc}.") from exc
    picked = _or_invalid(lambda: pick_scene(scenes_from(raw, app.devices.visible_value), scene))
    return (
        f"Start the scene {picked.label!r}: call activate_zwave_scene with scene={picked.label!r}, then tell "
        "me in one sentence what it did."
    )


PROMPTS: list[tuple[str, str, Callable[..., Any]]] = [
    ("home_status_summary", "Home status summary", home_status_summary),
    ("what_changed", "What changed in the last hour", what_changed),
    ("device_status", "How is this device?", device_status),
    ("room_status", "What is happening in a room?", room_status),
    ("start_scene", "Start a scene", start_scene),
]


def register_prompts(server: MCPServer[Any], app: App) -> None:
    """Add the prompts, each given the app, and the middleware that checks a `prompts/get` first."""
    server.middleware.append(partial(check_prompt, server))
    for name, title, prompt in PROMPTS:
        server.prompt(name=name, title=title)(bound(prompt, app))


def _or_invalid(find: Callable[[], T]) -> T:
    """The lookup's answer, or its sentence as the prompt's error (the client shows it)."""
    try:
        return find()
    except UserError as exc:
        raise MCPError(INVALID_PARAMS, exc.message) from exc
