"""Argument and result models of the history tools (camelCase, as the other tools' are)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, PrivateAttr

from zwave_mcp.answers import AnyJson, ToolResult
from zwave_mcp.devices.model import CapabilityWord
from zwave_mcp.history.words import LastState

NAME_MAX = 200
PERIOD_HELP = (
    "When: 'last hour', 'today', 'yesterday', 'since 6 pm', 'last 7 days', 'this week', '2026-11-20' or "
    "an ISO 8601 range '2026-11-20T06:00/2026-11-20T09:00'"
)


class _Target(BaseModel):  # unknown arguments are ignored: pydantic's default
    deviceName: str | None = Field(
        None, min_length=1, max_length=NAME_MAX, description="One device as a person names it: 'front door'"
    )
    room: str | None = Field(None, min_length=1, max_length=NAME_MAX, description="Every device in this room")


LOCK_USER_HELP = "Only this lock user's events ('the cleaner')"


class HistoryArgs(_Target):
    kind: CapabilityWord | None = Field(
        None, description="Only devices of this kind (lock, sensor, switch, …)"
    )
    user: str | None = Field(None, min_length=1, max_length=NAME_MAX, description=LOCK_USER_HELP)
    period: str = Field("today", min_length=1, max_length=80, description=PERIOD_HELP)
    limit: int = Field(50, ge=1, le=500, description="At most this many changes listed (newest kept)")
    chart: bool = Field(False, description="Add a PNG chart of the numeric readings (needs the charts extra)")


class LastEventArgs(_Target):
    kind: CapabilityWord | None = Field(None, description="Only devices of this kind")
    user: str | None = Field(None, min_length=1, max_length=NAME_MAX, description=LOCK_USER_HELP)
    state: LastState = Field(
        "any",
        description="What happened: opened, closed, locked, unlocked, motion, on, off, dead, pressed (a "
        "button or remote), … or any",
    )


class EnergyArgs(_Target):
    period: str = Field("today", min_length=1, max_length=80, description=PERIOD_HELP)
    chart: bool = Field(
        False, description="Add a PNG chart of energy per day (or hour) (needs the charts extra)"
    )


class BatteryArgs(_Target):
    silentHours: float = Field(
        24, gt=0, le=24 * 365, description="A device not heard from for this many hours is called silent"
    )
    lowPercent: float = Field(20, ge=0, le=100, description="Battery levels at or below this are low")


class PeriodInfo(BaseModel):
    start: str  # ISO 8601 with offset
    end: str
    words: str


class HistoryEvent(BaseModel):
    at: str
    device: str | None
    deviceKey: str | None
    what: str
    value: AnyJson = None
    state: str | None = None
    source: Literal["value", "status", "gateway", "command", "lock"]
    button: int | None = Field(default=None, description="A button press: the button's number")
    press: str | None = Field(
        default=None, description="A button press: pressed, released, held, pressed twice…"
    )


class NumericSeries(BaseModel):
    device: str
    deviceKey: str
    label: str
    unit: str | None
    count: int
    min: float
    max: float
    last: float
    lastAt: str


class _Charted(ToolResult):
    chart: str | None = Field(default=None, description="'attached', or why there is no chart")
    _png: bytes | None = PrivateAttr(default=None)

    def images(self) -> list[tuple[bytes, str]]:
        """(data, mime type) the executor adds as image content."""
        return [] if self._png is None else [(self._png, "image/png")]


class HistoryResult(_Charted):
    period: PeriodInfo
    events: list[HistoryEvent]
    readings: list[NumericSeries]
    truncated: bool = False


class LastEventResult(ToolResult):
    found: bool
    event: HistoryEvent | None = None
    agoSeconds: float | None = None


class DeviceEnergy(BaseModel):
    device: str
    deviceKey: str
    kWh: float | None
    last7DaysKWh: float | None = None
    resets: int = 0
    readings: int


class EnergyResult(_Charted):
    period: PeriodInfo
    totalKWh: float | None
    devices: list[DeviceEnergy]


class BatteryInfo(BaseModel):
    device: str
    deviceKey: str
    level: float | None
    low: bool
    readingAt: str | None
    readingAgeSeconds: float | None
    trendPoints: float | None = Field(
        None, description="Change of level over `trendDays` (negative: draining)"
    )
    trendDays: float | None = None
    lastHeardAt: str | None
    silent: bool
    status: str


class BatteryResult(ToolResult):
    batteries: list[BatteryInfo]
    low: list[str]
    silent: list[str]
