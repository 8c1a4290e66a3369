"""The home service's HTTP app: the same MCP server as stdio, on the SDK's own Streamable HTTP app.

`build_http_app(settings, exposure, auth=...)` builds one `ZwaveServer` (one gateway session, one live
picture, one write gate, the history file's one writer) and the SDK's Starlette app in front of it, at
`/mcp`, answering both protocol eras. Every client connected shares that one server: the SDK enters its
lifespan once for the app, not once per session.

What reaches it is bounded here: the Host and Origin a request may carry (the SDK's DNS-rebinding
protection: loopback names, or only the public address behind a proxy), the size of a request body and
the number of open sessions (both the SDK's session manager's). With `auth` (the OAuth parts of
`service/auth/`), the SDK serves the metadata, authorize, token, register and revoke endpoints and checks
the bearer token; the consent page and the rest of `auth.routes` are mounted beside them.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from mcp.server.transport_security import TransportSecuritySettings

from zwave_mcp.server.build import ZwaveServer
from zwave_mcp.service.callers import who_calls

if TYPE_CHECKING:
    from mcp.server.auth.provider import OAuthAuthorizationServerProvider
    from starlette.applications import Starlette

    from zwave_mcp.config import Settings
    from zwave_mcp.gateway.client import ZwaveGateway
    from zwave_mcp.service.auth import HomeAuth

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MCP_PATH = "/mcp"
# A tool call's arguments are a few hundred bytes; the largest honest request (a batch of names, a long
# alias list) is far below this. The SDK's default is 4 MiB.
MAX_BODY_BYTES = 256 * 1024
# A household has a few people with a few clients each; idle sessions end after half an hour.
MAX_SESSIONS = 64
SESSION_IDLE_S = 30 * 60
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class ServiceSetupError(Exception):
    """The service cannot be set up as asked; the message says why and what would work."""


@dataclass(frozen=True, slots=True)
class Exposure:
    """Where the service listens and how clients reach it: `public_url` is the https address a reverse
    proxy or tunnel serves it at (then the OAuth issuer and the only Host/Origin allowed)."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    tls: bool = False
    public_url: str | None = None

    @property
    def base_url(self) -> str:
        """The address clients use, without the MCP path."""
        if self.public_url:
            return self.public_url.rstrip("/")
        return f"{'https' if self.tls else 'http'}://{_bracketed(self.host)}:{self.port}"

    @property
    def mcp_url(self) -> str:
        return self.base_url + MCP_PATH

    def transport_security(self) -> TransportSecuritySettings:
        """The Hosts and Origins a request may carry (DNS-rebinding protection, always on)."""
        if self.public_url:
            public = urlsplit(self.public_url)
            return TransportSecuritySettings(
                allowed_hosts=[public.netloc], allowed_origins=[f"{public.scheme}://{public.netloc}"]
            )
        schemes = ("https",) if self.tls else ("http",)
        names = _LOOPBACK_NAMES if is_loopback(self.host) else (_bracketed(self.host),)
        return TransportSecuritySettings(
            allowed_hosts=[f"{name}:{self.port}" for name in names],
            allowed_origins=[f"{scheme}://{name}:{self.port}" for scheme in schemes for name in names],
        )


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_listen(text: str | None) -> tuple[str, int]:
    """`[HOST:]PORT` (an IPv6 host in brackets) → (host, port); None or "" → the defaults."""
    if not text:
        return DEFAULT_HOST, DEFAULT_PORT
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = DEFAULT_HOST, text
    host = host.strip("[]") or DEFAULT_HOST
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ServiceSetupError(f"--http takes [HOST:]PORT with a port from 1 to 65535 (got '{text}')")
    return host, int(port_text)


def exposure_for(
    listen: str | None,
    *,
    tls_cert: str | None = None,
    tls_key: str | None = None,
    behind_proxy: str | None = None,
) -> Exposure:
    """How the service may be exposed, or `ServiceSetupError`: loopback unless told; a bind anyone else can
    reach needs TLS of its own or a proxy's public https address; a wildcard bind with its own TLS has
    no one name clients would use, so it needs the proxy form."""
    host, port = parse_listen(listen)
    if bool(tls_cert) != bool(tls_key):
        raise ServiceSetupError("the service's TLS needs both --http-tls-cert and --http-tls-key")
    public = None
    if behind_proxy:
        parts = urlsplit(behind_proxy)
        if parts.scheme != "https" or not parts.hostname or parts.path not in ("", "/") or parts.query:
            raise ServiceSetupError(
                f"--behind-proxy takes the public https address clients use, like https://home.example.net "
                f"(got '{behind_proxy}')"
            )
        public = f"https://{parts.netloc}"
    tls = bool(tls_cert)
    if not is_loopback(host) and not tls and public is None:
        raise ServiceSetupError(
            f"listening on {host} lets other machines connect: give it TLS (--http-tls-cert and --http-tls-key) or "
            "put it behind a reverse proxy or tunnel and name its https address (--behind-proxy URL)"
        )
    if tls and public is None and host in ("0.0.0.0", "::"):
        raise ServiceSetupError(
            f"with its own TLS the service needs the name clients use: listen on that name instead of {host}"
        )
    return Exposure(host, port, tls, public)


@dataclass
class HttpService:
    """The app uvicorn serves, and the one server behind it."""

    app: Starlette
    zwave: ZwaveServer
    exposure: Exposure


def build_http_app(
    settings: Settings,
    exposure: Exposure,
    *,
    auth: HomeAuth | None,
    gateway: ZwaveGateway | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    max_sessions: int = MAX_SESSIONS,
) -> HttpService:
    """The home service's app. `auth` None serves without OAuth: only the tests do, through this API."""
    # The SDK's provider Protocol also names exchange_identity_assertion, which it calls only with
    # identity_assertion_enabled (off here); ours has no such grant.
    provider = cast("OAuthAuthorizationServerProvider[Any, Any, Any]", auth.provider) if auth else None
    zwave = ZwaveServer(
        settings,
        gateway,
        service=True,
        who_calls=who_calls,
        auth=auth.settings if auth is not None else None,
        auth_server_provider=provider,
    )
    server = zwave.server
    for route in auth.routes if auth is not None else []:  # the consent page: no bearer token needed
        server.custom_route(route.path, sorted(route.methods or ["GET"]), name=route.name)(route.endpoint)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        max_request_body_size=max_body_bytes,
        max_sessions=max_sessions,
        session_idle_timeout=SESSION_IDLE_S,
        transport_security=exposure.transport_security(),
        host=exposure.host,
    )
    return HttpService(app, zwave, exposure)
