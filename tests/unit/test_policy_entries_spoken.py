"""Issue 36, item 7: deny, hide and confirm entries are read the way tool arguments are.

"front door" on the deny list covers Front Door Lock, as "lock the front door" reaches it; an entry that
names several devices ("porch switch") covers them all; a room and kind ("kitchen lights") or "the lamp in
the living room" work too. An entry that names nothing is said by the devices service (health, config).
The allow list keeps its exact reading: read loosely it would let more be changed than was listed.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.unit.test_gate_flow import Rig
from zwave_mcp.errors import PolicyRefusal
from zwave_mcp.policy import PolicyConfig, parse_terms
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.policy.terms import DeviceList


def lists(**entries: str) -> PolicyConfig:
    return PolicyConfig(
        **{k: DeviceList(parse_terms(v), f"ZWAVE_MCP_{k.upper()}") for k, v in entries.items()}
    )


def test_a_deny_entry_as_people_say_the_device_covers_it() -> None:
    rig = Rig(lists(deny="front door"))
    with pytest.raises(PolicyRefusal, match="'front door' is on the deny list"):
        asyncio.run(rig.devices.control("front door", "lock", params={}))
    assert rig.writes == [] and rig.devices.unmatched_entries() == []


def test_an_entry_naming_several_devices_covers_them_all() -> None:
    rig = Rig(lists(hide="porch switch"))
    names = [d.name for d in rig.devices.devices()]
    assert "Porch Double Switch 1" not in names and "Porch Double Switch 2" not in names
    assert "Kitchen Light" in names


@pytest.mark.parametrize("entry", ["the lamp in the living room", "living room lamp", "living room lights"])
def test_confirm_entries_read_as_tool_arguments(entry: str) -> None:
    rig = Rig(lists(confirm_devices=entry))
    _plan, result = asyncio.run(rig.devices.control("living room lamp", "off", params={}))
    assert result.outcome is Outcome.NEEDS_CONFIRMATION, entry


def test_an_entry_naming_nothing_is_said() -> None:
    rig = Rig(lists(deny="Frnt Dor, front door"))
    rig.gateway.sync.loaded = True  # as after zwave-js-ui's node list came (no broker here)
    assert rig.devices.unmatched_entries() == [
        "'Frnt Dor' on the deny list (ZWAVE_MCP_DENY) matches no device"
    ]


def test_the_allow_list_is_read_exactly() -> None:
    rig = Rig(lists(allow="kitchen"))  # the room, as before; "kitchen light" alone would not widen it
    with pytest.raises(PolicyRefusal, match="read-only"):
        asyncio.run(rig.devices.control("living room lamp", "on", params={}))


def test_a_device_a_spoken_entry_named_stays_covered_after_a_rename() -> None:
    rig = Rig(lists(deny="front door"))
    assert rig.devices.devices()  # the lists are read when the devices are indexed
    rig.gateway.inventory.rename(5, name="Main Entrance")
    with pytest.raises(PolicyRefusal, match="'front door' is on the deny list"):
        asyncio.run(rig.devices.control("main entrance", "lock", params={}))
