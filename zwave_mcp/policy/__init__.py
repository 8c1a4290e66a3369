"""The safety policy: read-only, allow/deny/hide lists, which changes are sensitive, one-time confirmation
tokens, rate limits, argument hardening and the audit trail. Pure apart from the optional audit file and
reading the policy file at start; clocks and randomness are injectable.

The write gate (`zwave_mcp.devices.gate`) is its one user for changes: it asks `Policy.judge` about every
effect of a change, then confirms (`Policy.tokens` or elicitation), limits (`Policy.rates`) and audits
(`Policy.audit`). Tools check free text with `check_text_argument` before resolving anything.
"""

from zwave_mcp.policy.audit import AUDIT_LOGGER, AuditEvent, AuditLog
from zwave_mcp.policy.core import TOKEN_PARAMETER, Policy, Verdict
from zwave_mcp.policy.outcome import Outcome
from zwave_mcp.policy.ratelimit import RateLimiter
from zwave_mcp.policy.settings import PolicyConfig
from zwave_mcp.policy.terms import TermError, parse_terms
from zwave_mcp.policy.text import InvalidArgument, check_json_argument, check_text_argument
from zwave_mcp.policy.tokens import ConfirmationTokens, canonical_value

__all__ = [
    "AUDIT_LOGGER",
    "TOKEN_PARAMETER",
    "AuditEvent",
    "AuditLog",
    "ConfirmationTokens",
    "InvalidArgument",
    "Outcome",
    "Policy",
    "PolicyConfig",
    "RateLimiter",
    "TermError",
    "Verdict",
    "canonical_value",
    "check_json_argument",
    "check_text_argument",
    "parse_terms",
]
