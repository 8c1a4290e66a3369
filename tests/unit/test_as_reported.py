"""A gate answer shows the device as it reported itself, while the live picture keeps zwave-js's echo."""

from __future__ import annotations

from tests.unit.test_devices_build import house
from zwave_mcp.devices import model as m
from zwave_mcp.devices.control import control_change, plan_control
from zwave_mcp.devices.gate import EffectOutcome, Report
from zwave_mcp.devices.gate.evidence import per_device
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.server.tools.present import summarize


def test_an_unconfirmed_write_shows_the_last_report_and_leaves_the_picture_alone() -> None:
    light = house()["2"]
    plan = plan_control(light, "on")
    change = control_change(plan)
    light.values[m.SWITCH_CURRENT].value = True  # zwave-js's optimistic echo of the write, in the picture
    parts = [EffectOutcome(e, Outcome.UNCONFIRMED, Report(False, after_write=False)) for e in change.effects]
    [outcome] = per_device(parts)

    shown = outcome.as_reported()

    assert summarize(shown).state == "off"
    assert summarize(light).state == "on"  # the picture (what a read shows) is not changed
    assert light.values[m.SWITCH_CURRENT].value is True
    assert shown.values[m.SWITCH_CURRENT].value_id == light.values[m.SWITCH_CURRENT].value_id


def test_without_a_report_the_device_is_shown_as_the_picture_holds_it() -> None:
    light = house()["2"]
    change = control_change(plan_control(light, "on"))
    [outcome] = per_device([EffectOutcome(e, Outcome.FAILED, reason="no route") for e in change.effects])
    assert outcome.as_reported() is light
