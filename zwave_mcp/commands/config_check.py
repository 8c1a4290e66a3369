"""`zwave-mcp config`: the policy lists checked against the real network (entries that match no device).

Connects once to the broker with the given settings, loads the network (bounded wait), builds the devices
exactly as the server does, and lists the allow/deny/hide/confirm entries that match none of them.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from zwave_mcp.config import Settings

log = logging.getLogger(__name__)

# How long `zwave-mcp config` waits for zwave-js-ui's node list.
CHECK_TIMEOUT_S = 10.0
# How often it looks whether the broker has refused or cannot be reached (then it stops at once).
POLL_S = 0.05


async def policy_entry_report(settings: Settings, timeout: float = CHECK_TIMEOUT_S) -> dict[str, Any]:
    """{} with no device lists; else {"policy_entries_matching_no_device": [...]} or, when the network
    could not be loaded, {"policy_entries_not_checked": "<why>"}."""
    from zwave_mcp.config import ConfigError
    from zwave_mcp.server.app import build_app

    try:
        app = build_app(settings)
    except ConfigError as exc:
        return {"policy_entries_not_checked": str(exc)}
    if not app.policy.has_device_lists:
        return {}
    gateway = app.gateway
    # The MQTT lanes' own connection warnings are left out: the check reports its outcome in one line.
    transport = logging.getLogger("zwave_mcp.gateway.mqtt")
    level = transport.level
    transport.setLevel(max(logging.ERROR, transport.getEffectiveLevel()))
    gateway.start()
    try:
        deadline = asyncio.get_running_loop().time() + timeout
        while not await gateway.wait_ready(POLL_S):
            # A broker that refuses or is unreachable will not change its mind within the wait: the
            # lanes would retry with backoff and log each failure, so say it once and stop.
            if gateway.broker_failed() or asyncio.get_running_loop().time() >= deadline:
                why = gateway.unavailable_reason() or "the network did not load in time"
                log.warning("policy entries not checked: %s", why)
                return {"policy_entries_not_checked": why}
        _ = app.devices.index  # builds the devices and checks the lists, as the server does
        return {"policy_entries_matching_no_device": list(app.devices.unmatched)}
    finally:
        await gateway.stop()
        transport.setLevel(level)
