"""The demo's simulated home: a broker (Mosquitto when installed, else amqtt in-process) and the
zwave-js-ui simulator serving a house, with brisker timing than the recorded one."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from zwave_mcp.devices.build import build_devices, is_user_node
from zwave_mcp.gateway.nodes import parse_node
from zwave_mcp.simulator.broker import HOST, EmbeddedBroker, MosquittoBroker, find_mosquitto
from zwave_mcp.simulator.house import CAPTURED_WITH_LOCKS, Node, captured_scenes
from zwave_mcp.simulator.settings import RECORDED, SimConfig, Timing
from zwave_mcp.simulator.simulator import Simulator

PREFIX = "zwave"
# The recorded delays, brisker: ramps, second polls and replies keep their order but the demo takes seconds.
DEMO_TIMING: Timing = replace(
    RECORDED.scaled(0.3),
    driver_ready=0.3,
    wakeup_interval=5.0,  # the sleeping bedroom sensor wakes (and reports) every few seconds
    meter_interval=8.0,
    motion_interval=6.0,
    motion_clear=2.0,
)


class DemoError(Exception):
    """Something the person running the demo should read: printed as one clear message."""


# ---------------------------------------------------------------------------------------------- the home
def house_size(nodes: Iterable[dict[str, Any]]) -> str:
    """The house's size ("11 devices on 10 nodes"), counted as the server will list it (a two-channel
    switch is two devices; the controller and the Broadcast node are none), never written by hand."""
    parsed = [node for node in map(parse_node, nodes) if node is not None and is_user_node(node)]
    devices = len(build_devices(parsed))
    return f"{devices} device{'s' * (devices != 1)} on {len(parsed)} node{'s' * (len(parsed) != 1)}"


@dataclass
class Home:
    """A running broker and simulator. `close()` stops both and is safe to call more than once."""

    broker: MosquittoBroker | EmbeddedBroker
    broker_label: str
    simulator: Simulator | None = None
    admin: bool = False  # --admin: the network-care tools, and a new device waiting to be included

    @property
    def port(self) -> int:
        return self.broker.port

    @property
    def mqtt_url(self) -> str:
        return self.broker.url

    @property
    def mqtt_version(self) -> str:
        return "5" if isinstance(self.broker, MosquittoBroker) else "3.1.1"  # amqtt speaks 3.1.1 only

    def server_env(self) -> dict[str, str]:
        env = {
            "ZWAVE_MCP_MQTT_URL": self.mqtt_url,
            "ZWAVE_MCP_PREFIX": PREFIX,
            "ZWAVE_MCP_MQTT_VERSION": self.mqtt_version,
            # A demo house's history is not the person's: keep it in memory, gone with the server.
            "ZWAVE_MCP_HISTORY_PATH": ":memory:",
        }
        if self.admin:
            env["ZWAVE_MCP_ADMIN"] = "true"
        return env

    def close(self) -> None:
        sim, self.simulator = self.simulator, None
        if sim is not None:
            with contextlib.suppress(Exception):
                sim.stop()
            with contextlib.suppress(Exception):
                sim.scheduler.stop()
        self.broker.close()


def make_broker(choice: str, port: int | None) -> tuple[MosquittoBroker | EmbeddedBroker, str]:
    """Mosquitto when asked for or found; else amqtt in this process. Returns the broker and its label."""
    mosquitto = find_mosquitto() if choice in ("auto", "mosquitto") else None
    if choice == "mosquitto" and mosquitto is None:
        raise DemoError("Mosquitto is not installed (not on PATH, not at /usr/sbin/mosquitto).")
    if mosquitto is not None:
        return MosquittoBroker(port=port, executable=mosquitto), f"Mosquitto ({mosquitto})"
    try:
        import amqtt  # noqa: F401  # a dependency of zwave-mcp: missing only from a broken install
    except ImportError:
        raise DemoError(
            "the demo needs an MQTT broker, and the embedded one (amqtt) is not installed: "
            "reinstall zwave-mcp, or install Mosquitto."
        ) from None
    return EmbeddedBroker(port=port), "embedded amqtt broker (in this process, MQTT 3.1.1)"


def start_home(
    broker_choice: str, port: int | None = None, admin: bool = False, house: list[Node] | None = None
) -> Home:
    """Broker, then the simulated zwave-js-ui with the captured house (or `house`, without the captured
    house's scenes). Stops what started if a step fails."""
    broker, label = make_broker(broker_choice, port)
    home = Home(broker, label, admin=admin)
    try:
        try:
            broker.start()
        except (OSError, TimeoutError, RuntimeError) as exc:
            raise DemoError(f"the MQTT broker did not start: {exc}") from exc
        config = SimConfig(prefix=PREFIX, timing=DEMO_TIMING)
        if house is None:
            # The captured house and the two keypad locks recorded later (users and PINs: issue 37).
            home.simulator = Simulator(HOST, home.port, CAPTURED_WITH_LOCKS, config, captured_scenes())
        else:
            home.simulator = Simulator(HOST, home.port, house, config)
        try:
            home.simulator.start(wait=False)
        except (OSError, TimeoutError) as exc:
            raise DemoError(f"the simulated zwave-js-ui could not connect to the broker: {exc}") from exc
    except BaseException:
        home.close()
        raise
    return home
