"""stderr logging: one JSON object a line (python-json-logger), secrets redacted everywhere.

Configure this before building the `MCPServer`: its constructor calls `logging.basicConfig`, which is a
no-op once the root logger has a handler.
"""

from __future__ import annotations

import functools
import logging
import re
import sys
from typing import Any

from pythonjsonlogger.json import JsonFormatter

REDACTED = "***"
# A field whose name contains one of these carries a secret.
_SECRET_NAME = re.compile(
    r"pass(word|wd|phrase)?|secret|token|api[_-]?key|private[_-]?key|credential|auth|\bpin\b|dsk|qr", re.I
)
# Both patterns run on every log record, including tool arguments of any length, so they must cost
# linear time: matches start only at a word boundary (lookbehind), a key's word is scanned once
# (possessive `*+`, checked for a following `:`/`=` first) and the other repeats are bounded. The
# unbounded originals took ~4 s on one 10,000-character argument.
# user:password@ inside any URL-looking text. The password may hold any character but space, `/`, `?`,
# `#` and `@` included (people paste them unencoded), so it runs to the last `@` (up to 1024 characters).
_URL_CREDENTIALS = re.compile(
    r"(?<![a-z0-9+.-])(?P<scheme>[a-z][a-z0-9+.-]{0,31}://)(?P<user>[^:/@\s]{0,256}):(?P<pw>\S{1,1024})@",
    re.I,
)
# key=value / "key": "value" pairs inside free text.
_INLINE_SECRET = re.compile(
    r"(?P<key>(?<![\w-])[\"']?(?=[\w-]*+[\"']?\s{0,16}[:=])"
    r"[\w-]*?(?:password|passwd|secret|token|api[_-]?key)[\w-]*+[\"']?\s{0,16}[:=]\s{0,16})"
    r"(?P<quote>[\"']?)(?P<val>[^\"'\s,}&]+)",
    re.I,
)

# A Z-Wave DSK (eight groups of five digits, the first being the inclusion PIN) and a Z-Wave QR code (at
# least 52 digits from 90), in digits of any script (`\d` is Unicode): the keys of a secure device.
_DSK_TEXT = re.compile(r"(?<!\d)\d{5}(?:[ \t]{0,3}[-\u2010-\u2015\u2212\uff0d][ \t]{0,3}\d{5}){7}(?!\d)")
_QR_TEXT = re.compile(r"(?<!\d)[9９٩۹][0０٠۰]\d{50,}")
_MAYBE_DIGITS = re.compile(r"\d{5}")

