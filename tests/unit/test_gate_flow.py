"""The gate's dialogue, limits, audit and records, on the captured house with zwave-js-ui's replies stubbed
(no broker): an injected clock, tokens from a list, and `write_value` answering at once.

The same flows run on the broker in tests/integration/test_safety.py and test_gate.py; here each rule is
pinned alone: one confirmation per call bound to the exact change, a token works once and never for
another change, a rate-limited call keeps its token, exactly one audit line and one record per attempt.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from zwave_mcp.config import load_settings
from zwave_mcp.devices.control import control_change, plan_control
from zwave_mcp.devices.gate import ApiCall, Change, Effect, Gate, GateResult, WriteValues, value_effect
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.service import DeviceService
from zwave_mcp.gateway.api import ApiReply, ApiTimeout, GatewayError, SetValueStatus, WriteResult
from zwave_mcp.gateway.client import ZwaveGateway
from zwave_mcp.gateway.model import InventoryEvent
from zwave_mcp.policy import Policy, PolicyConfig
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.simulator import captured_house


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def locked(house: list[Any]) -> list[Any]:
    """The captured house with its front door locked (it was captured unlocked, and unlocking a door that
    is already unlocked asks nothing: issue 36)."""
    for node in house:
        if node["id"] == 5:
            for value in node["values"].values():
                if value["commandClass"] == 98 and value["property"] in ("currentMode", "targetMode"):
                    value["value"] = 255
    return house


class Rig:
    """A gate on an unstarted gateway holding the captured house; writes answer with `status`."""

    def __init__(
        self, config: PolicyConfig | None = None, house: list[Any] | None = None, **settings: Any
    ) -> None:
        self.settings = load_settings(
            {"mqtt_url": "mqtt://127.0.0.1:1", "confirm_timeout": 0, **settings}, environ={}
        )
        self.clock = Clock()
        tokens = iter(f"{c}" * 22 for c in "ABCDEFGH")
        self.policy = Policy(config or PolicyConfig(), clock=self.clock, token_factory=tokens.__next__)
        self.gateway = ZwaveGateway(self.settings)
        self.gateway.inventory.load_nodes(locked(captured_house() if house is None else house))
        self.gate = Gate(self.gateway, self.policy, self.settings)
        self.devices = DeviceService(self.gateway, self.policy, self.settings, self.gate)
        self.writes: list[tuple[Any, Any]] = []
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.status = SetValueStatus.SUCCESS
        self.records: list[GateResult] = []
        self.gate.add_listener(self.records.append)
        self.gateway.write_value = self._write  # type: ignore[method-assign]
        self.gateway.call = self._call  # type: ignore[method-assign]

    async def _write(self, value: Any, target: Any, options: Any = None, timeout: Any = None) -> WriteResult:
        self.writes.append((value.value_id, target))
        if self.status is None:
            raise ApiTimeout("zwave-js-ui did not answer writeValue within 3 s")
        return WriteResult(status=self.status, message="", value_id=None, target=target)

    async def _call(self, api: str, *args: Any, timeout: Any = None) -> ApiReply:
        self.calls.append((api, args))
        return ApiReply(success=True, message="ok", result=True, raw={})

    def device(self, name: str) -> Device:
        return self.devices.resolve(name, for_mutation=True)

    def change(self, name: str, action: str, **args: Any) -> Change:
        return control_change(plan_control(self.device(name), action, **args))

    def apply(self, change: Change, **kw: Any) -> GateResult:
        return asyncio.run(self.gate.apply(change, **kw))


class AuditLines:
    def __init__(self, caplog: pytest.LogCaptureFixture) -> None:
        self.caplog = caplog

    def __iter__(self) -> Iterator[Any]:
        return iter([r for r in self.caplog.records if r.name == "zwave_mcp.audit"])


@pytest.fixture
def audit(caplog: pytest.LogCaptureFixture) -> AuditLines:
    caplog.set_level(logging.INFO, logger="zwave_mcp.audit")
    return AuditLines(caplog)


def asker(*answers: str | None) -> tuple[Any, list[tuple[str, str]]]:
    asked: list[tuple[str, str]] = []
    queue = list(answers)

    async def ask(question: str, binding: str) -> str | None:
        asked.append((question, binding))
        return queue.pop(0)

    return ask, asked


def test_read_only_refuses_every_change_even_confirmed(audit: AuditLines) -> None:
    rig = Rig(PolicyConfig(read_only=True))
    ask, asked = asker("accept")
    result = rig.apply(rig.change("front door", "unlock"), ask=ask, token="A" * 22)
    assert result.outcome is Outcome.REFUSED and asked == [] and rig.writes == []
    assert result.sentence == (
        "Refused to unlock Front Door Lock (Entry): zwave-mcp runs in read-only mode (ZWAVE_MCP_READ_ONLY), so "
        "nothing can be switched or set; reading devices still works."
    )
    assert [r.outcome for r in audit] == ["refused"]  # type: ignore[attr-defined]


def test_a_token_works_once_and_only_for_its_change(audit: AuditLines) -> None:
    rig = Rig()
    asked = rig.apply(rig.change("front door", "unlock"))
    assert asked.outcome is Outcome.NEEDS_CONFIRMATION and asked.token == "A" * 22 and rig.writes == []
    assert asked.sentence == (
        "Confirmation required to unlock Front Door Lock (Entry) because it can unlock a door: ask the person, "
        'and only if they agree call again with the same device, action and value and confirmationToken="'
        + "A" * 22
        + '" within 60 s.'
    )
    asked = rig.apply(rig.change("front door", "unlock"))
    done = rig.apply(rig.change("front door", "unlock"), token=asked.token)
    assert done.outcome is Outcome.CONFIRMED and done.confirmed_by == "token"
    again = rig.apply(rig.change("front door", "unlock"), token=asked.token)
    assert again.outcome is Outcome.REFUSED and "already used" in again.sentence
    assert len(rig.writes) == 1
    assert [r.outcome for r in audit] == [  # type: ignore[attr-defined]
        "needs_confirmation",
        "needs_confirmation",
        "confirmed",
        "refused",
    ]


def test_a_token_for_another_change_is_refused_and_cancelled() -> None:
    rig = Rig()
    token = rig.apply(rig.change("front door", "unlock")).token
    # A thermostat target outside the safe band needs confirmation too: the door's token is not it.
    wrong = rig.apply(rig.change("thermostat", "set_temperature", value=29), token=token)
    assert wrong.outcome is Outcome.REFUSED
    assert wrong.sentence.startswith(
        "That confirmation token was issued for unlock Front Door Lock (Entry), not"
    )
    assert rig.apply(rig.change("front door", "unlock"), token=token).outcome is Outcome.REFUSED
    assert rig.writes == []


def test_elicitation_asks_once_bound_to_the_change_and_decline_sends_nothing() -> None:
    rig = Rig()
    ask, asked = asker("decline", "cancel", "accept")
    change = rig.change("front door", "unlock")
    declined = rig.apply(change, ask=ask)
    assert declined.outcome is Outcome.DECLINED
    assert (
        declined.sentence == "Did not unlock Front Door Lock (Entry): the person declined the confirmation."
    )
    cancelled = rig.apply(rig.change("front door", "unlock"), ask=ask)
    assert cancelled.sentence.endswith("the person cancelled the confirmation.")
    done = rig.apply(rig.change("front door", "unlock"), ask=ask)
    assert done.outcome is Outcome.CONFIRMED and done.confirmed_by == "elicitation"
    assert asked[0] == (
        "Do you want to unlock Front Door Lock (Entry)? Confirmation is needed because it can unlock a door.",
        change.binding(),
    )
    assert len(asked) == 3 and len(rig.writes) == 1


def test_a_token_given_where_none_is_needed_is_ignored_not_spent() -> None:
    rig = Rig()
    token = rig.apply(rig.change("front door", "unlock")).token
    assert rig.apply(rig.change("kitchen light", "on"), token=token).outcome is Outcome.CONFIRMED
    assert rig.apply(rig.change("front door", "unlock"), token=token).outcome is Outcome.CONFIRMED


def test_an_asker_that_raises_ends_the_call_after_its_audit_line(audit: AuditLines) -> None:
    rig = Rig()

    async def ask(question: str, binding: str) -> str | None:
        raise LookupError("input required")

    with pytest.raises(LookupError):
        rig.apply(rig.change("front door", "unlock"), ask=ask)
    assert [r.outcome for r in audit] == ["needs_confirmation"] and rig.writes == []  # type: ignore[attr-defined]
    assert [r.outcome for r in rig.records] == [Outcome.NEEDS_CONFIRMATION]


def test_rate_limits_name_the_device_and_the_wait_and_keep_the_token() -> None:
    rig = Rig(PolicyConfig(rate_limit_device=2, rate_limit_total=3))
    assert rig.apply(rig.change("kitchen light", "on")).outcome is Outcome.CONFIRMED
    rig.clock.now += 12
    assert rig.apply(rig.change("kitchen light", "off")).outcome is Outcome.CONFIRMED
    limited = rig.apply(rig.change("kitchen light", "on"))
    assert limited.outcome is Outcome.REFUSED and limited.sentence == (
        "Refused to turn on Kitchen Light (Kitchen): Kitchen Light (Kitchen) already had 2 commands in the last "
        "60 s (the limit per device); try again in 48 s."
    )
    assert rig.apply(rig.change("living room lamp", "on")).outcome is Outcome.CONFIRMED
    overall = rig.apply(rig.change("front door", "lock"))
    assert overall.sentence == (
        "Refused to lock Front Door Lock (Entry): 3 commands were sent in the last 60 s (the overall limit); "
        "try again in 48 s."
    )
    rig.clock.now += 48


def test_asking_costs_nothing_and_a_rate_limited_call_keeps_its_token() -> None:
    rig = Rig(PolicyConfig(rate_limit_device=1))
    rig.policy.rates.window_s = 30  # shorter than the token's 60 s
    for _ in range(5):
        token = rig.apply(rig.change("front door", "unlock")).token
    assert rig.apply(rig.change("front door", "lock")).outcome is Outcome.CONFIRMED
    limited = rig.apply(rig.change("front door", "unlock"), token=token)
    assert limited.outcome is Outcome.REFUSED and "try again in 30 s" in limited.sentence
    rig.clock.now += 30
    done = rig.apply(rig.change("front door", "unlock"), token=token)
    assert done.outcome is Outcome.CONFIRMED, "the token survived the rate refusal"


def test_many_devices_one_confirmation_listing_them_and_one_outcome_each() -> None:
    rig = Rig()
    light, door = rig.device("kitchen light"), rig.device("front door")
    effects = [
        value_effect(light, light.values["switch.target"], True),
        value_effect(door, door.values["lock.target"], 0),
    ]
    change = Change(
        "leave_home", "leave", "switch on the kitchen light and unlock the front door", effects, WriteValues()
    )
    ask, asked = asker("accept")
    rig.status = SetValueStatus.SUCCESS
    result = rig.apply(change, ask=ask)
    assert len(asked) == 1 and asked[0][0] == (
        "Do you want to switch on the kitchen light and unlock the front door (turn on Kitchen Light (Kitchen); "
        "unlock Front Door Lock (Entry))? Confirmation is needed because it would unlock Front Door Lock (Entry), "
        "which can unlock a door."
    )
    assert [(d.device.name, d.outcome) for d in result.devices] == [
        ("Kitchen Light", Outcome.CONFIRMED),
        ("Front Door Lock", Outcome.CONFIRMED),
    ]
    assert len(rig.writes) == 2 and result.outcome is Outcome.CONFIRMED


def test_no_answer_from_zwave_js_ui_is_unknown_never_failed() -> None:
    rig = Rig()
    rig.status = None  # the reply does not come in time

    async def poll(value: Any, timeout: Any = None) -> Any:
        return True  # re-read: the device reports on

    rig.gateway.poll_value = poll  # type: ignore[method-assign]
    result = rig.apply(rig.change("kitchen light", "on"))
    assert result.outcome is Outcome.UNKNOWN and result.devices[0].reported is True
    assert result.sentence == (
        "zwave-js-ui did not answer in time, so the command to turn on Kitchen Light may still have been "
        "carried out; Kitchen Light now reports on."
    )


def test_an_admin_change_through_the_generic_sender_is_judged_and_recorded(
    audit: AuditLines,
) -> None:
    rig = Rig(
        PolicyConfig(deny=Policy.from_settings(load_settings({"deny": "Kitchen"}, environ={})).config.deny)
    )
    for name, expected in (("kitchen light", Outcome.REFUSED), ("living room lamp", Outcome.CONFIRMED)):
        device = rig.device(name)
        effect = Effect(device, None, "Porch Lights", frozenset({"rename"}), argument="Porch Lights")
        change = Change(
            "rename_zwave_device",
            "rename",
            f"rename {device.name} to Porch Lights",
            [effect],
            ApiCall([("setNodeName", [device.node_id, "Porch Lights"])]),
            subject=f"node {device.node_id}",
        )
        assert rig.apply(change).outcome is expected
    assert rig.calls == [("setNodeName", (3, "Porch Lights"))]
    assert [r.outcome for r in audit] == ["refused", "confirmed"]  # type: ignore[attr-defined]


def _node_rename(device: Device, name: str) -> Change:
    effect = Effect(device, None, name, frozenset({"rename"}), argument=name)
    call = ApiCall([("setNodeName", [device.node_id, name])])
    return Change("rename_zwave_device", "rename", f"rename {device.name} to {name}", [effect], call)


@pytest.mark.parametrize("through_the_service", [True, False])
def test_a_node_wide_change_is_judged_on_every_device_of_the_node(
    audit: AuditLines, through_the_service: bool
) -> None:
    """Issue 30: a change addressed to node 11 through its visible switch 1 reaches the hidden switch 2.
    The gate refuses it without naming switch 2, whether it learns the node's devices from the devices
    service or builds them from the inventory itself; a write to switch 1's own value is not node-wide."""
    hide = Policy.from_settings(load_settings({"hide": "Porch Double Switch 2"}, environ={})).config.hide
    rig = Rig(PolicyConfig(hide=hide))
    switch_1 = rig.device("porch double switch 1")
    if not through_the_service:
        rig.gate._node_devices = None
    result = rig.apply(_node_rename(switch_1, "Patio Switch"))
    assert result.outcome is Outcome.REFUSED and rig.calls == []
    assert result.sentence == (
        "Refused to rename Porch Double Switch to Patio Switch: it reaches every device of node 11, and the "
        "policy hides part of that node (ZWAVE_MCP_HIDE)."
    )
    assert [d.key for d in result.change.devices] == ["11.1", "11.2"]
    assert rig.apply(rig.change("porch double switch 1", "on")).outcome is Outcome.CONFIRMED
    assert [r.outcome for r in audit] == ["refused", "confirmed"]  # type: ignore[attr-defined]


