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
