"""Issue 42's first "done when", end to end: `zwave-mcp serve --http` as a person runs it (the real command,
its passphrase set by `zwave-mcp passphrase`), and a client nobody here wrote, the SDK's Streamable HTTP
client with its OAuth client provider. It finds the service, registers, sends the person to the consent page
(filled and posted as a browser does), gets its token, reads the house and, granted home:doors, unlocks the
front door only after the person's yes. A client granted only home:read is refused every change, with the
scope it would need.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata

from tests.e2e.test_clients_both_eras import QUESTION, UNLOCK, Person, lock, ready
from tests.e2e.test_service_http import free_port, service_env, stopped_at_the_end, wait_listening
from tests.integration.mcp_harness import call, sim_value
from tests.integration.oauth_harness import Browser, MemoryStorage
from zwave_mcp.service import scopes
from zwave_mcp.simulator import FAST, Simulator, capture_config

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

PASSPHRASE = "a home's own passphrase"


@dataclass
class Site:
    """What the browser helper needs of the service: its address (the issuer) and the client's callback."""

    url: str
    callbacks: list[dict[str, str]] = field(default_factory=list)
    callback_url: str = field(default_factory=lambda: f"http://127.0.0.1:{free_port()}/callback")

    @property
    def mcp_url(self) -> str:
        return self.url + "/mcp"


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(config=capture_config("a", timing=FAST, periodic=False))


@contextmanager
def home_service(mosquitto: Any, sim: Simulator, home: Path) -> Iterator[Site]:
    env = service_env(mosquitto, sim, home, home / "history.sqlite3")
    command = [sys.executable, "-m", "zwave_mcp"]
    state = home / "sign-in"
    done = subprocess.run(
        [*command, "passphrase", "--state-dir", str(state)],
        input=PASSPHRASE + "\n",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    port = free_port()
    log = home / "service.log"
    with log.open("wb") as err:
        process = subprocess.Popen(
            [*command, "serve", "--http", f"127.0.0.1:{port}", "--state-dir", str(state)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    with stopped_at_the_end(process):
        wait_listening(process, port, log.read_text)
        yield Site(f"http://127.0.0.1:{port}")
    assert PASSPHRASE not in log.read_text(encoding="utf-8", errors="replace")


def signed_in(site: Site, name: str, granted: set[str]) -> tuple[OAuthClientProvider, Browser]:
    """The SDK's OAuth client for a client called `name`, whose person ticks `granted` on the consent page."""
    browser = Browser(site, passphrase=PASSPHRASE, tick=granted)  # type: ignore[arg-type]
    metadata = OAuthClientMetadata(
        client_name=name,
        redirect_uris=[site.callback_url],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
    )
    provider = OAuthClientProvider(
        server_url=site.mcp_url,
        client_metadata=metadata,
        storage=MemoryStorage(),
        redirect_handler=browser.approve,
        callback_handler=browser.callback,
    )
    return provider, browser


async def test_an_approved_client_reads_the_house_and_unlocks_only_after_the_persons_yes(
    mosquitto: Any, sim: Simulator, tmp_path: Path
) -> None:
    person = Person()
    with home_service(mosquitto, sim, tmp_path) as site, anyio.fail_after(90):
        provider, browser = signed_in(site, "Phone", {scopes.READ, scopes.CONTROL, scopes.DOORS})
        async with (
            httpx2.AsyncClient(auth=provider, timeout=30) as http,
            Client(
                streamable_http_client(site.mcp_url, http_client=http), elicitation_callback=person
            ) as client,
        ):
            assert "Allow Phone to use your home?" in browser.pages[0]
            await ready(client)
            listed = await call(client, "list_zwave_devices", {})
            assert listed.result["total"] == 11, listed.text
            await lock(client, sim)
            assert person.asked == []
            unlocked = await call(client, "control_zwave_device", UNLOCK)
            assert person.asked == [QUESTION]
            assert unlocked.outcome == "confirmed", unlocked.text
            assert sim_value(sim, 5, 98, "currentMode") == 0, "the simulated lock is really unlocked"


async def test_a_read_only_client_is_refused_every_change(
    mosquitto: Any, sim: Simulator, tmp_path: Path
) -> None:
    person = Person()
    with home_service(mosquitto, sim, tmp_path) as site, anyio.fail_after(90):
        provider, _ = signed_in(site, "Wall Display", {scopes.READ})
        async with (
            httpx2.AsyncClient(auth=provider, timeout=30) as http,
            Client(
                streamable_http_client(site.mcp_url, http_client=http), elicitation_callback=person
            ) as client,
        ):
            await ready(client)
            unlock = await call(client, "control_zwave_device", UNLOCK)
            light = await call(
                client, "control_zwave_device", {"deviceName": "kitchen light", "action": "on"}
            )
            group = await call(client, "control_zwave_group", {"target": "everything", "action": "off"})
    assert person.asked == [], "nothing beyond its access is even asked"
    assert unlock.is_error and scopes.DOORS in unlock.text, unlock.text
    assert light.is_error and scopes.CONTROL in light.text, light.text
    assert group.is_error and scopes.CONTROL in group.text, group.text
    assert sim_value(sim, 2, 37, "currentValue") is False and sim_value(sim, 5, 98, "currentMode") == 0
