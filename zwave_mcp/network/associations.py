"""Direct associations in people's words: which group of a device controls which device, a group found by
its label, and a new association checked before it is sent.

Pure: the groups and links come from `gateway.associations` (the node's `groups`, `getAssociations`);
the tool (`server/tools/admin_associations.py`) reads them and carries the change through the gate.
A group is said by its label ("PIR Control"), never by its number alone; a device by its name; the
controller, which the lifeline reports to, as zwave-mcp.
"""

from __future__ import annotations

from collections.abc import Callable

from zwave_mcp.answers import and_list
from zwave_mcp.devices.model import Device
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.associations import Group, Link
from zwave_mcp.names import normalize
from zwave_mcp.zwave.classes import CC

# What a controlling group sends is Basic, Binary Switch or Multilevel Switch (zwave-js-ui does not say
# which; zwave-js's checkAssociation does where the device tells). A device takes them when it has one of
# these, or an actuator class that Basic is mapped onto (a lock, a barrier, a siren, a window covering).
TAKES_COMMANDS = frozenset(
    {
        CC.BASIC,
        CC.BINARY_SWITCH,
        CC.MULTILEVEL_SWITCH,
        CC.DOOR_LOCK,
        CC.BARRIER_OPERATOR,
        CC.SOUND_SWITCH,
        CC.WINDOW_COVERING,
    }
)
CONTROLLER = "zwave-mcp"
NOTHING_SENT = "Nothing was sent."

# (node id, endpoint or None) → the name of the device there, None for one people may not see.
NameOf = Callable[[int, int | None], str | None]


def groups_for(device: Device, groups: list[Group]) -> list[Group]:
    """The groups of the device's own endpoint, else those of the node's root (a node's main device)."""
    endpoint = device.endpoint or 0
    own = [g for g in groups if g.endpoint == endpoint]
    return own or [g for g in groups if g.endpoint == 0]


def links_of(group: Group, links: list[Link]) -> list[Link]:
    return [link for link in links if link.endpoint == group.endpoint and link.group == group.number]


def takes_commands(target: Device) -> bool:
    """Whether the target understands what a controlling group sends (on/off, a level)."""
    endpoint = target.endpoint or 0
    classes = {v.command_class for v in target.all_values()}
    classes |= {v.command_class for v in target.node.values.values() if v.endpoint == endpoint}
    return bool(classes & TAKES_COMMANDS)


def link_to(target: Device, group: Group) -> Link:
    """The association of `group` to `target`: to its endpoint where a multi channel group can address
    one, else to the node, which is the target itself when it is the node's main part (its name is the
    node's); another part of a node only a multi channel group reaches."""
    if target.endpoint and group.multi_channel:
        return Link(group.endpoint, group.number, target.node_id, target.endpoint)
    if target.endpoint and target.part is not None:
        raise UserError(
            f"{group.label} can only control whole devices, and {target.name} is one part of its "
            f"device; {NOTHING_SENT}"
        )
    return Link(group.endpoint, group.number, target.node_id)


def aims_at(link: Link, target: Device) -> bool:
    """Whether the association goes to `target`: its endpoint, or its node when it is the node's main part."""
    if link.node_id != target.node_id:
        return False
    if link.target_endpoint:
        return link.target_endpoint == target.endpoint
    return not target.endpoint or target.part is None


def pick_group(groups: list[Group], asked: int | str | None, device: Device) -> Group:
    """The group the person named (its label, or its number), or the only group that controls others."""
    if not groups:
        raise UserError(
            f"{device.name} has no association groups, so it cannot control other devices directly."
        )
    labels = and_list([f"'{g.label}'" for g in groups], last="or")
    if asked is None:
        controlling = [g for g in groups if not g.lifeline]
        if len(controlling) == 1:
            return controlling[0]
        if not controlling:
            raise UserError(
                f"{device.name} has only its lifeline, which reports to {CONTROLLER}; it controls nothing."
            )
        raise UserError(f"Which group of {device.name}: {labels}? {NOTHING_SENT}")
    if isinstance(asked, int) or (isinstance(asked, str) and asked.strip().isdigit()):
        number = int(asked)
        found = [g for g in groups if g.number == number]
    else:
        wanted = normalize(str(asked))
        found = [g for g in groups if normalize(g.label) == wanted]
        found = found or [g for g in groups if wanted and wanted in normalize(g.label)]
    if len(found) != 1:
        problem = "no group" if not found else "several groups"
        raise UserError(
            f"{device.name} has {problem} called '{str(asked)[:40]}'; it has {labels}. {NOTHING_SENT}"
        )
    return found[0]


def check_room(group: Group, links: list[Link], device: Device) -> None:
    """A group holds at most `max_nodes` devices: refuse before anything is sent rather than let the device
    drop it silently."""
    held = links_of(group, links)
    if len(held) >= group.max_nodes:
        raise UserError(
            f"{device.name}'s {group.label} already controls {len(held)} of the {group.max_nodes} it can hold; "
            f"remove one first. {NOTHING_SENT}"
        )


def said(link: Link, name_of: NameOf, controller_id: int) -> str:
    """Where a link goes, in words: a device's name, zwave-mcp for the controller, or a hidden device."""
    if link.node_id == controller_id:
        return CONTROLLER
    return name_of(link.node_id, link.target_endpoint) or "a device zwave-mcp does not show"


# From this many groups that control nothing, they are said together, by their number.
FOLD_IDLE = 3


def group_sentence(group: Group, links: list[Link], name_of: NameOf, controller_id: int) -> str:
    """ "PIR Control controls Kitchen Light", "Lifeline reports to zwave-mcp", "Double Tap controls nothing"."""
    held = links_of(group, links)
    if not held:
        return f"{group.label} controls nothing"
    targets = [said(link, name_of, controller_id) for link in held]
    if group.lifeline and targets == [CONTROLLER]:
        return f"{group.label} reports to {CONTROLLER}"
    verb = "reports to" if group.lifeline else "controls"
    return f"{group.label} {verb} {and_list(targets)}"


def device_sentence(
    device: Device, groups: list[Group], links: list[Link], name_of: NameOf, controller_id: int
) -> str:
    """What each group of the device controls, in one sentence."""
    if not groups:
        return f"{device.name} has no association groups, so it controls no other device directly."
    idle = [g for g in groups if not links_of(g, links)]
    if len(idle) < FOLD_IDLE:
        parts = [group_sentence(g, links, name_of, controller_id) for g in groups]
        return f"On {device.name}, " + "; ".join(parts) + "."
    # A remote's eight empty button groups said one by one drown what is set; their labels are in the list.
    busy = [group_sentence(g, links, name_of, controller_id) for g in groups if g not in idle]
    if not busy:
        return f"On {device.name}, none of its {len(idle)} groups controls anything."
    return f"On {device.name}, " + "; ".join(busy) + f"; its other {len(idle)} groups control nothing."
