"""Houses: lists of zwave-js-ui node dicts in the shape `api/getNodes` returns.

`captured` is the ten-node house of the captures (plus controller and Broadcast node; 11 devices, as
node 11 has two switched channels). Large houses are generated from its device kinds. zwave-js allows
232 classic node ids; beyond that a generated house simply keeps counting (256, 257, …, as Z-Wave
Long Range ids do), skipping 255, which is the virtual Broadcast node.
"""

from __future__ import annotations

import copy
import json
import random
from importlib import resources
from pathlib import Path
from typing import Any

from zwave_mcp.simulator.dumps import CONTROLLER_ID, Node, load_house_file
from zwave_mcp.zwave.classes import CC
from zwave_mcp.zwave.wire import value_key

BROADCAST_ID = 255
# The captured house with the two keypad locks recorded later, the hallway dimmer and the patio lock (the
# demo's house).
CAPTURED_WITH_LOCKS = "captured+locks"

_ROOMS = [
    "Kitchen",
    "Living Room",
    "Bedroom",
    "Entry",
    "Hallway",
    "Garage",
    "Porch",
    "Office",
    "Dining Room",
    "Bathroom",
    "Attic",
    "Basement",
    "Laundry",
    "Nursery",
    "Guest Room",
    "Patio",
]


# Device kind of each captured node, used to name generated copies ("Office Lamp 3").
_KINDS = {
    2: "Light",
    3: "Lamp",
    4: "Sensor",
    5: "Lock",
    6: "Thermostat",
    7: "Motion Sensor",
    8: "Plug",
    9: "Color Bulb",
    10: "Blinds",
    11: "Double Switch",
}


def packaged(name: str) -> Any:
    """A fresh copy of a JSON file of the package's `houses/`."""
    return json.loads(resources.files("zwave_mcp.simulator").joinpath(f"houses/{name}").read_text("utf-8"))


def captured_house() -> list[Node]:
    """A fresh copy of the recorded house (package data `houses/captured.json`)."""
    return packaged("captured.json")


def keypad_locks() -> list[Node]:
    """The two keypad locks recorded on the real zwave-js-ui 11.22.2 (`getNodes_locks_12_13.json` of the
    captures, its events queue left out; package data `houses/locks.json`): 12 "Back Door Lock" (User Code:
    slots 1-3 enabled, 4 disabled, admin code set) and 13 "Side Door Lock" (User Credential: Alice, Bob, and
    Carol inactive, each with a PIN). Their PINs are the captures' made-up test values."""
    return packaged("locks.json")


def hallway_dimmer() -> list[Node]:
    """Node 20 "Hallway Dimmer", a real GE 14294 in-wall dimmer (its node dump in `fixtures/devices/`,
    renumbered and named; package data `houses/hallway_dimmer.json`), whose configuration parameters the
    simulator's device database knows (`database.py`): the demo's parameters to explain and set."""
    return packaged("hallway_dimmer.json")


def hallway_remote() -> list[Node]:
    """Node 21 "Hallway Remote", a real Aeotec WallMote Quad (its node dump in `fixtures/devices/`,
    renumbered and named; package data `houses/hallway_remote.json`), asleep on batteries: the demo's remote
    whose buttons control other devices directly (its association groups, `association_groups.json`)."""
    return packaged("hallway_remote.json")


def with_association_groups(nodes: list[Node]) -> list[Node]:
    """The demo's association groups (package data `houses/association_groups.json`, from real devices'
    config files): Garage Motion's (a motion sensor's), Porch Double Switch's (a double relay's), and the
    Hallway Dimmer's and the Hallway Remote's own."""
    groups = packaged("association_groups.json")["nodes"]
    for node in nodes:
        entry = groups.get(str(node["id"]))
        if entry is not None:
            node["groups"] = entry["groups"]
    return nodes


def patio_lock() -> list[Node]:
    """Node 24 "Patio Door Lock", a real Kwikset 910 keypad deadbolt (its node dump in `fixtures/devices/`,
    `lock_kwikset_910_state.json`, from FutureTense/keymaster; renumbered and named, its redacted codes
    made-up test PINs; package data `houses/patio_lock.json`): User Code with users 1-4 in use, Schedule
    Entry Lock version 2 and Door Lock Logging, so the demo has code schedules and a lock's own log
    (`simulator.lock_extras`). Its `schedule` and `userCodes` are what zwave-js-ui keeps on such a node."""
    return packaged("patio_lock.json")


