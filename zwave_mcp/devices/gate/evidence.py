"""From what zwave-js-ui said and what the devices reported to one outcome per device, and its sentence.

The sentence is built from the same `DeviceOutcome` as the structured result (its `outcome`, `target` and
`reported`), never by reading the cache again, so the two can never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from zwave_mcp.answers import and_list, capital
from zwave_mcp.devices.gate.change import Change, Effect
from zwave_mcp.devices.kinds import first_answer
from zwave_mcp.devices.levels import is_number, to_percent
from zwave_mcp.devices.model import Device
from zwave_mcp.gateway.model import ZValue
from zwave_mcp.gateway.waiters import holds
from zwave_mcp.names import agreeing
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.zwave.classes import CC

# Worst first: a device's (and a change's) outcome is the worst of its parts.
SEVERITY = (
    Outcome.FAILED,
    Outcome.UNKNOWN,
    Outcome.UNCONFIRMED,
    Outcome.WORKING,
    Outcome.QUEUED,
    Outcome.CONFIRMED,
    Outcome.UNCHANGED,  # nothing was sent to it: it already reported what the change would set
)


@dataclass(frozen=True, slots=True)
class Report:
    """A device's report of one value: `value` as reported, `after_write` when it came after the send."""

    value: Any
    after_write: bool


@dataclass(frozen=True, slots=True)
class EffectOutcome:
    effect: Effect
    outcome: Outcome
    report: Report | None = None  # the evidence: what the device reported (None: nothing known)
    reason: str = ""
    # It reported the target before the send, and nothing it reported since says otherwise (issue 43 item 18).
    already: bool = False


@dataclass(frozen=True, slots=True)
class DeviceOutcome:
    """What became of the change on one device: the structured result and the words come from here."""

    device: Device
    outcome: Outcome
    target: Any
    reported: Any  # the device's last report of the watched value (None: nothing known)
    reported_after_write: bool
    reason: str
    effects: tuple[EffectOutcome, ...]
    already: bool = False  # every part was already as asked (`EffectOutcome.already`): say it so

    @property
    def reported_text(self) -> str:
        for part in self.effects:
            if part.report is not None and part.effect.expect is not None:
                return spoken_value(self.device, part.effect.expect.value, part.report.value)
        return ""

    def as_reported(self) -> Device:
        """The device as this outcome's reports show it, for the summary beside the sentence: a value the
        sentence gives as last reported is not shown with zwave-js's optimistic echo of the write."""
        reports = {}
        for part in self.effects:
            if part.report is None or part.effect.expect is None:
                continue
            live, reported = part.effect.expect.value.value, part.report.value
            if live != reported or type(live) is not type(reported):  # else nothing to copy (most calls)
                reports[part.effect.expect.value_id] = reported
        return self.device.as_reported(reports) if reports else self.device


# Outcomes after which a device that already reported the target is said to have been so: the write took,
# or nothing it reported since says otherwise. A failure, a queued or moving device is said as it is.
ALREADY_SAID = frozenset({Outcome.CONFIRMED, Outcome.UNCONFIRMED, Outcome.UNKNOWN})


def was_already(part: EffectOutcome, before: Any, since: Sequence[Any]) -> EffectOutcome:
    """`part`, marked `already` when the device reported the target before the send and every report
    since (`since`, and the evidence's own) says so too: a light already off that reports off is said
    "was already off", never "may have done it". One that reported anything else meanwhile (a late report
    of an earlier change) is said as it went."""
    expect = part.effect.expect
    if expect is None or part.outcome not in ALREADY_SAID:
        return part
    said = [before, *since, *([part.report.value] if part.report is not None else [])]
    if before is None or not all(holds(expect.is_met, v) for v in said):
        return part
    return replace(part, already=True, report=part.report or Report(before, after_write=False))


def worst(outcomes: Sequence[Outcome]) -> Outcome:
    return next((o for o in SEVERITY if o in outcomes), Outcome.CONFIRMED)


def per_device(parts: Sequence[EffectOutcome]) -> list[DeviceOutcome]:
    by_device: dict[str, list[EffectOutcome]] = {}
    for part in parts:
        by_device.setdefault(part.effect.device.key, []).append(part)
    result = []
    for effects in by_device.values():
        outcome = worst([p.outcome for p in effects])
        main = next((p for p in effects if p.outcome is outcome), effects[0])
        shown = next((p for p in effects if p.report is not None), None)
        result.append(
            DeviceOutcome(
                device=main.effect.device,
                outcome=outcome,
                target=main.effect.argument,
                reported=shown.report.value if shown is not None and shown.report is not None else None,
                reported_after_write=bool(shown and shown.report and shown.report.after_write),
                reason=main.reason,
                effects=tuple(effects),
                already=all(p.already for p in effects),
            )
        )
    return result