# LogRecord attributes that are not ours to redact or emit twice.
_RESERVED = set(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime"}


# Cheap first look: text without any of these cannot hold a URL password or key=value secret.
_MAYBE_SECRET = re.compile(r"@|pass|secret|token|key", re.I)


@functools.lru_cache(maxsize=2048)
def is_secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


def redact_url(url: str) -> str:
    """`mqtt://user:pw@host` → `mqtt://user:***@host`, whatever the password holds.

    Not `urlsplit`: an unencoded `#`, `/` or `?` in the password ends its idea of the authority early
    and the password would be shown as a path or fragment. The user part is everything up to the last
    `@`; its password is everything after the first `:`.
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        return redact_text(url)
    userinfo, at, host = rest.rpartition("@")
    if not at or ":" not in userinfo:
        return url
    user = userinfo.partition(":")[0]
    return f"{scheme}://{user}:{REDACTED}@{host}"


def redact_text(text: str) -> str:
    if _MAYBE_DIGITS.search(text):
        text = _QR_TEXT.sub(REDACTED, _DSK_TEXT.sub(REDACTED, text))
    if not _MAYBE_SECRET.search(text):
        return text
    text = _URL_CREDENTIALS.sub(lambda m: f"{m['scheme']}{m['user']}:{REDACTED}@", text)
    return _INLINE_SECRET.sub(lambda m: f"{m['key']}{m['quote']}{REDACTED}", text)


MAX_DEPTH = 20
MAX_TEXT = 4096
"""Logged data is cut below this depth and (in log records) after this many characters a string: tool
arguments come from the client, and a log line must neither show a secret where redaction stops looking
nor grow without end."""


def redact(value: Any, _depth: int = 0) -> Any:
    """A copy of `value` with secrets replaced (by field name in mappings, by pattern in strings), cut
    below `MAX_DEPTH` levels."""
    if _depth > MAX_DEPTH:
        return "…"  # what lies deeper is not looked at, so it is not logged either
    if isinstance(value, dict):
        return {
            k: (
                REDACTED
                if isinstance(k, str) and is_secret_name(k) and v is not None
                else redact(v, _depth + 1)
            )
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return type(value)(redact(v, _depth + 1) for v in value)
    if isinstance(value, str):
        return redact_text(value)
    return value


def _cut(value: Any) -> Any:
    """`value` (already redacted: a cut could split a secret from what marks it) with long strings cut."""
    if isinstance(value, str):
        return value if len(value) <= MAX_TEXT else f"{value[:MAX_TEXT]}…(+{len(value) - MAX_TEXT} chars)"
    if isinstance(value, dict):
        return {k: _cut(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_cut(v) for v in value]
    return value


class RedactingFilter(logging.Filter):
    """Runs on every record before formatting: message, args and extra fields."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not kill logging
            message = str(record.msg)
        record.msg = redact_text(message)
        record.args = None
        for key, value in list(vars(record).items()):
            if key in _RESERVED:
                continue
            record.__dict__[key] = (
                REDACTED if is_secret_name(key) and value is not None else _cut(redact(value))
            )
        return True


def record_fields(record: logging.LogRecord) -> dict[str, Any]:
    """A record's message and extra fields, redacted and cut as `RedactingFilter` does, without changing
    the record (the stderr handler may not have handled it yet)."""
    try:
        message = record.getMessage()
    except Exception:
        message = str(record.msg)
    fields: dict[str, Any] = {"message": _cut(redact_text(message))}
    for key, value in vars(record).items():
        if key not in _RESERVED and not key.startswith("_"):
            fields[key] = REDACTED if is_secret_name(key) and value is not None else _cut(redact(value))
    return fields


class _TextFormatter(logging.Formatter):
    """For people: `time level logger: message key=value …`."""

    def format(self, record: logging.LogRecord) -> str:
        base = super().format(record)
        extras = {k: v for k, v in vars(record).items() if k not in _RESERVED and not k.startswith("_")}
        if extras:
            base += " " + " ".join(f"{k}={v!r}" for k, v in extras.items())
        return base


def configure_logging(level: str = "info", fmt: str = "json", stream: Any = None) -> None:
    """Route every logger to stderr through one handler with the redaction filter."""
    handler = logging.StreamHandler(stream or sys.stderr)
    if fmt == "text":
        handler.setFormatter(_TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    else:
        handler.setFormatter(
            JsonFormatter(
                "%(asctime)s %(levelname)s %(name)s %(message)s",
                rename_fields={"levelname": "level", "asctime": "time", "name": "logger"},
            )
        )
    handler.addFilter(RedactingFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    # Third-party chatter stays at warning unless we debug.
    quiet = logging.WARNING if level != "debug" else logging.DEBUG
    for name in ("mcp", "httpx", "asyncio"):
        logging.getLogger(name).setLevel(quiet)
    # The embedded broker (the demo's and the tests', in the same process) logs every message's payload at
    # debug, lock codes and inclusion PINs on their way to zwave-js-ui included: never below warning.
    for name in ("amqtt", "transitions"):
        logging.getLogger(name).setLevel(logging.WARNING)
    logging.captureWarnings(True)


def watch_task(task: Any, on_death: Any = None) -> Any:
    """Log a background task (an `asyncio.Task`) that stops on an exception, with its traceback, and tell
    `on_death(why)` so the owner can say it in health: a task that dies quietly leaves the server saying
    "still loading" for ever (issue 44). Cancelling is stopping, not dying. Returns the task."""

    def done(finished: Any) -> None:
        if finished.cancelled() or finished.exception() is None:
            return
        error = finished.exception()
        why = f"{type(error).__name__}: {error}"[:200]
        logging.getLogger("zwave_mcp.tasks").error(
            "background task %s stopped: %s",
            finished.get_name(),
            why,
            exc_info=error,
            extra={"task": finished.get_name()},
        )
        if on_death is not None:
            on_death(why)

    task.add_done_callback(done)
    return task
