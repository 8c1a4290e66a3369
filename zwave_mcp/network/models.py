"""The answers of network care: a node's details, its configuration parameters, a maintenance job."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from zwave_mcp.answers import AnyJson, ToolResult


class Statistics(BaseModel):
    roundTripMs: float | None = None
    commandsSent: int | None = None
    commandsReceived: int | None = None
    commandsDropped: int | None = None
    timeouts: int | None = None
    lastSeen: str | None = None
    signalDbm: float | None = None


class NodeDetails(ToolResult):
    nodeId: int
    name: str
    location: str
    manufacturer: str | None = None
    product: str | None = None
    productCode: str | None = None
    firmwareVersion: str | None = None
    security: str | None = None
    secure: bool | None = None
    powerSource: Literal["listening", "sleeping", "frequently listening"]
    wakeUpIntervalSeconds: int | None = None
    battery: int | None = None
    status: str
    interviewStage: str | None = None
    lastActiveSecondsAgo: float | None = None
    statistics: Statistics | None = None
    neighbours: list[int] | None = None
    protocol: str | None = None


class ConfigParameter(BaseModel):
    number: int
    key: int | str | None = None
    label: str
    description: str | None = None
    value: AnyJson = None
    default: AnyJson = None
    min: float | None = None
    max: float | None = None
    unit: str | None = None
    options: dict[str, Any] | None = None
    writable: bool = True
    # What setting it changes beyond the device: "what it reports", "how it locks"; None for the rest.
    affects: str | None = None


class JobInfo(BaseModel):
    jobId: str
    operation: str
    target: str
    state: Literal["running", "done", "failed", "cancelled"]
    progress: float | None = None
    total: float | None = None
    message: str | None = None
    result: dict[str, Any] | None = None
    elapsedSeconds: float
