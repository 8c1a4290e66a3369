"""Text from outside made encodable where it enters: stdin, MQTT payloads, files, environment, argv.

A Python `str` can hold a lone surrogate (U+D800-U+DFFF) that UTF-8 cannot encode: JSON lets one in
through a `\\ud800` escape, and the OS decodes undecodable bytes of the environment and argv to lone
surrogates (surrogateescape). Such a string passes every check and then makes the first serializer that
meets it raise, far from where it came in. So every entry replaces them with U+FFFD (the Unicode
replacement character), here and only here:

- `encodable(text)` for one string;
- `loads_json(data, **kwargs)` for JSON text (`json.loads` arguments pass through, `object_hook`
  included, which then receives objects already cleaned);
- `loads_json_fast(data)` for JSON bytes from the network: the same result, faster;
- `loads_json_strict(data)` for what zwave-js-ui sends: the same, refusing NaN and Infinity (not JSON).

Names and labels the gateway gives (a node's name and room, a value's label and unit) are spoken, listed
and offered as completions, and people type them back into tool arguments, which refuse control
characters, bidirectional overrides and more than 200 characters (zwave_mcp.policy.text). So they are
also made plain where they are read: `plain_text(text)`. Longer text from outside that is kept or said (a
driver error, a gateway's answer, a device's text value) is `outside_text(value)`: plain, and cut to
`MESSAGE_MAX` characters, so one 500 kB event cannot fill every answer.

Only the standard library at import: the stdio transport imports this before anything else
(`loads_json_fast` brings in pydantic-core on its first call).
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Callable
from typing import Any

REPLACEMENT = "\ufffd"
# Any surrogate code point in a `str` is lone: JSON pairs are decoded to one character, and UTF-8 can
# encode no surrogate at all.
_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD; the same object when there is none."""
    return text if text.isascii() else _SURROGATE.sub(REPLACEMENT, text)


NAME_MAX = 200  # the longest name a tool argument takes
# Characters that reorder text on screen (Trojan Source): "U+202E" makes "kcol" read as "lock".
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")


def plain_text(text: str, max_len: int = NAME_MAX) -> str:
    """`text` as one plain line: line breaks and tabs become spaces, other control characters, lone
    surrogates and bidirectional controls are dropped, and it is cut to `max_len` characters (ending in
    "…"). Most text is returned as it is, at once."""
    if text.isprintable() and len(text) <= max_len:
        return text.strip()  # the same object when there is nothing to strip
    kept = []
    for ch in text:
        category = unicodedata.category(ch)
        if ch.isspace():
            kept.append(" ")
        elif category not in ("Cc", "Cs") and ch not in BIDI_CONTROLS:
            kept.append(ch)
    plain = "".join(kept).strip()
    return plain if len(plain) <= max_len else plain[: max_len - 1].rstrip() + "…"


MESSAGE_MAX = 300  # the longest text from outside that is kept or said (zwave-js-ui's own words)


def outside_text(value: object, max_len: int = MESSAGE_MAX) -> str:
    """Any value from outside as the text kept or said: `plain_text` of its `str`, at most `max_len`
    characters (a text is cut before it is turned into a string, so a huge one costs no copy)."""
    text = value if isinstance(value, str) else str(value)[: max_len * 4]
    return plain_text(text[: max_len * 4], max_len)


# What a terminal obeys rather than shows: control characters (escape sequences, bells, carriage returns,
# line breaks that forge a line), C1 controls, line and paragraph separators, bidirectional overrides.
_TERMINAL_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff" + "".join(sorted(BIDI_CONTROLS)) + "]"
)
# Of those, what `json.dumps(..., ensure_ascii=False)` leaves as it is (it escapes the rest itself).
JSON_TERMINAL_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029" + "".join(sorted(BIDI_CONTROLS)) + "]")


def terminal_safe(text: str) -> str:
    """`text` for a terminal: every character it would obey instead of show written as its escape
    (`\\x1b`, `\\n`, `\\u202e`), so a name from the network or a file can neither colour, ring, move
    the cursor nor forge a line. Most text is returned as it is, at once."""
    if text.isprintable():
        return text
    return _TERMINAL_UNSAFE.sub(lambda m: repr(m.group())[1:-1], text)


