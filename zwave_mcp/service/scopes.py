"""The scope vocabulary of the home service: the one place the names, their words and their reach are said.

A token over HTTP carries some of these scopes; a call needs the one its effect needs (judged where the gate
judges effects, never by a tool's name). The consent page (`service/auth/`) shows `SCOPE_WORDS` beside a
tick box per scope, `DEFAULT_TICKED` ticked; nothing else spells a scope's name.
"""

from __future__ import annotations

from zwave_mcp.policy.caller import Reach

READ = "home:read"
CONTROL = "home:control"
DOORS = "home:doors"
ADMIN = "home:admin"

# In the order the consent page lists them: from what only looks to what changes the network.
ALL_SCOPES: tuple[str, ...] = (READ, CONTROL, DOORS, ADMIN)

# Plain words for the consent page, one sentence each, said to the person approving a client.
SCOPE_WORDS: dict[str, str] = {
    READ: "See the devices, their state, readings and the history of the home.",
    CONTROL: "Switch lights and plugs, move covers and blinds, set thermostats and run scenes.",
    DOORS: "Lock and unlock doors, open garage doors and gates, work valves and sirens, and manage lock users.",
    ADMIN: "Care for the Z-Wave network, add and remove devices, heal it and change configuration.",
}

# What each scope lets a call do, as the refusal says it ("… needs home:doors, which lets a client …").
SCOPE_ALLOWS: dict[str, str] = {
    READ: "read the home",
    CONTROL: "control lights, plugs, covers, thermostats and scenes",
    DOORS: "work the doors, garage doors, gates, valves, sirens and lock users",
    ADMIN: "care for the Z-Wave network",
}

# What each scope lets a call reach, as the gate judges effects (`policy/reach.py`), and back.
REACH: dict[str, Reach] = {READ: Reach.READ, CONTROL: Reach.CONTROL, DOORS: Reach.DOORS, ADMIN: Reach.ADMIN}
SCOPE_OF: dict[Reach, str] = {reach: scope for scope, reach in REACH.items()}

# Ticked on the consent page unless the person changes it: the doors never are, admin only with --admin.
DEFAULT_TICKED: frozenset[str] = frozenset({READ, CONTROL})


def known(scopes: str | list[str] | tuple[str, ...] | set[str] | frozenset[str]) -> list[str]:
    """The scopes of `scopes` (a space-separated string, as OAuth writes them, or a collection) that this
    service knows, in `ALL_SCOPES` order; unknown ones are dropped."""
    asked = set(scopes.split()) if isinstance(scopes, str) else set(scopes)
    return [scope for scope in ALL_SCOPES if scope in asked]
