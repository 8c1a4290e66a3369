"""The executor on a toy tool, driven through the SDK's in-process client as a real client would."""

from typing import Literal

import anyio
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from zwave_mcp.answers import ToolResult
from zwave_mcp.errors import UserError
from zwave_mcp.server.executor import ToolExecutor, ToolSpec, normalize_arguments, sdk_reading


class LampArgs(BaseModel):
    deviceName: str = Field(description="the device's name, e.g. 'Kitchen Light'")
    action: Literal["on", "off"]
    level: int | None = Field(None, ge=0, le=100)
    includeInactive: bool = False
    room: str | None = None


class LampResult(ToolResult):
    device: str
    level: int | None = None


async def lamp(args: LampArgs, ctx) -> LampResult:
    if args.deviceName == "broken":
        raise RuntimeError("boom")
    if args.deviceName == "missing":
        raise UserError("No device named 'missing'.")
    if args.deviceName == "slow":
        await anyio.sleep(5)
    where = f" in room {args.room!r}" if args.room is not None else ""
    return LampResult(
        summary=f"{args.deviceName}{where} is {args.action}.", device=args.deviceName, level=args.level
    )


def make_server(**executor_kwargs) -> MCPServer:
    server = MCPServer("test")
    executor = ToolExecutor(**executor_kwargs)
    executor.register(server, ToolSpec("lamp", "Switch a lamp.", LampArgs, LampResult, lamp, mutating=True))
    return server


async def call(server: MCPServer, name: str, arguments: dict):
    async with Client(server) as client:
        return await client.call_tool(name, arguments)


def test_normalize_aliases_and_ignores_extras():
    args, rewrites, ignored = normalize_arguments(
        {"device_name": "Lamp", "command": "on", "include_inactive": True, "bogus": 1},
        {"deviceName", "action", "includeInactive"},
    )
    assert args == {"deviceName": "Lamp", "action": "on", "includeInactive": True}
    assert rewrites == {
        "device_name": "deviceName",
        "command": "action",
        "include_inactive": "includeInactive",
    }
    assert ignored == ["bogus"]


def test_canonical_name_wins_over_alias():
    args, _, ignored = normalize_arguments({"deviceName": "A", "device_name": "B"}, {"deviceName"})
    assert args == {"deviceName": "A"} and ignored == ["device_name"]


def test_target_is_the_target_device_where_a_tool_has_no_target():
    """change_zwave_association's `targetDevice` sent as `target` (control_zwave_group's word) was dropped,
    and the call refused with "Say which device it should control"."""
    args, rewrites, _ = normalize_arguments(
        {"deviceName": "garage motion", "target": "kitchen light"}, {"deviceName", "targetDevice"}
    )
    assert args == {"deviceName": "garage motion", "targetDevice": "kitchen light"}
    assert rewrites == {"target": "targetDevice"}
    # A tool whose own argument is `target` keeps it.
    args, rewrites, _ = normalize_arguments({"target": "lights"}, {"target", "action"})
    assert args == {"target": "lights"} and rewrites == {}


async def test_success_envelope_and_spoken_sentence():
    result = await call(make_server(), "lamp", {"device_name": "Lamp", "command": "on", "level": 30})
    assert not result.is_error
    assert result.content[0].text == "Lamp is on."
    envelope = result.structured_content
    assert envelope["success"] is True and envelope["tool_name"] == "lamp"
    assert envelope["result"] == {"summary": "Lamp is on.", "device": "Lamp", "level": 30}
    assert isinstance(envelope["execution_time_ms"], float)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"action": "on"},
            "Missing required parameter 'deviceName': a string (the device's name, e.g. 'Kitchen Light').",
        ),
        (
            {"deviceName": "x", "action": "explode"},
            "Parameter 'action' must be one of: on, off (got 'explode').",
        ),
        (
            {"deviceName": "x", "action": "on", "level": 150},
            "Parameter 'level' must be between 0 and 100 (got 150).",
        ),
        (
            {"deviceName": "x", "action": "on", "level": "bright"},
            "Parameter 'level' must be an integer (got 'bright').",
        ),
    ],
)
async def test_validation_messages_name_parameter_and_allowed_values(arguments, message):
    result = await call(make_server(), "lamp", arguments)
    assert result.is_error
    assert result.content[0].text == message
    assert result.structured_content["success"] is False
    assert result.structured_content["error"] == message


@pytest.mark.parametrize("given", [[1] * 100_000, 10**4000, {"k" * 100_000: 1}])
async def test_a_huge_wrong_value_is_not_echoed_whole(given):
    """The message quotes what was given; a value of any size used to be quoted whole."""
    result = await call(make_server(), "lamp", {"deviceName": given, "action": "on"})
    assert result.is_error and len(result.content[0].text) < 300, result.content[0].text[:300]
    assert result.content[0].text.startswith("Parameter 'deviceName' must be a string (got ")


async def test_an_unknown_tool_name_is_quoted_short_and_plain():
    result = await call(make_server(), "x" * 100_000 + "\u202e\n", {})
    assert result.is_error and len(result.content[0].text) < 200, result.content[0].text[:200]
    assert "\u202e" not in result.content[0].text and "\n" not in result.content[0].text


async def test_unknown_tool_lists_the_tools_that_exist():
    result = await call(make_server(), "explode", {})
    assert result.is_error
    assert result.content[0].text == "Unknown tool 'explode'. Available tools: lamp."


