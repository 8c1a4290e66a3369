"""Network care (ZWAVE_MCP_ADMIN=true): node details, configuration parameters, rename and relocate,
maintenance as background jobs. Inclusion and exclusion live in `admin_inclusion.py`.

Reads go straight to the inventory (and to zwave-js-ui's read APIs); every change is an `AdminChange`
carried out by `app.care.carry` (`network.changes.NetworkCare`), the one path to the gateway's changing APIs.
"""

from __future__ import annotations

from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations

from zwave_mcp.answers import and_list, capital, plural
from zwave_mcp.devices.build import device_name
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.naming import name_problem, room_problem
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.network.changes import AdminChange
from zwave_mcp.network.jobs import Job, job_sentence
from zwave_mcp.network.maintenance import job_plan
from zwave_mcp.network.models import NodeDetails
from zwave_mcp.network.nodes import node_details
from zwave_mcp.network.parameters import (
    affects,
    as_parameter,
    config_values,
    explain,
    explained,
    parse_target,
    pick_parameter,
    show,
)
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.server.app import App
from zwave_mcp.server.asking import asker_for
from zwave_mcp.server.tools.admin_models import (
    CancelArgs,
    CancelResult,
    ConfigList,
    ConfigReadArgs,
    ConfigWriteArgs,
    ConfigWriteResult,
    JobArgs,
    JobList,
    MaintenanceArgs,
    MaintenanceResult,
    RenameArgs,
    RenameResult,
    change_fields,
)
from zwave_mcp.server.tools.models import DeviceArgs
from zwave_mcp.server.tools.present import now_ms
from zwave_mcp.server.tools.spec import tool

# A spoken answer names at most this many parameters; the structured list has them all.
# The device database is read on disk by zwave-js-ui, at once; a gateway that does not answer (an older
# one, a busy one) leaves the node's own words rather than holding the answer up.
DATABASE_WAIT_S = 5.0
SPOKEN_PARAMETERS = 5
MAINTAIN = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True
)


async def get_zwave_node_details(app: App, args: DeviceArgs, _ctx: Context | None) -> NodeDetails:
    """Technical details of a device's Z-Wave node: manufacturer, product, firmware, security, listening or
    sleeping, wake-up interval, battery, round-trip time and errors, last activity, interview stage,
    neighbours."""
    device = app.devices.resolve(args.deviceName)
    node = device.node
    neighbours = node.details.get("neighbors") or None
    if not neighbours and not node.is_controller:
        try:
            neighbours = await app.care.network.neighbours(node.id) or None
        except GatewayError:
            neighbours = None  # a read we could not make: the answer simply lacks it
    return node_details(node, device, neighbours, now_ms())


async def _parameters(app: App, device: Device) -> list[ZValue]:
    """The device's parameters, explained by the device database where it knows the model (a database
    zwave-js-ui cannot read leaves the node's own metadata, which is said as it is)."""
    try:
        database = await app.care.network.database_parameters(device.node, timeout=DATABASE_WAIT_S)
    except GatewayError:
        database = []
    return explained(config_values(device.node), database)


async def list_zwave_config_parameters(app: App, args: ConfigReadArgs, _ctx: Context | None) -> ConfigList:
    """List a device's configuration parameters, or explain one (`parameter`: its number or label), from the
    device database: label, what it does, range or options, unit, default, current value, and whether
    setting it changes what the device reports or how it locks."""
    device = app.devices.resolve_node(args.deviceName)  # parameters are the node's
    values = await _parameters(app, device)
    if args.parameter is not None:
        param = pick_parameter(values, args.parameter, device)
        summary = explain(param, device, param.value_id in device.node.values)
        return ConfigList(summary=summary, device=device.label, parameters=[as_parameter(param)])
    params = [as_parameter(v) for v in values]
    if not params:
        summary = f"{device.name} has no configuration parameters that zwave-js-ui knows of."
    else:
        listed = "; ".join(
            f"{p.number} {p.label} is {show(p.value, p.unit, v)}"
            if v.value_id in device.node.values
            else f"{p.number} {p.label} is not read yet"
            for p, v in zip(params[:SPOKEN_PARAMETERS], values, strict=False)
        )
        more = len(params) - SPOKEN_PARAMETERS
        rest = f"; and {more} more in the list" if more > 0 else ""
        summary = f"{device.name} has {plural(len(params), 'parameter')}: {listed}{rest}."
    return ConfigList(summary=summary, device=device.label, parameters=params)


