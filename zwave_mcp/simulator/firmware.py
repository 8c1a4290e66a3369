"""Firmware updates in the simulator, as zwave-js-ui 11.22.2 (zwave-js 15) plays them.

The firmware service is played from `houses/firmware_updates.json`: real entries of zwave-js's
firmware-updates repository (the GE/Enbrighten 14294 dimmer: 5.26 and 5.29), answered as the service does
(the device's current version left out, `downgrade` and `normalizedVersion` added, stable channel only) and
as zwave-js completes them (`device`: the ids and firmware version the update is for). With
`service_reachable` False it fails as zwave-js does without the internet.

- `getAvailableFirmwareUpdates(nodeId)`: `FirmwareUpdateInfo[]`; errors with zwave-js's texts and codes.
- `getAllAvailableFirmwareUpdates()`: zwave-js answers a Map, which zwave-js-ui's JSON makes `{}`.
- A device whose `firmwareCapabilities` say it is not upgradable (every device of the mock stick) is refused
  as zwave-js refuses it. What the real test bed answered (its fetch blocked): see `UNREACHABLE`.
- `firmwareUpdateOTA(nodeId, updateInfo)`: zwave-js-ui's own check ("Firmware update already in progress"),
  zwave-js's (one at a time on a network, the original version), then `node_firmware_update_progress`
  events while the node's `firmwareUpdate` shows the progress, `node_firmware_update_finished` with the
  `FirmwareUpdateResult`, and the reply with the same result at the end. The device restarts with the new
  version, and zwave-js re-interviews it (the interview events follow; `getNodes` has the new version).
- `abortFirmwareUpdate(nodeId)`: the update finishes with status 1 (zwave-js's "transmission failed", also
  used for an abort).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cache
from typing import Any, Protocol

from zwave_mcp.simulator import payloads
from zwave_mcp.simulator.host import Respond, SimulatorHost, arg, found_node, js_undefined
from zwave_mcp.simulator.house import packaged

NODE_NOT_FOUND = "Node {} was not found! (ZW0211)"
MISSING_INFO = (
    "Cannot check for firmware updates for node {}: fingerprint or firmware version is unknown! (ZW0260)"
)
# What zwave-js 15.29 says when the request to firmware.zwave-js.io cannot be made (no network): the bulk
# request's words inside the node's (as the test bed's zwave-js-ui answered, its fetch blocked).
UNREACHABLE_ALL = "Cannot check for firmware updates: fetch failed (ZW0261)"
UNREACHABLE = "Cannot check for firmware updates for node {}: " + UNREACHABLE_ALL
BUSY_NETWORK = (
    "Failed to start the update: A firmware update is already in progress on this network! (ZW1508)"
)
BUSY_NODE = "Firmware update already in progress"  # zwave-js-ui's own check of the node's `firmwareUpdate`
OTHER_VERSION = (
    "Cannot update firmware for node {}: The update is for a different original firmware version! (ZW0263)"
)
NO_FILES = "At least one update must be provided (ZW0322)"
DEAD = "Failed to send the command after 3 attempts (Status NoAck) (ZW0204)"
NOT_UPGRADABLE = "Failed to start the update: The Z-Wave chip firmware is not upgradable! (ZW1501)"
OK_RESTART_PENDING, ERROR_TRANSMISSION_FAILED = 0xFF, 1
TOTAL_FRAGMENTS = 1310  # a ~50 kB image in 40-byte fragments
WAIT_TIME_S = 5  # zwave-js's `getConservativeWaitTimeAfterFirmwareUpdate` for a device that advertises none
_IDS = ("manufacturerId", "productType", "productId")  # what identifies a device's model


class FirmwareHost(SimulatorHost, Protocol):
    firmware: Firmware
    admin: Any  # its `interview(node)` re-interviews the node after the update


@cache
def _entries() -> tuple[dict[str, Any], ...]:
    return tuple(packaged("firmware_updates.json")["entries"])


def _pad(version: str) -> tuple[int, int, int]:
    """The service's `padVersion`: "5.29" → 5.29.0."""
    parts = [int(p) if p.isdigit() else 0 for p in version.split(".")[:3]]
    return (*parts, 0, 0, 0)[:3]  # type: ignore[return-value]


