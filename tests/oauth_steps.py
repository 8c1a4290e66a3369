"""A client approved the way the flow approves one, through the provider's own steps (registration, the
consent request, the person's yes, the code, the token), for tests that need a grant without a browser."""

from __future__ import annotations

import base64
import hashlib
from urllib.parse import parse_qs, urlsplit

from mcp.server.auth.provider import AuthorizationParams
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl

from zwave_mcp.service.auth import HomeAuth

REDIRECT = "http://127.0.0.1:1/callback"
VERIFIER = "v" * 64
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).decode().rstrip("=")


async def register(auth: HomeAuth, client_id: str, name: str) -> OAuthClientInformationFull:
    client = OAuthClientInformationFull(
        client_id=client_id, client_name=name, redirect_uris=[AnyUrl(REDIRECT)]
    )
    await auth.provider.register_client(client)
    return client


async def consent_request(
    auth: HomeAuth, client: OAuthClientInformationFull, resource: str | None = None
) -> str:
    """The consent request id /authorize makes (the consent page's URL carries it)."""
    params = AuthorizationParams(
        state="st",
        scopes=None,
        code_challenge=CHALLENGE,
        redirect_uri=AnyUrl(REDIRECT),
        redirect_uri_provided_explicitly=True,
        resource=resource,
    )
    url = await auth.provider.authorize(client, params)
    return parse_qs(urlsplit(url).query)["request"][0]


async def approved_code(auth: HomeAuth, client: OAuthClientInformationFull, granted: list[str]) -> str:
    request_id = await consent_request(auth, client)
    found = auth.provider.store.pending(request_id, auth.provider.clock())
    assert found is not None
    back = await auth.provider.approve(client.client_id, found[2], granted)
    return parse_qs(urlsplit(back).query)["code"][0]


async def approve_client(
    auth: HomeAuth, granted: list[str], client_id: str = "tablet", name: str = "Kitchen Tablet"
) -> tuple[OAuthClientInformationFull, OAuthToken]:
    client = await register(auth, client_id, name)
    code = await approved_code(auth, client, granted)
    loaded = await auth.provider.load_authorization_code(client, code)
    assert loaded is not None
    return client, await auth.provider.exchange_authorization_code(client, loaded)
