"""`Policy`: the rules, and the parts the write gate (`zwave_mcp.devices.gate`) applies them with.

`judge` is the rules alone, without side effects:
1. read-only mode refuses everything;
2. hidden devices (`hide`) and devices the lists make read-only (`deny`, or not on a non-empty `allow`)
   are refused; deny wins over allow;
3. a sensitive change (see `zwave_mcp.policy.sensitive`) is refused when sensitive actions are forbidden,
   else it needs the person's confirmation.
The gate then uses `tokens` (one-time confirmations), `rates` (rate limits) and `audit`.

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

from zwave_mcp.config import Settings
from zwave_mcp.policy.audit import AuditLog
from zwave_mcp.policy.ratelimit import RateLimiter
from zwave_mcp.policy.sensitive import sensitivity
from zwave_mcp.policy.settings import LIST_KEYS, PolicyConfig
from zwave_mcp.policy.terms import DeviceList, NamedBy, PolicyDevice, device_label
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

    @property
    def allowed(self) -> bool:
        return self.verdict is Verdict.ALLOWED

    @property
    def refused(self) -> bool:
        return self.verdict is Verdict.REFUSED

    @property
    def needs_confirmation(self) -> bool:
        return self.verdict is Verdict.NEEDS_CONFIRMATION


class Policy:
    """Built once at start from `Settings`; `clock` (monotonic seconds) and `token_factory` for tests."""

    def __init__(
        self,
        config: PolicyConfig | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        token_factory: Callable[[], str] | None = None,
    ) -> None:
        self.config = config or PolicyConfig()
        token_kw: dict[str, Any] = {} if token_factory is None else {"token_factory": token_factory}
        self.tokens = ConfirmationTokens(ttl_s=self.config.confirm_token_ttl, clock=clock, **token_kw)
        self.rates = RateLimiter(
            per_device=self.config.rate_limit_device,
            overall=self.config.rate_limit_total,
            per_client=self.config.rate_limit_client,
            clock=clock,
        )
        self.audit = AuditLog(self.config.audit_file)

    @classmethod
    def from_settings(cls, settings: Settings) -> Policy:
        """Raises `ConfigError` for a bad list entry, band or policy file."""
        return cls(PolicyConfig.from_settings(settings))

    # --- what may be seen and changed -----------------------------------------------------------

    @property
    def read_only(self) -> bool:
        return self.config.read_only

    @property
    def has_device_lists(self) -> bool:
        cfg = self.config
        return bool(cfg.allow or cfg.deny or cfg.hide or cfg.confirm_devices)

    def visible(self, device: PolicyDevice) -> bool:
        """Listed and readable: everything not on the hide list."""
        return self.config.hide.first_match(device) is None

    def can_control(self, device: PolicyDevice) -> bool:
        """Whether the lists let this device be changed at all (sensitive actions may still need asking)."""
        return self._device_refusal(device, "change " + device_label(device)) is None

    def _device_refusal(self, device: PolicyDevice, action_text: str) -> str | None:
        cfg = self.config
        if cfg.read_only:
            return self.read_only_refusal(action_text)
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
            return Decision(Verdict.REFUSED, action_text, message=refusal)
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
            message = (
                f"Refused to {action_text}: {why}, and sensitive actions are switched off by policy "
                f"({FORBID_SOURCE}); do it at the device itself instead."
            )
            return Decision(Verdict.REFUSED, action_text, message=message, why=why, sensitive=True)
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
        problems = []
        for name in LIST_KEYS:
            lst: DeviceList = getattr(self.config, name)
            for term in lst.terms:
                if not lst.names_any(term, devices):
                    problem = f"'{term.text}' on the {name} list ({lst.source}) matches no device"
                    kept = sorted(lst.pinned.get(term, ()))
                    if kept:
                        problem += (
                            f" by name any more; until zwave-mcp restarts it still covers device "
                            f"{', '.join(kept)}, which it named before a rename"
                        )
                    problems.append(problem)
        return problems

    def remember(self, devices: list[Any]) -> None:
        """Pin the hide, deny and confirm entries that name devices to those devices' keys (see
        `DeviceList.remember`), so a rename cannot take a device out of them. Not the allow list: a
        device renamed out of it becomes read-only, which is the safe side already."""
        cfg = self.config
        for lst in (cfg.hide, cfg.deny, cfg.confirm_devices):
            lst.remember(devices)

    def resolve_entries(self, named_by: NamedBy) -> None:
        """Read the hide, deny and confirm entries the way tool arguments are read (`DeviceList.resolve`):
        "front door" on the deny list covers Front Door Lock. Not the allow list: read loosely, it would
        let more devices be changed than the person listed."""
        cfg = self.config
        for lst in (cfg.hide, cfg.deny, cfg.confirm_devices):
            if lst:
                lst.resolve(named_by)
