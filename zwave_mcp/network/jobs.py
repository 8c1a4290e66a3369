"""Long network operations (health checks, route rebuilds, re-interviews) as background jobs.

A job runs as its own asyncio task, so a tool can wait for it a while (relaying its progress as MCP
progress notifications), answer "still running" when the wait is over, and be asked about or cancelled
later by id. Finished jobs are kept (bounded) so their answer can still be read.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from zwave_mcp.gateway.admin import AdminRequest
from zwave_mcp.network.models import JobInfo

log = logging.getLogger(__name__)

KEEP_FINISHED = 50


class ProgressReporter(Protocol):
    """Where a followed job's progress goes: the MCP request context of the call that waits for it."""

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None: ...


@dataclass
class Job:
    id: str
    operation: str
    target: str
    started: float = field(default_factory=time.monotonic)
    state: str = "running"
    progress: float | None = None
    total: float | None = None
    message: str | None = None
    result: dict[str, Any] | None = None
    task: asyncio.Task[None] | None = None
    abort: AdminRequest | None = None  # what tells zwave-js-ui to stop (sent through the gate on cancel)
    device: Any = None  # the Device it works on (None: the network), for cancelling through the gate
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def report(self, progress: float | None, total: float | None, message: str | None) -> None:
        if self.state != "running":
            return  # a late progress poll (its cancellation can lose a race) never overwrites the answer
        if self.progress is not None and (progress is None or progress < self.progress):
            return  # a job's progress only goes forward (a poll that saw an older status says nothing new)
        if (progress, total, message) == (self.progress, self.total, self.message):
            return  # the same news again: no one needs waking
        self.progress, self.total, self.message = progress, total, message
        self._wake()

    def _wake(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()

    def info(self) -> JobInfo:
        return JobInfo(
            jobId=self.id,
            operation=self.operation,
            target=self.target,
            state=self.state,  # type: ignore[arg-type]
            progress=self.progress,
            total=self.total,
            message=self.message,
            result=self.result,
            elapsedSeconds=round(time.monotonic() - self.started, 1),
        )


Work = Callable[[Job], Awaitable[tuple[str, dict[str, Any]]]]  # → (final message, result)


class Jobs:
    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        self._ids = itertools.count(1)

    def start(self, operation: str, target: str, work: Work, abort: AdminRequest | None) -> Job:
        job = Job(id=f"job-{next(self._ids)}", operation=operation, target=target, abort=abort)
        job.task = asyncio.get_running_loop().create_task(self._run(job, work), name=job.id)
        self._jobs[job.id] = job
        self._prune()
        return job

    async def _run(self, job: Job, work: Work) -> None:
        try:
            message, result = await work(job)
            job.state, job.message, job.result = "done", message, result
        except asyncio.CancelledError:
            job.state = "cancelled"
            job.message = job.message or "cancelled"
        except Exception as exc:  # a job's failure is its answer, never a crash of the server
            log.info("job failed", extra={"job": job.id, "why": str(exc)})
            job.state, job.message = "failed", str(exc)
        finally:
            job._wake()

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id)

    def all(self) -> list[Job]:
        return list(self._jobs.values())

    async def cancel(self, job: Job) -> None:
        if job.state != "running":
            return
        if job.abort is not None:
            with contextlib.suppress(Exception):
                await job.abort.run()
        if job.task is not None:
            job.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await job.task
        job.state = "cancelled"
        job.message = "cancelled at the person's request"

    async def follow(self, job: Job, ctx: ProgressReporter | None, wait_s: float) -> Job:
        """Wait up to `wait_s` for the job, sending its progress to the client as it moves: this call's
        notices only, each further than the one before (the MCP spec wants progress to increase)."""
        deadline = time.monotonic() + wait_s
        sent: float | None = None
        while job.state == "running":
            left = deadline - time.monotonic()
            if left <= 0:
                break
            changed = job.changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), left)
            progress = job.progress
            if ctx is not None and progress is not None and (sent is None or progress > sent):
                sent = progress
                with contextlib.suppress(Exception):  # a client without a progress token: nothing to send
                    await ctx.report_progress(progress, job.total, job.message)
        return job

    def _prune(self) -> None:
        finished = [j for j in self._jobs.values() if j.state != "running"]
        for job in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            self._jobs.pop(job.id, None)


def job_sentence(job: Job) -> str:
    op = job.operation.replace("_", " ")
    progress = f" ({job.message})" if job.message else ""
    return f"{op.capitalize()} of {job.target}" + {
        "running": f" is still running{progress}; ask again with jobId {job.id}.",
        "done": f": {job.message}.",
        "cancelled": " was cancelled.",
    }.get(job.state, f" failed: {job.message}.")
