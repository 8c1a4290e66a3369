"""`zwave-mcp config`: the policy lists checked against the real network (entries that match no device).

Connects once to the broker with the given settings, loads the network (bounded wait), builds the devices
exactly as the server does, and lists the allow/deny/hide/confirm entries that match none of them.
"""

from __future__ import annotations

import asyncio
from typing import Any

from zwave_mcp.config import Settings

# How long `zwave-mcp config` waits for zwave-js-ui's node list.
CHECK_TIMEOUT_S = 10.0


async def policy_entry_report(settings: Settings, timeout: float = CHECK_TIMEOUT_S) -> dict[str, Any]:
    """{} with no device lists; else {"policy_entries_matching_no_device": [...]} or, when the network
    could not be loaded, {"policy_entries_not_checked": "<why>"}."""
    from zwave_mcp.app import build_app
    from zwave_mcp.config import ConfigError

    try:
        app = build_app(settings)
    except ConfigError as exc:
        return {"policy_entries_not_checked": str(exc)}
    if not app.policy.has_device_lists:
        return {}
    app.gateway.start()
    try:
        if not await app.gateway.wait_ready(timeout):
            why = app.gateway.unavailable_reason() or "the network did not load in time"
            return {"policy_entries_not_checked": why}
        _ = app.devices.index  # builds the devices and checks the lists, as the server does
        return {"policy_entries_matching_no_device": list(app.devices.unmatched)}
    finally:
        await app.gateway.stop()


def check_policy_entries(settings: Settings, timeout: float = CHECK_TIMEOUT_S) -> dict[str, Any]:
    return asyncio.run(policy_entry_report(settings, timeout))
