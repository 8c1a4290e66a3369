"""Line framing and classification of the stdio transport (pure, no I/O)."""

import json

import pytest

from zwave_mcp.stdio.wire import (
    INVALID_REQUEST,
    PARSE_ERROR,
    LineSplitter,
    Oversize,
    classify_line,
    iter_lines,
    jsonrpc_problem,
    readable_id,
)


def reply(line: bytes | Oversize) -> dict:
    data = classify_line(line).error_reply()
    assert data is not None and data.endswith(b"\n") and data.count(b"\n") == 1
    return json.loads(data)


@pytest.mark.parametrize(
    "line", [b"not json", b"{", b"\xff\xfe garbage", b"NaN", b'{"x": Infinity}', b"[" * 100_000]
)
def test_unparsable_lines_get_parse_error_with_null_id(line: bytes) -> None:
    answer = reply(line)
    assert answer["jsonrpc"] == "2.0"
    assert answer["id"] is None
    assert answer["error"]["code"] == PARSE_ERROR


@pytest.mark.parametrize(
    ("line", "expected_id"),
    [
        (b'{"a":1}', None),
        (b"[1,2]", None),
        (b"[]", None),
        (b"42", None),
        (b'"text"', None),
        (b"null", None),
        (b'{"jsonrpc":"2.0","id":7,"method":5}', 7),
        (b'{"jsonrpc":"1.0","id":"abc","method":"ping"}', "abc"),
        (b'{"jsonrpc":"2.0","id":3}', 3),
        (b'{"jsonrpc":"2.0","id":3,"method":"ping","params":5}', 3),
        (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', None),
        (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', None),
    ],
)
def test_json_that_is_not_jsonrpc_gets_invalid_request_echoing_a_readable_id(
    line: bytes, expected_id: object
) -> None:
    answer = reply(line)
    assert answer["error"]["code"] == INVALID_REQUEST
    assert answer["id"] == expected_id


@pytest.mark.parametrize("line", [b"", b"   ", b"\r", b"\t \r"])
def test_blank_lines_are_ignored(line: bytes) -> None:
    verdict = classify_line(line)
    assert verdict.kind == "blank"
    assert verdict.error_reply() is None


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
        {"jsonrpc": "2.0", "id": "a", "method": "tools/list"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "result": {}},
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}},
    ],
)
def test_valid_messages_pass_through(message: dict) -> None:
    verdict = classify_line(json.dumps(message).encode() + b"\r")
    assert verdict.kind == "message"
    assert verdict.value == message
    assert verdict.error_reply() is None


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}}, "exactly one"),
        ({"jsonrpc": "2.0", "result": {}}, "needs an id"),
        ({"jsonrpc": "2.0", "id": None, "result": {}}, "non-null id"),
        ({"jsonrpc": "2.0", "id": 1, "error": "boom"}, "integer code"),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, "cannot be null"),
        ({"jsonrpc": "2.0", "id": 1, "method": "ping", "result": {}}, "cannot carry"),
        ([{"jsonrpc": "2.0", "method": "ping"}], "batches"),
    ],
)
def test_jsonrpc_problem_names_the_defect(value: object, fragment: str) -> None:
    problem = jsonrpc_problem(value)
    assert problem is not None and fragment in problem


def test_readable_id_accepts_only_strings_and_integers() -> None:
    assert readable_id({"id": 5}) == 5
    assert readable_id({"id": "x"}) == "x"
    assert readable_id({"id": False}) is None
    assert readable_id({"id": [1]}) is None
    assert readable_id([1, 2]) is None


def test_splitter_joins_lines_across_chunks_and_keeps_a_final_unterminated_line() -> None:
    splitter = LineSplitter(max_line=100)
    assert splitter.feed(b'{"a"') == []
    assert splitter.feed(b":1}\nsecond\nthi") == [b'{"a":1}', b"second"]
    assert splitter.feed(b"rd") == []
    assert splitter.finish() == [b"third"]
    assert splitter.finish() == []


def test_splitter_discards_an_over_long_line_without_holding_it() -> None:
    splitter = LineSplitter(max_line=10)
    out = splitter.feed(b"short\n" + b"y" * 8)
    assert out == [b"short"]
    for _ in range(100):  # 100 KB more of the same line: nothing accumulates
        assert splitter.feed(b"z" * 1000) == []
        assert len(splitter._buf) <= 10
    assert splitter.feed(b"zz\nnext\n") == [Oversize(8 + 100_000 + 2), b"next"]
    answer = reply(Oversize(100_010))
    assert answer["error"]["code"] == PARSE_ERROR and answer["id"] is None


def test_iter_lines_reads_until_empty_chunk() -> None:
    chunks = iter([b"a\nb", b"\n\nc", b""])
    assert list(iter_lines(lambda: next(chunks), max_line=4)) == [b"a", b"b", b"", b"c"]
