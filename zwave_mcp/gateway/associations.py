"""Direct associations through zwave-js-ui 11.22.2 (`api/lib/ZwaveClient.ts`): a node's association groups
and what each controls, checked, added and removed.

Where each part comes from:
- the groups: the node object `getNodes` gives has `groups`, one per group of each endpoint with
  Association CC (`ZwaveClient.getGroups`, from zwave-js's `getAllAssociationGroups`):
  `{title, endpoint, value, maxNodes, isLifeline, multiChannel}`. zwave-js-ui does not publish what a group
  sends (zwave-js's `issuedCommands`); zwave-js's own `checkAssociation` judges that where the device says;
- `getAssociations(nodeId, refresh=false)`: `[{endpoint, groupId, nodeId, targetEndpoint?}]`, zwave-js's
  cache (`getAllAssociations`); `[]` for a node without Association CC or unknown to zwave-js-ui;
- `checkAssociation(source, groupId, destination)`: zwave-js's `AssociationCheckResult` (1 OK); it throws
  (`success: false`) for a node or endpoint that does not exist or has no associations;
- `addAssociations(source, groupId, [destination])`: checks each destination first and adds only the OK
  ones, answering `success: true` with the check results (`[1]`, or `[4]` for one it did not add);
- `removeAssociations(source, groupId, [destination])`: zwave-js-ui swallows every error and answers
  `success: true` with no result, so only reading the associations again shows what happened.

The reads may be made by anyone; `add` and `remove` are requests the write gate sends (`AdminRequest`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zwave_mcp.gateway.admin import AdminApiFailed, AdminRequest
from zwave_mcp.gateway.api import ApiTimeout
from zwave_mcp.gateway.model import ZNode
from zwave_mcp.safetext import plain_text

if TYPE_CHECKING:
    from zwave_mcp.gateway.client import ZwaveGateway

# A sleeping device's change waits for it to wake up: this long for zwave-js-ui's answer, then it is queued.
QUEUED_AFTER_S = 2.0
QUEUED = "queued"

# zwave-js's AssociationCheckResult (packages/cc/src/lib/_Types.ts), in the words the answer says.
CHECK_OK = 1
CHECK_WORDS = {
    2: "the target is a Long Range device, and Long Range devices cannot control each other",
    3: "the device is a Long Range device, and Long Range devices cannot control each other",
    4: "a device cannot control itself",
    5: "the two devices were added with different security, so the target would not accept its commands",
    6: "the device does not hold the target's security key, so the target would not accept its commands",
    7: "the target does not understand any command this group sends",
}


@dataclass(frozen=True, slots=True)
class Group:
    """One association group of a node's endpoint, as zwave-js-ui publishes it."""

    endpoint: int
    number: int
    label: str
    max_nodes: int
    lifeline: bool
    multi_channel: bool


@dataclass(frozen=True, slots=True)
class Link:
    """One association: group `group` of the source's `endpoint` sends to `node_id` (its `target_endpoint`,
    or the node itself when None)."""

    endpoint: int
    group: int
    node_id: int
    target_endpoint: int | None = None

    def address(self) -> dict[str, int]:
        """The destination as zwave-js's AssociationAddress."""
        address = {"nodeId": self.node_id}
        if self.target_endpoint is not None:
            address["endpoint"] = self.target_endpoint
        return address


def _int(raw: Any) -> int | None:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else None


def groups_of(node: ZNode) -> list[Group]:
    """The node's association groups from its `groups` (kept in `ZNode.details`), each checked at the edge:
    a group without a number or with a bad one is left out."""
    found: list[Group] = []
    for raw in node.details.get("groups") or []:
        if not isinstance(raw, dict):
            continue
        number, endpoint = _int(raw.get("value")), _int(raw.get("endpoint"))
        if number is None or number < 1:
            continue
        label = plain_text(str(raw.get("title") or ""))[:80] or f"Unnamed group {number}"
        found.append(
            Group(
                endpoint=endpoint or 0,
                number=number,
                label=label,
                max_nodes=max(1, _int(raw.get("maxNodes")) or 1),
                lifeline=raw.get("isLifeline") is True,
                multi_channel=raw.get("multiChannel") is True,
            )
        )
    return sorted(found, key=lambda g: (g.endpoint, g.number))


def parse_links(result: Any) -> list[Link]:
    """`getAssociations`' result as links; records that do not fit zwave-js-ui's shape are left out."""
    links: list[Link] = []
    for raw in result if isinstance(result, list) else []:
        if not isinstance(raw, dict):
            continue
        group, node_id = _int(raw.get("groupId")), _int(raw.get("nodeId"))
        if group is None or node_id is None:
            continue
        links.append(Link(_int(raw.get("endpoint")) or 0, group, node_id, _int(raw.get("targetEndpoint"))))
    return links


def source(node_id: int, endpoint: int) -> dict[str, int]:
    """The source as zwave-js's AssociationAddress (the root endpoint is said without one)."""
    return {"nodeId": node_id, **({"endpoint": endpoint} if endpoint else {})}


async def read_links(gateway: ZwaveGateway, node_id: int, timeout: float | None = None) -> list[Link]:
    """What every group of the node controls now, as zwave-js last read it from the device."""
    reply = await gateway.call("getAssociations", node_id, timeout=timeout)
    if not reply.success:
        raise AdminApiFailed(reply.message or "zwave-js-ui could not read the associations")
    return parse_links(reply.result)


async def check(gateway: ZwaveGateway, link: Link, node_id: int, timeout: float | None = None) -> int | None:
    """zwave-js's verdict on the association (`checkAssociation`), or None when it gave none."""
    reply = await gateway.call(
        "checkAssociation", source(node_id, link.endpoint), link.group, link.address(), timeout=timeout
    )
    if not reply.success:
        raise AdminApiFailed(reply.message or "zwave-js-ui could not check the association")
    return _int(reply.result)


def _added(result: Any) -> Any:
    """`addAssociations` answers its check results; one that is not OK was not added."""
    codes = result if isinstance(result, list) else []
    refused = next((c for c in codes if c != CHECK_OK), None)
    if refused is not None:
        raise AdminApiFailed(
            f"zwave-js did not add it: {CHECK_WORDS.get(refused, f'check result {refused}')}"
        )
    return result


def add(
    gateway: ZwaveGateway, node_id: int, link: Link, timeout: float, asleep: bool = False
) -> AdminRequest:
    return _change(gateway, "addAssociations", node_id, link, timeout, asleep, _added)


def remove(
    gateway: ZwaveGateway, node_id: int, link: Link, timeout: float, asleep: bool = False
) -> AdminRequest:
    return _change(gateway, "removeAssociations", node_id, link, timeout, asleep, lambda result: result)


def _change(
    gateway: ZwaveGateway,
    api: str,
    node_id: int,
    link: Link,
    timeout: float,
    asleep: bool,
    then: Callable[[Any], Any],
) -> AdminRequest:
    """One change of one group. zwave-js-ui answers it only once the device has taken it (and been asked
    for the group again): for a sleeping device that is when it wakes up, so after `QUEUED_AFTER_S` the
    request counts as queued (`QUEUED`) rather than lost."""
    args = [source(node_id, link.endpoint), link.group, [link.address()]]

    async def run() -> Any:
        try:
            reply = await gateway.call(
                api, *args, timeout=min(timeout, QUEUED_AFTER_S) if asleep else timeout
            )
        except ApiTimeout:
            if asleep:
                return QUEUED
            raise
        if not reply.success:
            raise AdminApiFailed(reply.message or f"zwave-js-ui refused {api}")
        return then(reply.result)

    return AdminRequest(api, args, run)
