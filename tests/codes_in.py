"""Finding a code (a PIN, a DSK's first five digits) in what the server said or wrote.

A code counts only as a whole number: "4821" inside the timestamp "41.148212" or the port 42580 is not the
PIN 4821, and a search by substring fails a run now and then for that alone. Nor is a number in what
holds numbers by chance and never a code: our MQTT client ids ("zwave-mcp-<pid>-<8 random hex digits>": a
process id of 4821, or the hex "a4821f", would be found) and the broker's address (a port of 34567 would
be the simulated S2 device's PIN), and the API client's correlation ids (`zwaveMcpId`, "<12 random hex
digits>-<n>", echoed in every reply: "ab3141cd02ef-7" holds the PIN 3141 as a number of its own).
"""

from __future__ import annotations

import re

# Digits in the scripts people type a PIN in: ASCII, full-width and Arabic-Indic.
DIGIT = "0-9０-９٠-٩"
CHANCE_NUMBERS = re.compile(r"zwave-mcp-\d+-[0-9a-f]{8}|127\.0\.0\.1:\d+|\b[0-9a-f]{12}-\d+\b")


def without_chance_numbers(text: str) -> str:
    """`text` with our client ids, the broker's address and the API's correlation ids masked."""
    return CHANCE_NUMBERS.sub("<no code here>", text)


def shows_code(text: str, code: str) -> bool:
    """True when `code` stands in `text` as a number of its own, not as part of a longer one (and not in a
    client id, the broker's address or a correlation id)."""
    text = without_chance_numbers(text)
    return re.search(rf"(?<![{DIGIT}]){re.escape(code)}(?![{DIGIT}])", text) is not None
