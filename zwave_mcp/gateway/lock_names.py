"""Names zwave-mcp gives the users of locks that keep none (issue 37).

A User Code lock knows its users only as slots ("user 3"); zwave-js-ui's access control has no names for
them. So the name a person gives ("add a code for the cleaner", "call user 3 the cleaner") is kept here,
per home (the controller's home id) and lock node, in a small JSON file beside the history file
(`lock-names.json`), and put on the lock's users wherever they are read (`Inventory.given_names`): the
tool's list, and the lock events said by name. Never a code: names only. With history off or in memory the
names live as long as the server.

Two servers may share the file (one state folder): each save re-reads it and applies only this server's
own edits to what it holds now, under its lock (`state_files.update_json`), and each load of the network
re-reads it, so neither undoes the other's names. An entry that is not a lock user's name (a node or user
that is no plain number, such as "²", which `int()` takes and `str.isdigit` passes) is skipped with one
log line; the rest is used.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from zwave_mcp.config import Settings
from zwave_mcp.gateway.state_files import StateFileError, read_json, update_json
from zwave_mcp.safetext import plain_text

log = logging.getLogger(__name__)

FILE_NAME = "lock-names.json"
MAX_BYTES = 1_000_000
NAME_MAX = 64

Names = dict[int, dict[int, str]]  # lock node id → user id → name
Homes = dict[str, Names]  # home id → its names
Edit = tuple[str, int, int, str | None]  # home, node, user, the name (None: taken back)


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


def _number(key: object) -> int | None:
    """A node or user id as the file writes it ("3"); None for anything else ("²", "-1", "3.0", "")."""
    if isinstance(key, str) and key.isascii() and key.isdecimal() and len(key) <= 5:
        return int(key)
    return None


def _skip(path: Path | None, where: str, why: str) -> None:
    log.warning(
        "lock user name skipped: %s",
        why,
        extra={"path": str(path), "entry": plain_text(where, 80), "why": why},
    )


def parse_homes(raw: Any, path: Path | None = None) -> Homes:
    """The file's JSON as names; every entry that is not a lock user's name is skipped with one line."""
    homes: Homes = {}
    if raw is None:
        return homes
    if not isinstance(raw, dict):
        _skip(path, "the file", "it holds no object of homes")
        return homes
    for home, nodes in raw.items():
        if not isinstance(nodes, dict):
            _skip(path, home, "a home holds no object of locks")
            continue
        table: Names = {}
        for node, users in nodes.items():
            node_id = _number(node)
            if node_id is None or not isinstance(users, dict):
                _skip(path, f"{home}/{node}", "no lock node id, or no object of users")
                continue
            named: dict[int, str] = {}
            for user, name in users.items():
                user_id = _number(user)
                said = plain_text(name, NAME_MAX) if isinstance(name, str) else ""
                if user_id is None or not said:
                    _skip(path, f"{home}/{node}/{user}", "no user number, or no name")
                    continue
                named[user_id] = said
            if named:
                table[node_id] = named
        homes[str(home)] = table
    return homes


def _body(homes: Homes) -> dict[str, Any]:
    return {
        home: {str(node): {str(u): n for u, n in users.items()} for node, users in table.items() if users}
        for home, table in homes.items()
    }


def _edits(now: Homes, before: Homes) -> list[Edit]:
    """What changed in `now` since `before` (the file as last read or written): this server's edits."""
    edits: list[Edit] = []
    for home in now.keys() | before.keys():
        mine, theirs = now.get(home, {}), before.get(home, {})
        for node in mine.keys() | theirs.keys():
            users, old = mine.get(node, {}), theirs.get(node, {})
            for user in users.keys() | old.keys():
                if users.get(user) != old.get(user):
                    edits.append((home, node, user, users.get(user)))
    return edits


def _apply(homes: Homes, edits: list[Edit]) -> Homes:
    for home, node, user, name in edits:
        users = homes.setdefault(home, {}).setdefault(node, {})
        if name is None:
            users.pop(user, None)
            if not users:
                homes[home].pop(node, None)
        else:
            users[user] = name
    return homes


class LockNames:
    """The file's names, every home's; `for_home` gives (and keeps) one home's table, which the inventory
    changes in place (`Inventory.name_lock_user`) and `save` writes, merged with the file as it is then."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self.path: Path | None = None
        self._located = False
        self._homes: Homes = {}  # the tables handed out: always the same dict per home
        self._read_last: Homes = {}  # the file as last read or written: what the edits are measured against

    def _where(self) -> Path | None:
        if not self._located:
            self.path, self._located = names_path(self._settings), True
        return self.path

    def _take(self, fresh: Homes) -> None:
        """Put `fresh` (the file, with this server's unsaved edits) into the tables handed out, in place."""
        for home, table in fresh.items():
            mine = self._homes.setdefault(home, {})
            mine.clear()
            mine.update(table)
        for home in self._homes.keys() - fresh.keys():
            self._homes[home].clear()

    def _reread(self) -> None:
        path = self._where()
        if path is None:
            return
        edits = _edits(self._homes, self._read_last)
        try:
            on_file = parse_homes(read_json(path, MAX_BYTES), path)
        except (OSError, StateFileError) as exc:
            log.warning("lock user names not read", extra={"path": str(path), "why": str(exc)})
            return
        self._read_last = copy.deepcopy(on_file)
        self._take(_apply(on_file, edits))

    def for_home(self, home: str) -> Names:
        """This home's names, the file read again first (another server may have named someone)."""
        self._reread()
        return self._homes.setdefault(home, {})

    def save(self) -> None:
        """Write this server's edits into the file as it is now (re-read, merged, replaced at once, under
        its lock); a failure is one log line and the names stay in memory."""
        path = self._where()
        if path is None:
            return
        edits = _edits(self._homes, self._read_last)
        if not edits:
            return
        merged: Homes = {}

        def change(current: Any) -> dict[str, Any]:
            on_file = parse_homes(current, path)
            self._read_last = copy.deepcopy(on_file)
            merged.update(_apply(on_file, edits))
            return _body(merged)

        try:
            update_json(path, change, MAX_BYTES)
        except OSError as exc:
            log.warning("lock user names not saved", extra={"path": str(path), "why": str(exc)})
            return
        self._read_last = copy.deepcopy(merged)
        self._take(merged)
