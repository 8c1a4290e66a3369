"""Issue 42: who may connect, tested the way clients do.

The SDK's own Streamable HTTP client with its OAuth client provider runs the whole flow against a small
MCP server behind `HomeAuth` (uvicorn on 127.0.0.1): RFC 9728 discovery, server metadata, dynamic
registration, the consent page filled and posted as a browser does, the code for tokens with PKCE, tool
calls, a refresh, revocation. Then each refusal, as the spec says it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata

from tests import oauth_steps
from tests.integration.oauth_harness import PASSPHRASE, Browser, Home, MemoryStorage, fill_form, serve_home
from tests.oauth_steps import approve_client, consent_request, register
from zwave_mcp.service import scopes
from zwave_mcp.service.auth import build_home_auth
from zwave_mcp.service.auth.attempts import AttemptLimit
from zwave_mcp.service.auth.provider import ACCESS_TTL_S
from zwave_mcp.service.auth.store import FILE_NAME

pytestmark = pytest.mark.integration

MCP_ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}


# The test's own client and browser log what they receive (a code in a Location header, their tokens):
# those are the client's logs, not the service's.
CLIENT_LOGGERS = ("httpx2", "httpcore2", "mcp.client")


class Captured(logging.Handler):
    """Every log line of the service's side while a test runs (the SDK's, uvicorn's access log, ours)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith(CLIENT_LOGGERS):
            self.lines.append(f"{record.name}: {record.getMessage()} {vars(record)}")


@pytest.fixture
def logs() -> Any:
    handler = Captured()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


@pytest.fixture
async def home(tmp_path: Path) -> AsyncIterator[Home]:
    async with serve_home(tmp_path, limit=AttemptLimit(failures=5, window_s=900)) as served:
        yield served


def oauth_client(home: Home, storage: MemoryStorage, browser: Browser) -> OAuthClientProvider:
    metadata = OAuthClientMetadata(
        client_name="Kitchen Tablet",
        redirect_uris=[home.callback_url],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
    )
    return OAuthClientProvider(
        server_url=home.mcp_url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=browser.approve,
        callback_handler=browser.callback,
    )


async def call(http: httpx2.AsyncClient, home: Home, tool: str) -> Any:
    async with Client(streamable_http_client(home.mcp_url, http_client=http)) as client:
        return await client.call_tool(tool, {})


def text_of(result: Any) -> str:
    return " ".join(part.text for part in result.content if hasattr(part, "text"))


async def probe(home: Home, token: str | None) -> httpx2.Response:
    headers = {**MCP_ACCEPT, **({"Authorization": f"Bearer {token}"} if token else {})}
    async with httpx2.AsyncClient() as http:
        return await http.post(home.mcp_url, json=INITIALIZE, headers=headers)


async def test_the_sdk_client_connects_after_the_person_approves_then_refreshes_and_is_revoked(
    home: Home, logs: Captured, tmp_path: Path
) -> None:
    storage, browser = MemoryStorage(), Browser(home)
    async with httpx2.AsyncClient(auth=oauth_client(home, storage, browser), timeout=30) as http:
        provider = http.auth
        assert isinstance(provider, OAuthClientProvider)
        assert text_of(await call(http, home, "read_home")) == "The lamp is on."

        # The page named the client and where the browser goes back, said each scope in words, the doors
        # unticked, and admin not at all (this service runs without --admin).
        page = browser.pages[0]
        assert "Allow Kitchen Tablet to use your home?" in page and "<strong>127.0.0.1</strong>" in page
        for scope in (scopes.READ, scopes.CONTROL, scopes.DOORS):
            assert scopes.SCOPE_WORDS[scope] in page
        assert scopes.SCOPE_WORDS[scopes.ADMIN] not in page
        assert f'value="{scopes.DOORS}">' in page and f'value="{scopes.READ}" checked>' in page
        first = storage.tokens
        assert first is not None and first.scope == f"{scopes.READ} {scopes.CONTROL}"
        assert first.expires_in == ACCESS_TTL_S
        assert text_of(await call(http, home, "switch_off_lamp")) == "The lamp was told to turn off."
        assert len(home.callbacks) == 1

        # A quarter of an hour later the access token has expired; the client refreshes (its own clock
        # says so too: it reads the expiry it was given against the real time, so it is told here).
        home.clock.advance(ACCESS_TTL_S + 1)
        provider.context.token_expiry_time = time.time() - 1
        assert (await probe(home, first.access_token)).status_code == 401
        assert text_of(await call(http, home, "read_home")) == "The lamp is on."
        second = storage.tokens
        assert second is not None and second.access_token != first.access_token
        assert second.refresh_token != first.refresh_token
        assert len(home.callbacks) == 1, "a refresh needs no second approval"
        assert (await probe(home, second.access_token)).status_code == 200

        # Revocation (RFC 7009) by the client with its own credentials: the grant ends at once.
        info = storage.client_info
        assert info is not None
        revoked = await http.post(
            home.url + "/revoke",
            data={
                "token": second.access_token,
                "client_id": info.client_id,
                "client_secret": info.client_secret or "",
            },
        )
        assert revoked.status_code == 200
    refused = await probe(home, second.access_token)
    assert refused.status_code == 401 and 'error="invalid_token"' in refused.headers["www-authenticate"]

    # No secret in any log line, nor in the file beyond its hash.
    secrets = [PASSPHRASE, first.access_token, second.access_token, first.refresh_token, second.refresh_token]
    secrets += [callback["code"] for callback in home.callbacks]
    joined = "\n".join(logs.lines)
    assert logs.lines and "client approved" in joined
    for secret in secrets:
        assert secret and secret not in joined, [line[:300] for line in logs.lines if secret in line]
    kept = b"".join(path.read_bytes() for path in tmp_path.glob(FILE_NAME + "*"))
    for secret in secrets:
        assert secret.encode() not in kept


