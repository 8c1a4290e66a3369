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

The reads may be called by anyone; the update and the abort are `AdminRequest`s the write gate sends. The
events are read in `firmware_events` (the picture keeps them without this module's API half).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zwave_mcp.gateway.admin import AdminApiFailed, AdminRequest
from zwave_mcp.safetext import outside_text, plain_text

if TYPE_CHECKING:
    from zwave_mcp.gateway.client import ZwaveGateway

# A firmware transfer takes minutes (a 500-series device: 5 to 15); zwave-js-ui answers at its end.
UPDATE_TIMEOUT_S = 3600.0
CHANGELOG_MAX = 300  # what an answer carries of the service's changelog (outside text)

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")  # markdown [text](url) → text
_BULLET = re.compile(r"^\s*(?:[*\-•]|\d+[.)])\s*")
_PREFIX = re.compile(r"(?:Cannot check for firmware updates(?: for node \d+)?: )+")
_CODE = re.compile(r"\s*\(ZW\d{4}\)\s*$")


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


def service_reason(message: str) -> str:
    """zwave-js's failure in fewer words: without its "Cannot check for firmware updates (for node 5): "
    prefixes (15.29 nests two) and its error code ("(ZW0261)"): "fetch failed"."""
    reason = _CODE.sub("", _PREFIX.sub("", message)).strip()
    return reason or message


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
