"""`zwave-mcp simulate`: run the zwave-js-ui simulator alone until SIGINT/SIGTERM.

SIGUSR1 restarts it gracefully, SIGUSR2 as after a crash (see `RESTARTS`). Logs go to stderr; nothing
is written to stdout.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from dataclasses import replace
from urllib.parse import urlparse

from zwave_mcp.simulator.house import captured_scenes, load_house
from zwave_mcp.simulator.settings import CAPTURED_HOME_ID, FAST, PAYLOAD_TYPES, TOPIC_STYLES, SimConfig
from zwave_mcp.simulator.simulator import Simulator

log = logging.getLogger("zwave_mcp.simulator")

RESTARTS = """\
restarts, as the real zwave-js-ui does them:
  kill -USR1 <pid>   graceful restart: driver/status false, clean disconnect (the retained client status
                     stays a stale true), then start again
  kill -USR2 <pid>   crash restart: the connection drops (the broker publishes the last will; the
                     retained driver/status true from before stays until the new driver is ready)
  or publish "graceful" or "crash" to <prefix>/_SIMULATOR/<name>/restart/set (not zwave-js-ui's API), e.g.
  mosquitto_pub -t zwave/_SIMULATOR/zwave-js-ui/restart/set -m crash
A keypad lock of the house (--house captured+locks) plays an event, as zwave-js-ui 11.22.2 publishes it:
  mosquitto_pub -t zwave/_SIMULATOR/zwave-js-ui/lock/set -m '{"node": 13, "event": "keypad_unlock", "user": 3}'
  (events: keypad_unlock, keypad_lock, manual_unlock, manual_lock, rf_unlock, rf_lock, auto_lock,
  code_limit_exceeded, invalid_credential; or {"node": 12, "state": "jammed"}, "unjammed",
  "keypad_disabled", "keypad_enabled")
After a start, every API answers "Z-Wave client not connected" until the driver is ready, then getNodes
lists the nodes not ready and without values for a few seconds (--fast: a few tens of ms) until their
values arrive (with --node-ready-gap, node by node, as on the real gateway). A restarted broker (without persistence) gets only the client status and version back.
"""

# The `Timing` fields set from a flag of their own (`--restart-downtime`), never below 0.
TIMING_FLAGS = {
    "restart_downtime": "how long a restart stays down before starting again (default 1, --fast 0.02)",
    "node_ready_gap": "after a start, bring the nodes up one by one this far apart (default 0: all at once)",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zwave-mcp simulate",
        description="Run a simulated zwave-js-ui MQTT gateway (no hardware needed).",
        epilog=RESTARTS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--house",
        default="captured",
        help="captured (default), captured+locks (with two keypad locks), generated:N[:seed], or a JSON file: "
        "getNodes reply, zwave-js-ui nodes dump, "
        "zwave-js-server node state(s) or Home Assistant device diagnostics",
    )
    parser.add_argument(
        "--broker", default="mqtt://127.0.0.1:1883", help="MQTT broker URL (mqtt://host:port)"
    )
    parser.add_argument("--topics", choices=TOPIC_STYLES, default="named", help="gateway topic style")
    parser.add_argument("--payload", choices=PAYLOAD_TYPES, default="timevalue", help="gateway payload type")
    parser.add_argument("--prefix", default="zwave", help="MQTT prefix (default zwave)")
    parser.add_argument("--name", default="zwave-js-ui", help="gateway name (default zwave-js-ui)")
    parser.add_argument(
        "--home-id",
        type=home_id,
        default=CAPTURED_HOME_ID,
        metavar="ID",
        help="the controller's home id, e.g. 0x7e570002 (default 0x7e570001, the captures'); two homes differ",
    )
    for flag, text in (
        ("--ignore-loc", "leave locations out of topics"),
        ("--node-info", "includeNodeInfo + publishNodeDetails"),
        ("--no-events", "do not publish _EVENTS"),
        ("--fast", "near-zero delays"),
        ("--scenes", "start with the captured house's scenes (Movie Night, Good Night)"),
        ("--quiet-devices", "no periodic wake-ups, meter or motion"),
    ):
        parser.add_argument(flag, action="store_true", help=text)
    for field, text in TIMING_FLAGS.items():
        parser.add_argument(f"--{field.replace('_', '-')}", type=float, metavar="SECONDS", help=text)
    return parser


def home_id(text: str) -> int:
    """A home id as zwave-js-ui shows it (0x7e570001) or as a number: 32 bits, not 0."""
    try:
        number = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a home id (e.g. 0x7e570002)") from None
    if not 0 < number <= 0xFFFFFFFF:
        raise argparse.ArgumentTypeError(f"{text!r} is not a home id: it is 32 bits, e.g. 0x7e570002")
    return number


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    url = urlparse(args.broker if "://" in args.broker else f"mqtt://{args.broker}")
    if url.scheme not in ("mqtt", "tcp"):
        print(
            f"zwave-mcp simulate: unsupported broker URL {args.broker!r} (use mqtt://host:port)",
            file=sys.stderr,
        )
        return 2
    try:
        house = load_house(args.house)
    except (OSError, ValueError) as exc:
        print(f"zwave-mcp simulate: cannot load house {args.house!r}: {exc}", file=sys.stderr)
        return 2
    config = SimConfig(
        name=args.name,
        prefix=args.prefix,
        topics=args.topics,
        payload=args.payload,
        ignore_loc=args.ignore_loc,
        include_node_info=args.node_info,
        publish_node_details=args.node_info,
        send_events=not args.no_events,
        periodic=not args.quiet_devices,
        client_id_suffix="",
        home_id=args.home_id,
    )
    if args.fast:
        config.timing = FAST
    scenes = captured_scenes() if args.scenes else None
    for field in TIMING_FLAGS:
        if getattr(args, field) is not None:
            config.timing = replace(config.timing, **{field: max(0.0, getattr(args, field))})
    sim = Simulator(url.hostname or "127.0.0.1", url.port or 1883, house, config, scenes)
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    signal.signal(signal.SIGUSR1, lambda *_: sim.restart("graceful"))
    signal.signal(signal.SIGUSR2, lambda *_: sim.restart("crash"))
    try:
        sim.start(wait=True, timeout=15)
    except (OSError, TimeoutError) as exc:
        print(f"zwave-mcp simulate: cannot reach the MQTT broker at {args.broker}: {exc}", file=sys.stderr)
        sim.scheduler.stop()
        return 1
    from zwave_mcp.commands.demo import house_size  # counted as the server lists them

    log.info(
        "simulated zwave-js-ui ready: %s on %s, prefix %s (SIGUSR1: graceful restart, SIGUSR2: crash)",
        house_size(house),
        args.broker,
        args.prefix,
    )
    done.wait()
    log.info("stopping (graceful: driver/status false)")
    sim.stop()
    return 0
