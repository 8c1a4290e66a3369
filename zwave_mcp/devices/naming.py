"""What a node may be renamed to: a name people can say without it meaning something else. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from zwave_mcp.devices.groups import parse_group
from zwave_mcp.devices.resolve import DeviceIndex, echo, names_a_key
from zwave_mcp.names import normalize, words_of


def name_problem(index: DeviceIndex, new_name: str, device_names: Sequence[str], node_id: int) -> str | None:
    """Why node `node_id` cannot be called `new_name` (its devices then `device_names`), or None.

    Refused: a blank name; a device key ("2", "node 5", "11.2": an exact name is resolved before a key, so
    node 2 could no longer be called by its number); a group phrase on its own — a room or declared group
    ("kitchen", "upstairs": "turn off the kitchen" would no longer clearly mean the room), a kind
    ("lights") or an all-word ("everything", "all lights"); a name another device or an alias already
    has. A room with a kind ("Kitchen Light") stays allowed: people name devices so, and a device's
    exact name is one device while "the kitchen lights" is still the group.
    """
    if not normalize(new_name):
        return "the new name is blank (it needs a letter or a digit)"
    shown = echo(new_name)
    if names_a_key(new_name):
        return f"'{shown}' reads as a device number, so the device could not be called by it"
    target = index.parse_group(new_name)
    if target is not None and (target.said_all or not (target.places and target.kinds)):
        if target.said_all:
            why = "means every device"
        elif target.kinds:
            why = "is a word for a kind of device, which names all of them"
        else:
            why = "is the name of a room or group, so 'turn off the …' would no longer be clear"
        return f"'{shown}' {why}"
    for name in device_names:
        holder = index.taken_by(name, node_id)
        if holder is not None:
            return f"'{echo(name)}' is already {holder}"
    return None


def room_problem(new_location: str) -> str | None:
    """Why a node cannot be moved to a room called `new_location` ("" is no room), or None: a room named
    like a device number, a kind or an all-word ("Lights", "Everything") would change what "turn off the
    lights" means, as a room is read before a kind."""
    if not new_location:
        return None
    shown = echo(new_location)
    if names_a_key(new_location):
        return f"'{shown}' reads as a device number, not a room"
    if parse_group(words_of(new_location), ()) is not None:
        return f"'{shown}' is a word for a kind of device or for all of them, so it cannot name a room"
    return None
