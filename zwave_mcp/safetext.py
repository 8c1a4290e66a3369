"""Text from outside made encodable where it enters: stdin, MQTT payloads, files, environment, argv.

A Python `str` can hold a lone surrogate (U+D800-U+DFFF) that UTF-8 cannot encode: JSON lets one in
through a `\\ud800` escape, and the OS decodes undecodable bytes of the environment and argv to lone
surrogates (surrogateescape). Such a string passes every check and then makes the first serializer that
meets it raise, far from where it came in. So every entry replaces them with U+FFFD (the Unicode
replacement character), here and only here:

- `encodable(text)` for one string;
- `loads_json(data, **kwargs)` for JSON text (`json.loads` arguments pass through, `object_hook`
  included), which rewrites lone surrogate escapes in the text before decoding, so decoders that build
  their own objects while parsing get clean strings too.

Only the standard library: the stdio transport imports this before anything else.
"""

from __future__ import annotations

import json
import re
from typing import Any

# One JSON escape sequence, scanned left to right so that `\\` (an escaped backslash) is consumed whole
# and the `ud800` after it is not mistaken for an escape. A high+low pair is a valid character; any other
# surrogate escape is lone.
_ESCAPE = re.compile(
    r"\\(?:(?P<pair>u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?P<lone>u[dD][89a-fA-F][0-9a-fA-F]{2})|.)",
    re.S,
)


def encodable(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD; the same object when there is none."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Through UTF-16: surrogate pairs become their character, lone surrogates fail and are replaced.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def _fix(match: re.Match[str]) -> str:
    return "\\ufffd" if match["lone"] else match[0]


def loads_json(data: bytes | bytearray | str, **kwargs: Any) -> Any:
    """`json.loads` whose strings (keys included) are all encodable. Raises what `json.loads` raises, and
    `UnicodeDecodeError` (a `ValueError`) for bytes that are not UTF-8."""
    # Bytes are decoded here, strictly: `json.loads(bytes)` would let UTF-8-encoded surrogates through.
    text = encodable(data) if isinstance(data, str) else bytes(data).decode("utf-8")
    if "\\ud" in text or "\\uD" in text:  # cheap look first: most text has no surrogate escape
        text = _ESCAPE.sub(_fix, text)
    return json.loads(text, **kwargs)
