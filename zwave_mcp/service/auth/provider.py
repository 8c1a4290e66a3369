"""The home service's authorization server: the SDK's `OAuthAuthorizationServerProvider`, kept in SQLite.

The SDK's handlers do the protocol (metadata, /authorize, /token with PKCE, /register, /revoke, the bearer
check); this class decides and remembers. `authorize` sends the person to our consent page
(`consent.py`), whose yes makes the code (`approve`). Tokens are opaque random strings, kept as hashes:
access tokens live `ACCESS_TTL_S`, refresh tokens rotate on every use and a refresh token used a second
time ends its grant (OAuth 2.1 §4.3.1: one of the two users is a thief). Every access token carries the
audience it was approved for (the service's /mcp URL); the SDK's bearer check refuses another.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    RegistrationError,
    TokenError,
    construct_redirect_uri,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl, AnyUrl, ValidationError

from zwave_mcp.safetext import plain_text
from zwave_mcp.service import scopes
from zwave_mcp.service.auth.store import ACCESS, REFRESH, AuthStore, CodeRow

log = logging.getLogger(__name__)

ACCESS_TTL_S = 15 * 60  # short-lived: a stolen access token is worth a quarter of an hour
REFRESH_TTL_S = 30 * 24 * 3600  # a client unused for a month approves again
CODE_TTL_S = 5 * 60
CONSENT_TTL_S = 10 * 60  # how long the consent page waits for the person
UNAPPROVED_KEPT_S = 24 * 3600  # a registration nobody approved is forgotten after a day
MAX_UNAPPROVED = 100  # registration needs no credentials: the waiting ones are bounded
CLIENT_NAME_MAX = 80
MAX_REDIRECT_URIS = 5
REDIRECT_URI_MAX = 2000
CONSENT_PATH = "/consent"


def client_name(client: OAuthClientInformationFull) -> str:
    """The client's own name, one plain bounded line (it comes from outside)."""
    return plain_text(client.client_name or "", CLIENT_NAME_MAX) or "An unnamed app"


def same_url(a: str, b: str) -> bool:
    """URLs compared as the SDK's bearer check compares them (case, default ports, a trailing slash)."""
    try:
        return str(AnyHttpUrl(a)).removesuffix("/") == str(AnyHttpUrl(b)).removesuffix("/")
    except ValidationError:
        return False


