"""zwave-js's argument validation (`@zwave-js/core` `util/validation.js`, 15.29), as far as the simulated APIs
need it: the checks its CC API methods run before anything is sent, and the message they throw,

    Argument validation failed:
    parameter slot is not assignable to ScheduleEntryLockSlotId
      required property userId is missing (ZW0322)

one line per failing parameter, one indented line per failing property (the real test bed answered these
words for `setSchedule` and `setEnabledSchedule`).

A property is checked as a number ("number"), a member of an enum (`Enum("ScheduleEntryLockWeekday")`: any
number, as zwave-js checks an enum without a list of members) or an array of such members (`ArrayOf(...)`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

ARGUMENT_INVALID = "ZW0322"
_MISSING: Any = object()


@dataclass(frozen=True)
class Enum:
    name: str


@dataclass(frozen=True)
class ArrayOf:
    item: Enum


Check = Literal["number"] | Enum | ArrayOf


class ArgumentInvalid(RuntimeError):
    pass


def js_value(value: Any) -> str:
    """zwave-js's `formatActualValue`: how the message names what it got."""
    if value is _MISSING:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    if isinstance(value, str):
        return f'string "{value}"'
    if isinstance(value, list):
        return f"array [ ...{len(value)} item{'' if len(value) == 1 else 's'} ]"
    return "object"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _property(name: str, check: Check, value: Any, indent: str) -> str | None:
    if value is _MISSING:
        return f"{indent}required property {name} is missing"
    if isinstance(check, str | Enum):  # "number", or an enum's member (any number)
        if _is_number(value):
            return None
        what = "a number" if isinstance(check, str) else f"a member of enum {check.name}"
        return f"{indent}Expected property {name} to be {what}, got {js_value(value)}"
    if not isinstance(value, list):
        return f"{indent}Expected property {name} to be an Array<{check.item.name}>, got {js_value(value)}"
    items = [
        f"{indent}  Expected item {name}[{i}] to be a member of enum {check.item.name}, got {js_value(item)}"
        for i, item in enumerate(value)
        if not _is_number(item)
    ]
    return (
        "\n".join([f"{indent}property {name} is not assignable to Array<{check.item.name}>", *items])
        if items
        else None
    )


def object_problem(
    name: str, type_name: str, value: Any, properties: Mapping[str, Check], *, optional: bool = False
) -> str | None:
    """What is wrong with an object parameter (None: nothing; an optional one may be left out)."""
    what = f"{'optional ' if optional else ''}parameter {name}"
    if value is _MISSING and optional:
        return None
    if not isinstance(value, dict):
        return f"Expected {what} to be of type {type_name}, got {js_value(value)}"
    lines = [
        line
        for prop, check in properties.items()
        if (line := _property(prop, check, value.get(prop, _MISSING), "  "))
    ]
    return "\n".join([f"{what} is not assignable to {type_name}", *lines]) if lines else None


def primitive_problem(name: str, expected: str, value: Any, *, optional: bool = False) -> str | None:
    """What is wrong with a boolean or number parameter."""
    if value is _MISSING and optional:
        return None
    ok = isinstance(value, bool) if expected == "boolean" else _is_number(value)
    what = f"{'optional ' if optional else ''}parameter {name}"
    return None if ok else f"Expected {what} to be a {expected}, got {js_value(value)}"


def check(*problems: str | None) -> None:
    """zwave-js's `assert`: raise with every problem found, or return."""
    found = [p for p in problems if p]
    if found:
        raise ArgumentInvalid("Argument validation failed:\n" + "\n".join(found) + f" ({ARGUMENT_INVALID})")


def missing() -> Any:
    """The value of a JavaScript argument that was not given (`undefined`)."""
    return _MISSING
