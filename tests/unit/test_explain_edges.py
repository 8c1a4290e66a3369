"""`zwave-mcp explain` at the edges (issue 36, items 1, 2, 9, 10, 12, 13): hostile or odd house files, a
node zwave-mcp fails on, a node still loading, and the live network without a broker.

What explain prints comes from the network or from files from the internet: it must stay one plain report
(no escape sequence, bell or forged line reaches the terminal), `--json` must stay JSON, and a file can
end it only with one line saying why.
"""

from __future__ import annotations

import copy
import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from zwave_mcp.commands import cli
from zwave_mcp.commands.explain import explain_nodes, render_text
from zwave_mcp.devices import build
from zwave_mcp.gateway.model import ZNode
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import DumpError, house_from_json, load_house_file
from zwave_mcp.simulator.house import captured_house

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"
NOW_MS = 1_800_000_000_000


def strict_json(text: str) -> Any:
    """JSON as any other parser reads it: NaN and Infinity are not JSON."""

    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def explain(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(["explain", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def hostile_node() -> dict[str, Any]:
    node = copy.deepcopy(next(n for n in captured_house() if n["id"] == 2))  # the Kitchen Light
    node["name"] = "Kitchen\x1b[2J\x07 Light\n  - forged line"
    for value in node["values"].values():
        value["commandClassName"] = "Binary\x1b]0;owned\x07 Switch\r\x9b31m"
        value["label"] = "Current\u202evalue"
    odd = copy.deepcopy(next(iter(node["values"].values())))
    odd.update(property="x\x1b[31m\nbad", id="2-37-0-x\x1b[31m\nbad", propertyName="x", value=float("nan"))
    node["values"]["37-0-x"] = odd
    return node


def test_escapes_and_line_breaks_from_a_house_file_never_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "house.json"
    path.write_text(json.dumps([hostile_node()]), "utf-8")  # NaN written as Python writes it
    code, out, err = explain(["--house", str(path)], capsys)
    assert code == 0, err
    for shown in (out, err):
        assert not any(c in shown for c in "\x1b\x07\r\x9b\u202e"), shown
    assert "  - forged line" not in out.splitlines()
    assert "\\x1b" in out  # shown, escaped: a bug report still says what was there
    code, out, err = explain(["--house", str(path), "--json"], capsys)
    assert code == 0, err
    report = strict_json(out)  # NaN never makes it not JSON
    assert not any(c in out for c in "\x1b\x07\r\x9b\u202e")
    assert report["nodes"] == 1


def test_a_value_of_nan_or_infinity_keeps_explain_json_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    node = copy.deepcopy(next(n for n in captured_house() if n["id"] == 4))  # the Bedroom Sensor
    for value, bad in zip(node["values"].values(), (float("nan"), float("inf"), float("-inf")), strict=False):
        value["value"] = bad
    path = tmp_path / "house.json"
    path.write_text(json.dumps([node]), "utf-8")
    code, out, err = explain(["--house", str(path), "--json"], capsys)
    assert code == 0, err
    strict_json(out)
    assert "dropped what zwave-js cannot have sent: node 4" in err


@pytest.mark.parametrize("where", ["value", "state key"])
def test_a_number_of_five_thousand_digits_is_no_traceback(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (DEVICES / "zp3111-5_state.json").read_text("utf-8")
    before = text
    if where == "value":
        text = text.replace('"value":21.98', '"value":' + "9" * 5000, 1)
    else:
        text = text.replace('"states":{', '"states":{"' + "7" * 5000 + '":"odd",', 1)
    assert text != before
    path = tmp_path / "house.json"
    path.write_text(text, "utf-8")
    code, out, err = explain(["--house", str(path)], capsys)
    assert code == 0, err
    assert "Traceback" not in err and "zwave-mcp explain: 1 node" in out


def test_a_hundred_thousand_nodes_with_repeated_ids_is_refused_at_once() -> None:
    nodes = [{"id": 2 + i % 4000, "values": {}, "name": f"n{i}"} for i in range(100_000)]
    started = time.process_time()
    with pytest.raises(DumpError, match="node id 2 appears more than once"):
        house_from_json(nodes)
    assert time.process_time() - started < 2.0  # quadratic took minutes


def test_a_list_of_home_assistant_diagnostics_downloads_is_read(tmp_path: Path) -> None:
    def download(file: str) -> dict[str, Any]:
        state = json.loads((DEVICES / file).read_text("utf-8"))
        return {"home_assistant": {"version": "2024.7.4"}, "data": {"versionInfo": {}, "state": state}}

    path = tmp_path / "downloads.json"
    path.write_text(json.dumps([download("zp3111-5_state.json"), download("ecolink_door_sensor_state.json")]))
    ids = sorted(n["id"] for n in load_house_file(path) if not n.get("isControllerNode"))
    assert len(ids) == 2


def nodes_of(house: list[dict[str, Any]]) -> list[ZNode]:
    return [n for n in (parse_node(raw) for raw in house) if n is not None]


def test_a_node_whose_discovery_fails_says_why_and_the_others_are_explained(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = build.discover

    def failing(node: ZNode, table: Any) -> Any:
        if node.id == 6:
            raise AttributeError("'int' object has no attribute 'casefold'")
        return real(node, table)

    monkeypatch.setattr(build, "discover", failing)
    explained = explain_nodes(nodes_of(captured_house()), NOW_MS)
    text = render_text(explained, "captured")
    line = next(line for line in text.splitlines() if "[key 6]" in line)
    assert "not understood yet: zwave-mcp working out what it is failed (AttributeError" in line, line
    assert "Kitchen Light [key 2]: switch" in text
    assert explained["not_understood"] == 1


def test_a_node_still_loading_is_still_loading_not_not_understood() -> None:
    house = captured_house()
    for node in house:
        if node["id"] == 2:
            node["values"], node["ready"] = {}, False  # just after zwave-js-ui started
    explained = explain_nodes(nodes_of(house), NOW_MS)
    text = render_text(explained, "the live network")
    line = next(line for line in text.splitlines() if "[key 2]" in line)
    assert "still loading" in line and "not understood" not in line, line
    assert explained["not_understood"] == 0 and explained["loading"] == 1


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_no_broker_is_one_line_at_once_with_the_settings_flags(capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    code, out, err = explain(["--mqtt-url", f"mqtt://127.0.0.1:{free_port()}", "--prefix", "home"], capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("zwave-mcp explain: cannot reach the MQTT broker"), err
    assert time.monotonic() - started < 5.0


def test_a_bad_setting_flag_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = explain(["--mqtt-url", "http://x"], capsys)
    assert code == 2 and err.startswith("zwave-mcp explain: invalid setting: --mqtt-url"), err


@pytest.mark.parametrize("house", ["captured", "generated:3"])
def test_the_simulators_houses_by_name(house: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = explain(["--house", house], capsys)
    assert code == 0, err
    assert out.startswith("zwave-mcp explain: ") and f"from {house}" in out.splitlines()[0]
