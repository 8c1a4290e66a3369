"""Percent ↔ device level: what is set is what is reported, on every scale a level value can have."""

from __future__ import annotations

import pytest

from tests.unit.test_devices_build import house
from zwave_mcp.devices import model as m
from zwave_mcp.devices.control import plan_control
from zwave_mcp.devices.describe import state_summary
from zwave_mcp.devices.levels import to_level, to_percent
from zwave_mcp.gateway.model import ZValue


def _value(low: float | None, high: float | None) -> ZValue:
    return ZValue("3-38-0-targetValue", 3, 38, "Multilevel Switch", 0, "targetValue", min=low, max=high)


@pytest.mark.parametrize(("low", "high"), [(0, 99), (None, None), (0, 100), (0, 255), (1, 100)])
def test_every_percent_comes_back_as_set(low: float | None, high: float | None) -> None:
    value = _value(low, high)
    lossy = {99} if (high or 99) - (low or 0) == 99 else set()
    for percent in range(101):
        back = to_percent(to_level(percent, value), value)
        assert back == (100 if percent in lossy else percent), percent


def test_the_zero_to_99_scale() -> None:
    value = _value(0, 99)
    assert [to_level(p, value) for p in (0, 1, 50, 98, 99, 100)] == [0, 1, 50, 98, 99, 99]
    assert [to_percent(n, value) for n in (0, 1, 50, 98, 99)] == [0, 1, 50, 98, 100]
    assert to_level(150, value) == 99 and to_level(-5, value) == 0


def test_fifty_percent_set_is_fifty_percent_reported() -> None:
    lamp = house()["3"]
    plan = plan_control(lamp, "set_level", level=50)
    assert plan.writes[0].target == 50
    lamp.values[m.LEVEL_CURRENT].value = plan.writes[0].target  # what the device reports back
    assert state_summary(lamp) == "50 %"
    relative = plan_control(lamp, "dim", level="+10")
    assert relative.argument == 60 and relative.writes[0].target == 60
