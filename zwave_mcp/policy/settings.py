"""The policy's settings: from `Settings` (env `ZWAVE_MCP_*` / flags) and an optional policy file.

The file (`ZWAVE_MCP_POLICY_FILE`) is TOML when its name ends in `.toml`, JSON otherwise, with the same keys
as the settings (lists as arrays or comma-separated text):

    read_only = false
    allow = ["Kitchen", "Living Room"]      # only these can be changed (empty: everything)
    deny = ["lock", "cover"]                # never changed, still visible and readable
    hide = ["node:7"]                       # not listed, not readable, not changed
    confirm_actions = ["open"]              # confirmed on every device, on top of the built-in rules
    confirm_devices = ["Garage Door"]       # every change to these is confirmed
    forbid_sensitive = false                # refuse sensitive changes instead of asking
    safe_temp_min = 10.0
    safe_temp_max = 28.0
    confirm_token_ttl = 60
    rate_limit_device = 10                  # per minute; 0 = no limit
    rate_limit_total = 60
    rate_limit_client = 30                  # one client of the home service (HTTP)
    audit_file = "/var/log/zwave-mcp/audit.jsonl"

Precedence: a setting given as env var or flag replaces the file's, except that safety only adds up:
`read_only` and `forbid_sensitive` are on when either source says so, and the deny, hide and confirm lists
of both sources are combined.
"""

from __future__ import annotations

import difflib
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zwave_mcp.config import ConfigError, Settings, env_name, read_small_file
from zwave_mcp.policy.actions import ACTIONS, normalize_action
from zwave_mcp.policy.sensitive import CONFIRMABLE_WORDS, SafeBand
from zwave_mcp.policy.terms import DeviceList, TermError, parse_terms, says_a_group
from zwave_mcp.safetext import json_kind, loads_json

POLICY_FILE_MAX_BYTES = 1_000_000
LIST_KEYS = ("allow", "deny", "hide", "confirm_devices")
_COMBINED = ("deny", "hide", "confirm_devices", "confirm_actions")
_SWITCHES = ("read_only", "forbid_sensitive")
_SCALARS = (
    "safe_temp_min",
    "safe_temp_max",
    "confirm_token_ttl",
    "rate_limit_device",
    "rate_limit_total",
    "rate_limit_client",
)
FILE_KEYS = frozenset((*LIST_KEYS, "confirm_actions", *_SWITCHES, *_SCALARS, "audit_file"))


