"""PINs, DSKs and QR codes typed in any script are read as the ASCII digits they are (issue 30)."""

from __future__ import annotations

import pytest

from zwave_mcp.gateway.dsk import ascii_digits, read_pin, read_qr
from zwave_mcp.simulator.admin import make_qr

PARTIAL = "-11111-22222-33333-44444-55555-66666-77777"


@pytest.mark.parametrize(
    "typed",
    [
        "34567",
        " 34567 ",
        "３４５６７",  # full-width, as a Japanese keyboard gives
        "٣٤٥٦٧",  # Arabic-Indic
        "۳۴۵۶۷",  # Persian
        "३४५६७",  # Devanagari
        "𝟑𝟒𝟓𝟔𝟕",  # mathematical bold
    ],
)
def test_a_pin_in_any_script_is_read_as_ascii(typed: str) -> None:
    assert read_pin(typed) == "34567"


@pytest.mark.parametrize(
    "typed",
    [
        "34567-11111-22222-33333-44444-55555-66666-77777",
        "34567 11111 22222 33333 44444 55555 66666 77777",
        "３４５６７－１１１１１－２２２２２－３３３３３－４４４４４－５５５５５－６６６６６－７７７７７",
        "34567\u201111111\u201122222\u201133333\u201144444\u201155555\u201166666\u201177777",
    ],
)
def test_the_whole_dsk_gives_its_pin(typed: str) -> None:
    assert read_pin(typed, PARTIAL) == "34567"


@pytest.mark.parametrize("typed", ["1234", "123456", "12a45", "12 345", "１２３４", "½2345", "", "-1234"])
def test_anything_else_is_refused_with_what_is_expected(typed: str) -> None:
    with pytest.raises(ValueError, match="5-digit PIN"):
        read_pin(typed)


def test_a_dsk_of_another_device_is_refused() -> None:
    with pytest.raises(ValueError, match="not the joining device's"):
        read_pin("34567-11111-22222-33333-44444-55555-66666-77770", PARTIAL)


def test_digits_are_mapped_and_the_rest_is_kept() -> None:
    assert ascii_digits("１２ab٣") == "12ab3"
    assert ascii_digits("1\u22122") == "1-2"


def test_a_qr_code_in_full_width_digits_is_read_as_ascii() -> None:
    qr = make_qr("34567-11111-22222-33333-44444-55555-66666-77777", [1, 0])
    wide = "".join(chr(ord(c) - ord("0") + 0xFF10) for c in qr)
    assert read_qr(wide) == qr
    with pytest.raises(ValueError, match="starting with 90"):
        read_qr("91" + qr[2:])
    with pytest.raises(ValueError, match="starting with 90"):
        read_qr(qr[:30])
