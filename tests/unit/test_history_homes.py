"""History is kept per home (issue 30): one store file, several homes, each answering only its own; a
file from before homes keeps its rows, adopted by the first home that opens it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from zwave_mcp.commands.simulate import build_parser
from zwave_mcp.config import Settings
from zwave_mcp.gateway.model import InventoryEvent, ZNode, ZValue
from zwave_mcp.history.homes import home_key
from zwave_mcp.history.recorder import Recorder
from zwave_mcp.history.store import Store
from zwave_mcp.simulator.settings import CAPTURED_HOME_ID, SimConfig

VID = "2-37-0-currentValue"  # node 2 of one home and node 2 of another: the same value id
NOW_S = 1_800_000_000.0
AT = int(NOW_S * 1000) - 60_000

SCHEMA_2 = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE series(
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, key TEXT NOT NULL, node INTEGER, UNIQUE(kind, key));
CREATE TABLE changes(
    series INTEGER NOT NULL, at INTEGER NOT NULL, old TEXT, new TEXT, num REAL, PRIMARY KEY(series, at)
) WITHOUT ROWID;
CREATE TABLE latest(series INTEGER PRIMARY KEY, at INTEGER, new TEXT, seen INTEGER);
CREATE TABLE outcomes(
    at INTEGER NOT NULL, tool TEXT, action TEXT, device_key TEXT, device TEXT, value TEXT, outcome TEXT,
    reason TEXT);
CREATE INDEX outcomes_key_at ON outcomes(device_key, at);
INSERT INTO meta VALUES('schema', '2');
"""


def light(on: bool, at: int) -> ZNode:
    node = ZNode(id=2, status="Alive")
    node.values[VID] = ZValue(VID, 2, 37, "Binary Switch", 0, "currentValue", value=on, last_update_ms=at)
    return node


def outcome(action: str) -> dict[str, object]:
    return {"tool": "control_zwave_device", "action": action, "outcome": "confirmed", "device_key": "2"}


def test_two_homes_on_one_file_answer_only_their_own(tmp_path: Path) -> None:
    path = str(tmp_path / "history.sqlite3")
    homes = ["0x7e570001"]
    rec = Recorder(path, clock=lambda: NOW_S, home=lambda: homes[0])
    rec.start()
    rec.on_change(
        InventoryEvent("gateway", None, "client_online", None, True, AT - 1000)
    )  # before the first load
    rec.on_load([light(False, AT)])
    rec.on_change(InventoryEvent("value", 2, VID, False, True, AT + 1000))
    rec.record_outcome(outcome("on"))
    assert rec.flush()
    store = rec.store
    assert store is not None and store.home == "0x7e570001"
    first = store.series_ids[("value", VID)]
    assert [r.new for r in store.rows([first], 0, 2**62)] == [False, True]
    assert ("gateway", "client_online") in store.series_ids  # heard before the load: waited for the home
    assert [o.action for o in store.outcomes(["2"], 0, 2**62, 10)] == ["on"]

    homes[0] = "0x7e570002"  # another gateway (the same node ids) loads: what follows is its home's
    rec.on_load([light(False, AT + 5000)])
    rec.record_outcome(outcome("off"))
    assert rec.flush()
    assert store.home == "0x7e570002"
    second = store.series_ids[("value", VID)]
    assert second != first
    assert [r.new for r in store.rows([second], 0, 2**62)] == [False]
    assert [o.action for o in store.outcomes(["2"], 0, 2**62, 10)] == ["off"]
    assert ("gateway", "client_online") not in store.series_ids
    rec.stop()

    again = Store.open(path, "0x7e570001")  # the first home, on the same file: its rows only
    try:
        assert [r.new for r in again.rows([again.series_ids[("value", VID)]], 0, 2**62)] == [False, True]
        assert [o.action for o in again.outcomes(None, 0, 2**62, 10)] == ["on"]
    finally:
        again.close()


def test_a_file_from_before_homes_keeps_its_rows_for_the_first_home(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA_2)
        db.execute("INSERT INTO series VALUES(7, 'value', ?, 2)", (VID,))
        db.execute("INSERT INTO changes VALUES(7, ?, 'false', 'true', 1.0)", (AT,))
        db.execute("INSERT INTO latest VALUES(7, ?, 'true', ?)", (AT, AT))
        db.execute(
            "INSERT INTO outcomes VALUES(?, 'control_zwave_device', 'on', '2', 'Kitchen Light', 'null', "
            "'confirmed', NULL)",
            (AT,),
        )
    first = Store.open(str(path), "0x7e570001")
    try:
        assert first.series_ids[("value", VID)] == 7  # ids kept: changes and latest still refer to them
        assert [(r.at, r.new) for r in first.rows([7], 0, 2**62)] == [(AT, True)]
        assert first.latest_of([7]) == {7: (True, AT, AT)}
        assert [o.device for o in first.outcomes(["2"], 0, 2**62, 10)] == ["Kitchen Light"]
    finally:
        first.close()
    second = Store.open(str(path), "0x7e570002")  # adopted once: another home does not get them
    try:
        assert ("value", VID) not in second.series_ids
        assert second.outcomes(["2"], 0, 2**62, 10) == []
    finally:
        second.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == ("3",)
        assert db.execute("SELECT value FROM meta WHERE key='legacy_home'").fetchone() == ("0x7e570001",)
        assert db.execute("SELECT count(*) FROM changes").fetchone() == (1,)


def test_the_home_is_the_controllers_home_id_or_the_gateway_it_is_read_through() -> None:
    settings = Settings(mqtt_url="mqtt://user@broker.local:1884", prefix="zw", gateway_name="attic")
    assert home_key({"homeid": 2119630849}, settings) == "0x7e570001"
    for info in (
        {},
        {"homeid": None},
        {"homeid": True},
        {"homeid": 0},
        {"homeid": "0x7e570001"},
        {"homeid": 2**40},
    ):
        assert home_key(info, settings) == "mqtt://broker.local:1884 zw/attic", info


def test_simulate_takes_a_home_id() -> None:
    parser = build_parser()
    assert parser.parse_args(["--home-id", "0x7e570002"]).home_id == 0x7E570002
    assert parser.parse_args(["--home-id", "2119630850"]).home_id == 0x7E570002
    assert parser.parse_args([]).home_id == CAPTURED_HOME_ID == SimConfig().home_id == 2119630849
    for bad in ("kitchen", "0", "0x1ffffffff"):
        with pytest.raises(SystemExit):
            parser.parse_args(["--home-id", bad])
