"""Every use of a private part of the MCP SDK, in one place, checked at start-up.

Private parts can be renamed in any release. Reading them through `getattr(..., default)` would degrade
silently; instead `check(server)` runs when the server starts and raises `CompatError` naming what is
missing, and `mcp` is pinned to the versions CI tested (pyproject.toml).
`python -m zwave_mcp.server.compat --check` lists each part, ok or what broke (`make test-newest-mcp` runs it,
and the tests, against the newest mcp 2.x in a venv of its own; CI runs it).

What is still private, and why we cannot do without it:
- `lowlevel_server(server)`: `MCPServer._lowlevel_server`. `MCPServer` serves stdio only through the SDK's
  own transport, which drops malformed lines unanswered (python-sdk #2751); the low-level `Server.run`
  over streams we supply is the only way to put our wire (zwave_mcp.stdio.transport) in front of the
  SDK's dispatcher. It is also where the 2025-era `resources/subscribe` handlers (resources.py) and the
  `logging/setLevel` handler (client_log.py) are registered: `MCPServer` has no public way to add a
  request handler.
- `connection_key(session)`: `ServerSession._connection`. The SDK builds a session per request; the
  connection behind it is what identifies one client across its requests (resource_updates.py,
  client_log.py, where its `initialized` event also says when log notifications may start).
- `mcp_server(**kwargs)`: `MCPServer(**kwargs)` without the call its constructor makes to its module's
  `configure_logging`, which imports rich for a `RichHandler` that `logging.basicConfig` then drops (our
  handler is on the root logger already): 37 ms and 1.4 MB of every start, whose first `tools/list` is
  held to 1.5x a bare MCPServer's (bench section 1), for nothing. The SDK has no switch for it.

`tools/call` uses none: it is the SDK's own handler behind our public middleware (executor.py), which
foresees one step of it, the JSON reading of string arguments (`sdk_reading`, tested against the SDK's).

paho-mqtt's one private part (`Client._sock_recv`, how the gateway reads a value flood) is not here: it
lives with its reason in `zwave_mcp.gateway.mqtt_reads`, which falls back on paho's public reader when an
installed paho lacks it.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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


def mcp_server(**kwargs: Any) -> MCPServer:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver import server as module

    configure = module.configure_logging
    module.configure_logging = _no_logging_setup
    try:
        return MCPServer(**kwargs)
    finally:
        module.configure_logging = configure


def _no_logging_setup(*_args: Any, **_kwargs: Any) -> None:
    """Logging is set up by zwave_mcp.logs before any server is built."""


def check(server: MCPServer) -> None:
    """Raise `CompatError` unless every private part above exists with the meaning we use."""
    problems = [problem for _part, problem in report(server) if problem is not None]
    if problems:
        raise CompatError(_explain(problems))


def report(server: MCPServer) -> list[tuple[str, str | None]]:
    """Each private part in use, by the name a maintainer greps for, with what is wrong (None: fine)."""
    found = []
    for part, probe in PROBES:
        try:
            problem = probe(server)
        except Exception as exc:  # a probe that cannot even run is itself the finding
            problem = f"{part}: {type(exc).__name__}: {exc}"
        found.append((part, problem))
    return found


def _lowlevel_probe(server: MCPServer) -> str | None:
    return None if hasattr(server, "_lowlevel_server") else "mcp: MCPServer has no _lowlevel_server"


def _logging_probe(server: MCPServer) -> str | None:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver import server as module

    if not callable(getattr(module, "configure_logging", None)) or "configure_logging" not in (
        MCPServer.__init__.__code__.co_names
    ):
        return "mcp: MCPServer no longer sets up logging through its module's configure_logging"
    return None


def _connection_probe(server: MCPServer) -> str | None:
    from mcp.server.session import ServerSession

    probe = SimpleNamespace(protocol_version="2025-06-18")
    try:
        session = ServerSession(None, probe)  # type: ignore[arg-type]
    except Exception as exc:
        return f"mcp: ServerSession cannot be built as expected ({exc})"
    if vars(session).get("_connection") is not probe:
        return "mcp: ServerSession keeps its connection elsewhere than _connection"
    return None


PROBES: list[tuple[str, Callable[[MCPServer], str | None]]] = [
    ("mcp: MCPServer._lowlevel_server", _lowlevel_probe),
    ("mcp: ServerSession._connection", _connection_probe),
    ("mcp: mcp.server.mcpserver.server.configure_logging, called by MCPServer()", _logging_probe),
]


def import_problems() -> list[str]:
    """Every zwave_mcp module imported: a public SDK name that moved shows up here, named."""
    import importlib
    import pkgutil

    import zwave_mcp

    problems = []
    for module in pkgutil.walk_packages(zwave_mcp.__path__, "zwave_mcp."):
        if module.name.rsplit(".", 1)[-1] == "__main__":  # running them would start a command
            continue
        try:
            importlib.import_module(module.name)
        except Exception as exc:
            problems.append(f"import {module.name}: {type(exc).__name__}: {exc}")
    return problems


def main(argv: list[str] | None = None) -> int:
    """`python -m zwave_mcp.server.compat --check`: each private part, ok or what broke; exit 1 if any broke."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m zwave_mcp.server.compat",
        description="Check the installed mcp and paho-mqtt for every private part zwave-mcp uses.",
    )
    parser.add_argument("--check", action="store_true", required=True, help="check and print each part")
    parser.parse_args(argv)
    installed = ", ".join(f"{name} {_version(name)}" for name in TESTED)
    tested = ", ".join(f"{name} {version}" for name, version in TESTED.items())
    print(f"Installed: {installed}; zwave-mcp was tested with {tested}.")
    broken = 0
    try:
        server = mcp_server(name="compat-check")
    except Exception as exc:
        print(f"BROKEN  mcp: MCPServer(name=...) cannot be built: {type(exc).__name__}: {exc}")
        return 1
    for part, problem in report(server):
        package = part.split(": ", 1)[0] + ": "
        if problem is not None and problem.startswith(package):
            problem = problem[len(package) :]  # "mcp: X: mcp: Y" says the package twice
        print(f"ok      {part}" if problem is None else f"BROKEN  {part}: {problem}")
        broken += problem is not None
    for problem in import_problems():
        print(f"BROKEN  {problem}")
        broken += 1
    print("Every part is there." if not broken else f"{broken} part(s) broke: see BROKEN above.")
    return 1 if broken else 0


def _explain(problems: list[str]) -> str:
    installed = ", ".join(f"{name} {_version(name)}" for name in TESTED)
    tested = ", ".join(f"{name} {version}" for name, version in TESTED.items())
    return f"{'; '.join(problems)}. Installed: {installed}; zwave-mcp was tested with {tested}."


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "(not installed)"


if __name__ == "__main__":
    raise SystemExit(main())
