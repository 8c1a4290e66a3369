"""zwave-js-ui's MQTT topic grammar: building, classifying and mapping topics back to nodes and values.

Pure, no I/O: `GatewayTopics` builds and classifies (`classify` → `TopicInfo`) the gateway's topics and the
topic a value write uses; `ValueTopicIndex` maps the node part of any node-level topic back to an `IndexHit`
(node, value or attribute, stale) for every `TopicStyle`.

Topics are lossy (sanitized names), so the index is built from the inventory's own values
(property/propertyName/propertyKey/propertyKeyName), never by parsing names back.

Rename policy (decided from capture a, t≈90–101): after a node is renamed or moved zwave-js-ui
publishes every later update under the NEW name, and retained messages under the OLD name stay on the
broker. So the index maps only the current name/location; prefixes a node used before are kept as
*retired* and resolve to a hit with `stale=True`, which the inventory ignores (applying them would put
old values over fresh ones). A retired prefix becomes current again if a node is renamed back.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from zwave_mcp.gateway.model import ZNode, ZValue
from zwave_mcp.zwave.classes import cc_topic_name

# zwave-js-ui `utils.sanitizeTopic`: whitespace → `_`, then drop everything but A-Za-z0-9-_ and the
# Latin-1 letters À-Ö Ø-ö ø-ÿ. With `sanitizeSlash`, `/` first becomes `-` (topic levels never split).
_WHITESPACE = re.compile(r"\s")
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9\-_À-ÖØ-öø-ÿ]")


def sanitize_level(text: Any) -> str:
    """One topic level as zwave-js-ui writes it (`"Air temperature"` → `Air_temperature`)."""
    if isinstance(text, bool):  # JS would print true/false; never seen in topics, but be total
        return "true" if text else "false"
    if isinstance(text, int | float):
        return str(text)
    if text is None:
        return ""
    s = str(text).replace("/", "-")
    s = _WHITESPACE.sub("_", s)
    return _NOT_ALLOWED.sub("", s)


class TopicStyle(Enum):
    """zwave-js-ui `gateway.type` (+ `nodeNames`): how value topics are spelled."""

    NAMED = "named"  # type 1: <loc>/<name>/<cc_name>/endpoint_<ep>/<propertyName>[/<propertyKey>]
    VALUEID = "valueid"  # type 0: <loc>/<nodeId>/<cc>/<ep>/<property>[/<propertyKey>]
    VALUEID_NAMES = "valueid_names"  # type 0 + nodeNames: <loc>/<name>/<cc>/<ep>/<property>[/<propertyKey>]


class TopicKind(Enum):
    API_REPLY = "api_reply"  # `name` = API name; handled by the API client, not the inventory
    CLIENT_STATUS = "client_status"
    CLIENT_VERSION = "client_version"
    DRIVER_STATUS = "driver_status"
    EVENT = "event"  # `scope` = driver|controller|node, `name` = event name
    NODE = "node"  # `rest` = the path after the prefix (node part + value/status part)
    SET_REQUEST = "set_request"  # anything ending in /set: writes by us or others; never state
    FOREIGN = "foreign"  # outside the prefix, other gateways, echoes of group writes


@dataclass(frozen=True, slots=True)
class TopicInfo:
    kind: TopicKind
    name: str = ""
    scope: str = ""
    rest: str = ""


CLASSIFIED_MAX = 4096  # topics whose classification is remembered (~1 MB; the busy ones stay)
CLASSIFIED_TOPIC_MAX = 256  # longer topics are classified every time (no memory for absurd ones)

# Per-node topic attributes that are not values.
NODE_ATTRIBUTES = ("status", "lastActive", "nodeinfo")


class GatewayTopics:
    """The fixed topics of one zwave-js-ui gateway (`mqtt.prefix`, `mqtt.name`)."""

    def __init__(self, prefix: str = "zwave", gateway_name: str = "zwave-js-ui") -> None:
        self.prefix = prefix.strip("/")
        self.gateway_name = gateway_name
        self.client_id = f"ZWAVE_GATEWAY-{sanitize_level(gateway_name)}"
        self.client_base = f"{self.prefix}/_CLIENTS/{self.client_id}"
        self.client_status = f"{self.client_base}/status"
        self.client_version = f"{self.client_base}/version"
        self.driver_status = f"{self.prefix}/driver/status"
        self.events_prefix = f"{self.prefix}/_EVENTS/{self.client_id}"
        self._api_base = f"{self.client_base}/api/"
        self._root = f"{self.prefix}/"
        self._clients_root = f"{self.prefix}/_CLIENTS/"
        self._events_root = f"{self.events_prefix}/"
        self._any_events_root = f"{self.prefix}/_EVENTS/"
        # The answers of `classify` for topics seen before: a write brings ~10 messages on a handful of
        # topics, and a house's topics repeat all day. Bounded: topics come from outside.
        self._classified: dict[str, TopicInfo] = {}

    def api_request(self, name: str) -> str:
        return f"{self._api_base}{name}/set"

    def api_reply(self, name: str) -> str:
        return f"{self._api_base}{name}"

    def api_replies(self) -> str:
        """Every API reply (and nothing else: requests are one level deeper, under `/set`)."""
        return f"{self._api_base}+"

    def subscriptions(self) -> list[str]:
        """What a client subscribes to.

        Node topics sit directly under the prefix at any depth (`<loc>/<name>/...`), so nothing narrower
        than `<prefix>/#` catches them all; one filter also covers `_CLIENTS`, `_EVENTS` and
        `driver/status`. The cost: `/set` requests (ours and other clients') and other gateways' topics
        arrive too, and `classify` marks them SET_REQUEST / FOREIGN so they are ignored.
        """
        return [f"{self.prefix}/#"]

    def classify(self, topic: str) -> TopicInfo:
        """What a received topic is (called for every message; remembered for short topics)."""
        info = self._classified.get(topic)
        if info is None:
            info = self._classify(topic)
            if len(topic) <= CLASSIFIED_TOPIC_MAX:
                if len(self._classified) >= CLASSIFIED_MAX:
                    self._classified.clear()  # a flood of new topics: start over rather than grow
                self._classified[topic] = info
        return info

    def _classify(self, topic: str) -> TopicInfo:
        if not topic.startswith(self._root):
            return TopicInfo(TopicKind.FOREIGN)
        if topic.endswith("/set"):
            return TopicInfo(TopicKind.SET_REQUEST)
        if topic.startswith(self._clients_root):
            if topic.startswith(self._api_base):
                name = topic[len(self._api_base) :]
                if name and "/" not in name:
                    return TopicInfo(TopicKind.API_REPLY, name=name)
                return TopicInfo(TopicKind.FOREIGN)
            if topic == self.client_status:
                return TopicInfo(TopicKind.CLIENT_STATUS)
            if topic == self.client_version:
                return TopicInfo(TopicKind.CLIENT_VERSION)
            return TopicInfo(TopicKind.FOREIGN)  # echoes of group writes, other gateways
        if topic == self.driver_status:
            return TopicInfo(TopicKind.DRIVER_STATUS)
        if topic.startswith(self._events_root):
            scope, _, name = topic[len(self._events_root) :].partition("/")
            if scope in ("driver", "controller", "node") and name and "/" not in name:
                return TopicInfo(TopicKind.EVENT, name=name, scope=scope)
            return TopicInfo(TopicKind.FOREIGN)
        if topic.startswith(self._any_events_root):
            return TopicInfo(TopicKind.FOREIGN)
        return TopicInfo(TopicKind.NODE, rest=topic[len(self._root) :])

    def node_topic(self, node: ZNode, style: TopicStyle, ignore_loc: bool = False) -> str:
        """`<prefix>/<loc>/<name or id>`: the base of a node's status/lastActive/nodeinfo and values."""
        parts = [self.prefix]
        if node.location and not ignore_loc:
            parts.append(sanitize_level(node.location))
        if style is TopicStyle.VALUEID:
            parts.append(str(node.id))
        else:
            parts.append(sanitize_level(node.name) if node.name else f"nodeID_{node.id}")
        return "/".join(parts)

    def value_topic(self, node: ZNode, value: ZValue, style: TopicStyle, ignore_loc: bool = False) -> str:
        """The topic zwave-js-ui publishes `value` on (append `/set` to write through it)."""
        return f"{self.node_topic(node, style, ignore_loc)}/{value_suffix(value, style)}"


def value_suffix(value: ZValue, style: TopicStyle) -> str:
    """The value part of a value topic (after the node part), as observed in captures a/b/c."""
    if style is TopicStyle.NAMED:
        parts = [
            cc_topic_name(value.command_class),
            f"endpoint_{value.endpoint}",
            sanitize_level(value.property_name or value.property),
        ]
    else:
        parts = [str(value.command_class), str(value.endpoint), sanitize_level(value.property)]
    if value.property_key is not None:
        parts.append(sanitize_level(value.property_key))
    return "/".join(parts)


def _suffix_variants(value: ZValue) -> Iterator[tuple[str, bool]]:
    """(suffix, primary) for every spelling a zwave-js-ui version could use for this value.

    Primary = the spelling seen in the captures (propertyName / raw propertyKey). Secondary spellings
    (property instead of propertyName, propertyKeyName instead of propertyKey) are accepted only where
    they do not collide with another value's spelling.
    """
    ep = value.endpoint
    vid_prop = sanitize_level(value.property)
    props = list(dict.fromkeys((sanitize_level(value.property_name or value.property), vid_prop)))
    keys: list[str | None] = [None]
    if value.property_key is not None:
        keys = [sanitize_level(value.property_key)]
        if value.property_key_name:
            keys = list(dict.fromkeys((*keys, sanitize_level(value.property_key_name))))
    cc_names = [cc_topic_name(value.command_class)]
    if not cc_names[0].startswith("unknownClass_"):
        cc_names.append(f"unknownClass_{value.command_class}")
    for ci, cc_name in enumerate(cc_names):
        for pi, prop in enumerate(props):
            for ki, key in enumerate(keys):
                tail = prop if key is None else f"{prop}/{key}"
                yield f"{cc_name}/endpoint_{ep}/{tail}", ci == 0 and pi == 0 and ki == 0
    for ki, key in enumerate(keys):
        tail = vid_prop if key is None else f"{vid_prop}/{key}"
        yield f"{value.command_class}/{ep}/{tail}", ki == 0


@dataclass(frozen=True, slots=True)
class IndexHit:
    """A node-level topic mapped back: a value (`value_id`) or a node attribute (`attribute`)."""

    node_id: int
    value_id: str | None = None
    attribute: str | None = None  # "status" | "lastActive" | "nodeinfo"
    stale: bool = False  # under a name/location the node no longer has: ignore


_AMBIGUOUS = ""  # marks a suffix two values of one node share after sanitizing
# `resolve` remembers this many answers (topics repeat: each value has one), only for topics this short
# (a hostile flood of long unique topics must not grow memory); any change to the index forgets them.
RESOLVED_CACHE_SIZE = 16_384
RESOLVED_CACHE_TOPIC_LEN = 200


def node_prefixes(node: ZNode) -> list[str]:
    """Every node part a topic about `node` can start with, in all styles, with and without location."""
    names = [sanitize_level(node.name)] if node.name else [f"nodeID_{node.id}"]
    names.append(str(node.id))
    out = list(names)
    loc = sanitize_level(node.location) if node.location else ""
    if loc:
        out.extend(f"{loc}/{n}" for n in names)
    return out


class ValueTopicIndex:
    """Node-level topic (the `rest` after the prefix) → `IndexHit`, O(1) per message.

    Two dict look-ups: the node part (one or two levels: `[<loc>/]<name|id|nodeID_n>`) and then the
    value part within that node. Value parts of a node are built lazily on its first message, so
    building the index for a 4,000-node house costs only the node-part map.
    Call `update_node(node)` after a node's name/location changed, `invalidate_values(node_id)` after
    its values changed, `rebuild(nodes)` after a new `getNodes`. Answers are remembered per topic
    (bounded) until one of these is called.
    """

    def __init__(self, nodes: Mapping[int, ZNode]) -> None:
        self._resolved: dict[str, IndexHit | None] = {}
        self.rebuild(nodes)

    def rebuild(self, nodes: Mapping[int, ZNode]) -> None:
        self._nodes: Mapping[int, ZNode] = nodes
        self._prefixes: dict[str, tuple[int, ...]] = {}
        self._node_prefixes: dict[int, list[str]] = {}
        self._retired: dict[str, int] = {}
        self._suffixes: dict[int, dict[str, str]] = {}
        self._resolved.clear()
        for node in nodes.values():
            self._add_prefixes(node)

    def _add_prefixes(self, node: ZNode) -> None:
        prefixes = node_prefixes(node)
        self._node_prefixes[node.id] = prefixes
        for p in prefixes:
            current = self._prefixes.get(p, ())
            if node.id not in current:
                self._prefixes[p] = (*current, node.id)
            if self._retired.get(p) == node.id:
                del self._retired[p]

    def update_node(self, node: ZNode) -> None:
        """Re-key a node after its name or location changed; old prefixes become stale."""
        self._resolved.clear()
        old = self._node_prefixes.get(node.id, [])
        new = set(node_prefixes(node))
        for p in old:
            if p in new:
                continue
            remaining = tuple(i for i in self._prefixes.get(p, ()) if i != node.id)
            if remaining:
                self._prefixes[p] = remaining
            else:
                self._prefixes.pop(p, None)
            self._retired[p] = node.id
        self._add_prefixes(node)

    def invalidate_values(self, node_id: int) -> None:
        self._suffixes.pop(node_id, None)
        self._resolved.clear()

    def _suffix_map(self, node_id: int) -> dict[str, str]:
        cached = self._suffixes.get(node_id)
        if cached is not None:
            return cached
        node = self._nodes.get(node_id)
        built: dict[str, str] = {}
        if node is not None:
            secondary: dict[str, str] = {}
            for value in node.values.values():
                for suffix, primary in _suffix_variants(value):
                    target = built if primary else secondary
                    if suffix in target and target[suffix] != value.value_id:
                        target[suffix] = _AMBIGUOUS
                    else:
                        target[suffix] = value.value_id
            for suffix, vid in secondary.items():
                built.setdefault(suffix, vid)
        self._suffixes[node_id] = built
        return built

    def _match(self, node_ids: tuple[int, ...], tail: str, stale: bool) -> IndexHit | None:
        found: IndexHit | None = None
        for node_id in node_ids:
            if tail in NODE_ATTRIBUTES:
                hit = IndexHit(node_id, attribute=tail, stale=stale)
            else:
                vid = self._suffix_map(node_id).get(tail)
                if not vid:  # unknown or ambiguous within the node
                    continue
                hit = IndexHit(node_id, value_id=vid, stale=stale)
            if found is not None:
                return None  # two nodes share this topic (same name and location): refuse to guess
            found = hit
        return found

    def node_part(self, rest: str) -> tuple[int, str] | None:
        """The node a topic names by its current name (one node only) and what follows the node part:
        for topics of no value the picture knows, such as a notification's event topic."""
        for part, tail in _node_parts(rest):
            ids = self._prefixes.get(part)
            if ids and len(ids) == 1:
                return ids[0], tail
        return None

    def resolve(self, rest: str) -> IndexHit | None:
        """Map `rest` (topic without `<prefix>/`) to a node value/attribute, or None if unknown."""
        try:
            return self._resolved[rest]
        except KeyError:
            pass
        hit = self._resolve(rest)
        if len(rest) <= RESOLVED_CACHE_TOPIC_LEN:
            if len(self._resolved) >= RESOLVED_CACHE_SIZE:
                self._resolved.clear()
            self._resolved[rest] = hit
        return hit

    def _resolve(self, rest: str) -> IndexHit | None:
        parts = _node_parts(rest)
        for part, tail in parts:
            ids = self._prefixes.get(part)
            hit = self._match(ids, tail, stale=False) if ids else None
            if hit is not None:
                return hit
        # Retired (old name/location) prefixes: map, but flagged stale.
        for part, tail in parts:
            old = self._retired.get(part)
            hit = self._match((old,), tail, stale=True) if old is not None else None
            if hit is not None:
                return hit
        return None


def _node_parts(rest: str) -> list[tuple[str, str]]:
    """(node part, what follows) for each way `rest` can start with a node part: the two-level node part
    (`<loc>/<name>`) first, since it is the more specific one, then the one-level one."""
    first, sep, tail1 = rest.partition("/")
    if not sep:
        return []
    second, sep2, tail2 = tail1.partition("/")
    one = (first, tail1)
    return [(f"{first}/{second}", tail2), one] if sep2 else [one]
