"""safetext: every string read from outside can be encoded as UTF-8; nothing else changes."""

import json

import pytest

from zwave_mcp.gateway.nodes import decode_with_values
from zwave_mcp.gateway.payloads import Undecodable, decode_json, decode_value
from zwave_mcp.policy.text import check_text_argument
from zwave_mcp.safetext import encodable, loads_json, plain_text


def test_encodable_replaces_only_lone_surrogates():
    assert encodable("plain") == "plain"
    assert encodable("ä \U0001f600") == "ä \U0001f600"
    assert encodable("a\ud800b\udfff") == "a\ufffdb\ufffd"
    assert encodable("zw\udcff") == "zw\ufffd"  # surrogateescape'd byte from the environment


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (r'"\ud800"', "\ufffd"),
        (r'"\uDC00x"', "\ufffdx"),
        (r'"\ud83d\ude00"', "\U0001f600"),  # a pair is a character
        (r'"\ud800\ud83d\ude00"', "\ufffd\U0001f600"),
        (r'"\\ud800"', "\\ud800"),  # an escaped backslash, then plain text
        (r'"\\\ud800"', "\\\ufffd"),
        (r'"\u00e4"', "ä"),
    ],
)
def test_loads_json_replaces_lone_surrogate_escapes(text, expected):
    assert loads_json(text) == expected
    assert loads_json(text.encode()) == expected


def test_loads_json_cleans_keys_nested_values_and_object_hooks():
    data = loads_json(r'{"k\ud800": [{"v": "\udc00"}]}', object_hook=lambda o: {**o, "seen": True})
    assert data == {"k\ufffd": [{"v": "\ufffd", "seen": True}], "seen": True}
    json.dumps(data, ensure_ascii=False).encode()


def test_loads_json_refuses_utf8_encoded_surrogates():
    # json.loads(bytes) would decode these with surrogatepass and let a lone surrogate through.
    with pytest.raises(UnicodeDecodeError):
        loads_json(b'"\xed\xa0\x80"')


def test_gateway_payload_decoders_hand_over_encodable_text():
    value = decode_value(rb'{"time": 1, "value": "bad \ud800 text"}')
    assert not isinstance(value, Undecodable) and value.value == "bad \ufffd text"
    assert isinstance(decode_json(b'"\xed\xa0\x80"'), Undecodable)
    nodes = decode_with_values(rb'{"result": [{"id": 2, "name": "Lamp \udfff"}]}')
    assert nodes["result"][0]["name"] == "Lamp \ufffd"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Kitchen Light", "Kitchen Light"),
        ("Küche \U0001f600", "Küche \U0001f600"),
        ("Lamp\u202eRTL\x00NUL\x07bell\nnew\tline", "LampRTLNULbell new line"),
        ("Living\u2028Room\u0085", "Living Room"),
        ("\x1b[31mred", "[31mred"),
        ("  \x00  ", ""),
        ("a\ud800b", "ab"),
    ],
)
def test_plain_text_is_one_plain_line(text, expected):
    assert plain_text(text) == expected


def test_plain_text_is_cut_to_what_a_tool_argument_takes():
    cut = plain_text("B" * 100_000)
    assert len(cut) == 200 and cut.endswith("…")
    check_text_argument("deviceName", cut)  # what is shown can be typed back
