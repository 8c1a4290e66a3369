"""10. Memory over a long run (issue 42): RSS and history while a busy house floods the server for minutes.

A service runs for months, so what it holds must stop growing once the house is known. Set-up: Mosquitto
(TCP_NODELAY), the simulator with a generated house of 1,000 nodes in its own process, the real server as a
subprocess (`python -m zwave_mcp`, its history in a fresh file), a flooder process sending 2,000 value
messages a second (QoS 0, the house's read-only numeric values round robin, each a new value: every message
is a change to store, the worst case for history), and tool calls throughout from this process (a
confirmed switch, a state read, recent events, a device's history, the device list, health: one every
`CALL_EVERY_S`).

Printed: the server's RSS at minute 1, minute 5 and at the end (the target: the end within 10 MB of minute
5), its growth per minute after minute 5 (a least-squares line through samples every 5 s), the history
file's size per stored change against a bare SQLite table of the same rows built in the same run (the
least a store can keep), and the messages per second the server stored against the flooder's send rate.
`--minutes 60` is the hour of issue 42; the default (`--minutes 6`) is the section's short mode, and the
bench's `--quick` runs 2 minutes (RSS at minute 1 and the end only).

`--trace DIR` runs the server under `bench.traced` (tracemalloc snapshots every 60 s in DIR, then
`python -m bench.traced diff DIR 2 N`): how what grows was found. The figures of a traced run are not
the server's.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import (
    PYTHON,
    REPO,
    PipeClient,
    Row,
    SimProcess,
    child_env,
    mosquitto,
    rss_mb,
    say,
    server_env,
)
from bench.flood import SLICE_S, Flooder, _connect_packet, _publish_packet, flood_targets
from zwave_mcp.gateway.state import MAX_VALUES_ADDED

PREFIX = "benchsoak"
HOUSE = "generated:1000"
RATE = 2000.0
SAMPLE_EVERY_S = 5.0
CALL_EVERY_S = 0.5
TARGET_MB = 10.0  # issue 42: an hour's soak ends within this of its RSS at minute 5
LIGHT = "Laundry Light 1"
CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("control_zwave_device", {"deviceName": LIGHT, "action": "on"}),
    ("get_device_state", {"deviceName": LIGHT}),
    ("get_recent_events", {"minutes": 10, "limit": 50}),
    ("control_zwave_device", {"deviceName": LIGHT, "action": "off"}),
    ("get_device_history", {"deviceName": "Living Room Sensor 1"}),
    ("list_zwave_devices", {}),
    ("check_zwave_health", {}),
)


# -- the flooder (child process): packets made as they go, an hour's would not fit in memory ----------------
def stream(port: int, prefix: str, house: str, rate: float, seconds: float) -> dict[str, Any]:
    targets = [topic.encode() for _vid, topic in flood_targets(prefix, house)]
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.sendall(_connect_packet(f"bench-soak-{time.monotonic_ns()}".encode()))
    if sock.recv(4)[:1] != b"\x20":
        raise RuntimeError("the broker did not accept the flooder")
    print("connected", flush=True)
    sys.stdin.readline()  # "go"
    started = time.perf_counter()
    per_slice = max(1, round(rate * SLICE_S))
    sent = 0
    while time.perf_counter() - started < seconds:
        now_ms = int(time.time() * 1000)
        packets = []
        for i in range(sent, sent + per_slice):
            # Each round a new value for every target (1000, 1001, …): every message is a change.
            payload = b'{"time":%d,"value":%d}' % (now_ms, 1000 + i // len(targets))
            packets.append(_publish_packet(targets[i % len(targets)], payload))
        sock.sendall(b"".join(packets))
        sent += per_slice
        pause = started + sent / rate - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
    elapsed = time.perf_counter() - started
    sock.sendall(b"\xe0\x00")  # DISCONNECT
    sock.close()
    return {"sent": sent, "seconds": elapsed, "targets": len(targets)}


# -- the measurement ------------------------------------------------------------------------------------
def _history_bytes(path: str) -> int:
    return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))


def _stored_changes(path: str, since_ms: int) -> int:
    """Changes stored with a time from `since_ms` on (the flood's; not the load's snapshot)."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return int(conn.execute("SELECT count(*) FROM changes WHERE at >= ?", (since_ms,)).fetchone()[0])


