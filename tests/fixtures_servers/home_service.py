"""The home service for the tests: `home_service.py [HOST:]PORT [stub-auth] [tls CERT KEY]`, settings from
ZWAVE_MCP_*.

`zwave-mcp serve --http` always needs OAuth (no flag turns it off); the tests that are not about sign-in
start the same service through its Python API instead, with `auth=None`. With `stub-auth` the SDK's bearer
check runs in front of it with fixed tokens (`TOKENS`), so a test can call as a client with given scopes
without the OAuth flow (that is the auth branch's, tested there).
"""

import sys
from typing import Any

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings

from zwave_mcp.config import load_settings
from zwave_mcp.logs import configure_logging
from zwave_mcp.service import scopes
from zwave_mcp.service.http import Exposure, exposure_for
from zwave_mcp.service.run import serve_http

TOKENS = {
    "read-token": ("phone-app", [scopes.READ]),
    "doors-token": ("front-door-app", [scopes.READ, scopes.CONTROL, scopes.DOORS]),
}


class StubProvider:
    """Only what the bearer check asks of a provider: the access token a bearer string is."""

    async def load_access_token(self, token: str) -> AccessToken | None:
        if token not in TOKENS:
            return None
        client, granted = TOKENS[token]
        return AccessToken(token=token, client_id=client, scopes=granted, expires_at=None)


class StubAuth:
    def __init__(self, exposure: Exposure) -> None:
        self.provider: Any = StubProvider()
        self.settings = AuthSettings(
            issuer_url=exposure.base_url,  # type: ignore[arg-type]
            resource_server_url=exposure.mcp_url,  # type: ignore[arg-type]
            required_scopes=[scopes.READ],
            validate_token_resource=False,
        )
        self.routes: list[Any] = []

    def passphrase_set(self) -> bool:
        return True


if __name__ == "__main__":
    settings = load_settings()
    configure_logging(settings.log_level, settings.log_format)
    options = sys.argv[2:]
    cert, key = (
        (options[options.index("tls") + 1 : options.index("tls") + 3]) if "tls" in options else (None, None)
    )
    exposure = exposure_for(sys.argv[1], tls_cert=cert, tls_key=key)
    auth = StubAuth(exposure) if "stub-auth" in options else None
    sys.exit(serve_http(settings, exposure, auth=auth, tls_cert=cert, tls_key=key))
