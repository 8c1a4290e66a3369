"""The write vocabulary every kind plans with: a `Write`, what the device must report back (`Expectation`),
the `ControlPlan` they make, and how a person's number, percentage or state word becomes a device's value.

Below the kinds (`kinds/`) and the shared modules that dispatch to them (`control`, the gate's `change`),
so that a kind's planner needs nothing above it. Pure.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from zwave_mcp.devices.errors import InvalidValue, StateUnknown
from zwave_mcp.devices.levels import is_number, nonzero, to_level, to_percent
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.readings import unit_text
from zwave_mcp.devices.resolve import echo
from zwave_mcp.gateway.model import ValueState, ZValue
from zwave_mcp.zwave.classes import CC

Match = Literal["equals", "nonzero", "contains"]

_RELATIVE = re.compile(r"\s*([+-])\s*(\d+(?:\.\d+)?)\s*%?\s*")
_ABSOLUTE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(?:%|°\s*[cf]?|degrees?)?\s*", re.IGNORECASE)


def same(a: Any, b: Any) -> bool:
    if is_number(a) and is_number(b):
        return math.isclose(float(a), float(b), abs_tol=0.01)
    return bool(a == b) and type(a) is type(b)


# The arguments that carry a change's value, for one device or a group alike (`control.plan_control`'s
# keywords; the tools' `ChangeArgs` declares each of them).
VALUE_ARGUMENTS = ("level", "value", "setpoint", "mode", "color", "position")


@dataclass(frozen=True, slots=True)
class Expectation:
    """What the device must report for the effect to count as done.

    match: "equals" (numbers within 0.01), "nonzero" (on at any level), "contains" (an object such as
    currentColor holds these keys with these values).
    """

    value: ZValue
    expected: Any
    match: Match = "equals"

    @property
    def value_id(self) -> str:
        return self.value.value_id

    def is_met(self, reported: Any) -> bool:
        if self.match == "nonzero":
            return nonzero(reported)
        if self.match == "contains":
            return isinstance(reported, dict) and all(
                same(reported.get(k), v) for k, v in dict(self.expected).items()
            )
        return same(reported, self.expected)


@dataclass(frozen=True, slots=True)
class Write:
    """One value write: the value (from the inventory, never from user text), the target, options."""

    value: ZValue
    target: Any
    options: dict[str, Any] | None = None


@dataclass(slots=True)
class ControlPlan:
    device: Device
    action: str
    # The normalized argument (percent, °C, mode text, hex colour): what the policy binds a token to.
    argument: Any
    writes: list[Write]
    expectations: list[Expectation]
    summary: str  # "turn on Kitchen Light"
    # Values the caller may want to show as "from … to …".
    details: dict[str, Any] = field(default_factory=dict)


# A kind's planner: (device, the action, the call's arguments by name) → the plan; raises the domain errors.
Planner = Callable[[Device, str, dict[str, Any]], ControlPlan]


def one_write(
    device: Device,
    action: str,
    argument: Any,
    target: ZValue,
    sent: Any,
    summary: str,
    *,
    watch: ZValue | None = None,
    details: dict[str, Any] | None = None,
) -> ControlPlan:
    """The plan of most actions: one value written, confirmed when `watch` (the device's report of it;
    the written value itself when it has none) shows what was sent."""
    return ControlPlan(
        device,
        action,
        argument,
        [Write(target, sent)],
        [Expectation(watch or target, sent)],
        summary,
        details=details or {},
    )


def first(args: dict[str, Any], *names: str) -> Any:
    """The first of these arguments that was given (not None, not empty)."""
    return next((args[name] for name in names if args.get(name) not in (None, "")), None)


def level_plan(
    device: Device, action: str, raw: Any, target_role: str, current_role: str, what: str, unit: str
) -> ControlPlan:
    """A 0-100 % request (absolute or relative) written as the device's own level, confirmed by its report."""
    target, current = device.values[target_role], device.values.get(current_role)
    wanted = said_percent(device, what, raw, current)
    level = to_level(wanted, target)
    return one_write(
        device, action, wanted, target, level, f"set {device.name} to {wanted} {unit}", watch=current
    )


def stop_plan(device: Device, action: str, up: str, down: str) -> ControlPlan:
    """Stop a level change: false written to its start/stop value (roles `up`, `down`); the device reports
    no "stopped", so nothing is waited for."""
    value = device.values.get(up) or device.values[down]
    return ControlPlan(device, action, None, [Write(value, False)], [], f"stop {device.name}")


