"""What the simulator's parts (the devices, the API handlers, the controller's state) use of the simulator.

`Simulator` is the one implementation. The parts name this protocol instead of the class, because the class
imports them to wire them together: the dependency runs one way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from zwave_mcp.simulator.house import Node
from zwave_mcp.simulator.scheduler import Action, Radio, Scheduler
from zwave_mcp.simulator.settings import SimConfig, Timing

# How a handler answers an API call: `respond(result, delay=…)`, or `respond(delay=…)` for no result.
Respond = Callable[..., None]


@dataclass
class LockSide:
    """What the simulated locks hold that zwave-js-ui does not show: their logs, whether zwave-js-ui
    is reading schedules (one read at a time, across every lock: its `_lockGetSchedule`), and zwave-js's
    cache of each user's schedules (node → user → `kind` set last and whether they are `enabled`)."""

    logs: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    reading_schedules: bool = False
    schedule_users: dict[int, dict[int, dict[str, Any]]] = field(default_factory=dict)


class SimulatorHost(Protocol):
    config: SimConfig
    timing: Timing
    nodes: dict[int, Node]
    scenes: list[dict[str, Any]]
    scheduler: Scheduler
    radio: Radio
    silent: bool  # polls go unanswered
    write_reply_delay: float
    multicast_unanswered: bool  # a stick that cannot multicast: writeMulticast is never answered
    multicast_missed: set[int]  # nodes out of the controller's direct range: a multicast never reaches them
    last_levels: dict[tuple[int, str], Any]
    driver_up: bool
    interviewing: bool
    # node id → (endpoint, group) → destinations: what each device's association groups hold.
    associations: dict[int, dict[tuple[int, int], list[dict[str, int]]]]
    lock_side: LockSide  # the locks' own logs
    _lock: threading.RLock

    def node(self, node_id: Any) -> Node | None: ...

    def uptime(self) -> float: ...

    def naming_value(self, node: Node, field: str) -> str | None: ...

    def hold_naming_value(self, node: Node, field: str, value: str) -> None: ...

    def publish(self, topic: str, payload: str, retain: bool = True) -> None: ...

    def event(self, kind: str, name: str, data: list[Any]) -> None: ...

    def publish_value(self, node: Node, value: dict[str, Any]) -> None: ...

    def set_value(self, node: Node, value: dict[str, Any], new: Any) -> None: ...

    def touch(self, node: Node) -> None: ...

    def publish_status(self, node: Node) -> None: ...

    def reply(self, api_name: str, body: dict[str, Any]) -> None: ...

    def queue_for_wakeup(self, node_id: int, action: Action) -> None: ...


def arg(args: list[Any], index: int) -> Any:
    """An API call's argument as JavaScript reads `args[index]`: None (undefined) past the end."""
    return args[index] if index < len(args) else None


def js_undefined(prop: str) -> str:
    """The TypeError JavaScript raises reading `prop` of undefined (a missing node, a missing argument)."""
    return f"Cannot read properties of undefined (reading '{prop}')"


def node_arg(sim: SimulatorHost, args: list[Any], method: str) -> Node:
    """The node of an API call's first argument; none is the TypeError of zwave-js-ui calling `method` on it."""
    node = sim.node(arg(args, 0))
    if node is None:
        raise RuntimeError(js_undefined(method))
    return node


def found_node(sim: SimulatorHost, node_id: Any) -> Node:
    node = sim.node(node_id)
    if node is None:
        raise RuntimeError(f"Node {node_id} not found")
    return node
