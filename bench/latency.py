"""2. Call latency: zwave-mcp over stdio against a bare `MCPServer` with one tool and a raw paho client.

zwave-mcp runs as an MCP client starts it (`python -m zwave_mcp`, its default log level) and is spoken to
over stdio in raw JSON-RPC lines. Every side has the least client a Python program can have for one
request and its answer: the raw client blocks on a `threading.Event` set by paho's network thread, and
the stdio clients (`bench.common.PipeClient`) block on the pipe. So a figure is the server plus the pipe,
not a client's own cost. zwave-mcp and the raw client talk through the same Mosquitto to the same
simulator process, subscribe to the same `<prefix>/#`, set TCP_NODELAY; all sides alternate in blocks.

"Our own part" (issue 34): what a call costs above a bare `MCPServer` with one tool (`bench.hello_server`
on the SDK's own stdio transport), measured in the same run:
- a read (`get_device_state`, answered from the live picture): ours - hello;
- a write (`control_zwave_device`, `confirm_timeout` 0, so the gate answers with what zwave-js said):
  ours - raw `writeValue` round trip - hello.
Both also in the server process's CPU per call (ours - hello's; /proc/<pid>/stat over the same blocks),
which a loaded machine moves much less than the times: there every hop between processes waits for a core.
With confirmation on, the switch is read back once with `pollValue` (the gate never trusts the optimistic
echo), so a call is two round trips; it is set against the raw client's `writeValue` + `pollValue`.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from bench.common import (
    PipeClient,
    Row,
    SimProcess,
    bench_settings,
    mosquitto,
    p50,
    p99,
    say,
    server_env,
)
from zwave_mcp.devices.build import build_devices
from zwave_mcp.devices.control import plan_control
from zwave_mcp.gateway.client import ZwaveGateway

DEVICE = "Kitchen Light"
PREFIX = "benchlat"


class RawApi:
    """A bare paho request/reply client for zwave-js-ui's API (one call in flight)."""

    def __init__(self, port: int, prefix: str, gateway_name: str = "zwave-js-ui") -> None:
        self.base = f"{prefix}/_CLIENTS/ZWAVE_GATEWAY-{gateway_name}/api/"
        self.client = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
        self.client.on_socket_open = lambda _c, _u, sock: sock.setsockopt(
            socket.IPPROTO_TCP, socket.TCP_NODELAY, 1
        )
        self.client.on_message = self._on_message
        self._replied = threading.Event()
        self._reply: dict[str, Any] = {}
        self._waiting = ""
        self._subscribed = threading.Event()
        self.client.on_subscribe = lambda *_a: self._subscribed.set()
        self.client.connect("127.0.0.1", port)
        self.client.subscribe(f"{prefix}/#")  # what zwave-mcp subscribes to
        self.client.loop_start()
        if not self._subscribed.wait(10):
            raise RuntimeError("raw paho client: no SUBACK")
        self._token = uuid.uuid4().hex[:12]
        self._n = 0

    def _on_message(self, _c: Any, _u: Any, msg: paho.MQTTMessage) -> None:
        if msg.topic == self._waiting:
            reply = json.loads(msg.payload)
            if reply.get("origin", {}).get("zwaveMcpId") == f"{self._token}-{self._n}":
                self._reply = reply
                self._replied.set()

    def call(self, api: str, *args: Any) -> dict[str, Any]:
        self._n += 1
        self._replied.clear()
        self._waiting = self.base + api
        payload = json.dumps(
            {"args": list(args), "zwaveMcpId": f"{self._token}-{self._n}"}, separators=(",", ":")
        )
        self.client.publish(self._waiting + "/set", payload, qos=0)
        if not self._replied.wait(10):
            raise RuntimeError(f"raw paho client: no reply to {api}")
        return self._reply

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _raw_block(raw: RawApi, vid: dict[str, Any], n: int, start: int, poll: bool) -> list[float]:
    times = []
    for i in range(start, start + n):
        t = time.perf_counter()
        reply = raw.call("writeValue", vid, i % 2 == 0)
        if reply.get("result", {}).get("status") not in (254, 255):
            raise RuntimeError(f"raw writeValue failed: {reply}")
        if poll:
            raw.call("pollValue", vid | {"property": "currentValue"})
        times.append((time.perf_counter() - t) * 1000)
    return times


def _ours_block(server: PipeClient, n: int, start: int) -> tuple[list[float], dict[str, int]]:
    times = []
    outcomes: dict[str, int] = {}
    for i in range(start, start + n):
        t = time.perf_counter()
        result = server.call_tool("control_zwave_device", _switching(i))
        times.append((time.perf_counter() - t) * 1000)
        _tally(result, outcomes)
    return times, outcomes


def _switching(i: int) -> dict[str, Any]:
    return {"deviceName": DEVICE, "action": ("on", "off")[i % 2]}


