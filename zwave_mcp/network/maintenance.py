"""Long network operations planned as jobs: health checks, re-interviews and route rebuilds, with
zwave-js-ui's controller status relayed as their progress, and a health check's result said."""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import Any

from zwave_mcp.devices.levels import is_number
from zwave_mcp.devices.model import Device
from zwave_mcp.errors import UserError
from zwave_mcp.gateway.admin import AdminRequest, NetworkAdmin
from zwave_mcp.gateway.api import GatewayError
from zwave_mcp.network.jobs import Job, Work

# How often a running health check or route rebuild asks zwave-js-ui how far it is (`getInfo.cntStatus`).
STATUS_POLL_S = 0.5
_HEALTH_PROGRESS = re.compile(r"Health check (\d+)-->\d+: (\d+)/(\d+) done, last rating (\d+)")
_REBUILD_PROGRESS = re.compile(r"Rebuild Routes process (\w[\w ]*?)\. Healed (\d+) nodes")


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


def job_plan(
    network: NetworkAdmin,
    api_timeout: float,
    op: str,
    device: Device | None,
    target: Device | None,
    rounds: int,
) -> tuple[Work, AdminRequest | None, str, AdminRequest, frozenset[str]]:
    """(work, the request that aborts it, what in words, the request it makes, the words the policy
    judges) of a long operation."""
    long_timeout = max(api_timeout, rounds * 60.0)
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
