"""`python -m bench.traced DIR EVERY [zwave-mcp flags]`: the real stdio server with tracemalloc on, for finding
what grows (`python -m bench.soak --trace DIR`).

From EVERY seconds after the start on, every EVERY seconds a snapshot of what Python has allocated (10 frames deep) goes to DIR/<n>.snap and the
collector's counts to DIR/<n>.json (objects per type, the three generations' counts). `python -m bench.traced
diff DIR A B` prints the 25 places that grew most between snapshots A and B, and the types whose object
count grew most. Nothing is printed on stdout while serving: the wire is the server's.
"""

from __future__ import annotations

import collections
import gc
import json
import sys
import threading
import time
import tracemalloc
from pathlib import Path

FRAMES = 10


def _snapshots(folder: Path, every: float) -> None:
    # Tracing from the start made start-up ~50x slower (the SDK's and our pydantic models); what grows is
    # what is allocated later, so tracing starts once the server has served for a while.
    time.sleep(every)
    tracemalloc.start(FRAMES)
    n = 0
    while True:
        time.sleep(every)
        n += 1
        tracemalloc.take_snapshot().dump(str(folder / f"{n}.snap"))
        counts = collections.Counter(type(o).__name__ for o in gc.get_objects())
        (folder / f"{n}.json").write_text(
            json.dumps({"time": time.time(), "gc": gc.get_count(), "types": counts.most_common(200)})
        )


def serve(folder: str, every: float, flags: list[str]) -> int:
    from zwave_mcp.stdio.transport import protect_stdout

    protect_stdout()  # before anything can print: stdout is the wire
    Path(folder).mkdir(parents=True, exist_ok=True)
    threading.Thread(target=_snapshots, args=(Path(folder), every), daemon=True).start()
    from zwave_mcp.commands.cli import main

    return main(flags)


def diff(folder: str, first: str, second: str, top: int = 25) -> None:
    base = tracemalloc.Snapshot.load(f"{folder}/{first}.snap")
    later = tracemalloc.Snapshot.load(f"{folder}/{second}.snap")
    skip = tracemalloc.Filter(False, tracemalloc.__file__)
    stats = later.filter_traces([skip]).compare_to(base.filter_traces([skip]), "traceback")
    for stat in stats[:top]:
        print(f"{stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+8d} objects")
        for line in stat.traceback.format()[-6:]:
            print("      " + line)
    a = dict(json.loads(Path(f"{folder}/{first}.json").read_text())["types"])
    b = dict(json.loads(Path(f"{folder}/{second}.json").read_text())["types"])
    grown = sorted(((b.get(k, 0) - a.get(k, 0), k) for k in set(a) | set(b)), reverse=True)
    print("object counts grown:", ", ".join(f"{k} {d:+d}" for d, k in grown[:15]))


if __name__ == "__main__":
    if sys.argv[1] == "diff":
        diff(sys.argv[2], sys.argv[3], sys.argv[4])
        sys.exit(0)
    sys.exit(serve(sys.argv[1], float(sys.argv[2]), sys.argv[3:]))
