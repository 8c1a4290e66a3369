"""The corpus of real devices as one house on the simulator, through the MCP tools: each device's state is
asked, and each device the table says can be controlled gets its natural control (on, close, lock, off
mode). Every answer must be a true one: the control is confirmed, still moving, or refused with a reason
(a confirmation asked for); a crash, "cannot be controlled" or a silent no is a failure.

Devices are named after their dump ("fan ge 12730", "aeotec zw164 siren 3" for an endpoint), so a failure
names the file; `fixtures/devices/expected.json` says what each one is.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.integration.mcp_harness import call, connected, settings_for
from zwave_mcp.simulator import Simulator
from zwave_mcp.simulator.dumps import load_house_file
from zwave_mcp.simulator.house import sleeps

pytestmark = pytest.mark.integration

DEVICES = Path(__file__).resolve().parents[2] / "fixtures" / "devices"
TABLE: list[dict[str, Any]] = json.loads((DEVICES / "expected.json").read_text("utf-8"))
# The natural controls of each kind, most natural first: a device gets the first its table entry lists.
NATURAL: dict[str, list[str]] = {
    "switch": ["on"],
    "dimmer": ["on"],
    "color": ["on", "set_color"],
    "fan": ["on"],
    "siren": ["on"],
    "cover": ["close"],
    "valve": ["close"],
    "lock": ["lock"],
    "thermostat": ["set_mode", "set_temperature"],
}
ARGS: dict[str, dict[str, Any]] = {
    "set_mode": {"mode": "off"},
    "set_temperature": {"value": 19},
    "set_color": {"color": "red"},
}
# "unchanged": a change that needs a yes but that the device already reports (a water main already closed).
TRUE_OUTCOMES = {"confirmed", "working", "needs_confirmation", "unchanged"}
# A sleeping battery device (not a FLiRS one) rightly queues a write until it wakes up.
SLEEPING_OUTCOMES = TRUE_OUTCOMES | {"queued"}


def spoken_name(file: str) -> str:
    return file.removesuffix(".json").removesuffix("_state").replace("_", " ")


def corpus_house() -> list[dict[str, Any]]:
    """Every dump's device, renumbered 2, 3, … and named after its file, behind one controller."""
    house: list[dict[str, Any]] = []
    for number, row in enumerate(TABLE, start=2):
        nodes = load_house_file(DEVICES / row["file"])
        if not house:
            house.append(next(n for n in nodes if n.get("isControllerNode")))
        node = copy.deepcopy(next(n for n in nodes if not n.get("isControllerNode")))
        node["id"] = number
        node["name"] = spoken_name(row["file"])
        node["loc"] = ""
        for key, value in node["values"].items():
            value["nodeId"] = number
            value["id"] = f"{number}-{key}"
        house.append(node)
    return house


def expected_devices() -> list[tuple[str, dict[str, Any]]]:
    """(device name, expected device) for every device of the table."""
    out = []
    for row in TABLE:
        for device in row["devices"]:
            name = spoken_name(row["file"])
            # The node as a whole, or its root endpoint beside the others, is named after the node.
            endpoint = device["endpoint"]
            part = device.get("part", endpoint)  # a part a model row names: "<node> night light"
            out.append((name if not part else f"{name} {part}", device))
    return out


SLEEPING = {
    spoken_name(row["file"])
    for row in TABLE
    if any(sleeps(n) for n in load_house_file(DEVICES / row["file"]) if not n.get("isControllerNode"))
}


@pytest.fixture
def corpus_sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(house=corpus_house())


async def test_every_device_answers_its_state(mosquitto: Any, corpus_sim: Simulator) -> None:
    failures = []
    async with connected(settings_for(mosquitto, corpus_sim)) as client:
        for name, _expected in expected_devices():
            answer = await call(client, "get_device_state", {"deviceName": name})
            if answer.is_error or "None" in answer.text:
                failures.append(f"{name}: {answer.text}")
    assert not failures, "\n".join(failures)


async def test_the_natural_control_of_every_controllable_device(
    mosquitto: Any, corpus_sim: Simulator
) -> None:
    failures = []
    async with connected(settings_for(mosquitto, corpus_sim)) as client:
        for name, expected in expected_devices():
            if not expected["controls"]:
                continue
            action = next(a for a in NATURAL[expected["kind"]] if a in expected["controls"])
            answer = await call(
                client, "control_zwave_device", {"deviceName": name, "action": action, **ARGS.get(action, {})}
            )
            outcome = None if answer.is_error else answer.outcome
            if outcome not in (SLEEPING_OUTCOMES if name in SLEEPING else TRUE_OUTCOMES):
                failures.append(f"{name} ({expected['kind']}) {action}: {outcome or 'error'}: {answer.text}")
    assert not failures, "\n".join(failures)
