"""safetext: every string read from outside can be encoded as UTF-8; nothing else changes."""

import json
import random

import pytest

from zwave_mcp.gateway.nodes import decode_with_values
from zwave_mcp.gateway.payloads import Undecodable, decode_json, decode_value
from zwave_mcp.policy.text import check_text_argument
from zwave_mcp.safetext import encodable, loads_json, loads_json_fast, plain_text


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
    assert loads_json_fast(text.encode()) == expected


def _decoded(loads, data: bytes):
    """What a decoder makes of `data`: its result as repr (types, -0.0 and NaN included) or its error."""
    try:
        return "ok", repr(loads(data))
    except (ValueError, RecursionError) as exc:
        return "error", type(exc).__name__, str(exc)


# Where the two parsers' rules could part: numbers, constants, escapes, whitespace, encodings, nesting.
EDGE_CASES = [
    b'{"time":1700000000000,"value":true}',
    b"[1,-0,-0.0,0.1,1e5,1E-5,1e400,-1e400,1e-400,9007199254740993,123456789012345678901234567890]",
    b"[NaN,Infinity,-Infinity]",
    b"-NaN",
    b"nan",
    b"+1",
    b"1.",
    b".5",
    b"01",
    b"1e",
    b"[1,]",
    b'{"a":1,}',
    b'{"a":1,"a":2}',
    b'{"a":1}{}',
    b"[1]]",
    b'"\\x"',  # an escape JSON does not have
    b'"\\u12"',
    b'"\\/\\b\\f\\n\\r\\t\\u0000\\u00e9"',
    b'"\\ud800"',
    b'"\\udc00\\ud800"',
    b'"\\ud83d\\ude00"',
    b'"\\ud800\\ud83d\\ude00"',
    b'"a\x7fb"',
    b'"\x1f"',  # a raw control character in a string
    b'"\xf0\x9f\x98\x80"',
    b'"\xed\xa0\x80"',  # a surrogate encoded as UTF-8
    b'"\xc0\xaf"',  # an overlong encoding
    b"\xef\xbb\xbf[1]",  # a byte order mark
    b"\xa0[]",
    b"\x0b[]",
    b" \t\r\n[] \r\n",  # the whitespace JSON allows
    b"",
    b"1" * 5000,
    b'{"a":' * 300 + b"1" + b"}" * 300,
    b"[" * 5000 + b"]" * 5000,
]


@pytest.mark.parametrize("data", EDGE_CASES)
def test_loads_json_fast_decodes_and_fails_as_loads_json(data):
    assert _decoded(loads_json_fast, data) == _decoded(loads_json, data)


def test_loads_json_fast_agrees_with_loads_json_on_random_mutations():
    seeds = [
        b'{"time":1700000000000,"value":21.5}',
        b'{"data":[{"id":2,"name":"K\\u00fcche"},{"commandClass":37,"newValue":true,"prevValue":null}]}',
        b'[1,-0,0.1,1e5,1E-5,"\\u00e9\\n",{"":[]},"\\ud83d\\ude00",NaN]',
        b'  {"k" : [ true , false , null ] , "s": "\\ud800"}  ',
    ]
    alphabet = b'{}[]":,0123456789-+.eE \t\n\r\\utrfalsenNI\x00\xff\xc3\xa9\xed\xa0\x80/'
    rng = random.Random(20261123)
    for _ in range(20_000):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(data) + 1)
            roll = rng.random()
            if roll < 0.4 or not data:
                data[at:at] = bytes([rng.choice(alphabet)])
            elif roll < 0.7:
                del data[min(at, len(data) - 1)]
            else:
                data[min(at, len(data) - 1)] = rng.choice(alphabet)
        assert _decoded(loads_json_fast, bytes(data)) == _decoded(loads_json, bytes(data)), bytes(data)


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
