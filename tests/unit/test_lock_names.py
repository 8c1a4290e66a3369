"""Names zwave-mcp keeps for the users of User Code locks (which keep none): where the file lives, what a
damaged file does, and that the picture's lock users carry them (a User Credential lock keeps its own)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zwave_mcp.config import Settings
from zwave_mcp.gateway.access import parse_state
from zwave_mcp.gateway.lock_names import LockNames, home_of, names_path
from zwave_mcp.gateway.state import Inventory
from zwave_mcp.gateway.topics import GatewayTopics
from zwave_mcp.simulator.access import state
from zwave_mcp.simulator.house import keypad_locks


def test_the_file_sits_beside_the_history_and_not_at_all_without_one(tmp_path: Path) -> None:
    assert names_path(Settings(history_path=str(tmp_path / "h.sqlite3"))) == tmp_path / "lock-names.json"
    assert names_path(Settings(history_path=":memory:")) is None
    assert names_path(Settings(history_path="off")) is None
    assert names_path(Settings(history_path="")) is None
    assert home_of({"homeid": 0x7E570001}) == "0x7e570001" and home_of({}) == "unknown"


def test_names_are_kept_per_home_and_a_damaged_file_is_no_names(tmp_path: Path) -> None:
    settings = Settings(history_path=str(tmp_path / "history.sqlite3"))
    path = tmp_path / "lock-names.json"
    names = LockNames(settings)
    names.for_home("0x7e570001")[12] = {3: "Cleaner"}
    names.save()
    assert json.loads(path.read_text()) == {"0x7e570001": {"12": {"3": "Cleaner"}}}
    assert LockNames(settings).for_home("0x7e570001") == {12: {3: "Cleaner"}}
    assert LockNames(settings).for_home("0x00000002") == {}
    path.write_text("{not json")
    assert LockNames(settings).for_home("0x7e570001") == {}


def test_the_pictures_lock_users_carry_the_names_given() -> None:
    inventory = Inventory(GatewayTopics("zwave", "zwave-js-ui"))
    inventory.given_names = {12: {3: "Cleaner"}, 13: {1: "Not Alice"}}
    nodes = keypad_locks()
    for node in nodes:
        node["accessControl"] = state(node)
    inventory.load_nodes(nodes)
    back, side = inventory.nodes[12].access, inventory.nodes[13].access
    assert back.user(3).name == "Cleaner" and back.user(1).name is None
    assert side.user(1).name == "Alice"  # a lock with names of its own keeps them
    inventory.name_lock_user(12, 3, None)
    assert inventory.nodes[12].access.user(3).name is None
    again = inventory.set_access(12, parse_state(12, state(nodes[0])))
    assert again.user(3).name is None and inventory.given_names[12] == {}


# Issue 44 items 3 and 4: a bad entry is skipped with one log line, and two servers sharing the folder
# never undo each other's names.


def test_a_bad_entry_is_skipped_with_one_line_and_the_rest_is_used(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "lock-names.json").write_text(
        json.dumps(
            {
                "0x7e570001": {
                    "12": {"\u00b2": "Squared", "3": "Cleaner", "4": 5, "5": "  "},
                    "\u00b2": {"1": "Ghost"},
                    "13": "nobody",
                },
                "0x7e570002": [],
            }
        )
    )
    with caplog.at_level("WARNING", logger="zwave_mcp.gateway.lock_names"):
        names = LockNames(Settings(history_path=str(tmp_path / "history.sqlite3")))
        assert names.for_home("0x7e570001") == {12: {3: "Cleaner"}}
    skipped = [r for r in caplog.records if r.getMessage().startswith("lock user name skipped")]
    assert len(skipped) == 6, [r.getMessage() for r in skipped]  # ², 4, 5, the node ², 13, the home


def test_two_servers_keep_each_others_names(tmp_path: Path) -> None:
    settings = Settings(history_path=str(tmp_path / "history.sqlite3"))
    desktop, code = LockNames(settings), LockNames(settings)
    home = "0x7e570001"
    desktop_names, code_names = desktop.for_home(home), code.for_home(home)  # both started before a name
    desktop_names.setdefault(12, {})[3] = "Cleaner"
    desktop.save()
    code_names.setdefault(12, {})[5] = "Dog Walker"
    code.save()  # wrote its own picture before: the cleaner's name was lost
    on_file = json.loads((tmp_path / "lock-names.json").read_text())
    assert on_file == {home: {"12": {"3": "Cleaner", "5": "Dog Walker"}}}
    assert code_names == {12: {3: "Cleaner", 5: "Dog Walker"}}, "a save brings the other's names in"
    assert desktop.for_home(home) == {12: {3: "Cleaner", 5: "Dog Walker"}}, "and so does a load"
    desktop_names[12].pop(5)  # taking back one name takes back only that one
    desktop_names[12][3] = "House Cleaner"
    desktop.save()
    assert LockNames(settings).for_home(home) == {12: {3: "House Cleaner"}}
    code_names[12][7] = "Gardener"  # from a picture that still had the dog walker
    code.save()
    assert LockNames(settings).for_home(home) == {12: {3: "House Cleaner", 7: "Gardener"}}
