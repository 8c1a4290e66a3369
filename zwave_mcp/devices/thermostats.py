"""What a thermostat is set to, in words and in values: its mode by name, the setpoint the mode uses,
every setpoint, its operating state. Shared by the state answer (`describe`) and the controls
(`control`), so both read a thermostat the same way. Pure.

As zwave-js and Home Assistant do: a mode value outside the device's own list of states is named by
zwave-js's `ThermostatMode` (31 is "Manufacturer specific"), and a thermostat without a mode (a radiator
valve) heats: its heating setpoint is the one it works to.
"""

from __future__ import annotations

from typing import Any

from zwave_mcp.devices import model as m
from zwave_mcp.devices.levels import as_int, is_number
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.readings import number, unit_text
from zwave_mcp.gateway.model import ZValue

# zwave-js ThermostatMode → the setpoint type that mode uses (Heat → Heating, Cool → Cooling, …).
MODE_SETPOINT: dict[int, int] = {1: 1, 2: 2, 7: 7, 8: 8, 9: 9, 10: 10, 11: 11, 12: 12, 13: 13, 14: 14, 15: 15}
# Modes that work to both the heating and the cooling setpoint (Auto, Auto changeover).
BOTH_SETPOINTS = frozenset({3, 10})
HEATING = 1
# zwave-js's ThermostatMode names (`@zwave-js/cc`), for a mode a device reports outside its own states.
MODE_NAMES: dict[int, str] = {
    0: "Off", 1: "Heat", 2: "Cool", 3: "Auto", 4: "Auxiliary", 5: "Resume (on)", 6: "Fan", 7: "Furnace",
    8: "Dry", 9: "Moist", 10: "Auto changeover", 11: "Energy heat", 12: "Energy cool", 13: "Away",
    15: "Full power", 31: "Manufacturer specific",
}  # fmt: skip
# zwave-js's ThermostatOperatingState names, likewise.
OPERATING_NAMES: dict[int, str] = {
    0: "Idle", 1: "Heating", 2: "Cooling", 3: "Fan Only", 4: "Pending Heat", 5: "Pending Cool",
    6: "Vent/Economizer", 7: "Aux Heating", 8: "2nd Stage Heating", 9: "2nd Stage Cooling",
    10: "2nd Stage Aux Heat", 11: "3rd Stage Aux Heat",
}  # fmt: skip


def _named(value: ZValue, raw: Any, names: dict[int, str]) -> str | None:
    """The device's own label for the value (or `raw`), else zwave-js's name from `names`; None when not
    reported, or a number nobody names."""
    target = value.value if raw is None else raw
    if target is None:
        return None
    text = value.state_text(target)
    if text:
        return text
    key = as_int(target)
    return names.get(key) if key is not None else None


def mode_name(value: ZValue, raw: Any = None) -> str | None:
    """A thermostat mode's name: the device's own label for it, else zwave-js's ("Manufacturer specific")."""
    return _named(value, raw, MODE_NAMES)


def operating_name(value: ZValue, raw: Any = None) -> str | None:
    """An operating state's name ("Heating"), the device's label first, else zwave-js's."""
    return _named(value, raw, OPERATING_NAMES)


def mode_value(device: Device) -> int | None:
    """The mode the thermostat reports (a zwave-js ThermostatMode number); None without one."""
    mode = device.values.get(m.THERMOSTAT_MODE)
    return None if mode is None else as_int(mode.value)


def working_setpoints(device: Device) -> list[ZValue]:
    """The setpoints the thermostat works to now: its mode's (both in Auto), or with no mode at all the
    heating one (a radiator valve heats), or its only one; [] when that cannot be told."""
    setpoints = device.setpoints()
    mode = device.values.get(m.THERMOSTAT_MODE)
    if mode is None:
        if HEATING in setpoints:
            return [setpoints[HEATING]]
        return list(setpoints.values()) if len(setpoints) == 1 else []
    value = as_int(mode.value)
    if value is None or value == 0:
        return []
    if value in BOTH_SETPOINTS:
        return [setpoints[k] for k in (1, 2) if k in setpoints]
    own = setpoints.get(MODE_SETPOINT.get(value, -1))
    if own is not None:
        return [own]
    return list(setpoints.values()) if len(setpoints) == 1 and value in MODE_SETPOINT else []


def setpoint_name(value: ZValue) -> str:
    """ "heating", "energy save heating"; "" for a setpoint that does not say its type."""
    return (value.property_key_name or "").lower()


def temperature(value: ZValue) -> str | None:
    """ "20 °C"; None when not reported."""
    return f"{number(value.value)}{unit_text(value.unit)}" if is_number(value.value) else None


def setpoint_phrases(device: Device, leave_out: list[ZValue]) -> list[str]:
    """Every reported setpoint but those already said: "heating set to 20 °C", "set to 20 °C" (setpoints
    of a type zwave-js cannot name, "Unknown (0x03)", stay in the structured answers only)."""
    said = {v.value_id for v in leave_out}
    out = []
    for _, value in sorted(device.setpoints().items()):
        shown = temperature(value)
        if value.value_id in said or shown is None:
            continue
        name = setpoint_name(value)
        if name.startswith("unknown"):  # zwave-js's "Unknown (0x03)": a type nobody names, left unsaid
            continue
        out.append(f"{name} set to {shown}" if name else f"set to {shown}")
    return out
