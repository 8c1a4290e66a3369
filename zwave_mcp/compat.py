"""Every use of a private part of the MCP SDK or paho-mqtt, in one place, checked at start-up.

Private parts can be renamed in any release. Reading them through `getattr(..., default)` would degrade
silently; instead `check(server)` runs when the server starts and raises `CompatError` naming what is
missing, and `mcp` is pinned to the minor version this was tested with (pyproject.toml).

- `lowlevel_server(server)`: `MCPServer._lowlevel_server`, the SDK's only way to run with our own
  streams (stdio.py) and to register the 2025-era `resources/subscribe` handlers (resources.py).
- `connection_key(session)`: `ServerSession._connection`; the SDK builds a session per request, the
  connection behind it is what identifies a client (resource_updates.py, client_log.py: there its
  `initialized` event also says when log notifications may start).
- `close_socket(client)`: paho's `Client._sock_close`; paho has no public "close now" for loops driven
  from outside (mqtt.py).
- `mcp_server(**kwargs)`: `MCPServer(**kwargs)` without the call its constructor makes to its module's
  `configure_logging`, which imports rich for a `RichHandler` that `logging.basicConfig` then drops (our
  handler is on the root logger already): 37 ms and 1.4 MB of every start for nothing.
- `tracing_middleware()`: `mcp.server._otel.OpenTelemetryMiddleware`, which the stdio transport's direct
  lane for tools/call may pass by when no tracing is set up (stdio_direct.py). The lane also uses
  `mcp_types.methods.validate_client_request` and `serialize_server_result`, the SDK's own per-version
  request check and result shaping.
- `feed_reads(client, recv)`: paho reads its packets through `Client._sock_recv(bufsize)`; mqtt.py reads
  the socket itself (many packets per `recv`, QoS 0 PUBLISH decoded by mqtt_packets.py) and gives paho
  the other packets through `recv`, which serves them from memory.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import paho.mqtt.client as paho
    from mcp.server.lowlevel import Server
    from mcp.server.mcpserver import MCPServer
    from mcp.server.session import ServerSession

TESTED = {"mcp": "2.3", "paho-mqtt": "2.2"}


class CompatError(RuntimeError):
    """An installed dependency lacks a private part zwave-mcp relies on; the message is for a person."""


def lowlevel_server(server: MCPServer) -> Server[Any]:
    try:
        return server._lowlevel_server
    except AttributeError:
        raise CompatError(_explain(["mcp: MCPServer has no _lowlevel_server"])) from None


def connection_key(session: ServerSession) -> object:
    return session._connection


def close_socket(client: paho.Client) -> None:
    client._sock_close()


def feed_reads(client: paho.Client, recv: Callable[[int], bytes]) -> None:
    """From now on paho's packet reader takes its bytes from `recv` instead of the socket."""
    client._sock_recv = recv  # type: ignore[method-assign, assignment]


def mcp_server(**kwargs: Any) -> MCPServer:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver import server as module

    configure = module.configure_logging
    module.configure_logging = _no_logging_setup
    try:
        return MCPServer(**kwargs)
    finally:
        module.configure_logging = configure


def tracing_middleware() -> type:
    from mcp.server._otel import OpenTelemetryMiddleware

    return OpenTelemetryMiddleware


def _no_logging_setup(*_args: Any, **_kwargs: Any) -> None:
    """Logging is set up by zwave_mcp.logs before any server is built."""


def check(server: MCPServer) -> None:
    """Raise `CompatError` unless every private part above exists with the meaning we use."""
    import paho.mqtt.client as paho
    from mcp.server.session import ServerSession

    problems = []
    if not hasattr(server, "_lowlevel_server"):
        problems.append("mcp: MCPServer has no _lowlevel_server")
    probe = SimpleNamespace(protocol_version="2025-06-18")
    try:
        session = ServerSession(None, probe)  # type: ignore[arg-type]
        if vars(session).get("_connection") is not probe:
            problems.append("mcp: ServerSession keeps its connection elsewhere than _connection")
    except Exception as exc:
        problems.append(f"mcp: ServerSession cannot be built as expected ({exc})")
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver import server as module

    if not callable(getattr(module, "configure_logging", None)) or "configure_logging" not in (
        MCPServer.__init__.__code__.co_names
    ):
        problems.append("mcp: MCPServer no longer sets up logging through its module's configure_logging")
    try:
        tracing_middleware()
    except ImportError:
        problems.append("mcp: no OpenTelemetryMiddleware in mcp.server._otel")
    from mcp_types import methods

    for name in ("validate_client_request", "serialize_server_result"):
        if not callable(getattr(methods, name, None)):
            problems.append(f"mcp: mcp_types.methods has no {name}")
    if not callable(getattr(paho.Client, "_sock_close", None)):
        problems.append("paho-mqtt: Client has no _sock_close")
    packet_read = getattr(paho.Client, "_packet_read", None)
    if not callable(getattr(paho.Client, "_sock_recv", None)) or "_sock_recv" not in getattr(
        getattr(packet_read, "__code__", None), "co_names", ()
    ):
        problems.append("paho-mqtt: Client no longer reads its packets through _sock_recv")
    if problems:
        raise CompatError(_explain(problems))


def _explain(problems: list[str]) -> str:
    installed = ", ".join(f"{name} {_version(name)}" for name in TESTED)
    tested = ", ".join(f"{name} {version}" for name, version in TESTED.items())
    return f"{'; '.join(problems)}. Installed: {installed}; zwave-mcp was tested with {tested}."


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "(not installed)"