def test_a_node_wide_confirmation_is_bound_to_the_devices_it_reached() -> None:
    confirm = Policy.from_settings(
        load_settings({"confirm_devices": "Porch Double Switch 2"}, environ={})
    ).config.confirm_devices
    rig = Rig(PolicyConfig(confirm_devices=confirm))
    switch_1 = rig.device("porch double switch 1")
    ask, asked = asker(None)
    pending = rig.apply(_node_rename(switch_1, "Patio Switch"), ask=ask)
    assert pending.outcome is Outcome.NEEDS_CONFIRMATION
    assert asked[0][0].startswith(
        "Do you want to rename Porch Double Switch to Patio Switch (it reaches every device of node 11: "
        "Porch Double Switch and Porch Double Switch 2)? Confirmation is needed because it would also "
        "change Porch Double Switch 2 (Porch), on the same node 11, and every change to it needs confirmation"
    )
    # The node gained a device since it was asked: the token was for the devices it reached then.
    rig.gate.reach_with(lambda node_id: [*rig.devices.devices_of_node(node_id), rig.device("kitchen light")])
    again = rig.apply(_node_rename(switch_1, "Patio Switch"), token=pending.token)
    assert again.outcome is Outcome.REFUSED and rig.calls == []


def test_a_call_cut_short_after_the_send_is_audited_once_as_unknown(audit: AuditLines) -> None:
    rig = Rig()

    async def slow(value: Any, target: Any, options: Any = None, timeout: Any = None) -> WriteResult:
        rig.writes.append((value.value_id, target))
        await asyncio.sleep(10)
        raise AssertionError("not reached")

    rig.gateway.write_value = slow  # type: ignore[method-assign]

    async def cut_short() -> None:
        task = asyncio.ensure_future(rig.gate.apply(rig.change("kitchen light", "on")))
        while not rig.writes:
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cut_short())
    assert [(r.action, r.outcome) for r in audit] == [("on", "unknown")]  # type: ignore[attr-defined]
    assert [r.outcome for r in rig.records] == [Outcome.UNKNOWN]