@dataclass(frozen=True)
class PolicyConfig:
    """Everything `Policy` is built from; the defaults are the policy with no configuration at all."""

    read_only: bool = False
    allow: DeviceList = field(default_factory=DeviceList)
    deny: DeviceList = field(default_factory=DeviceList)
    hide: DeviceList = field(default_factory=DeviceList)
    confirm_devices: DeviceList = field(default_factory=DeviceList)
    confirm_actions: frozenset[str] = frozenset()
    forbid_sensitive: bool = False
    safe_band: SafeBand = field(default_factory=SafeBand)
    confirm_token_ttl: float = 60.0
    rate_limit_device: int = 10
    rate_limit_total: int = 60
    rate_limit_client: int = 30
    audit_file: Path | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> PolicyConfig:
        """Merge defaults < file < env/flags (`given`), with the safety exceptions in the module docstring.
        Raises `ConfigError` (one line naming the setting) for anything unusable."""
        given = {name: getattr(settings, name) for name in settings.model_fields_set if name in FILE_KEYS}
        path: Path | None = settings.policy_file
        from_file = load_policy_file(path) if path is not None else {}
        file_label = path.name if path else ""
        defaults = {name: getattr(settings, name) for name in FILE_KEYS}

        def pick(name: str) -> tuple[Any, str]:
            if name in given:
                return given[name], env_name(name)
            if name in from_file:
                return from_file[name], file_label
            return defaults.get(name), env_name(name)

        lists: dict[str, DeviceList] = {}
        for name in LIST_KEYS:
            try:
                if name in _COMBINED and name in given and name in from_file:
                    terms = parse_terms(_as_list(given[name]) + _as_list(from_file[name]))
                    source = f"{env_name(name)} and {file_label}"
                else:
                    value, source = pick(name)
                    terms = parse_terms(_as_list(value))
            except (TermError, ConfigError) as exc:
                raise ConfigError(f"{name} ({pick(name)[1]}): {exc}") from None
            if name == "allow" and (group := next((t for t in terms if says_a_group(t)), None)) is not None:
                raise ConfigError(
                    f"allow ({source}): '{group.text[:60]}' reads as a group, but the allow list is read "
                    "exactly, so it would allow nothing; name a room, a kind ('lock', 'light'), devices "
                    "or node:5"
                )
            lists[name] = DeviceList(terms, source)
        sources = [(given, env_name("confirm_actions")), (from_file, file_label)]
        if "confirm_actions" not in given and "confirm_actions" not in from_file:
            sources = [(defaults, env_name("confirm_actions"))]
        actions: set[str] = set()
        for src, label in sources:
            try:
                actions |= _confirmable(_as_list(src.get("confirm_actions")))
            except ConfigError as exc:
                raise ConfigError(f"confirm_actions ({label}): {exc}") from None

        def number(name: str, kind: type[float] | type[int]) -> Any:
            value, source = pick(name)
            try:
                parsed = kind(value)
                if not math.isfinite(parsed):
                    raise ValueError
            except (TypeError, ValueError, OverflowError):  # "x", a list, NaN, 1e400 (infinity)
                raise ConfigError(f"{name} ({source}): must be a number, not {str(value)[:40]!r}") from None
            return parsed

        for switch in _SWITCHES:  # "false" in a file would count as true: say so instead
            if switch in from_file and not isinstance(from_file[switch], bool):
                raise ConfigError(
                    f"{switch} ({file_label}): must be true or false, not {from_file[switch]!r:.40}"
                )
        low, high = number("safe_temp_min", float), number("safe_temp_max", float)
        try:
            band = SafeBand(low, high)
        except ValueError as exc:
            raise ConfigError(f"policy: {exc}") from None
        ttl = number("confirm_token_ttl", float)
        per_device, total = number("rate_limit_device", int), number("rate_limit_total", int)
        per_client = number("rate_limit_client", int)
        if not 0 < ttl <= 3600:
            raise ConfigError(f"confirm_token_ttl ({pick('confirm_token_ttl')[1]}): must be 1-3600 seconds")
        if per_device < 0 or total < 0 or per_client < 0:
            raise ConfigError(
                "rate_limit_device / rate_limit_total / rate_limit_client: must be 0 (no limit) or more"
            )
        audit, audit_source = pick("audit_file")
        if audit is not None and not isinstance(audit, str | Path):
            raise ConfigError(f"audit_file ({audit_source}): must be a file name, not {audit!r:.40}")
        return cls(
            read_only=any(bool(src.get("read_only")) for src in (defaults, given, from_file)),
            forbid_sensitive=any(bool(src.get("forbid_sensitive")) for src in (defaults, given, from_file)),
            confirm_actions=frozenset(actions),
            safe_band=band,
            confirm_token_ttl=ttl,
            rate_limit_device=per_device,
            rate_limit_total=total,
            rate_limit_client=per_client,
            audit_file=Path(audit) if audit else None,
            **lists,
        )


def _confirmable(words: list[str]) -> set[str]:
    """The action names of a confirm list; a word no change ever carries would confirm nothing, so it is
    refused with the closest known one."""
    names = {normalize_action(word) for word in words if str(word).strip()}
    for name in sorted(names - CONFIRMABLE_WORDS):
        close = difflib.get_close_matches(name, sorted(CONFIRMABLE_WORDS), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ConfigError(
            f"no action is called {name[:40]!r}; {hint}actions are {', '.join(ACTIONS)}, "
            "or a lock-user, maintenance or inclusion action (docs/settings.md)"
        )
    return names


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return value.split(",")
    if isinstance(value, list | tuple):
        return [str(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value]
    raise ConfigError(f"expected a list or comma-separated text, got {json_kind(value)}")


def load_policy_file(path: Path) -> dict[str, Any]:
    """Read a TOML (`.toml`) or JSON policy file; unknown keys and bad syntax are `ConfigError`s."""
    label = f"{env_name('policy_file')}={str(path)!r}"
    try:
        raw = read_small_file(path, POLICY_FILE_MAX_BYTES)
    except OSError as exc:
        raise ConfigError(f"{label}: cannot read it ({exc.strerror})") from None
    if len(raw) > POLICY_FILE_MAX_BYTES:
        raise ConfigError(f"{label}: larger than {POLICY_FILE_MAX_BYTES} bytes")
    toml = path.suffix.lower() == ".toml"
    try:
        data: Any = tomllib.loads(raw.decode("utf-8")) if toml else loads_json(raw)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ConfigError(f"{label}: not valid {'TOML' if toml else 'JSON'} ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{label}: must hold an object of settings")
    unknown = sorted(set(data) - FILE_KEYS)
    if unknown:
        raise ConfigError(f"{label}: unknown key {unknown[0]!r}; known keys: {', '.join(sorted(FILE_KEYS))}")
    return data
