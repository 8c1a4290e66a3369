"""The home service over Streamable HTTP (issue 42), as clients meet it: the SDK's own `Client` on a real
service subprocess (`tests/fixtures_servers/home_service.py`, the service's Python API with OAuth off) on a
free 127.0.0.1 port, with Mosquitto and the simulator.

Both protocol eras read the house and unlock the front door after the person's yes; two clients at once
share one service, and a question goes only to the client whose call asked it; a wrong Host or Origin and
an oversized body are refused before any MCP handling; SIGTERM stops it cleanly with every recorded
change in the file; and a keypad unlock while no stdio client runs is answered by a stdio client started
later, which reads the service's history and writes none.
"""

from __future__ import annotations

import json
import shutil
import signal
import socket
import sqlite3
import ssl
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.e2e.test_clients_both_eras import QUESTION, UNLOCK, Person, lock, ready
from tests.e2e.test_server_stdio import SERVER, TOOLS, server_env
from tests.integration.mcp_harness import call, sim_value, wait_for_answer
from tests.integration.test_lock_events import cleaner_house
from tests.integration.test_oauth import INITIALIZE, MCP_ACCEPT
from zwave_mcp.simulator import FAST, Simulator, capture_config

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

CHILD = Path(__file__).resolve().parents[1] / "fixtures_servers" / "home_service.py"
MODES = ["legacy", "auto"]
START_TIMEOUT_S = 20.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Service:
    """A running home service subprocess: its URL, its process, and what it wrote to stderr."""

    def __init__(self, process: subprocess.Popen[bytes], port: int, history: Path, log: Path) -> None:
        self.process = process
        self.port = port
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.history = history
        self.log = log

    def stderr(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def service_env(mosquitto: Any, sim: Simulator, home: Path, history: Path) -> dict[str, str]:
    return {
        **server_env(mosquitto, sim, home),
        "ZWAVE_MCP_HISTORY_PATH": str(history),
        "ZWAVE_MCP_LOG_LEVEL": "info",
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }


@contextmanager
def running_service(mosquitto: Any, sim: Simulator, home: Path, *options: str) -> Iterator[Service]:
    port, history, log = free_port(), home / "history.sqlite3", home / "service.log"
    with log.open("wb") as err:
        process = subprocess.Popen(
            [sys.executable, str(CHILD), f"127.0.0.1:{port}", *options],
            env=service_env(mosquitto, sim, home, history),
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    service = Service(process, port, history, log)
    with stopped_at_the_end(process):
        wait_listening(process, port, service.stderr)
        yield service


def wait_listening(process: subprocess.Popen[bytes], port: int, said: Callable[[], str]) -> None:
    """Until the service listens on `port`; fails with what it said (`said()`) if it exits or never does."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        assert process.poll() is None, f"the service exited: {said()}"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            assert time.monotonic() < deadline, f"the service never listened: {said()}"
            time.sleep(0.05)


@contextmanager
def stopped_at_the_end(process: subprocess.Popen[bytes]) -> Iterator[None]:
    """SIGTERM when the block ends (as a supervisor stops it), killed if it has not stopped in 15 s."""
    try:
        yield
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def lock_events_in(history: Path) -> int:
    """How many lock events the history file holds (read-only, beside the service writing it)."""
    if not history.exists():
        return 0
    try:
        with closing(sqlite3.connect(f"file:{history}?mode=ro", uri=True)) as db:
            (count,) = db.execute(
                "SELECT count(*) FROM changes JOIN series ON series.id = changes.series "
                "WHERE series.kind='lock'"
            ).fetchone()
    except sqlite3.OperationalError:  # the service is still creating the file's tables
        return 0
    return int(count)


@pytest.fixture
def sim(simulator_factory: Callable[..., Simulator]) -> Simulator:
    return simulator_factory(config=capture_config("a", timing=FAST, periodic=False))


@pytest.mark.parametrize("mode", MODES)
async def test_each_era_reads_the_house_and_unlocks_after_the_persons_yes(
    mosquitto: Any, sim: Simulator, tmp_path: Path, mode: str
) -> None:
    person = Person()
    with running_service(mosquitto, sim, tmp_path) as service, anyio.fail_after(60):
        async with Client(service.url, mode=mode, elicitation_callback=person) as client:
            assert (client.protocol_version == "2026-07-28") is (mode == "auto"), client.protocol_version
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            await ready(client)
            listed = await call(client, "list_zwave_devices", {})
            assert listed.result["total"] == 11, listed.text
            await lock(client, sim)
            unlocked = await call(client, "control_zwave_device", UNLOCK)
            assert person.asked == [QUESTION]
            assert unlocked.outcome == "confirmed", unlocked.text
            assert sim_value(sim, 5, 98, "currentMode") == 0, "the simulated lock is really unlocked"
            prompts = await client.list_prompts()
            assert prompts.prompts, "the same prompts as stdio"
            read = await client.read_resource("zwave://devices/2")
            assert json.loads(read.contents[0].text)["device"]["name"] == "Kitchen Light"


class SlowPerson(Person):
    """Says yes only when told to: a person who takes their time over the question."""

    def __init__(self) -> None:
        super().__init__()
        self.asked_now = anyio.Event()
        self.may_answer = anyio.Event()

    async def __call__(self, context: Any, request: Any) -> Any:
        self.asked_now.set()
        await self.may_answer.wait()
        return await super().__call__(context, request)


async def test_two_clients_share_one_service_and_a_question_goes_to_the_one_who_asked(
    mosquitto: Any, sim: Simulator, tmp_path: Path
) -> None:
    """The question goes only to the client whose call asked it, and while that person thinks, the other
    client's calls (a change to another device among them) are answered: nothing waits on them."""
    asker, bystander = SlowPerson(), Person()
    with running_service(mosquitto, sim, tmp_path) as service, anyio.fail_after(60):
        async with (
            Client(service.url, mode="legacy", elicitation_callback=asker) as first,
            Client(service.url, mode="auto", elicitation_callback=bystander) as second,
        ):
            await ready(first)
            await ready(second)  # at once: one gateway session is shared, so the second is ready already
            await lock(second, sim)
            answers: list[Any] = []

            async def unlock() -> None:
                answers.append(await call(first, "control_zwave_device", UNLOCK))

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(unlock)
                await asker.asked_now.wait()
                light = await call(
                    second, "control_zwave_device", {"deviceName": "kitchen light", "action": "on"}
                )
                assert light.outcome == "confirmed" and not answers, "answered while the person still thinks"
                asker.may_answer.set()
            (unlocked,) = answers
            assert unlocked.outcome == "confirmed", unlocked.text
            assert asker.asked == [QUESTION] and bystander.asked == []
            # The other client sees the one live picture.
            seen = json.loads((await second.read_resource("zwave://devices/5")).contents[0].text)
            assert "unlocked" in json.dumps(seen), seen


async def test_a_wrong_host_or_origin_and_an_oversized_body_are_refused(
    mosquitto: Any, sim: Simulator, tmp_path: Path
) -> None:
    initialize, headers = INITIALIZE, MCP_ACCEPT
    with running_service(mosquitto, sim, tmp_path) as service:
        async with httpx2.AsyncClient(timeout=10) as http:
            good = await http.post(service.url, json=initialize, headers=headers)
            assert good.status_code == 200, good.text
            rebinding = await http.post(
                service.url, json=initialize, headers={**headers, "Host": "evil.example"}
            )
            assert rebinding.status_code == 421, rebinding.text
            foreign = await http.post(
                service.url, json=initialize, headers={**headers, "Origin": "https://evil.example"}
            )
            assert foreign.status_code == 403, foreign.text
            padded = {**initialize, "params": {**initialize["params"], "pad": "x" * 300_000}}
            oversized = await http.post(service.url, json=padded, headers=headers)
            assert oversized.status_code == 413, oversized.text


async def test_sigterm_stops_it_cleanly_with_every_recorded_change_in_the_file(
    mosquitto: Any, sim: Simulator, tmp_path: Path
) -> None:
    with running_service(mosquitto, sim, tmp_path) as service:
        async with Client(service.url) as client:
            await ready(client)
            on = await call(client, "control_zwave_device", {"deviceName": "kitchen light", "action": "on"})
            assert on.outcome == "confirmed", on.text
        # At once after the change: it is still in the writer's batch when the signal comes.
        service.process.send_signal(signal.SIGTERM)
        # uvicorn ends by the signal it was stopped with, once it has shut down (as supervisors expect).
        assert service.process.wait(15) in (0, -signal.SIGTERM), service.stderr()
    log = service.stderr()
    assert "watching the home since" in log and "history store closed" in log, log
    with closing(sqlite3.connect(service.history)) as db:
        outcomes = db.execute("SELECT tool, action, outcome FROM outcomes").fetchall()
        writer = db.execute("SELECT value FROM meta WHERE key='writer'").fetchone()
    assert ("control_zwave_device", "on", "confirmed") in outcomes, outcomes
    assert writer is None, "a clean stop gives the file back"


async def test_a_keypad_unlock_while_no_client_runs_is_named_by_the_next_stdio_client(
    mosquitto: Any, simulator_factory: Callable[..., Simulator], tmp_path: Path
) -> None:
    sim = simulator_factory(
        config=capture_config("a", timing=FAST, periodic=False), house="captured+locks", start=False
    )
    cleaner_house(sim)
    sim.start()
    said = "Side Door Lock was unlocked with the keypad by Cleaner (user 3)"
    with running_service(mosquitto, sim, tmp_path) as service:
        async with Client(service.url) as watcher:  # only to know the service has the house loaded
            await ready(watcher)
        sim.lock_event(13, "keypad_unlock", 3)  # nobody is connected now
        with anyio.fail_after(10):
            while not lock_events_in(service.history):  # written by the service alone
                await anyio.sleep(0.1)
        stdio = StdioServerParameters(
            command=SERVER[0],
            args=SERVER[1:],
            env={
                **server_env(mosquitto, sim, tmp_path),
                "ZWAVE_MCP_HISTORY_PATH": str(service.history),
                "ZWAVE_MCP_LOG_LEVEL": "info",  # its history lines say whether it writes
            },
        )
        stdio_log = tmp_path / "stdio.log"
        with anyio.fail_after(60), stdio_log.open("w") as errlog:
            async with Client(stdio_client(stdio, errlog=errlog)) as client:
                last = await wait_for_answer(
                    client, "get_last_event", {"user": "cleaner"}, lambda a: said in a.text, timeout=15
                )
                assert last.text.startswith(f"{said} at "), last.text
                recent = await call(client, "get_recent_events", {"minutes": 10})
                assert "when zwave-mcp started watching" in recent.text, recent.text
                assert "came online" not in recent.text, recent.text
                health = await call(client, "check_zwave_health", {})
                assert "watching the home since" in health.text, health.text
        with closing(sqlite3.connect(service.history)) as db:
            writer = json.loads(db.execute("SELECT value FROM meta WHERE key='writer'").fetchone()[0])
        assert writer["pid"] == service.process.pid, "the service is still the one writer"
        said = stdio_log.read_text(encoding="utf-8")
        assert "history is read from the zwave-mcp service writing it" in said, said
        assert "history store closed" in said and '"written": 0' in said, "the stdio server wrote nothing"


def bearer(service: Service, token: str) -> Any:
    """The SDK's Streamable HTTP transport, sending `token` as the bearer of every request."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    return streamable_http_client(service.url, http_client=http)


async def test_signed_in_calls_run_as_their_client_with_their_scopes(
    mosquitto: Any, sim: Simulator, tmp_path: Path
) -> None:
    """With the SDK's bearer check in front (fixed tokens, tests/fixtures_servers/home_service.py): no token
    is a 401 naming the resource metadata; a read token reads but is refused the unlock with the scope it
    needs; a doors token unlocks after the person's yes; the audit names each client."""
    person = Person()
    with running_service(mosquitto, sim, tmp_path, "stub-auth") as service, anyio.fail_after(60):
        async with httpx2.AsyncClient(timeout=10) as http:
            anonymous = await http.post(service.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert anonymous.status_code == 401
        assert "resource_metadata=" in anonymous.headers["www-authenticate"], anonymous.headers
        async with Client(bearer(service, "read-token")) as reader:
            await ready(reader)
            refused = await call(reader, "control_zwave_device", UNLOCK)
            assert refused.is_error and refused.text == (
                "Refused to unlock Front Door Lock (Entry): this client is not allowed to work the doors, "
                "garage doors, gates, valves, sirens and lock users; that needs the home:doors scope."
            ), refused.text
        async with Client(bearer(service, "doors-token"), elicitation_callback=person) as keeper:
            await lock(keeper, sim)
            unlocked = await call(keeper, "control_zwave_device", UNLOCK)
            assert unlocked.outcome == "confirmed" and person.asked == [QUESTION], unlocked.text
    audit = [json.loads(line) for line in service.stderr().splitlines() if '"zwave_mcp.audit"' in line]
    assert [(a["client"], a["action"], a["outcome"]) for a in audit] == [
        ("phone-app", "unlock", "refused"),
        ("front-door-app", "lock", "confirmed"),
        ("front-door-app", "unlock", "needs_confirmation"),  # the question, then the unlock after the yes
        ("front-door-app", "unlock", "confirmed"),
    ], audit


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl makes the test certificate")
async def test_with_its_own_tls_it_answers_https_only(mosquitto: Any, sim: Simulator, tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    with running_service(mosquitto, sim, tmp_path, "tls", str(cert), str(key)) as service:
        url = service.url.replace("http://", "https://")
        trusted = httpx2.AsyncClient(verify=ssl.create_default_context(cafile=str(cert)), timeout=30)
        with anyio.fail_after(30):
            async with Client(streamable_http_client(url, http_client=trusted)) as client:
                await ready(client)
            async with httpx2.AsyncClient(timeout=5) as plain:
                with pytest.raises(httpx2.HTTPError):
                    await plain.post(service.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