def test_a_change_on_no_device_is_said_from_its_own_outcome() -> None:
    rig = Rig()

    async def refuses(api: str, *args: Any, timeout: Any = None) -> ApiReply:
        return ApiReply(success=False, message="No scene found with given sceneid", result=None, raw={})

    rig.gateway.call = refuses  # type: ignore[method-assign]
    change = Change("t", "activate_scene", "activate scene 'Empty'", [], ApiCall([("_activateScene", [9])]))
    change.details["headline"] = "Scene 'Empty' started"
    failed = rig.apply(change)
    assert failed.outcome is Outcome.FAILED and failed.sentence == (
        "Could not activate scene 'Empty': zwave-js-ui could not run _activateScene: No scene found with given "
        "sceneid."
    )
    rig.gateway.call = Rig._call.__get__(rig)  # type: ignore[method-assign]
    done = rig.apply(change)
    assert done.outcome is Outcome.CONFIRMED and done.sentence == "Scene 'Empty' started."


def _echo_race(echo_before_poll: bool, then_reported: bool) -> GateResult:
    """An unsupervised switch write whose check-back poll fails. zwave-js's optimistic echo of the write
    comes on the value lane, before the poll's answer or (another connection) overtaken by it."""
    rig = Rig(confirm_timeout=0.05)
    rig.status = SetValueStatus.SUCCESS_UNSUPERVISED
    change = rig.change("kitchen light", "on")
    expect = change.effects[0].expect
    assert expect is not None
    node = change.effects[0].device.node_id

    def report(value: object) -> None:
        rig.gateway.inventory._emit([InventoryEvent("value", node, expect.value_id, False, value)])

    async def poll_value(value: Any, timeout: Any = None) -> Any:
        loop = asyncio.get_running_loop()
        if echo_before_poll:
            report(True)
        else:
            loop.call_soon(report, True)  # seen only after the poll's failure
        if then_reported:
            loop.call_later(0.01, report, True)  # the device's own report, later
        raise GatewayError("the device did not acknowledge the Get")

    rig.gateway.poll_value = poll_value  # type: ignore[method-assign]
    return rig.apply(change)