def bare_store_bytes(rows: int, series: int) -> float:
    """Bytes per row of the least a store can keep of the same changes: a WITHOUT ROWID table keyed by
    (series, time) with the value as text, filled in time order as the flood fills ours (≤ 1,000,000 rows)."""
    rows = max(1, min(rows, 1_000_000))
    with tempfile.TemporaryDirectory(prefix="zwave-mcp-bench-bare-") as folder:
        path = Path(folder) / "bare.sqlite3"
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(
            "CREATE TABLE c(series INTEGER, at INTEGER, new TEXT, PRIMARY KEY(series, at)) WITHOUT ROWID"
        )
        start = int(time.time() * 1000)
        batch = 1000
        for first in range(0, rows, batch):
            conn.executemany(
                "INSERT INTO c VALUES(?, ?, ?)",
                [
                    (i % series + 1, start + i // 2, str(1000 + i // series))
                    for i in range(first, min(rows, first + batch))
                ],
            )
            conn.commit()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
        return path.stat().st_size / rows


def _slope(samples: list[tuple[float, float]]) -> float:
    """MB per minute of the least-squares line through (seconds, MB)."""
    if len(samples) < 2:
        return float("nan")
    n = len(samples)
    mx = sum(t for t, _ in samples) / n
    my = sum(m for _, m in samples) / n
    var = sum((t - mx) ** 2 for t, _ in samples)
    return sum((t - mx) * (m - my) for t, m in samples) / var * 60 if var else float("nan")


def _at(samples: list[tuple[float, float]], second: float) -> float:
    """The sample nearest to `second`."""
    return min(samples, key=lambda s: abs(s[0] - second))[1]


def measure(
    minutes: float, rate: float = RATE, house: str = HOUSE, trace: str | None = None
) -> dict[str, Any]:
    seconds = minutes * 60
    with mosquitto(nodelay=True) as port, SimProcess(port, house, PREFIX, scale=0.0):
        env = server_env(port, PREFIX)
        history = env["ZWAVE_MCP_HISTORY_PATH"]
        client = PipeClient(env, "bench.traced", trace, "60") if trace else PipeClient(env)
        client.start()
        try:
            client.wait_loaded(180)
            assert client.proc is not None
            pid = client.proc.pid
            flooder = Flooder("bench.soak", "flood", port, PREFIX, house, rate, seconds)
            loaded_rss = rss_mb(pid)
            samples: list[tuple[float, float]] = []
            sizes: list[tuple[float, int]] = []
            calls = errors = 0
            flood_ms = int(time.time() * 1000)
            flooder.go()
            started = next_sample = time.monotonic()
            while (elapsed := time.monotonic() - started) < seconds:
                if time.monotonic() >= next_sample:
                    samples.append((elapsed, rss_mb(pid)))
                    sizes.append((elapsed, _history_bytes(history)))
                    next_sample += SAMPLE_EVERY_S
                    if len(samples) % 12 == 0:
                        say(
                            f"      minute {elapsed / 60:.0f}: RSS {samples[-1][1]:.1f} MB, history {sizes[-1][1] / 1e6:.0f} MB"
                        )
                name, arguments = CALLS[calls % len(CALLS)]
                try:
                    result = client.call_tool(name, arguments)
                    errors += bool(result.get("isError"))
                except RuntimeError:
                    errors += 1
                calls += 1
                time.sleep(CALL_EVERY_S)
            sent = flooder.result()
            time.sleep(2)  # the writer's last batches
            samples.append((time.monotonic() - started, rss_mb(pid)))
            end_history = _history_bytes(history)
        finally:
            client.close()
    stored = _stored_changes(history, flood_ms)
    return {
        "minutes": minutes,
        "loaded_rss": loaded_rss,
        "samples": samples,
        "sizes": sizes,
        "history_bytes": end_history,
        "stored": stored,
        "sent": sent,
        "calls": calls,
        "errors": errors,
    }


def rows_of(r: dict[str, Any], bare_per_row: float) -> list[Row]:
    samples = r["samples"]
    seconds = r["sent"]["seconds"]
    end = samples[-1][1]
    m1 = _at(samples, 60)
    m5 = _at(samples, 300) if seconds >= 300 else None
    after5 = [s for s in samples if s[0] >= 300] if m5 is not None else samples
    label = f"{r['minutes']:g} min, 1,000 nodes, {r['sent']['sent'] / seconds:,.0f} msg/s"
    stored_rate = r["stored"] / seconds
    out = [
        Row(
            "11 soak",
            f"{label}: RSS at minute 1",
            m1,
            r["loaded_rss"],
            "MB",
            note="baseline: the server's RSS once the house was loaded, before the flood",
        )
    ]
    if m5 is not None:
        out.append(
            Row("11 soak", f"{label}: RSS at minute 5", m5, m1, "MB", note="baseline: RSS at minute 1")
        )
    base = m5 if m5 is not None else m1
    out += [
        Row(
            "11 soak",
            f"{label}: RSS at the end",
            end,
            base,
            "MB",
            f"≤ +{TARGET_MB:g} MB",
            end - base <= TARGET_MB,
            f"baseline: RSS at minute {5 if m5 is not None else 1}; +{end - base:.1f} MB; "
            f"{r['calls']:,} tool calls meanwhile, {r['errors']} errors",
        ),
        Row(
            "11 soak",
            f"{label}: RSS growth after minute {5 if m5 is not None else 0}",
            _slope(after5),
            None,
            "MB/min",
            note=f"least squares through {len(after5)} samples, every {SAMPLE_EVERY_S:g} s",
        ),
        Row(
            "11 soak",
            f"{label}: history size per stored change",
            r["history_bytes"] / max(1, r["stored"]),
            bare_per_row,
            "bytes",
            note=f"{r['history_bytes'] / 1e6:.0f} MB for {r['stored']:,} changes; baseline: a bare "
            "(series, time, value) WITHOUT ROWID table of as many rows",
        ),
        Row(
            "11 soak",
            f"{label}: messages stored",
            stored_rate,
            r["sent"]["sent"] / seconds,
            "msg/s",
            note="changes in the history file / flood seconds; baseline: the flooder's send rate",
        ),
    ]
    return out


def run(minutes: float = 6.0, trace: str | None = None, rate: float = RATE) -> list[Row]:
    say(f"      soak: {HOUSE}, {rate:,.0f} msg/s for {minutes:g} min, a call every {CALL_EVERY_S:g} s")
    r = measure(minutes, rate, trace=trace)
    bare = bare_store_bytes(r["stored"], r["sent"]["targets"])
    return rows_of(r, bare)


# -- made-up values (issue 44, item 10) ---------------------------------------------------------------------
ADDED_NODES = 5  # nodes the made-up values go to, round robin: 10,000 each, far beyond the bound
ADDED_VALUES = 50_000


def added_child(count: int, bound: int) -> dict[str, Any]:
    """In a fresh process: the server's gateway, device service and history writer with the 1,000-node house
    loaded, then `count` `node_value_added` events, each naming a value nobody has seen (a new property), to
    `ADDED_NODES` nodes, fed to the MQTT callback, with at most `bound` values a node taken; RSS after (the
    writer's queue written)."""
    from bench.common import bench_settings
    from zwave_mcp.gateway import state
    from zwave_mcp.gateway.client import ZwaveGateway
    from zwave_mcp.gateway.sync import release_freed_memory
    from zwave_mcp.logs import configure_logging
    from zwave_mcp.server.build import ZwaveServer
    from zwave_mcp.simulator import naming, payloads
    from zwave_mcp.simulator.house import generate_house
    from zwave_mcp.simulator.settings import SimConfig

    configure_logging("error")  # the one line a minute of dropped values is not the figure
    state.MAX_VALUES_ADDED = bound
    with tempfile.TemporaryDirectory(prefix="zwave-mcp-bench-added-") as folder:
        settings = bench_settings(1, "benchadded", history_path=str(Path(folder) / "history.sqlite3"))
        gateway = ZwaveGateway(settings)
        staged = ZwaveServer(settings, gateway)
        recorder = staged.app.history.recorder
        recorder.start()
        house = generate_house(1000)
        gateway.sync.load(json.loads(json.dumps(house)))
        _ = staged.app.devices.index
        topic = naming.events_topic(SimConfig(prefix=settings.prefix), "node", "node_value_added")
        nodes = [n for n in house if n.get("values") and not n.get("isControllerNode")][:ADDED_NODES]
        summaries = [payloads.node_summary(n) for n in nodes]
        del house
        recorder.flush(60)
        for i in range(count):
            args = {"commandClass": 49, "endpoint": 0, "property": f"Made-up {i}", "newValue": i}
            payload = payloads.dumps({"data": [summaries[i % len(summaries)], args]}).encode()
            gateway._on_message(topic, payload, False)
        recorder.flush(120)
        release_freed_memory()
        rss = rss_mb()
        values = sum(len(n.values) for n in gateway.nodes.values())
        recorder.stop()
    return {"rss": rss, "values": values}


def added_rows(count: int = ADDED_VALUES) -> list[Row]:
    """Issue 44, item 10: the made-up values' flood with the bound (ours) and without it (the baseline: as
    before the bound), each in a fresh process."""
    out = {}
    for name, bound in (("bounded", MAX_VALUES_ADDED), ("unbounded", count)):
        done = subprocess.run(
            [PYTHON, "-m", "bench.soak", "added", str(count), str(bound)],
            cwd=REPO,
            env=child_env(),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"bench.soak added failed:\n{done.stderr[-3000:]}")
        out[name] = json.loads(done.stdout.strip().splitlines()[-1])
    ours, before = out["bounded"], out["unbounded"]
    extra = before["values"] - ours["values"]
    per_value = (before["rss"] - ours["rss"]) * 1024 * 1024 / max(1, extra)
    kept = ours["values"] - (before["values"] - count)
    return [
        Row(
            "11 soak",
            f"{count:,} made-up values added to {ADDED_NODES} nodes: RSS after",
            ours["rss"],
            before["rss"],
            "MB",
            f"≤ {MAX_VALUES_ADDED} a node",
            kept <= MAX_VALUES_ADDED * ADDED_NODES,
            f"baseline: the same flood without the bound; kept {kept:,} of {count:,} (at most "
            f"{MAX_VALUES_ADDED} a node beyond its last load: state.MAX_VALUES_ADDED); a value costs "
            f"~{per_value:,.0f} bytes, so the bound is ~{per_value * MAX_VALUES_ADDED / 1024:,.0f} kB a node",
        )
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak")
    parser.add_argument("--minutes", type=float, default=6.0, help="how long (issue 42's figure: 60)")
    parser.add_argument("--trace", default=None, help="tracemalloc snapshots of the server in this folder")
    parser.add_argument("--rate", type=float, default=RATE, help="value messages a second")
    args = parser.parse_args(argv)
    from bench.common import render_table
    from zwave_mcp.logs import configure_logging

    configure_logging("warning")
    rows = run(args.minutes, args.trace, args.rate)
    print(render_table(rows + added_rows()))
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["added"]:
        print(json.dumps(added_child(int(sys.argv[2]), int(sys.argv[3]))))
        sys.exit(0)
    if sys.argv[1:2] == ["flood"]:
        port, prefix, house, rate, seconds = sys.argv[2:7]
        print(json.dumps(stream(int(port), prefix, house, float(rate), float(seconds))))
        sys.exit(0)
    sys.exit(main())