def _tally(result: dict[str, Any], outcomes: dict[str, int]) -> None:
    """Count the call's outcome; a failed call ends the measurement."""
    if result.get("isError"):
        raise RuntimeError(f"control_zwave_device failed: {result.get('content')}")
    outcome = (result.get("structuredContent") or {}).get("result", {}) or {}
    key = str(outcome.get("outcome", "error"))
    outcomes[key] = outcomes.get(key, 0) + 1


async def _switch_value_id(port: int) -> dict[str, Any]:
    """The value id the tool writes, read from the simulator's inventory by a gateway of our own."""
    gateway = ZwaveGateway(bench_settings(port, PREFIX))
    gateway.start()
    try:
        if not await gateway.wait_ready(60):
            raise RuntimeError("the simulator's inventory did not load")
        device = next(d for d in build_devices(gateway.nodes.values()) if d.name == DEVICE)
        return plan_control(device, "on").writes[0].value.api_value_id()
    finally:
        await gateway.stop()


def _read_block(server: PipeClient, n: int) -> list[float]:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        result = server.call_tool("get_device_state", {"deviceName": DEVICE})
        times.append((time.perf_counter() - t) * 1000)
        if result.get("isError"):
            raise RuntimeError(f"get_device_state failed: {result.get('content')}")
    return times


def _cpu_ms(client: PipeClient) -> float:
    """The CPU its server process has used so far (user and system, all its threads), in ms."""
    assert client.proc is not None
    fields = Path(f"/proc/{client.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def _measure(
    port: int, confirm_timeout: float, calls: int, block: int, parts: bool = False
) -> dict[str, Any]:
    """Alternating blocks of our write and the raw round trips; with `parts`, also of our read and the
    bare MCPServer's hello (the baselines of our own part)."""
    samples: dict[str, list[float]] = {"ours": [], "raw1": [], "raw2": [], "read": [], "hello": []}
    cpu = {"ours": 0.0, "read": 0.0, "hello": 0.0}  # the server process's CPU over the blocks, ms
    outcomes: dict[str, int] = {}
    vid = asyncio.run(_switch_value_id(port))
    client = PipeClient(server_env(port, PREFIX, ZWAVE_MCP_CONFIRM_TIMEOUT=str(confirm_timeout))).start()
    hello = PipeClient({}, "bench.hello_server").start() if parts else None
    try:
        client.wait_loaded()
        raw = RawApi(port, PREFIX)
        try:
            _ours_block(client, 20, 0)  # warm-up: first calls build indexes and caches
            _raw_block(raw, vid, 20, 0, True)
            if hello is not None:
                _read_block(client, 20)
                _hello_block(hello, 20)
            for start in range(0, calls, block):
                used = _cpu_ms(client)
                got, seen = _ours_block(client, block, start)
                cpu["ours"] += _cpu_ms(client) - used
                samples["ours"] += got
                for k, v in seen.items():
                    outcomes[k] = outcomes.get(k, 0) + v
                samples["raw1"] += _raw_block(raw, vid, block, start, False)
                samples["raw2"] += _raw_block(raw, vid, block, start, True)
                if hello is not None:
                    used = _cpu_ms(client)
                    samples["read"] += _read_block(client, block)
                    cpu["read"] += _cpu_ms(client) - used
                    used = _cpu_ms(hello)
                    samples["hello"] += _hello_block(hello, block)
                    cpu["hello"] += _cpu_ms(hello) - used
        finally:
            raw.close()
    finally:
        client.close()
        if hello is not None:
            hello.close()
    return {"samples": samples, "outcomes": outcomes, "cpu": cpu}


def _outcomes(result: dict[str, Any]) -> str:
    return "outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(result["outcomes"].items()))


def _off_rows(label: str, result: dict[str, Any]) -> list[Row]:
    s = result["samples"]
    o50, r50 = p50(s["ours"]), p50(s["raw1"])
    return [
        Row(
            "2 latency",
            f"{label}: confirm off, p50 (n={len(s['ours'])})",
            o50,
            r50,
            "ms",
            "+≤ 1 ms",
            o50 - r50 <= 1.0,
            f"over stdio vs raw writeValue: +{o50 - r50:.2f} ms; {_outcomes(result)}",
        ),
        Row("2 latency", f"{label}: confirm off, p99", p99(s["ours"]), p99(s["raw1"]), "ms"),
    ]