async def test_user_error_is_passed_through_and_crash_is_readable():
    missing = await call(make_server(), "lamp", {"deviceName": "missing", "action": "on"})
    assert missing.content[0].text == "No device named 'missing'."
    crashed = await call(make_server(), "lamp", {"deviceName": "broken", "action": "on"})
    assert crashed.is_error
    assert (
        crashed.content[0].text
        == "lamp failed unexpectedly (RuntimeError); the details are in the server log."
    )


async def test_timeout_cancels_and_says_so():
    result = await call(make_server(timeout_s=0.2), "lamp", {"deviceName": "slow", "action": "on"})
    assert result.is_error
    assert (
        result.content[0].text == "lamp took longer than 0.2 s and was cancelled; nothing more will be done."
    )
    assert result.structured_content["execution_time_ms"] < 2000


async def test_unavailable_gateway_is_reported_not_raised():
    server = make_server(unavailable=lambda: "cannot reach the MQTT broker at 127.0.0.1:1")
    result = await call(server, "lamp", {"deviceName": "x", "action": "on"})
    assert result.content[0].text == "Z-Wave service unavailable: cannot reach the MQTT broker at 127.0.0.1:1"


async def test_read_only_hides_and_refuses_mutating_tools():
    server = make_server(read_only=True)
    async with Client(server) as client:
        listed = await client.list_tools()
        assert [t.name for t in listed.tools] == []
        result = await client.call_tool("lamp", {"deviceName": "x", "action": "on"})
    assert result.is_error
    assert "read-only mode" in result.content[0].text


async def test_slow_call_logs_a_warning(caplog):
    server = make_server(slow_call_ms=0.0001)
    with caplog.at_level("INFO", logger="zwave_mcp.server.executor"):
        await call(server, "lamp", {"deviceName": "Lamp", "action": "on", "password": "zz"})
    warnings = [r for r in caplog.records if r.getMessage() == "slow tool call"]
    assert warnings and warnings[0].tool == "lamp" and warnings[0].outcome == "ok"


async def test_a_question_ends_the_call_as_input_required_and_the_retry_answers_it():
    """On 2026-07-28 a tool that asks raises `InputRequired`; the client answers and calls again."""
    from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult

    from zwave_mcp.server.asking import InputRequired

    async def asking(args: LampArgs, ctx) -> LampResult:
        answer = (ctx.input_responses or {}).get("q")
        if answer is None:
            question = ElicitRequest(
                params=ElicitRequestFormParams(
                    message="Really?", requested_schema={"type": "object", "properties": {}}
                )
            )
            raise InputRequired(InputRequiredResult(input_requests={"q": question}, request_state="pending"))
        assert ctx.request_state == "pending"  # the SDK sealed it on the way out and opened it on the way in
        return LampResult(summary=f"{args.deviceName}: {answer.action}.", device=args.deviceName)

    asked: list[str] = []

    async def person(_context, params) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="decline")

    server = MCPServer("test")
    executor = ToolExecutor()
    executor.register(server, ToolSpec("lamp", "Switch a lamp.", LampArgs, LampResult, asking))
    async with Client(server, elicitation_callback=person) as client:
        reply = await client.call_tool("lamp", {"deviceName": "Lamp", "action": "on"})
    assert asked == ["Really?"]
    assert not reply.is_error and reply.content[0].text == "Lamp: decline."


async def test_json_text_in_a_text_parameter_is_text_or_refused_in_our_words():
    """The SDK reads JSON text in a string before it validates: 'null' still reaches the tool as the text it
    was, and an array, which the SDK would refuse with pydantic's message, gets ours."""
    said_null = await call(make_server(), "lamp", {"deviceName": "Lamp", "action": "on", "room": "null"})
    assert not said_null.is_error and said_null.content[0].text == "Lamp in room 'null' is on."
    listed = await call(make_server(), "lamp", {"deviceName": "Lamp", "action": "on", "room": '["hall"]'})
    assert listed.is_error
    assert listed.content[0].text == "Parameter 'room' must be a string (got ['hall'])."
    assert listed.structured_content == {
        "success": False,
        "tool_name": "lamp",
        "execution_time_ms": listed.structured_content["execution_time_ms"],
        "result": None,
        "error": "Parameter 'room' must be a string (got ['hall']).",
    }


async def test_the_log_line_quotes_the_arguments_as_asked_not_the_sdks_defaults(caplog):
    with caplog.at_level("INFO", logger="zwave_mcp.server.executor"):
        await call(make_server(), "lamp", {"device_name": "Lamp", "command": "on", "bogus": 1})
    (line,) = [r for r in caplog.records if r.getMessage() == "tool call"]
    assert line.arguments == {"deviceName": "Lamp", "action": "on"} and line.outcome == "ok"


@pytest.mark.parametrize(
    "value",
    ["null", "[1, 2]", ' {"r": 1} ', "5", "2.5", "true", '"quoted"', "text", "[", "1e400", "[" * 5000],
)
def test_sdk_reading_is_the_sdks_own_reading(value):
    """`sdk_reading` predicts what the SDK's call path does to a string before it validates; a new SDK that
    reads differently fails here (make test-newest-mcp)."""
    from mcp.server.mcpserver.tools.base import Tool

    spec = ToolSpec("lamp", "Switch a lamp.", LampArgs, LampResult, lamp)
    tool = Tool.from_function(ToolExecutor()._sdk_function(spec), name="lamp", structured_output=True)
    arguments = {"deviceName": value, "action": "on", "level": value, "room": value}
    assert sdk_reading(arguments, spec.json_read_fields) == tool.fn_metadata.pre_parse_json(arguments)
