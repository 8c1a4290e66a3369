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
    parser.add_argument("--ignore-loc", action="store_true", help="leave locations out of topics")
    parser.add_argument("--node-info", action="store_true", help="includeNodeInfo + publishNodeDetails")
    parser.add_argument("--no-events", action="store_true", help="do not publish _EVENTS")
    parser.add_argument("--fast", action="store_true", help="near-zero delays")
    parser.add_argument(
        "--scenes",
        action="store_true",
        help="start with the captured house's scenes (Movie Night, Good Night)",
    )
    parser.add_argument("--quiet-devices", action="store_true", help="no periodic wake-ups, meter or motion")
    parser.add_argument(
        "--restart-downtime",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long a restart stays down before starting again (default 1, --fast 0.02)",
    )
    parser.add_argument(
        "--node-ready-gap",
        type=float,
        default=None,
        metavar="SECONDS",
        help="after a start, bring the nodes up one by one this far apart (default 0: all at once)",
    )
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
    if args.restart_downtime is not None:
        config.timing = replace(config.timing, restart_downtime=max(0.0, args.restart_downtime))
    if args.node_ready_gap is not None:
        config.timing = replace(config.timing, node_ready_gap=max(0.0, args.node_ready_gap))
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
