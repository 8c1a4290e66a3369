"""`zwave-mcp` command line: serve (default), config, tools, check-stdio, simulate, demo.

Heavy imports happen inside the subcommands, after stdout is protected, so nothing an import prints can
reach the MCP client.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from zwave_mcp.stdio import StdioWire, protect_stdout

if TYPE_CHECKING:
    from zwave_mcp.config import Settings

SUBCOMMANDS = ("serve", "config", "tools", "check-stdio", "simulate", "demo")


def _add_settings_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per setting, named after it (`mqtt_url` → `--mqtt-url`); env vars are the fallback."""
    from zwave_mcp.config import Settings, flag_name

    group = parser.add_argument_group("settings (each also as env ZWAVE_MCP_<NAME>)")
    for name, info in Settings.model_fields.items():
        if info.annotation is bool:
            group.add_argument(
                flag_name(name), dest=name, action="store_const", const=True, help=info.description
            )
        else:
            group.add_argument(flag_name(name), dest=name, metavar=name.upper(), help=info.description)


def _settings_from(args: argparse.Namespace) -> Settings:
    from zwave_mcp.config import Settings, load_settings
    from zwave_mcp.policy import PolicyConfig

    overrides = {name: getattr(args, name, None) for name in Settings.model_fields}
    settings = load_settings(overrides)
    PolicyConfig.from_settings(settings)  # a bad list entry, band or policy file is a setting error too
    return settings


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zwave-mcp",
        description="MCP stdio server for Z-Wave homes run by zwave-js-ui's MQTT gateway.",
    )
    sub = parser.add_subparsers(dest="command")
    serve = sub.add_parser("serve", help="run the MCP stdio server (the default)")
    _add_settings_flags(serve)
    config = sub.add_parser("config", help="print the effective settings as JSON, secrets redacted")
    _add_settings_flags(config)
    tools = sub.add_parser("tools", help="print the tool definitions for another client format")
    tools.add_argument("--format", choices=("mcp", "openai", "ollama", "anthropic"), default="mcp")
    _add_settings_flags(tools)
    sub.add_parser(
        "check-stdio", help="check that a stdio MCP server writes only JSON-RPC to stdout", add_help=False
    )
    sub.add_parser("simulate", help="run the zwave-js-ui simulator against a broker", add_help=False)
    sub.add_parser("demo", help="try everything on a simulated home: no hardware, no broker", add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Passthrough subcommands parse their own arguments.
    if argv and argv[0] == "check-stdio":
        from zwave_mcp.stdio_check import check_stdio_main

        return check_stdio_main(argv[1:])
    if argv and argv[0] == "simulate":
        from zwave_mcp.simulator.cli import main as simulate_main

        return simulate_main(argv[1:])
    if argv and argv[0] == "demo":
        from zwave_mcp.demo import main as demo_main

        return demo_main(argv[1:])
    if not argv or argv[0].startswith("-"):
        argv = ["serve", *argv]
    # Before anything else is imported: from here on only the MCP transport can write to the real stdout.
    wire = protect_stdout() if argv[0] == "serve" and "-h" not in argv and "--help" not in argv else None

    from zwave_mcp.config import ConfigError, unknown_env_vars

    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        settings = _settings_from(args)
    except ConfigError as exc:
        print(f"zwave-mcp: invalid setting: {exc}", file=sys.stderr)
        return 2

    for unknown in unknown_env_vars():
        print(f"zwave-mcp: warning: ignoring unknown setting {unknown}", file=sys.stderr)
    if args.command == "config":
        shown = settings.redacted()
        if settings.mqtt_version == "auto":  # which one is in use is only known once connected
            shown["mqtt_version"] = "auto (MQTT 5, or 3.1.1 when the broker refuses 5; the log says which)"
        print(json.dumps(shown, indent=2, sort_keys=True))
        return 0
    if args.command == "tools":
        return _print_tools(settings, args.format)
    return serve(settings, wire or protect_stdout())


def serve(settings: Settings, wire: StdioWire) -> int:
    """Run the stdio server until stdin closes or a signal arrives."""
    from zwave_mcp.logs import configure_logging

    configure_logging(settings.log_level, settings.log_format)
    from zwave_mcp.server import build_server
    from zwave_mcp.stdio import run_stdio

    server = build_server(settings)
    run_stdio(server, wire=wire, drain_timeout=settings.tool_timeout)
    return 0


def _print_tools(settings: Settings, fmt: str) -> int:
    from zwave_mcp.export import export_tools
    from zwave_mcp.logs import configure_logging
    from zwave_mcp.server import build_server

    configure_logging(settings.log_level, settings.log_format)
    server = build_server(settings)
    tools: list[dict[str, Any]] = export_tools(server, fmt)
    print(json.dumps(tools, indent=2))
    return 0
