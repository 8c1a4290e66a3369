"""The audit trail: one JSON line per mutation attempt, on the `zwave_mcp.audit` logger and optionally a file.

The logger goes wherever logging is configured (stderr JSON) and is pinned at INFO, so a quieter
`--log-level` never drops audit lines. With `ZWAVE_MCP_AUDIT_FILE` each line is also appended to that file
(created 0600). No secrets: an event has no field for a token, values pass through the log redaction, and
long text is cut. Writing the audit never raises: a failing file is reported as a warning.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from zwave_mcp.logs import redact
from zwave_mcp.policy.caller import current_caller
from zwave_mcp.policy.outcome import Outcome

AUDIT_LOGGER = "zwave_mcp.audit"
MAX_TEXT = 300

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AuditEvent:
    """One mutation attempt. `device` is the label people read, `device_key` the stable id."""

    tool: str
    action: str
    outcome: Outcome
    device: str | None = None
    device_key: str | None = None
    value: Any = None
    reason: str | None = None
    confirmed_by: str | None = None  # "token" or "elicitation"
    detail: str | None = None


_FIELDS = tuple(f.name for f in fields(AuditEvent))


def _bounded(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= MAX_TEXT else value[:MAX_TEXT] + f"…(+{len(value) - MAX_TEXT} chars)"
    if isinstance(value, dict):
        return {str(k)[:MAX_TEXT]: _bounded(v) for k, v in list(value.items())[:50]}
    if isinstance(value, list | tuple):
        return [_bounded(v) for v in list(value)[:50]]
    if value is None or isinstance(value, bool | int | float):
        return value
    return _bounded(repr(value))


def audit_fields(event: AuditEvent) -> dict[str, Any]:
    """The event as JSON-safe, redacted, bounded fields (None fields left out)."""
    # Shallow on purpose: the fields are plain values, and `asdict`'s deep copy cost more than the rest.
    fields = {k: _bounded(redact(v)) for k in _FIELDS if (v := getattr(event, k)) is not None}
    fields["event"] = "mutation"
    return fields


class AuditLog:
    """Writes audit events. `wall_clock` (epoch seconds) is injectable for tests."""

    def __init__(self, file: Path | None = None, *, wall_clock: Callable[[], float] = time.time) -> None:
        self.file = file
        self._wall_clock = wall_clock
        self._logger = logging.getLogger(AUDIT_LOGGER)
        self._logger.setLevel(logging.INFO)

    def __call__(self, event: AuditEvent) -> dict[str, Any]:
        """Emit one line; returns the fields written (handy for callers and tests). Every line names the
        client the call came from ("stdio", or the home service's OAuth client)."""
        fields = {**audit_fields(event), "client": current_caller().client}
        try:
            self._logger.info("audit", extra=fields)
        except Exception:  # logging must never break a tool call
            log.debug("audit log record failed", exc_info=True)
        if self.file is not None:
            stamped = {"time": datetime.fromtimestamp(self._wall_clock(), UTC).isoformat(), **fields}
            self._append(json.dumps(stamped, ensure_ascii=False, default=str) + "\n")
        return fields

    def _append(self, line: str) -> None:
        assert self.file is not None
        try:
            fd = os.open(self.file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line.encode("utf-8", "backslashreplace"))
            finally:
                os.close(fd)
        except OSError as exc:
            log.warning(
                "cannot append to the audit file", extra={"path": str(self.file), "error": exc.strerror}
            )
