"""The one outcome vocabulary: what became of an attempt to change something.

Used by the write gate, the tool results, the audit line and the resources alike, so the words can never
drift apart. Each word promises exactly this much:
"""

from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    CONFIRMED = "confirmed"  # a device report received after the write matches the target
    WORKING = "working"  # the device said it is carrying it out; the final report has not come yet
    QUEUED = "queued"  # the device sleeps; zwave-js holds the command until it wakes up
    UNCONFIRMED = "unconfirmed"  # sent, but no report in time (the answer says what it last reported)
    FAILED = "failed"  # zwave-js or zwave-js-ui said it did not happen (with status and reason)
    UNKNOWN = "unknown"  # zwave-js-ui did not answer in time: it may still have been carried out
    REFUSED = "refused"  # the policy refused it (read-only, deny, hide, forbidden, rate limit, bad token)
    DECLINED = "declined"  # the person declined or cancelled the confirmation
    NEEDS_CONFIRMATION = "needs_confirmation"  # nothing sent: the person must confirm first
    DRY_RUN = "dry_run"  # nothing sent: the answer shows the exact messages
    UNCHANGED = "unchanged"  # nothing sent or asked: the device already reports what the change would set


# Outcomes after which nothing was sent.
NOT_SENT = frozenset(
    {Outcome.REFUSED, Outcome.DECLINED, Outcome.NEEDS_CONFIRMATION, Outcome.DRY_RUN, Outcome.UNCHANGED}
)

# What became of an attempt, as a device's history says it after the device's name and before the time
# ("Porch Relay was told to turn on, and it was confirmed at 09:02"); `{action}` is the action's spoken
# words. Each claims no more than its word promises: only a sent attempt says the device was told.
ATTEMPT_SAID: dict[Outcome, str] = {
    Outcome.CONFIRMED: "was told to {action}, and it was confirmed",
    Outcome.WORKING: "was told to {action} and said it was on its way",
    Outcome.QUEUED: "was asleep when told to {action}",
    Outcome.UNCONFIRMED: "was told to {action} but did not report back in time",
    Outcome.FAILED: "was told to {action}, but it failed",
    Outcome.UNKNOWN: "may have been told to {action}, with no answer from zwave-js-ui",
    Outcome.REFUSED: "was not told to {action}, as that was refused",
    Outcome.DECLINED: "was not told to {action}, as the person declined",
    Outcome.NEEDS_CONFIRMATION: "was not told to {action} without a confirmation",
    Outcome.DRY_RUN: "was not told to {action}, as it was only a dry run",
    Outcome.UNCHANGED: "was not told to {action}, as it was already as asked",
}


def attempt_said(outcome: str, action: str) -> str:
    """The attempt after the device's name, from its recorded outcome word and the action's spoken words;
    an outcome word this version does not know claims nothing ("had a request to turn on")."""
    try:
        known = Outcome(outcome)
    except ValueError:
        return f"had a request to {action}"
    return ATTEMPT_SAID[known].format(action=action)
