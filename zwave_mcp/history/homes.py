"""Which home a history row belongs to: the controller's home id as zwave-js-ui gives it (`getInfo`'s
`homeid`, shown as "0x7e570001"), or, when it gives none, the broker, prefix and gateway name this server
reads it through. Two real homes have different home ids; two servers of one home share its history."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zwave_mcp.config import Settings

HOME_ID_MAX = 0xFFFFFFFF  # a Z-Wave home id is 32 bits


def home_key(info: Mapping[str, Any], settings: Settings) -> str:
    home_id = info.get("homeid")
    if isinstance(home_id, int) and not isinstance(home_id, bool) and 0 < home_id <= HOME_ID_MAX:
        return f"0x{home_id:08x}"
    return f"mqtt://{settings.mqtt_host}:{settings.mqtt_port} {settings.prefix}/{settings.gateway_name}"
