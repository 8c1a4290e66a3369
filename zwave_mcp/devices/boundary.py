"""One device's fault never reaches another's answer.

Discovery and description run per node and per device inside a boundary: an exception there (a bug, or
data no test foresaw) makes that one device "not understood yet", with the reason on `Device.fault` (said
by `explain` and logged once per device and reason), and the answer about it is the fallback; every other
device of the house keeps answering. Pure apart from the log line.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, TypeVar, cast

from zwave_mcp.devices.model import Device

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])

# Faults already logged (device key, reason): an index is rebuilt and a device described again and again.
_LOGGED: set[tuple[str, str]] = set()
_LOGGED_MAX = 4096


def fault_reason(exc: BaseException, doing: str) -> str:
    """ "describing it failed (KeyError: 'cover.target')": what went wrong, for `explain` and the log."""
    detail = str(exc)[:120]
    return f"{doing} failed ({type(exc).__name__}{': ' + detail if detail else ''})"


def note_fault(device: Device, reason: str) -> None:
    """Mark the device as failed and log it (once per device and reason)."""
    if device.fault is None:
        device.fault = reason
    key = (device.key, reason)
    if key in _LOGGED:
        return
    if len(_LOGGED) >= _LOGGED_MAX:
        _LOGGED.clear()
    _LOGGED.add(key)
    log.warning(
        "%s (node %d, key %s) is not understood yet: %s",
        device.name,
        device.node_id,
        device.key,
        reason,
        extra={"device": device.key, "node": device.node_id, "fault": reason},
    )


def guarded(doing: str, fallback: Callable[[Device], Any]) -> Callable[[F], F]:
    """Run a per-device function (its first argument the device) inside the boundary: on an exception
    the device is marked (see `note_fault`) and `fallback(device)` is the answer."""

    def wrap(function: F) -> F:
        @functools.wraps(function)
        def inner(device: Device, *args: Any, **kwargs: Any) -> Any:
            try:
                return function(device, *args, **kwargs)
            except Exception as exc:
                note_fault(device, fault_reason(exc, doing))
                return fallback(device)

        return cast(F, inner)

    return wrap
