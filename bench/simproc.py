"""`python -m bench.simproc`: the simulator in a process of its own, with every delay scaled.

Prints `ready` on stdout once start-up publishing is done; stops gracefully when stdin closes.
`--scale 0` makes every simulated delay zero, so what is measured is our overhead, not the simulator's.
"""

from __future__ import annotations

import argparse
import logging
import sys

from zwave_mcp.simulator import RECORDED, SimConfig, Simulator


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.simproc")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--house", default="captured")
    parser.add_argument("--prefix", default="zwave")
    parser.add_argument("--scale", type=float, default=0.0, help="factor on the recorded delays")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    config = SimConfig(timing=RECORDED.scaled(args.scale), periodic=False, prefix=args.prefix)
    sim = Simulator("127.0.0.1", args.port, args.house, config)
    sim.start(wait=True, timeout=300)
    print("ready", flush=True)
    sys.stdin.read()  # until the parent closes our stdin (or dies)
    sim.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
