"""Issue 45 item 4, the pure parts: zwave-js-ui's `getDeviceConfigurationParams` as the simulator answers it
(its reply's shape and errors, from 11.22.2's `api/lib/ZwaveClient.ts`), the node's values explained by
the database's records, and the words that say what a parameter changes beyond the device."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from zwave_mcp.errors import UserError
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.gateway.nodes import parse_value
from zwave_mcp.network.parameters import affects, allowed, explain, explained, pick_parameter
from zwave_mcp.simulator.database import configuration_params

GE_DIMMER = "99-12344-18756"  # zwave-js-ui's deviceId: manufacturerId-productId-productType


def test_the_database_answers_in_zwave_js_uis_shape() -> None:
    """As the real test bed's zwave-js-ui 11.22.2 answered for the GE 14294 (zwave-js 15.29's config file,
    `0x0063/14294_zw3005.json`: its labels, no descriptions); the file the node dump carried had others."""
    records = configuration_params(GE_DIMMER)
    assert [r["property"] for r in records] == [3, 4, 7, 8, 9, 10, 11, 12]
    timing = records[3]
    assert timing == {
        "id": "0-112-0-8",
        "commandClass": 112,
        "property": 8,
        "endpoint": 0,
        "type": "number",
        "readable": True,
        "writeable": True,
        "label": "Dimmer Rate (Z-Wave)",
        "min": 1,
        "max": 255,
        "default": 3,
        "unit": "10ms",
        "list": False,
        "allowManualEntry": True,
        "states": [],
        "newValue": 3,
    }
    assert records[0]["list"] is True and records[0]["states"] == [
        {"text": "On when load is off", "value": 0},
        {"text": "On when load is on", "value": 1},
        {"text": "Always off", "value": 2},
    ]
    assert (records[0]["label"], records[2]["label"], records[2]["min"]) == (
        "LED Indicator",
        "Dimmer Steps (Z-Wave)",
        1,
    )
    # A model the database lacks (the captured devices, 0xFFF0) gives an empty list, as the real one did.
    assert configuration_params("65520-3-256") == []
    # JavaScript's parseInt reads the leading digits.
    assert configuration_params("99-12344-18756abc") == records


@pytest.mark.parametrize(
    ("device_id", "message"),
    [
        ("99-12344", "Invalid deviceId format, expected manufacturerId-productId-productType"),
        ("a-b-c", "Invalid deviceId: non-numeric components"),
        (None, "Cannot read properties of undefined (reading 'split')"),
        (99, "deviceId.split is not a function"),
    ],
)
def test_a_malformed_device_id_fails_as_zwave_js_ui_does(device_id: Any, message: str) -> None:
    with pytest.raises(Exception, match="^" + message.replace("(", "\\(").replace(")", "\\)") + "$"):
        configuration_params(device_id)


def _database(node_id: int) -> list[ZValue]:
    values = []
    for record in configuration_params(GE_DIMMER):
        fields = {k: v for k, v in record.items() if k not in ("id", "newValue")}
        value = parse_value(fields, node_id)  # type: ignore[arg-type]
        assert value is not None
        values.append(value)
    return values


def test_the_node_keeps_its_own_value_and_the_database_fills_its_silence() -> None:
    bare = ZValue("14-112-0-8", 14, 112, "Configuration", 0, 8, label="Dim Rate Timing (Z-Wave)", value=7)
    told = ZValue("14-112-0-3", 14, 112, "Configuration", 0, 3, label="Night light, mine", value=2, max=5)
    merged = {v.property: v for v in explained([bare, told], _database(14))}
    timing = merged[8]
    assert (timing.value, timing.min, timing.max, timing.unit, timing.default) == (7, 1, 255, "10ms", 3)
    assert timing.value_id == "14-112-0-8" and bare.min is None  # the live value itself is left as it is
    # What the node says wins; the database only adds what it lacks.
    assert (merged[3].label, merged[3].max, merged[3].min) == ("Night light, mine", 5, 0)
    # A range from 0 or a default of 0 is said, not silence (the database's 1 to 99 leaves the node's 0).
    steps = ZValue("14-112-0-7", 14, 112, "Configuration", 0, 7, label="Steps", value=1, min=0, default=0)
    said = {v.property: v for v in explained([steps], _database(14))}[7]
    assert (said.min, said.max, said.default) == (0, 99, 0)
    # The parameters the node has not reported are there, holding nothing.
    assert merged[12].value is None and merged[12].value_id == "14-112-0-12"
    assert list(merged) == [3, 4, 7, 8, 9, 10, 11, 12]


def test_one_parameter_in_one_sentence() -> None:
    database = {v.property: v for v in _database(14)}
    dimmer: Any = SimpleNamespace(name="Hallway Dimmer")
    assert explain(database[9], dimmer, reported=False) == (
        "Parameter 9 of Hallway Dimmer, Dimmer Steps, has not been read from the device yet; it takes 1 to 99 "
        "and is 1 by default."
    )
    assert allowed(database[4]) == "Disable (0) or Enable (1)"
    # A description (the node's own, or another model's record) says what the parameter does.
    steps = ZValue(
        "14-112-0-9",
        14,
        112,
        "Configuration",
        0,
        9,
        label="Dim Rate Steps (Manual)",
        min=1,
        max=99,
        default=1,
        description="Number of steps or levels. Default is 1.",
    )
    assert explain(steps, dimmer, reported=False) == (
        "Parameter 9 of Hallway Dimmer, Dim Rate Steps (Manual) (number of steps or levels), has not been "
        "read from the device yet; it takes 1 to 99 and is 1 by default."
    )


def test_a_value_in_steps_is_said_as_what_it_is() -> None:
    """The GE dimmer's timing is in steps of 10 ms (the database's unit "10ms"): it was said "is 3 10ms" and
    "takes 1 to 255 10ms", a number then a number-and-unit that nobody says."""
    database = {v.property: v for v in _database(14)}
    timing = database[8]
    timing.value = 3
    dimmer: Any = SimpleNamespace(name="Hallway Dimmer")
    assert explain(timing, dimmer, reported=True) == (
        "Parameter 8 of Hallway Dimmer, Dimmer Rate (Z-Wave), is 3 (30 ms); "
        "it takes 1 to 255, in steps of 10 ms and is 3 (30 ms) by default."
    )


def test_a_label_that_matches_several_names_only_those() -> None:
    """ "rate" matches parameters 8, 10 and 12 (zwave-js 15.29's labels, as the real test bed answers); the
    refusal listed all eight of the dimmer's, so the model could not tell which it had to choose from."""
    dimmer: Any = SimpleNamespace(name="Hallway Dimmer")
    with pytest.raises(UserError) as refused:
        pick_parameter(_database(14), "rate", dimmer)
    assert str(refused.value) == (
        "'rate' matches several parameters of Hallway Dimmer: 8 (Dimmer Rate (Z-Wave)), "
        "10 (Dimmer Rate), 12 (Dimmer Rate (All-On/All-Off)). Say which number."
    )
    assert pick_parameter(_database(14), "led indicator", dimmer).property == 3
    # A device without parameters says so, not "Its parameters are: none."
    with pytest.raises(UserError, match=r"^Hallway Dimmer has no configuration parameters that zwave-js-ui"):
        pick_parameter([], 1, dimmer)


@pytest.mark.parametrize(
    ("label", "description", "said"),
    [
        ("Auto Relock", "Relock the door after the time set", "how it locks"),
        ("Auto-Lock Time", None, "how it locks"),
        ("Temperature Report Interval", "How often the temperature is sent", "what it reports"),
        ("Power report threshold", None, "what it reports"),
        ("Low battery notification", None, "what it reports"),
        ("Dim Rate Timing (Z-Wave)", "Timing of steps or levels", None),
        ("Night Light", "Defines the behavior of the blue LED", None),
        ("Local protection", "Blocks the buttons", None),
    ],
)
def test_what_a_parameter_changes_beyond_the_device(
    label: str, description: str | None, said: str | None
) -> None:
    value = ZValue("5-112-0-1", 5, 112, "Configuration", 0, 1, label=label, description=description)
    assert affects(value) == said