def captured_scenes() -> list[dict[str, Any]]:
    """Scenes for the captured house, as zwave-js-ui keeps them (`_getScenes`): Movie Night (lamp and bulb
    low, kitchen light off, blinds closed) and Good Night (everything off, blinds closed, door locked).
    The demo starts with them; tests create their own through `_createScene`."""
    return packaged("captured_scenes.json")


def _node_ids(count: int) -> list[int]:
    return [node_id for node_id in range(2, count + 3) if node_id != BROADCAST_ID][:count]


def renumbered(template: Node, node_id: int) -> Node:
    """A copy of a node under another id, as a second device of the same model would be (its product id
    the node id, so that no two are alike)."""
    node = copy.deepcopy(template)
    node.update(
        id=node_id,
        productId=node_id,
        deviceId=f"{node.get('manufacturerId', 0)}-{node_id}-{node.get('productType', 0)}",
        hexId=f"0xfff0 0x0100-0x{node_id:04x}",
        productLabel=f"Unknown product 0x{node_id:04x}",
    )
    for key, value in node.get("values", {}).items():
        value["nodeId"] = node_id
        value["id"] = f"{node_id}-{key}"
    return node


def _retarget(template: Node, node_id: int, name: str, loc: str) -> Node:
    node = renumbered(template, node_id)
    node.update(name=name, loc=loc)
    product = node.get("values", {}).get(
        value_key(CC.MANUFACTURER_SPECIFIC, 0, "productId")
    )  # it says it too
    if product is not None:
        product["value"] = node_id
    return node


def generate_house(n_nodes: int, seed: int = 0) -> list[Node]:
    """A deterministic house of `n_nodes` devices built from the captured device kinds.

    Node ids are 2, 3, … (255 skipped); names are `<kind> <n>` and unique; locations are drawn from a
    fixed room list with `random.Random(seed)`. The controller and the Broadcast node come first, as in
    getNodes.
    """
    base = captured_house()
    by_id = {n["id"]: n for n in base}
    templates = [n for n in base if n["id"] not in (CONTROLLER_ID, BROADCAST_ID)]
    rng = random.Random(seed)
    kinds: dict[str, int] = {}
    nodes: list[Node] = [by_id[BROADCAST_ID], by_id[CONTROLLER_ID]]
    for index, node_id in enumerate(_node_ids(n_nodes)):
        template = templates[index % len(templates)]
        kind = _KINDS.get(template["id"], "Device")
        kinds[kind] = kinds.get(kind, 0) + 1
        room = rng.choice(_ROOMS)
        nodes.append(_retarget(template, node_id, f"{room} {kind} {kinds[kind]}", room))
    return nodes


def load_house(spec: str | Path | None = None) -> list[Node]:
    """`None`/"captured" → the captured house; "captured+locks" → with the two keypad locks (`keypad_locks`),
    the hallway dimmer (`hallway_dimmer`), the hallway remote (`hallway_remote`) and the patio lock
    (`patio_lock`), with association groups; "generated:N[:seed]" → `generate_house`; else a JSON file:
    a getNodes reply or result array, zwave-js-ui's nodes dump, or zwave-js-server node states (Home
    Assistant's device diagnostics, one node or many), converted by `dumps.load_house_file` (a
    `dumps.DumpError`, a ValueError, says in one line what was expected)."""
    if spec is None or str(spec) == "captured":
        return captured_house()
    if str(spec) == CAPTURED_WITH_LOCKS:
        return with_association_groups(
            captured_house() + keypad_locks() + hallway_dimmer() + hallway_remote() + patio_lock()
        )
    text = str(spec)
    if text.startswith("generated:"):
        parts = text.split(":")
        try:
            count = int(parts[1])
            seed = int(parts[2]) if len(parts) > 2 else 0
        except (IndexError, ValueError):
            raise ValueError(f"{text}: expected generated:N or generated:N:SEED") from None
        return generate_house(count, seed)
    return load_house_file(text)


def sleeps(node: Node) -> bool:
    """A battery node that queues writes until it wakes up. Frequently listening nodes (FLiRS: most locks,
    many sirens; zwave-js gives `isFrequentListening` true or "250ms"/"1000ms") wake for a beam within a
    second, so zwave-js sends to them at once, as to listening ones (zwave-js's `canSleep`)."""
    return not node.get("isListening", True) and not node.get("isFrequentListening")
