"""Firmware updates: what the firmware service offers a node, whether the node may take one now, and an
update run as a background job whose outcome is zwave-js's own result and the version the device reports
after it (`gateway.firmware` names the APIs and reads their replies).

A device is updated only when it can finish the transfer: not dead, not asleep (a sleeping device must be
woken and stay awake), and on a battery only at `MIN_BATTERY` % or more. One update at a time on a
network (zwave-js refuses a second too: "A firmware update is already in progress on this network")."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from zwave_mcp.devices.levels import is_number
from zwave_mcp.devices.model import Device
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.admin import AdminApiFailed, AdminRequest
from zwave_mcp.gateway.firmware import FirmwareApi, FirmwareUpdate
from zwave_mcp.gateway.firmware_events import result_words
from zwave_mcp.gateway.model import InventoryEvent, ZNode
from zwave_mcp.network.jobs import Job, Jobs, Work
from zwave_mcp.zwave.classes import CC

OPERATION = "firmware_update"
MIN_BATTERY = 50  # % a battery device needs: a transfer of minutes that stops half-way can leave it unusable
READ_BACK_S = 180.0  # after a successful transfer: how long to wait for the device to report its new version
READ_BACK_POLL_S = 2.0
RESYNC_EVERY_S = 10.0  # meanwhile, how often to read zwave-js-ui's nodes again (the new version comes so)
NOTHING_SENT = "Nothing was sent."


@dataclass(frozen=True)
class Power:
    """How a node is powered, as far as a firmware update cares."""

    on_mains: bool
    needs_awake: bool  # a sleeping device: it must be woken, and stay awake, for the transfer
    battery: int | None  # % (None: no battery, or not reported)


def power_of(node: ZNode) -> Power:
    value = node.find_value(CC.BATTERY, "level")
    has_battery = value is not None or node.is_sleeping_device
    battery = int(value.value) if value is not None and is_number(value.value) else None
    return Power(on_mains=not has_battery, needs_awake=node.is_sleeping_device, battery=battery)


def power_words(power: Power) -> str:
    if power.needs_awake:
        return "it must be woken and kept awake for the transfer"
    if not power.on_mains:
        return f"it runs on its battery, which must be at {MIN_BATTERY} % or more"
    return "it is on mains power"


def refusal(device: Device, running: Job | None) -> str | None:
    """Why this device's firmware cannot be updated now, with what to do; None when it can."""
    node = device.node
    if running is not None:
        return (
            f"A firmware update is already running on this network ({running.target}, {running.id}); "
            "only one runs at a time: follow it with get_zwave_job or stop it with cancel_zwave_job. "
            + NOTHING_SENT
        )
    capabilities = node.details.get("firmwareCapabilities")
    if isinstance(capabilities, dict) and capabilities.get("firmwareUpgradable") is False:
        return f"{device.name} says its firmware cannot be updated over Z-Wave. {NOTHING_SENT}"
    if node.status == "Dead" or node.failed:
        return (
            f"{device.name} is not responding, so its firmware cannot be updated: check its power, then ping "
            f"it (run_zwave_maintenance ping) and ask again. {NOTHING_SENT}"
        )
    power = power_of(node)
    if power.needs_awake and node.status != "Awake":
        return (
            f"{device.name} is asleep; a firmware update needs it awake for the whole transfer: wake it (its "
            f"button, as its manual says) and ask again while it is awake. {NOTHING_SENT}"
        )
    if not power.on_mains and power.battery is None:
        return (
            f"{device.name} has not reported its battery level, and an update needs at least {MIN_BATTERY} %: "
            f"ask it for its values (run_zwave_maintenance refresh_values) and ask again. {NOTHING_SENT}"
        )
    if power.battery is not None and power.battery < MIN_BATTERY:
        return (
            f"{device.name}'s battery is at {power.battery} %; a firmware update needs at least "
            f"{MIN_BATTERY} %: replace or charge the battery and ask again. {NOTHING_SENT}"
        )
    return None


def running_update(jobs: Jobs) -> Job | None:
    return next((j for j in jobs.all() if j.operation == OPERATION and j.state == "running"), None)


