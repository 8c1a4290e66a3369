"""zwave-js-ui's firmware-update APIs (11.22.2, `api/lib/ZwaveClient.ts`) and the events that follow one.

- `getAvailableFirmwareUpdates(nodeId)` asks zwave-js's firmware service (firmware.zwave-js.io) for the
  node's model and firmware version; it answers zwave-js's `FirmwareUpdateInfo[]`: `version`, `changelog`,
  `channel`, `files` ({target, url, integrity}), `downgrade`, `normalizedVersion`, and `device` (the ids and
  firmware version the update is for). The service gives no release date. A service it cannot reach is a
  `success: false` whose message is zwave-js's ("Cannot check for firmware updates for node 5: …").
- `getAllAvailableFirmwareUpdates()` answers a JavaScript `Map`, which zwave-js-ui's JSON turns into `{}`
  on MQTT: it tells nothing there, so the house is asked node by node.
- `firmwareUpdateOTA(nodeId, updateInfo)` downloads and sends the update, and answers only when it is over,
  with zwave-js's `FirmwareUpdateResult` ({status, success, waitTime?, reInterview}). Meanwhile
  `_EVENTS/.../node/node_firmware_update_progress` carries `[node, {currentFile, totalFiles, sentFragments,
  totalFragments, progress}]`, and `node_firmware_update_finished` `[node, result]` ends it.
- `abortFirmwareUpdate(nodeId)` stops it; the update then finishes with status 1 (transmission failed,
  which zwave-js also uses for an abort).

The reads may be called by anyone; the update and the abort are `AdminRequest`s the write gate sends.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zwave_mcp.gateway.admin import AdminApiFailed, AdminRequest
from zwave_mcp.gateway.model import InventoryEvent
from zwave_mcp.safetext import outside_text, plain_text

if TYPE_CHECKING:
    from zwave_mcp.gateway.client import ZwaveGateway

PROGRESS_EVENT = "node_firmware_update_progress"
FINISHED_EVENT = "node_firmware_update_finished"
# A firmware transfer takes minutes (a 500-series device: 5 to 15); zwave-js-ui answers at its end.
UPDATE_TIMEOUT_S = 3600.0
CHANGELOG_MAX = 300  # what an answer carries of the service's changelog (outside text)
EVENT_STEP = 10  # the events list tells an update's progress every this many percent

# zwave-js's FirmwareUpdateStatus, in words ("the update …").
STATUS_WORDS = {
    -1: "timed out: the device stopped answering",
    0: "failed: the device found a checksum error",
    1: "failed: the transfer failed or was aborted",
    2: "failed: the update is for another manufacturer",
    3: "failed: the update is for another firmware",
    4: "failed: the update is for another firmware target",
    5: "failed: the device found the update's header invalid",
    6: "failed: the device found the update's header format invalid",
    7: "failed: the device has too little memory for it",
    8: "failed: the update is for another hardware version",
    0xFD: "succeeded and waits to be activated",
    0xFE: "succeeded",
    0xFF: "succeeded and the device restarts",
}
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")  # markdown [text](url) → text
_BULLET = re.compile(r"^\s*(?:[*\-•]|\d+[.)])\s*")


def _percent(raw: Any) -> float | None:
    """A progress percentage as zwave-js sends it (a number, rounded to two digits); None for anything else."""
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        return None
    return min(100.0, max(0.0, float(raw)))


@dataclass(frozen=True)
class FirmwareUpdate:
    """One update the firmware service offers a node, with its wire form kept to send back as it came."""

    version: str
    changelog: str  # plain, bounded: outside text
    channel: str
    downgrade: bool
    from_version: str | None  # the firmware version the update is for (`device.firmwareVersion`)
    files: int
    raw: dict[str, Any]


def plain_changelog(text: object) -> str:
    """The service's changelog (markdown lines) as one plain, bounded line: "Fixed scene activation;
    Modified the dimming duration"."""
    if not isinstance(text, str):
        return ""
    lines = [_BULLET.sub("", _LINK.sub(r"\1", line)).strip() for line in text.splitlines()]
    joined = "; ".join(line.rstrip(".;") for line in lines if line)
    return outside_text(plain_text(joined, CHANGELOG_MAX), CHANGELOG_MAX)