def _own_part_rows(result: dict[str, Any]) -> list[Row]:
    s = result["samples"]
    cpu_ms = {key: used / max(1, len(s[key])) for key, used in result["cpu"].items()}
    hello, read, write, raw = p50(s["hello"]), p50(s["read"]), p50(s["ours"]), p50(s["raw1"])
    read_part, write_part = read - hello, write - raw - hello
    return [
        Row(
            "2 latency",
            f"our own part, a read: get_device_state - bare MCPServer hello, p50 (n={len(s['read'])})",
            read_part,
            None,
            "ms",
            "≤ 1 ms",
            read_part <= 1.0,
            f"read {read:.3f} ms, hello {hello:.3f} ms (p99 {p99(s['read']):.3f} / {p99(s['hello']):.3f})",
        ),
        Row(
            "2 latency",
            f"our own part, a write: control_zwave_device - raw writeValue - hello, p50 (n={len(s['ours'])})",
            write_part,
            None,
            "ms",
            "≤ 1 ms",
            write_part <= 1.0,
            f"write {write:.3f} ms, raw writeValue {raw:.3f} ms, hello {hello:.3f} ms; confirm off; "
            + _outcomes(result),
        ),
        *(
            Row(
                "2 latency",
                f"our own part in server CPU, {what}: ours - bare MCPServer hello, per call",
                cpu_ms[key] - cpu_ms["hello"],
                None,
                "ms",
                note=f"server process CPU per call {cpu_ms[key]:.3f} ms, hello's {cpu_ms['hello']:.3f} ms "
                "(user + system, all threads; the wait for the gateway costs no CPU)",
            )
            for key, what in (("read", "a read"), ("ours", "a write"))
        ),
    ]


def run(calls: int = 500, default_broker_calls: int = 150, confirmed_calls: int = 100) -> list[Row]:
    rows: list[Row] = []
    say(f"      call latency: {calls} calls each on Mosquitto with set_tcp_nodelay, zero simulator delays")
    with mosquitto(nodelay=True) as port:
        with SimProcess(port, "captured", PREFIX, scale=0.0):
            off = _measure(port, 0.0, calls, 50, parts=True)
        rows += _own_part_rows(off) + _off_rows("nodelay broker", off)
        # Confirmation on, with the recorded delays scaled to 1/10: the switch answers writeValue after
        # 9.5 ms and pollValue after 11 ms, so the device's report is in ~20.5 ms after the call starts.
        say(f"      confirmation on: {confirmed_calls} calls each, simulator delays x0.1")
        with SimProcess(port, "captured", PREFIX, scale=0.1):
            on = _measure(port, 5.0, confirmed_calls, 25)
        s = on["samples"]
        o50, w50 = p50(s["ours"]), p50(s["raw2"])
        rows += [
            Row(
                "2 latency",
                f"nodelay broker: confirm on, p50 (n={len(s['ours'])})",
                o50,
                w50,
                "ms",
                "+≤ 5 ms",
                o50 - w50 <= 5.0,
                f"over stdio vs raw writeValue + pollValue: +{o50 - w50:.2f} ms; device reports after "
                f"20.5 ms; {_outcomes(on)}",
            ),
            Row("2 latency", "nodelay broker: confirm on, p99", p99(s["ours"]), p99(s["raw2"]), "ms"),
        ]
    say(f"      default Mosquitto: {default_broker_calls} calls each (every round trip waits ~44 ms there)")
    with mosquitto() as port, SimProcess(port, "captured", PREFIX, scale=0.0):
        rows += _off_rows("default broker", _measure(port, 0.0, default_broker_calls, 50))
    say(f"      the SDK's floor: {calls} no-op tool calls each, bare MCPServer and a JSON-RPC echo")
    floor = _sdk_floor(calls, 50)
    sdk, echo, sdk_stdio = p50(floor["sdk"]), p50(floor["echo"]), p50(floor["sdk transport"])
    rows.append(
        Row(
            "2 latency",
            f"the SDK's floor: a no-op tool call, p50 (n={len(floor['sdk'])})",
            sdk,
            echo,
            "ms",
            note=f"a bare MCPServer's one-line tool on our stdio transport vs a JSON-RPC echo with no SDK: "
            f"+{sdk - echo:.2f} ms is the SDK's own, in every call (on the SDK's stdio transport "
            f"{sdk_stdio:.3f} ms)",
        )
    )
    return rows


def _sdk_floor(calls: int, block: int) -> dict[str, list[float]]:
    """What a tools/call costs the MCP SDK itself: `bench.hello_server` against `bench.echo_server`,
    spoken to by the same client over the same kind of pipes, in alternating blocks."""
    peers = {
        "sdk": PipeClient({}, "bench.hello_server", "--zwave-stdio").start(),
        "sdk transport": PipeClient({}, "bench.hello_server").start(),
        "echo": PipeClient({}, "bench.echo_server").start(),
    }
    samples: dict[str, list[float]] = {name: [] for name in peers}
    try:
        for peer in peers.values():
            _hello_block(peer, 20)  # warm-up
        for _ in range(0, calls, block):
            for name, peer in peers.items():
                samples[name] += _hello_block(peer, block)
    finally:
        for peer in peers.values():
            peer.close()
    return samples


def _hello_block(peer: PipeClient, n: int) -> list[float]:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        result = peer.call_tool("hello", {"name": "world"})
        times.append((time.perf_counter() - t) * 1000)
        if result.get("isError"):
            raise RuntimeError(f"hello failed: {result.get('content')}")
    return times
