"""Issue 30: a device whose node zwave-js-ui has told nothing of yet (not ready, no values: every node for
a few seconds after zwave-js-ui restarts) is "still loading" in every answer, never a device that "only
reports readings" or "has no sensor readings"."""

from __future__ import annotations

import pytest

from tests.unit.test_devices_build import house, raw_nodes
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.control import plan_control
from zwave_mcp.devices.describe import sentence, state_summary
from zwave_mcp.devices.errors import ActionNotSupported, StillLoading
from zwave_mcp.devices.group_control import plan_group
from zwave_mcp.devices.groups import Group, GroupTarget
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.questions import Question, answer
from zwave_mcp.gateway.loader import assess
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.policy import Policy
from zwave_mcp.server.tools.present import sensor_summary, verify_summary

WHY = "zwave-js-ui has not sent its values yet; ask again in a few seconds."


def after_restart() -> dict[str, Device]:
    """The captured house as getNodes lists it just after zwave-js-ui restarts, the lamp (node 3) up
    already: the others not ready, status Unknown, without values."""
    nodes = []
    for raw in raw_nodes():
        if raw.get("id") not in (1, 3):
            raw = {**raw, "ready": False, "status": "Unknown", "values": {}}
        node = parse_node(raw)
        if node is not None:
            nodes.append(node)
    return {d.key: d for d in build_devices(nodes)}


@pytest.mark.parametrize("action", ["on", "toggle", "unlock", "fly"])
def test_a_control_says_still_loading_not_only_reports_readings(action: str) -> None:
    light = after_restart()["2"]
    with pytest.raises(StillLoading) as err:
        plan_control(light, action)
    assert str(err.value) == f"Kitchen Light is still loading: {WHY}"
    assert not isinstance(err.value, ActionNotSupported)


def test_state_list_verify_and_sensor_answers_say_still_loading() -> None:
    devices = after_restart()
    light, sensor = devices["2"], devices["4"]
    assert state_summary(light) == "still loading"
    assert sentence(light) == f"Kitchen Light is still loading: {WHY}"
    assert sentence(sensor) == f"Bedroom Sensor is still loading: {WHY}"
    assert sensor_summary(sensor, []) == f"Bedroom Sensor is still loading: {WHY}"
    assert verify_summary(light, []) == f"Kitchen Light (Kitchen) exists but is still loading: {WHY}"
    # The lamp is up: it answers as usual.
    assert state_summary(devices["3"]) != "still loading"
    assert plan_control(devices["3"], "on").summary == "turn on Living Room Lamp"


def test_a_group_names_the_devices_still_loading() -> None:
    devices = after_restart()
    group = Group(GroupTarget(said_all=True), "living room and kitchen devices", [devices["2"], devices["3"]])
    plan = plan_group(group, "off", {}, Policy())
    assert [p.device.name for p in plan.plans] == ["Living Room Lamp"]
    assert [(s.device.name, s.why, s.named) for s in plan.skipped] == [
        ("Kitchen Light", "it is still loading", True)
    ]


def test_a_device_with_values_or_ready_is_not_loading() -> None:
    sensor = house()["4"]  # a sleeping sensor, interviewed: it only reports readings, as it says
    assert not sensor.node.loading
    with pytest.raises(ActionNotSupported, match="only reports readings"):
        plan_control(sensor, "on")


def test_the_loader_counts_the_same_nodes_as_waiting() -> None:
    devices = after_restart()
    nodes = {d.node_id: d.node for d in devices.values()}
    picture = assess(nodes)
    assert picture.waiting == sum(1 for n in nodes.values() if n.loading) == len(nodes) - 1


def test_a_question_about_many_names_the_devices_still_loading() -> None:
    devices = after_restart()
    kitchen = [devices["2"], devices["8"]]  # both still loading
    said = answer(Question.ON, kitchen, "kitchen devices", everything=False)
    assert said.sentence == "Kitchen Light and Coffee Maker Plug are still loading."
    assert said.unknown == kitchen and said.matching == []
    lamp_and_light = answer(Question.ON, [devices["3"], devices["2"]], "devices", everything=True)
    assert lamp_and_light.sentence.endswith("; Kitchen Light is still loading."), lamp_and_light.sentence
    batteries = answer(Question.BATTERY, [devices["4"]], "bedroom devices", everything=False)
    assert batteries.sentence == "Bedroom Sensor is still loading."