async def set_zwave_config_parameter(
    app: App, args: ConfigWriteArgs, ctx: Context | None
) -> ConfigWriteResult:
    """Set a configuration parameter of a device (by number or label), checked against what the device
    database allows before anything is sent; always needs the person's confirmation, which says when it
    changes what the device reports or how it locks; the answer says what the device reported back."""
    device = app.devices.resolve_node(args.deviceName, for_mutation=True)
    param = pick_parameter(await _parameters(app, device), args.parameter, device)
    if not param.writeable:
        raise UserError(f"{param.label} of {device.name} is read-only.")
    if param.value_id not in device.node.values:
        raise UserError(
            f"{param.label} of {device.name} has not been read from the device yet, so it cannot be set; "
            "refresh its values (run_zwave_maintenance refresh_values) and ask again. Nothing was sent."
        )
    target = parse_target(param, args.value)
    effect = affects(param)
    what = (
        f"set parameter {param.property} ({param.label}) of {device.name} to "
        f"{show(target, param.unit, param)}" + (f", which changes {effect}" if effect else "")
    )
    change = AdminChange(
        tool="set_zwave_config_parameter",
        action="set_parameter",
        what=what,
        words=frozenset({"configure"}),
        device=device,
        value=f"{param.property}={target}",
        write=param,
        target=target,
    )
    carried = await app.care.carry(change, args.confirmationToken, asker_for(ctx, app.questions))
    now_param = app.gateway.inventory.value(param.value_id) or param
    if not carried.sent:
        return ConfigWriteResult(
            **change_fields(carried), device=device.label, parameter=as_parameter(param), target=target
        )
    outcome = carried.gate.devices[0] if carried.gate and carried.gate.devices else None
    reported = outcome.reported if outcome is not None else now_param.value
    if carried.outcome is Outcome.CONFIRMED:
        summary = (
            f"Parameter {param.property} ({param.label}) of {carried.said(device)} is now "
            f"{show(target, param.unit, param)}, as the device reported"
            + (f"; this changes {effect}." if effect else ".")
        )
    else:
        summary = carried.sentence
    return ConfigWriteResult(
        summary=summary,
        outcome=str(carried.outcome),
        devices=carried.touched_names,
        device=device.label,
        parameter=as_parameter(now_param),
        target=target,
        reported=reported,
    )


