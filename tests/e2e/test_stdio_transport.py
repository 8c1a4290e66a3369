"""The stdio transport as a subprocess: answers for malformed lines, stdout purity, drain on EOF, signals."""

import os
import select
import signal
import subprocess
import time

import pytest

from tests.fixtures_servers.wire import (
    ACCEPTANCE_LINES,
    ACCEPTANCE_SHAPES,
    GOOD_SERVER,
    INITIALIZED,
    initialize,
    request,
    run_lines,
    shape,
    stdout_messages,
)

pytestmark = pytest.mark.e2e


def test_acceptance_sequence_is_answered_in_order_and_nothing_else_reaches_stdout() -> None:
    done = run_lines(GOOD_SERVER, ACCEPTANCE_LINES)
    assert done.returncode == 0, done.stderr[-2000:]
    messages = stdout_messages(done.stdout)
    assert [shape(m) for m in messages] == ACCEPTANCE_SHAPES
    assert messages[3]["result"]["serverInfo"]["name"] == "fixture-good"
    assert {t["name"] for t in messages[5]["result"]["tools"]} == {"echo", "noisy", "slow"}


def test_prints_at_import_time_and_inside_a_tool_land_on_stderr_never_stdout() -> None:
    call = request(2, "tools/call", {"name": "noisy", "arguments": {}})
    done = run_lines(GOOD_SERVER, [initialize(1), INITIALIZED, call])
    assert done.returncode == 0, done.stderr[-2000:]
    messages = stdout_messages(done.stdout)
    assert [shape(m) for m in messages] == [(1, "result"), (2, "result")]
    assert messages[1]["result"]["content"][0]["text"] == "printed"
    for noise in (b"import-time noise", b"x\n", b"raw fd 1 write"):
        assert noise in done.stderr
        assert noise not in done.stdout


def test_eof_with_a_slow_tool_in_flight_still_answers_it() -> None:
    slow = request(2, "tools/call", {"name": "slow", "arguments": {"seconds": 0.5}})
    started = time.monotonic()
    done = run_lines([*GOOD_SERVER, "10"], [initialize(1), INITIALIZED, slow, request(3, "ping")])
    assert done.returncode == 0, done.stderr[-2000:]
    messages = stdout_messages(done.stdout)
    assert sorted(shape(m) for m in messages) == [(1, "result"), (2, "result"), (3, "result")]
    answer = next(m for m in messages if m["id"] == 2)
    assert answer["result"]["content"][0]["text"] == "slept 0.5"
    assert time.monotonic() - started < 10, "the drain should end when the tool answers, not at the timeout"


def test_a_request_outliving_the_drain_timeout_gets_an_error_instead_of_silence() -> None:
    slow = request(2, "tools/call", {"name": "slow", "arguments": {"seconds": 60}})
    done = run_lines([*GOOD_SERVER, "0.3"], [initialize(1), INITIALIZED, slow], timeout=20)
    assert done.returncode == 0, done.stderr[-2000:]
    messages = stdout_messages(done.stdout)
    # Exactly one answer for id 2, and it is an error (the SDK's "Connection closed" or our own -32603).
    assert [m["id"] for m in messages] == [1, 2]
    assert "error" in messages[1] and messages[1]["error"]["code"] in (-32000, -32603)


def _read_line(proc: subprocess.Popen, timeout: float) -> bytes:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, f"no reply within {timeout} s"
    return proc.stdout.readline()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signals_end_the_server_quietly_with_exit_code_zero(signum: int) -> None:
    proc = subprocess.Popen(
        GOOD_SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert proc.stdin is not None
        proc.stdin.write(initialize(1) + b"\n")
        proc.stdin.flush()
        assert b'"id":1' in _read_line(proc, 20)
        os.kill(proc.pid, signum)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err[-2000:]
    assert b"Traceback" not in err
    assert out == b""
