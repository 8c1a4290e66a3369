"""Audit lines: one JSON object per attempt, on the `zwave_mcp.audit` logger and in the optional file."""

from __future__ import annotations

import io
import json
import logging
import os
import stat

import pytest

from tests.unit.policy_devices import FRONT_DOOR, check_mutation
from zwave_mcp.logs import configure_logging
from zwave_mcp.policy import AUDIT_LOGGER, AuditEvent, AuditLog, Outcome, Policy, PolicyConfig


@pytest.fixture
def stderr_json():
    """Route logging into a buffer the way the server does (JSON, redaction), at warning level."""
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    configure_logging(level="warning", fmt="json", stream=stream)
    yield stream
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])


def lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_each_event_is_one_json_line_on_the_audit_logger_even_at_warning_level(stderr_json):
    audit = AuditLog()
    audit(
        AuditEvent(
            tool="control_zwave_device",
            action="unlock",
            outcome=Outcome.NEEDS_CONFIRMATION,
            device="Front Door Lock (Entry)",
            device_key="5",
            reason="it can unlock a door",
        )
    )
    audit(AuditEvent(tool="control_zwave_device", action="on", outcome=Outcome.REFUSED))
    records = [r for r in lines(stderr_json.getvalue()) if r.get("logger") == AUDIT_LOGGER]
    assert len(records) == 2
    first = records[0]
    assert first["message"] == "audit" and first["event"] == "mutation"
    assert {k: first[k] for k in ("tool", "device", "device_key", "action", "outcome", "reason")} == {
        "tool": "control_zwave_device",
        "device": "Front Door Lock (Entry)",
        "device_key": "5",
        "action": "unlock",
        "outcome": "needs_confirmation",
        "reason": "it can unlock a door",
    }
    assert "value" not in first, "unset fields are left out"


def test_audit_file_gets_the_same_fields_with_a_timestamp(tmp_path, stderr_json):
    path = tmp_path / "audit.jsonl"
    audit = AuditLog(path, wall_clock=lambda: 0.0)
    for outcome in (Outcome.CONFIRMED, Outcome.FAILED, Outcome.DRY_RUN):
        audit(AuditEvent(tool="t", action="set_level", outcome=outcome, value=30, device_key="3"))
    written = lines(path.read_text())
    assert [r["outcome"] for r in written] == ["confirmed", "failed", "dry_run"]
    assert written[0]["time"] == "1970-01-01T00:00:00+00:00"
    assert written[0]["value"] == 30
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_secrets_and_long_values_are_kept_out(tmp_path, stderr_json):
    path = tmp_path / "audit.jsonl"
    audit = AuditLog(path)
    fields = audit(
        AuditEvent(
            tool="t",
            action="set_color",
            outcome="refused",
            value={"color": "x" * 5000, "password": "hunter2"},
            reason='call again with confirmationToken="Zk3sQ0aV9b2nX4yT7uW1eA"',
        )
    )
    text = path.read_text() + stderr_json.getvalue()
    assert "hunter2" not in text and "Zk3sQ0aV9b2nX4yT7uW1eA" not in text
    assert len(fields["value"]["color"]) < 400
    assert fields["value"]["color"].endswith("(+4700 chars)")


def test_an_unwritable_audit_file_warns_and_does_not_raise(tmp_path, stderr_json):
    audit = AuditLog(tmp_path / "missing-dir" / "audit.jsonl")
    audit(AuditEvent(tool="t", action="on", outcome=Outcome.CONFIRMED))
    warnings = [r for r in lines(stderr_json.getvalue()) if r["message"] == "cannot append to the audit file"]
    assert len(warnings) == 1 and warnings[0]["level"] == "WARNING"


def test_policy_audit_uses_the_configured_file(tmp_path, stderr_json):
    path = tmp_path / "a.jsonl"
    p = Policy(PolicyConfig(audit_file=path))
    decision = check_mutation(p, FRONT_DOOR, "unlock")
    p.audit(
        AuditEvent(
            tool="control_zwave_device",
            action="unlock",
            outcome=Outcome.NEEDS_CONFIRMATION,
            device="Front Door Lock (Entry)",
            device_key=FRONT_DOOR.key,
            reason=decision.why,
        )
    )
    (line,) = lines(path.read_text())
    assert line["outcome"] == "needs_confirmation" and line["reason"] == "it can unlock a door"
