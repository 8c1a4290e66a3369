"""The cover: blinds, shutters and their slats, garage doors and gates. Its discovery rows, where it is in
words, its actions (open, close, stop, set_position, set_tilt) and what a write to it amounts to.

A cover moves by a Multilevel Switch (0 closed … 99 open) or a Window Covering position, tilts its slats
by Window Covering or a second endpoint, or is a Barrier Operator (255 open, 0 closed, and states between:
"Opening", "Stopped"). A Barrier Operator, a gate known by model or a cover named like one ("garage door")
is an entry: opening it lets people in (`Device.is_entry`). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from zwave_mcp.devices import model as m
from zwave_mcp.devices.discovery import ConfigIs, Product, Schema, config_is, housekeeping, match, product
from zwave_mcp.devices.kinds.base import KindSpec, Words, told_or_did
from zwave_mcp.devices.kinds.switch import multilevel_row
from zwave_mcp.devices.levels import is_number, level_percent, to_percent, write_percent
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.readings import enum_words
from zwave_mcp.devices.writes import ControlPlan, first, level_plan, one_write, state_value, stop_plan
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.zwave import classes as zc
from zwave_mcp.zwave.classes import CC, BarrierProps, FibaroProps, SwitchProps, WindowCoveringProps

_COVER_COMPANIONS = (
    (m.COVER_CURRENT, match(CC.MULTILEVEL_SWITCH, SwitchProps.CURRENT)),
    # Open/Close on covers, Up/Down or On/Off where the device calls itself another switch type.
    (m.COVER_UP, match(CC.MULTILEVEL_SWITCH, SwitchProps.OPEN, SwitchProps.UP, SwitchProps.ON)),
    (m.COVER_DOWN, match(CC.MULTILEVEL_SWITCH, SwitchProps.CLOSE, SwitchProps.DOWN, SwitchProps.OFF)),
)
_WINDOW_COVERING_POSITION = match(
    CC.WINDOW_COVERING, WindowCoveringProps.TARGET, numbered=True, key_label_lacks="slat", writeable=True
)


def _motor(name: str, **row: Any) -> Schema:
    """A cover's position by its motor's Multilevel Switch, with its report and movements."""
    return multilevel_row(name, Capability.COVER, role=m.COVER_TARGET, companions=_COVER_COMPANIONS, **row)


def _cover(
    name: str, manufacturer: int, types: Iterable[int], ids: Iterable[int], *, entry: bool = False
) -> Schema:
    """A blind, shade, curtain or gate known by model that drives it with a Multilevel Switch although
    its device class is not a motor's."""
    return _motor(f"cover: {name}", products=(product(manufacturer, types, ids),), entry=entry)


def _slats(name: str, model: Product, mode: ConfigIs) -> Schema:
    """A shutter whose endpoint 2 tilts the slats of the blind on endpoint 1, when its operating mode
    parameter says it drives a venetian blind (Home Assistant's rows require the same value)."""
    return multilevel_row(
        f"cover: the slats of a {name}: endpoint 2 tilts the blind on endpoint 1",
        Capability.COVER,
        role=m.TILT_TARGET,
        companions=((m.TILT_CURRENT, match(CC.MULTILEVEL_SWITCH, SwitchProps.CURRENT)),),
        products=(model,),
        config=(mode,),
        endpoints=frozenset({2}),
        into_endpoint=1,
    )


_FGR222 = product(0x010F, {0x0301, 0x0302}, {0x1000, 0x1001})

