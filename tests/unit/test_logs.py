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


async def test_a_deferring_handler_holds_loop_records_until_drained_and_handles_others_at_once() -> None:
    import asyncio
    import threading

    from zwave_mcp.logs import LogHandler

    target = io.StringIO()
    handler = LogHandler(target)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger("test.deferred")
    logger.propagate = False
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        logger.info("through")
        assert target.getvalue() == "through\n"
        handler.defer(asyncio.get_running_loop())
        logger.info("a")
        logger.warning("b")
        assert target.getvalue() == "through\n"  # waits for the reply to be written
        other = threading.Thread(target=logger.info, args=("from a thread",))
        other.start()
        other.join()
        assert target.getvalue() == "through\nfrom a thread\n"
        handler.drain()
        assert target.getvalue() == "through\nfrom a thread\na\nb\n"
        logger.info("c")
        handler.handle_at_once()  # the transport stops: what waits goes out, later records are not held
        logger.info("d")
        assert target.getvalue().endswith("a\nb\nc\nd\n")
    finally:
        logger.removeHandler(handler)


async def test_held_records_go_out_redacted_in_one_write() -> None:
    """Each write to stderr can wake the client reading it: what a call held goes out in one write."""
    import asyncio

    from zwave_mcp.logs import LogHandler, RedactingFilter

    class CountingStream(io.StringIO):
        writes = 0

        def write(self, text: str) -> int:
            self.writes += 1
            return super().write(text)

    target = CountingStream()
    handler = LogHandler(target)
    handler.setFormatter(logging.Formatter("%(message)s %(arguments)s"))
    handler.addFilter(RedactingFilter())
    logger = logging.getLogger("test.deferred.batch")
    logger.propagate = False
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        handler.defer(asyncio.get_running_loop())
        for n in range(3):
            logger.info("tool call %d", n, extra={"arguments": {"password": "hunter2", "n": n}})
        assert target.writes == 0
        handler.drain()
        assert target.writes == 1
        lines = target.getvalue().splitlines()
        assert [line.split(" ", 3)[:3] for line in lines] == [["tool", "call", str(n)] for n in range(3)]
        assert "hunter2" not in target.getvalue() and target.getvalue().count("***") == 3
        handler.drain()  # nothing held: nothing written
        assert target.writes == 1
    finally:
        handler.handle_at_once()
        logger.removeHandler(handler)


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
