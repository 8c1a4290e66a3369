"""MQTT brokers on 127.0.0.1 for the demo and the tests.

`EmbeddedBroker`: amqtt (MQTT 3.1.1 only) in a background thread with its own event loop, so
`zwave-mcp demo` needs nothing installed. `MosquittoBroker`: a real Mosquitto subprocess with a
generated config, with `kill()`/`start()`/`restart()` for outage tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing accepts connections on {HOST}:{port} after {timeout:.0f} s")


def find_mosquitto() -> str | None:
    found = shutil.which("mosquitto")
    if found:
        return found
    return "/usr/sbin/mosquitto" if os.access("/usr/sbin/mosquitto", os.X_OK) else None


class MosquittoBroker:
    """Mosquitto on a free 127.0.0.1 port: anonymous, no persistence. The port survives restarts."""

    def __init__(self, port: int | None = None, executable: str | None = None) -> None:
        exe = executable or find_mosquitto()
        if exe is None:
            raise FileNotFoundError("mosquitto not found on PATH or at /usr/sbin/mosquitto")
        self.executable = exe
        self.port = port or free_port()
        self._dir = tempfile.TemporaryDirectory(prefix="zwave-mcp-mosquitto-")
        self._conf = Path(self._dir.name) / "mosquitto.conf"
        self._conf.write_text(
            f"listener {self.port} {HOST}\nallow_anonymous true\npersistence false\n"
            "log_dest stderr\nlog_type error\nlog_type warning\n",
            encoding="utf-8",
        )
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://{HOST}:{self.port}"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self, timeout: float = 10.0) -> int:
        if self.running:
            return self.port
        self._proc = subprocess.Popen(
            [self.executable, "-c", str(self._conf)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # Its own process group: a terminal's Ctrl-C reaches only us, and we stop the broker last.
            start_new_session=True,
        )
        try:
            wait_for_port(self.port, timeout)
        except TimeoutError:
            self.kill()
            raise
        return self.port

    def kill(self) -> None:
        """Stop at once (SIGKILL): clients see the connection drop."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)

    def restart(self) -> int:
        self.stop()
        return self.start()

    def close(self) -> None:
        self.stop()
        self._dir.cleanup()


def literal_head(topic_filter: str) -> str:
    """The part of an MQTT topic filter before its first wildcard: every matching topic starts with it."""
    cut = min(
        (i for i in (topic_filter.find("+"), topic_filter.find("#")) if i >= 0), default=len(topic_filter)
    )
    return topic_filter[:cut]


class _SubscriptionTable(dict[str, list[tuple[Any, int]]]):
    """amqtt's subscription table (filter → [(session, qos)]) iterated over snapshots; `items()`, which
    only the broadcast loop uses, lists a session under the first filter that matches `topic` only."""

    def __init__(self, table: dict[str, list[tuple[Any, int]]], matches: Any) -> None:
        super().__init__(table)
        self.topic: str | None = None
        self._matches = matches

    def __iter__(self) -> Any:
        return iter(list(super().__iter__()))

    def items(self) -> Any:
        seen: set[int] = set()
        snapshot = []
        for topic_filter, subscriptions in list(super().items()):
            if self.topic is not None and self._matches(self.topic, topic_filter):
                subscriptions = [(s, q) for s, q in subscriptions if id(s) not in seen]
                seen.update(id(s) for s, _q in subscriptions)
            snapshot.append((topic_filter, list(subscriptions)))
        return snapshot


class EmbeddedBroker:
    """amqtt in a daemon thread with its own asyncio loop. `start()` returns the port."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._broker: Any = None
        self._started = threading.Event()
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        return f"mqtt://{HOST}:{self.port}"

    def start(self, timeout: float = 10.0) -> int:
        for name in ("amqtt", "transitions", "passlib"):
            logging.getLogger(name).setLevel(logging.CRITICAL)  # "No data from client" on every disconnect
        self._thread = threading.Thread(target=self._run, name="zwave-embedded-broker", daemon=True)
        self._thread.start()
        if not self._started.wait(timeout):
            raise TimeoutError("embedded MQTT broker did not start")
        if self._error is not None:
            raise RuntimeError(f"embedded MQTT broker failed: {self._error}") from self._error
        wait_for_port(self.port, timeout)
        return self.port

    def _run(self) -> None:
        from amqtt.broker import Broker

        class _Broker(Broker):
            """amqtt 0.12 with three departures from MQTT 3.1.1 (and Mosquitto) put right:

            - every connecting client got the retained messages of every filter that *any* client had
              subscribed to; only its own subscriptions deserve them;
            - a client with overlapping subscriptions (zwave-js-ui has `api/#` and `+/+/+/+/set`) got one
              copy of a message per matching filter; it gets one;
            - the subscription table was iterated across awaits, so a client subscribing meanwhile raised
              "dictionary changed size during iteration"; iterations now go over a snapshot;
            - every SUBSCRIBE matched its filter against every retained message of the broker's life (with
              a debug line formatted per message, logging on or off): over a long test session that grew to
              seconds per SUBSCRIBE; only the retained topics under the filter's literal head are matched.
            """

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                table = _SubscriptionTable(getattr(self, "_subscriptions"), self._matches)  # noqa: B009
                setattr(self, "_subscriptions", table)  # noqa: B010
                queued = self._broadcast_queue.get

                async def next_broadcast() -> Any:
                    message = await queued()
                    table.topic = message.get("topic")  # what the broadcast loop iterates the table for
                    return message

                self._broadcast_queue.get = next_broadcast

            async def _publish_retained_messages_for_subscription(
                self, subscription: tuple[str, int], session: Any
            ) -> None:
                topic_filter, qos = subscription
                subscribers = getattr(self, "_subscriptions").get(topic_filter, ())  # noqa: B009
                handler = self._get_handler(session)
                if handler is None or not any(subscriber is session for subscriber, _qos in subscribers):
                    return
                head = literal_head(topic_filter)
                sends = [
                    asyncio.ensure_future(
                        handler.mqtt_publish(kept.topic, kept.data, min(qos, kept.qos or qos), retain=True)
                    )
                    for topic, kept in list(self._retained_messages.items())
                    if topic.startswith(head) and self._matches(topic, topic_filter)
                ]
                if sends:
                    await asyncio.wait(sends)

        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        config = {
            "listeners": {"default": {"type": "tcp", "bind": f"{HOST}:{self.port}"}},
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
        }
        try:
            self._broker = _Broker(config, loop=loop)
            loop.run_until_complete(self._broker.start())
        except BaseException as exc:
            self._error = exc
            self._started.set()
            return
        self._started.set()
        loop.run_forever()
        with contextlib.suppress(Exception):
            loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()

    def forget_retained(self) -> None:
        """Drop every retained message, as a fresh broker would have none (the tests' broker lives for the
        whole session, and a `#` subscriber is otherwise handed every retained message of every test)."""
        loop, broker = self._loop, self._broker
        if loop is None or broker is None or not loop.is_running():
            return

        async def clear() -> None:
            broker._retained_messages.clear()

        asyncio.run_coroutine_threadsafe(clear(), loop).result(timeout=5)

    def stop(self) -> None:
        loop, broker = self._loop, self._broker
        if loop is None or broker is None or not loop.is_running():
            return
        future = asyncio.run_coroutine_threadsafe(broker.shutdown(), loop)
        with contextlib.suppress(Exception):
            future.result(timeout=5)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._broker = None

    close = stop  # as `MosquittoBroker.close`: nothing is left to clean up
