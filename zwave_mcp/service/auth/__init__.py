"""Who may connect to the home service: OAuth 2.1 as the MCP authorization spec says, on the SDK's auth parts.

The service is its own authorization server. The SDK serves the protocol (RFC 9728 protected-resource
metadata, RFC 8414 server metadata, /authorize, /token with PKCE, /register for dynamic registration,
/revoke, and the bearer check in front of /mcp); `HomeAuth` gives it what it needs:

- `provider`: the `OAuthAuthorizationServerProvider` (`provider.py`) over one SQLite file in the state
  directory (`store.py`): clients, consent requests, codes, grants, tokens (hashes only);
- `settings`: the `AuthSettings` (issuer, resource /mcp, registration with the four scopes, revocation,
  tokens refused for any other audience);
- `routes`: the consent page (`consent.py`, `page.py`), mounted as the server's custom routes (no token).

The service passes `auth_server_provider=auth.provider, auth=auth.settings` to `MCPServer` and mounts
`auth.routes` (`server.custom_route(route.path, methods, name=route.name)(route.endpoint)`: each endpoint
is an ASGI app, the page behind the SDK's body limit). Scopes are checked at the call by the service, not here (`required_scopes` stays unset, so
the metadata offers all four and the person chooses on the consent page).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from starlette.routing import Route

from zwave_mcp.service import scopes
from zwave_mcp.service.auth.attempts import DEFAULT_LIMIT, AttemptLimit, FailedAttempts
from zwave_mcp.service.auth.consent import ConsentPage
from zwave_mcp.service.auth.passphrase import META_KEY
from zwave_mcp.service.auth.provider import HomeAuthProvider
from zwave_mcp.service.auth.store import FILE_NAME, AuthStore

RESOURCE_PATH = "/mcp"


def default_state_dir() -> Path:
    """The platform's state directory for zwave-mcp (where the history file lives by default too)."""
    import platformdirs

    return platformdirs.user_state_path("zwave-mcp", appauthor=False)


def open_store(state_dir: Path) -> AuthStore:
    return AuthStore(Path(state_dir) / FILE_NAME)


@dataclass
class HomeAuth:
    provider: HomeAuthProvider
    settings: AuthSettings
    routes: list[Route]
    attempts: FailedAttempts

    def passphrase_set(self) -> bool:
        """Has the home a passphrase? Without one the consent page approves nobody (it says to run
        `zwave-mcp passphrase`); the service says so in its log at start."""
        return self.provider.store.get_meta(META_KEY) is not None

    def close(self) -> None:
        self.provider.store.close()


def build_home_auth(
    state_dir: Path,
    issuer_url: str,
    *,
    clock: Callable[[], float] = time.time,
    attempt_limit: AttemptLimit = DEFAULT_LIMIT,
    admin: bool = False,
) -> HomeAuth:
    """The authorization server of the service reached at `issuer_url` (its public https address behind a
    proxy, else http://127.0.0.1:PORT); its MCP endpoint is `issuer_url` + /mcp. The consent page offers
    home:admin only with `admin` (the service's --admin); clients may still register asking for it."""
    issuer = issuer_url.rstrip("/")
    resource = issuer + RESOURCE_PATH
    settings = AuthSettings(
        issuer_url=issuer,  # type: ignore[arg-type]  # pydantic reads the URL
        resource_server_url=resource,  # type: ignore[arg-type]
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=list(scopes.ALL_SCOPES), default_scopes=list(scopes.ALL_SCOPES)
        ),
        revocation_options=RevocationOptions(enabled=True),
        validate_token_resource=True,  # a token for another audience is refused by the SDK's bearer check
    )
    # The issuer as the SDK writes it in the metadata: the `iss` of the authorization response must match.
    offered = scopes.ALL_SCOPES if admin else tuple(s for s in scopes.ALL_SCOPES if s != scopes.ADMIN)
    provider = HomeAuthProvider(open_store(state_dir), str(settings.issuer_url), resource, clock, offered)
    attempts = FailedAttempts(attempt_limit, clock)
    return HomeAuth(provider, settings, ConsentPage(provider, attempts, clock).routes(), attempts)
