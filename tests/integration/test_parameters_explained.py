"""Issue 45 item 4 end to end: a dimmer's configuration parameters explained from zwave-js's device
database (`getDeviceConfigurationParams`, as the simulator answers it like zwave-js-ui 11.22.2), and one set
by its label, checked against what the database allows, through the write gate, read back as evidence.

The dimmer is the demo house's Hallway Dimmer, the real GE 14294 of `fixtures/devices/` (its node dump).
Here its node's own values are stripped of the config file's words (and parameter 12 is left
out, as on a node not fully read yet), so what the answers say of them can only come from the database."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import mcp_types
import pytest

from tests.conftest import MessageCollector
from tests.integration.mcp_harness import call, connected, settings_for, sim_value, wait_writes
from zwave_mcp.simulator import Simulator, api, house
from zwave_mcp.simulator.dumps import Node
from zwave_mcp.simulator.house import captured_house
from zwave_mcp.zwave.classes import CC

pytestmark = pytest.mark.integration

DIMMER_ID = 20
# Parameter 8 said with the node's own words and the database's range, unit and default.
TIMING = (
    "Parameter 8 of Hallway Dimmer, Dim Rate Timing (Z-Wave) (timing of steps or levels), is 3 (30 ms); "
    "it takes 1 to 255, in steps of 10 ms and is 3 (30 ms) by default."
)
# What the config file gives a value and zwave-js 15.29's file for the GE 14294 has (it has no descriptions:
# the node keeps the one its older file gave).
FILE_WORDS = ("unit", "states", "default")


def hallway_dimmer() -> Node:
    """The demo's GE 14294 dimmer, its configuration values without the config-file words the database has."""
    [node] = house.hallway_dimmer()
    values = node["values"]
    for key in list(values):
        value = values[key]
        if value["commandClass"] != CC.CONFIGURATION:
            continue
        if value["property"] == 12:
            del values[key]
            continue
        for word in FILE_WORDS:
            value.pop(word, None)
        if value["property"] == 8:
            value.update(min=None, max=None)
    return node


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(house=[*captured_house(), hallway_dimmer()])


def admin(mosquitto: Any, sim: Simulator, **extra: Any) -> Any:
    return settings_for(mosquitto, sim, admin=True, **extra)


async def confirmed(client: Any, tool: str, args: dict[str, Any]) -> Any:
    first = await call(client, tool, args)
    assert first.result["outcome"] == "needs_confirmation", first.text
    return await call(client, tool, {**args, "confirmationToken": first.result["confirmationToken"]})


async def test_a_parameter_is_explained_from_the_database(mosquitto: Any, sim: Simulator) -> None:
    async with connected(admin(mosquitto, sim)) as client:
        timing = await call(
            client, "list_zwave_config_parameters", {"deviceName": "hallway dimmer", "parameter": 8}
        )
        night = await call(
            client,
            "list_zwave_config_parameters",
            {"deviceName": "hallway dimmer", "parameter": "night light"},
        )
        unread = await call(
            client, "list_zwave_config_parameters", {"deviceName": "hallway dimmer", "parameter": 12}
        )
        listed = await call(client, "list_zwave_config_parameters", {"deviceName": "hallway dimmer"})
    # The range, unit and default are the database's: the node's own value has none of them.
    assert timing.text == TIMING
    assert timing.result["parameters"] == [
        {**timing.result["parameters"][0], "min": 1, "max": 255, "unit": "10ms", "default": 3, "value": 3}
    ]
    assert night.text == (
        "Parameter 3 of Hallway Dimmer, Night Light (defines the behavior of the blue LED), is 0 (On when load "
        "is off); it takes On when load is off (0), On when load is on (1) or Always off (2) and is 0 (On when "
        "load is off) by default."
    )
    assert unread.text.startswith(
        "Parameter 12 of Hallway Dimmer, Dimmer Rate (All-On/All-Off)"
    )  # the database's label
    assert "has not been read from the device yet" in unread.text
    assert [p["number"] for p in listed.result["parameters"]] == [3, 4, 7, 8, 9, 10, 11, 12]


