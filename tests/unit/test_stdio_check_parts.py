"""Pure parts of the check-stdio harness: generated arguments, script files, command line."""

import json
from pathlib import Path

import pytest

from zwave_mcp.stdio.check import RETRY_DELAYS, Report, UsageError, example_args, load_script, parse_args


def test_example_args_fill_only_required_fields_with_plausible_values() -> None:
    schema = {
        "type": "object",
        "properties": {
            "deviceName": {"type": "string"},
            "action": {"type": "string", "enum": ["on", "off"]},
            "level": {"type": "integer", "minimum": 0, "maximum": 99},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 0.5},
            "confirm": {"type": "boolean"},
            "when": {"type": "string", "format": "date-time"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            "optional": {"type": "string"},
            "nullable": {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 5}]},
            "mode": {"$ref": "#/$defs/Mode"},
            "code": {"type": "string", "minLength": 12},
        },
        "required": [
            "deviceName",
            "action",
            "level",
            "ratio",
            "confirm",
            "when",
            "tags",
            "nullable",
            "mode",
            "code",
        ],
        "$defs": {"Mode": {"type": "string", "enum": ["heat", "cool"]}},
    }
    args = example_args(schema)
    assert args == {
        "deviceName": "example",
        "action": "on",
        "level": 1,
        "ratio": 0.5,
        "confirm": False,
        "when": "2025-01-01T00:00:00Z",
        "tags": ["example", "example"],
        "nullable": 5,
        "mode": "heat",
        "code": "examplexxxxx",
    }


def test_example_args_prefer_defaults_and_handle_nested_objects() -> None:
    schema = {
        "properties": {
            "n": {"type": "integer", "default": 7},
            "inner": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
        },
        "required": ["n", "inner"],
    }
    assert example_args(schema) == {"n": 7, "inner": {"x": "example"}}
    assert example_args(None) == {}


def test_script_json_object_gives_tool_args_skips_and_messages(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(
        json.dumps(
            {
                "tool_args": {"echo": {"text": "hi"}},
                "skip_tools": ["slow"],
                "messages": [{"jsonrpc": "2.0", "id": "mine", "method": "ping"}, "raw text"],
            }
        )
    )
    script = load_script(path)
    assert script.tool_args == {"echo": {"text": "hi"}}
    assert script.skip_tools == {"slow"}
    assert json.loads(script.messages[0]) == {"jsonrpc": "2.0", "id": "mine", "method": "ping"}
    assert script.messages[1] == b"raw text"


def test_script_jsonl_is_a_list_of_messages(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"jsonrpc":"2.0","id":1,"method":"ping"}\n\n"not json at all"\n')
    script = load_script(path)
    assert [json.loads(script.messages[0])["method"], script.messages[1]] == ["ping", b"not json at all"]
    assert script.tool_args == {} and script.skip_tools == set()


def test_script_errors_are_usage_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"jsonrpc":"2.0","method":"ping"}\nplain words\n')
    with pytest.raises(UsageError, match="line 2"):
        load_script(bad)
    unknown = tmp_path / "unknown.json"
    unknown.write_text('{"tools": {}}')
    with pytest.raises(UsageError, match="unknown keys"):
        load_script(unknown)
    with pytest.raises(UsageError, match="cannot read"):
        load_script(tmp_path / "missing.json")


def test_parse_args_splits_options_from_the_command() -> None:
    options, as_json = parse_args(["--json", "--backoff", "0,0.1", "--", "python", "-m", "x", "--json"])
    assert as_json is True
    assert options.command == ["python", "-m", "x", "--json"]
    assert options.retry_delays == (0.0, 0.1)
    default, as_json = parse_args(["--", "srv"])
    assert default.retry_delays == RETRY_DELAYS == (0.0, 2.0, 4.0)
    assert as_json is False


@pytest.mark.parametrize(
    "argv", [["srv"], ["--"], ["--backoff", "a,b", "--", "srv"], ["--backoff", "-1", "--", "s"]]
)
def test_parse_args_rejects_bad_usage(argv: list[str]) -> None:
    with pytest.raises(UsageError):
        parse_args(argv)


def test_summary_names_problems_and_stderr_tail_on_failure() -> None:
    report = Report(command=["srv"], problems=["stdout line 1: not JSON: 'Banner'"], stderr_tail=["boom"])
    text = report.summary()
    assert "FAIL" in text and "stdout line 1" in text and "| boom" in text
    assert "PASS" in Report(command=["srv"], passed=True).summary()


def test_summary_groups_identical_tool_errors_and_counts_the_answers() -> None:
    report = Report(
        command=["srv"],
        passed=True,
        protocol_passed=True,
        tools_called=["a", "b", "c", "d"],
        tool_outcomes={
            "a": "tool error: unavailable: no broker",
            "b": "ok: fine",
            "c": "tool error: unavailable: no broker",
            "d": "error -32602: bad arguments",
        },
    )
    assert report.tool_errors() == {
        "unavailable: no broker": ["a", "c"],
        "error -32602: bad arguments": ["d"],
    }
    assert (
        "  tools: 1 of 4 answered (b); 3 answered an error: unavailable: no broker (a, c); "
        "error -32602: bad arguments (d)\n"
    ) in report.summary()
    assert "  protocol: PASS (" in report.summary()
