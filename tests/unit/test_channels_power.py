"""A node of several channels, asked by its own name, says what every channel uses (issue 43 item 2): the
real TouchWand Glass 9 (fixtures/devices/touchwand_glass9_state.json) answers by its name with relay 2,
while its metered dimmers on endpoints 8-10 draw 8.5-9 W. Main said "gp9 is off; air temperature 31.1 °C."
as if nothing drew power."""

from __future__ import annotations

from pathlib import Path

from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.describe import sentence
from zwave_mcp.devices.model import Device
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"


def devices(file: str) -> dict[str, Device]:
    nodes = [parse_node(raw) for raw in load_house_file(DEVICES / file)]
    return {d.name: d for d in build_devices(n for n in nodes if n is not None and not n.is_controller)}


def test_the_node_by_its_name_says_each_channels_power() -> None:
    glass = devices("touchwand_glass9_state.json")
    assert sentence(glass["gp9"]) == (
        "gp9 is off; air temperature 31.1 °C; gp9 8 uses 8.5 W, gp9 9 uses 8.7 W and gp9 10 uses 9 W."
    )
    assert (
        sentence(glass["gp9 9"]) == "gp9 9 is on at 54 %, using 8.7 W at 231.8 V and 0.04 A, 0 kWh in total."
    )


def test_a_channels_power_follows_its_report() -> None:
    glass = devices("touchwand_glass9_state.json")
    power = next(
        v for v in glass["gp9 8"].all_values() if v.command_class == 50 and v.unit == "W" and v.endpoint == 8
    )
    power.value = 18
    assert "gp9 8 uses 18 W" in sentence(glass["gp9"])


def test_a_power_the_main_part_says_itself_is_not_said_again() -> None:
    """Heatit Z-TRM2fx: the thermostat says its heating relay's power (endpoint 4) as its own."""
    trm = devices("climate_heatit_z_trm2fx_state.json")
    (main,) = [d for d in trm.values() if d.part is None]
    said = sentence(main)
    assert said.count("493.57 W") == 1 and " uses " not in said
