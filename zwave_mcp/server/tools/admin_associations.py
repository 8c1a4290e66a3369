"""Direct associations (ZWAVE_MCP_ADMIN=true, issue 45 item 1): "what does the porch switch control?",
"make the hallway motion sensor turn on the hall light by itself", "stop the remote controlling the lamp".

The groups are the node's own (`groups` in getNodes), said by their labels; what each controls is read with
`getAssociations`. A change is checked before it is sent (the target takes on/off or level commands, the
group has room, zwave-js's `checkAssociation` agrees), goes through the gate as an `AdminChange` with one
effect on each device (the target's says what the source could then do to it: a lock, a door or a siren
needs the person's yes, and so does removing the lifeline), and is proven by reading the associations again.
"""

from __future__ import annotations

from functools import partial

from mcp.server.mcpserver import Context

from zwave_mcp.answers import and_list
from zwave_mcp.devices.gate import Effect
from zwave_mcp.devices.model import Device
from zwave_mcp.errors import UserError
from zwave_mcp.gateway import associations as api
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.gateway.associations import Group, Link
from zwave_mcp.network.associations import (
    CONTROLLER,
    NOTHING_SENT,
    aims_at,
    check_room,
    device_sentence,
    group_sentence,
    groups_for,
    link_to,
    links_of,
    pick_group,
    said,
    takes_commands,
)
from zwave_mcp.network.changes import AdminChange
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.server.app import App
from zwave_mcp.server.asking import asker_for
from zwave_mcp.server.tools.admin_models import change_fields
from zwave_mcp.server.tools.association_models import (
    AssociationArgs,
    AssociationGroupInfo,
    AssociationList,
    AssociationResult,
)
from zwave_mcp.server.tools.models import DeviceArgs
from zwave_mcp.server.tools.spec import tool


def _controller_id(app: App) -> int:
    nodes = app.gateway.inventory.nodes.values()
    return next((n.id for n in nodes if n.is_controller), 1)


def _name_of(app: App, node_id: int, endpoint: int | None) -> str | None:
    """The visible device at a node (its main device) or at one of its endpoints; None for a hidden one."""
    devices = [d for d in app.devices.devices_of_node(node_id) if app.policy.visible(d)]
    if endpoint:
        found = next((d for d in devices if d.endpoint == endpoint), None)
    else:
        found = next((d for d in devices if d.part is None), devices[0] if devices else None)
    return found.name if found is not None else None


def _source(app: App, name: str, *, for_mutation: bool = False) -> Device:
    """The device whose associations are asked about: "the porch switch", which fits both halves of the
    Porch Double Switch, is its node when both halves have the same groups (else which one is a question)."""

    def alike(parts: list[Device]) -> bool:
        groups = api.groups_of(parts[0].node)
        return len({tuple(groups_for(d, groups)) for d in parts}) == 1

    return app.devices.resolve_node(name, for_mutation=for_mutation, alike=alike)


async def _read(app: App, device: Device) -> tuple[list[Group], list[Link]]:
    groups = groups_for(device, api.groups_of(device.node))
    if not groups:
        return groups, []
    try:
        links = await api.read_links(app.gateway, device.node_id, timeout=app.settings.api_timeout)
    except GatewayError as exc:
        raise UserError(f"The associations of {device.name} could not be read: {exc}") from None
    return groups, links


def _info(app: App, group: Group, links: list[Link]) -> AssociationGroupInfo:
    controller = _controller_id(app)
    return AssociationGroupInfo(
        label=group.label,
        number=group.number,
        endpoint=group.endpoint,
        maxNodes=group.max_nodes,
        lifeline=group.lifeline,
        controls=[said(link, partial(_name_of, app), controller) for link in links_of(group, links)],
    )


