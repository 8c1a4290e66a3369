"""What a device says about the world: every reading with its quantity, unit and age, and how a sentence
says them (alarms first, then the environment, power and energy, production, battery).

The quantity of a reading comes from `quantities`, a binary sensor's type and words from `sensor_types`:
one table each, so the state answer, the sensor answer and the questions name a reading the same way. Pure.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, field_serializer
from pydantic.dataclasses import dataclass
from pydantic.json_schema import SkipJsonSchema

from zwave_mcp.answers import AnyJson, and_list, capital
from zwave_mcp.devices import model as m
from zwave_mcp.devices import quantities as q
from zwave_mcp.devices import sensor_types as st
from zwave_mcp.devices.alarm_pairs import AlarmPairs
from zwave_mcp.devices.boundary import guarded
from zwave_mcp.devices.levels import is_number
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.presses import is_press
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.safetext import plain_text
from zwave_mcp.zwave.classes import CC

LOW_BATTERY_PERCENT = 20
ALARMS, NOTICES = "alarm", "notice"  # reading groups before the quantities' own (see GROUP_ORDER)
GROUP_ORDER = (ALARMS, NOTICES, *q.GROUP_ORDER)
# A Binary Sensor of no type we know ("Any", "General purpose"), said as a sensor: "clear" alone says nothing.
_UNTYPED = ("sensor triggered", "sensor clear")
OPENINGS = ("door", "window")  # binary sensors whose state is open or closed
# What a door or window contact says: said as the state of the device it is.
OPENING_STATES = frozenset(f"{thing} {state}" for thing in OPENINGS for state in ("open", "closed", "tilted"))

# Notification states that are the way things should be: no news ("AC mains re-connected").
_REST_TEXTS = frozenset({"ac mains re-connected", "power has been applied", "battery is fully charged"})
# Notification states as people say them (zwave-js's texts otherwise, lower-cased).
_NOTIFICATION_WORDS = {
    **dict.fromkeys(("motion detection", "motion detection, location provided"), "motion detected"),
    **dict.fromkeys(("intrusion", "intrusion, location provided"), "intrusion detected"),
    "tampering, product cover removed": "its cover has been removed",
    "tampering, product moved": "it has been moved",
    "window/door is open": "open",
    "window/door is closed": "closed",
    "window/door is tilted": "tilted",  # "Door tilt state"
    "window/door handle is open": "handle open",
    "window/door handle is closed": "handle closed",
    "water leak detected": "water leak detected",
    "smoke detected": "smoke detected",
    "low battery level": "battery low",
    "replace battery soon": "battery needs replacing soon",
    "replace battery now": "battery needs replacing now",
    # A keypad lock's Access Control states.
    "lock jammed": "jammed",
    "keypad temporary disabled": "keypad disabled for a while after too many wrong codes",
    "keypad busy": "keypad busy",
    "tampering, invalid code": "wrong codes were tried",
    "system hardware failure": "a hardware failure",
    "system software failure": "a software failure",
}
# An alarm's own states (zwave-js's Smoke, CO, CO2 and Heat Alarm: "Alarm silenced", "Replacement required,
# End-of-life"), said with the alarm they belong to: "its carbon monoxide sensor needs replacing".
_ALARM_NAMES = {1: "smoke", 2: "carbon monoxide", 3: "carbon dioxide", 4: "heat", 5: "water"}
_ALARM_STATE_WORDS = {
    "smoke alarm test": "its {} alarm is being tested",
    "carbon monoxide test": "its {} alarm is being tested",
    "carbon dioxide test": "its {} alarm is being tested",
    "heat alarm test": "its {} alarm is being tested",
    "alarm silenced": "its {} alarm is silenced",
    "replacement required": "its {} sensor needs replacing",
    "replacement required, end-of-life": "its {} sensor has reached the end of its life",
    "maintenance required, planned periodic inspection": "its {} alarm is due for its periodic inspection",
    "maintenance required, dust in device": "its {} sensor needs cleaning of dust",
}


# What a sentence needs of a reading but the tools' answers do not show (nor their outputSchema).
Internal = SkipJsonSchema()


# One reading, for the sentences and for the tools' answers: its public fields, by their camelCase aliases,
# are the `Reading` of the outputSchema (a comment, not a docstring: that would become its description). A
# pydantic dataclass, so `dataclasses.replace` makes a changed copy (by field names).
@dataclass(frozen=True, kw_only=True, config=ConfigDict(validate_by_name=True, serialize_by_alias=True))
class Reading:
    # Every field is a `Field`: pydantic lists the others after them in the schema.
    label: str = Field()  # "Air temperature", "Power", "Motion", "Battery"
    value: AnyJson = Field(default=None)
    text: str | None = Field(default=None)  # state in words: "motion detected", "idle", "door open"
    unit: str | None = Field(default=None)
    # "temperature", "power", "energy_production" (quantities.py)
    quantity: str | None = Field(
        default=None,
        description="What it measures: temperature, humidity, power, energy, battery, energy_production…",
    )
    # binary sensor type: "smoke", "door", "motion" (sensor_types.py)
    sensor: str | None = Field(
        default=None,
        validation_alias="sensorType",
        serialization_alias="sensorType",
        description="Binary sensors: smoke, co, water_leak, door, window, motion, tamper…",
    )
    alarm: bool | None = Field(
        default=None, description="Binary sensors: triggered (true) or at rest (false)"
    )
    # Seconds since the device reported it (zwave-js lastUpdate); None if unknown. Answers round it.
    age_s: float | None = Field(default=None, validation_alias="ageSeconds", serialization_alias="ageSeconds")
    last_updated: str | None = Field(
        default=None,
        validation_alias="lastUpdated",
        serialization_alias="lastUpdated",
        description="When the device last reported it (ISO 8601, UTC)",
    )
    # "refreshed": the sensor tool asked the device again for this answer.
    source: Literal["live", "refreshed"] = Field(default="live")
    value_id: str = Field(validation_alias="valueId", serialization_alias="valueId")
    # At rest and no news ("idle", a closed tamper switch): says nothing in a sentence.
    idle: Annotated[bool, Internal] = Field(default=False, exclude=True)
    # Where a sentence says it (GROUP_ORDER), and how: "air temperature", "energy", "production today".
    group: Annotated[str, Internal] = Field(default=q.ENVIRONMENT, exclude=True)
    spoken_label: Annotated[str, Internal] = Field(default="", exclude=True)
    command_class: Annotated[int, Internal] = Field(default=0, exclude=True)
    endpoint: Annotated[int, Internal] = Field(default=0, exclude=True)
    # Where on the device it is read, when another endpoint reads the same thing otherwise ("sensor 3", or
    # the endpoint's own label: "Floor sensor"); None when the name alone tells it apart.
    place: Annotated[str | None, Internal] = Field(default=None, exclude=True)

    @field_serializer("age_s")
    def _age_rounded(self, age: float | None) -> float | None:
        return None if age is None else round(age, 1)

    def spoken(self) -> str:
        """ "air temperature 21.6 °C", "motion detected", "battery 87 %", "air temperature 0 °C (sensor 3)"."""
        said = self._said()
        return f"{said} ({self.place})" if self.place else said

    def _said(self) -> str:
        label = self.spoken_label or self.label.lower()
        if self.value is None:
            return f"{label} not reported yet"
        if self.text is not None:
            return self.text
        if isinstance(self.value, int | float) and not is_number(self.value):  # inf, NaN, 10**400
            return f"{label} not readable"
        return f"{label} {_amount(self)}"


@guarded("reading its values", lambda device: [])
def readings(device: Device, now_ms: int) -> list[Reading]:
    """Every reading of the device (sensors, binary sensors, notifications, meters, energy production,
    battery), alarms first and the battery last, each value once."""
    values: dict[str, ZValue] = {}
    own = (device.values.get(m.LOCK_DOOR), device.values.get(m.BATTERY_LEVEL))  # a lock's door; the battery
    for value in itertools.chain(*device.readings.values(), own):
        if value is not None and not is_press(value):
            values.setdefault(value.value_id, value)
    reported = (_as_reported(device, v) for v in values.values())
    out = [reading_of(v, now_ms, device.purposes.get(v.value_id)) for v in reported if v is not None]
    if any(r.sensor == "window" for r in out):  # a window's "Door state (simple)" is that window's too
        out = [_as_window(r) if r.sensor == "door" and r.command_class == CC.NOTIFICATION else r for r in out]
    channel = "clamp" if device.kind == m.Capability.METER else "sensor"  # a home energy meter's channels
    out = _told_apart(out, device.node.endpoint_labels, channel)
    return sorted(out, key=lambda r: (GROUP_ORDER.index(r.group), not r.alarm))


def _as_reported(device: Device, value: ZValue) -> ZValue | None:
    """The value as what it stands for: a legacy alarm pair as the Notification event its model's map
    says (None when the device has not reported a pair the map knows); any other value as it is."""
    if device.purposes.get(value.value_id) != m.ALARM_PAIR:
        return value
    pairs = device.template(AlarmPairs)
    return None if pairs is None else pairs.as_notification(value, device.values.get(m.ALARM_LEVEL))


def _told_apart(found: list[Reading], endpoint_labels: Mapping[int, str], channel: str) -> list[Reading]:
    """Readings of one name on several endpoints that say different things (the three air temperatures
    of a floor thermostat's sensors), each with its place; the same news from each is said once, as is.
    Power, energy, voltage and current read on several endpoints always have their place: each endpoint
    measures a circuit of its own (a home energy meter's clamps), and the same figure on two circuits is two
    readings."""
    said: dict[str, dict[int, set[str]]] = {}
    for r in found:
        said.setdefault(r.spoken_label or r.label.lower(), {}).setdefault(r.endpoint, set()).add(r._said())
    circuits = len({r.endpoint for r in found if r.group == q.POWER}) > 1
    mixed = {
        name
        for name, by_endpoint in said.items()
        if len(by_endpoint) > 1 and len(set().union(*by_endpoint.values())) > 1
    }
    if not mixed and not circuits:
        return found
    placed = []
    for r in found:
        if (r.spoken_label or r.label.lower()) in mixed or (circuits and r.group == q.POWER):
            place = endpoint_place(r.endpoint, endpoint_labels, channel)
            r = replace(r, place=place, label=f"{r.label} ({place})")
        placed.append(r)
    return placed


def endpoint_place(endpoint: int, endpoint_labels: Mapping[int, str], channel: str = "sensor") -> str:
    """An endpoint as a person tells it apart: the label zwave-js gives it from the device's own
    configuration ("Floor sensor"), else "sensor 2" ("clamp 2" of a home energy meter; "main sensor" for
    the root)."""
    own = plain_text(str(endpoint_labels.get(endpoint) or ""), 40)
    generic = ("", "root endpoint", f"endpoint {endpoint}")
    if own.casefold() not in generic:
        return own
    return "main sensor" if endpoint == 0 else f"{channel} {endpoint}"


def _as_window(r: Reading) -> Reading:
    window = st.TYPES["window"]
    text = None if r.alarm is None else (window.alarm if r.alarm else window.idle)
    return replace(r, sensor=window.word, spoken_label=window.word, text=text)


def iso_time(ms: int | None) -> str | None:
    """zwave-js's lastUpdate (ms since the epoch) as ISO 8601 in UTC; None for none or nonsense."""
    if ms is None or not 0 <= ms < 253_402_300_800_000:  # up to the year 9999
        return None
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds")


def reading_of(value: ZValue, now_ms: int, purpose: str | None = None) -> Reading:
    """One value as a reading: its quantity or binary sensor type, its state in words, its age.
    `purpose`: what discovery says the value is for (`Device.purposes`), when a device row says it."""
    age = None if value.last_update_ms is None else max(0.0, (now_ms - value.last_update_ms) / 1000)
    base = Reading(
        label=value.label, value=value.value, unit=value.unit, age_s=age, value_id=value.value_id,
        last_updated=iso_time(value.last_update_ms), command_class=value.command_class, endpoint=value.endpoint,
    )  # fmt: skip
    kind = st.sensor_type(value, purpose)
    if kind is not None:
        alarm = st.alarm_state(value, value.value, purpose)
        return replace(
            base,
            label=str(value.property) if value.command_class == CC.BINARY_SENSOR else value.label,
            text=sensor_words(value, value.value, purpose),
            idle=alarm is not True and kind.quiet,
            sensor=kind.word,
            alarm=alarm,
            group=ALARMS,
            spoken_label=kind.word.replace("_", " "),
        )
    if value.command_class == CC.BINARY_SENSOR:  # "Any", "General purpose", "Aux": no type we know
        said = None if value.value is None else _UNTYPED[0 if value.value else 1]
        label = str(value.property)
        return replace(base, label=label, text=said, group=NOTICES, spoken_label=enum_words(label))
    if value.command_class == CC.NOTIFICATION:
        text = notification_text(value, value.value)
        rest = value.value == 0 or (value.state_text() or "").casefold() in _REST_TEXTS
        return replace(base, text=text, idle=rest, group=NOTICES, spoken_label=value.label.lower())
    quantity = q.quantity_of(value)
    if isinstance(value.value, bool) or (value.type == "boolean" and quantity is None):
        # A flag (Battery "Low battery level"): news when it is raised, nothing to say otherwise.
        group = q.BATTERY if value.command_class == CC.BATTERY else NOTICES
        label = enum_words(value.label)
        flagged = value.value is True
        return replace(
            base, text=label if flagged else None, idle=not flagged, group=group, spoken_label=label
        )
    if quantity is None:  # a value some table put among the readings that names no quantity
        state = value.state_text()
        return replace(
            base,
            text=None if state is None else f"{enum_words(value.label)} {enum_words(state)}",
            group=q.BATTERY if value.command_class == CC.BATTERY else q.ENVIRONMENT,
            spoken_label=enum_words(value.label),
        )
    return replace(
        base,
        label="Battery" if quantity.word == "battery" else capital(quantity.label),
        quantity=quantity.word or None,
        group=quantity.group,
        spoken_label=quantity.label,
    )


def sensor_words(value: ZValue, raw: Any, purpose: str | None = None) -> str | None:
    """A binary sensor's state in words: "smoke detected", "no smoke", "door open", "its cover has been removed"
    (a Notification's own text when it says more than the type's word); None when not reported."""
    if raw is None:
        return None
    kind = st.sensor_type(value, purpose)
    if kind is not None and kind.word in OPENINGS:
        return st.words(value, raw, purpose)  # "door open", "window closed"; None for a state we cannot read
    if value.command_class == CC.NOTIFICATION and st.alarm_state(value, raw, purpose) is not False:
        hit = st.triggered(value, raw, purpose)
        return (
            hit.alarm if hit is not None and value.state_text(raw) is None else notification_text(value, raw)
        )
    return st.words(value, raw, purpose) or notification_text(value, raw)


def pair_change_words(device: Device, value: ZValue, new: Any) -> str | None:
    """A legacy alarm pair's change (its type or its level: they come as two updates) as the event the
    pair now stands for ("smoke detected"); None for a value that is no such pair."""
    pairs = device.template(AlarmPairs)
    kind = next((v for v in device.all_values() if device.purposes.get(v.value_id) == m.ALARM_PAIR), None)
    level = device.values.get(m.ALARM_LEVEL)
    if pairs is None or kind is None or value.value_id not in (kind.value_id, level and level.value_id):
        return None
    if value.value_id == kind.value_id:
        kind = kind.holding(new)
    elif level is not None:
        level = level.holding(new)
    event = pairs.as_notification(kind, level)
    return "an alarm code not known for this model" if event is None else change_words(event, event.value)


def change_words(value: ZValue, new: Any) -> str:
    """A reading's new state as a change says it: "smoke detected", "no motion", "power 12 W"."""
    reading = reading_of(value.holding(new), 0)
    if reading.sensor is not None and reading.idle and new is not None:
        return f"its {reading.spoken_label} alarm cleared"  # a tamper switch closed again
    if reading.group == NOTICES and reading.text == "idle":
        return f"{value.label.lower()} back to idle"
    if new is None:
        return f"{reading.spoken_label} not reported"
    return reading.spoken()


def notification_text(value: ZValue, raw: Any) -> str | None:
    """A Notification state in words: "motion detected", "idle"; None when never reported."""
    if raw is None:
        return None
    if raw == 0:
        return "idle"
    text = value.state_text(raw)
    if text is None:
        return f"{value.label.lower()} {number(raw)}"
    if (words := alarm_state_words(value, raw)) is not None:
        return words
    return _NOTIFICATION_WORDS.get(text.casefold(), enum_words(text))


def alarm_state_words(value: ZValue, raw: Any) -> str | None:
    """A smoke, CO, CO2 or heat alarm's own state with the alarm it belongs to ("its smoke alarm is being
    tested", "its carbon monoxide sensor has reached the end of its life"); None for any other state."""
    alarm = _ALARM_NAMES.get(st.notification_type(value) or 0)
    text = value.state_text(raw) if value.command_class == CC.NOTIFICATION else None
    words = _ALARM_STATE_WORDS.get(text.casefold()) if text is not None else None
    return None if alarm is None or words is None else words.format(alarm)


def spoken_readings(found: list[Reading]) -> list[str]:
    """Readings as a list says them ("air temperature 21.6 °C, humidity 46 %, battery 87 %"): what is
    news (`worth_saying`), the same news said once."""
    return _phrases(worth_saying(found))


def _phrases(found: list[Reading]) -> list[str]:
    return list(dict.fromkeys(battery_phrase(r) if r.quantity == "battery" else r.spoken() for r in found))


def worth_saying(found: list[Reading]) -> list[Reading]:
    """The readings a person wants to hear; the structured results keep them all. Left out: a sensor at
    rest that says nothing by resting (a tamper switch), a battery, flag or status not heard from yet, a
    resting value of a sensor another value says is triggered (the notification says "motion detected",
    the binary sensor still "no motion"), an untyped binary sensor ("Any") beside typed ones, a low-battery
    flag beside the level, and zwave-js's "Unknown (0x00)" sensor types."""
    triggered = {r.sensor for r in found if r.alarm}
    known = {r.sensor for r in found if r.alarm is not None}
    typed = bool(known) or any(r.sensor for r in found)
    level = any(r.quantity == "battery" and r.value is not None for r in found)
    kept: list[Reading] = []
    for r in found:
        if r.sensor is not None and not r.alarm and r.sensor in (triggered if r.alarm is False else known):
            continue
        if (r.idle and r.value is not None) or (r.value is None and (r.quantity == "battery" or r.idle)):
            continue
        if r.value is None and r.quantity is None and r.sensor is None:
            continue  # a status or setting never reported: nothing a person can use
        if r.group == NOTICES and (r.value is None or (typed and r.text in _UNTYPED)):
            continue
        if (level and r.group == q.BATTERY and r.quantity is None) or r.label.startswith("Unknown ("):
            continue
        if r.sensor is not None and r.value is not None and r.text is None:
            continue  # a state of a sensor we cannot read (a door status that is neither open nor closed)
        kept.append(r)
    return kept


def siblings_power(device: Device) -> list[str]:
    """What the node's other parts use, for the answer by its own name: ["Porch Switch 2 uses 18 W"]. A
    power the device says as its own (a floor thermostat's relay) is not said again."""
    own = {v.value_id for v in device.all_values()}
    phrases = []
    for endpoint, name in device.siblings:
        power = next(
            (
                v
                for v in device.node.values.values()
                if v.endpoint == endpoint
                and (quantity := q.quantity_of(v)) is not None
                and quantity.label == "power"
                and is_number(v.value)
            ),
            None,
        )
        if power is not None and power.value_id not in own:
            phrases.append(f"{name} uses {number(power.value)}{unit_text(power.unit)}")
    return phrases


def sentence_phrases(found: list[Reading]) -> tuple[list[str], list[str]]:
    """(what the device is doing with power, everything else) in the order a sentence says them:
    (["using 12.5 W at 230 V and 0.05 A", "3.2 kWh in total"], ["smoke detected", "humidity 46 %", "battery 87 %"])."""
    power = _power_phrases([r for r in found if r.group == q.POWER and r.value is not None])
    power += _production_phrases([r for r in found if r.group == q.PRODUCTION and r.value is not None])
    # unreported power readings are said as such, with the others
    others = [r for r in worth_saying(found) if r.group not in (q.POWER, q.PRODUCTION) or r.value is None]
    return power, _phrases(others)


def battery_phrase(r: Reading) -> str:
    if is_number(r.value) and r.value <= LOW_BATTERY_PERCENT:
        return f"battery low ({number(r.value)}{unit_text(r.unit)})"
    return r.spoken()


def _power_phrases(found: list[Reading]) -> list[str]:
    """What the device uses, channel by channel: the first endpoint's readings first ("using 47 W at 123 V
    and 0.8 A", "739 kWh in total"), then each other endpoint's by its place ("clamp 1 using 23.7 W at
    122.7 V and 0.46 A with 342.6 kWh in total"); channels saying the same are said once ("voltage 0 V at
    sensor 6 and sensor 7"). A voltage or current is said "at" only beside the power of its own endpoint:
    a dimmer's input voltage is no supply. The structured result lists every reading."""
    channels: dict[int, list[Reading]] = {}
    for r in found:
        channels.setdefault(r.endpoint, []).append(r)
    # the device's own channel: the first that uses power or energy (a dimmer's load, not its inputs)
    main = next(
        (ep for ep, rs in channels.items() if any(r.spoken_label in ("power", "energy") for r in rs)),
        next(iter(channels), 0),
    )
    phrases = _channel_phrases(channels.pop(main, []))
    alike: dict[str, list[str]] = {}  # a channel's words → the places that say them
    for channel in channels.values():
        said = _channel_phrases(channel)
        if said:
            place = channel[0].place or endpoint_place(channel[0].endpoint, {})
            alike.setdefault(_joined(said), []).append(place)
    for words, places in alike.items():
        if words.startswith(("using ", "exporting ")) or len(places) == 1:
            phrases.extend(f"{place} {words}" for place in places)
        else:
            phrases.append(f"{words} at {and_list(places)}")
    return phrases


def _joined(words: list[str]) -> str:
    """One channel's phrases as one: "using 23.7 W at 122.7 V with 342.6 kWh in total"."""
    head, *rest = words
    return " ".join([head, *(f"with {w}" if w.endswith("in total") else f"and {w}" for w in rest)])


# A channel's power as a sentence says it, by the reading's label: used, else exported (a solar channel).
_FLOWS = (("using", "power"), ("exporting", "power exported"))


def _channel_phrases(found: list[Reading]) -> list[str]:
    """One endpoint's power readings as phrases, the first of each kind: ["using 12 W at 230 V and 0.05 A",
    "3.2 kWh in total", "1.1 kWh exported in total"]."""
    first: dict[str, Reading] = {}
    for r in found:
        first.setdefault(r.spoken_label, r)
    flow = next(((verb, first.pop(label)) for verb, label in _FLOWS if label in first), None)
    electric = [first.pop(k) for k in ("voltage", "current") if k in first] if flow else []
    phrases: list[str] = []
    if flow is not None:
        at = f" at {and_list([_value_of(r) for r in electric])}" if electric else ""
        phrases.append(f"{flow[0]} {_value_of(flow[1])}{at}")
    for label, r in first.items():
        if label == "energy" and is_number(r.value) and r.value < 0:
            # a consumption total cannot fall below zero: a device's overflow, said as what it is
            phrases.append(f"an impossible energy total of {_value_of(r)}")
        elif label == "energy":
            phrases.append(f"{_value_of(r)} in total")
        elif label == "energy exported":
            phrases.append(f"{_value_of(r)} exported in total")
        elif label == "power exported":
            phrases.append(f"exporting {_value_of(r)}")  # beside a power used
        else:
            phrases.append(f"{label} {_value_of(r)}")
    return phrases


def _value_of(reading: Reading) -> str:
    if not is_number(reading.value):
        return f"an unreadable {reading.spoken_label}"
    return f"{number(reading.value)}{unit_text(reading.unit)}"


def _production_phrases(found: list[Reading]) -> list[str]:
    words = {
        "production power": "producing {}",
        "total production": "{} produced in total",
        "production today": "{} today",
        "total production time": "{} of production in all",
    }
    phrases = []
    for r in found:
        shown = _amount(r) if is_number(r.value) else "an unreadable value"
        phrases.append(words.get(r.spoken_label, r.spoken_label + " {}").format(shown))
    return phrases


def _amount(r: Reading) -> str:
    """ "1.23 W"; a long time in hours ("34.3 hours", not "123456 seconds")."""
    if (r.unit or "").lower() in ("seconds", "s") and is_number(r.value) and r.value >= 3600:
        return f"{r.value / 3600:.1f} hours"
    return f"{number(r.value)}{unit_text(r.unit)}"


def number(x: Any) -> str:
    if not is_number(x):
        return plain_text(str(x)[:200], 40)  # what a broken gateway reports
    if abs(x) >= 1e6:  # a large total in full, never "-2.14748e+08"
        return f"{x:.1f}".removesuffix(".0")
    return f"{x:g}"


def unit_text(unit: str | None) -> str:
    return f" {unit}" if unit else ""


def enum_words(text: str) -> str:
    """An enum-like label as words: "UnsecuredWithTimeout" → "unsecured with timeout", "Auto changeover"."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text).replace("_", " ")
    return " ".join(spaced.split()).lower()