def version_key(version: str | None) -> tuple[int, ...]:
    """ "5.29" → (5, 29, 0): how zwave-js's service compares versions (padded to three parts)."""
    parts: list[int] = []
    for part in (version or "").split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts + [0] * (3 - len(parts)))


def pick(updates: list[FirmwareUpdate], wanted: str | None, device: Device) -> FirmwareUpdate:
    """The update asked for by its version, else the newest that is not a downgrade."""
    offered = ", ".join(u.version for u in updates)
    if wanted:
        found = [u for u in updates if version_key(u.version) == version_key(wanted.strip())]
        if not found:
            raise UserError(
                f"{device.name} has no update to version '{wanted[:40]}' on offer; the firmware service "
                f"offers {offered}. {NOTHING_SENT}"
            )
        return found[0]
    upgrades = [u for u in updates if not u.downgrade]
    if not upgrades:
        raise UserError(
            f"The firmware service offers {device.name} only older firmware ({offered}); name the version "
            f"to go back to one. {NOTHING_SENT}"
        )
    return max(upgrades, key=lambda u: version_key(u.version))


def update_work(
    api: FirmwareApi,
    request: AdminRequest,
    device: Device,
    update: FirmwareUpdate,
    read_back_s: float = READ_BACK_S,
    poll_s: float = READ_BACK_POLL_S,
    clock: Callable[[], float] = time.monotonic,
) -> Work:
    """The job of one update: send it (zwave-js-ui answers at its end), relay its progress events (each
    `gateway.firmware_events.EVENT_STEP` %, as the events list tells them), say
    zwave-js's result, then wait (bounded) for the device to report its new firmware version."""
    gateway = api.gateway
    inventory = gateway.inventory
    node_id = device.node_id
    before = device.node.firmware_version

    async def work(job: Job) -> tuple[str, dict[str, Any]]:
        def heard(change: InventoryEvent) -> None:
            new = change.new
            mine = change.kind == "firmware" and change.node_id == node_id
            if mine and isinstance(new, dict) and "progress" in new:
                job.report(float(new["progress"]), 100.0, f"{new['progress']:g} % sent")

        unsubscribe = inventory.add_listener(heard)
        job.report(0.0, 100.0, f"sending firmware {update.version}")
        try:
            result = await request.run()
        except AdminApiFailed as exc:
            raise UserError(f"zwave-js-ui did not update {device.name}: {exc}") from None
        finally:
            unsubscribe()
        success, words = result_words(result)
        facts: dict[str, Any] = {"result": result, "fromVersion": before, "toVersion": update.version}
        if not success:
            facts["firmwareVersion"] = before
            return f"the update {words}; {device.name} still runs firmware {before}", facts
        job.report(100.0, 100.0, "sent; waiting for the device to restart and report its firmware")
        now = await _read_back(gateway, node_id, before, read_back_s, poll_s, clock)
        facts["firmwareVersion"] = now
        if now is not None and version_key(now) == version_key(update.version):
            return f"the update {words}; {device.name} now reports firmware {now}", facts
        if now is not None and now != before:
            return (
                f"the update {words}; {device.name} now reports firmware {now}, not the {update.version} "
                "that was sent",
                facts,
            )
        return (
            f"zwave-js says the update {words}, but {device.name} still reports firmware {before} after "
            f"{read_back_s:g} s: it may still be restarting; ask get_zwave_node_details later",
            facts,
        )

    return work


async def _read_back(
    gateway: Any, node_id: int, before: str | None, wait_s: float, poll_s: float, clock: Callable[[], float]
) -> str | None:
    """The node's firmware version once it differs from `before` (zwave-js re-interviews the device after
    the update and zwave-js-ui's nodes then carry it), or as it stands when `wait_s` is over."""
    start = last_sync = clock()
    while True:
        node = gateway.inventory.node(node_id)
        now = node.firmware_version if node is not None else None
        if now != before or clock() - start >= wait_s:
            return now
        if clock() - last_sync >= RESYNC_EVERY_S:
            last_sync = clock()
            gateway.resync()
        await asyncio.sleep(poll_s)
