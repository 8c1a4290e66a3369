"""`zwave-mcp` command line: serve (default), config, tools, check-stdio, simulate, demo, explain, passphrase,
clients.

`zwave-mcp` alone (or followed only by settings flags) serves, because that is how MCP clients start it;
`zwave-mcp --help` lists the commands and `zwave-mcp COMMAND --help` explains one. Heavy imports happen
inside the subcommands, after stdout is protected, so nothing an import prints can reach the MCP client.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from zwave_mcp.commands.settings_flags import add_settings_flags, settings_from
from zwave_mcp.stdio.transport import StdioWire, protect_stdout

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from zwave_mcp.config import Settings

SUBCOMMANDS = (
    "serve",
    "config",
    "tools",
    "check-stdio",
    "simulate",
    "demo",
    "explain",
    "passphrase",
    "clients",
)
HELP_FLAGS = ("-h", "--help")
# The commands that parse their own arguments, imported only when run: module and function.
PASSTHROUGH = {
    "check-stdio": ("zwave_mcp.stdio.check", "check_stdio_main"),
    "simulate": ("zwave_mcp.commands.simulate", "main"),
    "demo": ("zwave_mcp.commands.demo", "main"),
    "explain": ("zwave_mcp.commands.explain", "main"),
    "passphrase": ("zwave_mcp.commands.passphrase", "main"),
    "clients": ("zwave_mcp.commands.clients", "main"),
}


def _build_parser() -> argparse.ArgumentParser:
    from zwave_mcp import __version__
    from zwave_mcp.commands.passphrase import state_dir_flag

    parser = argparse.ArgumentParser(
        prog="zwave-mcp",
        usage="zwave-mcp [COMMAND] [OPTIONS]",
        description="MCP stdio server for Z-Wave homes run by zwave-js-ui's MQTT gateway. With no command "
        "it serves (that is how an MCP client starts it).",
        epilog="Settings come from ZWAVE_MCP_* environment variables or the flags of serve/config/tools/explain. "
        "Run 'zwave-mcp COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"zwave-mcp {__version__}")
    sub = parser.add_subparsers(dest="command", title="commands", metavar="COMMAND")
    serve = sub.add_parser(
        "serve",
        prog="zwave-mcp serve",
        help="run the MCP stdio server (the default; an MCP client starts this), or with --http the "
        "always-on home service over Streamable HTTP",
    )
    http = serve.add_argument_group("home service (Streamable HTTP, OAuth; see docs/remote.md)")
    http.add_argument(
        "--http",
        nargs="?",
        const="",
        metavar="[HOST:]PORT",
        help="serve over Streamable HTTP at http://HOST:PORT/mcp (default 127.0.0.1:8765) instead of stdio",
    )
    # --tls-cert/--tls-key are the MQTT connection's client certificate (settings); these are the service's.
    http.add_argument(
        "--http-tls-cert", metavar="FILE", help="the service's TLS certificate (PEM), needed off loopback"
    )
    http.add_argument("--http-tls-key", metavar="FILE", help="the service's TLS private key (PEM)")
    http.add_argument(
        "--behind-proxy",
        metavar="URL",
        help="the public https address a reverse proxy or tunnel serves this at: the OAuth issuer and the "
        "only Host/Origin allowed",
    )
    state_dir_flag(serve)  # with --http: the sign-in's store, as `zwave-mcp passphrase` and `clients` find it
    add_settings_flags(serve)
    config = sub.add_parser(
        "config",
        prog="zwave-mcp config",
        help="print the effective settings as JSON, secrets redacted, and the policy list entries that "
        "match no device on the network",
    )
    add_settings_flags(config)
    tools = sub.add_parser(
        "tools", prog="zwave-mcp tools", help="print the tool definitions as JSON for another client format"
    )
    tools.add_argument("--format", choices=("mcp", "openai", "ollama", "anthropic"), default="mcp")
    add_settings_flags(tools)
    # These parse their own arguments (`zwave-mcp check-stdio --help` shows them).
    for name, text in {
        "check-stdio": "check that a stdio MCP server writes only JSON-RPC to stdout (calls read-only tools "
        "only unless --include-writes)",
        "simulate": "run a simulated zwave-js-ui against your MQTT broker (no hardware)",
        "demo": "try everything on a simulated home: no hardware, no broker",
        "explain": "print how each device is understood (kind, readings, actions, unused values), from the "
        "live network or a house file (--house): what a bug report needs",
        "passphrase": "set the home's passphrase, which the home service's consent page asks before it "
        "approves a client",
        "clients": "list the clients approved to use the home service; 'clients revoke NAME' ends one at once",
    }.items():
        sub.add_parser(name, help=text, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in PASSTHROUGH:
        module, function = PASSTHROUGH[argv[0]]
        command: Callable[[list[str]], int] = getattr(importlib.import_module(module), function)
        return command(argv[1:])
    if argv and argv[0] in (*HELP_FLAGS, "--version"):
        _build_parser().parse_args(argv[:1])  # prints the command list or the version, then exits 0
    if not argv or argv[0].startswith("-"):
        argv = ["serve", *argv]
    # Before anything else is imported: from here on only the MCP transport can write to the real stdout.
    stdio = argv[0] == "serve" and not any(a == "--http" or a.startswith("--http=") for a in argv)
    wire = protect_stdout() if stdio and not set(HELP_FLAGS) & set(argv) else None

    from zwave_mcp.config import ConfigError, settings_warnings

    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        settings = settings_from(args)
    except ConfigError as exc:
        print(f"zwave-mcp: invalid setting: {exc}", file=sys.stderr)
        return 2

    for note in settings_warnings(settings):
        print(f"zwave-mcp: warning: {note}", file=sys.stderr)
    if args.command == "config":
        import asyncio

        from zwave_mcp.commands.config_check import policy_entry_report
        from zwave_mcp.history import where_history_lives
        from zwave_mcp.logs import configure_logging

        configure_logging(settings.log_level, settings.log_format)  # the check's log lines, as the server's
        shown = {**settings.redacted(), **asyncio.run(policy_entry_report(settings))}
        shown["history_path"] = where_history_lives(settings.history_path)
        if settings.mqtt_version == "auto":  # which one is in use is only known once connected
            shown["mqtt_version"] = "auto (MQTT 5, or 3.1.1 when the broker refuses 5; the log says which)"
        print(json.dumps(shown, indent=2, sort_keys=True))
        return 0
    if args.command == "tools":
        return _print_tools(settings, args.format)
    if args.http is not None:
        return serve_http(settings, args)
    return serve(settings, wire or protect_stdout())


def serve(settings: Settings, wire: StdioWire) -> int:
    """Run the stdio server until stdin closes or a signal arrives."""
    from zwave_mcp.stdio.transport import run_stdio

    server = _checked_server(settings)
    if server is None:
        return 1
    run_stdio(server, wire=wire, drain_timeout=settings.tool_timeout)
    return 0


def serve_http(settings: Settings, args: argparse.Namespace) -> int:
    """Run the home service until SIGTERM: exposure checked, OAuth built (until a passphrase is set, it approves nobody)."""
    from zwave_mcp.logs import configure_logging
    from zwave_mcp.service.http import ServiceSetupError, exposure_for
    from zwave_mcp.service.run import check_one_service, home_auth, serve_http

    configure_logging(settings.log_level, settings.log_format)
    try:
        exposure = exposure_for(
            args.http, tls_cert=args.http_tls_cert, tls_key=args.http_tls_key, behind_proxy=args.behind_proxy
        )
        check_one_service(settings)
        auth = home_auth(exposure, admin=settings.admin, state_dir=args.state_dir)
    except ServiceSetupError as exc:
        print(f"zwave-mcp: {exc}", file=sys.stderr)
        return 2
    return serve_http(settings, exposure, auth=auth, tls_cert=args.http_tls_cert, tls_key=args.http_tls_key)


def _checked_server(settings: Settings) -> MCPServer[Any] | None:
    """Logging set up, the server once the SDK and paho parts it needs are known to exist (else one line)."""
    from zwave_mcp.logs import configure_logging
    from zwave_mcp.server.build import build_server
    from zwave_mcp.server.compat import CompatError, check

    configure_logging(settings.log_level, settings.log_format)
    try:
        server = build_server(settings)
        check(server)
    except CompatError as exc:
        print(f"zwave-mcp: cannot run with the installed packages: {exc}", file=sys.stderr)
        return None
    return server


def _print_tools(settings: Settings, fmt: str) -> int:
    from zwave_mcp.commands.export import export_tools

    server = _checked_server(settings)
    if server is None:
        return 1
    tools: list[dict[str, Any]] = export_tools(server, fmt)
    print(json.dumps(tools, indent=2))
    return 0
