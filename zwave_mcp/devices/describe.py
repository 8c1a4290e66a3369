"""A device's state in words: short summaries for lists, readings with units and age, spoken sentences."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zwave_mcp.devices import model as m
from zwave_mcp.devices.control import MODE_SETPOINT
from zwave_mcp.devices.levels import to_percent
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.gateway.model import ZValue

# Meter readings are named by unit; zwave-js labels them "Electric Consumption [W]".
_METER_LABELS = {"W": "Power", "kWh": "Energy", "V": "Voltage", "A": "Current"}


@dataclass(frozen=True, slots=True)
class Reading:
    label: str  # "Air temperature", "Power", "Motion", "Battery"
    value: Any
    unit: str | None
    age_s: float | None  # seconds since the device reported it (zwave-js lastUpdate); None if unknown
    value_id: str
    text: str | None = None  # state text: "Motion detection", "idle", "detected"

    def spoken(self) -> str:
        """ "21.6 °C air temperature", "motion detected", "87 % battery"."""
        if self.value is None:
            return f"{self.label.lower()} unknown"
        if self.text is not None:
            return (
                f"{self.label.lower()} {self.text.lower()}" if self.label != self.text else self.text.lower()
            )
        return f"{_number(self.value)}{_unit(self.unit)} {self.label.lower()}"


def readings(device: Device, now_ms: int) -> list[Reading]:
    """Every sensor, binary sensor, notification state, meter and battery value of the device."""
    out: list[Reading] = []
    for value in device.readings.get(Capability.SENSOR, []):
        out.append(_reading(value, value.label, now_ms))
    for value in device.readings.get(Capability.BINARY_SENSOR, []):
        label = str(value.property) if isinstance(value.property, str) else value.label
        text = None if value.value is None else ("detected" if value.value else "clear")
        out.append(_reading(value, label, now_ms, text))
    for value in device.readings.get(Capability.NOTIFICATION, []):
        out.append(_reading(value, value.label, now_ms, value.state_text()))
    for value in device.readings.get(Capability.METER, []):
        out.append(_reading(value, _METER_LABELS.get(value.unit or "", value.label), now_ms))
    if (battery := device.values.get(m.BATTERY_LEVEL)) is not None:
        out.append(_reading(battery, "Battery", now_ms))
    return out


def _reading(value: ZValue, label: str, now_ms: int, text: str | None = None) -> Reading:
    age = None if value.last_update_ms is None else max(0.0, (now_ms - value.last_update_ms) / 1000)
    return Reading(label, value.value, value.unit, age, value.value_id, text)


def state_summary(device: Device) -> str:
    """Short state for lists: "on", "30 %", "locked, door closed", "heat to 21 °C, 20.8 °C now"."""
    v = device.values
    if device.has(Capability.LOCK):
        return _lock_summary(device)
    if device.has(Capability.THERMOSTAT):
        return _thermostat_summary(device)
    if device.has(Capability.COVER):
        return _cover_summary(v[m.COVER_TARGET], v.get(m.COVER_CURRENT))
    if device.has(Capability.DIMMER):
        level = _level_percent(v.get(m.LEVEL_CURRENT))
        text = "unknown" if level is None else ("off" if level == 0 else f"{level} %")
        hex_value = v.get(m.COLOR_HEX)
        if hex_value is not None and isinstance(hex_value.value, str) and level:
            text += f", colour #{hex_value.value}"
        return text
    if device.has(Capability.SWITCH):
        current = v.get(m.SWITCH_CURRENT)
        on = None if current is None or current.value is None else bool(current.value)
        text = "unknown" if on is None else ("on" if on else "off")
        power = next((r for r in device.readings.get(Capability.METER, []) if r.unit == "W"), None)
        if power is not None and isinstance(power.value, int | float):
            text += f", {_number(power.value)} W"
        return text
    parts = []
    for r in readings(device, 0):
        if r.label == "Battery" and len(device.capabilities) > 1:
            continue
        if r.value_id in idle_notifications(device):
            continue  # "cover status idle" says nothing; an active notification does
        parts.append(r.spoken())
    return ", ".join(parts) if parts else "no readings"


def idle_notifications(device: Device) -> set[str]:
    return {v.value_id for v in device.readings.get(Capability.NOTIFICATION, []) if v.value == 0}


def sentence(device: Device) -> str:
    """One sentence a voice assistant can say about the device."""
    summary = state_summary(device)
    if device.kind in m.SENSORS:
        return f"{device.name} reports {summary}."
    if device.kind == Capability.THERMOSTAT:
        return f"{device.name} is set to {summary}."
    if device.kind in (Capability.DIMMER, Capability.COLOR) and summary[:1].isdigit():
        return f"{device.name} is on at {summary}."
    return f"{device.name} is {summary}."


def _lock_summary(device: Device) -> str:
    current = device.values.get(m.LOCK_CURRENT)
    if current is None or current.value is None:
        text = "lock state unknown"
    elif current.value == 255:
        text = "locked"
    elif current.value == 0:
        text = "unlocked"
    else:
        text = (current.state_text() or str(current.value)).lower()
    door = device.values.get(m.LOCK_DOOR)
    if door is not None and isinstance(door.value, str):
        text += f", door {door.value}"
    return text


def _thermostat_summary(device: Device) -> str:
    mode = device.values.get(m.THERMOSTAT_MODE)
    mode_text = (mode.state_text() if mode is not None else None) or "mode unknown"
    text = mode_text.lower()
    if mode is not None and mode.value not in (None, 0):
        setpoint = device.setpoints().get(MODE_SETPOINT.get(mode.value, -1))
        if setpoint is not None and isinstance(setpoint.value, int | float):
            text += f" to {_number(setpoint.value)}{_unit(setpoint.unit)}"
    temperature = device.values.get(m.THERMOSTAT_TEMPERATURE)
    if temperature is not None and isinstance(temperature.value, int | float):
        text += f", {_number(temperature.value)}{_unit(temperature.unit)} now"
    return text


def _cover_summary(target: ZValue, current: ZValue | None) -> str:
    watch = current or target
    if watch.value is None:
        return "position unknown"
    if watch.property in ("currentState", "targetState"):  # Barrier Operator
        return (watch.state_text() or str(watch.value)).lower()
    level = _level_percent(watch)
    if level is None:
        return "position unknown"
    return "closed" if level == 0 else f"open {level} %"


def _level_percent(value: ZValue | None) -> int | None:
    if value is None or not isinstance(value.value, int | float) or isinstance(value.value, bool):
        return None
    return to_percent(value.value, value)


def _number(x: Any) -> str:
    return f"{x:g}" if isinstance(x, int | float) and not isinstance(x, bool) else str(x)


def _unit(unit: str | None) -> str:
    return f" {unit}" if unit else ""
