"""Two servers saving the names of lock users at once, in processes of their own, lose nothing (issue 44
item 4): each save re-reads, merges and replaces the file under its lock (gateway/state_files.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.integration.mcp_harness import call, connected, settings_for
from zwave_mcp.config import Settings
from zwave_mcp.gateway.lock_names import LockNames
from zwave_mcp.simulator import Simulator

pytestmark = pytest.mark.integration

WRITER = """
import sys, time
from pathlib import Path
from zwave_mcp.config import Settings
from zwave_mcp.gateway.lock_names import LockNames
names = LockNames(Settings(history_path=sys.argv[1]))
table = names.for_home("0x7e570001")
Path(sys.argv[3] + sys.argv[2]).touch()  # read the file, ready to save
while not Path(sys.argv[3]).exists():  # all three start saving together
    time.sleep(0.001)
for user in range(int(sys.argv[2]), int(sys.argv[2]) + 40):
    table.setdefault(12, {})[user] = f"Person {user}"
    names.save()
"""


def test_two_servers_saving_at_once_lose_nothing(tmp_path: Path) -> None:
    history = str(tmp_path / "history.sqlite3")
    go = tmp_path / "go"
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, history, str(first), str(go)])
        for first in (100, 200, 300)
    ]
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"go{first}").exists() for first in (100, 200, 300)):
        assert time.monotonic() < deadline and all(w.poll() is None for w in writers), (
            "a writer did not start"
        )
        time.sleep(0.01)  # waiting on other processes, not on a clock of ours
    go.touch()
    assert [w.wait(timeout=60) for w in writers] == [0, 0, 0]
    users = LockNames(Settings(history_path=history)).for_home("0x7e570001")[12]
    assert sorted(users) == [*range(100, 140), *range(200, 240), *range(300, 340)]
    assert not [p.name for p in tmp_path.iterdir() if p.suffix == ".tmp"], "no temporary file is left"


async def test_a_bad_entry_in_lock_names_does_not_stop_the_network_loading(
    mosquitto: Any, simulator_factory: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 44 item 3: one key "²" (which `str.isdigit` passes and `int()` takes, the rest not) stopped
    the sync task: the network never loaded, every tool said "still loading", and nothing was logged."""
    sim: Simulator = simulator_factory(house="captured+locks")
    (tmp_path / "lock-names.json").write_text(
        json.dumps({f"0x{sim.config.home_id:08x}": {"12": {"\u00b2": "Squared", "3": "Cleaner"}}}),
        encoding="utf-8",
    )
    settings = settings_for(mosquitto, sim, history_path=str(tmp_path / "history.sqlite3"))
    with caplog.at_level("WARNING", logger="zwave_mcp.gateway.lock_names"):
        async with connected(settings) as client:  # waits until healthy: the network loaded
            listed = await call(client, "manage_lock_users", {"deviceName": "Back Door Lock"})
            assert "Cleaner" in listed.text, listed.text
    assert [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()] == [
        "lock user name skipped: no user number, or no name"
    ]


async def test_a_load_task_that_dies_is_logged_and_said_in_health(
    mosquitto: Any, simulator_factory: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    sim: Simulator = simulator_factory()

    def broken(self: Any, home: str) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(LockNames, "for_home", broken)
    with caplog.at_level("ERROR", logger="zwave_mcp.tasks"):
        async with connected(settings_for(mosquitto, sim), wait=False) as client:
            for _ in range(500):
                health = await call(client, "check_zwave_health")
                if "internal error" in health.text:
                    break
                await anyio.sleep(0.01)
            assert (
                "zwave-mcp stopped loading the Z-Wave network on an internal error (RuntimeError: a bug)"
                in (health.text)
            ), health.text
            listed = await call(client, "list_zwave_devices")
            assert listed.is_error and "internal error" in listed.text, listed.text
    assert [r.getMessage() for r in caplog.records] == [
        "background task zwave-sync stopped: RuntimeError: a bug"
    ]
