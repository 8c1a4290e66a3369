"""What a change reaches, judged on its effect as the gate judges effects (never on a tool's name): the
level of access (`Reach`) a caller needs for it. A scene or a group that would unlock a door reaches the
doors, whatever tool asked for it.

- the network (`ADMIN`): network care (configuration, inclusion, exclusion, re-interviews, rebuilds);
- the doors (`DOORS`): locks and their users, garage doors, gates and the relays that open them, valves,
  sirens and alarms;
- everything else a change can do is everyday control (`CONTROL`): lights, plugs, covers, thermostats.
"""

from __future__ import annotations

from zwave_mcp.policy.caller import Reach
from zwave_mcp.policy.sensitive import ADMIN_ACTIONS, LOCK_USER_WORDS, MOVING, opens_entry
from zwave_mcp.policy.terms import PolicyDevice

_DOOR_CAPABILITIES = frozenset({"lock", "valve"})


def reach_of(device: PolicyDevice, words: frozenset[str]) -> Reach:
    """The access a change with these `words` (what its effect amounts to) on `device` needs."""
    if words & ADMIN_ACTIONS:
        return Reach.ADMIN
    caps = {str(c).casefold() for c in device.capabilities}
    if caps & _DOOR_CAPABILITIES or words & LOCK_USER_WORDS:
        return Reach.DOORS
    if any("alarm" in c or "siren" in c for c in caps):
        return Reach.DOORS
    if caps & MOVING and opens_entry(device):  # a garage door, a gate, an opener's relay
        return Reach.DOORS
    return Reach.CONTROL
