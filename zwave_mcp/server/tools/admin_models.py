"""Argument and result models of the network-care tools (listed only with ZWAVE_MCP_ADMIN=true)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from zwave_mcp.answers import AnyJson, ToolResult
from zwave_mcp.network.changes import Carried
from zwave_mcp.network.models import ConfigParameter, JobInfo
from zwave_mcp.server.tools.models import NAME_MAX, DeviceArgs, GateAnswer, ToolArgs, gate_answer

TOKEN = Field(
    None,
    max_length=200,
    description="Only after the person agreed: the confirmationToken an earlier call of this tool returned",
)
WAIT = Field(
    20.0, ge=0, le=600, description="Seconds to wait for the result before it continues in the background"
)

Security = Literal["auto", "s2", "s0", "none"]
Maintenance = Literal[
    "ping", "refresh_values", "reinterview", "check_lifeline", "check_route", "rebuild_routes"
]


class ConfigReadArgs(DeviceArgs):
    parameter: int | str | None = Field(
        None, description="One parameter to explain: its number (7) or label ('Dim Rate Timing'); empty: all"
    )


class ConfigWriteArgs(DeviceArgs):
    parameter: int | str = Field(description="The parameter's number (3) or its label ('LED indicator')")
    value: int | float | str = Field(description="The new value: a number, or the name of one of its options")
    confirmationToken: str | None = TOKEN


class RenameArgs(DeviceArgs):
    newName: str | None = Field(
        None,
        min_length=1,
        max_length=NAME_MAX,
        description="The new name of the device's node (its other endpoints are named after it)",
    )
    newLocation: str | None = Field(None, max_length=NAME_MAX, description="The device's new room")
    confirmationToken: str | None = TOKEN


class MaintenanceArgs(ToolArgs):
    operation: Maintenance = Field(
        description="ping, refresh_values, reinterview, check_lifeline (to the controller), check_route "
        "(to targetDevice), rebuild_routes (of deviceName, or of the whole network when deviceName is empty)"
    )
    deviceName: str | None = Field(None, max_length=NAME_MAX, description="The device; empty: the network")
    targetDevice: str | None = Field(None, max_length=NAME_MAX, description="check_route: the other end")
    rounds: int = Field(3, ge=1, le=10, description="Health checks: rounds of 10 pings each")
    waitSeconds: float = WAIT
    confirmationToken: str | None = TOKEN


class JobArgs(ToolArgs):
    jobId: str | None = Field(None, max_length=40, description="The job; empty: every job")


class CancelArgs(ToolArgs):
    jobId: str = Field(min_length=1, max_length=40, description="The job to cancel")
    confirmationToken: str | None = TOKEN


class InclusionArgs(ToolArgs):
    security: Security = Field(
        "auto",
        description="auto (S2 when the device can, else S0 or none), s2, s0 or none (insecure)",
    )
    qrCode: str | None = Field(
        None,
        max_length=400,
        description="The device's Z-Wave QR code text (digits starting with 90), if it has one",
    )
    name: str | None = Field(None, max_length=NAME_MAX, description="Name to give the new device")
    location: str | None = Field(None, max_length=NAME_MAX, description="Room to give the new device")
    timeoutSeconds: float = Field(60.0, ge=5, le=600, description="Stop including after this long")
    waitSeconds: float = WAIT
    confirmationToken: str | None = TOKEN


class ExclusionArgs(ToolArgs):
    timeoutSeconds: float = Field(60.0, ge=5, le=600, description="Stop excluding after this long")
    waitSeconds: float = WAIT
    confirmationToken: str | None = TOKEN


class AnswerArgs(ToolArgs):
    grant: bool | None = Field(
        None,
        description="Security question: true grants the security the device asked for, false grants none",
    )
    pin: str | None = Field(
        None,
        max_length=80,
        description="PIN question: the first 5 digits of the device's DSK (on its label), or the whole DSK",
    )
    waitSeconds: float = WAIT


class ProvisionArgs(ToolArgs):
    qrCode: str = Field(
        min_length=20, max_length=400, description="The device's Z-Wave QR code text (starts with 90)"
    )
    name: str | None = Field(None, max_length=NAME_MAX, description="Name it gets when it joins")
    location: str | None = Field(None, max_length=NAME_MAX, description="Room it gets when it joins")
    confirmationToken: str | None = TOKEN


class FailedNodeArgs(DeviceArgs):
    confirmationToken: str | None = TOKEN


class ReplaceArgs(DeviceArgs):
    security: Security = Field("auto", description="Security for the replacement device")
    qrCode: str | None = Field(None, max_length=400, description="The replacement's QR code text, if any")
    waitSeconds: float = WAIT
    confirmationToken: str | None = TOKEN


# ---------------------------------------------------------------------------------- results
class ConfigList(ToolResult):
    device: str
    parameters: list[ConfigParameter]


class ChangeResult(GateAnswer):
    """The common shape of a change: its outcome word, and the token or dry-run message when there is one."""

    outcome: str
    devices: list[str] | None = Field(
        default=None,
        description="Every device the change reaches: a change to a node reaches all of its devices",
    )


def change_fields(carried: Carried) -> dict[str, Any]:
    """The `ChangeResult` fields of a change that was not (yet) sent: asked, declined or a dry run."""
    return {
        "summary": carried.sentence,
        "outcome": str(carried.outcome),
        "devices": carried.touched_names,
        **gate_answer(carried.gate),
    }


class ConfigWriteResult(ChangeResult):
    device: str | None = None
    parameter: ConfigParameter | None = None
    target: AnyJson = None
    reported: AnyJson = None


class RenameResult(ChangeResult):
    nodeId: int | None = None
    name: str | None = None
    location: str | None = None


class MaintenanceResult(ChangeResult):
    job: JobInfo | None = None


class JobList(ToolResult):
    jobs: list[JobInfo]


class CancelResult(ChangeResult):
    """A cancellation is a change like any other: asked, refused or done, with the job as it now stands."""

    jobs: list[JobInfo]


class InclusionStatus(ChangeResult):
    phase: str
    pending: Literal["grant", "pin"] | None = None
    requestedSecurity: list[str] | None = None
    partialDsk: str | None = None
    nodeId: int | None = None
    name: str | None = None
    security: str | None = None
    securityDowngraded: bool | None = Field(
        None, description="true when the device joined with less security than it asked for"
    )
