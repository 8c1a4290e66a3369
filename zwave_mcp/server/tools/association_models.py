"""Argument and result models of the association tools (admin set, issue 45 item 1)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from zwave_mcp.answers import ToolResult
from zwave_mcp.server.tools.admin_models import TOKEN, ChangeResult
from zwave_mcp.server.tools.models import NAME_MAX, DeviceArgs


class AssociationGroupInfo(BaseModel):
    label: str
    number: int
    endpoint: int
    maxNodes: int
    lifeline: bool
    controls: list[str] = Field(description="The devices it sends to (zwave-mcp: the controller)")


class AssociationList(ToolResult):
    device: str
    groups: list[AssociationGroupInfo]


class AssociationArgs(DeviceArgs):
    action: Literal["add", "remove"] = Field(
        description="add: deviceName controls targetDevice by itself; remove: it no longer does"
    )
    targetDevice: str | None = Field(
        None,
        max_length=NAME_MAX,
        description="The device to control (or stop controlling); empty with remove and group 'Lifeline': "
        "zwave-mcp's own lifeline",
    )
    group: int | str | None = Field(
        None, description="The group's label ('PIR Control') or number; empty: the only one that controls"
    )
    confirmationToken: str | None = TOKEN


class AssociationResult(ChangeResult):
    device: str | None = None
    group: str | None = None
    readBack: list[str] | None = Field(
        None, description="What the group controls, read again after the change"
    )
