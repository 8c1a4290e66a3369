"""What a reading measures (quantities.py), on the values of real devices and on zwave-js's meter scales."""

from __future__ import annotations

from pathlib import Path

from zwave_mcp.devices.quantities import quantity_of
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.dumps import load_house_file

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"


def values(file: str) -> list[ZValue]:
    nodes = [parse_node(raw) for raw in load_house_file(DEVICES / file)]
    return [v for n in nodes if n is not None and not n.is_controller for v in n.values.values()]


def named(file: str) -> dict[str, str]:
    """label → quantity word, for the values that are readings."""
    return {q.label: q.word for v in values(file) if (q := quantity_of(v)) is not None}


def test_a_metering_plug() -> None:
    """Aeotec Smart Switch 6: Meter kWh, W, V, A (ccSpecific meterType 1, scales 0, 2, 4, 5)."""
    assert named("aeon_smart_switch_6_state.json") == {
        "energy": "energy",
        "power": "power",
        "voltage": "voltage",
        "current": "current",
    }


def test_a_multisensor() -> None:
    found = named("multisensor_6_state.json")
    assert found["air temperature"] == "temperature"
    assert found["illuminance"] == "illuminance"
    assert found["humidity"] == "humidity"
    assert found["ultraviolet"] == "uv"
    assert found["battery"] == "battery"


def meter(meter_type: int, scale: int, unit: str, rate: int = 1) -> ZValue:
    spec = {"meterType": meter_type, "scale": scale, "rateType": rate}
    return ZValue("1-50-0-value-1", 1, 50, "Meter", 0, "value", 1, unit=unit, cc_specific=spec, label="Meter")


def test_meter_types_and_exported_energy() -> None:
    assert quantity_of(meter(3, 0, "m³")).word == "water"  # type: ignore[union-attr]
    assert quantity_of(meter(2, 1, "ft³")).word == "gas"  # type: ignore[union-attr]
    exported = quantity_of(meter(1, 0, "kWh", rate=2))
    assert exported is not None and (exported.word, exported.label) == ("energy", "energy exported")
    reset = ZValue("1-50-0-reset", 1, 50, "Meter", 0, "reset", label="Reset accumulated values")
    assert quantity_of(reset) is None  # a command, no reading


def test_a_meter_without_metadata_is_named_by_its_unit() -> None:
    bare = ZValue("1-50-0-value-66049", 1, 50, "Meter", 0, "value", 66049, unit="W", label="Electric [W]")
    assert quantity_of(bare).word == "power"  # type: ignore[union-attr]