async def test_a_parameter_is_set_by_its_label_within_what_the_database_allows(
    mosquitto: Any, sim: Simulator, collector: Callable[[str], MessageCollector]
) -> None:
    traffic = collector(f"{sim.config.prefix}/#")
    async with connected(admin(mosquitto, sim)) as client:
        too_big = await call(
            client,
            "set_zwave_config_parameter",
            {"deviceName": "hallway dimmer", "parameter": "dim rate timing (z-wave)", "value": 300},
        )
        unread = await call(
            client,
            "set_zwave_config_parameter",
            {"deviceName": "hallway dimmer", "parameter": 12, "value": 5},
        )
        traffic.clear()
        slower = await confirmed(
            client,
            "set_zwave_config_parameter",
            {"deviceName": "hallway dimmer", "parameter": "Dim Rate Timing (Z-Wave)", "value": 10},
        )
        again = await call(
            client, "list_zwave_config_parameters", {"deviceName": "hallway dimmer", "parameter": 8}
        )
    # The node's value has no range; the database's 1 to 255 refuses 300 before anything is sent.
    assert (
        too_big.is_error
        and "takes 1 to 255, in steps of 10 ms; 300 is out of range. Nothing was sent." in too_big.error
    )
    assert unread.is_error and "has not been read from the device yet" in unread.error
    assert slower.result["outcome"] == "confirmed" and slower.result["reported"] == 10, slower.text
    assert slower.text == (
        "Parameter 8 (Dim Rate Timing (Z-Wave)) of Hallway Dimmer is now 10 (100 ms), as the device reported."
    )
    assert sim_value(sim, DIMMER_ID, CC.CONFIGURATION, 8) == 10
    assert "is 10 (100 ms)" in again.text
    sent = [[vid, value] for vid, value in wait_writes(traffic, 1)]
    assert sent == [[{"nodeId": DIMMER_ID, "commandClass": 112, "endpoint": 0, "property": 8}, 10]]


async def test_the_demo_house_explains_its_dimmer(
    mosquitto: Any, simulator_factory: Callable[..., Simulator]
) -> None:
    sim = simulator_factory(house=house.CAPTURED_WITH_LOCKS)
    async with connected(admin(mosquitto, sim)) as client:
        steps = await call(
            client, "list_zwave_config_parameters", {"deviceName": "hallway dimmer", "parameter": 7}
        )
    assert steps.text == (
        "Parameter 7 of Hallway Dimmer, Dim Rate Steps (Z-Wave Command) (number of steps or levels), is 1; "
        "it takes 0 to 99 and is 1 by default."
    )


async def test_parameters_in_read_only_mode_and_for_a_hidden_device(mosquitto: Any, sim: Simulator) -> None:
    write = {"deviceName": "hallway dimmer", "parameter": 8, "value": 10}
    async with connected(admin(mosquitto, sim, read_only=True)) as client:
        explained = await call(
            client, "list_zwave_config_parameters", {"deviceName": "hallway dimmer", "parameter": 8}
        )
        refused = await call(client, "set_zwave_config_parameter", write)
    assert "Dim Rate Timing" in explained.text
    assert refused.is_error
    async with connected(admin(mosquitto, sim, hide="Hallway Dimmer")) as client:
        hidden = await call(
            client, "list_zwave_config_parameters", {"deviceName": "hallway dimmer", "parameter": 8}
        )
        hidden_write = await call(client, "set_zwave_config_parameter", write)
    assert hidden.is_error and "Dim Rate" not in hidden.error
    assert hidden_write.is_error and "Dim Rate" not in hidden_write.error
    async with connected(admin(mosquitto, sim, deny="Hallway Dimmer")) as client:
        denied = await call(client, "set_zwave_config_parameter", write)
    assert denied.is_error, denied.text
    assert sim_value(sim, DIMMER_ID, CC.CONFIGURATION, 8) == 3


