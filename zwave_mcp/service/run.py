"""Running the home service: uvicorn serves the HTTP app until SIGTERM or Ctrl-C, then stops it cleanly.

uvicorn (an SDK dependency) handles the signals: it stops taking requests, lets the ones in flight end
(`GRACE_S`), then runs the app's lifespan down, and so the server's: the history writer writes everything
queued before the file is closed, so no recorded event is lost. Its log lines go through our JSON logging
(no config of its own, no access log: a request's line is our tool log's job).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

import uvicorn

from zwave_mcp.service.http import ServiceSetupError, build_http_app

if TYPE_CHECKING:
    from zwave_mcp.config import Settings
    from zwave_mcp.service.auth import HomeAuth
    from zwave_mcp.service.http import Exposure, HttpService

log = logging.getLogger(__name__)

GRACE_S = 5  # requests in flight (a tool call, an open event stream) get this long to end on shutdown


def uvicorn_server(
    service: HttpService, *, tls_cert: str | None = None, tls_key: str | None = None
) -> uvicorn.Server:
    exposure = service.exposure
    config = uvicorn.Config(
        service.app,
        host=exposure.host,
        port=exposure.port,
        ssl_certfile=tls_cert,
        ssl_keyfile=tls_key,
        log_config=None,
        access_log=False,
        proxy_headers=exposure.public_url is not None,
        forwarded_allow_ips="127.0.0.1,::1" if exposure.public_url else None,
        timeout_graceful_shutdown=GRACE_S,
        server_header=False,
    )
    return uvicorn.Server(config)


def home_auth(exposure: Exposure, *, admin: bool = False, state_dir: Path | None = None) -> HomeAuth:
    """The OAuth parts for this exposure (its base URL is the issuer; home:admin offered only with `admin`),
    kept in `state_dir` (default: the user state directory, as `zwave-mcp passphrase` and `clients` use).
    Raises `ServiceSetupError` when its store cannot be read. With no passphrase set yet the service still
    starts (it records the home from the first minute; a unit started before the person set it does not
    crash-loop), says so in its log, and its consent page approves nobody until `zwave-mcp passphrase`."""
    from zwave_mcp.service.auth import build_home_auth, default_state_dir

    try:
        auth = build_home_auth(state_dir or default_state_dir(), exposure.base_url, admin=admin)
    except (OSError, ValueError) as exc:  # an unreadable state directory, a damaged store
        raise ServiceSetupError(f"the home service cannot start its sign-in: {exc}") from None
    if not auth.passphrase_set():
        log.warning(
            "no client can be approved yet: the consent page asks for the home's passphrase, which is not "
            "set; run 'zwave-mcp passphrase' (the service need not restart)"
        )
    return auth


def check_one_service(settings: Settings) -> None:
    """`ServiceSetupError` when another home service already writes this history file: one writer a file."""
    from datetime import datetime

    from zwave_mcp.history import live_service, where_history_lives

    holder = live_service(settings.history_path, int(time.time() * 1000))
    if holder is not None:
        since = datetime.fromtimestamp(holder.since_ms / 1000).astimezone().strftime("%H:%M")
        raise ServiceSetupError(
            f"another zwave-mcp service (process {holder.pid} on {holder.host}) has been writing "
            f"{where_history_lives(settings.history_path)} since {since}: stop it first, or give this one "
            "its own ZWAVE_MCP_HISTORY_PATH"
        )


def serve_http(
    settings: Settings,
    exposure: Exposure,
    *,
    auth: HomeAuth | None,
    tls_cert: str | None = None,
    tls_key: str | None = None,
) -> int:
    """Serve until a signal."""
    service = build_http_app(settings, exposure, auth=auth)
    log.info(
        "home service listening",
        extra={"url": exposure.mcp_url, "sign_in": "oauth" if auth else "none", "admin": settings.admin},
    )
    # On SIGTERM uvicorn shuts down (the history file written and closed), then ends the process by that
    # signal; the sign-in's store has committed every write by then.
    uvicorn_server(service, tls_cert=tls_cert, tls_key=tls_key).run()
    return 0
