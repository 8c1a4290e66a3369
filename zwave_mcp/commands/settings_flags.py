"""The settings as command-line flags, shared by the commands that take them (serve, config, tools, explain):
one flag per setting, and the settings read from flags and environment with every file they name checked."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zwave_mcp.config import Settings


def add_settings_flags(parser: argparse.ArgumentParser) -> None:
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


def settings_from(args: argparse.Namespace) -> Settings:
    """The settings, with every file they name checked: any problem is one `ConfigError` line."""
    from zwave_mcp.config import ConfigError, Settings, check_files, env_name, load_settings
    from zwave_mcp.policy import PolicyConfig

    overrides = {name: getattr(args, name, None) for name in Settings.model_fields}
    settings = load_settings(overrides)
    policy = PolicyConfig.from_settings(settings)  # a bad list entry, band or policy file is one too
    check_files(settings, policy.audit_file)
    if settings.aliases_file is not None:  # read again by the device service; checked here for `config`
        from zwave_mcp.devices.errors import AliasFileError
        from zwave_mcp.devices.resolve import load_aliases

        try:
            load_aliases(settings.aliases_file)
        except AliasFileError as exc:
            raise ConfigError(f"{env_name('aliases_file')}: {exc}") from None
    return settings
