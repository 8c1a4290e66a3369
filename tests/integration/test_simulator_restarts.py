"""The simulator restarts as the real zwave-js-ui does (captures README, "Observed later on the real
gateway"), on its own trigger topic and on signals to `zwave-mcp simulate`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from typing import Any

import paho.mqtt.publish as publish
import pytest

from zwave_mcp.simulator import SimConfig, Simulator
from zwave_mcp.simulator.settings import FAST

GW = "_CLIENTS/ZWAVE_GATEWAY-zwave-js-ui"
SLOW_NODES = replace(FAST, driver_ready=0.2, nodes_ready=1.5, restart_downtime=0.1)


def _api(sim: Simulator, collector: Any, name: str, args: list[Any] | None = None) -> dict[str, Any]:
    base = f"{sim.config.prefix}/{GW}/api/{name}"
    sub = collector(base)
    publish.single(base + "/set", json.dumps({"args": args or []}), qos=1, hostname=sim.host, port=sim.port)
    reply: dict[str, Any] = sub.wait_topic(base).json()
    return reply


def test_apis_answer_not_connected_until_the_driver_is_ready(simulator_factory, collector) -> None:
    sim = simulator_factory(SimConfig.fast(timing=replace(SLOW_NODES, driver_ready=2.0)), start=False)
    status = collector(f"{sim.config.prefix}/{GW}/status")
    sim.start(wait=False)
    # Published after it subscribed to its API topics (one connection keeps its order).
    status.wait_for(lambda m: m.json().get("value") is True, what="the simulator online")
    reply = _api(sim, collector, "getNodes")
    assert reply["success"] is False and reply["message"] == "Z-Wave client not connected"


def test_get_nodes_lists_the_nodes_empty_until_they_are_ready(simulator_factory, collector) -> None:
    sim = simulator_factory(SimConfig.fast(timing=SLOW_NODES), start=False)
    p = sim.config.prefix
    sub = collector(f"{p}/driver/status")
    sim.start(wait=False)
    sub.wait_for(lambda m: m.payload == "true", what="driver/status true")
    early = _api(sim, collector, "getNodes")["result"]
    real = [n for n in early if not n.get("virtual")]
    assert real and all(
        n["ready"] is False and n["status"] == "Unknown" and n["values"] == {} for n in real
    ), "in the window every node is listed not ready, Unknown, without values"
    assert sim.ready.wait(5)
    late = _api(sim, collector, "getNodes")["result"]
    light = next(n for n in late if n["id"] == 2)
    assert light["ready"] is True and light["status"] == "Alive" and light["values"]


def test_get_info_says_driver_ready_until_the_nodes_are_ready(simulator_factory, collector) -> None:
    """The real zwave-js-ui 11.22.2 after a restart: getInfo's `status`/`cntStatus` are "driver ready"/
    "Driver ready" while getNodes lists nodes without values, "scan done"/"Scan completed" once all are ready."""
    sim = simulator_factory(SimConfig.fast(timing=SLOW_NODES), start=False)
    sub = collector(f"{sim.config.prefix}/driver/status")
    sim.start(wait=False)
    sub.wait_for(lambda m: m.payload == "true", what="driver/status true")
    early = _api(sim, collector, "getInfo")["result"]
    assert (early["status"], early["cntStatus"]) == ("driver ready", "Driver ready")
    assert sim.ready.wait(5)
    late = _api(sim, collector, "getInfo")["result"]
    assert (late["status"], late["cntStatus"]) == ("scan done", "Scan completed")


def test_crash_restart_by_topic_leaves_a_stale_driver_status(simulator_factory, collector) -> None:
    sim = simulator_factory(SimConfig.fast(timing=replace(SLOW_NODES, driver_ready=2.0)))
    p = sim.config.prefix
    status = collector(f"{p}/{GW}/status")
    status.wait_for(lambda m: m.json().get("value") is True)
    publish.single(sim.restart_topic, "crash", qos=1, hostname=sim.host, port=sim.port)
    status.wait_for(lambda m: m.json() == {"value": False}, what="the last will")
    status.clear()
    status.wait_for(lambda m: m.json().get("value") is True, timeout=5, what="back online")
    # A client subscribing now, before the new driver is ready, finds the old driver/status true.
    assert not sim.driver_up
    late = collector(f"{p}/driver/status")
    stale = late.wait_topic(f"{p}/driver/status")
    assert stale.retain and stale.payload == "true"
    assert _api(sim, collector, "getInfo")["message"] == "Z-Wave client not connected"


def test_graceful_restart_by_topic(simulator_factory, collector) -> None:
    sim = simulator_factory(SimConfig.fast(timing=SLOW_NODES))
    p = sim.config.prefix
    sub = collector(f"{p}/#")
    publish.single(sim.restart_topic, "graceful", qos=1, hostname=sim.host, port=sim.port)
    sub.wait_for(lambda m: m.topic == f"{p}/driver/status" and m.payload == "false", what="driver stopped")
    sub.wait_for(lambda m: m.topic.endswith("driver/all_nodes_ready"), timeout=10, what="ready again")
    statuses = [m.json() for m in sub.snapshot() if m.topic == f"{p}/{GW}/status"]
    assert statuses and all(s.get("value") is True for s in statuses), "a graceful stop leaves no will"


@pytest.mark.mosquitto_only  # the broker is killed and started again on its port
def test_broker_restart_gets_only_client_status_and_version_back(
    mosquitto: Any, simulator_factory, collector
) -> None:
    sim = simulator_factory(start=False)
    events = collector(f"{sim.config.prefix}/_EVENTS/#")
    sim.start()
    events.wait_for(lambda m: m.topic.endswith("all_nodes_ready"), what="all published")  # none in flight
    mosquitto.restart()
    deadline = time.monotonic() + 10
    while not sim.online:
        assert time.monotonic() < deadline, "the simulator did not reconnect"
        time.sleep(0.02)
    p = sim.config.prefix
    sub = collector(f"{p}/#")
    # Both come back, however long the machine takes to republish them (retained, or live if later) ...
    for topic in (f"{p}/{GW}/status", f"{p}/{GW}/version"):
        sub.wait_topic(topic, timeout=10)
    time.sleep(0.5)  # ... and nothing else follows them
    assert {m.topic for m in sub.snapshot()} == {f"{p}/{GW}/status", f"{p}/{GW}/version"}


def test_scene_timeouts_are_seconds(simulator_factory, collector) -> None:
    sim = simulator_factory()  # FAST: scene delays scaled by 0.02, so 10 s → 0.2 s
    p = sim.config.prefix
    _api(sim, collector, "_createScene", ["Later"])
    vid = {"nodeId": 2, "commandClass": 37, "endpoint": 0, "property": "targetValue"}
    _api(sim, collector, "_addSceneValue", [1, vid, True, 10])
    values = collector(f"{p}/Kitchen/Kitchen_Light/switch_binary/endpoint_0/currentValue")
    started = time.monotonic()
    _api(sim, collector, "_activateScene", [1])
    values.wait_for(lambda m: m.json().get("value") is True, timeout=3, what="the scene's write")
    assert time.monotonic() - started >= 0.18, "a timeout of 10 is ten seconds (scaled), not 10 ms"


def test_simulate_restarts_on_signals(mosquitto: Any, collector) -> None:
    prefix = f"t_simulate_signals_{os.getpid()}"
    status = collector(f"{prefix}/{GW}/status")
    drivers = collector(f"{prefix}/driver/status")
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "zwave_mcp", "simulate", "--broker", mosquitto.url, "--prefix", prefix),
            *("--fast", "--quiet-devices", "--restart-downtime", "0.1"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        drivers.wait_for(lambda m: m.payload == "true", timeout=15, what="simulate ready")
        status.clear()
        drivers.clear()
        proc.send_signal(signal.SIGUSR2)  # crash: the broker publishes the will, then it comes back
        status.wait_for(lambda m: m.json() == {"value": False}, timeout=5, what="the last will")
        status.wait_for(lambda m: m.json().get("value") is True, timeout=5, what="online after the crash")
        drivers.wait_for(lambda m: m.payload == "true", timeout=5, what="driver ready after the crash")
        drivers.clear()
        proc.send_signal(signal.SIGUSR1)  # graceful: driver/status false, then true again
        drivers.wait_for(lambda m: m.payload == "false", timeout=5, what="driver stopped")
        drivers.wait_for(lambda m: m.payload == "true", timeout=5, what="driver ready again")
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    assert out == "", "simulate writes nothing to stdout"
    assert "simulator restart (crash)" in err and "simulator restart (graceful)" in err


def test_simulate_help_documents_the_restarts() -> None:
    from zwave_mcp.commands.simulate import build_parser

    text = build_parser().format_help()
    for words in (
        "kill -USR1",
        "kill -USR2",
        "_SIMULATOR/<name>/restart/set",
        "--restart-downtime",
        "--node-ready-gap",
    ):
        assert words in text, words