# Among the models, after the fans known by model.
MODEL_SCHEMAS: tuple[Schema, ...] = (
    _cover("Fibaro FGR222 shutter", _FGR222.manufacturer, _FGR222.types, _FGR222.ids),
    _cover("Qubino flush shutter", 0x0159, {0x0003}, {0x0052, 0x0053}),
    _cover("Graber/Bali/Spring Fashion blind", 0x026E, {0x4353}, {0x5A31}),
    _cover("iBlinds v2 blind", 0x0287, {0x0003}, {0x000D}),
    _cover("ZVIDAR Z-CM-V01 roller shade", 0x045A, {0x0904}, {0x0507}),
    _cover("Nice IBT4ZWAVE gate", 0x0441, {0x2400}, {0x1000}, entry=True),
    _motor(
        "cover: Merten 507801 roller shutter (endpoint 2 does nothing of use)",
        products=(product(0x007A, {0x8003}, {0x0001}),),
        endpoints=frozenset({0, 1}),
    ),
    housekeeping(
        name="housekeeping: Merten 507801's endpoint 2",
        primary=match(CC.MULTILEVEL_SWITCH),
        products=(product(0x007A, {0x8003}, {0x0001}),),
        endpoints=frozenset({2}),
    ),
    _slats(
        "Shelly Qubino Wave Shutter in venetian blind mode (parameter 71 is 1)",
        product(0x0460, {0x0003}, {0x0082}),
        config_is(71, 1),
    ),
    _slats(
        "Fibaro FGR223 in venetian blind mode (parameter 151 is 2)",
        product(0x010F, {0x0303}, {0x1000, 0x1001}),
        config_is(151, 2),
    ),
    housekeeping(
        name="housekeeping: endpoint 2 of a Shelly Wave Shutter or Fibaro FGR223 in another mode (it has no "
        "practical function)",
        primary=match(CC.MULTILEVEL_SWITCH),
        products=(product(0x0460, {0x0003}, {0x0082}), product(0x010F, {0x0303}, {0x1000, 0x1001})),
        endpoints=frozenset({2}),
    ),
    Schema(
        name="cover: the slats of a Fibaro FGR222 in venetian blind mode (Fibaro's proprietary tilt value)",
        kind=Capability.COVER,
        role=m.TILT_TARGET,
        primary=match(
            CC.MANUFACTURER_PROPRIETARY, FibaroProps.FIBARO, key=(FibaroProps.VENETIAN_TILT,), writeable=True
        ),
        products=(_FGR222,),
    ),
    housekeeping(
        name="housekeeping: the FGR222's proprietary position (its Multilevel Switch is the position)",
        primary=match(CC.MANUFACTURER_PROPRIETARY, FibaroProps.FIBARO, key=(FibaroProps.VENETIAN_POSITION,)),
        products=(_FGR222,),
        multi=False,
    ),
)
# The generic rows, in the table after the thermostats.
SCHEMAS: tuple[Schema, ...] = (
    Schema(
        name="cover: Window Covering position",
        kind=Capability.COVER,
        role=m.COVER_TARGET,
        primary=_WINDOW_COVERING_POSITION,
        companions=(
            (m.COVER_CURRENT, match(CC.WINDOW_COVERING, WindowCoveringProps.CURRENT)),
            (m.COVER_UP, match(CC.WINDOW_COVERING, WindowCoveringProps.LEVEL_UP)),
            (m.COVER_DOWN, match(CC.WINDOW_COVERING, WindowCoveringProps.LEVEL_DOWN)),
        ),
    ),
    Schema(
        name="cover: Window Covering slats (tilt)",
        kind=Capability.COVER,
        role=m.TILT_TARGET,
        primary=match(
            CC.WINDOW_COVERING,
            WindowCoveringProps.TARGET,
            numbered=True,
            key_label_has="slat",
            writeable=True,
        ),
        companions=((m.TILT_CURRENT, match(CC.WINDOW_COVERING, WindowCoveringProps.CURRENT)),),
    ),
    _motor(
        "cover: Multilevel Switch of a motor device class",
        generic=frozenset({zc.GENERIC_MULTILEVEL_SWITCH}),
        specific=zc.MOTOR_SPECIFIC_CLASSES,
        absent=(_WINDOW_COVERING_POSITION,),
    ),
    _motor(
        "cover: Multilevel Switch that says Open/Close (a cover's switch type)",
        required=(match(CC.MULTILEVEL_SWITCH, SwitchProps.OPEN, SwitchProps.CLOSE),),
    ),
    Schema(
        name="cover: Barrier Operator (garage door, gate)",
        kind=Capability.COVER,
        role=m.COVER_TARGET,
        primary=match(CC.BARRIER_OPERATOR, BarrierProps.TARGET_STATE, writeable=True),
        companions=((m.COVER_CURRENT, match(CC.BARRIER_OPERATOR, BarrierProps.CURRENT_STATE)),),
        entry=True,
    ),
)
# After the dimmers.
RELAY_SCHEMAS: tuple[Schema, ...] = (
    housekeeping(
        name="housekeeping: the Binary Switch of a cover (its motor relay: the cover moves by its position)",
        primary=match(CC.BINARY_SWITCH),
        needs_kind=Capability.COVER,
    ),
)
_NOUNS = {
    m.COVER_TARGET: "target position", m.COVER_CURRENT: "position", m.TILT_TARGET: "target tilt",
    m.TILT_CURRENT: "tilt",
}  # fmt: skip
_STATES = ("currentState", "targetState")  # a Barrier Operator's: Closed, Opening, Stopped, Open…


