"""Shared fixtures: a Mosquitto broker for the session, simulators on it, and a message collector.

Fixtures
--------
``mosquitto`` (session)
    A broker on a free 127.0.0.1 port: ``MosquittoBroker`` (``.host``, ``.port``, ``.url``, ``.kill()``,
    ``.start()``, ``.restart()`` — use ``restart``/``kill`` only in tests that own the outage, and call
    ``start()`` again before returning). If Mosquitto is not installed: the tests fail when ``CI=true``;
    otherwise they fall back on the embedded amqtt broker (MQTT 3.1.1 only, no restart) with a warning.
    ``ZWAVE_TEST_BROKER=amqtt`` picks the embedded broker on purpose (CI runs the integration and e2e
    tests that way too); tests marked ``mosquitto_only`` (Mosquitto's own behaviour: MQTT 5,
    retain-as-published, the captures' recorder view) are skipped there, and tests that stop the broker
    skip themselves (``is_mosquitto``).

``simulator_factory`` (function)
    ``simulator_factory(config=None, house=None, start=True, **overrides) -> Simulator``. Starts a
    zwave-js-ui simulator on ``mosquitto`` with ``SimConfig.fast()`` (near-zero delays, no periodic
    behaviour) unless ``config`` is given; ``overrides`` are ``SimConfig`` fields (``topics="valueid"``,
    ``payload="raw"``, ``timing=RECORDED`` …). Every simulator gets a **prefix unique to the test**
    (``t_<test name>_<n>``) unless you pass ``prefix=``, so retained messages never leak between tests on
    the shared broker. ``sim.config.prefix`` tells you which it got. All are stopped after the test.

``collector`` (function)
    ``collector(topic_filter) -> MessageCollector``: a paho subscriber (MQTT v5 with
    retain-as-published on Mosquitto, like the captures' recorder) that records every message as
    ``Received(topic, payload: str, retain, qos, at)``. ``wait_for(predicate, timeout)`` returns the first
    matching message or fails the test with what arrived; ``json_on(topic)`` decodes the last payload.
    Disconnected after the test.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.subscribeoptions import SubscribeOptions

from zwave_mcp.simulator import SimConfig, Simulator
from zwave_mcp.simulator.broker import EmbeddedBroker, MosquittoBroker, find_mosquitto

# Servers built in tests keep their history under a temporary state directory, never the user's real one
# (the default store lives in the platform's user state directory; on Linux that follows XDG_STATE_HOME,
# and child processes that inherit the environment follow it too).
os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="zwave-mcp-test-state-")
# Likewise the cache (what libraries keep there, such as matplotlib).
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="zwave-mcp-test-cache-")
# Both go when the session ends (pytest_unconfigure), after every server subprocess has stopped.
SESSION_DIRS = (os.environ["XDG_STATE_HOME"], os.environ["XDG_CACHE_HOME"])


@dataclass
class BrokerHandle:
    host: str
    port: int
    url: str
    is_mosquitto: bool
    broker: Any

    def kill(self) -> None:
        self.broker.kill()

    def start(self) -> None:
        self.broker.start()

    def restart(self) -> None:
        self.broker.restart()

    def forget_retained(self) -> None:
        """Between tests on the embedded broker: a `#` subscriber there is handed every retained message
        of the session at QoS 1, which over a long session took longer than a test's waits (Mosquitto is
        fast enough that its tests keep the real behaviour)."""
        if not self.is_mosquitto:
            self.broker.forget_retained()


# `ZWAVE_TEST_BROKER=amqtt` runs the suite on the embedded amqtt broker even where Mosquitto is
# installed (CI does, so the fallback the Makefile promises is tested); `mosquitto` (or unset) prefers it.
TEST_BROKER_ENV = "ZWAVE_TEST_BROKER"


def wanted_broker() -> str:
    wanted = os.environ.get(TEST_BROKER_ENV, "mosquitto").strip().lower() or "mosquitto"
    if wanted not in ("mosquitto", "amqtt"):
        raise pytest.UsageError(f"{TEST_BROKER_ENV}={wanted!r}: use mosquitto or amqtt")
    return wanted


def on_embedded_broker() -> bool:
    """The session's broker is the embedded amqtt one (asked for, or Mosquitto is missing)."""
    return wanted_broker() == "amqtt" or find_mosquitto() is None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "mosquitto_only: checks Mosquitto's own behaviour (MQTT 5, retain-as-published, the recorder's view "
        "of the captures); skipped on the embedded amqtt broker",
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    for folder in SESSION_DIRS:
        shutil.rmtree(folder, ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not on_embedded_broker():
        return
    skip = pytest.mark.skip(reason="needs Mosquitto's own behaviour; the session runs on amqtt")
    for item in items:
        if item.get_closest_marker("mosquitto_only"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def mosquitto() -> Iterator[BrokerHandle]:
    forced = wanted_broker() == "amqtt"
    if forced or find_mosquitto() is None:
        if not forced and os.environ.get("CI", "").lower() == "true":
            pytest.fail("mosquitto is not installed: integration tests need it in CI")
        if not forced:
            warnings.warn("mosquitto not found: falling back on the embedded amqtt broker", stacklevel=1)
        embedded = EmbeddedBroker()
        port = embedded.start()
        yield BrokerHandle("127.0.0.1", port, embedded.url, False, embedded)
        embedded.stop()
        return
    broker = MosquittoBroker()
    broker.start()
    yield BrokerHandle("127.0.0.1", broker.port, broker.url, True, broker)
    broker.close()


def _prefix_for(request: pytest.FixtureRequest) -> str:
    # Cut long (parametrized) names, but keep them apart: two tests must never share retained messages.
    full = request.node.nodeid
    digest = hashlib.sha1(full.encode()).hexdigest()[:8]
    name = re.sub(r"[^A-Za-z0-9_]", "_", request.node.name)[:48]
    return f"t_{name}_{digest}"


@pytest.fixture
def simulator_factory(
    mosquitto: BrokerHandle, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Simulator]]:
    started: list[Simulator] = []
    base_prefix = _prefix_for(request)
    config_fields = {f.name for f in fields(SimConfig)}

    def factory(
        config: SimConfig | None = None, house: Any = None, start: bool = True, **overrides: Any
    ) -> Simulator:
        unknown = set(overrides) - config_fields
        if unknown:
            raise TypeError(f"unknown SimConfig fields: {sorted(unknown)}")
        cfg = config or SimConfig.fast()
        for key, value in overrides.items():
            setattr(cfg, key, value)
        if "prefix" not in overrides and (config is None or config.prefix == "zwave"):
            cfg.prefix = f"{base_prefix}_{len(started)}"
        sim = Simulator(mosquitto.host, mosquitto.port, house, cfg)
        started.append(sim)
        if start:
            sim.start()
        return sim

    yield factory
    for sim in started:
        try:
            sim.stop()
        finally:
            sim.scheduler.stop()
    mosquitto.forget_retained()


@dataclass
class Received:
    topic: str
    payload: str
    retain: bool
    qos: int
    at: float

    def json(self) -> Any:
        return json.loads(self.payload)


class MessageCollector:
    """Records every message on a topic filter. Thread-safe; waits are bounded and explain failures."""

    def __init__(self, host: str, port: int, topic_filter: str, v5: bool = True) -> None:
        self.topic_filter = topic_filter
        self.messages: list[Received] = []
        self._cond = threading.Condition()
        self._subscribed = threading.Event()
        protocol = mqtt.MQTTv5 if v5 else mqtt.MQTTv311
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=protocol)
        self._client.on_message = self._on_message
        self._client.on_subscribe = lambda *a: self._subscribed.set()
        self._client.connect(host, port)
        self._client.loop_start()
        if v5:
            self._client.subscribe(topic_filter, options=SubscribeOptions(qos=2, retainAsPublished=True))
        else:
            self._client.subscribe(topic_filter, qos=1)
        # A bound, reached only when the broker never answers (the embedded broker can take seconds under load).
        if not self._subscribed.wait(15):
            raise TimeoutError(f"could not subscribe to {topic_filter}")

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        item = Received(
            msg.topic, msg.payload.decode("utf-8", "replace"), bool(msg.retain), msg.qos, time.monotonic()
        )
        with self._cond:
            self.messages.append(item)
            self._cond.notify_all()

    def snapshot(self) -> list[Received]:
        with self._cond:
            return list(self.messages)

    def clear(self) -> None:
        with self._cond:
            self.messages.clear()

    def wait_for(
        self, predicate: Callable[[Received], bool], timeout: float = 15.0, what: str = "a matching message"
    ) -> Received:
        # A bound, reached only when the message never comes: a '#' subscriber on the embedded broker is
        # first handed every retained message of the session, which can take seconds.
        deadline = time.monotonic() + timeout
        seen = 0
        with self._cond:
            while True:
                for item in self.messages[seen:]:
                    if predicate(item):
                        return item
                seen = len(self.messages)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    recent = [f"{m.topic} {m.payload[:80]}" for m in self.messages[-10:]]
                    pytest.fail(f"no {what} on {self.topic_filter} within {timeout} s; last seen: {recent}")
                self._cond.wait(remaining)

    def wait_topic(self, topic: str, timeout: float = 5.0) -> Received:
        return self.wait_for(lambda m: m.topic == topic, timeout, what=f"message on {topic}")

    def json_on(self, topic: str) -> Any:
        matching = [m for m in self.snapshot() if m.topic == topic]
        assert matching, f"nothing received on {topic}"
        return matching[-1].json()

    def close(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()


@pytest.fixture
def collector(mosquitto: BrokerHandle) -> Iterator[Callable[[str], MessageCollector]]:
    made: list[MessageCollector] = []

    def factory(topic_filter: str) -> MessageCollector:
        c = MessageCollector(mosquitto.host, mosquitto.port, topic_filter, v5=mosquitto.is_mosquitto)
        made.append(c)
        return c

    yield factory
    for c in made:
        c.close()
