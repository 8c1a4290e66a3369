"""Settings: CLI flags and `ZWAVE_MCP_*` environment variables (a flag wins), validated once at start.

A bad value becomes `ConfigError` with one line that names the setting and what is accepted; the CLI
prints it and exits 2.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_core.core_schema import ValidationInfo

from zwave_mcp.safetext import encodable

if TYPE_CHECKING:
    import ssl

ENV_PREFIX = "ZWAVE_MCP_"
DEFAULT_MQTT_URL = "mqtt://127.0.0.1:1883"
SECRET_FILE_MAX_BYTES = 64 * 1024
MQTT_STRING_MAX_BYTES = 65535
# What example entries hold where a value goes: an ellipsis, <a name>, changeme, or ${…} no client expanded.
PLACEHOLDER = r".*(?:…|\.\.\.|://<|@<).*|<[^<>]+>|change[ _-]?me|\$\{[^{}]*\}"


# Reading a small file a person named in a setting (a password, alias or policy file, a TLS file).
#
# Only a regular file is read, and never more than its limit: a path that leads to /dev/zero (directly or
# through a symlink) would be read forever, and a named pipe (FIFO) would block the open until something
# writes to it, so the server would hang at start instead of saying what is wrong.


def check_regular_file(path: str | Path) -> None:
    """Raise `OSError` (its `strerror` says why, for a person) unless `path` is a regular file."""
    mode = os.stat(path).st_mode  # follows symlinks: what the link leads to is what would be read
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "it is a pipe, socket or device, not a regular file", str(path))


def read_small_file(path: str | Path, limit: int) -> bytes:
    """The file's bytes, at most `limit + 1` of them (a caller that gets more knows it is too large)."""
    check_regular_file(path)
    with open(path, "rb") as file:
        return file.read(limit + 1)


class ConfigError(ValueError):
    """A setting has a value we cannot use; the message is meant for a person."""


