"""Argument hardening: control characters, over-long text and oversized structures get clear errors."""

from __future__ import annotations

import pytest

from zwave_mcp.errors import UserError
from zwave_mcp.policy import InvalidArgument, check_json_argument, check_text_argument


@pytest.mark.parametrize("value", ["Kitchen Light", "zwave/+/#", "Küche Licht 2", "🌙 night", "a" * 200, ""])
def test_plain_text_passes_unchanged(value):
    assert check_text_argument("deviceName", value) is value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "lamp\x00",
            "Parameter 'deviceName' contains the control character U+0000 at position 5; use plain text.",
        ),
        (
            "a\nb",
            "Parameter 'deviceName' contains the control character U+000A at position 2; use plain text.",
        ),
        (
            "\x1b[31m",
            "Parameter 'deviceName' contains the control character U+001B at position 1; use plain text.",
        ),
        (
            "kcol\u202e",
            "Parameter 'deviceName' contains the control character U+202E at position 5; use plain text.",
        ),
        (
            "x\ud800",
            "Parameter 'deviceName' contains the control character U+D800 at position 2; use plain text.",
        ),
        ("a" * 10_000, "Parameter 'deviceName' is too long (10000 characters); at most 200 are accepted."),
        (42, "Parameter 'deviceName' must be text, not a number."),
    ],
)
def test_refusals_say_what_and_where(value, message):
    with pytest.raises(InvalidArgument) as caught:
        check_text_argument("deviceName", value)
    assert caught.value.message == message
    assert isinstance(caught.value, UserError)


def test_max_len_is_adjustable():
    check_text_argument("mode", "x" * 40, max_len=40)
    with pytest.raises(InvalidArgument, match="at most 40"):
        check_text_argument("mode", "x" * 41, max_len=40)


def test_json_arguments_are_bounded():
    color = {"red": 255, "green": 80, "blue": 0}
    assert check_json_argument("color", color) is color
    with pytest.raises(InvalidArgument, match="too large"):
        check_json_argument("color", {"red": "x" * 5000})
    with pytest.raises(InvalidArgument, match="nested too deeply"):
        check_json_argument("color", [[[[[[1]]]]]])
    with pytest.raises(InvalidArgument, match="control character U\\+0000"):
        check_json_argument("color", {"re\x00d": 1})
    with pytest.raises(InvalidArgument, match="plain JSON"):
        check_json_argument("color", {"red": float("nan")})
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(InvalidArgument):
        check_json_argument("color", deep)
