"""The events of a firmware update on zwave-js-ui's MQTT (`_EVENTS/.../node/...`), as the picture keeps
them: `node_firmware_update_progress` (`[node, {currentFile, totalFiles, sentFragments, totalFragments,
progress}]`, up to 4 a second) and `node_firmware_update_finished` (`[node, FirmwareUpdateResult]`), and
zwave-js's result said in words. The APIs are `gateway.firmware`'s."""

from __future__ import annotations

import math
from typing import Any

from zwave_mcp.gateway.model import InventoryEvent
from zwave_mcp.safetext import outside_text

PROGRESS_EVENT = "node_firmware_update_progress"
FINISHED_EVENT = "node_firmware_update_finished"
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


def _percent(raw: Any) -> float | None:
    """A progress percentage as zwave-js sends it (a number, rounded to two digits); None for anything else."""
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        return None
    return min(100.0, max(0.0, float(raw)))


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
