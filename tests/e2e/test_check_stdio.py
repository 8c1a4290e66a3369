"""check-stdio against fixture servers: passes a pure one, fails a polluting one, reports a dying one."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fixtures_servers.wire import BANNER_SERVER, DYING_SERVER, GOOD_SERVER, HOSTILE_SERVER

pytestmark = pytest.mark.e2e

CHECK = [sys.executable, "-m", "zwave_mcp.stdio.check"]


def check(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CHECK, *args], capture_output=True, text=True, timeout=timeout)


def test_passes_a_pure_server_and_reports_json() -> None:
    done = check("--json", "--include-writes", "--", *GOOD_SERVER)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["passed"] is True
    assert report["problems"] == []
    assert report["exit_code"] == 0
    assert sorted(report["tools_called"]) == ["echo", "noisy", "slow"]
    assert report["tool_outcomes"]["echo"] == "ok: example"  # generated from the schema's required `text`
    assert report["requests"] == report["answered"] >= 7
    assert "PASS" in done.stderr


def test_calls_only_read_only_tools_unless_told_otherwise() -> None:
    """People point check-stdio at their real home: by default no tool that may change things is called."""
    done = check("--json", "--", *GOOD_SERVER)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["tools_called"] == ["echo"]  # the only tool annotated readOnlyHint
    assert sorted(report["tools_not_called"]) == ["noisy", "slow"]
    assert "--include-writes calls them): noisy, slow" in done.stderr


def test_help_works_without_a_command() -> None:
    done = check("--help")
    assert done.returncode == 0, done.stderr
    assert "--include-writes" in done.stdout and "read-only" in done.stdout
    assert done.stdout.startswith("usage: zwave-mcp check-stdio [OPTIONS] -- COMMAND [ARGS...]")


def test_fails_a_server_that_prints_a_banner_and_names_the_line() -> None:
    done = check("--json", "--", *BANNER_SERVER)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["passed"] is False
    assert any(
        p.startswith("stdout line 1:") and "Banner: fixture server v1 starting" in p
        for p in report["problems"]
    )
    assert "stdout line 1" in done.stderr and "Banner: fixture server v1 starting" in done.stderr


def test_reports_a_server_dying_at_start_with_its_stderr_after_three_attempts() -> None:
    started = time.monotonic()
    done = check("--json", "--backoff", "0,0.2,0.4", "--", *DYING_SERVER)
    elapsed = time.monotonic() - started
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert [a.split(" failed")[0] for a in report["attempts"]] == ["attempt 1", "attempt 2", "attempt 3"]
    assert all("exited with code 3" in a for a in report["attempts"])
    assert "MCP connection failed after 3 attempts" in report["problems"]
    assert report["stderr_tail"] == ["fatal: cannot reach the MQTT broker at 127.0.0.1:1"]
    assert "fatal: cannot reach the MQTT broker" in done.stderr
    assert elapsed >= 0.6, "the backoff delays were not waited"


def test_a_missing_command_is_reported_not_raised() -> None:
    done = check("--backoff", "0", "--", "/nonexistent/server-binary")
    assert done.returncode == 1
    assert "cannot start" in done.stderr and "Traceback" not in done.stderr


def test_script_supplies_tool_arguments_skips_and_extra_requests(tmp_path: Path) -> None:
    script = tmp_path / "session.json"
    script.write_text(
        json.dumps(
            {
                "tool_args": {"echo": {"text": "from the script"}},
                "skip_tools": ["slow", "noisy"],
                "messages": [{"jsonrpc": "2.0", "id": "script-ping", "method": "ping"}, "raw garbage line"],
            }
        )
    )
    done = check("--json", "--script", str(script), "--", *GOOD_SERVER)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["tools_called"] == ["echo"]
    assert report["tool_outcomes"] == {"echo": "ok: from the script"}
    assert report["requests"] == report["answered"]


def test_bad_usage_exits_2() -> None:
    done = check("no-separator")
    assert done.returncode == 2
    assert "usage" in done.stderr


ZWAVE_MCP = [sys.executable, "-m", "zwave_mcp"]


def test_summary_says_how_the_tools_answered_not_only_that_the_protocol_held(
    no_broker_env: dict[str, str],
) -> None:
    """The issue's case: no broker, so most read-only tools answer "unavailable"; the summary says so."""
    done = subprocess.run(
        [*CHECK, "--json", "--", *ZWAVE_MCP], capture_output=True, text=True, timeout=120, env=no_broker_env
    )
    assert done.returncode == 0, done.stderr  # the protocol held: without --strict-tools that decides
    report = json.loads(done.stdout)
    errors: dict[str, list[str]] = report["tool_errors"]
    assert len(errors) == 1, errors  # the same error from every tool is one group
    (cause, tools), called = next(iter(errors.items())), len(report["tools_called"])
    # The broker's address is said once, in the reason (issue 43 item 17).
    assert cause.startswith(
        "Z-Wave service unavailable: cannot reach the MQTT broker: connection refused by 127.0.0.1:"
    )
    assert "list_zwave_devices" in tools and "check_zwave_health" not in tools
    summary = done.stderr
    assert "  protocol: PASS (" in summary
    answered = [name for name in report["tools_called"] if name not in tools]
    assert "check_zwave_health" in answered  # it says the broker cannot be reached: an answer, not an error
    assert (
        f"  tools: {len(answered)} of {called} answered ({', '.join(answered)}); {len(tools)} answered an "
        f"error: {cause} ({', '.join(tools)})"
    ) in summary
    assert "--strict-tools makes them fail" in summary


def test_strict_tools_fails_when_a_tool_answers_an_error(no_broker_env: dict[str, str]) -> None:
    done = subprocess.run(
        [*CHECK, "--strict-tools", "--", *ZWAVE_MCP],
        capture_output=True,
        text=True,
        timeout=120,
        env=no_broker_env,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("check-stdio: FAIL") and "  protocol: PASS (" in done.stderr
    assert "--strict-tools is on: a tool error fails the check" in done.stderr


def test_strict_tools_passes_when_every_tool_answered() -> None:
    done = check("--strict-tools", "--", *GOOD_SERVER)
    assert done.returncode == 0, done.stderr
    assert "  tools: 1 of 1 answered (echo)\n" in done.stderr


def test_nothing_the_checked_server_says_reaches_the_terminal_raw() -> None:
    """Issue 44 item 8: a tool name, an error text and stderr lines with escape sequences (window title,
    clipboard, clear screen), bells, carriage returns and line breaks were printed as they came, so a
    hostile server could retitle the terminal, write its clipboard or forge the verdict line."""
    done = check("--json", "--strict-tools", "--", *HOSTILE_SERVER)
    assert done.returncode == 1, done.stderr  # its tool answered an error, and --strict-tools is on
    unsafe = [c for c in done.stderr if (c < " " and c != "\n") or "\x7f" <= c <= "\x9f"]
    assert unsafe == [], done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith("check-stdio: FAIL"), lines[0]
    assert [line for line in lines if line.lstrip().startswith("check-stdio:")] == [lines[0]], lines
    assert "read\\x1b]0;owned\\x07" in done.stderr, "the name is shown, its controls written out"
    assert "\n    | starting\\x1b]0;owned" in done.stderr and "\n    | bye\\x1b]0;owned" in done.stderr
    report = json.loads(done.stdout)  # JSON escapes the controls itself
    assert "\x1b" not in done.stdout and report["tools_called"][0].startswith("read\x1b]0;owned")
