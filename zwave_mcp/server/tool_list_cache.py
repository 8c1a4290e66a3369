"""The tool list of the last start, kept on disk, so a start can answer `tools/list` before it builds.

After `initialize`, building the tools (the SDK derives every argument and result schema) is most of what
a start does (~250 ms on a small machine), and clients ask `tools/list` right away. The list changes only
with the code, its libraries or the settings, so it is kept under a key made of all of them: the stat of
every source file of this package, the versions of Python and of the libraries that shape the schemas,
the settings (secrets left out) and the bytes of the files they name (a policy file can make the server
read-only, which hides tools). Once the server is built it compares the list it really has with the one
on disk and replaces a list that differs, so a stale list is never answered twice.

The file is outside input: it is read with a size limit, must parse as MCP tools, and anything else is
ignored (the server then builds before answering, as without a cache).
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp_types import Tool

    from zwave_mcp.config import Settings

log = logging.getLogger(__name__)

MAX_BYTES = 2 * 1024 * 1024  # a real list is ~40 KB; anything this large is not ours
FILE_PREFIX = "tools-"
_SCHEMA_LIBRARIES = ("mcp", "mcp_types", "pydantic", "pydantic_core")


def default_directory() -> Path:
    import platformdirs  # the platform's convention (XDG on Linux, Caches on macOS, …)

    return platformdirs.user_cache_path("zwave-mcp", appauthor=False)


class ToolListCache:
    """One file per key in `directory`; `load()` once per start, `store(tools)` when the list differs."""

    def __init__(self, settings: Settings, directory: Path | None = None) -> None:
        self._settings = settings
        self._directory = directory

    @functools.cached_property
    def directory(self) -> Path:
        return self._directory if self._directory is not None else default_directory()

    @functools.cached_property
    def path(self) -> Path:
        """Worked out when first needed: after `initialize` is answered, not before (~10-30 ms)."""
        return self.directory / f"{FILE_PREFIX}{cache_key(self._settings)}.json"

    def load(self) -> list[Tool] | None:
        """The stored list for this key, or None (none yet, unreadable, or not a list of MCP tools)."""
        from mcp_types import Tool
        from pydantic import ValidationError

        try:
            with open(self.path, "rb") as file:
                raw = file.read(MAX_BYTES + 1)
        except OSError:
            return None
        if len(raw) > MAX_BYTES:
            log.debug("tool list cache ignored: larger than %d bytes", MAX_BYTES)
            return None
        try:
            entries = json.loads(raw)
            if not isinstance(entries, list) or not entries:
                raise ValueError("not a list of tools")
            return [Tool.model_validate(entry) for entry in entries]
        except (ValueError, RecursionError, ValidationError) as exc:  # UnicodeDecodeError is a ValueError
            log.debug("tool list cache ignored: %s", str(exc)[:200])
            return None

    def store(self, tools: list[Tool]) -> None:
        """Write the list for this key (atomically) and remove the lists of other keys."""
        data = json.dumps(dump_tools(tools), ensure_ascii=False, separators=(",", ":")).encode()
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(data)
            os.replace(temporary, self.path)
        except OSError as exc:
            log.debug("tool list cache not written: %s", exc)
            temporary.unlink(missing_ok=True)
            return
        for old in self.directory.glob(f"{FILE_PREFIX}*.json"):
            if old != self.path:
                with contextlib.suppress(OSError):  # another start may be removing it too
                    old.unlink()


def dump_tools(tools: list[Tool]) -> list[dict[str, Any]]:
    """The tools as `tools/list` puts them on the wire (what is stored, and what is compared)."""
    return [tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in tools]


def cache_key(settings: Settings) -> str:
    import hashlib

    digest = hashlib.sha256()
    digest.update(sys.version.encode())
    for part in _code_fingerprint():
        digest.update(part.encode())
    shown = settings.redacted()  # secrets never reach the key, nor the file name
    digest.update(json.dumps(shown, sort_keys=True, default=str).encode())
    for name in ("policy_file", "aliases_file"):
        named = getattr(settings, name, None)
        if named is not None:
            try:
                digest.update(Path(named).read_bytes())
            except OSError:
                digest.update(b"unreadable")
    return digest.hexdigest()[:32]


def _code_fingerprint() -> list[str]:
    """Size and modification time of every source file of this package, and where and how new the
    libraries that shape the schemas are (an upgrade rewrites their files)."""
    import importlib.util

    parts: list[str] = []
    package = Path(__file__).resolve().parents[1]  # the zwave_mcp package
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        parts.append(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}")
    for library in _SCHEMA_LIBRARIES:
        spec = importlib.util.find_spec(library)
        origin = spec.origin if spec is not None else None
        if origin is None:
            parts.append(f"{library}:missing")
            continue
        stat = os.stat(origin)
        parts.append(f"{library}:{origin}:{stat.st_size}:{stat.st_mtime_ns}")
    return parts