class Settings(BaseModel):
    """Everything the server can be told. Field name `x_y` ↔ env `ZWAVE_MCP_X_Y` ↔ flag `--x-y`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mqtt_url: str = Field(DEFAULT_MQTT_URL, description="Broker URL, mqtt://[user@]host[:port] or mqtts://")
    mqtt_username: str | None = Field(None, description="Broker user (or put it in the URL)")
    mqtt_password: SecretStr | None = Field(
        None, description="Broker password (or ZWAVE_MCP_MQTT_PASSWORD_FILE)"
    )
    mqtt_version: Literal["auto", "3.1.1", "5"] = Field(
        "auto", description="MQTT protocol version; auto tries 5, then 3.1.1 if the broker refuses 5"
    )
    mqtt_client_id: str | None = Field(None, description="MQTT client id (default: unique per process)")
    mqtt_keepalive: int = Field(30, ge=5, le=3600, description="MQTT keepalive in seconds")
    tls_ca: Path | None = Field(None, description="CA bundle for mqtts://")
    tls_cert: Path | None = Field(None, description="Client certificate for mqtts://")
    tls_key: Path | None = Field(None, description="Client key for mqtts://")
    tls_key_password: SecretStr | None = Field(None, description="Passphrase of the client key")
    tls_insecure: bool = Field(False, description="Skip TLS certificate verification (not recommended)")
    prefix: str = Field("zwave", description="zwave-js-ui MQTT topic prefix")
    gateway_name: str = Field(
        "zwave-js-ui", description="zwave-js-ui MQTT name (its client id is ZWAVE_GATEWAY-<name>)"
    )
    tool_timeout: float = Field(30.0, gt=0, le=600, description="Seconds before a tool call is cancelled")
    api_timeout: float = Field(10.0, gt=0, le=600, description="Seconds to wait for a zwave-js-ui API reply")
    confirm_timeout: float = Field(
        5.0, ge=0, le=300, description="Seconds to wait for a device to report a write"
    )
    multicast: bool = Field(
        True,
        description="A group change sends one multicast frame to the nodes that take the same write; false: "
        "each its own write (a stick that cannot multicast holds every command behind one for about a minute)",
    )
    slow_call_ms: float = Field(1000.0, gt=0, description="Calls slower than this are logged as warnings")
    read_only: bool = Field(False, description="Refuse every write; mutating tools are not listed")
    dry_run: bool = Field(False, description="Show the MQTT messages a write would send, send nothing")
    admin: bool = Field(
        False, description="List the network-care tools (node details, parameters, inclusion, maintenance)"
    )
    aliases_file: Path | None = Field(
        None,
        description="JSON file of extra device names, and groups such as floors (a list of rooms or devices)",
    )
    # Safety policy (zwave_mcp.policy): lists are comma-separated names, rooms, node ids or capabilities.
    allow: str | None = Field(
        None, description="Only these devices can be changed, e.g. 'Kitchen,Living Room'"
    )
    deny: str | None = Field(
        None, description="These devices are never changed (still readable), e.g. 'lock,cover'"
    )
    hide: str | None = Field(None, description="These devices are not listed, read or changed")
    confirm_actions: str | None = Field(
        None,
        description="Actions that always need confirmation, e.g. 'open'; an unknown word stops the start",
    )
    confirm_devices: str | None = Field(None, description="Devices whose every change needs confirmation")
    forbid_sensitive: bool = Field(
        False, description="Refuse sensitive actions (unlock, …) instead of asking"
    )
    safe_temp_min: float = Field(10.0, description="Thermostat targets below this (°C) need confirmation")
    safe_temp_max: float = Field(28.0, description="Thermostat targets above this (°C) need confirmation")
    confirm_token_ttl: float = Field(60.0, gt=0, le=3600, description="Seconds a confirmation token is valid")
    rate_limit_device: int = Field(10, ge=0, description="Commands per minute to one device (0: no limit)")
    rate_limit_total: int = Field(60, ge=0, description="Commands per minute in all (0: no limit)")
    rate_limit_client: int = Field(
        30,
        ge=0,
        description="Commands per minute from one client of the home service over HTTP (0: no limit)",
    )
    audit_file: Path | None = Field(None, description="Also append the audit log (JSON lines) to this file")
    policy_file: Path | None = Field(None, description="TOML or JSON file with the policy settings")
    # History (zwave_mcp.history): an SQLite file of changes, energy readings and gate outcomes.
    history_path: str | None = Field(
        None,
        description="History file (default: the user state directory); 'off' turns history off, "
        "':memory:' keeps it only while the server runs",
    )
    history_days: float = Field(30.0, gt=0, le=3650, description="Days of history kept")
    history_max_mb: float = Field(
        500.0, gt=0, le=1_000_000, description="History file size cap in MB; the oldest changes go first"
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field("info", description="stderr log level")
    log_format: Literal["json", "text"] = Field("json", description="stderr log format")

    @field_validator("*", mode="before")
    @classmethod
    def _refuse_placeholders(cls, value: Any, info: ValidationInfo) -> Any:
        # An example entry copied unfilled would be taken as the real value: a password the broker refuses.
        if isinstance(value, str) and re.fullmatch(PLACEHOLDER, value.strip(), re.IGNORECASE):
            what = cls.model_fields[str(info.field_name)].description
            raise ValueError(f"is an example's placeholder, not a value; what goes there: {what}")
        return value

    @field_validator("mqtt_url")
    @classmethod
    def _check_url(cls, url: str) -> str:
        parts = urlsplit(url)
        if parts.scheme not in ("mqtt", "mqtts", "tcp", "ssl"):
            raise ValueError("must start with mqtt:// or mqtts://, e.g. mqtt://127.0.0.1:1883")
        if "@" in url.partition("://")[2] and "@" not in parts.netloc:
            # An unencoded #, / or ? ended the host part early: the password would become a path.
            raise ValueError(
                "has a user or password with #, / or ? in it: write them as %23, %2F and %3F, "
                "or better, put the password in ZWAVE_MCP_MQTT_PASSWORD or ZWAVE_MCP_MQTT_PASSWORD_FILE"
            )
        if not parts.hostname:
            raise ValueError("has no host, e.g. mqtt://127.0.0.1:1883")
        try:
            port = parts.port  # raises ValueError on a bad port
        except ValueError:
            port = 0
        if port == 0:  # ":0" is no port: the default would be used without a word
            raise ValueError("has a port that is not a number from 1 to 65535")
        return url

    @field_validator("mqtt_client_id", "mqtt_username", "mqtt_password")
    @classmethod
    def _check_mqtt_string(cls, value: str | SecretStr | None) -> str | SecretStr | None:
        # MQTT carries these with a 16-bit length: a longer one failed every connection attempt.
        text = value.get_secret_value() if isinstance(value, SecretStr) else value
        if text is not None and len(text.encode("utf-8")) > MQTT_STRING_MAX_BYTES:
            raise ValueError(f"is longer than MQTT allows ({MQTT_STRING_MAX_BYTES} bytes)")
        return value

    @field_validator("prefix", "gateway_name")
    @classmethod
    def _check_topic_part(cls, text: str) -> str:
        if not text or any(ch in text for ch in "+#\x00") or len(text) > 200:
            raise ValueError("must be 1-200 characters without +, # or NUL")
        if not text.isprintable():
            raise ValueError("must not hold control characters (a line break, a tab, …)")
        return text

    # Derived broker facts, so nobody parses the URL twice.
    @property
    def mqtt_host(self) -> str:
        return urlsplit(self.mqtt_url).hostname or "127.0.0.1"

    @property
    def mqtt_tls(self) -> bool:
        return urlsplit(self.mqtt_url).scheme in ("mqtts", "ssl")

    @property
    def mqtt_port(self) -> int:
        return urlsplit(self.mqtt_url).port or (8883 if self.mqtt_tls else 1883)

    @property
    def mqtt_user(self) -> str | None:
        user = urlsplit(self.mqtt_url).username
        return unquote(user) if user else self.mqtt_username

    @property
    def mqtt_secret(self) -> str | None:
        """The password: from ZWAVE_MCP_MQTT_PASSWORD(_FILE) or, failing that, the URL."""
        if self.mqtt_password is not None:
            return self.mqtt_password.get_secret_value()
        password = urlsplit(self.mqtt_url).password
        return unquote(password) if password else None

    def redacted(self) -> dict[str, Any]:
        """The effective settings as JSON-safe data with every secret replaced by `***`."""
        from zwave_mcp.logs import redact_url  # local: logs imports nothing from here

        data = self.model_dump(mode="json")
        data["mqtt_url"] = redact_url(self.mqtt_url)
        for key in ("mqtt_password", "tls_key_password"):
            if data.get(key) is not None:
                data[key] = "***"
        return data


def env_name(field_name: str) -> str:
    return ENV_PREFIX + field_name.upper()


def flag_name(field_name: str) -> str:
    return "--" + field_name.replace("_", "-")


# Older names still read (DESIGN.md's conventions used ZWAVE_MCP_GATEWAY for the gateway name).
ENV_ALIASES = {"ZWAVE_MCP_GATEWAY": "gateway_name"}

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _from_env(environ: Mapping[str, str]) -> dict[str, Any]:
    raw: dict[str, Any] = {}
    for name, field_info in Settings.model_fields.items():
        key = env_name(name)
        if key in environ:
            value: Any = environ[key]
            if field_info.annotation is bool:
                lowered = value.strip().lower()
                if lowered not in _TRUE | _FALSE:
                    raise ConfigError(f"{key}={value!r} is not a boolean; use true or false")
                value = lowered in _TRUE
            raw[name] = value
    for alias, name in ENV_ALIASES.items():
        if alias in environ and name not in raw:
            raw[name] = environ[alias]
    for secret in ("mqtt_password", "tls_key_password"):
        file_key = env_name(secret) + "_FILE"
        if file_key in environ and secret not in raw:
            raw[secret] = _read_secret_file(file_key, environ[file_key])
    return raw


def _read_secret_file(key: str, path: str) -> str:
    """The first line of a password file; a file that cannot be read or is not UTF-8 is a `ConfigError`."""
    shown = f"{key}={encodable(path)!r}"
    try:
        data = read_small_file(path, SECRET_FILE_MAX_BYTES)
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot read the file ({exc.strerror or exc})") from None
    if len(data) > SECRET_FILE_MAX_BYTES:
        raise ConfigError(f"{shown}: larger than {SECRET_FILE_MAX_BYTES} bytes; it should hold one password")
    try:
        return data.decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError:
        raise ConfigError(f"{shown}: the file is not UTF-8 text") from None


def build_tls_context(
    settings: Settings, logger: logging.Logger | logging.LoggerAdapter[logging.Logger] | None = None
) -> ssl.SSLContext:
    """The TLS settings as a context: verification on unless `tls_insecure`, a client certificate when
    one is configured. Raises OSError, ssl.SSLError or ValueError for files that cannot be used."""
    import ssl

    context = ssl.create_default_context(cafile=str(settings.tls_ca) if settings.tls_ca else None)
    if settings.tls_cert:
        password = settings.tls_key_password.get_secret_value() if settings.tls_key_password else None
        context.load_cert_chain(
            str(settings.tls_cert), str(settings.tls_key) if settings.tls_key else None, password
        )
    if settings.tls_insecure:
        (logger or logging.getLogger(__name__)).warning(
            "TLS certificate verification is switched off (tls_insecure); the broker is not authenticated"
        )
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def check_files(settings: Settings, audit_file: Path | None) -> None:
    """The files the settings name, tried at start so that a problem is one `ConfigError` line then, not a
    traceback (TLS) or a warning per write (audit) later. `audit_file` may come from the policy file."""
    if audit_file is not None:
        problem = None
        if audit_file.is_dir():
            problem = "is a directory, not a file"
        elif audit_file.is_fifo() or audit_file.is_socket():
            problem = "is a pipe or socket, not a file (writing to it could block every change)"
        elif audit_file.exists():
            problem = None if os.access(audit_file, os.W_OK) else "cannot be written (permission denied)"
        elif not audit_file.parent.is_dir():
            problem = "its directory does not exist"
        elif not os.access(audit_file.parent, os.W_OK):
            problem = "cannot be created (permission denied)"
        if problem:
            raise ConfigError(f"audit file {str(audit_file)!r} ({env_name('audit_file')}): {problem}")
    if settings.mqtt_tls:
        import ssl

        files = {n: getattr(settings, n) for n in ("tls_ca", "tls_cert", "tls_key")}
        try:
            for path in files.values():
                if path is not None:  # OpenSSL would read a pipe or device forever
                    check_regular_file(path)
            build_tls_context(settings)
        except (OSError, ssl.SSLError, ValueError) as exc:
            named = [f"{env_name(n)}={str(path)!r}" for n, path in files.items() if path is not None]
            given = ", ".join(named) or "the system CA bundle"
            raise ConfigError(f"{given}: cannot load ({getattr(exc, 'strerror', None) or exc})") from None


def settings_warnings(settings: Settings, environ: Mapping[str, str] | None = None) -> list[str]:
    """What a person should change although the server can run: unknown variables, a password in the URL."""
    notes = [f"ignoring unknown setting {unknown}" for unknown in unknown_env_vars(environ)]
    if urlsplit(settings.mqtt_url).password is not None:
        notes.append(
            "the MQTT URL holds a password, which ends up in shell history and process lists: "
            f"put it in {env_name('mqtt_password')} or {env_name('mqtt_password')}_FILE instead"
        )
    return notes


def unknown_env_vars(environ: Mapping[str, str] | None = None) -> list[str]:
    """`ZWAVE_MCP_*` variables no setting reads (typos would otherwise be silently ignored), with hints."""
    import difflib

    environ = os.environ if environ is None else environ
    known = {env_name(n) for n in Settings.model_fields}
    known |= {env_name(n) + "_FILE" for n in ("mqtt_password", "tls_key_password")} | set(ENV_ALIASES)
    notes = []
    for key in sorted(k for k in environ if k.startswith(ENV_PREFIX) and k not in known):
        close = difflib.get_close_matches(key, sorted(known), n=1)
        notes.append(f"{key} (did you mean {close[0]}?)" if close else key)
    return notes


def load_settings(
    overrides: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Environment first, then `overrides` (CLI flags, only those given) on top."""
    environ = os.environ if environ is None else environ
    raw = _from_env(environ)
    from_flags = {k: v for k, v in (overrides or {}).items() if v is not None}
    raw.update(from_flags)
    # The OS hands undecodable bytes of the environment and argv over as lone surrogates.
    raw = {k: encodable(v) if isinstance(v, str) else v for k, v in raw.items()}
    try:
        return Settings(**raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]) if err["loc"] else "settings"
        source = flag_name(name) if name in from_flags else env_name(name)
        shown = "***" if "password" in name else repr(raw.get(name))
        shown = shown if len(shown) <= 100 else shown[:99] + "…"
        if name == "mqtt_url":
            from zwave_mcp.logs import redact_url

            shown = repr(redact_url(str(raw.get(name))))
        message = err["msg"].removeprefix("Value error, ")
        raise ConfigError(f"{source}={shown}: {message}") from None
