"""Fuzz of the stdio layer against the real server: every generated line gets a valid answer, and the
process survives to answer the last request and exit 0.

Lines come from a seeded generator (reproducible: the seed is in the test id): requests whose fields carry
lone surrogates (`\\ud800` escapes) and wrong types, invalid UTF-8, huge and deeply nested lines, batches.
No broker is reachable, so tool calls answer at once with "unavailable" (the stdio layer is what is
tested here; tests/integration/test_gateway_junk.py feeds junk through MQTT).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tests.e2e.test_stdio_zwave_mcp import SERVER
from tests.fixtures_servers.wire import (
    INITIALIZED,
    initialize,
    request,
    run_lines,
    stdout_messages,
    without_log_messages,
)

pytestmark = pytest.mark.e2e

NO_ANSWER = object()
SURROGATES = ["\\ud800", "\\udfff", "\\udc80", "\\ud83d", "\\ude00x"]
METHODS = [
    "tools/call",
    "tools/list",
    "resources/read",
    "resources/list",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/get",
    "prompts/list",
    "completion/complete",
    "logging/setLevel",
    "ping",
    "initialize",
]
TOOLS = [
    "list_zwave_devices",
    "get_device_state",
    "control_zwave_device",
    "get_device_sensor_data",
    "activate_zwave_scene",
    "check_zwave_health",
]


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class Gen:
    """Builds JSON text by hand, so lone surrogate escapes land anywhere a string can be."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def text(self) -> str:
        """A JSON string literal (with quotes), often holding a lone surrogate escape."""
        rng = self.rng
        words = ["kitchen", "light", "zwave://devices/", "on", "ä", "日本", "\\\\", '\\"', "\\n", "\\u0000"]
        parts = [rng.choice(words) for _ in range(rng.randint(0, 4))]
        for _ in range(rng.choice([0, 1, 1, 2])):
            parts.insert(rng.randint(0, len(parts)), rng.choice(SURROGATES))
        return '"' + "".join(parts) + '"'

    def value(self, depth: int = 0) -> str:
        rng = self.rng
        kind = rng.choice(
            ["str", "str", "int", "float", "bool", "null", "list", "obj"] if depth < 4 else ["str"]
        )
        if kind == "str":
            return self.text()
        if kind == "int":
            return str(rng.choice([0, -1, 7, 2**63, -(2**80)]))
        if kind == "float":
            return str(rng.choice([0.5, 1e308, -1e-300]))
        if kind == "bool":
            return rng.choice(["true", "false"])
        if kind == "null":
            return "null"
        if kind == "list":
            return "[" + ",".join(self.value(depth + 1) for _ in range(rng.randint(0, 3))) + "]"
        return self.obj(depth + 1)

    def obj(self, depth: int = 0, keys: list[str] | None = None) -> str:
        names = keys or [self.text() for _ in range(self.rng.randint(0, 3))]
        return "{" + ",".join(f"{k}:{self.value(depth)}" for k in names) + "}"

    def params(self, method: str) -> str:
        rng = self.rng
        if method == "tools/call":
            name = rng.choice([_json_text(rng.choice(TOOLS)), self.text()])
            args = {
                '"name"': self.text(),
                '"device"': self.text(),
                '"action"': self.text(),
                '"value"': self.value(),
                '"limit"': self.value(),
                self.text(): self.value(),
            }
            picked = rng.sample(sorted(args), rng.randint(0, len(args)))
            arguments = "{" + ",".join(f"{k}:{args[k]}" for k in picked) + "}"
            return f'{{"name":{name},"arguments":{rng.choice([arguments, self.value()])}}}'
        if method in ("resources/read", "resources/subscribe", "resources/unsubscribe"):
            uri = rng.choice(['"zwave://devices"', '"zwave://health"', self.text()])
            return f'{{"uri":{uri}}}'
        if method == "prompts/get":
            return f'{{"name":{self.text()},"arguments":{self.obj()}}}'
        return rng.choice(["{}", self.obj(), self.value()])

    def line(self, rid: int) -> tuple[bytes, Any]:
        """One input line and the id its answer must carry (None: an error with id null)."""
        rng = self.rng
        case = rng.choice(
            ["request"] * 8
            + ["string_id", "notification", "bad_id", "bad_method", "not_utf8", "batch", "scalar", "deep"]
        )
        method = rng.choice([*METHODS, "x/\\ud800", "notifications/\\udfff"])
        if case in ("request", "string_id"):
            sid = rng.choice(SURROGATES)
            rid_text, expected = (f'"{rid}{sid}"', f"{rid}\ufffd") if case == "string_id" else (str(rid), rid)
            if case == "string_id" and sid.endswith("x"):
                expected += "x"
            line = f'{{"jsonrpc":"2.0","id":{rid_text},"method":"{method}","params":{self.params(method)}}}'
            return line.encode(), expected
        if case == "notification":
            rest = rng.choice(["", f',"params":{self.obj()}'])
            return (
                f'{{"jsonrpc":"2.0","method":"notifications/{self.text()[1:-1]}"{rest}}}'.encode(),
                NO_ANSWER,
            )
        if case == "bad_id":
            bad = rng.choice(["1.5", "true", "[1]", '{"a":"\\ud800"}', "null"])
            return f'{{"jsonrpc":"2.0","id":{bad},"method":"ping"}}'.encode(), None
        if case == "bad_method":
            return f'{{"jsonrpc":"2.0","id":{rid},"method":{rng.choice(["1", "null", "[]"])}}}'.encode(), rid
        if case == "not_utf8":
            junk = rng.choice([b"\xff\xfe", b"\xed\xa0\x80", b"\xc3", b"\x80abc"])
            return b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"x":"' % rid + junk + b'"}}', None
        if case == "batch":
            inner = request(rid, "ping").decode()
            return f"[{inner},{inner}]".encode(), None
        if case == "scalar":
            return rng.choice([b"1", b'"\\ud800"', b"null", b"true", b"[]", b"{}"]), None
        depth = rng.choice([50, 300, 100_000])
        nested = "[" * depth + self.text() + "]" * depth
        line = f'{{"jsonrpc":"2.0","id":{rid},"method":"tools/call","params":{{"name":"list_zwave_devices","arguments":{{"filter":{nested}}}}}}}'
        return line.encode(), rid if depth < 1000 else None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_fuzzed_line_gets_a_valid_answer(seed: int, no_broker_env: dict[str, str]) -> None:
    gen = Gen(seed)
    lines: list[bytes] = [initialize("init"), INITIALIZED]
    expected: list[Any] = []
    for rid in range(1, 121):
        line, answer_id = gen.line(rid)
        lines.append(line)
        if answer_id is not NO_ANSWER:
            expected.append(answer_id)
    # Huge lines: one over the 8 MB limit, one big but valid request with surrogates in it.
    lines.append(
        b'{"jsonrpc":"2.0","id":9001,"method":"ping","params":{"x":"' + b"\\ud800" * 1_500_000 + b'"}}'
    )
    expected.append(None)
    big = '{"jsonrpc":"2.0","id":9002,"method":"tools/call","params":{"name":"get_device_state","arguments":{"device":"%s"}}}'
    lines.append((big % ("\\udc00a" * 500_000)).encode())
    expected.append(9002)
    lines.append(request("last", "tools/list"))

    done = run_lines(SERVER, lines, timeout=60, env=no_broker_env)

    assert done.returncode == 0, done.stderr[-3000:]
    every = stdout_messages(done.stdout)
    messages = without_log_messages(every)  # the warnings that no broker answers, sent to the client
    assert all(
        m["jsonrpc"] == "2.0" and "id" not in m and m["params"]["level"] for m in every if m not in messages
    )
    for message in messages:
        assert message.get("jsonrpc") == "2.0" and ("result" in message) != ("error" in message), message
    assert messages[0]["id"] == "init" and "result" in messages[0]
    assert messages[-1]["id"] == "last" and "tools" in messages[-1]["result"], "the server kept serving"
    answered = sorted((m["id"] for m in messages[1:-1]), key=repr)
    assert answered == sorted(expected, key=repr), done.stderr[-3000:]
    # Diagnostics stay JSON log lines: no raw traceback on stderr.
    for line in done.stderr.splitlines():
        assert isinstance(json.loads(line), dict), line[:300]