def _where(percent: int) -> str:
    return "closed" if percent == 0 else ("open" if percent == 100 else f"{percent} % open")


def _position(target: ZValue, current: ZValue | None) -> str:
    watch = current or target
    if watch.value is None:
        return "position unknown"
    if watch.property in _STATES:
        return enum_words(watch.state_text() or f"state {watch.value}")
    level = level_percent(watch)
    return "position unknown" if level is None else _where(level)


def slat_words(device: Device) -> str | None:
    """Where a blind's slats are: "open", "closed (up)", "tilted to 40 %"; None when not reported."""
    watch = device.values.get(m.TILT_CURRENT) or device.values.get(m.TILT_TARGET)
    if watch is None or not is_number(watch.value):
        return None
    text = watch.state_text()
    if text:
        return enum_words(text)
    return f"tilted to {to_percent(watch.value, watch)} %"


def cover_open(device: Device) -> bool | None:
    """Is the cover (blind, garage door) open at all? None when not reported."""
    watch = device.values.get(m.COVER_CURRENT) or device.values.get(m.COVER_TARGET)
    if watch is None or not is_number(watch.value):
        return None
    if watch.property in _STATES:
        return watch.value != 0  # 0 closed; opening, stopped part-way and open all let people in
    return watch.value > (watch.min or 0)


def _summary(device: Device, spoken: bool) -> str | None:
    v = device.values
    if not device.has(Capability.COVER):
        return None
    if m.COVER_TARGET in v:
        position = _position(v[m.COVER_TARGET], v.get(m.COVER_CURRENT))
        tilt = level_percent(v.get(m.TILT_CURRENT) or v.get(m.TILT_TARGET)) if spoken else None
        if tilt is None or position == "position unknown":
            return position
        return f"{position}, slats tilted {tilt} %"  # the full answer says them, a list does not
    if m.TILT_TARGET in v:  # slats only (a Window Covering tilt)
        slats = slat_words(device)
        return "slats not reported yet" if slats is None else f"slats {slats}"
    return None


def _opening(device: Device, summary: str) -> str | None:
    if not device.has(Capability.COVER):
        return None
    if summary == "position unknown":
        return "has not reported its position yet"
    if summary.startswith("slats "):  # a blind that only tilts its slats
        slats = slat_words(device)
        return "has not reported its slats yet" if slats is None else f"has its slats {slats}"
    return None


def _change_phrase(device: Device | None, value: ZValue, role: str | None, new: Any) -> str | None:
    told = role is not None and role.endswith(".target")
    if role in (m.COVER_CURRENT, m.COVER_TARGET):
        if value.property in _STATES or not is_number(new):
            return f"is {enum_words(value.state_text(new) or f'state {new}')}"
        percent = to_percent(new, value)
        where = _where(percent)
        return told_or_did(told, f"be {where}", "closed" if percent == 0 else f"is now {where}")
    if role in (m.TILT_CURRENT, m.TILT_TARGET) and is_number(new):
        percent = to_percent(new, value)
        return told_or_did(told, f"tilt its slats to {percent} %", f"tilted its slats to {percent} %")
    return None


