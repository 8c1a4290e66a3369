"""Network care (ZWAVE_MCP_ADMIN=true): node details, configuration parameters, rename and relocate,
maintenance as background jobs. Inclusion and exclusion live in `admin_inclusion.py`.

Reads go straight to the inventory (and to zwave-js-ui's read APIs); every change is an `AdminChange`
carried out by `admin_changes.carry_out`, the one path to the gateway's changing APIs.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations

from zwave_mcp.devices.build import device_name
from zwave_mcp.devices.gate.evidence import spoken_list
from zwave_mcp.devices.levels import is_number
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.naming import name_problem, room_problem
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.admin import AdminRequest, NetworkAdmin, security_words
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.gateway.model import ZNode, ZValue
from zwave_mcp.names import normalize
from zwave_mcp.policy import check_text_argument
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.server.executor import ToolSpec
from zwave_mcp.server.tools.admin_changes import AdminChange, AdminContext, change_fields
from zwave_mcp.server.tools.admin_inclusion import specs as inclusion_specs
from zwave_mcp.server.tools.admin_jobs import Job, Jobs, Work
from zwave_mcp.server.tools.admin_models import (
    CancelArgs,
    CancelResult,
    ConfigList,
    ConfigParameter,
    ConfigWriteArgs,
    ConfigWriteResult,
    JobArgs,
    JobList,
    MaintenanceArgs,
    MaintenanceResult,
    NodeArgs,
    NodeDetails,
    RenameArgs,
    RenameResult,
    Statistics,
)
from zwave_mcp.server.tools.control import CONTROL
from zwave_mcp.server.tools.devices import READ
from zwave_mcp.server.tools.present import now_ms

if TYPE_CHECKING:
    from zwave_mcp.server.app import App

CONFIGURATION_CC = 112
WAKE_UP_CC = 132
BATTERY_CC = 128
# How often a running health check or route rebuild asks zwave-js-ui how far it is (`getInfo.cntStatus`).
STATUS_POLL_S = 0.5
# A spoken answer names at most this many parameters; the structured list has them all.
SPOKEN_PARAMETERS = 5
_HEALTH_PROGRESS = re.compile(r"Health check (\d+)-->\d+: (\d+)/(\d+) done, last rating (\d+)")
_REBUILD_PROGRESS = re.compile(r"Rebuild Routes process (\w[\w ]*?)\. Healed (\d+) nodes")
MAINTAIN = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True
)


# ---------------------------------------------------------------------------------- node details
def _statistics(raw: Any) -> Statistics | None:
    if not isinstance(raw, dict):
        return None

    def number(key: str) -> Any:
        value = raw.get(key)
        return value if is_number(value) else None

    dropped = [number("commandsDroppedRX"), number("commandsDroppedTX")]
    return Statistics(
        roundTripMs=number("rtt"),
        commandsSent=number("commandsTX"),
        commandsReceived=number("commandsRX"),
        commandsDropped=sum(d for d in dropped if d is not None)
        if any(d is not None for d in dropped)
        else None,
        timeouts=number("timeoutResponse"),
        lastSeen=raw.get("lastSeen") if isinstance(raw.get("lastSeen"), str) else None,
        signalDbm=number("rssi"),
    )


def _power(node: ZNode) -> str:
    if node.is_listening:
        return "listening"
    return "frequently listening" if node.is_frequent_listening else "sleeping"


def _int_value(node: ZNode, cc: int, prop: str) -> int | None:
    value = node.find_value(cc, prop)
    raw = value.value if value is not None else None
    return int(raw) if raw is not None and is_number(raw) else None


def _security_words(security: Any) -> str | None:
    return security_words(security) if isinstance(security, str) else None


def node_details(node: ZNode, device: Device, neighbours: list[int] | None) -> NodeDetails:
    details = node.details
    last = node.last_active_ms
    stats = _statistics(details.get("statistics"))
    security = _security_words(details.get("security"))
    wake = _int_value(node, WAKE_UP_CC, "wakeUpInterval") if _power(node) == "sleeping" else None
    battery = _int_value(node, BATTERY_CC, "level")
    parts = [f"{device.name} (node {node.id}) is a {_power(node)} device"]
    if node.manufacturer:
        parts.append(f"by {node.manufacturer}")
    sentence = " ".join(parts)
    facts = []
    if node.firmware_version:
        facts.append(f"firmware {node.firmware_version}")
    if security is not None:
        facts.append("no security" if security == "none" else f"{security} security")
    if wake:
        facts.append(f"waking every {_duration(wake)}")
    if battery is not None:
        facts.append(f"battery {battery} %")
    if stats is not None and stats.roundTripMs is not None:
        facts.append(f"last round trip {stats.roundTripMs:g} ms")
    if node.status == "Dead":
        facts.append("currently not responding")
    summary = sentence + (", " + ", ".join(facts) if facts else "") + "."
    return NodeDetails(
        summary=summary,
        nodeId=node.id,
        name=device.name,
        location=device.location,
        manufacturer=node.manufacturer,
        product=node.product_label,
        productCode=details.get("hexId") if isinstance(details.get("hexId"), str) else None,
        firmwareVersion=node.firmware_version,
        security=security,
        secure=details.get("isSecure") if isinstance(details.get("isSecure"), bool) else None,
        powerSource=_power(node),  # type: ignore[arg-type]
        wakeUpIntervalSeconds=wake,
        battery=battery,
        status=node.status,
        interviewStage=node.interview_stage,
        lastActiveSecondsAgo=round((now_ms() - last) / 1000, 1) if isinstance(last, int) else None,
        statistics=stats,
        neighbours=neighbours,
        protocol={0: "Z-Wave", 1: "Z-Wave Long Range"}.get(details.get("protocol", -1)),
    )


def _duration(seconds: int) -> str:
    if seconds % 3600 == 0:
        return f"{seconds // 3600} hour{'s' if seconds != 3600 else ''}"
    if seconds % 60 == 0:
        return f"{seconds // 60} minutes"
    return f"{seconds} seconds"


# ---------------------------------------------------------------------------------- configuration
def config_values(node: ZNode) -> list[ZValue]:
    values = [v for v in node.values.values() if v.command_class == CONFIGURATION_CC]
    return sorted(
        values, key=lambda v: (int(v.property) if isinstance(v.property, int) else 0, str(v.property_key))
    )


def as_parameter(value: ZValue) -> ConfigParameter:
    number = value.property if isinstance(value.property, int) else -1
    return ConfigParameter(
        number=number,
        key=value.property_key,
        label=value.label,
        description=value.description,
        value=value.value,
        default=value.default,
        min=value.min,
        max=value.max,
        unit=value.unit,
        options={s.text: s.value for s in value.states} or None,
        writable=value.writeable,
    )


def _show(value: Any, unit: str | None, param: ZValue) -> str:
    text = param.state_text(value)
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    if unit:
        shown += f" {unit}"
    return f"{shown} ({text})" if text else shown


def pick_parameter(values: list[ZValue], wanted: int | str, device: Device) -> ZValue:
    if isinstance(wanted, str) and wanted.strip().isdigit():
        wanted = int(wanted.strip())
    if isinstance(wanted, int):
        hits = [v for v in values if v.property == wanted]
    else:
        check_text_argument("parameter", wanted)
        text = normalize(wanted)
        hits = [v for v in values if normalize(v.label) == text] or [
            v for v in values if text and text in normalize(v.label)
        ]
    if len(hits) == 1:
        return hits[0]
    known = ", ".join(f"{v.property} ({v.label})" for v in values) or "none"
    if hits:
        raise UserError(f"'{wanted}' matches several parameters of {device.name}: {known}. Say which number.")
    raise UserError(f"{device.name} has no parameter '{str(wanted)[:60]}'. Its parameters are: {known}.")


def parse_target(param: ZValue, raw: int | float | str) -> int | float:
    """The number to write: an option's name or a number, checked against the parameter's range
    (zwave-js does not check it: the captures show out-of-range values going to the device)."""
    if isinstance(raw, str):
        text = normalize(raw)
        for state in param.states:
            if normalize(state.text) == text and isinstance(state.value, int | float):
                return state.value
        try:
            number = float(raw.strip())
        except ValueError:
            options = ", ".join(s.text for s in param.states)
            hint = f" Its options are: {options}." if options else ""
            raise UserError(f"'{raw[:40]}' is not a value of {param.label}.{hint}") from None
        raw = number
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    low, high = param.min, param.max
    if (low is not None and raw < low) or (high is not None and raw > high):
        unit = f" {param.unit}" if param.unit else ""
        raise UserError(
            f"{param.label} takes {low:g} to {high:g}{unit}; {raw:g} is out of range. Nothing was sent."
        )
    if param.states and not any(s.value == raw for s in param.states) and param.min is None:
        raise UserError(f"{raw} is not one of {param.label}'s options.")
    return raw


# ---------------------------------------------------------------------------------- maintenance jobs
def _count(raw: Any) -> int:
    """A count zwave-js-ui reports; anything that is not a finite number counts nothing."""
    return int(raw) if is_number(raw) else 0


def health_summary(result: dict[str, Any], lifeline: bool) -> tuple[str, dict[str, Any]]:
    rounds = [r for r in result.get("results") or [] if isinstance(r, dict)]
    rating = result.get("rating")
    if lifeline:
        failed = sum(_count(r.get("failedPingsNode")) for r in rounds)
        latencies = [r["latency"] for r in rounds if is_number(r.get("latency")) and r["latency"] > 0]
    else:
        failed = sum(
            _count(r.get("failedPingsToTarget")) + _count(r.get("failedPingsToSource")) for r in rounds
        )
        latencies = []
    facts = [f"{len(rounds)} round{'s' if len(rounds) != 1 else ''} of 10 pings"]
    if latencies:
        facts.append(f"latency {min(latencies):g} to {max(latencies):g} ms")
    facts.append("no failed pings" if failed == 0 else f"{failed} failed pings")
    sentence = f"rating {rating} of 10 ({', '.join(facts)})"
    return sentence, {
        "rating": rating,
        "failedPings": failed,
        "rounds": rounds,
        "targetNodeId": result.get("targetNodeId"),
    }


def specs(app: App) -> list[ToolSpec]:
    admin = AdminContext(app, NetworkAdmin(app.gateway), Jobs())

    async def get_zwave_node_details(args: NodeArgs, _ctx: Context | None) -> NodeDetails:
        device = admin.device(args.deviceName)
        node = device.node
        neighbours = node.details.get("neighbors") or None
        if not neighbours and not node.is_controller:
            try:
                neighbours = await admin.network.neighbours(node.id) or None
            except GatewayError:
                neighbours = None  # a read we could not make: the answer simply lacks it
        return node_details(node, device, neighbours)

    async def list_zwave_config_parameters(args: NodeArgs, _ctx: Context | None) -> ConfigList:
        device = admin.device(args.deviceName)
        params = [as_parameter(v) for v in config_values(device.node)]
        if not params:
            summary = f"{device.name} has no configuration parameters that zwave-js-ui knows of."
        else:
            values = config_values(device.node)
            listed = "; ".join(
                f"{p.number} {p.label} is {_show(p.value, p.unit, v)}"
                for p, v in zip(params[:SPOKEN_PARAMETERS], values, strict=False)
            )
            more = len(params) - SPOKEN_PARAMETERS
            rest = f"; and {more} more in the list" if more > 0 else ""
            summary = f"{device.name} has {len(params)} parameters: {listed}{rest}."
        return ConfigList(summary=summary, device=device.label, parameters=params)

    async def set_zwave_config_parameter(args: ConfigWriteArgs, ctx: Context | None) -> ConfigWriteResult:
        device = admin.device(args.deviceName, for_mutation=True)
        param = pick_parameter(config_values(device.node), args.parameter, device)
        if not param.writeable:
            raise UserError(f"{param.label} of {device.name} is read-only.")
        target = parse_target(param, args.value)
        what = f"set parameter {param.property} ({param.label}) of {device.name} to {_show(target, param.unit, param)}"
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
        carried = await admin.carry(change, args.confirmationToken, ctx)
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
                f"{_show(target, param.unit, param)}, as the device reported."
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

    async def rename_zwave_device(args: RenameArgs, ctx: Context | None) -> RenameResult:
        if args.newName is None and args.newLocation is None:
            raise UserError("Say the new name (newName), the new room (newLocation), or both.")
        for field_name, text in (("newName", args.newName), ("newLocation", args.newLocation)):
            if text is not None:
                check_text_argument(field_name, text)
        device = admin.device(args.deviceName, for_mutation=True)
        node_id = device.node_id
        new_name = args.newName.strip() if args.newName is not None else None
        new_loc = args.newLocation.strip() if args.newLocation is not None else None
        if new_name is not None:
            # The name is the node's: every device of the node is named after it.
            names = [device_name(new_name, d.endpoint) for d in app.devices.devices_of_node(node_id)]
            problem = name_problem(app.devices.index, new_name, names, node_id)
            if problem is not None:
                raise UserError(f"Not renamed: {problem}. Nothing was sent.")
        if new_loc:
            problem = room_problem(new_loc)
            if problem is not None:
                raise UserError(f"Not moved: {problem}. Nothing was sent.")
        words = []
        if new_name:
            words.append(f"rename {device.name} to {new_name}")
        if new_loc is not None:
            words.append(f"move {new_name or device.name} to {new_loc or 'no room'}")
        what = " and ".join(words)

        requests = [admin.network.set_name(node_id, new_name)] if new_name else []
        if new_loc is not None:
            requests.append(admin.network.set_location(node_id, new_loc))
        change = AdminChange(
            tool="rename_zwave_device",
            action="rename",
            what=what,
            words=frozenset({"rename"}),
            device=device,
            value={"name": new_name, "location": new_loc},
            requests=requests,
        )
        carried = await admin.carry(change, args.confirmationToken, ctx)
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
            summary = f"Renamed node {node_id}: {spoken_list(before)} {verb} now {spoken_list(after)}{room}."
        else:
            summary = f"Moved node {node_id}: {spoken_list(before)} {verb} now {where}."
        return RenameResult(
            summary=summary,
            outcome=str(carried.outcome),
            devices=after,
            nodeId=node_id,
            name=node.display_name if node else new_name,
            location=loc,
        )

    async def run_zwave_maintenance(args: MaintenanceArgs, ctx: Context | None) -> MaintenanceResult:
        op = args.operation
        device = admin.device(args.deviceName, for_mutation=True) if args.deviceName else None
        if device is None and op != "rebuild_routes":
            raise UserError(f"{op.replace('_', ' ')} needs a device: say which one (deviceName).")
        network = admin.network
        node_id = device.node_id if device is not None else 0
        name = device.name if device is not None else "the network"
        timeout = app.settings.api_timeout
        if op in ("ping", "refresh_values"):
            what = f"ping {name}" if op == "ping" else f"ask {name} for all its values again"
            request = (
                network.ping(node_id, timeout) if op == "ping" else network.refresh_values(node_id, timeout)
            )
            change = AdminChange(
                tool="run_zwave_maintenance",
                action=op,
                what=what,
                words=frozenset({op}),
                device=device,
                requests=[request],
            )
            carried = await admin.carry(change, args.confirmationToken, ctx)
            if not carried.sent:
                return MaintenanceResult(**change_fields(carried))
            if op == "ping":
                summary = (
                    f"{name} answered the ping." if carried.result else f"{name} did not answer the ping."
                )
                return MaintenanceResult(
                    summary=summary, outcome="answered" if carried.result else "no_answer"
                )
            asked = carried.said(device) if device is not None else name
            return MaintenanceResult(
                summary=f"{asked[:1].upper()}{asked[1:]} was asked for all its values; they update as it answers.",
                outcome=str(carried.outcome),
                devices=carried.touched_names,
            )

        target: Device | None = None
        if op == "check_route":
            if not args.targetDevice:
                raise UserError("check route needs the other end: say which device (targetDevice).")
            target = admin.device(args.targetDevice)
        work, abort, what, request, words = _job_plan(admin, op, device, target, args.rounds)
        jobs = admin.jobs
        # The job works on the whole node: its answers name every device of it (it only starts once the
        # gate has let the change through, so none of them is hidden).
        on_node = [d.name for d in app.devices.devices_of_node(node_id)] if device is not None else []
        label = f"node {node_id} ({spoken_list(on_node)})" if len(on_node) > 1 else name

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
        carried = await admin.carry(change, args.confirmationToken, ctx)
        if not carried.sent:
            return MaintenanceResult(**change_fields(carried))
        job = await jobs.follow(carried.result, ctx, admin.wait_s(args.waitSeconds))
        answer = job_answer(job)
        answer.devices = carried.touched_names
        return answer

    async def get_zwave_job(args: JobArgs, _ctx: Context | None) -> JobList:
        jobs = [admin.jobs.get(args.jobId)] if args.jobId else admin.jobs.all()
        found = [j for j in jobs if j is not None]
        if args.jobId and not found:
            raise UserError(f"There is no job '{args.jobId[:40]}'.")
        if not found:
            return JobList(summary="No maintenance jobs have run.", jobs=[])
        return JobList(summary=" ".join(job_sentence(j) for j in found[-5:]), jobs=[j.info() for j in found])

    async def cancel_zwave_job(args: CancelArgs, _ctx: Context | None) -> CancelResult:
        job = admin.jobs.get(args.jobId)
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
            start=lambda: admin.jobs.cancel(job),
        )
        carried = await admin.carry(change, args.confirmationToken, _ctx)
        if not carried.sent:
            return CancelResult(**change_fields(carried), jobs=[job.info()])
        return CancelResult(
            summary=f"Cancelled: {job.operation.replace('_', ' ')} of {job.target}.",
            outcome=str(carried.outcome),
            devices=carried.touched_names,
            jobs=[job.info()],
        )

    tools = [
        ToolSpec(
            "get_zwave_node_details",
            "Technical details of a device's Z-Wave node: manufacturer, product, firmware, security, listening "
            "or sleeping, wake-up interval, battery, round-trip time and errors, last activity, interview stage, "
            "neighbours.",
            NodeArgs,
            NodeDetails,
            get_zwave_node_details,
            annotations=READ,
            title="Node details",
        ),
        ToolSpec(
            "list_zwave_config_parameters",
            "List a device's configuration parameters with label, range, unit, default and current value.",
            NodeArgs,
            ConfigList,
            list_zwave_config_parameters,
            annotations=READ,
            title="Configuration parameters",
        ),
        ToolSpec(
            "set_zwave_config_parameter",
            "Set a configuration parameter of a device (by number or label). Range-checked; always needs the "
            "person's confirmation; the answer says what the device reported back.",
            ConfigWriteArgs,
            ConfigWriteResult,
            set_zwave_config_parameter,
            mutating=True,
            annotations=CONTROL,
            title="Set a configuration parameter",
        ),
        ToolSpec(
            "rename_zwave_device",
            "Rename a device and/or move it to another room in zwave-js-ui (its node's name and location: "
            "every device of the node follows, and the answer names them). The new name works at once.",
            RenameArgs,
            RenameResult,
            rename_zwave_device,
            mutating=True,
            annotations=CONTROL,
            title="Rename a device",
        ),
        ToolSpec(
            "run_zwave_maintenance",
            "Network maintenance on a device: ping, refresh_values, reinterview, check_lifeline, check_route, "
            "rebuild_routes (or rebuild the whole network's routes with no device). Long ones run as a job "
            "with progress; if the wait ends first, the answer gives a jobId for get_zwave_job / cancel_zwave_job.",
            MaintenanceArgs,
            MaintenanceResult,
            run_zwave_maintenance,
            mutating=True,
            annotations=MAINTAIN,
            title="Network maintenance",
        ),
        ToolSpec(
            "get_zwave_job",
            "How a maintenance job is doing (or all of them): progress, and its measured result when done.",
            JobArgs,
            JobList,
            get_zwave_job,
            annotations=READ,
            needs_gateway=False,
            title="Maintenance jobs",
        ),
        ToolSpec(
            "cancel_zwave_job",
            "Cancel a running maintenance job (health check or route rebuild).",
            CancelArgs,
            CancelResult,
            cancel_zwave_job,
            mutating=True,
            annotations=MAINTAIN,
            title="Cancel a job",
        ),
    ]
    return [*tools, *inclusion_specs(admin)]


def job_sentence(job: Job) -> str:
    op = job.operation.replace("_", " ")
    if job.state == "running":
        progress = f" ({job.message})" if job.message else ""
        return f"{op.capitalize()} of {job.target} is still running{progress}; ask again with jobId {job.id}."
    if job.state == "done":
        return f"{op.capitalize()} of {job.target}: {job.message}."
    if job.state == "cancelled":
        return f"{op.capitalize()} of {job.target} was cancelled."
    return f"{op.capitalize()} of {job.target} failed: {job.message}."


def job_answer(job: Job) -> MaintenanceResult:
    return MaintenanceResult(summary=job_sentence(job), outcome=job.state, job=job.info())


def _job_plan(
    admin: AdminContext, op: str, device: Device | None, target: Device | None, rounds: int
) -> tuple[Work, AdminRequest | None, str, AdminRequest, frozenset[str]]:
    """(work, the request that aborts it, what in words, the request it makes, the words the policy
    judges) of a long operation."""
    network = admin.network
    long_timeout = max(admin.app.settings.api_timeout, rounds * 60.0)
    node_id = device.node_id if device is not None else 0

    async def controller_status() -> str:
        try:
            return str((await network.info_status()).get("cntStatus") or "")
        except GatewayError:
            return ""

    async def poll_status(job: Job, pattern: re.Pattern[str], done: asyncio.Future[Any], before: str) -> None:
        """Relay zwave-js-ui's controller status as the job's progress. That status keeps the words of
        the last operation until the next one writes its own: until it differs from `before` (read
        before this job asked), it tells the previous check's rounds or rebuild, never this one's."""
        fresh = False
        while not done.done():
            status = await controller_status()
            fresh = fresh or status != before
            match = pattern.search(status) if fresh else None
            if match and pattern is _HEALTH_PROGRESS:
                if int(match.group(1)) == node_id:
                    job.report(
                        float(match.group(2)),
                        float(match.group(3)),
                        f"round {match.group(2)} of {match.group(3)}, last rating {match.group(4)}",
                    )
            elif match:
                job.report(float(match.group(2)), None, f"{match.group(2)} nodes rebuilt")
                if match.group(1) in ("COMPLETED", "STOPPED") and not done.done():
                    done.set_result(match.group(1))
            await asyncio.sleep(STATUS_POLL_S)

    if op in ("check_lifeline", "check_route"):
        lifeline = op == "check_lifeline"
        assert device is not None
        request = (
            network.lifeline_health(node_id, rounds, long_timeout)
            if lifeline
            else network.route_health(node_id, target.node_id if target else 0, rounds, long_timeout)
        )

        async def health(job: Job) -> tuple[str, dict[str, Any]]:
            before = await controller_status()
            task = asyncio.ensure_future(request.run())
            watcher = asyncio.ensure_future(poll_status(job, _HEALTH_PROGRESS, task, before))
            try:
                result = await task
            finally:
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher
            return health_summary(result, lifeline)

        other = f" to {target.name}" if target else " to the controller"
        return (
            health,
            network.abort_health(node_id),
            f"check the {'lifeline' if lifeline else 'route'} health of {device.name}{other}",
            request,
            frozenset({"health_check"}),
        )
    if op == "reinterview":
        assert device is not None
        request = network.refresh_info(node_id)

        async def interview(job: Job) -> tuple[str, dict[str, Any]]:
            await request.run()
            while network.interviews.get(node_id) not in ("completed", "failed"):
                job.report(None, None, f"interview stage {network.interviews.get(node_id, 'requested')}")
                await network.wait(network.progress.version, STATUS_POLL_S)
            state = network.interviews[node_id]
            return (
                "the interview completed" if state == "completed" else "the interview failed",
                {"interview": state},
            )

        return (interview, None, f"re-interview {device.name}", request, frozenset({"reinterview"}))
    if device is not None:  # rebuild_routes of one node
        request = network.rebuild_node_routes(node_id, long_timeout)

        async def rebuild_one(job: Job) -> tuple[str, dict[str, Any]]:
            ok = await request.run()
            sentence = "the routes were rebuilt" if ok else "zwave-js could not rebuild the routes"
            return sentence, {"rebuilt": ok}

        return (
            rebuild_one,
            None,
            f"rebuild the routes of {device.name}",
            request,
            frozenset({"rebuild_routes"}),
        )
    request = network.begin_rebuilding_routes()

    async def rebuild_all(job: Job) -> tuple[str, dict[str, Any]]:
        before = await controller_status()
        if not await request.run():
            raise UserError("zwave-js-ui is already rebuilding routes")
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await poll_status(job, _REBUILD_PROGRESS, done, before)
        healed = int(job.progress or 0)
        return f"{done.result().lower()}, {healed} nodes rebuilt", {
            "state": done.result(),
            "nodesRebuilt": healed,
        }

    return (
        rebuild_all,
        network.stop_rebuilding_routes(),
        "rebuild the routes of the whole network",
        request,
        frozenset({"rebuild_network"}),
    )
