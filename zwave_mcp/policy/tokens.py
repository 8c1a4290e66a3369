"""One-time confirmation tokens for clients that cannot ask the person themselves (no elicitation).

A token is 128 random bits (`secrets.token_urlsafe(16)`, 22 characters) bound to one device key, one action
and one value, valid for `ttl_s` (default 60 s). The server keeps a table keyed by HMAC-SHA256(token) under
a key drawn at start: the token itself is never stored or logged, lookups cannot be timed to learn anything
about valid tokens, and nothing survives a restart (a new process has a new key and an empty table), so an
old token cannot be replayed. Used and expired entries stay a while so the caller hears *why* a token
failed; the table is bounded (`max_entries`, oldest evicted first).

Any presentation ends a token: a token tried for another device, action or value is cancelled too, so a
leaked token cannot be walked across the house.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from zwave_mcp.errors import PolicyRefusal
from zwave_mcp.policy.actions import normalize_action
from zwave_mcp.policy.sensitive import as_number

DEFAULT_TTL_S = 60.0
DEFAULT_MAX_ENTRIES = 256
# Spent and expired entries are remembered this long after expiry, to answer "already used"/"expired".
DEFAULT_RETAIN_S = 600.0
# What a token can look like (ours are 22 characters); anything else is not looked up at all.
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{16,64}")


def canonical_value(value: object) -> str:
    """The value a token is bound to, so that 21, 21.0 and "21" are one value and " Heat" equals "heat"."""

    def norm(v: object) -> object:
        if isinstance(v, bool) or v is None:
            return v
        number = as_number(v)
        if number is not None:
            return int(number) if number.is_integer() else number
        if isinstance(v, str):
            return v.strip().casefold()
        if isinstance(v, dict):
            return {str(k): norm(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [norm(x) for x in v]
        return repr(v)

    return json.dumps(norm(value), sort_keys=True, separators=(",", ":"))


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


@dataclass(slots=True)
class _Entry:
    digest: bytes
    device_key: str
    action: str
    value: str
    label: str  # "unlock Front Door Lock (Entry)", for the mismatch message
    expires_at: float
    used: bool = False


class ConfirmationTokens:
    """Issues and redeems tokens. Thread-safe; `clock` (monotonic seconds) and `token_factory` for tests."""

    def __init__(
        self,
        *,
        ttl_s: float = DEFAULT_TTL_S,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        retain_s: float = DEFAULT_RETAIN_S,
        clock: Callable[[], float] = time.monotonic,
        token_factory: Callable[[], str] = lambda: secrets.token_urlsafe(16),
    ) -> None:
        if ttl_s <= 0 or max_entries < 1:
            raise ValueError("ttl_s must be positive and max_entries at least 1")
        self.ttl_s = ttl_s
        self._max_entries = max_entries
        self._retain_s = retain_s
        self._clock = clock
        self._new_token = token_factory
        self._key = secrets.token_bytes(32)
        self._entries: OrderedDict[bytes, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def _digest(self, token: str) -> bytes:
        return hmac.new(self._key, token.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()

    def mac(self, data: bytes) -> bytes:
        """HMAC-SHA256 of `data` under this process's key (signs the questions' request state too)."""
        return hmac.new(self._key, b"request-state:" + data, hashlib.sha256).digest()

    def issue(self, device_key: str, action: str, value: object = None, *, label: str = "") -> str:
        """A new token for exactly this change. `label` ("unlock Front Door Lock") is used in messages."""
        now = self._clock()
        with self._lock:
            self._evict(now)
            token = self._new_token()
            digest = self._digest(token)
            self._entries[digest] = _Entry(
                digest=digest,
                device_key=device_key,
                action=normalize_action(action),
                value=canonical_value(value),
                label=label or f"{normalize_action(action)} on device {device_key}",
                expires_at=now + self.ttl_s,
            )
            while len(self._entries) > self._max_entries:
                self._entries.popitem(last=False)
        return token

    def redeem(self, token: str, device_key: str, action: str, value: object = None) -> None:
        """Spend `token` on this change, or raise `PolicyRefusal` saying why it cannot be."""
        text = token.strip() if isinstance(token, str) else ""
        now = self._clock()
        with self._lock:
            digest = self._digest(text)
            entry = self._entries.get(digest) if _TOKEN_SHAPE.fullmatch(text) else None
            # The lookup is by a keyed digest an attacker cannot steer, so its timing says nothing; the
            # constant-time compare keeps that true if the table's structure ever changes.
            if entry is None or not hmac.compare_digest(entry.digest, digest):
                raise PolicyRefusal(
                    "That confirmation token is not one this server issued (tokens are forgotten on restart), "
                    "so nothing was done; ask for the action again without a token to get a new one."
                )
            if entry.used:
                raise PolicyRefusal(
                    f"That confirmation token was already used (for {entry.label}) and works only once, "
                    "so nothing was done; ask for the action again without a token to get a new one."
                )
            entry.used = True  # any presentation spends it, matching or not
            if now >= entry.expires_at:
                raise PolicyRefusal(
                    f"That confirmation token expired (tokens last {self.ttl_s:g} s), so nothing was done; "
                    "ask for the action again without a token to get a new one."
                )
            wrong = [
                what
                for what, ok in (
                    ("device", entry.device_key == device_key),
                    ("action", entry.action == normalize_action(action)),
                    ("value", entry.value == canonical_value(value)),
                )
                if not ok
            ]
            if wrong:
                raise PolicyRefusal(
                    f"That confirmation token was issued for {entry.label}, not for this "
                    f"{_join(wrong)}, so nothing was done and the token is now cancelled; "
                    "ask for the action you want without a token to get a new one."
                )

    def give_back(self, token: str) -> None:
        """Un-spend `token` after the change it confirmed was stopped before anything was sent (the rate
        limit filled meanwhile): the person's yes still holds, until the token expires."""
        text = token.strip() if isinstance(token, str) else ""
        if not _TOKEN_SHAPE.fullmatch(text):
            return
        now = self._clock()
        with self._lock:
            entry = self._entries.get(self._digest(text))
            if entry is not None and now < entry.expires_at:
                entry.used = False

    def _evict(self, now: float) -> None:
        """Forget entries long past expiry (the table is in expiry order: every token has the same ttl)."""
        while self._entries:
            oldest = next(iter(self._entries.values()))
            if oldest.expires_at + self._retain_s > now:
                break
            self._entries.popitem(last=False)