def _effect_words(device: Device, value: ZValue, role: str | None, target: Any) -> Words | None:
    """Judged by effect: a position above 0 is "open", as is starting to move up."""
    if role == m.TILT_TARGET:
        return frozenset({"set_tilt"}), write_percent(target, value) if is_number(target) else target
    cc, prop = value.command_class, value.property
    if cc == CC.BARRIER_OPERATOR:
        if prop == "targetState":
            return frozenset({"close" if target == 0 else "open"}), target
        return frozenset({"set_value"}), target
    levels = (CC.MULTILEVEL_SWITCH, CC.BASIC)  # Basic Set is "open to this level" on a cover
    if cc != CC.WINDOW_COVERING and not (cc in levels and device.has(Capability.COVER)):
        return None
    if prop in ("Up", "Open") or (isinstance(prop, str) and prop.startswith("levelChangeUp")):
        return frozenset({"stop" if target is False else "open"}), None
    if prop in ("Down", "Close") or (isinstance(prop, str) and prop.startswith("levelChangeDown")):
        return frozenset({"stop" if target is False else "close"}), None
    if prop == "restorePrevious":
        return frozenset({"open"}), None
    if is_number(target):
        return frozenset({"open" if target > 0 else "close", "set_position"}), write_percent(target, value)
    return frozenset({"set_position"}), target


def _spoken_value(device: Device, value: ZValue, role: str | None, raw: Any) -> str | None:
    cc = value.command_class
    if role in (m.TILT_TARGET, m.TILT_CURRENT) and is_number(raw):
        return f"tilted to {to_percent(raw, value)} %"
    if cc == CC.BARRIER_OPERATOR:
        return (value.state_text(raw) or str(raw)).lower()
    moves = cc == CC.WINDOW_COVERING or (cc == CC.MULTILEVEL_SWITCH and device.has(Capability.COVER))
    # the one mapping both ways: 50 % set reads back as 50 %
    return _where(to_percent(raw, value)) if moves and is_number(raw) else None


def _positional(target: ZValue) -> bool:
    return target.property == "targetValue" and target.type == "number"


def _actions(device: Device) -> set[str]:
    v = device.values
    can = {"set_tilt"} if m.TILT_TARGET in v else set()
    if m.COVER_TARGET in v:
        can |= {"open", "close"}
        if m.COVER_UP in v or m.COVER_DOWN in v:
            can.add("stop")
        if _positional(v[m.COVER_TARGET]):
            can.add("set_position")
    return can


def _open_close(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    target = device.values[m.COVER_TARGET]
    top = int(target.max or 99) if _positional(target) else 255  # Barrier Operator: 255 open, 0 closed
    level = state_value(target, "open", top) if action == "open" else state_value(target, "closed", 0)
    watch = device.values.get(m.COVER_CURRENT) or target
    return one_write(device, action, None, target, level, f"{action} {device.name}", watch=watch)


def _set_position(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    raw = first(args, "position", "level", "value")
    return level_plan(device, action, raw, m.COVER_TARGET, m.COVER_CURRENT, "position", "% open")


def _set_tilt(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    raw = first(args, "position", "level", "value")
    plan = level_plan(device, action, raw, m.TILT_TARGET, m.TILT_CURRENT, "tilt", "% tilt")
    return replace(plan, summary=f"tilt the slats of {device.name} to {plan.argument} %")


KIND = KindSpec(
    name="cover",
    actions=_actions,
    planners={
        "open": _open_close,
        "close": _open_close,
        "stop": lambda device, action, args: stop_plan(device, action, m.COVER_UP, m.COVER_DOWN),
        "set_position": _set_position,
        "set_tilt": _set_tilt,
    },
    summary=_summary,
    change_phrase=_change_phrase,
    nouns=_NOUNS,
    moves={m.COVER_UP: "opening", m.COVER_DOWN: "closing"},
    effect_words=_effect_words,
    spoken_value=_spoken_value,
    opening=_opening,
)
