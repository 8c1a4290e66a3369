"""Issue 36, item 6: a DSK (its first group is the inclusion PIN) or a Z-Wave QR code in any log text is
redacted, in digits of any script, and fields named for them are redacted whatever they hold."""

from __future__ import annotations

import pytest

from zwave_mcp.gateway.dsk import masked_dsk
from zwave_mcp.logs import REDACTED, redact, redact_text
from zwave_mcp.simulator.admin import make_qr

DSK = "52816-40391-22222-33333-44444-55555-66666-77777"


def full_width(digits: str) -> str:
    return "".join(chr(0xFF10 + int(d)) if d.isdigit() else "－" for d in digits)


def arabic_indic(digits: str) -> str:
    return "".join(chr(0x0660 + int(d)) if d.isdigit() else d for d in digits)


@pytest.mark.parametrize(
    "dsk", [DSK, full_width(DSK), arabic_indic(DSK), DSK.replace("-", " - "), DSK.replace("-", "\u2011")]
)
def test_a_dsk_in_any_script_is_redacted_from_text(dsk: str) -> None:
    assert (
        redact_text(f"put the sensor (DSK {dsk}) on the list")
        == f"put the sensor (DSK {REDACTED}) on the list"
    )


def test_a_qr_code_is_redacted_from_text_and_its_fields_by_name() -> None:
    qr = make_qr(DSK, [1])
    assert redact_text(f"qr {qr}.") == f"qr {REDACTED}."
    assert redact({"qrCode": "anything", "qrString": qr, "pin": "52816", "dsk": DSK}) == {
        "qrCode": REDACTED,
        "qrString": REDACTED,
        "pin": REDACTED,
        "dsk": REDACTED,
    }


def test_ordinary_numbers_are_left_alone() -> None:
    text = "at 1795777944465 node 12345 values 10000-20000"
    assert redact_text(text) == text


def test_a_dsk_is_logged_without_its_pin() -> None:
    assert masked_dsk(DSK) == "•••••" + DSK[5:]
    assert masked_dsk(full_width(DSK)) == "•••••" + DSK[5:]
