"""JSON logs on the given stream, one object a line, with secrets redacted wherever they hide."""

import io
import json
import logging

import pytest

from zwave_mcp.logs import configure_logging, redact, redact_url


@pytest.fixture
def log_stream():
    stream = io.StringIO()
    configure_logging("debug", "json", stream=stream)
    yield stream
    configure_logging("info", "json")


def _records(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_one_json_object_per_line_with_extra_fields(log_stream):
    logging.getLogger("zwave_mcp.test").info("tool call", extra={"tool": "x", "duration_ms": 1.5})
    (record,) = _records(log_stream)
    assert record["message"] == "tool call"
    assert record["tool"] == "x" and record["duration_ms"] == 1.5
    assert record["level"] == "INFO"


def test_secrets_redacted_in_message_args_and_extras(log_stream):
    log = logging.getLogger("zwave_mcp.test")
    log.warning("connecting to %s", "mqtt://bob:s3cret@broker:1883")
    log.info("args", extra={"arguments": {"password": "s3cret", "deviceName": "Lamp"}, "api_token": "tok123"})
    log.info('payload {"password": "s3cret"} and token=tok123')
    text = log_stream.getvalue()
    assert "s3cret" not in text and "tok123" not in text
    records = _records(log_stream)
    assert records[0]["message"] == "connecting to mqtt://bob:***@broker:1883"
    assert records[1]["arguments"] == {"password": "***", "deviceName": "Lamp"}
    assert records[1]["api_token"] == "***"


def test_redact_leaves_ordinary_data_alone():
    data = {"deviceName": "Front Door Lock", "level": 30, "nested": [{"secret_key": "x"}]}
    assert redact(data) == {"deviceName": "Front Door Lock", "level": 30, "nested": [{"secret_key": "***"}]}
    assert redact_url("mqtt://h:1883") == "mqtt://h:1883"
    assert redact_url("mqtts://u:pw@h") == "mqtts://u:***@h"


@pytest.mark.parametrize("depth", [19, 21, 50, 900])
def test_a_secret_nested_deeper_than_redaction_looks_is_never_logged(log_stream, depth):
    """Tool arguments are logged; below 20 levels of nesting they used to be logged as given."""
    nested: object = {"password": "hunter2", "url": "mqtt://u:hunter2@h"}
    for _ in range(depth):
        nested = [nested]
    logging.getLogger("zwave_mcp.test").info("tool call", extra={"arguments": {"filter": nested}})
    line = log_stream.getvalue()
    assert "hunter2" not in line
    assert isinstance(json.loads(line), dict)


def test_a_huge_logged_argument_is_cut(log_stream):
    logging.getLogger("zwave_mcp.test").info(
        "tool call", extra={"arguments": {"deviceName": "x" * 1_000_000}}
    )
    line = log_stream.getvalue()
    assert len(line) < 10_000 and "chars)" in line