async def list_zwave_associations(app: App, args: DeviceArgs, _ctx: Context | None) -> AssociationList:
    """What a device controls directly, without zwave-mcp (its association groups, each by its label, and
    the devices each one switches), and which group reports to zwave-mcp (the lifeline)."""
    device = _source(app, args.deviceName)
    groups, links = await _read(app, device)
    summary = device_sentence(device, groups, links, partial(_name_of, app), _controller_id(app))
    return AssociationList(
        summary=summary, device=device.label, groups=[_info(app, g, links) for g in groups]
    )


def _target_effect(source: Device, target: Device, adding: bool, link: Link) -> Effect:
    """The association as the target lives it: another device that can switch it by itself (judged as
    such: a lock, a door, a siren asks), or one that no longer can."""
    words = frozenset({"be_controlled"} if adding else {"dissociate"})
    text = (
        f"let {source.name} control {target.name}"
        if adding
        else f"stop {source.name} controlling {target.name}"
    )
    return Effect(target, None, _binding(link), words, argument=_binding(link), text=text)


def _binding(link: Link) -> str:
    """The association a yes is bound to: source endpoint, group, target node and endpoint."""
    return f"{link.endpoint}:{link.group}->{link.node_id}:{link.target_endpoint or 0}"


async def _checked(
    app: App, device: Device, target: Device, group: Group, link: Link, links: list[Link]
) -> None:
    """The association to add, checked before anything is sent; raises `UserError` saying why not."""
    if group.lifeline:
        raise UserError(
            f"{device.name}'s {group.label} is its lifeline, which reports to {CONTROLLER}; "
            f"choose a group that controls devices. {NOTHING_SENT}"
        )
    if not takes_commands(target):
        raise UserError(
            f"{target.name} cannot be switched by another device (it takes no on/off or level commands), so "
            f"{device.name} cannot control it. {NOTHING_SENT}"
        )
    check_room(group, links, device)
    try:
        verdict = await api.check(app.gateway, link, device.node_id, timeout=app.settings.api_timeout)
    except GatewayError:
        verdict = None  # zwave-js checks it again when it adds it, and says why it did not
    if verdict is not None and verdict != api.CHECK_OK:
        words = api.CHECK_WORDS.get(verdict, f"zwave-js refused it (check result {verdict})")
        raise UserError(f"{device.name} cannot control {target.name}: {words}. {NOTHING_SENT}")


