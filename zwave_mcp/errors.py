"""Errors whose message is meant for the person (or model) who made the call.

The executor turns a `UserError` into a failed tool result with its message as the spoken sentence; any
other exception is logged with its stack and answered with a generic but readable sentence.
"""

from __future__ import annotations


class UserError(Exception):
    """A failure the caller can understand and act on: say what went wrong and what would work."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class PolicyRefusal(UserError):
    """The policy (read-only, deny lists, rate limits, confirmation) refused the call."""