# The start of an escaped surrogate (`\ud800`): one search, ~3x faster than two `in` on a 36 MB getNodes.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD]")


def loads_json(
    data: bytes | bytearray | str, *, decoder: json.JSONDecoder | None = None, **kwargs: Any
) -> Any:
    """`json.loads` whose strings (keys included) are all encodable. Raises what `json.loads` raises, and
    `UnicodeDecodeError` (a `ValueError`) for bytes that are not UTF-8. `decoder`: one made with `kwargs`
    once, for a hot caller (`json.loads` builds a new one whenever it is given arguments)."""
    # Bytes are decoded here, strictly: `json.loads(bytes)` would let UTF-8-encoded surrogates through.
    text = encodable(data) if isinstance(data, str) else bytes(data).decode("utf-8")
    if _SURROGATE_ESCAPE.search(text) is None:  # no surrogate escape: nothing to clean (most text)
        return json.loads(text, **kwargs) if decoder is None else decoder.decode(text)
    # Clean while decoding: each object as it is built (before the caller's hook turns it into something
    # else), lists through their enclosing object. The parsing itself stays in C.
    hook = kwargs.pop("object_hook", None)

    def clean_object(obj: dict[str, Any]) -> Any:
        obj = {encodable(key): _clean(value) for key, value in obj.items()}
        return obj if hook is None else hook(obj)

    return _clean(json.loads(text, object_hook=clean_object, **kwargs))


@functools.cache
def _pydantic_from_json() -> Callable[..., Any]:
    """pydantic-core's parser, imported on first use (see the module docstring)."""
    from pydantic_core import from_json

    return from_json


def loads_json_fast(data: bytes | bytearray) -> Any:
    """`loads_json(data)`, faster on what the gateway sends: ~4x on a value update, ~2x on a 1 kB event.

    pydantic-core's parser (a dependency already, through pydantic) is strict where it matters here: it
    refuses bytes that are not UTF-8, escaped lone surrogates and raw control characters in strings,
    trailing text, and nesting beyond ~200 levels. Whatever it refuses goes to `loads_json`, so the
    result, the U+FFFD cleaning and the exception raised are the standard library's; on everything else
    the two agree (tests/unit/test_safetext.py compares them on edge cases and random mutations).
    """
    try:
        return _pydantic_from_json()(data)
    except ValueError:
        return loads_json(data)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads_json_strict(data: bytes | bytearray | str) -> Any:
    """`loads_json_fast` (or `loads_json` for text) that refuses NaN and Infinity: JSON has neither, and
    JavaScript's `JSON.stringify` writes them as null, so nothing zwave-js-ui sends can hold them. Raises
    `ValueError` for them as for any other text that is not JSON."""
    if not isinstance(data, str):
        try:
            return _pydantic_from_json()(data, allow_inf_nan=False)
        except ValueError:
            pass  # the standard library decides (and cleans lone surrogates), as in `loads_json_fast`
    return loads_json(data, parse_constant=_refuse_constant)


def json_text(value: Any, **kwargs: Any) -> str:
    """`json.dumps` whose result is always JSON: NaN and the infinities (which `json.dumps` writes bare,
    and no JSON parser reads) become null. The gateway's edge keeps them out; this is the last guard of
    every document a client or a bug report reads."""
    try:
        return json.dumps(value, allow_nan=False, **kwargs)
    except ValueError:
        return json.dumps(_finite(value), allow_nan=False, **kwargs)


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if value - value == 0 else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def json_kind(value: Any) -> str:
    """What a decoded JSON value is, in JSON's words ("null", "a number", "text", …): what an error
    message says instead of Python's type names ("NoneType", "int")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    kinds = ((int | float, "a number"), (str, "text"), (list | tuple, "a list"), (dict, "an object"))
    return next((word for kind, word in kinds if isinstance(value, kind)), "not JSON")


def _clean(value: Any) -> Any:
    """Strings and lists; objects were cleaned as they were decoded, the rest holds no text."""
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, list):
        return [_clean(item) for item in value]
    return value


def read_int(text: str) -> int | float:
    """`json.loads`'s `parse_int` for text that may hold an integer of thousands of digits: one beyond any
    JavaScript number reads as an infinity (which the edge then drops), not as an error for the whole."""
    return int(text) if len(text) < 310 else float(text)
