"""The dump converter: zwave-js-server node states, Home Assistant diagnostics and zwave-js-ui's own
exports → the getNodes node dicts the simulator serves; anything else is one clear line."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import DumpError, house_from_json, load_house_file, server_node, ui_node
from zwave_mcp.simulator.house import captured_house, load_house

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"
WALLMOTE = DEVICES / "wallmote_central_scene_state.json"


def _state(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DEVICES / name).read_text("utf-8"))
    return data


def test_a_node_state_becomes_a_getnodes_node_with_values_keyed_as_zwave_js_ui_keys_them() -> None:
    node = server_node(_state("lock_schlage_be469_state.json"))
    assert node["id"] == 20
    assert node["deviceClass"] == {"basic": 4, "generic": 64, "specific": 3}
    assert node["manufacturer"] == "Allegion" and node["productLabel"] == "BE469"
    assert node["isListening"] is False and node["isFrequentListening"] is True
    lock = node["values"]["98-0-currentMode"]
    assert lock["id"] == "20-98-0-currentMode"
    assert lock["nodeId"] == 20 and lock["endpoint"] == 0 and lock["commandClassName"] == "Door Lock"
    assert lock["list"] is True and {"text": "Secured", "value": 255} in lock["states"]
    assert lock["isCurrentValue"] is True and lock["targetValue"] == "98-0-targetMode"
    assert node["batteryLevels"] == {"0": node["values"]["128-0-level"]["value"]}
    parsed = parse_node(node)
    assert parsed is not None and parsed.generic_class == 64
    assert parsed.values["20-98-0-currentMode"].states


def test_metadata_fields_are_zwave_js_uis_names() -> None:
    node = server_node(_state("multisensor_6_state.json"))
    temperature = node["values"]["49-0-Air temperature"]
    assert temperature["unit"] == "°C" and temperature["type"] == "number" and temperature["list"] is False
    assert temperature["ccSpecific"] == {"sensorType": 1, "scale": 0}
    assert "metadata" not in temperature and "ccVersion" not in temperature


def test_property_keys_are_part_of_the_key() -> None:
    node = server_node(_state("wallmote_central_scene_state.json"))
    assert "91-0-scene-001" in node["values"]
    assert node["values"]["91-0-scene-001"]["propertyKey"] == "001"


def test_frequent_listening_is_passed_on_as_zwave_js_gives_it() -> None:
    node = server_node(_state("lock_ultraloq_ubolt_pro_state.json"))
    assert node["isFrequentListening"] == "1000ms"


def test_the_node_class_is_its_root_endpoints() -> None:
    # This fixture was edited: its node-level class (Static Controller) is not its endpoint 0's (a lock).
    state = _state("lock_schlage_be469_state.json")
    assert state["deviceClass"]["generic"]["key"] == 2
    assert server_node(state)["deviceClass"]["generic"] == 64


@pytest.mark.parametrize(
    ("raw", "frequent"), [("1000ms", True), ("250ms", True), (True, True), (False, False), ("junk", False)]
)
def test_a_flirs_node_is_read_as_frequently_listening_not_sleeping(raw: Any, frequent: bool) -> None:
    state = _state("lock_ultraloq_ubolt_pro_state.json")
    state["isFrequentListening"] = raw
    parsed = parse_node(server_node(state))
    assert parsed is not None and parsed.is_frequent_listening is frequent
    assert parsed.is_sleeping_device is not frequent


def test_multi_endpoint_device_classes_are_kept() -> None:
    node = server_node(_state("shelly_eu_wave_shutter_state.json"))
    assert [e["index"] for e in node["endpoints"]] == [0, 1, 2]
    assert node["endpointsCount"] == 2
    assert all(e["deviceClass"]["generic"] == 17 for e in node["endpoints"])


def test_a_controller_is_added_when_the_dump_has_none() -> None:
    house = house_from_json(_state("multisensor_6_state.json"))
    assert [n["id"] for n in house] == [1, 52]
    assert house[0]["isControllerNode"] is True


def test_the_controller_takes_the_lowest_free_id_when_1_is_a_device() -> None:
    state = _state("multisensor_6_state.json")
    state["nodeId"] = 1
    house = house_from_json(state)
    assert [n["id"] for n in house] == [2, 1]
    assert house[0]["isControllerNode"] is True


def test_home_assistant_device_diagnostics_one_node_or_a_list() -> None:
    state = _state("multisensor_6_state.json")
    one = house_from_json({"home_assistant": {}, "data": {"versionInfo": {}, "entities": [], "state": state}})
    assert [n["id"] for n in one] == [1, 52]
    other = copy.deepcopy(state)
    other["nodeId"] = 53
    many = house_from_json({"data": {"state": [state, other]}})
    assert [n["id"] for n in many] == [1, 52, 53]


def test_a_zwave_js_server_result_and_its_controller() -> None:
    result = {
        "type": "result",
        "result": {"state": {"controller": {}, "nodes": [_state("timed_lock_state.json")]}},
    }
    assert [n["id"] for n in house_from_json(result)] == [1, 7]
    assert [n["id"] for n in house_from_json([{"type": "version"}, result])] == [1, 7]


def test_zwave_js_uis_getnodes_reply_and_its_nodes_dump() -> None:
    captured = captured_house()
    assert house_from_json({"success": True, "result": captured}) == house_from_json(captured)
    # The UI's dump keeps values as a list with `newValue` (its store); the result is getNodes again.
    dumped = copy.deepcopy([n for n in captured if not n.get("virtual")])
    for node in dumped:
        values = list(node["values"].values())
        for value in values:
            value["newValue"] = value.get("value")
        node["values"] = values
    converted = {n["id"]: n for n in house_from_json(dumped)}
    for original in captured:
        if not original.get("virtual"):
            assert converted[original["id"]]["values"] == original["values"]


def test_a_single_node_export_of_zwave_js_ui() -> None:
    node = next(n for n in captured_house() if n["id"] == 5)
    house = house_from_json(node)
    assert [n["id"] for n in house] == [1, 5]
    assert ui_node(node)["values"] == node["values"]


def test_ids_are_kept_and_duplicates_refused() -> None:
    state = _state("timed_lock_state.json")
    with pytest.raises(DumpError, match="node id 7 appears more than once"):
        house_from_json([state, state])


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({}, "expected a zwave-js-server node state"),
        ([], "the list is empty"),
        ("text", "found text"),
        ([1, 2], "item 0 is a number"),
        ([{"name": "x"}], "item 0 has neither nodeId nor id"),
        ({"nodeId": "five"}, "nodeId 'five'"),
        ({"nodeId": 0}, "nodeId 0"),
        ({"id": -3, "values": {}}, "id -3"),
        ({"2": {"name": "Lamp", "loc": "Hall"}}, "zwave-js-ui's nodes.json"),
        ({"data": {"state": "x"}}, "found text"),
    ],
)
def test_what_is_not_a_dump_is_one_line_saying_what_was_expected(data: Any, words: str) -> None:
    with pytest.raises(DumpError) as caught:
        house_from_json(data)
    message = str(caught.value)
    assert words in message and "\n" not in message


def test_junk_inside_a_node_state_is_skipped_not_raised() -> None:
    state = {
        "nodeId": 9,
        "deviceClass": "junk",
        "endpoints": [None, {"index": "x"}],
        "values": [
            None,
            {"commandClass": "x", "property": "y"},
            {"commandClass": 37, "property": {"a": 1}},
            {"commandClass": 37, "property": "currentValue", "metadata": "junk", "value": True},
            {"commandClass": 37, "property": "x", "metadata": {"type": "number", "states": {"a": "b"}}},
        ],
        "lastSeen": "not a date",
        "status": "weird",
    }
    node = server_node(state)
    assert list(node["values"]) == ["37-0-currentValue", "37-0-x"]
    assert node["values"]["37-0-x"]["states"] == [] or node["values"]["37-0-x"]["list"] is True
    assert node["status"] == "Unknown" and "lastActive" not in node
    assert parse_node(node) is not None


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"{not json", "not JSON (line 1)"),
        (b"\xff\xfe\x00", "not UTF-8 text"),
        (b"[" * 100000, "not JSON"),
        (b"42", "found a number"),
    ],
)
def test_a_broken_file_is_one_line_naming_the_file(tmp_path: Path, content: bytes, words: str) -> None:
    path = tmp_path / "house.json"
    path.write_bytes(content)
    with pytest.raises(DumpError) as caught:
        load_house_file(path)
    assert str(caught.value).startswith(str(path)) and words in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(DumpError, match="cannot read it"):
        load_house_file(tmp_path / "nope.json")


def test_load_house_takes_a_dump_file() -> None:
    house = load_house(str(WALLMOTE))
    assert [n["id"] for n in house] == [1, 35]


def test_load_house_refuses_a_bad_generated_spec() -> None:
    with pytest.raises(ValueError, match="generated:N"):
        load_house("generated:many")
