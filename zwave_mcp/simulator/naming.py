"""Topic names as zwave-js-ui 11.x builds them (emulated independently of `zwave_mcp.gateway`; the command
classes' names are the ground floor's, `zwave.classes.cc_topic_name`)."""

from __future__ import annotations

import re
from typing import Any

from zwave_mcp.simulator.settings import SimConfig
from zwave_mcp.zwave.classes import cc_topic_name


def restart_topic(config: SimConfig) -> str:
    """The simulator's own restart trigger (not zwave-js-ui's): payload `graceful` or `crash`."""
    return f"{config.prefix}/_SIMULATOR/{config.name}/restart/set"


def lock_event_topic(config: SimConfig) -> str:
    """The simulator's own lock-event trigger (not zwave-js-ui's): payload `{"node": 12, "event":
    "keypad_unlock", "user": 3}`, or `{"node": 12, "state": "jammed"}` (see `simulator/locks.py`)."""
    return f"{config.prefix}/_SIMULATOR/{config.name}/lock/set"


_DISALLOWED = re.compile(r"[^A-Za-z0-9\-_\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff]")


def sanitize(level: Any) -> str:
    """One topic level: whitespace → `_`, `/` → `-`, other characters outside [A-Za-z0-9-_] and
    Latin-1 letters dropped."""
    text = re.sub(r"\s", "_", str(level)).replace("/", "-")
    return _DISALLOWED.sub("", text)


def client_name(config: SimConfig) -> str:
    """`ZWAVE_GATEWAY-<name>` with the name sanitized like zwave-js-ui does."""
    return "ZWAVE_GATEWAY-" + sanitize(config.name)


def clients_topic(config: SimConfig, suffix: str) -> str:
    return f"{config.prefix}/_CLIENTS/{client_name(config)}/{suffix}"


def events_topic(config: SimConfig, kind: str, event: str) -> str:
    return f"{config.prefix}/_EVENTS/{client_name(config)}/{kind}/{event}"


def node_levels(node: dict[str, Any], config: SimConfig) -> list[str]:
    """The levels under the prefix that name a node: `[Location/]<Name or id>`."""
    node_id = node.get("id")
    name = node.get("name") or ""
    loc = node.get("loc") or ""
    ident = str(node_id) if config.topics == "valueid" else sanitize(name) if name else f"nodeID_{node_id}"
    levels = [sanitize(loc)] if loc and not config.ignore_loc else []
    return [*levels, ident]


def node_topic(node: dict[str, Any], config: SimConfig) -> str:
    return "/".join([config.prefix, *node_levels(node, config)])


def value_suffix(value: dict[str, Any], config: SimConfig) -> list[str]:
    """The levels after the node: named → `<cc_name>/endpoint_<n>/<propertyName>[/<key>]`,
    valueID → `<cc>/<endpoint>/<property>[/<key>]`."""
    cc = int(value.get("commandClass", 0))
    endpoint = value.get("endpoint") or 0
    key = value.get("propertyKey")
    if config.topics == "named":
        levels = [
            cc_topic_name(cc),
            f"endpoint_{endpoint}",
            sanitize(value.get("propertyName", value.get("property"))),
        ]
    else:
        levels = [str(cc), str(endpoint), sanitize(value.get("property"))]
    if key is not None:
        levels.append(sanitize(key))
    return levels


def value_topic(node: dict[str, Any], value: dict[str, Any], config: SimConfig) -> str:
    return "/".join([node_topic(node, config), *value_suffix(value, config)])
