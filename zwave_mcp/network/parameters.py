"""Configuration parameters: listed, said, found by number or label, and a new value read and checked."""

from __future__ import annotations

from typing import Any

from zwave_mcp.devices.model import Device
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.model import ZNode, ZValue
from zwave_mcp.names import normalize
from zwave_mcp.network.models import ConfigParameter
from zwave_mcp.policy import check_text_argument
from zwave_mcp.zwave.classes import CC


def config_values(node: ZNode) -> list[ZValue]:
    values = [v for v in node.values.values() if v.command_class == CC.CONFIGURATION]
    return sorted(
        values, key=lambda v: (int(v.property) if isinstance(v.property, int) else 0, str(v.property_key))
    )


def as_parameter(value: ZValue) -> ConfigParameter:
    number = value.property if isinstance(value.property, int) else -1
    return ConfigParameter(
        number=number,
        key=value.property_key,
        label=value.label,
        description=value.description,
        value=value.value,
        default=value.default,
        min=value.min,
        max=value.max,
        unit=value.unit,
        options={s.text: s.value for s in value.states} or None,
        writable=value.writeable,
    )


def show(value: Any, unit: str | None, param: ZValue) -> str:
    text = param.state_text(value)
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    if unit:
        shown += f" {unit}"
    return f"{shown} ({text})" if text else shown


def pick_parameter(values: list[ZValue], wanted: int | str, device: Device) -> ZValue:
    if isinstance(wanted, str) and wanted.strip().isdigit():
        wanted = int(wanted.strip())
    if isinstance(wanted, int):
        hits = [v for v in values if v.property == wanted]
    else:
        check_text_argument("parameter", wanted)
        text = normalize(wanted)
        hits = [v for v in values if normalize(v.label) == text] or [
            v for v in values if text and text in normalize(v.label)
        ]
    if len(hits) == 1:
        return hits[0]
    known = ", ".join(f"{v.property} ({v.label})" for v in values) or "none"
    if hits:
        raise UserError(f"'{wanted}' matches several parameters of {device.name}: {known}. Say which number.")
    raise UserError(f"{device.name} has no parameter '{str(wanted)[:60]}'. Its parameters are: {known}.")


def parse_target(param: ZValue, raw: int | float | str) -> int | float:
    """The number to write: an option's name or a number, checked against the parameter's range
    (zwave-js does not check it: the captures show out-of-range values going to the device)."""
    if isinstance(raw, str):
        text = normalize(raw)
        for state in param.states:
            if normalize(state.text) == text and isinstance(state.value, int | float):
                return state.value
        try:
            number = float(raw.strip())
        except ValueError:
            options = ", ".join(s.text for s in param.states)
            hint = f" Its options are: {options}." if options else ""
            raise UserError(f"'{raw[:40]}' is not a value of {param.label}.{hint}") from None
        raw = number
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    low, high = param.min, param.max
    if (low is not None and raw < low) or (high is not None and raw > high):
        unit = f" {param.unit}" if param.unit else ""
        raise UserError(
            f"{param.label} takes {low:g} to {high:g}{unit}; {raw:g} is out of range. Nothing was sent."
        )
    if param.states and not any(s.value == raw for s in param.states) and param.min is None:
        raise UserError(f"{raw} is not one of {param.label}'s options.")
    return raw
