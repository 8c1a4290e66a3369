"""A button's intrusion alarm is said in its answer (issue 43 item 3), on a real Fibaro FGPB-101 Button
(`fixtures/devices/button_fibaro_fgpb101_state.json`, from zwave-js-ui): its Home Security "Sensor status"
(idle, Intrusion) is an intrusion sensor beside its presses, asked about, said and recorded as one. A lock's
intrusion alarm (the Schlage BE469's) is said when it stands and is no news at rest."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.describe import sentence
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.questions import Question, answer
from zwave_mcp.devices.sensor_types import sensor_type
from zwave_mcp.gateway.model import ValueState, ZValue
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.history.words import describe_value
from zwave_mcp.simulator.dumps import load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"


def real(file: str) -> Device:
    parsed = (parse_node(raw) for raw in load_house_file(DEVICES / file))
    (found,) = build_devices([n for n in parsed if n is not None and not n.is_controller])
    return found


def home_security(device: Device) -> ZValue:
    return next(
        v
        for v in device.node.values.values()
        if v.command_class == 113 and v.property == "Home Security" and v.property_key == "Sensor status"
    )


def test_the_button_says_its_intrusion_sensor_at_rest_and_when_it_triggers() -> None:
    button = real("button_fibaro_fgpb101_state.json")
    assert button.has(Capability.BUTTON)
    assert sentence(button) == "button-red reports no intrusion and battery 100 %."
    assert answer(Question.INTRUSION, [button], "button-red", False).sentence == "No intrusion at button-red."
    home_security(button).value = 2  # zwave-js: "Intrusion"
    assert sentence(button) == "button-red reports intrusion detected and battery 100 %."
    got = answer(Question.INTRUSION, [button], "button-red", False)
    assert got.sentence == "There is an intrusion at button-red." and got.matching == [button]


def test_an_intrusion_is_recorded_as_one() -> None:
    value = home_security(real("button_fibaro_fgpb101_state.json"))
    phrase = describe_value(value, 2)
    assert (phrase.text, phrase.state) == ("detected an intrusion", "intrusion")
    assert describe_value(value, 0).text == "reported no intrusion"


def test_glass_breakage_on_the_same_variable_is_not_an_intrusion() -> None:
    # zwave-js's Home Security "Sensor status" also carries glass breakage (states 5 and 6)
    glass = ZValue(
        "9-113-0-Home Security-Sensor status", 9, 113, "Notification", 0, "Home Security", "Sensor status",
        label="Sensor status", type="number", cc_specific={"notificationType": 7},
        states=[ValueState(0, "idle"), ValueState(6, "Glass breakage")], value=0,
    )  # fmt: skip
    kind = sensor_type(glass)
    assert kind is not None and kind.word == "glass_break"


def test_a_lock_says_its_intrusion_when_it_stands_and_not_at_rest() -> None:
    lock = replace(real("lock_schlage_be469_state.json"), name="Back Door")
    assert sentence(lock) == "Back Door is unlocked and the door is open; battery 100 %."
    home_security(lock).value = 2
    assert (
        sentence(lock) == "Back Door is unlocked and the door is open; intrusion detected and battery 100 %."
    )
