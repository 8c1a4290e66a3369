"""A small MCP server behind `HomeAuth`, served by uvicorn on 127.0.0.1, and a browser-like consent helper.

The server has one read tool and one "write" tool that needs home:control (the scope check a service
makes at the call). The client's redirect URI is its own (`Home.callback_url`, where nothing of the home
listens): the browser follows the consent page's answer up to it and hands the query to the client, as a
desktop client's local callback does. The clock is the tests' own.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urljoin, urlsplit

import httpx2
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthToken
from mcp.types import ToolAnnotations

from zwave_mcp.service import scopes
from zwave_mcp.service.auth import HomeAuth, build_home_auth
from zwave_mcp.service.auth.attempts import DEFAULT_LIMIT, AttemptLimit
from zwave_mcp.service.auth.passphrase import META_KEY, Cost, hash_passphrase

PASSPHRASE = "correct horse battery staple"
CHEAP = Cost(n=2**10, r=8, p=1)  # the tests' hashes: the same scheme, a cost a test can afford 20 times


class Clock:
    """The server's time: starts at the real time, moves only when a test moves it."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Home:
    url: str  # the issuer
    auth: HomeAuth
    clock: Clock
    callbacks: list[dict[str, str]] = field(default_factory=list)
    callback_url: str = field(default_factory=lambda: f"http://127.0.0.1:{free_port()}/callback")

    @property
    def mcp_url(self) -> str:
        return self.url + "/mcp"


def build_app(auth: HomeAuth) -> Any:
    server: MCPServer[Any] = MCPServer("test-home", auth_server_provider=auth.provider, auth=auth.settings)

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def read_home() -> str:
        """What the lamp reports."""
        return "The lamp is on."

    @server.tool()
    def switch_off_lamp() -> str:
        """Turn the lamp off (needs home:control)."""
        token = get_access_token()
        if token is None or scopes.CONTROL not in token.scopes:
            raise ToolError(f"This needs {scopes.CONTROL}.")
        return "The lamp was told to turn off."

    for route in auth.routes:  # the consent page, mounted as the service mounts it (no bearer token)
        server.custom_route(route.path, sorted(route.methods or ["GET"]), name=route.name)(route.endpoint)
    return server.streamable_http_app(host="127.0.0.1")


@contextlib.asynccontextmanager
async def serve_home(state_dir: Path, *, limit: AttemptLimit = DEFAULT_LIMIT) -> AsyncIterator[Home]:
    port = free_port()
    clock = Clock()
    home = Home(
        f"http://127.0.0.1:{port}",
        build_home_auth(state_dir, f"http://127.0.0.1:{port}", clock=clock, attempt_limit=limit),
        clock,
    )
    home.auth.provider.store.set_meta(META_KEY, hash_passphrase(PASSPHRASE, CHEAP))
    config = uvicorn.Config(
        build_app(home.auth), host="127.0.0.1", port=port, log_level="info", lifespan="on"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield home
    finally:
        server.should_exit = True
        await task
        home.auth.close()


class FormReader(HTMLParser):
    """The one form of a page, read as a browser reads it: its action and every input."""

    def __init__(self) -> None:
        super().__init__()
        self.action = ""
        self.inputs: list[dict[str, str | None]] = []
        self.buttons: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "form":
            self.action = found.get("action") or ""
        elif tag == "input":
            self.inputs.append(found)
        elif tag == "button":
            self.buttons.append(found)


def fill_form(
    page: str, passphrase: str, *, answer: str = "approve", tick: set[str] | None = None
) -> tuple[str, dict[str, list[str]]]:
    """(action, fields) of the consent form as a person fills it: the boxes as ticked by default unless
    `tick` says which, the passphrase typed, the chosen button pressed."""
    reader = FormReader()
    reader.feed(page)
    fields: list[tuple[str, str]] = []
    for box in reader.inputs:
        name, kind, value = box.get("name") or "", box.get("type"), box.get("value") or ""
        if kind == "hidden":
            fields.append((name, value))
        elif kind == "checkbox":
            ticked = ("checked" in box) if tick is None else value in tick
            if ticked:
                fields.append((name, value))
        elif kind == "password":
            fields.append((name, passphrase))
    fields.append(("answer", answer))
    form: dict[str, list[str]] = {}
    for name, value in fields:
        form.setdefault(name, []).append(value)
    return reader.action, form


class Browser:
    """The person's browser: keeps cookies, follows redirects, sends its Origin on a form post."""

    def __init__(self, home: Home, passphrase: str = PASSPHRASE, tick: set[str] | None = None) -> None:
        self.home = home
        self.passphrase = passphrase
        self.tick = tick
        self.pages: list[str] = []

    async def approve(self, authorize_url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=True) as browser:
            shown = await browser.get(authorize_url)  # /authorize sends the browser on to the consent page
            assert shown.status_code == 200, shown.text
            self.pages.append(shown.text)
            action, fields = fill_form(shown.text, self.passphrase, tick=self.tick)
            answered = await browser.post(
                urljoin(str(shown.url), action),
                data=fields,
                headers={"Origin": self.home.url},
                follow_redirects=False,
            )
            back = answered.headers.get("location", "")
            assert answered.status_code == 303 and back.startswith(self.home.callback_url + "?"), (
                answered.text
            )
            self.home.callbacks.append(dict(parse_qsl(urlsplit(back).query)))

    async def callback(self) -> AuthorizationCodeResult:
        query = self.home.callbacks[-1]
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))


class MemoryStorage:
    """The SDK client's `TokenStorage`, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None
        self.all_tokens: list[OAuthToken] = []

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.all_tokens.append(tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info
