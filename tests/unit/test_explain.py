"""`zwave-mcp explain`: how each device of a house file is understood, as text and as JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.unit.test_replay_data import locks_getnodes
from zwave_mcp.commands import cli
from zwave_mcp.commands.explain import explain_nodes, render_text
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import load_house_file
from zwave_mcp.simulator.house import captured_house

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"
MOTION = DEVICES / "zp3111-5_state.json"
NOW_MS = 1_800_000_000_000


def _explained(path: Path) -> dict[str, Any]:
    nodes = [n for n in (parse_node(raw) for raw in load_house_file(path)) if n is not None]
    return explain_nodes(nodes, NOW_MS)


def test_a_node_its_devices_what_they_read_and_do_and_the_unused_values() -> None:
    explained = _explained(MOTION)
    assert explained["nodes"] == 1 and explained["devices"] == 1
    node = explained["report"][0]
    assert (node["node"], node["manufacturer"], node["product"]) == (22, "Vision Security", "ZP3111-5")
    assert node["device_class"] == {"generic": 7, "specific": 1}
    assert node["power"] == "sleeping (battery)"
    device = node["devices"][0]
    temperature = next(r for r in device["readings"] if r["label"] == "Air temperature")
    assert (temperature["value"], temperature["unit"]) == (21.98, "°C")
    assert device["actions"] == []
    used = set(device["values"])
    unused = {v["value_id"] for v in node["unused"]}
    assert not used & unused
    assert used | unused == {f"22-{k}" for k in _value_keys(MOTION)}


def _value_keys(path: Path) -> set[str]:
    node = next(n for n in load_house_file(path) if not n.get("isControllerNode"))
    return set(node["values"])


def test_configuration_values_are_counted_not_listed() -> None:
    house = captured_house()
    nodes = [n for n in (parse_node(raw) for raw in house) if n is not None]
    thermostat = next(n for n in explain_nodes(nodes, NOW_MS)["report"] if n["node"] == 6)
    assert all(v["command_class"] != 112 for v in thermostat["unused"])


def test_the_captured_house_actions_are_the_products() -> None:
    nodes = [n for n in (parse_node(raw) for raw in captured_house()) if n is not None]
    explained = explain_nodes(nodes, NOW_MS)
    lock = next(d for n in explained["report"] for d in n["devices"] if d["name"] == "Front Door Lock")
    assert lock["kind"] == "lock" and lock["actions"] == ["lock", "unlock"]
    assert explained["nodes"] == 10  # the controller and the Broadcast node are not devices


def test_text_is_one_block_per_node_with_readings_and_actions() -> None:
    text = render_text(_explained(MOTION), "motion.json")
    assert text.startswith("zwave-mcp explain: 1 node, 1 device from motion.json\n")
    assert 'Node 22 "nodeID_22": Vision Security ZP3111-5 (4-in-1 Sensor)' in text
    assert "        Air temperature: 21.98 °C" in text
    assert "      does:  nothing (it only reports)" in text
    assert "Notification: Alarm Type [22-113-0-alarmType] = no value (read-only)" in text
    assert "None" not in text


def test_a_multi_endpoint_device_names_the_endpoint_of_each_reading() -> None:
    # The CT100 Plus's thermostat reads its temperature on endpoint 1 and its battery on both.
    text = render_text(_explained(DEVICES / "climate_radio_thermostat_ct100_plus_state.json"), "ct100.json")
    assert "Air temperature (endpoint 1): 72 °F" in text


def test_cli_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explain", "--house", str(MOTION)]) == 0
    assert "Vision Security ZP3111-5" in capsys.readouterr().out
    assert cli.main(["explain", "--house", str(MOTION), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["source"] == str(MOTION) and report["report"][0]["node"] == 22


def test_cli_a_broken_house_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "house.json"
    bad.write_text('{"nodes": "nope"}', "utf-8")
    assert cli.main(["explain", "--house", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("zwave-mcp explain: ") and captured.err.count("\n") == 1


def test_readings_are_said_as_zwave_mcp_says_them_not_by_zwave_js_labels() -> None:
    """Issue 43 item 15: explain showed "The current status of the door: door open", "Lock state: idle",
    "Keypad state: idle" and "Low battery level: False"."""
    nodes = [n for n in (parse_node(raw) for raw in locks_getnodes()) if n is not None]
    text = render_text(explain_nodes(nodes, NOW_MS), "locks")
    assert "        Door open\n" in text
    assert "        Lock state: nothing to report\n" in text and "Keypad state: nothing to report" in text
    for raw in ("The current status of the door", ": idle", ": False", ": True"):
        assert raw not in text, raw