def _matches(device: dict[str, Any], node: dict[str, Any]) -> bool:
    if any(int(device[k], 16) != node.get(k) for k in _IDS):
        return False
    limits = device.get("firmwareVersion") or {}
    current = _pad(str(node.get("firmwareVersion") or "0"))
    low, high = limits.get("min"), limits.get("max")
    return (low is None or _pad(low) <= current) and (high is None or current <= _pad(high))


def offered(node: dict[str, Any]) -> list[dict[str, Any]]:
    """What the service answers for the node, completed as zwave-js completes it."""
    current = str(node.get("firmwareVersion"))
    found: list[dict[str, Any]] = []
    for entry in _entries():
        if not any(_matches(d, node) for d in entry["devices"]):
            continue
        for upgrade in entry["upgrades"]:
            if upgrade.get("channel", "stable") != "stable" or upgrade.get("region"):
                continue
            if _pad(upgrade["version"]) == _pad(current):
                continue
            files = upgrade.get("files") or [
                {"target": upgrade.get("target", 0), "url": upgrade["url"], "integrity": upgrade["integrity"]}
            ]
            found.append(
                {
                    "version": upgrade["version"],
                    "changelog": upgrade["changelog"],
                    "channel": "stable",
                    "files": files,
                    "downgrade": _pad(upgrade["version"]) < _pad(current),
                    "normalizedVersion": ".".join(map(str, _pad(upgrade["version"]))),
                    "device": {**{k: node[k] for k in _IDS}, "firmwareVersion": current},
                }
            )
    return found


