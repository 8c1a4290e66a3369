"""MCP prompts: ready-made questions a client can offer the person.

A prompt's arguments land in text the model reads, so none is copied in as given: a device, room or scene
is looked up first and the prompt names it as the house does (and `completion/complete` offers those
names, see completions.py). A name that matches nothing is an error that says what exists.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from zwave_mcp.devices.resolve import echo, normalize
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.api import GatewayError

if TYPE_CHECKING:
    from zwave_mcp.server.app import App


T = TypeVar("T")
MAX_MINUTES = 24 * 60


def register_prompts(server: MCPServer[Any], app: App) -> None:
    async def check_prompt(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
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
            raise MCPError(
                INVALID_PARAMS, f"No prompt named '{shown}'. The prompts are: {', '.join(prompts)}."
            )
        needed = [a.name for a in prompt.arguments or [] if a.required]
        missing = [a for a in needed if not isinstance(given, Mapping) or a not in given]
        if missing:
            raise MCPError(INVALID_PARAMS, f"The prompt {name} needs the argument {', '.join(missing)}.")
        return await call_next(ctx)

    server.middleware.append(check_prompt)

    async def house() -> None:
        """As resources and completions do: just after start, wait (bounded) for the first load; a house
        that cannot be read is said so, never answered as an empty one ("The rooms are: none")."""
        reason = await app.gateway.settled_reason()
        if reason is not None:
            raise MCPError(INTERNAL_ERROR, f"Z-Wave service unavailable: {reason}.")

    @server.prompt(name="home_status_summary", title="Home status summary")
    def home_status_summary() -> str:
        """A short spoken summary of the home: what is on, open or unlocked, and anything wrong."""
        return (
            "Give me a short summary of my home. Call check_zwave_health, then list_zwave_devices. Mention "
            "anything unlocked or open, lights that are on, the temperatures, low batteries and devices that "
            "are not responding. Keep it to a few plain sentences I can listen to."
        )

    @server.prompt(name="what_changed", title="What changed in the last hour")
    def what_changed(minutes: str = "60") -> str:
        """What changed recently (minutes, 1-1440, default 60), from the server's event history."""
        # The argument lands in text the model reads: only a number gets through.
        digits = minutes.strip()  # isdecimal, not isdigit: int() refuses digits such as "²"
        minutes = (
            str(min(max(int(digits), 1), MAX_MINUTES)) if digits.isdecimal() and len(digits) < 6 else "60"
        )
        return (
            f"What changed in my home in the last {minutes} minutes? Call get_recent_events with "
            f"minutes={minutes} and tell me the notable changes in plain sentences, newest first."
        )

    @server.prompt(name="device_status", title="How is this device?")
    async def device_status(device: str) -> str:
        """Everything about one device (its name as you say it): state, readings, battery, whether it responds."""
        await house()
        found = _or_invalid(lambda: app.devices.resolve(device))
        return (
            f"How is {found.label} doing? Call get_device_state with deviceName={found.name!r} and tell me its "
            "state, its readings and battery if it has them, and whether it is responding, in plain sentences."
        )

    @server.prompt(name="room_status", title="What is happening in a room?")
    async def room_status(room: str) -> str:
        """What is on, open or unlocked in one room, and its temperatures."""
        await house()
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

    @server.prompt(name="start_scene", title="Start a scene")
    async def start_scene(scene: str) -> str:
        """Start one of zwave-js-ui's scenes by name, and say what it did."""
        from zwave_mcp.server.tools.scenes import pick_scene, scenes_from

        await house()
        try:
            raw = await app.gateway.get_scenes(timeout=app.settings.api_timeout)
        except GatewayError as exc:
            raise MCPError(INVALID_PARAMS, f"Could not read the scenes from zwave-js-ui: {exc}.") from exc
        picked = _or_invalid(lambda: pick_scene(scenes_from(raw, app.devices.visible_value), scene))
        return (
            f"Start the scene {picked.label!r}: call activate_zwave_scene with scene={picked.label!r}, then tell "
            "me in one sentence what it did."
        )


def _or_invalid(find: Callable[[], T]) -> T:
    """The lookup's answer, or its sentence as the prompt's error (the client shows it)."""
    try:
        return find()
    except UserError as exc:
        raise MCPError(INVALID_PARAMS, exc.message) from exc
