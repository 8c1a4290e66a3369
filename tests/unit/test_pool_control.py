"""A thermostat beside relays on a node of the Binary Switch class (issue 43 item 1): the real Intermatic
PE653 pool control (fixtures/devices/climate_intermatic_pe653_state.json). Its pool heater's Heating
setpoint is on endpoint 1 with circuit 1's relay and the water temperature; zwave-js publishes its spa
setpoint (Furnace) on the root. Main gave the node's name to the relay of endpoint 2, made the heater two
thermostats "Pool 0" and "Pool 1", and refused "set the pool to 41 °F" ("it can: on, off, toggle")."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.control import plan_control
from zwave_mcp.devices.describe import sentence
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"


def pool() -> dict[str, Device]:
    nodes = [parse_node(raw) for raw in load_house_file(DEVICES / "climate_intermatic_pe653_state.json")]
    found = build_devices(n for n in nodes if n is not None and not n.is_controller)
    return {
        d.name.replace("nodeID_19", "Pool"): replace(d, name=d.name.replace("nodeID_19", "Pool"))
        for d in found
    }


def test_the_pool_controls_name_is_its_heater() -> None:
    found = pool()
    heater = found["Pool"]
    assert heater.kind == Capability.THERMOSTAT and heater.endpoint == 1
    assert "Pool 0" not in found  # the spa setpoint is the heater's, not a thermostat of its own
    assert (
        sentence(heater)
        == "Pool is set to 39 °F, with furnace set to 60 °F; it is 81 °F now, with sensor clear."
    )
    assert found["Pool 2"].kind == Capability.SWITCH


def test_set_the_pool_to_41_sets_its_pool_setpoint() -> None:
    heater = pool()["Pool"]
    plan = plan_control(heater, "set_temperature", level=41)
    ((write,),) = [plan.writes]
    assert (write.value.endpoint, write.value.property_key, write.target) == (1, 1, 41)
    spa = plan_control(heater, "set_temperature", level=100, setpoint="furnace")
    assert [(w.value.endpoint, w.value.property_key) for w in spa.writes] == [(0, 7)]
