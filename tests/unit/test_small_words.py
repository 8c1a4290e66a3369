"""The small words of issue 36 item 15: a plural name takes "are", a fan mode is "the fan is now on low",
and errors name JSON's types."""

from __future__ import annotations

from pathlib import Path

import pytest

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.control import control_change, plan_control
from zwave_mcp.devices.gate.evidence import DeviceOutcome, EffectOutcome, Report, sentence
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.names import agreeing, names_many
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.simulator.dumps import DumpError, house_from_json, load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"


@pytest.mark.parametrize(
    ("name", "many"),
    [
        ("Living Room Blinds", True),
        ("Porch Lights", True),
        ("Garage Doors", True),
        ("Porch Double Switch 2", False),
        ("Front Door Lock", False),
        ("Sliding Glass", False),
        ("Gas", False),
        ("Boiler Status", False),
    ],
)
def test_a_plural_name_takes_a_plural_verb(name: str, many: bool) -> None:
    assert names_many(name) is many
    said = agreeing(name, f"{name} is on its way; it has not reported the final state yet.")
    if many:
        assert said == f"{name} are on their way; they have not reported the final state yet."
    else:
        assert said.startswith(f"{name} is on its way")


def confirmed(device_file: str, action: str, **args: object) -> str:
    nodes = [n for n in (parse_node(raw) for raw in load_house_file(DEVICES / device_file)) if n]
    device = next(d for d in build_devices(nodes) if d.kind is not None)
    plan = plan_control(device, action, **args)  # type: ignore[arg-type]
    change = control_change(plan)
    parts = tuple(
        EffectOutcome(e, Outcome.CONFIRMED, Report(e.expect.expected if e.expect else None, True))
        for e in change.effects
    )
    outcome = DeviceOutcome(device, Outcome.CONFIRMED, plan.argument, None, True, "", parts)
    return sentence(change, [outcome])


def test_a_fan_mode_is_said_as_the_fan_on_its_mode() -> None:
    said = confirmed("climate_adc_t3000_state.json", "set_fan_mode", mode="low")
    assert said.startswith("Done: the fan of ") and said.endswith(
        " is now on low, as the device reported."
    ), said


@pytest.mark.parametrize(
    ("data", "said"), [(None, "found null"), ([1], "item 0 is a number"), (7.5, "found a number")]
)
def test_errors_name_json_types_not_python_types(data: object, said: str) -> None:
    with pytest.raises(DumpError) as caught:
        house_from_json(data)
    assert str(caught.value).startswith(said) and "NoneType" not in str(caught.value)