class Firmware:
    """The simulator's firmware service and its updates in progress (one per network, as zwave-js allows)."""

    def __init__(self, sim: FirmwareHost) -> None:
        self.sim = sim
        self.service_reachable = True
        self.service_s = 0.3  # a request to the service
        self.step_s = 0.25  # one tenth of a transfer (a real one takes minutes)
        self.restart_s = 0.5  # the device restarting with its new firmware
        self._lock = threading.RLock()
        self._running: dict[str, Any] | None = None  # {node, update, respond, step, generation}
        self._generation = 0

    # -- the API ---------------------------------------------------------------------------------------
    def available(self, args: list[Any], respond: Respond) -> None:
        node_id = arg(args, 0)
        node = self.sim.node(node_id)
        if node is None:
            raise RuntimeError(NODE_NOT_FOUND.format(node_id))
        if not all(isinstance(node.get(k), int) for k in _IDS) or not (
            isinstance(node.get("firmwareVersion"), str)
        ):
            raise RuntimeError(MISSING_INFO.format(node_id))
        if not self.service_reachable:
            respond(error=UNREACHABLE.format(node_id), delay=self.service_s)
            return
        respond(offered(node), delay=self.service_s)

    def available_all(self, respond: Respond) -> None:
        """A Map on success, which zwave-js-ui's JSON makes `{}`; the service's failure as zwave-js says it."""
        if not self.service_reachable:
            respond(error=UNREACHABLE_ALL, delay=self.service_s)
            return
        respond({}, delay=self.service_s)

    def start(self, args: list[Any], respond: Respond) -> None:
        node_id, info = arg(args, 0), arg(args, 1)
        node = self.sim.node(node_id)
        if node is None:
            raise RuntimeError(js_undefined("firmwareUpdate"))  # zwave-js-ui reads `node.firmwareUpdate`
        if node.get("firmwareUpdate"):
            raise RuntimeError(BUSY_NODE)
        if self._running is not None:
            raise RuntimeError(BUSY_NETWORK)
        if not isinstance(info, dict):
            raise RuntimeError(js_undefined("files"))
        if not info.get("files"):
            raise RuntimeError(NO_FILES)
        device = info.get("device")
        if node.get("status") == "Dead":
            respond(error=DEAD, delay=self.sim.timing.dead_fail)
            return
        if isinstance(device, dict) and device.get("firmwareVersion") != node.get("firmwareVersion"):
            respond(error=OTHER_VERSION.format(node_id), delay=self.service_s)
            return
        if (node.get("firmwareCapabilities") or {}).get("firmwareUpgradable") is False:
            respond(error=NOT_UPGRADABLE, delay=self.service_s)  # the mock stick's devices all say so
            return
        with self._lock:
            self._generation += 1
            self._running = {
                "node": node,
                "version": str(info.get("version")),
                "respond": respond,
                "step": 0,
                "generation": self._generation,
            }
        run = self._step_later
        if node.get("status") == "Asleep":
            self.sim.queue_for_wakeup(int(node["id"]), run)  # the transfer starts when the device wakes
        else:
            self.sim.scheduler.call_later(self.service_s, run)  # the download from the maker's server

    def abort(self, args: list[Any], respond: Respond) -> None:
        node = found_node(self.sim, arg(args, 0))
        with self._lock:
            running = self._running if self._running and self._running["node"] is node else None
        if running is not None:
            self._finish(
                running, {"status": ERROR_TRANSMISSION_FAILED, "success": False, "reInterview": False}
            )
        respond(delay=self.sim.timing.api_reply)

    # -- the transfer ----------------------------------------------------------------------------------
    def _step_later(self) -> None:
        with self._lock:
            running = self._running
        if running is None:
            return
        generation = running["generation"]
        self.sim.scheduler.call_later(self.step_s, lambda: self._step(generation))

    def _step(self, generation: int) -> None:
        with self._lock:
            running = self._running
            if running is None or running["generation"] != generation:
                return  # aborted meanwhile
            running["step"] += 1
            step = running["step"]
            node = running["node"]
            progress = {
                "currentFile": 1,
                "totalFiles": 1,
                "sentFragments": TOTAL_FRAGMENTS * step // 10,
                "totalFragments": TOTAL_FRAGMENTS,
                "progress": round(step * 10.0, 2),
            }
            node["firmwareUpdate"] = progress
        self.sim.event("node", "node_firmware_update_progress", [payloads.node_summary(node), progress])
        if step < 10:
            self._step_later()
            return
        # zwave-js waits the device's advertised time plus a margin, at least 5 s, and says so in `waitTime`.
        self._finish(
            running,
            {"success": True, "status": OK_RESTART_PENDING, "waitTime": WAIT_TIME_S, "reInterview": True},
        )

    def _finish(self, running: dict[str, Any], result: dict[str, Any]) -> None:
        node = running["node"]
        with self._lock:
            if self._running is not running:
                return
            self._running = None
            node.pop("firmwareUpdate", None)
        self.sim.event("node", "node_firmware_update_finished", [payloads.node_summary(node), result])
        running["respond"](result)
        if result["success"]:
            self.sim.scheduler.call_later(self.restart_s, lambda: self._restarted(node, running["version"]))

    def _restarted(self, node: dict[str, Any], version: str) -> None:
        """The device runs its new firmware; zwave-js re-interviews it, which reads the version."""
        with self.sim._lock:
            node["firmwareVersion"] = version
        self.sim.admin.interview(node)


HANDLERS: dict[str, Callable[[Any, list[Any], Respond], None]] = {
    "getAvailableFirmwareUpdates": lambda sim, args, respond: sim.firmware.available(args, respond),
    "getAllAvailableFirmwareUpdates": lambda sim, args, respond: sim.firmware.available_all(respond),
    "firmwareUpdateOTA": lambda sim, args, respond: sim.firmware.start(args, respond),
    "abortFirmwareUpdate": lambda sim, args, respond: sim.firmware.abort(args, respond),
}
