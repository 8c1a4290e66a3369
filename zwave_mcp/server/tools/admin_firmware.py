"""Firmware updates (ZWAVE_MCP_ADMIN=true): what zwave-js's firmware service offers the devices, and an
update run as a background job through the write gate (the person's yes names the device and both
versions). It is followed with get_zwave_job and stopped with cancel_zwave_job, like maintenance."""

from __future__ import annotations

import time
from typing import Literal

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from zwave_mcp.answers import ToolResult, and_list, plural
from zwave_mcp.devices.model import Device
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.admin import AdminApiFailed
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.gateway.firmware import FirmwareApi, service_reason
from zwave_mcp.network import firmware
from zwave_mcp.network.changes import AdminChange
from zwave_mcp.network.jobs import Job
from zwave_mcp.server.app import App
from zwave_mcp.server.tools.admin import MAINTAIN, carry_job
from zwave_mcp.server.tools.admin_models import TOKEN, WAIT, MaintenanceResult
from zwave_mcp.server.tools.models import NAME_MAX, DeviceArgs, ToolArgs
from zwave_mcp.server.tools.spec import tool

SERVICE_WAIT_S = 15.0  # one node's question to the firmware service (zwave-js-ui asks it over the internet)
SPOKEN_UPDATES = 3


class FirmwareListArgs(ToolArgs):
    deviceName: str | None = Field(None, max_length=NAME_MAX, description="One device; empty: every device")


class FirmwareUpdateArgs(DeviceArgs):
    version: str | None = Field(
        None, max_length=40, description="The version to install; empty: the newest on offer"
    )
    waitSeconds: float = WAIT
    confirmationToken: str | None = TOKEN


class FirmwareOffer(BaseModel):
    version: str
    changelog: str = Field(description="What changed, as the firmware service says it (the maker's words)")
    channel: Literal["stable", "beta"]
    downgrade: bool
    files: int


class DeviceFirmware(BaseModel):
    device: str
    nodeId: int
    firmwareVersion: str | None
    onMains: bool
    needsAwake: bool = Field(
        description="A sleeping device: it must be woken and kept awake for the transfer"
    )
    battery: int | None = None
    updates: list[FirmwareOffer]
    problem: str | None = Field(None, description="Why this device could not be checked")


class FirmwareList(ToolResult):
    devices: list[DeviceFirmware]
    serviceReached: bool = Field(description="false: zwave-js-ui could not reach zwave-js's firmware service")


def _main_device(node_id: int, visible: list[Device]) -> Device | None:
    """The device a node is named by: its first visible device in endpoint order."""
    mine = sorted((d for d in visible if d.node_id == node_id), key=lambda d: d.endpoint or 0)
    return mine[0] if mine else None


def _service_failed(message: str) -> bool:
    """zwave-js could not ask the service (ZW0261, a request error), not "this node's ids are unknown"."""
    return "(ZW0260)" not in message and "unknown!" not in message


def _upgrades(entry: DeviceFirmware) -> list[FirmwareOffer]:
    """The newer firmware on offer (the service also offers older versions, as downgrades)."""
    return [u for u in entry.updates if not u.downgrade]


def _said(entry: DeviceFirmware) -> str:
    latest = max(_upgrades(entry), key=lambda u: firmware.version_key(u.version))
    power = "on mains" if entry.onMains else "must be awake" if entry.needsAwake else "on its battery"
    items = [item for item in latest.changelog.split("; ") if item]
    # Spoken: the first change the maker names; the list has them all.
    more = f" and {plural(len(items) - 1, 'more change')}" if len(items) > 1 else ""
    what = f"; what changed: {items[0]}{more}" if items else ""
    return f"{entry.device} from {entry.firmwareVersion or 'an unknown version'} to {latest.version} ({power}{what})"