async def test_no_token_is_401_naming_the_resource_metadata(home: Home) -> None:
    answer = await probe(home, None)
    assert answer.status_code == 401
    challenge = answer.headers["www-authenticate"]
    metadata_url = home.url + "/.well-known/oauth-protected-resource/mcp"
    assert challenge.startswith("Bearer ") and f'resource_metadata="{metadata_url}"' in challenge
    async with httpx2.AsyncClient() as http:
        resource = (await http.get(metadata_url)).json()
        assert resource["resource"] == home.mcp_url and resource["authorization_servers"] == [home.url]
        server = (await http.get(home.url + "/.well-known/oauth-authorization-server")).json()
    assert server["issuer"] == home.url and server["code_challenge_methods_supported"] == ["S256"]
    assert server["scopes_supported"] == list(scopes.ALL_SCOPES)
    assert server["registration_endpoint"] == home.url + "/register"
    assert server["revocation_endpoint"] == home.url + "/revoke"


async def test_a_token_for_another_audience_is_refused(home: Home, tmp_path: Path) -> None:
    """A token another issuer made on the same file (another address of the service, another /mcp) names
    that audience; this server's bearer check refuses it."""
    other = build_home_auth(tmp_path, "http://127.0.0.1:1", clock=home.clock)
    try:
        _, tokens = await approve_client(other, [scopes.READ], client_id="elsewhere", name="Elsewhere")
        token = tokens.access_token
        assert (await probe(home, token)).status_code == 401
        assert (await other.provider.load_access_token(token)) is not None  # a live token, only elsewhere
    finally:
        other.close()


async def test_a_passphrase_guessed_20_times_is_refused_well_before_20(home: Home) -> None:
    storage = MemoryStorage()
    guesser = Browser(home, passphrase="not it")
    provider = oauth_client(home, storage, guesser)
    # Register and reach the consent page as the client would, then guess on it.
    consent_url = await first_consent_url(home, provider)
    statuses = []
    async with httpx2.AsyncClient(follow_redirects=False) as browser:
        shown = await browser.get(consent_url)
        for guess in range(20):
            action, fields = fill_form(shown.text, f"guess number {guess}")
            answer = await browser.post(home.url + "/" + action, data=fields, headers={"Origin": home.url})
            statuses.append(answer.status_code)
            if answer.status_code == 401:
                assert "That passphrase is wrong, so nothing was approved." in answer.text
        assert statuses[:5] == [401] * 5 and statuses[5:] == [429] * 15
        # While paused even the right passphrase is not heard.
        action, fields = fill_form(shown.text, PASSPHRASE)
        paused = await browser.post(home.url + "/" + action, data=fields, headers={"Origin": home.url})
        assert paused.status_code == 429 and "Approving is paused" in paused.text
    # Once the window has passed (the consent request has expired with it), the person starts again and
    # gets in.
    home.clock.advance(901)
    again_url = await first_consent_url(home, oauth_client(home, MemoryStorage(), guesser))
    async with httpx2.AsyncClient(follow_redirects=False) as browser:
        shown = await browser.get(again_url)
        action, fields = fill_form(shown.text, PASSPHRASE)
        opened = await browser.post(home.url + "/" + action, data=fields, headers={"Origin": home.url})
    assert opened.status_code == 303 and opened.headers["location"].startswith(home.callback_url + "?code=")


async def first_consent_url(home: Home, provider: OAuthClientProvider) -> str:
    """Drive the SDK client until it hands the consent URL to its redirect handler."""
    import asyncio

    seen: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def capture(url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=False) as http:
            seen.set_result((await http.get(url)).headers["location"])
        raise asyncio.CancelledError

    provider.context.redirect_handler = capture
    async with httpx2.AsyncClient(auth=provider) as http:
        with pytest.raises(BaseException):  # noqa: B017 - the flow is stopped at the consent page on purpose
            await http.post(home.mcp_url, json=INITIALIZE, headers=MCP_ACCEPT)
    location = await seen
    return location if location.startswith("http") else home.url + location


