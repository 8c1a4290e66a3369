"""What a reading measures: zwave-js's Multilevel Sensor, Meter, Battery and Energy Production values as one
quantity word (the shared vocabulary: "temperature", "power", "energy", "battery", "energy_production") and a
label people say ("air temperature", "power", "energy today"). Data, used wherever a reading is named.

Sources: zwave-js's sensor types (`packages/config/config/sensorTypes.json`: the Multilevel Sensor value's
property is the type's label), meter types and scales (`meters.json`: `ccSpecific.meterType/scale/rateType`)
and the Energy Production CC's parameters (`ccSpecific.parameter`: 0 power, 1 total production, 2 today's
production, 3 total time). Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from zwave_mcp.devices.levels import as_int
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.zwave.classes import CC


@dataclass(frozen=True, slots=True)
class Quantity:
    word: str  # "temperature", "power", "energy_production"
    label: str  # what a sentence calls this reading: "air temperature", "energy", "production today"
    group: str  # where it is said in a state sentence: environment, power, production, battery


ENVIRONMENT, POWER, PRODUCTION, BATTERY = "environment", "power", "production", "battery"
GROUP_ORDER = (ENVIRONMENT, POWER, PRODUCTION, BATTERY)

# Multilevel Sensor: zwave-js sensor type label (the value's property) → quantity word. Names not listed are
# matched by the first keyword below that they contain; anything else keeps its own label, no quantity.
_SENSOR_NAMES = {
    "Illuminance": "illuminance",
    "Humidity": "humidity",
    "Ultraviolet": "uv",
    "Power": "power",
    "Voltage": "voltage",
    "Current": "current",
    "Carbon dioxide (CO₂) level": "co2",
    **dict.fromkeys(("Atmospheric pressure", "Barometric pressure"), "pressure"),
    "Loudness": "noise",
    "Particulate Matter 2.5": "pm25",
    "Volatile Organic Compound level": "voc",
    "Weight": "weight",
    "Velocity": "speed",
    "Water flow": "water",
}
_SENSOR_KEYWORDS = (
    ("temperature", "temperature"),
    ("dew point", "temperature"),
    ("humidity", "humidity"),
    ("pressure", "pressure"),
    ("particulate matter", "pm25"),
)

# Meter: (meter type, scale) → (quantity, label). Meter types: 1 electric, 2 gas, 3 water, 4 heating, 5 cooling.
_METER_SCALES: dict[tuple[int, int], tuple[str, str]] = {
    (1, 0): ("energy", "energy"),  # kWh
    (1, 1): ("energy", "apparent energy"),  # kVAh
    (1, 2): ("power", "power"),  # W
    (1, 4): ("voltage", "voltage"),  # V
    (1, 5): ("current", "current"),  # A
    (1, 6): ("power", "power factor"),
    (1, 7): ("power", "reactive power"),  # kVar
    (1, 8): ("energy", "reactive energy"),  # kVarh
    (4, 0): ("energy", "heating energy"),
    (5, 0): ("energy", "cooling energy"),
}
_METER_TYPES = {2: ("gas", "gas"), 3: ("water", "water")}
_METER_UNITS = {
    "kwh": ("energy", "energy"),
    "w": ("power", "power"),
    "v": ("voltage", "voltage"),
    "a": ("current", "current"),
}
_GROUPS = {
    **dict.fromkeys(("power", "energy", "voltage", "current"), POWER),
    "energy_production": PRODUCTION,
    "battery": BATTERY,
}
# Energy Production parameters → label.
_PRODUCTION = {
    0: "production power",
    1: "total production",
    2: "production today",
    3: "total production time",
}


def _quantity(word: str | None, label: str) -> Quantity:
    return Quantity(word or "", label, _GROUPS.get(word or "", ENVIRONMENT))


def _spec(value: ZValue, key: str) -> int | None:
    spec = value.cc_specific
    return as_int(spec.get(key)) if isinstance(spec, dict) else None


def quantity_of(value: ZValue) -> Quantity | None:
    """What a reading value measures, or None when the value is no reading (a setting, an alarm)."""
    cc = value.command_class
    if cc == CC.MULTILEVEL_SENSOR:
        name = str(value.property)
        word = _SENSOR_NAMES.get(name) or next(
            (w for key, w in _SENSOR_KEYWORDS if key in name.lower()), None
        )
        return _quantity(word, name.lower())
    if cc == CC.METER:
        return _meter(value) if value.property == "value" else None
    if cc == CC.BATTERY:
        return _quantity("battery", "battery") if value.property == "level" else None
    if cc == CC.ENERGY_PRODUCTION and value.property == "value":
        parameter = _spec(value, "parameter")
        if parameter is None and isinstance(value.property_key, int):
            parameter = value.property_key
        label = _PRODUCTION.get(-1 if parameter is None else parameter, (value.label or "production").lower())
        return _quantity("energy_production", label)
    return None


def _meter(value: ZValue) -> Quantity:
    meter_type, scale = _spec(value, "meterType"), _spec(value, "scale")
    exported = _spec(value, "rateType") == 2
    found = _METER_SCALES.get((meter_type or 0, scale if scale is not None else -1))
    if found is None and meter_type in _METER_TYPES:
        found = _METER_TYPES[meter_type]
    if found is None:
        found = _METER_UNITS.get((value.unit or "").lower(), (None, _plain_label(value.label)))  # type: ignore[arg-type]
    word, label = found
    # a voltage or current is the line's, whichever way the energy flows
    return _quantity(word, f"{label} exported" if exported and word in ("energy", "power") else label)


def _plain_label(label: str) -> str:
    """ "Electric Consumption [kWh]" → "electric consumption" (the unit is said with the number)."""
    return label.split("[")[0].strip().lower() or "meter"