def on_level(target: ZValue) -> int:
    top = int(target.max) if target.max is not None else 99
    return 255 if target.command_class == CC.BASIC and top >= 255 else top


def off_level(target: ZValue) -> int:
    return int(target.min) if target.min is not None else 0


def state_value(value: ZValue, text: str, default: int) -> int:
    """The number of the value's state labelled `text` ("open", "secured"), else `default`."""
    numbers = (s.value for s in value.states if s.text.casefold() == text and isinstance(s.value, int))
    return next(numbers, default)


def state_write(device: Device, action: str, value: ZValue, chosen: ValueState, summary: str) -> ControlPlan:
    """Write the chosen state (a mode); the one it replaces is kept for "from … to …"."""
    details = {"previous": value.state_text()}
    return one_write(device, action, chosen.text, value, chosen.value, summary, details=details)


def state_chosen(value: ZValue, raw: Any, *, partial: bool = True) -> ValueState | None:
    """The state a person chose: by its number, or by a word (`state_named`)."""
    if isinstance(raw, str):
        return state_named(value, raw, partial=partial)
    if isinstance(raw, int) and not isinstance(raw, bool):
        return next((s for s in value.states if s.value == raw), None)
    return None


def state_named(value: ZValue, said: str, *, partial: bool = True) -> ValueState | None:
    """The state a word names: its label without case or spaces ("auto low"), else (with `partial`) the
    one label that holds the word ("circulate" → "Circulation" only when no other label holds it)."""
    key = re.sub(r"[\s_\-]+", "", said.casefold())
    if not key:
        return None
    exact = [s for s in value.states if re.sub(r"[\s_\-]+", "", s.text.casefold()) == key]
    if exact or not partial:
        return exact[0] if exact else None
    holding = [s for s in value.states if key in re.sub(r"[\s_\-]+", "", s.text.casefold())]
    return holding[0] if len(holding) == 1 else None


def said_percent(device: Device, what: str, raw: Any, current: ZValue | None) -> int:
    """0–100 % from "30", 30, "30%", or relative "+10" / "-20" (relative ones are clamped to 0–100)."""
    number, relative = parse_number(raw, what=f"{device.name} {what}")
    if relative:
        if current is None or not is_number(current.value):
            raise StateUnknown(
                f"{device.name} has not reported its {what}, so it cannot be changed by "
                f"{fmt(number, signed=True)} %; give a level from 0 to 100 instead."
            )
        now = to_percent(current.value, current)
        return max(0, min(100, round(now + number)))
    if not 0 <= number <= 100:
        raise InvalidValue(f"{device.name} {what} must be from 0 to 100 %; got {fmt(number)}.")
    return round(number)


def parse_number(raw: Any, *, what: str) -> tuple[float, bool]:
    """(the number, whether it is relative: "+10", "-2"), from a number or a person's text."""
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        if not is_number(raw):  # infinity, NaN, an integer beyond any float
            raise InvalidValue(f"{what} must be a number; got {echo(str(raw))}.")
        return float(raw), False
    if isinstance(raw, str) and len(raw) <= 32:
        if match := _RELATIVE.fullmatch(raw):
            sign = 1 if match.group(1) == "+" else -1
            return sign * float(match.group(2)), True
        if match := _ABSOLUTE.fullmatch(raw):
            return float(match.group(1)), False
    if raw is None or raw == "":
        raise InvalidValue(f"Say what to set {what} to: a number, or a change like +10 or -20.")
    raise InvalidValue(f"{what} must be a number, or a change like +10 or -20; got '{echo(str(raw))}'.")


def check_range(number: float, value: ZValue, what: str, unit: str) -> None:
    """Refuse a number outside the value's own range (zwave-js checks only types)."""
    low, high = value.min, value.max
    if (low is not None and number < low) or (high is not None and number > high):
        bounds = (
            f"from {fmt(low)} to {fmt(high)}"
            if low is not None and high is not None
            else (f"at least {fmt(low)}" if low is not None else f"at most {fmt(high)}")
        )
        raise InvalidValue(f"{what} must be {bounds}{unit_text(unit)}; got {fmt(number)}.")


def fmt(x: Any, signed: bool = False) -> str:
    if is_number(x):
        return f"{x:+g}" if signed else f"{x:g}"
    return str(x)
