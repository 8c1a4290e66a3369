"""The safety policy: read-only, allow/deny/hide lists, confirmation of sensitive changes (elicitation or
one-time tokens), rate limits, argument hardening and the audit trail. Pure apart from the optional audit
file and reading the policy file at start; clocks and randomness are injectable.

Typical use in a mutating tool (see `Policy.authorize` for the order of the checks):

    check_text_argument("deviceName", args.deviceName)
    decision = policy.authorize(device, action, target, unit=unit, token=args.confirmationToken,
                                confirmed=elicitation_accepted)
    if decision.refused:        -> audit(outcome="refused"), raise PolicyRefusal(decision.message)
    if decision.needs_confirmation:
        with elicitation: ask decision.elicitation_prompt(); accept → authorize(..., confirmed=True)
                          decline/cancel → decision.declined_message()
        without: policy.request_confirmation(device, action, target, decision) → the answer, audit
                 outcome="confirmation_requested"
    allowed                     -> write, then audit the outcome (done / failed / dry_run …)
"""

from zwave_mcp.actions import normalize_action
from zwave_mcp.outcome import Outcome
from zwave_mcp.policy.audit import AUDIT_LOGGER, AuditEvent, AuditLog
from zwave_mcp.policy.core import TOKEN_PARAMETER, Decision, Policy, Verdict
from zwave_mcp.policy.ratelimit import RateLimiter, RateRefusal
from zwave_mcp.policy.sensitive import SafeBand, describe_action
from zwave_mcp.policy.settings import PolicyConfig, load_policy_file
from zwave_mcp.policy.terms import DeviceList, PolicyDevice, Term, TermError, parse_terms
from zwave_mcp.policy.text import InvalidArgument, check_json_argument, check_text_argument
from zwave_mcp.policy.tokens import ConfirmationTokens, canonical_value

__all__ = [
    "AUDIT_LOGGER",
    "TOKEN_PARAMETER",
    "AuditEvent",
    "AuditLog",
    "ConfirmationTokens",
    "Decision",
    "DeviceList",
    "InvalidArgument",
    "Outcome",
    "Policy",
    "PolicyConfig",
    "PolicyDevice",
    "RateLimiter",
    "RateRefusal",
    "SafeBand",
    "Term",
    "TermError",
    "Verdict",
    "canonical_value",
    "check_json_argument",
    "check_text_argument",
    "describe_action",
    "load_policy_file",
    "normalize_action",
    "parse_terms",
]
