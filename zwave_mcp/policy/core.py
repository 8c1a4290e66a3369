"""`Policy`: the one gate every mutation passes through.

Order of the checks for a change to a device (`authorize`):
1. read-only mode refuses everything;
2. hidden devices (`hide`) and devices the lists make read-only (`deny`, or not on a non-empty `allow`)
   are refused; deny wins over allow;
3. a sensitive change (see `zwave_mcp.policy.sensitive`) is refused when sensitive actions are forbidden;
4. the rate limits refuse with the seconds to wait;
5. a sensitive change then needs confirmation: given by the person through elicitation
   (`confirmed=True`) or by a one-time token from an earlier "confirmation required" answer;
6. the command is counted against the rate limits and allowed.
`check_mutation` is steps 1-3 and 5 without side effects (nothing counted, no token spent).

Denied devices stay visible, read-only: a person who denies `lock` still wants to hear whether the front
door is locked, and a device that vanished would read as "no such device", which misleads. Devices that
must not even be seen go on the `hide` list.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from zwave_mcp.actions import normalize_action
from zwave_mcp.config import Settings
from zwave_mcp.errors import PolicyRefusal
from zwave_mcp.policy.audit import AuditEvent, AuditLog
from zwave_mcp.policy.ratelimit import RateLimiter, RateRefusal
from zwave_mcp.policy.sensitive import describe_action, sensitivity
from zwave_mcp.policy.settings import PolicyConfig
from zwave_mcp.policy.terms import PolicyDevice, device_label
from zwave_mcp.policy.tokens import ConfirmationTokens

READ_ONLY_SOURCE = "ZWAVE_MCP_READ_ONLY"
FORBID_SOURCE = "ZWAVE_MCP_FORBID_SENSITIVE"
TOKEN_PARAMETER = "confirmationToken"


class Verdict(StrEnum):
    ALLOWED = "allowed"
    REFUSED = "refused"
    NEEDS_CONFIRMATION = "needs_confirmation"


@dataclass(frozen=True, slots=True)
class Decision:
    """The policy's answer. For a refusal `message` is the sentence to speak; for a needed confirmation
    `why` says what makes the change sensitive; `action_text` is the change in words ("unlock Front Door
    Lock (Entry)")."""

    verdict: Verdict
    action_text: str
    message: str = ""
    why: str = ""
    sensitive: bool = False
    confirmed_by: str | None = None  # "token" or "elicitation" when a sensitive change was confirmed
    retry_after_s: int | None = None

    @property
    def allowed(self) -> bool:
        return self.verdict is Verdict.ALLOWED

    @property
    def refused(self) -> bool:
        return self.verdict is Verdict.REFUSED

    @property
    def needs_confirmation(self) -> bool:
        return self.verdict is Verdict.NEEDS_CONFIRMATION

    def raise_if_refused(self) -> Decision:
        if self.refused:
            raise PolicyRefusal(self.message, verdict=str(self.verdict))
        return self

    def elicitation_prompt(self) -> str:
        """The question to put to the person: "Unlock Front Door Lock (Entry)? It can unlock a door."."""
        return f"Do you want to {self.action_text}? Confirmation is needed because {self.why}."

    def declined_message(self, *, cancelled: bool = False) -> str:
        return f"Did not {self.action_text}: the person {'cancelled' if cancelled else 'declined'} the confirmation."

    def token_message(self, token: str, ttl_s: float, *, parameter: str = TOKEN_PARAMETER) -> str:
        """The "confirmation required" sentence; `name="value"` so log redaction hides the token."""
        return (
            f"Confirmation required to {self.action_text} because {self.why}: ask the person, and only if they "
            f'agree call again with the same device, action and value and {parameter}="{token}" '
            f"within {ttl_s:g} s."
        )


def _refused(action_text: str, message: str, **extra: Any) -> Decision:
    return Decision(Verdict.REFUSED, action_text, message=message, **extra)


class Policy:
    """Built once at start from `Settings`; `clock` (monotonic seconds) and `token_factory` for tests."""

    def __init__(
        self,
        config: PolicyConfig | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        token_factory: Callable[[], str] | None = None,
        audit_log: AuditLog | None = None,
        rate_window_s: float = 60.0,
    ) -> None:
        self.config = config or PolicyConfig()
        token_kw: dict[str, Any] = {} if token_factory is None else {"token_factory": token_factory}
        self.tokens = ConfirmationTokens(ttl_s=self.config.confirm_token_ttl, clock=clock, **token_kw)
        self.rates = RateLimiter(
            per_device=self.config.rate_limit_device,
            overall=self.config.rate_limit_total,
            window_s=rate_window_s,
            clock=clock,
        )
        self.audit_log = audit_log or AuditLog(self.config.audit_file)

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> Policy:
        """Raises `ConfigError` for a bad list entry, band or policy file."""
        return cls(PolicyConfig.from_settings(settings), **kwargs)

    # --- what may be seen and changed -----------------------------------------------------------

    @property
    def read_only(self) -> bool:
        return self.config.read_only

    def visible(self, device: PolicyDevice) -> bool:
        """Listed and readable: everything not on the hide list."""
        return self.config.hide.first_match(device) is None

    def can_control(self, device: PolicyDevice) -> bool:
        """Whether the lists let this device be changed at all (sensitive actions may still need asking)."""
        return self._device_refusal(device, "change " + device_label(device)) is None

    def _device_refusal(self, device: PolicyDevice, action_text: str) -> str | None:
        cfg = self.config
        if cfg.read_only:
            return (
                f"Refused to {action_text}: zwave-mcp runs in read-only mode ({READ_ONLY_SOURCE}), "
                "so nothing can be switched or set; reading devices still works."
            )
        if not self.visible(device):
            return (
                f"Refused to change this device: the policy hides it ({cfg.hide.source}), "
                "so it cannot be read or changed."
            )
        denied = cfg.deny.first_match(device)
        if denied is not None:
            return (
                f"Refused to {action_text}: the policy makes this device read-only ('{denied.text}' is on "
                f"the deny list, {cfg.deny.source}); you can still read its state."
            )
        if cfg.allow and cfg.allow.first_match(device) is None:
            return (
                f"Refused to {action_text}: the policy makes this device read-only (only "
                f"{cfg.allow.describe()} can be changed, {cfg.allow.source}); you can still read its state."
            )
        return None

    # --- decisions ------------------------------------------------------------------------------

    def check_mutation(
        self, device: PolicyDevice, action: str, value: object = None, *, unit: str | None = None
    ) -> Decision:
        """The rules alone, no side effects: allowed, refused (with the sentence), or needs confirmation.

        `value` is the absolute target the write will send (for a thermostat: degrees in `unit`).
        """
        action = normalize_action(action)
        return self.judge(
            device,
            frozenset({action}),
            value,
            unit=unit,
            action_text=describe_action(device, action, value, unit),
        )

    def judge(
        self,
        device: PolicyDevice,
        words: frozenset[str],
        value: object = None,
        *,
        unit: str | None = None,
        action_text: str,
    ) -> Decision:
        """One effect judged by what it does (`words`: {"on", "set_level"}, {"unlock"}…), no side effects.

        This is what the write gate asks for every effect of a change; `action_text` is the change in words.
        """
        refusal = self._device_refusal(device, action_text)
        if refusal is not None:
            return _refused(action_text, refusal)
        cfg = self.config
        why = sensitivity(
            device,
            words,
            value,
            unit=unit,
            band=cfg.safe_band,
            confirm_actions=cfg.confirm_actions,
            confirm_devices=cfg.confirm_devices,
        )
        if why is None:
            return Decision(Verdict.ALLOWED, action_text)
        if cfg.forbid_sensitive:
            return _refused(
                action_text,
                f"Refused to {action_text}: {why}, and sensitive actions are switched off by policy "
                f"({FORBID_SOURCE}); do it at the device itself instead.",
                why=why,
                sensitive=True,
            )
        return Decision(Verdict.NEEDS_CONFIRMATION, action_text, why=why, sensitive=True)

    def read_only_refusal(self, action_text: str) -> str | None:
        if not self.config.read_only:
            return None
        return (
            f"Refused to {action_text}: zwave-mcp runs in read-only mode ({READ_ONLY_SOURCE}), "
            "so nothing can be switched or set; reading devices still works."
        )

    def unmatched_entries(self, devices: list[Any]) -> list[str]:
        """List entries that match no device ("'Garage Doorz' in ZWAVE_MCP_DENY matches no device")."""
        cfg = self.config
        problems = []
        for name, lst in (
            ("allow", cfg.allow),
            ("deny", cfg.deny),
            ("hide", cfg.hide),
            ("confirm_devices", cfg.confirm_devices),
        ):
            for term in lst.terms:
                if not any(term.matches(d) for d in devices):
                    problems.append(f"'{term.text}' on the {name} list ({lst.source}) matches no device")
        return problems

    def authorize(
        self,
        device: PolicyDevice,
        action: str,
        value: object = None,
        *,
        unit: str | None = None,
        token: str | None = None,
        confirmed: bool = False,
    ) -> Decision:
        """The full gate before a write (see the module docstring). Counts the command when it is allowed.

        `confirmed=True` only after the person accepted through elicitation. A bad token gives a refusal
        whose message says what was wrong with it; a token given for a change that needs none is ignored.
        """
        decision = self.check_mutation(device, action, value, unit=unit)
        if decision.refused:
            return decision
        rate = self.rates.check(device.key)
        if rate is not None:
            return self._rate_refusal(decision.action_text, device, rate)
        confirmed_by: str | None = None
        if decision.needs_confirmation:
            if confirmed:
                confirmed_by = "elicitation"
            elif token:
                try:
                    self.tokens.redeem(token, device.key, action, value)
                except PolicyRefusal as exc:
                    return _refused(decision.action_text, exc.message, why=decision.why, sensitive=True)
                confirmed_by = "token"
            else:
                return decision
        rate = self.rates.admit(device.key)
        if rate is not None:  # another call took the last slot between check and admit
            return self._rate_refusal(decision.action_text, device, rate)
        return Decision(
            Verdict.ALLOWED,
            decision.action_text,
            why=decision.why,
            sensitive=decision.sensitive,
            confirmed_by=confirmed_by,
        )

    def authorize_without_device(self, what: str, key: str = "*") -> Decision:
        """For changes not aimed at one device (activating a scene): read-only and the overall rate limit.

        `what` is the change in words, lower-case first ("activate scene 'Movie night'").
        """
        if self.read_only:
            return _refused(
                what,
                f"Refused to {what}: zwave-mcp runs in read-only mode ({READ_ONLY_SOURCE}), "
                "so nothing can be switched or set; reading devices still works.",
            )
        rate = self.rates.admit(key)
        if rate is not None:
            return self._rate_refusal(what, None, rate)
        return Decision(Verdict.ALLOWED, what)

    def _rate_refusal(self, action_text: str, device: PolicyDevice | None, rate: RateRefusal) -> Decision:
        if rate.scope == "device" and device is not None:
            why = (
                f"{device_label(device)} already had {rate.limit} commands in the last {rate.window_s:g} s "
                "(the limit per device)"
            )
        else:
            why = f"{rate.limit} commands were sent in the last {rate.window_s:g} s (the overall limit)"
        return _refused(
            action_text,
            f"Refused to {action_text}: {why}; try again in {rate.retry_after_s} s.",
            retry_after_s=rate.retry_after_s,
        )

    # --- confirmation tokens --------------------------------------------------------------------

    def issue_token(self, device_key: str, action: str, value: object = None, *, label: str = "") -> str:
        return self.tokens.issue(device_key, action, value, label=label)

    def redeem(self, token: str, device_key: str, action: str, value: object = None) -> None:
        """Spend a token on exactly this change or raise `PolicyRefusal` (unknown, used, expired, mismatch)."""
        self.tokens.redeem(token, device_key, action, value)

    def request_confirmation(
        self,
        device: PolicyDevice,
        action: str,
        value: object,
        decision: Decision,
        *,
        parameter: str = TOKEN_PARAMETER,
    ) -> str:
        """Issue a token for a `needs_confirmation` decision; returns the sentence that hands it over."""
        token = self.tokens.issue(device.key, action, value, label=decision.action_text)
        return decision.token_message(token, self.tokens.ttl_s, parameter=parameter)

    # --- audit ----------------------------------------------------------------------------------

    def audit(self, event: AuditEvent) -> dict[str, Any]:
        return self.audit_log(event)
