"""The home's passphrase, kept only as a slow hash (scrypt, from the standard library: no dependency).

The stored form says its own cost (`scrypt$n$r$p$salt$hash`, base64), so a cheaper or dearer cost later
still verifies what was stored before. The passphrase itself is never kept, logged or echoed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from dataclasses import dataclass

META_KEY = "passphrase"
MIN_CHARS = 8
MAX_CHARS = 1024  # a form field from outside is bounded before it is hashed


@dataclass(frozen=True)
class Cost:
    """scrypt's parameters: 2**15 × 8 is 32 MiB and about 0.1 s a try on a small computer."""

    n: int = 2**15
    r: int = 8
    p: int = 1


def _scrypt(passphrase: str, salt: bytes, cost: Cost) -> bytes:
    return hashlib.scrypt(
        passphrase.encode(), salt=salt, n=cost.n, r=cost.r, p=cost.p, dklen=32, maxmem=256 * cost.n * cost.r
    )


def hash_passphrase(passphrase: str, cost: Cost = Cost()) -> str:
    salt = os.urandom(16)
    key = _scrypt(passphrase, salt, cost)
    b64 = base64.b64encode
    return f"scrypt${cost.n}${cost.r}${cost.p}${b64(salt).decode()}${b64(key).decode()}"


def verify_passphrase(passphrase: str, stored: str) -> bool:
    """Does `passphrase` match the stored hash? False for a damaged stored value or an unbounded guess."""
    if len(passphrase) > MAX_CHARS:
        return False
    try:
        scheme, n, r, p, salt, key = stored.split("$")
        if scheme != "scrypt":
            return False
        cost = Cost(int(n), int(r), int(p))
        expected = base64.b64decode(key)
        return hmac.compare_digest(_scrypt(passphrase, base64.b64decode(salt), cost), expected)
    except (ValueError, TypeError):
        return False


def problem(passphrase: str) -> str | None:
    """Why a new passphrase will not do, in words; None when it will."""
    if len(passphrase.strip()) < MIN_CHARS:
        return f"a passphrase needs at least {MIN_CHARS} characters"
    if len(passphrase) > MAX_CHARS:
        return f"a passphrase takes at most {MAX_CHARS} characters"
    return None