def plug_with_report_threshold(node: Node) -> Node:
    """The captured plug with a power report threshold, as plugs' config files give one (test data)."""
    value = {
        "id": f"{node['id']}-112-0-3",
        "nodeId": node["id"],
        "commandClass": CC.CONFIGURATION,
        "commandClassName": "Configuration",
        "endpoint": 0,
        "property": 3,
        "propertyName": "Power report threshold",
        "type": "number",
        "readable": True,
        "writeable": True,
        "label": "Power report threshold",
        "description": "Change in watts that makes the plug report its power",
        "min": 0,
        "max": 2500,
        "default": 25,
        "unit": "W",
        "value": 25,
    }
    node["values"]["112-0-3"] = value
    return node


async def test_a_change_to_what_a_device_reports_is_said_in_the_question(
    mosquitto: Any, simulator_factory: Callable[..., Simulator]
) -> None:
    house = [plug_with_report_threshold(n) if n["id"] == 8 else n for n in captured_house()]
    sim = simulator_factory(house=house)
    asked: list[str] = []

    async def accept(_context: Any, params: Any) -> mcp_types.ElicitResult:
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"confirm": True})

    async with connected(admin(mosquitto, sim), elicitation_callback=accept, mode="legacy") as client:
        explained = await call(
            client, "list_zwave_config_parameters", {"deviceName": "coffee maker plug", "parameter": 3}
        )
        listed = await call(client, "list_zwave_config_parameters", {"deviceName": "coffee maker plug"})
        answer = await call(
            client,
            "set_zwave_config_parameter",
            {"deviceName": "coffee maker plug", "parameter": "power report threshold", "value": 50},
        )
    assert explained.text.endswith("; setting it changes what it reports.")
    assert listed.text == "Coffee Maker Plug has 1 parameter: 3 Power report threshold is 25 W."
    assert asked and "to 50 W, which changes what it reports" in asked[0]
    assert answer.result["outcome"] == "confirmed", answer.text
    assert answer.text.endswith("as the device reported; this changes what it reports.")
    assert sim_value(sim, 8, CC.CONFIGURATION, 3) == 50


async def test_a_gateway_without_the_database_api_still_explains_the_nodes_own_words(
    mosquitto: Any,
    simulator_factory: Callable[..., Simulator],
    collector: Callable[[str], MessageCollector],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A zwave-js-ui older than getDeviceConfigurationParams answers it "Unknown API", as for any name it lacks.
    monkeypatch.delitem(api.HANDLERS, "getDeviceConfigurationParams")
    sim = simulator_factory(house=house.CAPTURED_WITH_LOCKS)
    replies = collector(f"{sim.config.prefix}/_CLIENTS/+/api/getDeviceConfigurationParams")
    async with connected(admin(mosquitto, sim)) as client:
        timing = await call(
            client, "list_zwave_config_parameters", {"deviceName": "hallway dimmer", "parameter": 8}
        )
        too_big = await call(
            client,
            "set_zwave_config_parameter",
            {"deviceName": "hallway dimmer", "parameter": 8, "value": 300},
        )
    assert timing.text == TIMING
    assert too_big.is_error and "1 to 255, in steps of 10 ms; 300 is out of range" in too_big.error
    replies.wait_for(lambda _: True, what="a getDeviceConfigurationParams reply")  # may come after the answer
    answered = [json.loads(m.payload) for m in replies.snapshot()]
    assert answered and all(a["success"] is False and a["message"] == "Unknown API" for a in answered)


async def test_the_porch_switch_is_its_node_for_its_parameters(mosquitto: Any, sim: Simulator) -> None:
    """ "What can I change on the porch switch?": the name fits both halves of the Porch Double Switch, whose
    parameters are its node's, and was answered "'porch switch' matches 2 devices … Say which one."."""
    async with connected(admin(mosquitto, sim)) as client:
        listed = await call(client, "list_zwave_config_parameters", {"deviceName": "porch switch"})
        setting = await call(
            client, "set_zwave_config_parameter", {"deviceName": "porch switch", "parameter": 1, "value": 1}
        )
    assert listed.text == "Porch Double Switch has no configuration parameters that zwave-js-ui knows of."
    assert setting.is_error and setting.error == listed.text
