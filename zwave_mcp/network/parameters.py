"""Configuration parameters: listed, said, found by number or label, and a new value read and checked.

A node's own values carry what zwave-js read from the device with the metadata of its config file; the
device database (`getDeviceConfigurationParams`) fills what they lack (a description, the options, the
range) and names the parameters the node has not reported yet. What a parameter changes beyond the
device itself (what it reports, how it locks) is said with it, and in the question the person answers."""

from __future__ import annotations

import copy
import re
from typing import Any

from zwave_mcp.answers import and_list
from zwave_mcp.devices.model import Device
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.model import ZNode, ZValue
from zwave_mcp.names import normalize
from zwave_mcp.network.models import ConfigParameter
from zwave_mcp.policy import check_text_argument
from zwave_mcp.zwave.classes import CC


def config_values(node: ZNode) -> list[ZValue]:
    return sorted((v for v in node.values.values() if v.command_class == CC.CONFIGURATION), key=_order)


# Metadata the database may fill where the node's own value is silent.
_FILLED = ("label", "description", "unit", "min", "max", "default", "states")
# What a parameter changes beyond the device itself, told by the words of its label and description.
_REPORTS = re.compile(r"\b(report\w*|interval|threshold|notification\w*)\b")
_LOCKS = re.compile(r"\b(auto ?)?(re ?)?(lock|latch)\w*")


def explained(live: list[ZValue], database: list[ZValue]) -> list[ZValue]:
    """The node's parameters, each with what the database says where its own metadata is silent, and then
    the database's parameters the node has not reported (they hold no value), in parameter order."""
    known = {(v.property, v.property_key): v for v in database}
    merged: list[ZValue] = []
    for value in live:
        entry = known.pop((value.property, value.property_key), None)
        missing = {f: getattr(entry, f) for f in _FILLED if entry is not None and _silent(getattr(value, f))}
        missing = {f: v for f, v in missing.items() if not _silent(v)}
        if missing:
            value = copy.copy(value)  # the live value stays as it is; this copy carries the database's words
            value.update_meta(**missing)
        merged.append(value)
    merged.extend(known.values())
    return sorted(merged, key=_order)


def _silent(said: Any) -> bool:
    """Nothing said: a range starting at 0 or a default of 0 is said, and stays the node's."""
    return said is None or said == "" or said == []


def _order(value: ZValue) -> tuple[int, str]:
    return (value.property if isinstance(value.property, int) else 0, str(value.property_key))


def affects(value: ZValue) -> str | None:
    """What setting this parameter changes beyond the device itself, in words: "what it reports" for a
    report interval or threshold, "how it locks" for an auto-relock; None for the rest."""
    text = normalize(f"{value.label} {value.description or ''}")
    if _LOCKS.search(text):
        return "how it locks"
    if _REPORTS.search(text):
        return "what it reports"
    return None


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
        affects=affects(value),
    )


# A unit that is a step ("10ms": each 1 is 10 ms), as device databases write them.
_STEP = re.compile(r"(\d+(?:\.\d+)?) ?([A-Za-zµ°%].*)")


def _step(unit: str | None) -> tuple[float, str] | None:
    found = _STEP.fullmatch((unit or "").strip())
    return (float(found.group(1)), found.group(2)) if found else None


def show(value: Any, unit: str | None, param: ZValue) -> str:
    """ "5 seconds", "0 (LED on when switch is OFF)"; a value in steps says what it is: "3 (30 ms)", not
    "3 10ms" (a number then a number-and-unit, which nobody says)."""
    text = param.state_text(value)
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    step = _step(unit)
    if step and isinstance(value, int | float) and not isinstance(value, bool) and not text:
        return f"{shown} ({value * step[0]:g} {step[1]})"
    if unit:
        shown += f" {unit}"
    return f"{shown} ({text})" if text else shown


def _unit_words(unit: str | None) -> str:
    """A range's unit: " seconds", or ", in steps of 10 ms" for a unit that is a step."""
    step = _step(unit)
    if step:
        return f", in steps of {step[0]:g} {step[1]}"
    return f" {unit}" if unit else ""


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
    if hits:  # only those it matches: the whole list hid which ones they were
        matched = ", ".join(f"{v.property} ({v.label})" for v in hits)
        raise UserError(
            f"'{wanted}' matches several parameters of {device.name}: {matched}. Say which number."
        )
    if not values:
        raise UserError(f"{device.name} has no configuration parameters that zwave-js-ui knows of.")
    known = ", ".join(f"{v.property} ({v.label})" for v in values)
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
        raise UserError(
            f"{param.label} takes {low:g} to {high:g}{_unit_words(param.unit)}; {raw:g} is out of range. "
            "Nothing was sent."
        )
    if param.states and not any(s.value == raw for s in param.states) and param.min is None:
        raise UserError(f"{raw} is not one of {param.label}'s options.")
    return raw


def allowed(param: ZValue) -> str:
    """What the parameter takes, in words: its options, or its range with unit (and any named values)."""
    options = and_list([f"{s.text} ({s.value})" for s in param.states], last="or")
    low, high = param.min, param.max
    if low is None or high is None:
        return options or "any number"
    if param.states and len(param.states) > high - low:
        return options
    return f"{low:g} to {high:g}{_unit_words(param.unit)}" + (f" (or {options})" if options else "")


def explain(param: ZValue, device: Device, reported: bool) -> str:
    """One parameter in one sentence: its label and number, what it does (the description's first
    sentence), its value (or that the device has not told it), what it takes, its default, and what else
    setting it changes."""
    now = (
        f"is {show(param.value, param.unit, param)}" if reported else "has not been read from the device yet"
    )
    first = (param.description or "").split(". ")[0].rstrip(". ")[:160]
    about = f" ({_lower_first(first)})" if first else ""
    default = (
        f" and is {show(param.default, param.unit, param)} by default" if param.default is not None else ""
    )
    effect = affects(param)
    beyond = f"; setting it changes {effect}" if effect else ""
    return (
        f"Parameter {param.property} of {device.name}, {param.label}{about}, {now}; "
        f"it takes {allowed(param)}{default}{beyond}."
    )


def _lower_first(text: str) -> str:
    """ "Timing of steps" → "timing of steps"; "LED colour" stays as it is."""
    return text[:1].lower() + text[1:] if text[1:2].islower() else text
