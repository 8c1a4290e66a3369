"""PINs, DSKs and QR codes as people type them, read as the ASCII digits zwave-js expects.

A Japanese keyboard gives full-width digits ("１２３４５"), an Arabic one "١٢٣٤٥", a phone may give
"‑" for "-". `str.isdigit()` says yes to all of them, and zwave-js then compares "１２３４５" with the
device's PIN, finds them different and lets the device join without security. So every digit of any
script is first read as the digit it is (NFKC, then the Unicode decimal value), and only then checked
as ASCII `[0-9]`; anything else is refused with what is expected.

A DSK is 8 groups of 5 digits joined by "-"; the PIN is its first group. Pure; `ValueError` carries a sentence a person reads.
"""

from __future__ import annotations

import re
import unicodedata

PIN_WORDS = "the 5-digit PIN: the first five digits of the DSK on the device's label"
_PIN = re.compile(r"[0-9]{5}")
_DSK = re.compile(r"[0-9]{5}(?:-[0-9]{5}){7}")
_QR = re.compile(r"90[0-9]{50,}")


def ascii_digits(text: str) -> str:
    """`text` with every decimal digit of any script as its ASCII digit and every dash as "-"; spaces
    around it dropped. Other characters stay as they are (so the check after this refuses them)."""
    text = unicodedata.normalize("NFKC", text).strip()
    out = []
    for ch in text:
        # ASCII stays as it is: its digits are their own decimal values, its one dash is "-".
        if ch.isdecimal():
            ch = str(unicodedata.decimal(ch))
        elif unicodedata.category(ch) == "Pd" or ch == "\u2212":  # dashes, and the minus sign
            ch = "-"
        out.append(ch)
    return "".join(out)


def read_pin(text: str, partial_dsk: str | None = None) -> str:
    """The PIN (5 ASCII digits) in `text`: the PIN itself, or the whole DSK read off the label, whose last
    seven groups must then be the ones zwave-js-ui showed (`partial_dsk`, "-bbbbb-…")."""
    said = ascii_digits(text)
    compact = re.sub(r"\s*-\s*|\s+", "-", said)  # "12345 11111 …" and "12345 - 11111" are a DSK too
    if _PIN.fullmatch(said):
        return said
    if _DSK.fullmatch(compact):
        if partial_dsk and compact[5:] != ascii_digits(partial_dsk):
            raise ValueError(
                f"That DSK is not the joining device's: zwave-js-ui shows one ending {partial_dsk}. "
                f"Enter {PIN_WORDS}."
            )
        return compact[:5]
    raise ValueError(f"The PIN is 5 digits (0-9), nothing else; enter {PIN_WORDS}.")


def masked_dsk(dsk: str) -> str:
    """The DSK with its PIN (the first group) hidden, as it may be logged: "•••••-40391-…"."""
    return "•••••" + ascii_digits(dsk)[5:]


def read_qr(text: str) -> str:
    """A Z-Wave QR code's text: ASCII digits starting with 90, at least 52 of them."""
    said = re.sub(r"\s+", "", ascii_digits(text))
    if not _QR.fullmatch(said):
        raise ValueError("A Z-Wave QR code is a string of at least 52 digits (0-9) starting with 90.")
    return said
