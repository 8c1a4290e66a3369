"""`python -m bench` (or `make bench`): run every benchmark registered in `sections()` (the five of issue 8,
6: the write gate's own cost (issue 12), 7: history (issue 15), 8: group changes (issue 14), 9: calls under
a value flood (issue 13), 10: the home service over HTTP (issue 42), 11: memory over a long run and made-up
values (issues 42 and 44)) and print one table. `python -m bench.soak --minutes 60` runs section 11's soak
for issue 42's hour.

Progress goes to stderr; the table (markdown) to stdout. `--quick` runs fewer iterations (a smoke run,
not figures to record); `--only 1,3` picks sections.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

from zwave_mcp.logs import configure_logging


def sections() -> list[tuple[str, str, Callable[[bool], list[Any]]]]:
    """Every benchmark: (number, name, run(quick) -> rows). Another issue's benchmark adds one line here."""
    from bench import flood, gate, groups, history, ingest, latency, reads, service, soak, startup, throughput

    return [
        ("1", "start-up", lambda quick: startup.run(spawns=4 if quick else 20)),
        (
            "2",
            "call latency",
            lambda quick: latency.run(
                calls=100 if quick else 500,
                default_broker_calls=30 if quick else 150,
                confirmed_calls=30 if quick else 100,
            ),
        ),
        ("3", "reads", lambda quick: reads.run(calls=50 if quick else 300)),
        ("4", "sync and ingest", lambda quick: ingest.run()),
        ("5", "throughput", lambda quick: throughput.run(rounds=3 if quick else 10)),
        ("6", "write gate", lambda quick: gate.run(calls=500 if quick else 5000)),
        (
            "7",
            "history",
            lambda quick: history.run(
                seconds=2 if quick else 3,
                total=100_000 if quick else 1_000_000,
                calls=20 if quick else 100,
                rounds=2 if quick else 6,
            ),
        ),
        ("8", "group changes", lambda quick: groups.run(rounds=3 if quick else 10)),
        (
            "9",
            "calls under a value flood",
            lambda quick: flood.run(seconds=3 if quick else 10, burst=50_000 if quick else 200_000),
        ),
        (
            "10",
            "the home service over HTTP",
            lambda quick: service.run(calls=50 if quick else 300, reads_each=10 if quick else 50),
        ),
        (
            "11",
            "memory over a long run",
            lambda quick: soak.run(minutes=2 if quick else 6) + soak.added_rows(10_000 if quick else 50_000),
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--quick", action="store_true", help="fewer iterations (smoke run)")
    parser.add_argument("--only", default="", help="sections to run, e.g. 2,3 (default: all)")
    args = parser.parse_args(argv)
    chosen = {s.strip() for s in args.only.split(",") if s.strip()}
    # Before any MCPServer exists: its constructor would install its own logging otherwise.
    configure_logging("warning")

    from bench.common import Row, render_table, say

    quick = args.quick
    started = time.perf_counter()
    rows: list[Row] = []
    for number, name, run in sections():
        if not chosen or number in chosen:
            say(f"[{number}] {name}")
            rows += run(quick)
    elapsed = time.perf_counter() - started
    say(f"done in {elapsed:.0f} s")
    print(
        f"zwave-mcp benchmarks, {datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}; "
        f"{platform.node() or 'host'}: {os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))}), "
        f"Python {platform.python_version()} on {platform.system()} {platform.release()}; "
        f"run took {elapsed:.0f} s{' (--quick)' if quick else ''}\n"
    )
    print(render_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
