"""Finding a code (a PIN, a DSK's first five digits) in what the server said or wrote.

A code counts only as a whole number: "4821" inside the timestamp "41.148212" or the port 42580 is not the
PIN 4821, and a search by substring fails a run now and then for that alone.
"""

from __future__ import annotations

import re

# Digits in the scripts people type a PIN in: ASCII, full-width and Arabic-Indic.
DIGIT = "0-9０-９٠-٩"


def shows_code(text: str, code: str) -> bool:
    """True when `code` stands in `text` as a number of its own, not as part of a longer one."""
    return re.search(rf"(?<![{DIGIT}]){re.escape(code)}(?![{DIGIT}])", text) is not None
