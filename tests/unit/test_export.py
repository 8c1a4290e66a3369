"""Tool export: every format's shape, Ollama's flat schemas, purity, names, and the server round trip."""

from __future__ import annotations

import copy
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from zwave_mcp.answers import ToolResult
from zwave_mcp.commands.export import FORMATS, convert_tools, export_tools, export_tools_async, flatten_schema
from zwave_mcp.config import load_settings
from zwave_mcp.server.build import build_server
from zwave_mcp.server.executor import ToolExecutor, ToolSpec

FORBIDDEN_KEYS = {"$ref", "$defs", "definitions", "anyOf", "oneOf", "allOf"}
JSON_TYPES = {"string", "integer", "number", "boolean", "object", "array"}


# --- a toy server whose schemas have everything Ollama cannot take ----------------------------------


class Target(BaseModel):
    nodeId: int | None = Field(None, description="Z-Wave node id")
    name: str | None = None


class Step(BaseModel):
    """A scene step; steps nest, so the schema refers to itself."""

    target: Target
    then: list[Step] = []


class SceneArgs(BaseModel):
    deviceName: str = Field(description="the device's name, e.g. 'Kitchen Light'")
    action: Literal["on", "off", "dim"]
    mode: Literal["fast"] = "fast"
    level: int | None = Field(None, ge=0, le=100, description="brightness in percent")
    value: int | float | str | None = None
    target: Target | None = None
    targets: list[Target] = []
    steps: list[Step] = []
    title: str = Field("untitled", description="a parameter that happens to be called title")


class SceneResult(ToolResult):
    applied: int = 0


async def _scene(args: SceneArgs, ctx: Any) -> SceneResult:
    return SceneResult(summary="done")


class EmptyArgs(BaseModel):
    pass


async def _health(args: EmptyArgs, ctx: Any) -> SceneResult:
    return SceneResult(summary="ok")


def toy_server() -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer("export-test")
    executor = ToolExecutor()
    executor.register(
        server,
        ToolSpec(
            "run_scene",
            "Run a scene.",
            SceneArgs,
            SceneResult,
            _scene,
            mutating=True,
            annotations=ToolAnnotations(destructive_hint=False),
        ),
    )
    executor.register(
        server,
        ToolSpec(
            "check-health",
            "Is everything up?",
            EmptyArgs,
            SceneResult,
            _health,
            needs_gateway=False,
            annotations=ToolAnnotations(read_only_hint=True),
        ),
    )
    return server


@pytest.fixture(scope="module")
def mcp_tools() -> list[dict[str, Any]]:
    tools = export_tools(toy_server(), "mcp")
    # The fixture must really contain what the flattening has to remove, or the tests prove nothing.
    assert _find_forbidden(tools[0]["inputSchema"]), "toy schema lost its $ref/anyOf"
    return tools


# --- shape checks -----------------------------------------------------------------------------------


def _walk(node: Any, path: str = "$") -> Iterator[tuple[str, Any]]:
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{path}[{i}]")


