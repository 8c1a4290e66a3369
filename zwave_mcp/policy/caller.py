"""Who is calling: the client a tool call comes from, and what its sign-in lets it reach.

Over stdio there is one client, "stdio", that may do whatever the policy allows. Over HTTP the home
service says who each call is from (the OAuth client of its token) and what its scopes cover, as the
`Reach` levels below; the scope names and their words are the service's (`service/scopes.py`), handed
in as `Caller.needs`. The executor sets the caller for each call (`acting_as`); the gate reads it
(`current_caller`) to judge the effect's reach, to bind a confirmation to the client that asked, to count
the client's own rate limit and to name the client in the audit.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum


class Reach(StrEnum):
    """What a change (or a read) reaches, judged on its effect: looking, everyday control, the doors (a way
    in, water and alarms), the network itself."""

    READ = "read"
    CONTROL = "control"
    DOORS = "doors"
    ADMIN = "admin"


def _unnamed(reach: Reach) -> str:
    return f"this client may not {reach}"


@dataclass(frozen=True, slots=True)
class Caller:
    """`may` None: every reach (stdio, a service without sign-in in the tests). `remote`: over HTTP, where
    the per-client rate limit holds. `needs(reach)`: the refusal's words for a reach it lacks."""

    client: str
    may: frozenset[Reach] | None = None
    remote: bool = False
    needs: Callable[[Reach], str] = _unnamed

    def allows(self, reach: Reach) -> bool:
        return self.may is None or reach in self.may

    def refusal(self, text: str, reach: Reach) -> str:
        """ "Refused to unlock Front Door Lock: this client may not work the doors; that needs home:doors." """
        return f"Refused to {text}: {self.needs(reach)}."


STDIO = Caller("stdio")
_CALLER: contextvars.ContextVar[Caller] = contextvars.ContextVar("zwave_mcp_caller", default=STDIO)


def current_caller() -> Caller:
    return _CALLER.get()


@contextmanager
def acting_as(caller: Caller) -> Iterator[Caller]:
    token = _CALLER.set(caller)
    try:
        yield caller
    finally:
        _CALLER.reset(token)