async def test_a_refresh_token_used_twice_ends_the_grant(home: Home) -> None:
    storage = MemoryStorage()
    async with httpx2.AsyncClient(auth=oauth_client(home, storage, Browser(home)), timeout=30) as http:
        assert isinstance(http.auth, OAuthClientProvider)
        await call(http, home, "read_home")
        first = storage.tokens
        http.auth.context.token_expiry_time = time.time() - 1  # the client refreshes on its next call
        await call(http, home, "read_home")
        second = storage.tokens
    assert first is not None and second is not None and first.refresh_token != second.refresh_token
    info = storage.client_info
    assert info is not None and info.client_secret is not None
    async with httpx2.AsyncClient() as http:
        again = await http.post(
            home.url + "/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": first.refresh_token or "",
                "client_id": info.client_id,
                "client_secret": info.client_secret,
            },
        )
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    assert (await probe(home, second.access_token)).status_code == 401


async def test_the_consent_form_is_csrf_safe_and_a_no_goes_back_as_access_denied(home: Home) -> None:
    client = await register(home.auth, "tablet", "Kitchen Tablet")
    request_id = await consent_request(home.auth, client)
    page_url = f"{home.url}/consent?request={request_id}"
    async with httpx2.AsyncClient() as browser:
        shown = await browser.get(page_url)
        assert (
            shown.headers["x-frame-options"] == "DENY"
            and "frame-ancestors 'none'" in shown.headers["content-security-policy"]
        )
        action, fields = fill_form(shown.text, PASSPHRASE)
        target = home.url + "/" + action
        # Another site's page posting the same fields: its Origin gives it away.
        forged = await browser.post(target, data=fields, headers={"Origin": "https://evil.example"})
        assert forged.status_code == 403 and "Nothing was approved" in forged.text
    async with httpx2.AsyncClient() as stranger:  # no cookie of the page shown
        assert (await stranger.post(target, data=fields)).status_code == 403
    async with httpx2.AsyncClient() as browser:
        shown = await browser.get(page_url)
        action, fields = fill_form(shown.text, "", answer="deny")
        refused = await browser.post(target, data=fields, headers={"Origin": home.url})
    assert refused.status_code == 303
    assert refused.headers["location"].startswith(oauth_steps.REDIRECT + "?error=access_denied")
    async with httpx2.AsyncClient() as browser:  # answered: the request is gone
        assert (await browser.get(page_url)).status_code == 400


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Where the screenshot is kept (not committed: artifacts/ is ignored); CI may point it elsewhere.
ARTIFACTS = Path(
    os.environ.get("ZWAVE_MCP_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "artifacts")
)


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)")
async def test_a_real_browser_shows_the_consent_page(home: Home, tmp_path: Path) -> None:
    assert CHROMIUM is not None
    client = await register(home.auth, "tablet", "Kitchen Tablet")
    page_url = f"{home.url}/consent?request={await consent_request(home.auth, client)}"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "consent-page.png"
    shot.unlink(missing_ok=True)
    browser = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    browser += [f"--user-data-dir={tmp_path / 'profile'}", "--window-size=820,900"]

    async def run(*args: str) -> str:
        done = await asyncio.create_subprocess_exec(
            *browser, *args, page_url, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL
        )
        out, _ = await asyncio.wait_for(done.communicate(), 120)
        assert done.returncode == 0
        return out.decode()

    dom = await run("--dump-dom")
    assert "Allow Kitchen Tablet to use your home?" in dom and 'type="password"' in dom
    await run(f"--screenshot={shot}")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 5000


async def test_clients_revoke_from_another_process_ends_a_client_at_its_next_call(
    home: Home, tmp_path: Path
) -> None:
    """The command line and the service share the store from two processes: a revocation typed in a
    terminal is the running service's refusal on the client's next call."""
    _, tokens = await approve_client(home.auth, [scopes.READ])
    assert (await probe(home, tokens.access_token)).status_code == 200

    async def zwave_mcp(*args: str) -> str:
        done = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "zwave_mcp",
            "clients",
            "--state-dir",
            str(tmp_path),
            *args,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(done.communicate(), 60)
        assert done.returncode == 0, err.decode()
        return out.decode()

    assert (await zwave_mcp()).startswith("Kitchen Tablet may read the home; approved at ")
    assert "no longer approved" in await zwave_mcp("revoke", "Kitchen Tablet")
    refused = await probe(home, tokens.access_token)
    assert refused.status_code == 401 and 'error="invalid_token"' in refused.headers["www-authenticate"]
