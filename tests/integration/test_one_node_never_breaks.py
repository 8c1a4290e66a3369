"""One node never breaks the house (issue 36, items 1 and 2), through the MCP tools and resources.

A fault injected into one node's discovery and another into one device's description: those two are "not
understood yet", and every other device keeps answering (list, state, verify, health, the devices resource,
control). A blind that only tilts its slats (a Window Covering tilt, no position) is listed, described,
verified and tilted with a true answer. A value with a number where zwave-js sends text, arriving as an
event from anyone on the broker, is dropped at the gateway's edge and the house keeps answering.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import anyio
import paho.mqtt.publish as publish
import pytest
from mcp import Client

from tests.integration.mcp_harness import DEVICES, call, connected, eventually, settings_for
from zwave_mcp.devices import build, describe
from zwave_mcp.devices.discovery import Found
from zwave_mcp.gateway.model import ZNode
from zwave_mcp.server.resource_updates import DEVICES_URI, device_uri
from zwave_mcp.simulator import Simulator
from zwave_mcp.simulator.dumps import load_house_file
from zwave_mcp.simulator.house import captured_house

pytestmark = pytest.mark.integration

TILT_ONLY_ID = 20


def tilt_only_blind() -> dict[str, Any]:
    """The iBlinds V3 (a real dump) as a blind that only tilts: its Window Covering slats, no position."""
    node = copy.deepcopy(
        next(n for n in load_house_file(DEVICES / "cover_iblinds_v3_state.json") if not n["isControllerNode"])
    )
    node["values"] = {k: v for k, v in node["values"].items() if v["commandClass"] not in (37, 38)}
    node["id"], node["name"], node["loc"] = TILT_ONLY_ID, "Study Blind", "Study"
    for key, value in node["values"].items():
        value["nodeId"], value["id"] = TILT_ONLY_ID, f"{TILT_ONLY_ID}-{key}"
    return node


async def read_json(client: Client, uri: str) -> Any:
    result = await client.read_resource(uri)
    return json.loads(result.contents[0].text)


async def test_a_fault_in_one_node_and_one_device_leaves_the_rest_answering(
    mosquitto: Any, simulator_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_discover = build.discover
    real_summary = describe._state_summary

    def failing_discover(node: ZNode, table: Any) -> dict[int, Found]:
        if node.id == 4:  # Bedroom Sensor: its discovery fails
            raise AttributeError("'int' object has no attribute 'casefold'")
        return real_discover(node, table)

    def failing_summary(device: Any, *args: Any, **kwargs: Any) -> str:
        if device.node_id == 3:  # Living Room Lamp: its description fails
            raise KeyError("level.current")
        return real_summary(device, *args, **kwargs)

    monkeypatch.setattr(build, "discover", failing_discover)
    monkeypatch.setattr(describe, "_state_summary", failing_summary)
    sim: Simulator = simulator_factory()
    async with connected(settings_for(mosquitto, sim)) as client:
        listing = await call(client, "list_zwave_devices", {"limit": 50})
        assert not listing.is_error, listing.text
        states = {d["name"]: d["state"] for d in listing.result["devices"]}
        assert states["Bedroom Sensor"] == "not understood yet"
        assert states["Living Room Lamp"] == "not understood yet"
        assert states["Kitchen Light"] in ("on", "off")
        assert "Front Door Lock" in states and "Hallway Thermostat" in states

        lamp = await call(client, "get_device_state", {"deviceName": "Living Room Lamp"})
        assert not lamp.is_error and "not understood yet" in lamp.text, lamp.text
        sensor = await call(client, "verify_device", {"deviceName": "Bedroom Sensor"})
        assert not sensor.is_error and "does not understand it yet" in sensor.text, sensor.text
        kitchen = await call(client, "get_device_state", {"deviceName": "Kitchen Light"})
        assert not kitchen.is_error and "not understood" not in kitchen.text, kitchen.text
        assert not (await call(client, "verify_device", {"deviceName": "Front Door Lock"})).is_error

        health = await call(client, "check_zwave_health")
        assert health.result["healthy"] is True, health.text
        resource = await read_json(client, DEVICES_URI)
        by_key = {d["key"]: d for d in resource}
        assert by_key["4"]["state"] == "not understood yet" and by_key["2"]["state"] in ("on", "off")
        assert (await read_json(client, device_uri("3")))["device"]["state"] == "not understood yet"

        turned = await call(client, "control_zwave_device", {"deviceName": "Kitchen Light", "action": "on"})
        assert turned.outcome == "confirmed", turned.text


async def test_a_blind_that_only_tilts_is_listed_described_verified_and_tilted(
    mosquitto: Any, simulator_factory: Any
) -> None:
    sim: Simulator = simulator_factory(house=[*captured_house(), tilt_only_blind()])
    async with connected(settings_for(mosquitto, sim)) as client:
        listing = await call(client, "list_zwave_devices", {"limit": 50})
        assert not listing.is_error, listing.text
        blind = next(d for d in listing.result["devices"] if d["name"] == "Study Blind")
        assert blind["type"] == "cover" and blind["state"].startswith("slats "), blind
        state = await call(client, "get_device_state", {"deviceName": "Study Blind"})
        assert not state.is_error and "has its slats" in state.text, state.text
        verify = await call(client, "verify_device", {"deviceName": "Study Blind"})
        assert not verify.is_error and "set tilt" in verify.text, verify.text
        assert any(d["key"] == str(TILT_ONLY_ID) for d in await read_json(client, DEVICES_URI))

        tilted = await call(
            client, "control_zwave_device", {"deviceName": "Study Blind", "action": "set_tilt", "level": 50}
        )
        assert not tilted.is_error, tilted.text
        assert tilted.outcome in ("confirmed", "working", "queued"), tilted.text
        assert "failed" not in tilted.text, tilted.text


async def test_a_value_event_with_a_number_for_a_name_does_not_break_the_house(
    mosquitto: Any, simulator_factory: Any, caplog: pytest.LogCaptureFixture
) -> None:
    sim: Simulator = simulator_factory(house=[*captured_house(), tilt_only_blind()])
    async with connected(settings_for(mosquitto, sim)) as client:
        topic = f"{sim.config.prefix}/_EVENTS/ZWAVE_GATEWAY-{sim.config.name}/node/node_value_added"
        event = {
            "data": [
                {"id": TILT_ONLY_ID, "name": "Study Blind", "location": "Study"},
                {
                    "commandClass": 106,
                    "commandClassName": "Window Covering",
                    "endpoint": 0,
                    "property": "targetValue",
                    "propertyKey": 13,
                    "propertyName": "targetValue",
                    "propertyKeyName": 5,  # zwave-js sends text here
                    "newValue": 10,
                    "metadata": {"type": "number", "writeable": True, "min": 0, "max": 99, "label": "x"},
                },
            ]
        }
        with caplog.at_level("WARNING", logger="zwave_mcp.gateway.nodes"):
            publish.single(topic, json.dumps(event), hostname=mosquitto.host, port=mosquitto.port)
            await eventually(
                lambda: any(f"{TILT_ONLY_ID}-106-0-targetValue-13" in r.getMessage() for r in caplog.records),
                what="the dropped field's log line",
            )
        line = next(r.getMessage() for r in caplog.records if "propertyKeyName" in r.getMessage())
        assert f"node {TILT_ONLY_ID}" in line and "zwave-js sends text" in line
        for tool, args in (
            ("list_zwave_devices", {}),
            ("check_zwave_health", {}),
            ("control_zwave_device", {"deviceName": "Front Door Lock", "action": "lock"}),
        ):
            answer = await call(client, tool, args)
            assert not answer.is_error, f"{tool}: {answer.text}"
        await read_json(client, DEVICES_URI)


def strict_json(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


async def test_nan_and_infinity_from_mqtt_never_reach_the_device_resource(
    mosquitto: Any, simulator_factory: Any
) -> None:
    from zwave_mcp.simulator import naming

    sim: Simulator = simulator_factory()
    lamp = sim.nodes[3]  # the Living Room Lamp
    level = next(v for v in lamp["values"].values() if v.get("property") == "currentValue")
    topic = naming.value_topic(lamp, level, sim.config)
    events = f"{sim.config.prefix}/_EVENTS/ZWAVE_GATEWAY-{sim.config.name}/node/node_value_updated"
    updated = '{"data": [{"id": 3}, {"commandClass": 38, "endpoint": 0, "property": "currentValue", "newValue": %s}]}'
    async with connected(settings_for(mosquitto, sim)) as client:
        for where, payload in (
            (topic, '{"time": 1800000000000, "value": NaN}'),
            (topic, '{"time": 1800000000001, "value": 1e400}'),
            (topic, "-Infinity"),
            (events, updated % "1e400"),
            (events, updated % "NaN"),
        ):
            publish.single(where, payload, hostname=mosquitto.host, port=mosquitto.port)
        # A good report after them, of another device: once it is in, the bad ones were taken in (or not).
        light = sim.nodes[2]
        switch = next(v for v in light["values"].values() if v.get("property") == "currentValue")
        sim.set_value(light, switch, not switch.get("value"))
        wanted = switch["value"]

        for _ in range(300):
            kitchen = strict_json((await client.read_resource(device_uri("2"))).contents[0].text)
            if kitchen["values"]["2-37-0-currentValue"]["value"] == wanted:
                break
            await anyio.sleep(0.01)
        assert kitchen["values"]["2-37-0-currentValue"]["value"] == wanted, kitchen
        shown = strict_json((await client.read_resource(device_uri("3"))).contents[0].text)
        assert shown["values"]["3-38-0-currentValue"]["value"] == level["value"], shown
        strict_json((await client.read_resource(DEVICES_URI)).contents[0].text)
