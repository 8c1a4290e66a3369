"""Simulator settings: the zwave-js-ui gateway options it emulates, and its timing profile.

Defaults are the ones of the recorded captures (`../shared/zwave-js-ui-captures/README.md`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

TopicStyle = Literal["named", "valueid", "valueid-names"]
PayloadType = Literal["timevalue", "object", "raw"]

CAPTURED_HOME_ID = 0x7E570001  # the captures' controller (2119630849)
TOPIC_STYLES: tuple[str, ...] = ("named", "valueid", "valueid-names")
PAYLOAD_TYPES: tuple[str, ...] = ("timevalue", "object", "raw")


@dataclass(frozen=True)
class Timing:
    """Delays in seconds, close to the recorded medians on 127.0.0.1 with the mock stick."""

    driver_ready: float = 2.5  # MQTT connect → `driver/status` true
    # `driver/status` true → nodes ready: meanwhile getNodes lists every node not ready, status Unknown,
    # without values (about 3 s on the real gateway after a restart in one session; 0.5-0.6 s in two
    # restarts of the 12-node mock house later, the sleeping node up at once, the others ~0.1 s apart:
    # it depends on the house and the machine, so the longer window is kept to exercise "still loading").
    nodes_ready: float = 3.0
    # Then the nodes come up one after another, this far apart (the controller, the sleeping nodes, then
    # the listening ones): a getNodes meanwhile lists those up with their values, the others still empty,
    # as the real gateway's values arrive node by node. 0: all at once (the demo and most tests).
    node_ready_gap: float = 0.0
    restart_downtime: float = 1.0  # restart(): stopped → started again
    api_reply: float = 0.045  # trivial APIs (getInfo, scenes, errors)
    get_nodes: float = 0.07
    write_unsupervised: float = 0.095  # binary switch, thermostat: reply with status 254
    write_supervised: float = 0.12  # lock, colour: status 255
    write_working: float = 0.15  # dimmer, blinds: status 1 Working
    write_fail: float = 0.045  # missing node, invalid value
    dead_fail: float = 3.15  # dead node: status 2 after the callback timeout
    second_poll: float = 1.1  # unsupervised writes are polled again this much later
    dimmer_ramp: float = 0.9  # supervised dimmer: final currentValue
    blinds_travel: float = 2.1
    ping: float = 0.08
    refresh: float = 0.1
    poll: float = 0.11
    scene_step: float = 0.3  # _activateScene: first write runs this long after the reply
    echo: float = 0.005  # multicast/broadcast echo
    report: float = 0.02  # a device's own report frame (True Status after a multicast)
    wakeup_interval: float = 60.0  # the mock's faked Wake Up Notifications
    awake_time: float = 0.3  # Awake → Asleep when nothing is queued
    meter_interval: float = 45.0
    motion_interval: float = 90.0
    motion_clear: float = 8.0
    # Network care (no recording: zwave-js' own pacing, shortened to keep the demo brisk).
    inclusion_step: float = 0.5  # between inclusion steps (button press → node found → security → added)
    inclusion_timeout: float = 30.0  # zwave-js-ui's `commandsTimeout`: inclusion/exclusion stop by themselves
    pin_timeout: float = 240.0  # S2's wait for the PIN (TAI2), then the device joins without security
    interview_stage: float = 0.3
    health_round: float = 0.4  # one round of a lifeline/route health check (10 pings)
    route_rebuild: float = 0.3  # per node

    def scaled(self, factor: float) -> Timing:
        """Every delay multiplied by `factor` (0.02 keeps the order of events, at test speed)."""
        return replace(self, **{name: getattr(self, name) * factor for name in self.__dataclass_fields__})


RECORDED = Timing()
FAST = RECORDED.scaled(0.02)


@dataclass
class SimConfig:
    """What zwave-js-ui's `mqtt`/`gateway` settings would say. See the captures' README for each key."""

    name: str = "zwave-js-ui"
    prefix: str = "zwave"
    topics: TopicStyle = "named"
    ignore_loc: bool = False
    payload: PayloadType = "timevalue"
    include_node_info: bool = False
    publish_node_details: bool = False
    send_events: bool = True
    timing: Timing = field(default_factory=Timing)
    # Periodic device behaviour (wake-ups, meter reports, motion). Tests turn it off for determinism.
    periodic: bool = True
    # zwave-js-ui's client id is `ZWAVE_GATEWAY-<name>`; a suffix lets several simulators share a broker.
    client_id_suffix: str | None = None
    keepalive: int = 60
    # The controller's home id (getInfo's `homeid`, `driver_ready`'s too): two real homes differ.
    home_id: int = CAPTURED_HOME_ID

    @classmethod
    def fast(cls, **overrides: object) -> SimConfig:
        """Near-zero delays and no periodic behaviour: what integration tests want."""
        return cls(**{"timing": FAST, "periodic": False, **overrides})  # type: ignore[arg-type]


def capture_config(capture: str, **overrides: object) -> SimConfig:
    """The gateway settings of a recorded capture: "a" (named, time-value), "b" (valueID ids, raw),
    "c" (valueID names, value objects, nodeinfo). "0" and "fault" are like "a"."""
    presets: dict[str, dict[str, object]] = {
        "a": {"topics": "named", "payload": "timevalue"},
        "b": {"topics": "valueid", "payload": "raw"},
        "c": {
            "topics": "valueid-names",
            "payload": "object",
            "include_node_info": True,
            "publish_node_details": True,
        },
    }
    return SimConfig(**{**presets.get(capture, presets["a"]), **overrides})  # type: ignore[arg-type]
