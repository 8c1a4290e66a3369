"""Names zwave-mcp gives the users of locks that keep none (issue 37).

A User Code lock knows its users only as slots ("user 3"); zwave-js-ui's access control has no names for
them. So the name a person gives ("add a code for the cleaner", "call user 3 the cleaner") is kept here,
per home (the controller's home id) and lock node, in a small JSON file beside the history file
(`lock-names.json`), and put on the lock's users wherever they are read (`Inventory.given_names`): the
tool's list, and the lock events said by name. Never a code: names only. With history off or in memory the
names live as long as the server.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from zwave_mcp.config import Settings, read_small_file

log = logging.getLogger(__name__)

FILE_NAME = "lock-names.json"
MAX_BYTES = 1_000_000
NAME_MAX = 64

Names = dict[int, dict[int, str]]  # lock node id → user id → name


# History settings that turn it off (as `zwave_mcp.history.history_path` reads them), and in memory.
_NO_FILE = ("off", "none", "false", "no", "0", "", ":memory:")


def names_path(settings: Settings) -> Path | None:
    """Beside the history file (its default place too); None when history is off or in memory. Resolved
    at the first load, not at start-up (the platform's state directory costs an import)."""
    where = settings.history_path
    if where is not None and where.strip().lower() in _NO_FILE:
        return None
    if where is None:
        import platformdirs  # the platform's convention, as the history's default

        return platformdirs.user_state_path("zwave-mcp", appauthor=False) / FILE_NAME
    return Path(where.strip()).expanduser().parent / FILE_NAME


def home_of(info: Mapping[str, Any]) -> str:
    """The controller's home id as zwave-js-ui's getInfo gives it, "unknown" before it answered."""
    home = info.get("homeid")
    return f"0x{home:08x}" if isinstance(home, int) and not isinstance(home, bool) and home > 0 else "unknown"


class LockNames:
    """The file's names, every home's; `for_home` gives (and keeps) one home's table to change in place."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self.path: Path | None = None
        self._homes: dict[str, Names] | None = None

    def _load(self) -> dict[str, Names]:
        if self._homes is not None:
            return self._homes
        self._homes = {}
        self.path = names_path(self._settings)
        if self.path is None or not self.path.exists():
            return self._homes
        try:
            raw = json.loads(read_small_file(self.path, MAX_BYTES)[:MAX_BYTES])
        except (OSError, ValueError) as exc:
            log.warning("lock user names not read", extra={"path": str(self.path), "why": str(exc)})
            return self._homes
        for home, nodes in raw.items() if isinstance(raw, dict) else ():
            table: Names = {}
            for node, users in nodes.items() if isinstance(nodes, dict) else ():
                named = {
                    int(user): str(name)[:NAME_MAX]
                    for user, name in (users.items() if isinstance(users, dict) else ())
                    if str(user).isdigit() and isinstance(name, str) and name.strip()
                }
                if str(node).isdigit() and named:
                    table[int(node)] = named
            self._homes[str(home)] = table
        return self._homes

    def for_home(self, home: str) -> Names:
        return self._load().setdefault(home, {})

    def save(self) -> None:
        """Write every home's names (atomically: a new file renamed over the old); a failure is one log line."""
        self._load()
        if self.path is None:
            return
        body = {
            home: {str(node): {str(u): n for u, n in users.items()} for node, users in table.items() if users}
            for home, table in self._load().items()
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".lock-names-")
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                json.dump(body, file, ensure_ascii=False, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError as exc:
            log.warning("lock user names not saved", extra={"path": str(self.path), "why": str(exc)})
