"""Hardening for free-text and structured tool arguments (device names, scene names, colours, modes).

Names never become part of an MQTT topic (they are resolved through the inventory), so `+`, `#` and `/` are
harmless and allowed; what is refused is what no person types: control characters (NUL, escape, newline…),
lone surrogates and bidirectional overrides that make text read differently from what it is, and text or
values too large to be a name or a setting.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

from zwave_mcp.errors import UserError
from zwave_mcp.safetext import BIDI_CONTROLS, json_kind

DEFAULT_MAX_LEN = 200
DEFAULT_MAX_BYTES = 4096
DEFAULT_MAX_DEPTH = 4


class InvalidArgument(UserError):
    """A tool argument that is refused before any work is done with it."""


def check_text_argument(name: str, value: str, max_len: int = DEFAULT_MAX_LEN) -> str:
    """Return `value` unchanged if it is plain text of at most `max_len` characters, else raise."""
    if not isinstance(value, str):
        raise InvalidArgument(f"Parameter '{name}' must be text, not {json_kind(value)}.")
    if len(value) > max_len:
        raise InvalidArgument(
            f"Parameter '{name}' is too long ({len(value)} characters); at most {max_len} are accepted."
        )
    for position, ch in enumerate(value):
        if ch in BIDI_CONTROLS or unicodedata.category(ch) in ("Cc", "Cs"):
            raise InvalidArgument(
                f"Parameter '{name}' contains the control character U+{ord(ch):04X} at position {position + 1}; "
                "use plain text."
            )
    return value


def check_json_argument(
    name: str, value: Any, max_bytes: int = DEFAULT_MAX_BYTES, max_depth: int = DEFAULT_MAX_DEPTH
) -> Any:
    """Bound a structured argument (e.g. a colour object): JSON size, nesting depth, and every string in it."""

    def walk(v: Any, depth: int) -> None:
        if depth > max_depth:
            raise InvalidArgument(
                f"Parameter '{name}' is nested too deeply; at most {max_depth} levels are accepted."
            )
        if isinstance(v, str):
            check_text_argument(name, v, max_len=max_bytes)
        elif isinstance(v, dict):
            for k, x in v.items():
                check_text_argument(name, str(k), max_len=max_bytes)
                walk(x, depth + 1)
        elif isinstance(v, list | tuple):
            for x in v:
                walk(x, depth + 1)

    try:
        size = len(json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8", "surrogatepass"))
    except (TypeError, ValueError, RecursionError):
        raise InvalidArgument(
            f"Parameter '{name}' must be plain JSON data (text, numbers, true/false, lists, objects)."
        ) from None
    if size > max_bytes:
        raise InvalidArgument(
            f"Parameter '{name}' is too large ({size} bytes as JSON); at most {max_bytes} are accepted."
        )
    walk(value, 0)
    return value