@dataclass(eq=False)
class HomeAuthProvider:
    """`OAuthAuthorizationServerProvider[AuthorizationCode, RefreshToken, AccessToken]` over an `AuthStore`."""

    store: AuthStore
    issuer_url: str
    resource_url: str
    clock: Callable[[], float]
    # What the consent page may offer (home:admin only when the service has --admin).
    offered: tuple[str, ...] = scopes.ALL_SCOPES

    async def _run(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.to_thread(fn, *args)

    # Clients.
    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        info = await self._run(self.store.client_info, client_id)
        return None if info is None else OAuthClientInformationFull.model_validate(info)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        uris = client_info.redirect_uris or []
        if len(uris) > MAX_REDIRECT_URIS or any(len(str(uri)) > REDIRECT_URI_MAX for uri in uris):
            raise RegistrationError(
                "invalid_redirect_uri",
                f"at most {MAX_REDIRECT_URIS} redirect URIs of {REDIRECT_URI_MAX} characters",
            )
        now = self.clock()
        await self._run(self.store.forget_unapproved_clients, now - UNAPPROVED_KEPT_S)
        if await self._run(self.store.unapproved_clients) >= MAX_UNAPPROVED:
            raise RegistrationError("invalid_client_metadata", "too many clients are waiting for approval")
        name = client_name(client_info)
        await self._run(
            self.store.add_client, client_info.client_id, name, client_info.model_dump(mode="json"), now
        )
        log.info("client registered", extra={"client": name})

    # The person's approval.
    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if params.resource is not None and not same_url(params.resource, self.resource_url):
            raise AuthorizeError("invalid_target", f"this server issues tokens only for {self.resource_url}")
        asked = params.scopes if params.scopes is not None else (client.scope or "").split()
        offered = [scope for scope in scopes.known(asked) or scopes.ALL_SCOPES if scope in self.offered]
        if not offered:
            raise AuthorizeError("invalid_scope", "this service does not offer the scopes asked for")
        request_id = secrets.token_urlsafe(32)
        pending = {
            "scopes": offered,
            "state": params.state,
            "challenge": params.code_challenge,
            "redirect_uri": str(params.redirect_uri),
            "explicit": params.redirect_uri_provided_explicitly,
        }
        now = self.clock()
        await self._run(
            self.store.add_pending, request_id, client.client_id, pending, now, now + CONSENT_TTL_S
        )
        return f"{self.issuer_url}{CONSENT_PATH}?{urlencode({'request': request_id})}"

    async def approve(self, client_id: str, pending: dict[str, Any], granted: list[str]) -> str:
        """The person said yes to `granted`: the code, and the URL back to the client that carries it."""
        code = secrets.token_urlsafe(32)
        row = CodeRow(
            client_id=client_id,
            scopes=granted,
            resource=self.resource_url,
            challenge=pending["challenge"],
            redirect_uri=pending["redirect_uri"],
            explicit=pending["explicit"],
            expires_at=self.clock() + CODE_TTL_S,
            grant_id=None,
        )
        await self._run(self.store.add_code, code, row)
        return construct_redirect_uri(
            pending["redirect_uri"], code=code, state=pending["state"], iss=self.issuer_url
        )

    @staticmethod
    def refusal(pending: dict[str, Any]) -> str:
        """The URL back to the client when the person said no (RFC 6749 §4.1.2.1)."""
        return construct_redirect_uri(
            pending["redirect_uri"],
            error="access_denied",
            error_description="the person did not approve this app",
            state=pending["state"],
        )

    # Codes.
    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        row = await self._run(self.store.code, authorization_code)
        if row is None or row.client_id != client.client_id or row.expires_at < self.clock():
            return None
        return AuthorizationCode(
            code=authorization_code,
            scopes=row.scopes,
            expires_at=row.expires_at,
            client_id=row.client_id,
            code_challenge=row.challenge,
            redirect_uri=AnyUrl(row.redirect_uri),
            redirect_uri_provided_explicitly=row.explicit,
            resource=row.resource,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        tokens, answer = self._new_tokens(authorization_code.scopes, authorization_code.scopes)
        grant = await self._run(self.store.grant_from_code, authorization_code.code, self.clock(), tokens)
        if grant is None:
            log.warning(
                "an authorization code was used twice: its grant is ended",
                extra={"client": client_name(client)},
            )
            raise TokenError("invalid_grant", "authorization code was already used")
        log.info(
            "client approved", extra={"client": client_name(client), "scopes": authorization_code.scopes}
        )
        return answer

    # Refresh tokens.
    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        row = await self._run(self.store.token, refresh_token, REFRESH)
        if row is None or row.client_id != client.client_id:
            return None
        if row.used_at is not None:  # used before: whoever holds it now, the grant ends
            await self._run(self.store.end_grant, row.grant_id)
            log.warning(
                "a refresh token was used twice: its grant is ended", extra={"client": client_name(client)}
            )
            return None
        if row.expires_at < self.clock():
            return None
        return RefreshToken(
            token=refresh_token,
            client_id=row.client_id,
            scopes=row.scopes,
            expires_at=int(row.expires_at),
            resource=row.resource,
        )

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        tokens, answer = self._new_tokens(scopes, refresh_token.scopes)
        if not await self._run(self.store.rotate, refresh_token.token, self.clock(), tokens):
            log.warning(
                "a refresh token was used twice: its grant is ended", extra={"client": client_name(client)}
            )
            raise TokenError("invalid_grant", "refresh token was already used")
        return answer

    def _new_tokens(
        self, access_scopes: list[str], refresh_scopes: list[str]
    ) -> tuple[list[tuple[str, str, list[str], float]], OAuthToken]:
        now = self.clock()
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        rows = [
            (access, ACCESS, access_scopes, now + ACCESS_TTL_S),
            (refresh, REFRESH, refresh_scopes, now + REFRESH_TTL_S),
        ]
        answer = OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=ACCESS_TTL_S,
            scope=" ".join(access_scopes),
            refresh_token=refresh,
        )
        return rows, answer

    # Access tokens: read on every call, so a revocation counts at the next one.
    async def load_access_token(self, token: str) -> AccessToken | None:
        row = await self._run(self.store.token, token, ACCESS)
        now = self.clock()
        if row is None or row.expires_at < now:
            return None
        await self._run(self.store.touch, row.grant_id, now)
        return AccessToken(
            token=token,
            client_id=row.client_id,
            scopes=row.scopes,
            expires_at=int(row.expires_at),
            resource=row.resource,
        )

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        """Either token ends the whole grant (the access and the refresh token with it)."""
        kind = REFRESH if isinstance(token, RefreshToken) else ACCESS
        row = await self._run(self.store.token, token.token, kind)
        if row is not None:
            await self._run(self.store.end_grant, row.grant_id)
            log.info("a client's grant was revoked", extra={"client_id": row.client_id})