@pytest.mark.parametrize("echo_before_poll", [True, False])
def test_the_echo_of_an_unsupervised_write_is_no_evidence_whichever_lane_comes_first(
    echo_before_poll: bool,
) -> None:
    """CI once saw "Done: Kitchen Light is now on, as the device reported." here: the poll's failure came on
    the control lane before the echo on the value lane, and the echo was taken for the device's report."""
    result = _echo_race(echo_before_poll, then_reported=False)
    assert result.outcome is Outcome.UNCONFIRMED, result.sentence
    assert result.sentence == (
        "The command to turn on Kitchen Light was sent, but Kitchen Light has not confirmed it; "
        "it last reported off."
    )


@pytest.mark.parametrize("echo_before_poll", [True, False])
def test_a_report_after_the_echo_confirms_an_unsupervised_write(echo_before_poll: bool) -> None:
    result = _echo_race(echo_before_poll, then_reported=True)
    assert result.outcome is Outcome.CONFIRMED, result.sentence


def test_a_reason_several_effects_share_is_said_once() -> None:
    """Issue 43 item 13: a group unlock of three locks asked "because it would unlock A and it can unlock a
    door; it would unlock B and it can unlock a door; …". One reason is said once, naming what it is for
    only when some of the change's effects do not need it."""
    from zwave_mcp.devices.gate.judge import _would

    locks = ["unlock Front Door Lock", "unlock Back Door Lock", "unlock Side Door Lock"]
    assert _would(locks, "it can unlock a door", every=True) == "it can unlock a door"
    assert _would(locks[1:], "it can unlock a door", every=False) == (
        "it would unlock Back Door Lock and unlock Side Door Lock, which can unlock a door"
    )
    assert _would(
        ["set Hallway Thermostat to 35 °C"], "35 °C is outside the safe range 10-28 °C", every=False
    ) == ("it would set Hallway Thermostat to 35 °C and 35 °C is outside the safe range 10-28 °C")