async def rename_zwave_device(app: App, args: RenameArgs, ctx: Context | None) -> RenameResult:
    """Rename a device and/or move it to another room in zwave-js-ui (its node's name and location: every
    device of the node follows, and the answer names them). The new name works at once."""
    if args.newName is None and args.newLocation is None:
        raise UserError("Say the new name (newName), the new room (newLocation), or both.")
    args.check_text("newName", "newLocation")
    device = app.devices.resolve(args.deviceName, for_mutation=True)
    node_id = device.node_id
    new_name = args.newName.strip() if args.newName is not None else None
    new_loc = args.newLocation.strip() if args.newLocation is not None else None
    if new_name is not None:
        # The name is the node's: every device of the node is named after it.
        names = [device_name(new_name, d.part) for d in app.devices.devices_of_node(node_id)]
        problem = name_problem(app.devices.index, new_name, names, node_id)
        if problem is not None:
            raise UserError(f"Not renamed: {problem}. Nothing was sent.")
    if new_loc:
        problem = room_problem(new_loc)
        if problem is not None:
            raise UserError(f"Not moved: {problem}. Nothing was sent.")
    words, requests = [], []
    if new_name:
        words.append(f"rename {device.name} to {new_name}")
        requests.append(app.care.network.set_name(node_id, new_name))
    if new_loc is not None:
        words.append(f"move {new_name or device.name} to {new_loc or 'no room'}")
        requests.append(app.care.network.set_location(node_id, new_loc))
    change = AdminChange(
        tool="rename_zwave_device",
        action="rename",
        what=" and ".join(words),
        words=frozenset({"rename"}),
        device=device,
        value={"name": new_name, "location": new_loc},
        requests=requests,
    )
    carried = await app.care.carry(change, args.confirmationToken, asker_for(ctx, app.questions))
    if not carried.sent:
        return RenameResult(**change_fields(carried), nodeId=node_id)
    node = app.gateway.inventory.node(node_id)
    loc = node.display_location if node else new_loc
    now = {d.key: d.name for d in app.devices.devices_of_node(node_id)}
    before = [d.name for d in carried.touched] or [device.name]
    after = [now.get(d.key, d.name) for d in carried.touched] or [now.get(device.key, device.name)]
    verb = "are" if len(before) > 1 else "is"
    where = f"in {loc}" if loc else "in no room"
    if new_name:
        room = f", {where}" if new_loc is not None else ""
        summary = f"Renamed node {node_id}: {and_list(before)} {verb} now {and_list(after)}{room}."
    else:
        summary = f"Moved node {node_id}: {and_list(before)} {verb} now {where}."
    return RenameResult(
        summary=summary,
        outcome=str(carried.outcome),
        devices=after,
        nodeId=node_id,
        name=node.display_name if node else new_name,
        location=loc,
    )


async def run_zwave_maintenance(app: App, args: MaintenanceArgs, ctx: Context | None) -> MaintenanceResult:
    """Network maintenance on a device: ping, refresh_values, reinterview, check_lifeline, check_route,
    rebuild_routes (or rebuild the whole network's routes with no device). Long ones run as a job with
    progress; if the wait ends first, the answer gives a jobId for get_zwave_job / cancel_zwave_job."""
    op = args.operation
    device = app.devices.resolve(args.deviceName, for_mutation=True) if args.deviceName else None
    if device is None and op != "rebuild_routes":
        raise UserError(f"{op.replace('_', ' ')} needs a device: say which one (deviceName).")
    network = app.care.network
    node_id = device.node_id if device is not None else 0
    name = device.name if device is not None else "the network"
    timeout = app.settings.api_timeout
    if op in ("ping", "refresh_values"):
        what = f"ping {name}" if op == "ping" else f"ask {name} for all its values again"
        request = network.ping(node_id, timeout) if op == "ping" else network.refresh_values(node_id, timeout)
        change = AdminChange(
            tool="run_zwave_maintenance",
            action=op,
            what=what,
            words=frozenset({op}),
            device=device,
            requests=[request],
        )
        carried = await app.care.carry(change, args.confirmationToken, asker_for(ctx, app.questions))
        if not carried.sent:
            return MaintenanceResult(**change_fields(carried))
        if op == "ping":
            summary = f"{name} answered the ping." if carried.result else f"{name} did not answer the ping."
            return MaintenanceResult(summary=summary, outcome="answered" if carried.result else "no_answer")
        asked = carried.said(device) if device is not None else name
        return MaintenanceResult(
            summary=f"{capital(asked)} was asked for all its values; they update as it answers.",
            outcome=str(carried.outcome),
            devices=carried.touched_names,
        )

    target: Device | None = None
    if op == "check_route":
        if not args.targetDevice:
            raise UserError("check route needs the other end: say which device (targetDevice).")
        target = app.devices.resolve(args.targetDevice)
    work, abort, what, request, words = job_plan(network, timeout, op, device, target, args.rounds)
    jobs = app.care.jobs
    # The job works on the whole node: its answers name every device of it (it only starts once the
    # gate has let the change through, so none of them is hidden).
    on_node = [d.name for d in app.devices.devices_of_node(node_id)] if device is not None else []
    label = f"node {node_id} ({and_list(on_node)})" if len(on_node) > 1 else name

    async def start() -> Job:
        job = jobs.start(op, label if target is None else f"{label} to {target.name}", work, abort)
        job.device = device
        return job

    change = AdminChange(
        tool="run_zwave_maintenance",
        action=op,
        what=what,
        words=words,
        device=device,
        requests=[request],
        start=start,
    )
    return await carry_job(app, change, args.confirmationToken, args.waitSeconds, ctx)


