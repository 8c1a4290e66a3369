"""The thermostat: its discovery rows and template, its setpoints and modes in words, its actions
(set_temperature, set_mode, set_fan_mode) and how each is planned, and what a write to it amounts to.

As zwave-js and Home Assistant do: a mode value outside the device's own list of states is named by
zwave-js's `ThermostatMode` (31 is "Manufacturer specific"), and a thermostat without a mode (a radiator
valve) heats: its heating setpoint is the one it works to. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zwave_mcp.answers import and_list
from zwave_mcp.devices import model as m
from zwave_mcp.devices.discovery import Found, Schema, ValueMatch, housekeeping, match, product
from zwave_mcp.devices.errors import InvalidValue, StateUnknown
from zwave_mcp.devices.kinds.base import KindSpec, Words
from zwave_mcp.devices.levels import as_int, is_number, level_percent, to_percent
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.devices.readings import Reading, enum_words, number, sentence_phrases, unit_text
from zwave_mcp.devices.resolve import echo
from zwave_mcp.devices.writes import (
    ControlPlan,
    check_range,
    first,
    fmt,
    one_write,
    parse_number,
    state_chosen,
    state_named,
    state_write,
)
from zwave_mcp.gateway.model import ValueState, ZNode, ZValue
from zwave_mcp.zwave import classes as zc
from zwave_mcp.zwave.classes import CC, MultilevelSensorProps, SwitchProps, ThermostatProps

SETPOINT_PREFIX = "setpoint."  # a setpoint's role: + its setpoint type number, "setpoint.1" (Heating)


@dataclass(frozen=True, slots=True)
class ThermostatData:
    """What a model's discovery row knows of its thermostat (Home Assistant's climate data templates).

    `sensor_parameter`: the configuration parameter that says which sensor the thermostat regulates by
    (Heatit's "Sensor Mode"); `sensor_endpoints`: (that parameter's value, the endpoint whose air
    temperature is then the thermostat's own). Its temperature follows the parameter as it changes; while
    the parameter is not reported the thermostat says no temperature of its own, only its sensors'."""

    sensor_parameter: int | None = None
    sensor_endpoints: tuple[tuple[int, int], ...] = ()


_AIR_TEMPERATURE = match(CC.MULTILEVEL_SENSOR, MultilevelSensorProps.AIR_TEMPERATURE)


# ---- discovery --------------------------------------------------------------------------------------


def _row(name: str, role: str, primary: ValueMatch, **row: Any) -> Schema:
    """A row of a thermostat's value."""
    return Schema(name=name, kind=Capability.THERMOSTAT, role=role, primary=primary, **row)


def _reported(name: str, role: str, primary: ValueMatch, **row: Any) -> Schema:
    """A row of what a thermostat reports, on whichever endpoint of its node reports it."""
    return _row(name, role, primary, needs_kind=Capability.THERMOSTAT, kind_on_node=True, **row)


# Among the models, after the sirens known by model.
MODEL_SCHEMAS: tuple[Schema, ...] = (
    _row(
        "thermostat: Heatit Z-TRM6 (its temperature is the sensor its Sensor Mode, parameter 2, names)",
        m.THERMOSTAT_MODE,
        match(CC.THERMOSTAT_MODE, ThermostatProps.MODE, writeable=True),
        products=(product(0x019B, {0x0030}, {0x3001}),),
        # Floor: the floor sensor (endpoint 4); Internal (with floor limit) and Power regulator: the
        # internal one (2); External (with floor limit): the external one (3)
        template=ThermostatData(
            sensor_parameter=2, sensor_endpoints=((0, 4), (1, 2), (2, 2), (3, 3), (4, 3), (5, 2))
        ),
    ),
    _row(
        "thermostat: Intermatic PE653 pool control (its spa setpoint, Furnace, is published on the root "
        "though it is the pool heater's of endpoint 1, beside the pool's Heating one: zwave-js issue #5335, "
        "Home Assistant issue #99696); the heater is what the node's name means",
        SETPOINT_PREFIX + "{key}",
        match(CC.THERMOSTAT_SETPOINT, ThermostatProps.SETPOINT, numbered=True, type="number", writeable=True),
        products=(product(0x0005, {0x5045}, {0x0653}),),
        endpoints=frozenset({0, 1}),
        into_endpoint=1,
        main_part=True,
        multi=True,
    ),
)
# The generic rows, in the table after the locks.
SCHEMAS: tuple[Schema, ...] = (
    _row(
        "thermostat: mode",
        m.THERMOSTAT_MODE,
        match(CC.THERMOSTAT_MODE, ThermostatProps.MODE, writeable=True),
    ),
    _row(
        "thermostat: setpoints",
        SETPOINT_PREFIX + "{key}",
        match(CC.THERMOSTAT_SETPOINT, ThermostatProps.SETPOINT, numbered=True, type="number", writeable=True),
        multi=True,
    ),
    _row(
        "thermostat: a setpoint published without its type (no property key; `settle` reads the type "
        "from its metadata where it says one)",
        SETPOINT_PREFIX + "0",
        match(CC.THERMOSTAT_SETPOINT, ThermostatProps.SETPOINT, key=(None,), type="number", writeable=True),
    ),
    _reported(
        "thermostat: a mode it reports but cannot be set",
        m.THERMOSTAT_MODE,
        match(CC.THERMOSTAT_MODE, ThermostatProps.MODE),
    ),
    _reported(
        "thermostat: operating state (on whichever endpoint reports it)",
        m.THERMOSTAT_OPERATING,
        match(CC.THERMOSTAT_OPERATING_STATE, ThermostatProps.STATE),
    ),
    _row(
        "thermostat: fan mode",
        m.THERMOSTAT_FAN_MODE,
        match(CC.THERMOSTAT_FAN_MODE, ThermostatProps.MODE, writeable=True, has_states=True),
        companions=((m.THERMOSTAT_FAN_OFF, match(CC.THERMOSTAT_FAN_MODE, ThermostatProps.FAN_OFF)),),
    ),
    _reported(
        "thermostat: fan state", m.THERMOSTAT_FAN_STATE, match(CC.THERMOSTAT_FAN_STATE, ThermostatProps.STATE)
    ),
)

# Its valve, in the table after the sirens (before the dimmers, which would take a Multilevel Switch).
VALVE_SCHEMAS: tuple[Schema, ...] = (
    _reported(
        "thermostat: its valve's opening (a radiator thermostat's Multilevel Switch, in %)",
        m.THERMOSTAT_VALVE,
        match(CC.MULTILEVEL_SWITCH, SwitchProps.CURRENT, type="number"),
        generic=frozenset({zc.GENERIC_THERMOSTAT}),
    ),
    housekeeping(
        name="housekeeping: the rest of a thermostat's valve (set through its setpoint, not by hand)",
        primary=match(CC.MULTILEVEL_SWITCH),
        generic=frozenset({zc.GENERIC_THERMOSTAT}),
    ),
)


def setpoints(device: Device) -> dict[int, ZValue]:
    """The thermostat's setpoints by setpoint type (1 Heating, 2 Cooling, …)."""
    return {
        int(role[len(SETPOINT_PREFIX) :]): v
        for role, v in device.values.items()
        if role.startswith(SETPOINT_PREFIX)
    }


def _gather(detected: dict[int, Found]) -> None:
    """A thermostat spread over endpoints (mode on one, setpoints on another, operating state on a
    third) gathered on the endpoint with the setpoints; left alone when several endpoints have setpoints
    (a thermostat per zone). A role two endpoints fill is the first's; the other value stays unused."""
    parts = [ep for ep, found in detected.items() if Capability.THERMOSTAT in found.capabilities]
    if len(parts) < 2:
        return
    cores = [ep for ep in parts if any(r.startswith(SETPOINT_PREFIX) for r in detected[ep].values)]
    if len(cores) > 1:
        return
    core = detected[cores[0] if cores else parts[0]]
    for ep in parts:
        found = detected[ep]
        if found is core:
            continue
        core.unclaimed.extend(v for role, v in found.values.items() if role in core.values)
        core.merge(found)
        detected[ep] = Found()


def _adopt(owner: Found, parts: list[Found]) -> None:
    """The meters of the parts a thermostat switches are the thermostat's: they measure the heating it
    drives (each value stays on one device, so a room's energy is not counted twice)."""
    if Capability.THERMOSTAT not in owner.capabilities:
        return
    for found in parts:
        for value in found.readings.pop(Capability.METER, []):
            owner.capabilities.add(Capability.METER)
            owner.readings.setdefault(Capability.METER, []).append(value)
            owner.purposes.setdefault(value.value_id, found.purposes.pop(value.value_id, "meter"))
        found.capabilities.discard(Capability.METER)


def _settle(found: Found) -> None:
    """A setpoint published without its type ("setpoint.0", no property key) under the type its metadata
    says (`ccSpecific.setpointType`), when it says one the thermostat does not have already; and the
    thermostat's own temperature, its Multilevel Sensor's air temperature on whichever endpoint reports
    it (unless its model's row says which: `ThermostatData`)."""
    value = found.values.get(SETPOINT_PREFIX + "0")
    said = (value.meta.cc_specific or {}).get("setpointType") if value is not None else None
    typed = SETPOINT_PREFIX + str(said)
    if value is not None and (as_int(said) or 0) > 0 and typed not in found.values:
        del found.values[SETPOINT_PREFIX + "0"]
        found.values[typed] = value
        found.purposes[value.value_id] = typed
    if Capability.THERMOSTAT not in found.capabilities or m.THERMOSTAT_TEMPERATURE in found.values:
        return
    data = m.template_of(found.templates, ThermostatData)
    if data is not None and data.sensor_parameter is not None:
        return  # `room_temperature` reads the parameter each time: it may change
    for values in (*found.readings.values(), list(found.values.values())):
        room = next((v for v in values if _AIR_TEMPERATURE.fits(v)), None)
        if room is not None:
            found.values[m.THERMOSTAT_TEMPERATURE] = room
            return


def _parameter(node: ZNode, parameter: int) -> Any:
    """A configuration parameter's value on the node's root, as reported (None: not reported)."""
    root = (v for v in node.values.values() if v.endpoint == 0 and v.property_key is None)
    return next(
        (v.value for v in root if v.command_class == CC.CONFIGURATION and v.property == parameter), None
    )


def room_temperature(device: Device) -> ZValue | None:
    """The temperature the thermostat works by: the one its model's sensor parameter names now, else its
    own air temperature; None when it has none (or its sensor parameter is not reported)."""
    data = device.template(ThermostatData)
    if data is None or data.sensor_parameter is None:
        return device.values.get(m.THERMOSTAT_TEMPERATURE)
    mode = as_int(_parameter(device.node, data.sensor_parameter))
    endpoint = dict(data.sensor_endpoints).get(mode) if mode is not None else None
    return next((v for v in device.all_values() if v.endpoint == endpoint and _AIR_TEMPERATURE.fits(v)), None)


# ---- modes and setpoints in words -------------------------------------------------------------------

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
# What people call setpoints, → zwave-js setpoint type.
SETPOINT_WORDS: dict[str, int] = {"heat": 1, "heating": 1, "cool": 2, "cooling": 2, "eco": 11, "away": 13}
# zwave-js ThermostatMode → how its state reads ("is heating to 21 °C").
_MODE_VERBS = {1: "heating to", 2: "cooling to", 11: "heating to", 12: "cooling to"}
# zwave-js Thermostat Operating State texts → what the thermostat is doing, as a sentence says it.
_OPERATING_WORDS = {
    "idle": "idle",
    "heating": "heating",
    "cooling": "cooling",
    "fan only": "running only its fan",
    "pending heat": "about to heat",
    "pending cool": "about to cool",
    "vent/economizer": "ventilating",
    "aux heating": "heating with auxiliary heat",
    "2nd stage heating": "heating (second stage)",
    "2nd stage cooling": "cooling (second stage)",
    "2nd stage aux heat": "heating with auxiliary heat (second stage)",
    "3rd stage aux heat": "heating with auxiliary heat (third stage)",
}
# Its values' names when a change of them is said.
_NOUNS = {
    m.THERMOSTAT_MODE: "mode",
    m.THERMOSTAT_OPERATING: "operating state",
    m.THERMOSTAT_TEMPERATURE: "temperature",
    m.THERMOSTAT_FAN_MODE: "fan mode",
    m.THERMOSTAT_FAN_STATE: "fan state",
    m.THERMOSTAT_FAN_OFF: "fan off setting",
    m.THERMOSTAT_VALVE: "valve opening",
}
_FAN_SAID = "the fan "  # how a fan mode is said: "the fan on low"


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


def _doing(value: ZValue, raw: Any = None) -> str | None:
    """An operating state in words ("running only its fan"), the device's label first, else zwave-js's."""
    text = _named(value, raw, OPERATING_NAMES)
    return None if text is None else _OPERATING_WORDS.get(text.casefold(), enum_words(text))


def working_setpoints(device: Device) -> list[ZValue]:
    """The setpoints the thermostat works to now: its mode's (both in Auto), or with no mode at all the
    heating one (a radiator valve heats), or its only one; [] when that cannot be told."""
    found = setpoints(device)
    mode = device.values.get(m.THERMOSTAT_MODE)
    if mode is None:
        if HEATING in found:
            return [found[HEATING]]
        return list(found.values()) if len(found) == 1 else []
    value = as_int(mode.value)
    if value is None or value == 0:
        return []
    if value in BOTH_SETPOINTS:
        return [found[k] for k in (1, 2) if k in found]
    own = found.get(MODE_SETPOINT.get(value, -1))
    if own is not None:
        return [own]
    return list(found.values()) if len(found) == 1 and value in MODE_SETPOINT else []


def setpoint_name(value: ZValue) -> str:
    """ "heating", "energy save heating"; "" for a setpoint that does not say its type."""
    return (value.property_key_name or "").lower()


def _temperature(value: ZValue) -> str | None:
    """ "20 °C"; None when not reported."""
    return f"{number(value.value)}{unit_text(value.unit)}" if is_number(value.value) else None


def _setpoint_phrases(device: Device, leave_out: list[ZValue]) -> list[str]:
    """Every reported setpoint but those already said: "heating set to 20 °C", "set to 20 °C" (setpoints
    of a type zwave-js cannot name, "Unknown (0x03)", stay in the structured answers only)."""
    said = {v.value_id for v in leave_out}
    out = []
    for _, value in sorted(setpoints(device).items()):
        shown = _temperature(value)
        if value.value_id in said or shown is None:
            continue
        name = setpoint_name(value)
        if name.startswith("unknown"):  # zwave-js's "Unknown (0x03)": a type nobody names, left unsaid
            continue
        out.append(f"{name} set to {shown}" if name else f"set to {shown}")
    return out


def _parts(device: Device) -> tuple[str, list[str], str | None]:
    """("heating to 20 °C", [], "20.8 °C"), ("off", ["heating set to 20 °C"], None): what it is set to
    and doing, the setpoints said besides (in every mode, and before the mode is reported), and the room
    temperature it reports."""
    room = room_temperature(device)
    now = _temperature(room) if room is not None else None
    mode, verb, besides = _mode(device)
    operating = device.values.get(m.THERMOSTAT_OPERATING)
    doing = _doing(operating) if operating is not None else None
    if doing is None or doing == verb or (doing == "idle" and mode == "off"):
        return mode, besides, now
    if verb:  # "heating to 20 °C" while idle: say what it is set to, then what it does
        mode = f"set to {verb[:-3]} to" + mode[len(verb) + 3 :]
    return f"{mode} and {doing}", besides, now


def _mode(device: Device) -> tuple[str, str | None, list[str]]:
    """("heating to 20 °C", "heating", []): the mode in words, the doing it promises (None: no promise),
    and the other setpoints to say with it ("heating set to 20 °C" while off)."""
    mode = device.values.get(m.THERMOSTAT_MODE)
    working = working_setpoints(device)
    target = _temperature(working[0]) if working else None
    if mode is None:  # a radiator valve: no mode, it heats to its heating setpoint (as Home Assistant)
        if target is not None:
            return f"set to {target}", None, _setpoint_phrases(device, working)
        besides = _setpoint_phrases(device, [])
        return ("not reporting its setpoint yet", None, []) if not besides else (and_list(besides), None, [])
    if mode.value is None:
        return "not reporting its mode yet", None, _setpoint_phrases(device, [])
    if mode.value == 0:
        return "off", None, _setpoint_phrases(device, [])
    name = mode_name(mode)
    in_mode = f"in {enum_words(name)} mode" if name else f"in mode {number(mode.value)}"
    if mode.value in BOTH_SETPOINTS and len(working) == 2:
        low, high = _temperature(working[0]), _temperature(working[1])
        if low is not None and high is not None:  # Auto: heating below one, cooling above the other
            return f"{in_mode}, between {low} and {high}", None, []
    verb = _MODE_VERBS.get(mode.value) if isinstance(mode.value, int) else None
    if verb and target:
        return f"{verb} {target}", verb[:-3], []
    if target:
        return f"{in_mode} at {target}", None, []
    return in_mode, None, _setpoint_phrases(device, [])


def _summary(device: Device, spoken: bool) -> str | None:
    if not device.has(Capability.THERMOSTAT):
        return None
    mode, besides, temperature = _parts(device)
    text = f"{mode}, {temperature} now" if temperature else mode
    return f"{text}; {', '.join(besides)}" if besides else text  # "off, 21 °C now; heating set to 20 °C"


def _sentence(device: Device, found: list[Reading]) -> str | None:
    """ "Hallway Thermostat is heating to 20 °C; it is 20.8 °C now, with humidity 30 % and battery 90 %." """
    if not device.has(Capability.THERMOSTAT):
        return None
    mode, besides, temperature = _parts(device)
    room = room_temperature(device)
    power, others = sentence_phrases([r for r in found if room is None or r.value_id != room.value_id])
    text = f"{device.name} is {mode}"
    extras = [*besides, *(w for w in (_valve_words(device), _fan_words(device)) if w is not None)]
    if extras:  # "is off, with heating set to 20 °C and the fan on auto low"
        text += f", with {and_list(extras)}"
    if power:
        text += f", {', '.join(power)}"
    if temperature:
        text += f"; it is {temperature} now" + (f", with {and_list(others)}" if others else "")
    elif others:
        text += f"; it reports {and_list(others)}"
    return text + "."


def _valve_words(device: Device) -> str | None:
    """A radiator thermostat's valve: "the valve 40 % open", "the valve closed"; None when it has no
    valve it reports or has not said."""
    level = level_percent(device.values.get(m.THERMOSTAT_VALVE))
    if level is None:
        return None
    return (
        "the valve closed"
        if level == 0
        else ("the valve fully open" if level == 100 else f"the valve {level} % open")
    )


def _fan_words(device: Device) -> str | None:
    """A thermostat's fan: "the fan on auto low (not running)", "the fan on low (running high)", "the fan
    off"; None when it has no fan or has not said."""
    if (off := device.values.get(m.THERMOSTAT_FAN_OFF)) is not None and off.value is True:
        return "the fan off"
    mode = device.values.get(m.THERMOSTAT_FAN_MODE)
    mode_text = mode.state_text() if mode is not None else None
    state = device.values.get(m.THERMOSTAT_FAN_STATE)
    state_text = (state.state_text() or "").casefold() if state is not None else ""
    if state_text.startswith("idle"):  # "Idle / off"
        doing = "not running"
    elif state_text:  # "Running / running low", "Running high", "Quiet circulation mode"
        last = state_text.split(" / ")[-1]
        doing = "circulating" if "circulation" in last else enum_words(last)
    else:
        doing = None
    if mode_text is None:
        return None if doing is None else f"the fan {doing}"
    return f"the fan on {enum_words(mode_text)}" + (f" ({doing})" if doing else "")


def _change_phrase(device: Device | None, value: ZValue, role: str | None, new: Any) -> str | None:
    if role == m.THERMOSTAT_FAN_MODE:
        return f"switched its fan to {enum_words(value.state_text(new) or str(new))}"
    if role == m.THERMOSTAT_FAN_STATE:
        return f"reported its fan {enum_words(value.state_text(new) or str(new))}"
    if role == m.THERMOSTAT_FAN_OFF and isinstance(new, bool):
        return "turned its fan off" if new else "let its fan run again"
    if role == m.THERMOSTAT_MODE:
        if new == 0:
            return "was switched off"
        named = mode_name(value, new)  # a mode outside its list by zwave-js's name, never "mode 31 mode"
        return f"switched to {enum_words(named)} mode" if named else f"switched to mode {number(new)}"
    if role == m.THERMOSTAT_OPERATING:
        return f"is now {_doing(value, new) or enum_words(f'operating state {new}')}"
    if role == m.THERMOSTAT_VALVE and is_number(new):
        percent = to_percent(new, value)
        return "closed its valve" if percent == 0 else f"opened its valve to {percent} %"
    if role is not None and role.startswith(SETPOINT_PREFIX):
        name = setpoint_name(value)
        return f"{name + ' ' if name else ''}setpoint set to {number(new)}{unit_text(value.unit)}"
    return None


def _noun(role: str | None, value: ZValue) -> str | None:
    if role is not None and role.startswith(SETPOINT_PREFIX):
        return f"{setpoint_name(value)} setpoint".strip()
    return None


def _effect_words(device: Device, value: ZValue, role: str | None, target: Any) -> Words | None:
    if role == m.THERMOSTAT_FAN_MODE:
        return frozenset({"set_fan_mode"}), value.state_text(target) or target
    if value.command_class == CC.THERMOSTAT_SETPOINT:
        return frozenset({"set_temperature"}), target
    if value.command_class == CC.THERMOSTAT_MODE:
        text = value.state_text(target) if target is not None else None
        return frozenset({"set_mode"}), text or target
    return None


def _spoken_value(device: Device, value: ZValue, role: str | None, raw: Any) -> str | None:
    if isinstance(raw, bool):
        return None  # said as on or off
    if value.command_class == CC.THERMOSTAT_SETPOINT and is_number(raw):
        # A setpoint is what the thermostat aims for, not what it is: "is now set to 21.5 °C".
        name = setpoint_name(value)
        return f"set{' for ' + name if name else ''} to {raw:g}{' ' + value.unit if value.unit else ''}"
    if role == m.THERMOSTAT_FAN_MODE:
        return f"{_FAN_SAID}on {(value.state_text(raw) or str(raw)).lower()}"
    if value.command_class == CC.THERMOSTAT_MODE:
        return "off" if raw == 0 else f"in {(value.state_text(raw) or str(raw)).lower()} mode"
    return None


def _done_sentence(device: Device, written: list[ZValue], reported: str, summary: str) -> str | None:
    if reported.startswith(_FAN_SAID):  # "Done: the fan of Hallway Thermostat is now on low"
        return f"Done: the fan of {device.name} is now {reported[len(_FAN_SAID) :]}, as the device reported."
    return None


# ---- actions ----------------------------------------------------------------------------------------


def _actions(device: Device) -> set[str]:
    if not device.has(Capability.THERMOSTAT):
        return set()
    can = {"set_temperature"} if setpoints(device) else set()
    mode = device.values.get(m.THERMOSTAT_MODE)
    if mode is not None and mode.writeable and mode.states:
        can.add("set_mode")
    if m.THERMOSTAT_FAN_MODE in device.values:
        can.add("set_fan_mode")
    return can


def _set_temperature(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    raw = first(args, "value", "level")
    setpoint = _pick_setpoint(device, args.get("setpoint"))
    name = (setpoint.property_key_name or f"setpoint {setpoint.property_key}").lower()
    unit = setpoint.unit or ""
    wanted, relative = parse_number(raw, what=f"{device.name} {name} setpoint")
    if relative:
        if not is_number(setpoint.value):
            raise StateUnknown(
                f"The {name} setpoint of {device.name} has not been reported yet, so it cannot be changed by "
                f"{fmt(wanted, signed=True)}; give a temperature instead."
            )
        wanted = round(setpoint.value + wanted, 2)
    check_range(wanted, setpoint, f"{device.name} {name} setpoint", unit)
    target = int(wanted) if float(wanted).is_integer() else wanted
    summary = f"set {device.name} {name} to {fmt(target)}{unit_text(unit)}"
    details = {"setpoint_type": setpoint.property_key, "previous": setpoint.value}
    return one_write(device, action, target, setpoint, target, summary, details=details)


def _usable_setpoints(device: Device) -> dict[int, ZValue]:
    """The setpoints one of the thermostat's own modes works to (all of them when its modes are not
    listed): a heat-only thermostat that publishes a cooling setpoint too has only its heating one."""
    found = setpoints(device)
    mode = device.values.get(m.THERMOSTAT_MODE)
    modes = [k for s in mode.states if (k := as_int(s.value)) is not None] if mode is not None else []
    used: set[int] = set()
    for key in modes:
        used |= {1, 2} if key in BOTH_SETPOINTS else {MODE_SETPOINT.get(key, -1)}
    usable = {k: v for k, v in found.items() if k in used}
    return usable or found


def _pick_setpoint(device: Device, wanted: Any) -> ZValue:
    found = setpoints(device)
    usable = _usable_setpoints(device)
    names = ", ".join((v.property_key_name or str(k)).lower() for k, v in usable.items())
    if wanted is not None and wanted != "":
        key = as_int(wanted)
        if isinstance(wanted, str):
            said = wanted.strip().casefold()
            key = next((k for k, v in found.items() if (v.property_key_name or "").casefold() == said), None)
            key = key if key is not None else SETPOINT_WORDS.get(said)
            if key is None and said.isdigit():
                key = int(said)
        if key is None or key not in found:
            shown = echo(str(wanted))
            raise InvalidValue(f"{device.name} has no '{shown}' setpoint; it has: {names}.")
        return found[key]
    if len(usable) == 1:  # in off mode too: its one setpoint is the one meant
        return next(iter(usable.values()))
    working = working_setpoints(device)  # its mode's; with no mode at all its heating one (a valve heats)
    if len(working) == 1:
        return working[0]
    mode = device.values.get(m.THERMOSTAT_MODE)
    if mode is not None and mode.value is not None:
        named = mode_name(mode)
        why = f"is in {named} mode" if named else f"is in mode {mode.value}"
    else:
        why = "has not reported its mode"
    raise InvalidValue(f"{device.name} {why}, so say which setpoint to set: {names}.")


def _set_mode(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    raw = first(args, "mode", "value")
    mode = device.values[m.THERMOSTAT_MODE]
    fan = device.values.get(m.THERMOSTAT_FAN_MODE)
    its_fan = fan is not None and isinstance(raw, str) and state_named(fan, raw) is not None
    hint = f" '{echo(str(raw))}' is one of its fan modes: set it with set_fan_mode." if its_fan else ""
    chosen = _chosen(device, mode, raw, "mode", partial=False, hint=hint)
    return state_write(device, action, mode, chosen, f"set {device.name} to {chosen.text.lower()} mode")


def _set_fan_mode(device: Device, action: str, args: dict[str, Any]) -> ControlPlan:
    fan = device.values[m.THERMOSTAT_FAN_MODE]
    chosen = _chosen(device, fan, first(args, "mode", "value", "level"), "fan mode")
    return state_write(device, action, fan, chosen, f"set the fan of {device.name} to {chosen.text.lower()}")


def _chosen(
    device: Device, value: ZValue, raw: Any, what: str, *, partial: bool = True, hint: str = ""
) -> ValueState:
    """The state of `value` a person chose (a mode), else the error that names the ones it has."""
    chosen = state_chosen(value, raw, partial=partial)
    if chosen is not None:
        return chosen
    choices = ", ".join(s.text for s in value.states)
    if raw is None or raw == "":
        raise InvalidValue(f"Say which {what} to set {device.name} to: {choices}.")
    raise InvalidValue(f"{device.name} has no {what} '{echo(str(raw))}'; it has: {choices}.{hint}")


def _after_change_note(device: Device, action: str, confirmed: bool) -> str | None:
    mode = device.values.get(m.THERMOSTAT_MODE)
    if action != "set_temperature" or mode is None or as_int(mode.value) != 0:
        return None
    return f"{device.name} is in off mode, so it works to it once it is switched on."


KIND = KindSpec(
    name="thermostat",
    actions=_actions,
    planners={"set_temperature": _set_temperature, "set_mode": _set_mode, "set_fan_mode": _set_fan_mode},
    summary=_summary,
    sentence=_sentence,
    change_phrase=_change_phrase,
    nouns=_NOUNS,
    noun=_noun,
    effect_words=_effect_words,
    spoken_value=_spoken_value,
    gather=_gather,
    settle=_settle,
    done_sentence=_done_sentence,
    after_change_note=_after_change_note,
    group_targets=(" heating to ", " cooling to "),
    group_words={
        "set_temperature": ("Set", "set", "take a temperature"),
        "set_mode": ("Set", "set", "take a mode"),
    },
    adopt=_adopt,
)
