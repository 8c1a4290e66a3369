"""Who calls the home service: each request's `Caller`, from the SDK's auth context.

With sign-in on, the bearer middleware has put the request's access token in the SDK's context variable
(`get_access_token()`, carried into the session's task by the SDK): the caller is its OAuth client, and
may reach what its scopes cover (`scopes.REACH`). Without sign-in (only the tests build the service so, through the
Python API) each HTTP session is a client of its own that may do what the policy allows.
"""

from __future__ import annotations

from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.context import ServerRequestContext

from zwave_mcp.policy.caller import Caller, Reach
from zwave_mcp.service.scopes import REACH, SCOPE_ALLOWS, SCOPE_OF

SESSION_HEADER = "mcp-session-id"


def needs(reach: Reach) -> str:
    """The refusal's words: what the client may not do, and the scope that would let it."""
    scope = SCOPE_OF[reach]
    return f"this client is not allowed to {SCOPE_ALLOWS[scope]}; that needs the {scope} scope"


def who_calls(ctx: ServerRequestContext[Any, Any]) -> Caller:
    token = get_access_token()
    if token is not None:
        may = frozenset(REACH[scope] for scope in token.scopes if scope in REACH)
        return Caller(token.client_id, may, remote=True, needs=needs)
    request = ctx.request
    headers = getattr(request, "headers", None)
    session = headers.get(SESSION_HEADER) if headers is not None else None
    return Caller(f"http session {session[:8]}" if session else "http", None, remote=True, needs=needs)