async def carry_job(
    app: App, change: AdminChange, token: str | None, wait_s: float, ctx: Context | None
) -> MaintenanceResult:
    """Carry a change that starts a background job (its `start`), then follow the job up to `wait_s`,
    relaying its progress: the answer is its outcome, or that it is still running and its jobId."""
    carried = await app.care.carry(change, token, asker_for(ctx, app.questions))
    if not carried.sent:
        return MaintenanceResult(**change_fields(carried))
    job = await app.care.jobs.follow(carried.result, ctx, app.care.wait_s(wait_s))
    return MaintenanceResult(
        summary=job_sentence(job), outcome=job.state, job=job.info(), devices=carried.touched_names
    )


async def get_zwave_job(app: App, args: JobArgs, _ctx: Context | None) -> JobList:
    """How a maintenance job is doing (or all of them): progress, and its measured result when done."""
    jobs = [app.care.jobs.get(args.jobId)] if args.jobId else app.care.jobs.all()
    found = [j for j in jobs if j is not None]
    if args.jobId and not found:
        raise UserError(f"There is no job '{args.jobId[:40]}'.")
    if not found:
        return JobList(summary="No maintenance jobs have run.", jobs=[])
    return JobList(summary=" ".join(job_sentence(j) for j in found[-5:]), jobs=[j.info() for j in found])


async def cancel_zwave_job(app: App, args: CancelArgs, ctx: Context | None) -> CancelResult:
    """Cancel a running maintenance job (health check or route rebuild)."""
    job = app.care.jobs.get(args.jobId)
    if job is None:
        raise UserError(f"There is no job '{args.jobId[:40]}'.")
    if job.state != "running":
        return CancelResult(
            summary=f"{job.operation.replace('_', ' ')} was already {job.state}.",
            outcome="nothing_to_cancel",
            jobs=[job.info()],
        )
    change = AdminChange(
        tool="cancel_zwave_job",
        action="cancel_job",
        what=f"cancel the {job.operation.replace('_', ' ')} of {job.target}",
        words=frozenset({"stop"}),
        device=job.device,
        value=job.id,
        requests=[job.abort] if job.abort is not None else [],
        start=lambda: app.care.jobs.cancel(job),
    )
    carried = await app.care.carry(change, args.confirmationToken, asker_for(ctx, app.questions))
    if not carried.sent:
        return CancelResult(**change_fields(carried), jobs=[job.info()])
    return CancelResult(
        summary=f"Cancelled: {job.operation.replace('_', ' ')} of {job.target}.",
        outcome=str(carried.outcome),
        devices=carried.touched_names,
        jobs=[job.info()],
    )


TOOLS = [
    tool(get_zwave_node_details, title="Node details"),
    tool(list_zwave_config_parameters, title="Configuration parameters"),
    tool(set_zwave_config_parameter, mutating=True, title="Set a configuration parameter"),
    tool(rename_zwave_device, mutating=True, title="Rename a device"),
    tool(run_zwave_maintenance, mutating=True, annotations=MAINTAIN, title="Network maintenance"),
    tool(get_zwave_job, needs_gateway=False, title="Maintenance jobs"),
    tool(cancel_zwave_job, mutating=True, annotations=MAINTAIN, title="Cancel a job"),
]
