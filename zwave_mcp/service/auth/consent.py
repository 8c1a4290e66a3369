"""The consent page's two answers: GET shows the question, POST takes the person's yes or no.

/authorize (the SDK's) sends the browser here with a consent request id. The page names the client and
where the browser goes back to, lists the scopes in words and asks for the home's passphrase. The form is
CSRF-safe: a fresh random value each time the page is shown, in the form and in a SameSite=Strict
cookie, kept as a hash on the request; a POST needs all three to agree, and a browser's Origin, when it
sends one, must be the service's own. Wrong passphrases are counted for the whole home (`attempts.py`);
once the budget is spent every attempt is refused unheard until the window passes.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode, urlsplit

from mcp.server.transport_security import RequestBodyLimitMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route, request_response

from zwave_mcp.service import scopes
from zwave_mcp.service.auth.attempts import FailedAttempts
from zwave_mcp.service.auth.page import answer_page, consent_page
from zwave_mcp.service.auth.passphrase import META_KEY, verify_passphrase
from zwave_mcp.service.auth.provider import CONSENT_PATH, HomeAuthProvider, client_name
from zwave_mcp.service.auth.store import digest

log = logging.getLogger(__name__)

COOKIE = "zwave_mcp_consent"
# The form and its links name the page relatively, so a proxy that serves the service under a path works.
PAGE = CONSENT_PATH.lstrip("/")
MAX_BODY = 16 * 1024  # the form is a few hundred bytes; anything larger is not it
# What the browser may do with these pages: no scripts, no frames around them (clickjacking), no
# referrer carrying the request id elsewhere, nothing cached.
HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _html(text: str, status: int = 200, headers: dict[str, str] | None = None) -> HTMLResponse:
    return HTMLResponse(text, status_code=status, headers={**HEADERS, **(headers or {})})


def _minutes(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    return "1 minute" if minutes == 1 else f"{minutes} minutes"


EXPIRED = answer_page(
    "This approval has ended",
    "It expired or was already answered. Start connecting again from the app.",
)


class ConsentPage:
    def __init__(
        self, provider: HomeAuthProvider, attempts: FailedAttempts, clock: Callable[[], float]
    ) -> None:
        self.provider = provider
        self.attempts = attempts
        self.clock = clock
        self.origin = "{0.scheme}://{0.netloc}".format(urlsplit(provider.issuer_url))
        self.secure = provider.issuer_url.startswith("https:")
        # Behind a proxy the issuer may have a path: the cookie is scoped to the page as the browser sees it.
        self.cookie_path = urlsplit(provider.issuer_url).path.rstrip("/") + CONSENT_PATH

    def routes(self) -> list[Route]:
        app = RequestBodyLimitMiddleware(request_response(self.handle), MAX_BODY)
        return [Route(CONSENT_PATH, endpoint=app, methods=["GET", "POST"])]

    async def handle(self, request: Request) -> Response:
        return await (self.show(request) if request.method == "GET" else self.answer(request))

    async def _pending(self, request_id: str) -> tuple[str, str, dict[str, Any]] | None:
        store = self.provider.store
        return await asyncio.to_thread(store.pending, request_id, self.clock())

    async def show(self, request: Request) -> Response:
        request_id = request.query_params.get("request", "")
        found = await self._pending(request_id)
        client = None if found is None else await self.provider.get_client(found[1])
        if found is None or client is None:
            return _html(EXPIRED, 400)
        csrf = secrets.token_urlsafe(32)
        await asyncio.to_thread(self.provider.store.set_csrf, request_id, csrf)
        page = consent_page(
            client=client_name(client),
            redirect_uri=found[2]["redirect_uri"],
            offered=found[2]["scopes"],
            request_id=request_id,
            csrf=csrf,
            action=PAGE,
        )
        response = _html(page)
        response.set_cookie(
            COOKIE,
            csrf,
            max_age=15 * 60,
            path=self.cookie_path,
            secure=self.secure,
            httponly=True,
            samesite="strict",
        )
        return response

    async def answer(self, request: Request) -> Response:
        form = await request.form()
        request_id = _field(form.get("request"))
        found = await self._pending(request_id)
        client = None if found is None else await self.provider.get_client(found[1])
        if found is None or client is None:
            return _html(EXPIRED, 400)
        csrf_hash, client_id, pending = found
        again = f"{PAGE}?{urlencode({'request': request_id})}"
        if not self._same_form(request, _field(form.get("csrf")), csrf_hash):
            return _html(
                answer_page(
                    "Nothing was approved",
                    "This answer did not come from the page this service showed. Open the page again.",
                    again,
                ),
                403,
            )
        if _field(form.get("answer")) == "deny":
            if await asyncio.to_thread(self.provider.store.take_pending, request_id):
                log.info("a client was refused on the consent page", extra={"client": client_name(client)})
                return RedirectResponse(self.provider.refusal(pending), status_code=303, headers=HEADERS)
            return _html(EXPIRED, 400)
        refused = await self._unheard(_field(form.get("passphrase")), client_name(client), again)
        if refused is not None:
            return refused
        ticked = {_field(value) for value in form.getlist("scope")}
        granted = [scope for scope in scopes.ALL_SCOPES if scope in ticked and scope in pending["scopes"]]
        if not granted:
            return _html(
                answer_page("Nothing was approved", "Nothing was ticked, so the app may do nothing.", again),
                400,
            )
        if not await asyncio.to_thread(self.provider.store.take_pending, request_id):
            return _html(EXPIRED, 400)
        log.info(
            "a client was approved on the consent page",
            extra={"client": client_name(client), "scopes": granted},
        )
        url = await self.provider.approve(client_id, pending, granted)
        response = RedirectResponse(url, status_code=303, headers=HEADERS)
        response.delete_cookie(
            COOKIE, path=self.cookie_path, secure=self.secure, httponly=True, samesite="strict"
        )
        return response

    async def _unheard(self, given: str, client: str, again: str) -> Response | None:
        """None when `given` is the home's passphrase; else the page that says why nothing was approved
        (paused after too many wrong ones, none set, wrong)."""
        wait = self.attempts.start()
        if wait > 0:
            sentence = (
                f"Too many wrong passphrases were tried, so approving is paused for {_minutes(wait)}. "
                "Nothing was approved."
            )
            return _html(
                answer_page("Approving is paused", sentence, again), 429, {"Retry-After": str(int(wait) + 1)}
            )
        heard: bool | None = None
        try:
            stored = await asyncio.to_thread(self.provider.store.get_meta, META_KEY)
            if stored is not None:  # the slow hash runs off the event loop
                heard = await asyncio.to_thread(verify_passphrase, given, stored)
        finally:
            self.attempts.finish(failed=heard is False)
        if heard is None:
            sentence = (
                "This home has no passphrase yet. Run 'zwave-mcp passphrase' on the computer that runs the "
                "service, then try again."
            )
            return _html(answer_page("No passphrase is set", sentence, again), 503)
        if not heard:
            log.warning("a wrong passphrase was given on the consent page", extra={"client": client})
            return _html(
                answer_page("Wrong passphrase", "That passphrase is wrong, so nothing was approved.", again),
                401,
            )
        return None

    def _same_form(self, request: Request, csrf: str, csrf_hash: str) -> bool:
        """The POST answers the page shown last: its CSRF value in the form and the cookie, and no other
        site's Origin."""
        origin = request.headers.get("origin")
        if origin is not None and origin != self.origin:
            return False
        cookie = request.cookies.get(COOKIE, "")
        return bool(
            csrf
            and csrf_hash
            and hmac.compare_digest(csrf.encode(), cookie.encode())
            and hmac.compare_digest(digest(csrf).encode(), csrf_hash.encode())
        )


def _field(value: Any) -> str:
    """A form field as text (a file upload or a missing field is empty)."""
    return value if isinstance(value, str) else ""
