"""The water valve: its discovery rows, open or closed in words, its actions (open, close; "turn off the
water" closes it) and what a write to it amounts to.

A valve is a Binary Switch (true = open) or a Multilevel Switch (0 closed … 99 open) of the Valve
Open/Close device class, or of a model known to be a valve. Pure.
"""

from __future__ import annotations

from typing import Any

from zwave_mcp.devices import model as m
from zwave_mcp.devices.discovery import Schema, match, product
from zwave_mcp.devices.kinds.base import KindSpec, Words, told_or_did
from zwave_mcp.devices.kinds.switch import binary_row
from zwave_mcp.devices.levels import nonzero
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.writes import ControlPlan, one_write
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.zwave import classes as zc
from zwave_mcp.zwave.classes import CC, SwitchProps

_SWITCH_CURRENT = ((m.VALVE_CURRENT, match(CC.BINARY_SWITCH, SwitchProps.CURRENT)),)

# Among the models, after the sirens and thermostats known by model.
MODEL_SCHEMAS: tuple[Schema, ...] = (
    binary_row(
        "valve: Zooz ZAC36 Titan water valve actuator",
        Capability.VALVE,
        role=m.VALVE_TARGET,
        companions=_SWITCH_CURRENT,
        products=(product(0x027A, {0x0101}, {0x0036}),),
    ),
)
# The generic row, in the table after the fans.
SCHEMAS: tuple[Schema, ...] = (
    binary_row(
        "valve: Binary Switch of the Valve Open/Close device class",
        Capability.VALVE,
        role=m.VALVE_TARGET,
        companions=_SWITCH_CURRENT,
        generic=frozenset({zc.GENERIC_BINARY_SWITCH}),
        specific=frozenset({zc.SPECIFIC_VALVE}),
    ),
)
_NOUNS = {m.VALVE_TARGET: "target valve state", m.VALVE_CURRENT: "valve state"}


def _summary(device: Device, spoken: bool) -> str | None:
    if m.VALVE_TARGET not in device.values:
        return None
    watch = device.values.get(m.VALVE_CURRENT) or device.values[m.VALVE_TARGET]
    return "unknown" if watch.value is None else ("open" if nonzero(watch.value) else "closed")


def _opening(device: Device, summary: str) -> str | None:
    if summary.startswith("unknown") and m.VALVE_TARGET in device.values:
        return "has not reported whether it is open"
    return None


def _change_phrase(device: Device | None, value: ZValue, role: str | None, new: Any) -> str | None:
    if role not in (m.VALVE_CURRENT, m.VALVE_TARGET):
        return None
    if nonzero(new):
        return told_or_did(role == m.VALVE_TARGET, "open", "opened")
    return told_or_did(role == m.VALVE_TARGET, "close", "closed")


def _effect_words(device: Device, value: ZValue, role: str | None, target: Any) -> Words | None:
    return (frozenset({"open" if nonzero(target) else "close"}), None) if role == m.VALVE_TARGET else None


def _spoken_value(device: Device, value: ZValue, role: str | None, raw: Any) -> str | None:
    if role not in (m.VALVE_TARGET, m.VALVE_CURRENT):
        return None
    return "open" if nonzero(raw) else "closed"


def _actions(device: Device) -> set[str]:
    return {"open", "close"} if m.VALVE_TARGET in device.values else set()


def _open_close(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    target = device.values[m.VALVE_TARGET]
    opening = action == "open"
    sent: Any = opening if target.type == "boolean" else (int(target.max or 99) if opening else 0)
    watch = device.values.get(m.VALVE_CURRENT)
    return one_write(device, action, None, target, sent, f"{action} {device.name}", watch=watch)


KIND = KindSpec(
    name="valve",
    actions=_actions,
    planners={"open": _open_close, "close": _open_close},
    summary=_summary,
    change_phrase=_change_phrase,
    nouns=_NOUNS,
    effect_words=_effect_words,
    spoken_value=_spoken_value,
    synonyms={"on": "open", "off": "close"},
    opening=_opening,
)