def _schemas(schema: dict[str, Any], path: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every sub-schema of a flattened schema (properties are schemas, their names are not)."""
    yield path, schema
    for name, sub in schema.get("properties", {}).items():
        yield from _schemas(sub, f"{path}.properties.{name}")
    if isinstance(schema.get("items"), dict):
        yield from _schemas(schema["items"], f"{path}.items")


def _find_forbidden(schema: Any) -> list[str]:
    found = []
    for path, node in _walk(schema):
        if isinstance(node, dict):
            found += [f"{path}.{key}" for key in FORBIDDEN_KEYS & node.keys()]
    return found


def _check_parameters(parameters: Any) -> None:
    assert isinstance(parameters, dict)
    assert parameters["type"] == "object"
    assert isinstance(parameters["properties"], dict)
    assert set(parameters.get("required", [])) <= set(parameters["properties"])


def _check_shape(tool: dict[str, Any], fmt: str) -> None:
    if fmt == "mcp":
        assert {"name", "description", "inputSchema"} <= tool.keys()
        assert isinstance(tool["name"], str) and isinstance(tool["description"], str)
        _check_parameters(tool["inputSchema"])
    elif fmt == "anthropic":
        assert set(tool) == {"name", "description", "input_schema"}
        assert isinstance(tool["name"], str) and isinstance(tool["description"], str)
        _check_parameters(tool["input_schema"])
    else:
        assert set(tool) == {"type", "function"} and tool["type"] == "function"
        assert set(tool["function"]) == {"name", "description", "parameters"}
        assert isinstance(tool["function"]["name"], str) and isinstance(tool["function"]["description"], str)
        _check_parameters(tool["function"]["parameters"])


def _check_ollama_flat(tool: dict[str, Any]) -> None:
    parameters = tool["function"]["parameters"]
    assert _find_forbidden(parameters) == [], f"{tool['function']['name']}: {_find_forbidden(parameters)}"
    for path, schema in _schemas(parameters):
        kinds = schema.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        assert "null" not in kinds, path
        assert None not in schema.get("enum", []), path
        assert "default" not in schema or schema["default"] is not None, path
        assert "title" not in schema, path
        if "enum" not in schema:
            assert kinds and set(kinds) <= JSON_TYPES, f"{path} has no usable type: {schema}"


def _name(tool: dict[str, Any], fmt: str) -> str:
    return str(tool["function"]["name"] if fmt in ("openai", "ollama") else tool["name"])


# --- conversion -------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_tool_has_the_format_shape(mcp_tools: list[dict[str, Any]], fmt: str) -> None:
    converted = convert_tools(mcp_tools, fmt)
    assert [_name(t, fmt) for t in converted] == [t["name"] for t in mcp_tools]
    for tool in converted:
        _check_shape(tool, fmt)
        if fmt == "ollama":
            _check_ollama_flat(tool)


def test_mcp_format_keeps_annotations_and_output_schema(mcp_tools: list[dict[str, Any]]) -> None:
    scene = next(t for t in convert_tools(mcp_tools, "mcp") if t["name"] == "run_scene")
    assert scene["annotations"] == {"destructiveHint": False}
    assert scene["outputSchema"]["properties"]["success"]["type"] == "boolean"


def test_openai_and_anthropic_carry_the_schema_unchanged(mcp_tools: list[dict[str, Any]]) -> None:
    source = next(t for t in mcp_tools if t["name"] == "run_scene")
    openai = next(t for t in convert_tools(mcp_tools, "openai") if t["function"]["name"] == "run_scene")
    anthropic = next(t for t in convert_tools(mcp_tools, "anthropic") if t["name"] == "run_scene")
    assert openai["function"]["parameters"] == source["inputSchema"]
    assert anthropic["input_schema"] == source["inputSchema"]
    assert anthropic["description"] == openai["function"]["description"] == "Run a scene."


def test_ollama_flattening_keeps_meaning(mcp_tools: list[dict[str, Any]]) -> None:
    scene = next(t for t in convert_tools(mcp_tools, "ollama") if t["function"]["name"] == "run_scene")
    params = scene["function"]["parameters"]
    props = params["properties"]
    assert params["required"] == ["deviceName", "action"]
    assert props["action"] == {"type": "string", "enum": ["on", "off", "dim"]}
    assert props["mode"]["enum"] == ["fast"]  # a one-value Literal is a const in pydantic's schema
    # Optional[int] with bounds: the integer arm, its bounds, and the range in words Ollama keeps.
    assert props["level"]["type"] == "integer"
    assert (props["level"]["minimum"], props["level"]["maximum"]) == (0, 100)
    assert props["level"]["description"].startswith("brightness in percent")
    assert "0 to 100" in props["level"]["description"]
    # int | float | str: integer folds into number.
    assert props["value"]["type"] == ["number", "string"]
    # $ref inlined, and its Optional fields unwrapped.
    assert props["target"]["type"] == "object"
    assert props["target"]["properties"]["nodeId"] == {"type": "integer", "description": "Z-Wave node id"}
    assert props["targets"]["items"]["properties"]["name"] == {"type": "string"}
    # The self-referencing model ends in a plain object instead of recursing forever.
    step = props["steps"]["items"]
    assert step["properties"]["target"]["type"] == "object"
    assert step["properties"]["then"]["items"]["type"] == "object"
    # A property named "title" is a parameter, not schema noise.
    assert props["title"]["type"] == "string"


def test_flatten_handles_hand_written_unions() -> None:
    schema = {
        "type": "object",
        "title": "Args",
        "properties": {
            "mode": {"oneOf": [{"const": "a"}, {"const": "b"}, {"type": "null"}]},
            "pick": {
                "anyOf": [
                    {"type": "integer", "minimum": 1, "maximum": 5},
                    {"type": "array", "items": {"type": "string"}},
                ]
            },
            "both": {
                "allOf": [
                    {"$ref": "#/definitions/A"},
                    {"properties": {"y": {"type": "string"}}, "required": ["y"]},
                ]
            },
            "kinds": {"type": ["string", "null"], "enum": ["x", None], "default": None},
            "nothing": {"type": "null"},
            "either": {"anyOf": [{"type": "integer"}, {"type": "string"}], "description": "a level"},
        },
        "definitions": {"A": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}},
    }
    flat = flatten_schema(schema)
    props = flat["properties"]
    assert props["mode"]["enum"] == ["a", "b"] and "null" not in str(props["mode"].get("type"))
    assert props["pick"]["type"] == ["integer", "array"]
    assert props["pick"]["items"] == {"type": "string"}
    assert "integer 1-5" in props["pick"]["description"]
    assert props["both"]["properties"].keys() == {"x", "y"} and props["both"]["required"] == ["x", "y"]
    assert props["kinds"] == {"type": "string", "enum": ["x"]}
    assert "type" not in props["nothing"]
    assert props["either"] == {
        "type": ["integer", "string"],
        "description": "a level. Accepts integer or string.",
    }
    assert _find_forbidden(flat) == [] and "title" not in flat


def test_source_list_is_not_mutated(mcp_tools: list[dict[str, Any]]) -> None:
    before = copy.deepcopy(mcp_tools)
    for fmt in FORMATS:
        converted = convert_tools(mcp_tools, fmt)
        # Changing the output must not reach back into the source either (no shared sub-objects).
        for path, node in _walk(converted):
            if isinstance(node, dict):
                node["poisoned"] = path
    assert mcp_tools == before


@pytest.mark.parametrize("fmt", FORMATS)
def test_empty_list_gives_empty_list(fmt: str) -> None:
    assert convert_tools([], fmt) == []


def test_debug_line_counts_the_tools(
    mcp_tools: list[dict[str, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="zwave_mcp.commands.export"):
        convert_tools(mcp_tools, "ollama")
    records = [r for r in caplog.records if r.name == "zwave_mcp.commands.export"]
    assert records and records[-1].levelno == logging.DEBUG
    assert getattr(records[-1], "count", None) == len(mcp_tools)
    assert f"{len(mcp_tools)} tools" in records[-1].getMessage()


@pytest.mark.parametrize("bad", ["has space", "", "x" * 65, "dots.are.out", "ünïcode", None, 7])
def test_bad_names_are_refused_by_name(bad: Any) -> None:
    tools = [{"name": "fine_tool", "inputSchema": {"type": "object"}}, {"name": bad, "inputSchema": {}}]
    with pytest.raises(ValueError) as excinfo:
        convert_tools(tools, "openai")
    assert repr(bad) in str(excinfo.value)


def test_names_at_the_limits_are_accepted() -> None:
    names = ["a", "x" * 64, "A-b_9"]
    converted = convert_tools([{"name": n} for n in names], "anthropic")
    assert [t["name"] for t in converted] == names
    assert all(t["input_schema"] == {"type": "object", "properties": {}} for t in converted)


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="gemini"):
        convert_tools([], "gemini")


# --- from a server ----------------------------------------------------------------------------------


async def test_async_export_matches_the_server_list() -> None:
    server = toy_server()
    listed = await server.list_tools()
    exported = await export_tools_async(server, "anthropic")
    assert [t["name"] for t in exported] == [t.name for t in listed]


# --- the real server --------------------------------------------------------------------------------


def _real_server() -> MCPServer[Any]:
    return build_server(load_settings(environ={}))


@pytest.mark.parametrize("fmt", FORMATS)
def test_real_tool_list_in_every_format(fmt: str) -> None:
    exported = export_tools(_real_server(), fmt)
    names = {_name(tool, fmt) for tool in exported}
    assert {"list_zwave_devices", "control_zwave_device", "check_zwave_health"} <= names, names
    for tool in exported:
        _check_shape(tool, fmt)
        if fmt == "ollama":
            _check_ollama_flat(tool)


DEFAULT_TOOLS_TOKEN_BUDGET = 5_500
CHARS_PER_TOKEN = 4  # the usual estimate for English text; no tokenizer is available offline


def test_the_default_tool_list_fits_the_model_facing_budget() -> None:
    """What a model reads of the default tool list (name, description and input schema, as the Anthropic
    format carries them, in compact JSON) stays within 5,500 tokens: abilities added later go into
    existing tools or the admin set (issue 45). Admin tools are not listed by default."""
    exported = export_tools(_real_server(), "anthropic")
    chars = len(json.dumps(exported, separators=(",", ":"), ensure_ascii=False))
    tokens = chars / CHARS_PER_TOKEN
    assert tokens <= DEFAULT_TOOLS_TOKEN_BUDGET, (
        f"the default tool list is about {tokens:,.0f} tokens ({chars:,} characters), over the "
        f"{DEFAULT_TOOLS_TOKEN_BUDGET:,} budget"
    )
    assert not any("firmware" in tool["name"] or "association" in tool["name"] for tool in exported)


def _zwave_mcp_command() -> list[str]:
    """The installed console script when there is one (what users run), else the module."""
    script = Path(sys.executable).with_name("zwave-mcp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "zwave_mcp"]


def test_cli_prints_ollama_tools_as_json_only(tmp_path: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "ZWAVE_MCP_LOG_LEVEL": "debug"}
    done = subprocess.run(
        [*_zwave_mcp_command(), "tools", "--format", "ollama"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    tools = json.loads(done.stdout)  # stdout is the JSON and nothing else
    assert tools and isinstance(tools, list)
    for tool in tools:
        _check_shape(tool, "ollama")
        _check_ollama_flat(tool)
    assert f"converted {len(tools)} tools" in done.stderr