def parse_updates(result: Any) -> list[FirmwareUpdate]:
    """zwave-js's `FirmwareUpdateInfo[]`; what does not fit its shape is left out."""
    found: list[FirmwareUpdate] = []
    for raw in result if isinstance(result, list) else []:
        if not isinstance(raw, dict) or not isinstance(raw.get("version"), str):
            continue
        files = raw.get("files")
        if not isinstance(files, list) or not files:
            continue  # zwave-js refuses an update without files ("At least one update must be provided")
        device = raw.get("device")
        from_version = device.get("firmwareVersion") if isinstance(device, dict) else None
        found.append(
            FirmwareUpdate(
                version=plain_text(raw["version"], 40),
                changelog=plain_changelog(raw.get("changelog")),
                channel=raw["channel"] if raw.get("channel") in ("stable", "beta") else "stable",
                downgrade=raw.get("downgrade") is True,
                from_version=plain_text(from_version, 40) if isinstance(from_version, str) else None,
                files=len(files),
                raw=raw,
            )
        )
    return found


def result_words(result: Any) -> tuple[bool | None, str]:
    """(success, "succeeded and the device restarts") of zwave-js's `FirmwareUpdateResult`; (None, …) for
    a reply without one."""
    if not isinstance(result, dict) or not isinstance(result.get("success"), bool):
        return None, "ended without zwave-js saying how"
    status = result.get("status")
    words = STATUS_WORDS.get(status) if isinstance(status, int) else None
    if words is None:
        words = "succeeded" if result["success"] else f"failed (status {outside_text(status, 20)})"
    return result["success"], words


def progress_of(data: list[Any]) -> dict[str, Any] | None:
    """A progress event's `FirmwareUpdateProgress`, or None."""
    progress = data[1] if len(data) > 1 and isinstance(data[1], dict) else None
    if progress is None or _percent(progress.get("progress")) is None:
        return None
    return progress


def firmware_event(node_id: int, name: str, data: list[Any], steps: dict[int, int]) -> InventoryEvent | None:
    """The change a firmware event makes to the events list: the start, every `EVENT_STEP` percent, and
    the end (`steps` remembers each node's last step told, so a 4-a-second stream stays a few lines)."""
    if name == PROGRESS_EVENT:
        progress = progress_of(data)
        if progress is None:
            return None
        step = int((_percent(progress["progress"]) or 0.0) // EVENT_STEP) * EVENT_STEP
        if steps.get(node_id, -1) >= step:
            return None
        steps[node_id] = step
        return InventoryEvent("firmware", node_id, None, None, {"progress": step})
    if name == FINISHED_EVENT:
        steps.pop(node_id, None)
        success, words = result_words(data[1] if len(data) > 1 else None)
        return InventoryEvent("firmware", node_id, None, None, {"finished": words, "success": success})
    return None


def firmware_phrase(new: Any) -> str:
    """A firmware change of the events list, to follow the device's name."""
    if isinstance(new, dict) and "finished" in new:
        return f"finished its firmware update, which {new['finished']}"
    if isinstance(new, dict) and _percent(new.get("progress")) is not None:
        return f"received {new['progress']:g} % of its firmware update"
    return "reported on its firmware update"


class FirmwareApi:
    """The firmware APIs of one gateway: the read, and the requests the write gate sends."""

    def __init__(self, gateway: ZwaveGateway) -> None:
        self.gateway = gateway

    async def available(self, node_id: int, timeout: float | None = None) -> list[FirmwareUpdate]:
        """`getAvailableFirmwareUpdates`. Raises `AdminApiFailed` with zwave-js's own message when the
        service cannot be reached or the node's fingerprint is unknown."""
        reply = await self.gateway.call("getAvailableFirmwareUpdates", node_id, timeout=timeout)
        if not reply.success:
            raise AdminApiFailed(outside_text(reply.message or "zwave-js-ui gave no reason"))
        return parse_updates(reply.result)

    def update(self, node_id: int, update: FirmwareUpdate) -> AdminRequest:
        """`firmwareUpdateOTA(nodeId, updateInfo)` with the update as the service gave it; its result is
        zwave-js's `FirmwareUpdateResult`, at the end of the transfer."""

        async def run() -> Any:
            reply = await self.gateway.call(
                "firmwareUpdateOTA", node_id, update.raw, timeout=UPDATE_TIMEOUT_S
            )
            if not reply.success:
                raise AdminApiFailed(outside_text(reply.message or "zwave-js-ui refused firmwareUpdateOTA"))
            return reply.result

        # A dry run shows the call with the version, not the download addresses.
        return AdminRequest("firmwareUpdateOTA", [node_id, {"version": update.version}], run)

    def abort(self, node_id: int) -> AdminRequest:
        async def run() -> Any:
            reply = await self.gateway.call("abortFirmwareUpdate", node_id)
            if not reply.success:
                raise AdminApiFailed(outside_text(reply.message or "zwave-js-ui refused the abort"))
            return reply.result

        return AdminRequest("abortFirmwareUpdate", [node_id], run)
