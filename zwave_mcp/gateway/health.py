"""Gateway health: one snapshot of broker link, zwave-js-ui, driver and nodes, and why things are down.

No I/O: computed from what the gateway already knows (its lanes, `GatewayStatus`, inventory,
getInfo). zwave-js-ui's retained `_CLIENTS/.../status` is stale after a graceful stop (the broker
drops the will on a clean disconnect), so "online" also needs the driver to be ready; a crash shows
as the last will (`{"value": false}`). `status.driver_ready` is the newest evidence: `driver/status`
or what the API showed (it answers only while the driver is ready), so a stale or missing retained
`driver/status` does not decide.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from zwave_mcp.gateway.lanes import Lanes
from zwave_mcp.gateway.model import ZNode
from zwave_mcp.gateway.state import GatewayStatus, Inventory
from zwave_mcp.gateway.sync import Sync


@dataclass(slots=True)
class GatewayHealth:
    broker_connected: bool
    broker_address: str
    broker_error: str | None
    broker_protocol: str | None  # the MQTT version in use ("5" / "3.1.1"), None while not connected
    zwave_js_ui_online: bool
    zwave_js_ui_state: str  # human: "online", "offline (crashed: last will)", …
    driver_ready: bool | None
    inventory_loaded: bool
    node_count: int
    nodes_by_status: dict[str, int]
    last_message_age_s: float | None
    controller_status: str | None = None
    last_driver_error: str | None = None
    app_version: str | None = None
    zwave_version: str | None = None
    home_id: Any = None
    info: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None  # the one sentence a person needs, None when all is well
    waiting_for: str | None = None  # what the network picture still waits for ("3 of 12 devices to be ready")

    @property
    def ok(self) -> bool:
        return self.problem is None


def zwave_js_ui_state(status: GatewayStatus) -> tuple[bool, str]:
    """(online, words) from the client status, the last will and the driver status."""
    if status.client_online is False:
        if status.will_received:
            return False, "offline (its connection died: the broker published its last will)"
        return False, "offline (it reported itself offline)"
    if status.driver_ready is False:
        return False, "offline or its Z-Wave driver is not ready"
    if status.client_online is True and status.driver_ready is True:
        return True, "online"
    if status.client_online is None and status.driver_ready is None:
        return False, "never seen on this broker"
    return False, "starting (its Z-Wave driver is not ready yet)"


def count_statuses(nodes: Mapping[int, ZNode]) -> dict[str, int]:
    return dict(Counter(node.status for node in nodes.values() if not node.is_controller and node.id != 255))


def build_health(lanes: Lanes, sync: Sync, inventory: Inventory, problem: str | None) -> GatewayHealth:
    status = inventory.status
    connected = lanes.connected
    online, words = zwave_js_ui_state(status) if connected else (False, "unknown (no broker connection)")
    info = sync.info or {}
    by_status = count_statuses(inventory.nodes)
    last = sync.last_message_monotonic
    return GatewayHealth(
        broker_connected=connected,
        broker_address=lanes.values.address,
        broker_error=None if connected else lanes.last_error(),
        broker_protocol=lanes.protocols() if connected else None,
        zwave_js_ui_online=online,
        zwave_js_ui_state=words,
        driver_ready=status.driver_ready,
        inventory_loaded=sync.loaded,
        node_count=sum(by_status.values()),
        nodes_by_status=by_status,
        last_message_age_s=None if last is None else time.monotonic() - last,
        controller_status=status.controller_status,
        last_driver_error=status.last_driver_error,
        app_version=info.get("appVersion") if isinstance(info.get("appVersion"), str) else status.version,
        zwave_version=info.get("zwaveVersion") if isinstance(info.get("zwaveVersion"), str) else None,
        home_id=info.get("homeid"),
        info=info,
        problem=problem,
        waiting_for=sync.schedule.waiting_for() if lanes.values.connected else None,
    )
