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


# Issue 44 item 5: "all the locks" was read as a group for the unmatched-entry warning, and hid and refused
# nothing: the two readings were different. Now one decides both.
PHRASES = [
    "all the locks",
    "every lock",
    "everything",
    "all the lights in the kitchen",
    "the kitchen",
    "kitchen lights",
    "front door",
    "Frnt Dor",
    "node:5",
    "lock",
]


@pytest.mark.parametrize("entry", PHRASES)
def test_what_an_entry_hides_is_what_the_warning_reads(entry: str) -> None:
    rig = Rig(lists(hide=entry))
    rig.gateway.sync.loaded = True
    shown = {d.key for d in rig.devices.devices()}
    hidden = {d.key for d in rig.devices._everything} - shown
    warned = rig.devices.unmatched_entries()
    assert bool(hidden) is not bool(warned), (entry, hidden, warned)


@pytest.mark.parametrize("entry", ["all the locks", "every lock", "everything"])
def test_a_group_entry_hides_and_refuses_what_it_says(entry: str) -> None:
    hiding = Rig(lists(hide=entry))
    assert "Front Door Lock" not in [d.name for d in hiding.devices.devices()]
    denying = Rig(lists(deny=entry))
    with pytest.raises(PolicyRefusal, match=f"'{entry}' is on the deny list"):
        asyncio.run(denying.devices.control("front door", "unlock", params={}))
    assert denying.writes == []


@pytest.mark.parametrize("entry", ["all the locks", "every light", "everything"])
def test_a_group_phrase_on_the_allow_list_is_refused_at_start(entry: str) -> None:
    from zwave_mcp.config import ConfigError, load_settings

    with pytest.raises(ConfigError, match=r"^allow \(ZWAVE_MCP_ALLOW\): '.*' reads as a group.*read exactly"):
        PolicyConfig.from_settings(load_settings(environ={"ZWAVE_MCP_ALLOW": f"Kitchen, {entry}"}))