async def list_zwave_firmware_updates(app: App, args: FirmwareListArgs, _ctx: Context | None) -> FirmwareList:
    """Firmware updates zwave-js's firmware service offers for a device (or every device): version, what
    changed, and whether it needs the device awake or on mains. The service gives no release date."""
    visible = app.devices.devices()
    if args.deviceName:
        nodes = [app.devices.resolve_node(args.deviceName).node_id]  # firmware is the node's
    else:
        nodes = sorted({d.node_id for d in visible if not d.node.is_controller})
    api = FirmwareApi(app.gateway)
    found: list[DeviceFirmware] = []
    unreachable: str | None = None
    # The answer comes within the tool's time: nodes not asked by then are listed as not checked.
    deadline = time.monotonic() + app.care.wait_s(SERVICE_WAIT_S * len(nodes))
    for node_id in nodes:
        device = _main_device(node_id, visible)
        if device is None:
            continue
        power = firmware.power_of(device.node)
        entry = DeviceFirmware(
            device=device.name,
            nodeId=node_id,
            firmwareVersion=device.node.firmware_version,
            onMains=power.on_mains,
            needsAwake=power.needs_awake,
            battery=power.battery,
            updates=[],
            problem=None,
        )
        found.append(entry)
        if unreachable is not None:
            entry.problem = "not checked: the firmware service could not be reached"
            continue
        left = deadline - time.monotonic()
        if left <= 0:
            entry.problem = "not checked: there was no time left to ask"
            continue
        try:
            on_offer = await api.available(node_id, timeout=min(SERVICE_WAIT_S, left))
            entry.updates = [FirmwareOffer.model_validate(u, from_attributes=True) for u in on_offer]
        except AdminApiFailed as exc:
            entry.problem = str(exc)
            if _service_failed(str(exc)):
                unreachable = str(exc)
        except GatewayError as exc:
            entry.problem = f"zwave-js-ui did not answer: {exc}"
    if unreachable is not None:
        summary = (
            f"zwave-js-ui could not reach zwave-js's firmware service ({service_reason(unreachable)}), so no "
            "update can be listed."
        )
        return FirmwareList(summary=summary, devices=found, serviceReached=False)
    offered = [e for e in found if _upgrades(e)]
    checked = [e for e in found if e.problem is None]
    if len(found) == 1 and found[0].problem is not None:
        summary = f"{found[0].device} could not be checked ({service_reason(found[0].problem)})."
        return FirmwareList(summary=summary, devices=found, serviceReached=True)
    if not offered:
        where = found[0].device if len(found) == 1 else f"any of the {plural(len(checked), 'device')} checked"
        summary = f"The firmware service has no update for {where}."
        older = [u.version for u in found[0].updates] if len(found) == 1 else []
        if older:
            summary = summary[:-1] + f" (only older firmware: {and_list(older)})."
    elif len(found) == 1:
        summary = f"There is a firmware update for {_said(offered[0])}."
    else:
        listed = and_list([_said(e) for e in offered], most=SPOKEN_UPDATES)
        summary = (
            f"{plural(len(offered), 'device')} of {len(checked)} checked "
            f"{'has' if len(offered) == 1 else 'have'} a firmware update: {listed}."
        )
    unchecked = [e for e in found if e.problem is not None]
    if unchecked:
        summary = summary[:-1] + f"; {and_list([e.device for e in unchecked], most=3)} could not be checked."
    return FirmwareList(summary=summary, devices=found, serviceReached=True)


async def update_zwave_firmware(app: App, args: FirmwareUpdateArgs, ctx: Context | None) -> MaintenanceResult:
    """Update a device's firmware from zwave-js's firmware service (the newest, or `version`): always
    needs the person's yes naming the device and both versions; refused for a dead or sleeping device or a
    battery under 50 %, and while another update runs. Progress comes as notifications; when the wait ends
    first the answer gives a jobId for get_zwave_job (progress, outcome) and cancel_zwave_job (abort)."""
    device = app.devices.resolve_node(args.deviceName, for_mutation=True)
    jobs = app.care.jobs
    problem = firmware.refusal(device, firmware.running_update(jobs))
    if problem is not None:
        raise UserError(problem)
    api = FirmwareApi(app.gateway)
    try:
        updates = await api.available(device.node_id, timeout=SERVICE_WAIT_S)
    except AdminApiFailed as exc:
        raise UserError(
            f"zwave-js-ui could not ask the firmware service about {device.name} ({service_reason(str(exc))}). "
            + firmware.NOTHING_SENT
        ) from None
    if not updates:
        raise UserError(
            f"The firmware service has no update for {device.name} (firmware "
            f"{device.node.firmware_version or 'unknown'}). {firmware.NOTHING_SENT}"
        )
    update = firmware.pick(updates, args.version, device)
    before = device.node.firmware_version or "an unknown version"
    request = api.update(device.node_id, update)
    work = firmware.update_work(api, request, device, update)

    async def start() -> Job:
        job = jobs.start(firmware.OPERATION, device.name, work, api.abort(device.node_id))
        job.device = device
        return job

    change = AdminChange(
        tool="update_zwave_firmware",
        action=firmware.OPERATION,
        what=(
            f"update the firmware of {device.name} from {before} to {update.version} (the device restarts, and "
            f"the transfer takes minutes; {firmware.power_words(firmware.power_of(device.node))})"
        ),
        words=frozenset({firmware.OPERATION}),
        device=device,
        value={"from": before, "to": update.version},
        requests=[request],
        start=start,
    )
    return await carry_job(app, change, args.confirmationToken, args.waitSeconds, ctx)


TOOLS = [
    tool(list_zwave_firmware_updates, title="Firmware updates on offer"),
    tool(update_zwave_firmware, mutating=True, annotations=MAINTAIN, title="Update a device's firmware"),
]