async def change_zwave_association(app: App, args: AssociationArgs, ctx: Context | None) -> AssociationResult:
    """Make a device control another by itself, without zwave-mcp (add), or stop it (remove): "make the
    hallway motion sensor turn on the hall light". The group is said by its label; the change is checked
    first (the target takes on/off or level commands, the group has room); controlling a lock, a door or a
    siren, and removing the lifeline, need the person's yes; the answer says what was read back."""
    device = _source(app, args.deviceName, for_mutation=True)
    adding = args.action == "add"
    if adding and not args.targetDevice:
        raise UserError("Say which device it should control (targetDevice).")
    target = app.devices.resolve(args.targetDevice, for_mutation=True) if args.targetDevice else None
    groups, links = await _read(app, device)
    controller = _controller_id(app)
    name_of = partial(_name_of, app)
    if adding:
        assert target is not None
        group = pick_group(groups, args.group, device)
        link = link_to(target, group)
        if any(aims_at(held, target) for held in links_of(group, links)):
            summary = f"{device.name}'s {group.label} already controls {target.name}; nothing was sent."
            return AssociationResult(
                summary=summary,
                outcome=str(Outcome.UNCHANGED),
                device=device.label,
                group=group.label,
                readBack=[group_sentence(group, links, name_of, controller)],
            )
        await _checked(app, device, target, group, link, links)
        chosen = [(group, link)]
    else:
        chosen = _to_remove(device, target, groups, links, args.group, controller)
    node = device.node
    asleep = not node.is_listening and not node.is_frequent_listening
    requests = [
        (api.add if adding else api.remove)(
            app.gateway, device.node_id, link, app.settings.api_timeout, asleep
        )
        for _, link in chosen
    ]
    whom = target.name if target is not None else CONTROLLER
    labels = and_list([g.label for g, _ in chosen])
    what = (
        f"let {device.name}'s {labels} control {whom}"
        if adding
        else f"stop {device.name}'s {labels} "
        + ("reporting to" if target is None else "controlling")
        + f" {whom}"
    )
    lifeline = not adding and any(link.node_id == controller for _, link in chosen)
    words = {"associate"} if adding else {"dissociate"} | ({"stop_reports"} if lifeline else set())
    also = (
        [_target_effect(device, target, adding, link) for _, link in chosen[:1]] if target is not None else []
    )
    after: list[Link] | None = None  # the associations read again: None until (unless) they could be

    async def verify() -> str | None:
        """The evidence: the associations read again show each link added (or gone). zwave-js asked the
        device for the group again at the end of the change, so this is the device's own answer."""
        nonlocal after
        after = await api.read_links(app.gateway, device.node_id, timeout=app.settings.api_timeout)
        wrong = [link for _, link in chosen if (link in after) != adding]
        return None if not wrong else "the associations read back do not show it"

    change = AdminChange(
        tool="change_zwave_association",
        action="add_association" if adding else "remove_association",
        what=what,
        words=frozenset(words),
        device=device,
        value=[_binding(link) for _, link in chosen],
        requests=requests,
        also=also,
        verify=verify,
    )
    carried = await app.care.carry(change, args.confirmationToken, asker_for(ctx, app.questions))
    if not carried.sent:
        return AssociationResult(**change_fields(carried), device=device.label, group=labels, readBack=None)
    read_back = None if after is None else [group_sentence(g, after, name_of, controller) for g, _ in chosen]
    if carried.result == api.QUEUED:
        now = f"; for now, {'; '.join(read_back)}" if read_back else ""
        summary = (
            f"{device.name} is asleep, so it takes the change when it next wakes up (a press of its button "
            f"wakes most battery devices), and list_zwave_associations then shows it{now}."
        )
    elif read_back is None:
        summary = (
            f"The change was sent to {device.name}, but its associations could not be read back, so it is "
            "not confirmed; list_zwave_associations reads them again."
        )
    elif carried.outcome is Outcome.CONFIRMED:
        done = (
            "now controls" if adding else ("no longer reports to" if target is None else "no longer controls")
        )
        summary = (
            f"{device.name}'s {labels} {done} {whom}; read back from the device: {'; '.join(read_back)}."
        )
    else:
        summary = (
            f"The change was sent to {device.name}, but the associations read back do not show it: "
            f"{'; '.join(read_back)}."
        )
    return AssociationResult(
        summary=summary,
        outcome=str(Outcome.QUEUED if carried.result == api.QUEUED else carried.outcome),
        devices=carried.touched_names,
        device=device.label,
        group=labels,
        readBack=read_back,
    )


def _to_remove(
    device: Device,
    target: Device | None,
    groups: list[Group],
    links: list[Link],
    asked: int | str | None,
    controller: int,
) -> list[tuple[Group, Link]]:
    """The links to remove: to `target` (or, with none, the controller's lifeline) in the group asked for,
    else in every group of the device that has one."""
    in_groups = [pick_group(groups, asked, device)] if asked is not None else groups
    if target is None:
        if asked is None:
            raise UserError(
                f"Say which device {device.name} should stop controlling (targetDevice). {NOTHING_SENT}"
            )
        wanted = [(g, link) for g in in_groups for link in links_of(g, links) if link.node_id == controller]
        whom = CONTROLLER
    else:
        wanted = [(g, link) for g in in_groups for link in links_of(g, links) if aims_at(link, target)]
        whom = target.name
    if not wanted:
        where = f"'s {in_groups[0].label}" if asked is not None and in_groups else ""
        raise UserError(f"{device.name}{where} does not send to {whom}; {NOTHING_SENT.lower()}")
    return wanted


TOOLS = [
    tool(list_zwave_associations, title="What a device controls"),
    tool(change_zwave_association, mutating=True, title="Make a device control another"),
]