def spoken_value(device: Device, value: ZValue, raw: Any) -> str:
    """A reported value in plain words: "on", "30 %", "locked", "open 40 %", "21 °C", "Heat"."""
    if raw is None:
        return "nothing yet"
    cc = value.command_class
    role = next((r for r, v in device.values.items() if v.value_id == value.value_id), None)
    if (said := first_answer(lambda kind: kind.spoken_value(device, value, role, raw))) is not None:
        return said
    if cc == CC.MULTILEVEL_SWITCH and is_number(raw):
        percent = to_percent(raw, value)  # the one mapping both ways: 50 % set reads back as 50 %
        return "off" if percent == 0 else f"{percent} %"
    if cc == CC.BINARY_SWITCH or isinstance(raw, bool):
        return "on" if raw else "off"
    text = value.state_text(raw)
    if text:
        return text
    return f"{raw:g}" if is_number(raw) else str(raw)[:60]


def sentence(
    change: Change,
    devices: Sequence[DeviceOutcome],
    *,
    note: str = "",
    outcome: Outcome = Outcome.CONFIRMED,
    reason: str = "",
) -> str:
    """One plain sentence for the whole change, from the per-device outcomes (and nothing else); a change
    that touches no device (a scene with no values, an admin call) is said from its own `outcome`."""
    if len(devices) == 1:
        return _one(change, devices[0]) + note
    if not devices:
        return _bare(change, outcome, reason) + note
    parts = []
    for outcome in SEVERITY:
        found = [d for d in devices if d.outcome is outcome]
        if not found:
            continue
        who = and_list([d.device.name for d in found])
        parts.append(
            {
                Outcome.CONFIRMED: f"{who} reported the new state",
                Outcome.WORKING: f"{who} {'is' if len(found) == 1 else 'are'} still on the way",
                Outcome.QUEUED: f"{who} will apply it on waking up",
                Outcome.UNCONFIRMED: f"{who} did not report in time",
                Outcome.FAILED: f"{who} failed ({found[0].reason})",
                Outcome.UNKNOWN: f"for {who} zwave-js-ui did not answer in time, so it may still happen",
                Outcome.UNCHANGED: f"{who} {'was' if len(found) == 1 else 'were'} already as asked, so "
                f"nothing was sent to {'it' if len(found) == 1 else 'them'}",
            }[outcome]
        )
    headline = str(change.details.get("headline") or capital(change.summary))
    return f"{headline}: " + "; ".join(parts) + "." + note


def _bare(change: Change, outcome: Outcome, reason: str) -> str:
    if outcome is Outcome.FAILED:
        return f"Could not {change.summary}: {reason or 'zwave-js-ui gave no reason'}."
    if outcome is Outcome.UNKNOWN:
        return f"zwave-js-ui did not answer in time, so the request to {change.summary} may still have been carried out."
    if "headline" in change.details:
        return f"{change.details['headline']}."
    return f"Done: zwave-js-ui carried out the request to {change.summary}."


def _writes(d: DeviceOutcome, command_class: int) -> bool:
    return any(
        p.effect.value is not None and p.effect.value.command_class == command_class for p in d.effects
    )


def _one(change: Change, d: DeviceOutcome) -> str:
    name, summary = d.device.name, change.summary
    reported = d.reported_text
    if d.outcome is Outcome.CONFIRMED:
        written = [p.effect.value for p in d.effects if p.effect.value is not None]
        if said := first_answer(lambda kind: kind.done_sentence(d.device, written, reported, summary)):
            return said
        if reported:
            return "Done: " + agreeing(name, f"{name} is now {reported}, as the device reported.")
        return f"Done: the device confirmed the request to {summary}."
    if d.outcome is Outcome.UNCHANGED:
        if _writes(d, CC.CONFIGURATION):
            return (
                f"There was no need to {summary}: the device already has that setting, so nothing was sent."
            )
        if reported:
            return f"{name} is already {reported}, so nothing was sent."
        return f"{name} already reports what {summary} would set, so nothing was sent."
    if d.outcome is Outcome.WORKING:
        return f"The request to {summary} is on its way; the device has not reported its final state yet."
    if d.outcome is Outcome.QUEUED:
        return f"{capital(summary)} is queued: {name} is asleep and will apply it when it next wakes up."
    if d.outcome is Outcome.FAILED:
        return f"Could not {summary}: {d.reason}."
    if d.outcome is Outcome.UNKNOWN:
        now = f"{name} now reports {reported}" if reported else f"{name} could not be read again"
        return (
            f"zwave-js-ui did not answer in time, so the command to {summary} may still have been carried "
            f"out; {now}."
        )
    last = f"it last reported {reported}" if reported else "it has not reported its state"
    return f"The command to {summary} was sent, but {name} has not confirmed it; {last}."
