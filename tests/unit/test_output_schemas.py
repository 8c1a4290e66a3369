"""Every field of every tool's outputSchema has a type a client can check.

The MCP Inspector 2.12 CLI warns ("Schema portability") about a schema that carries no validation keyword
(it accepts anything: a device's `value`, an MQTT `payload` were such) and about a `type` array (less
portable than `anyOf` branches). This walks every subschema of every tool's outputSchema, with the admin
tools on and off, the way that check does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from zwave_mcp.answers import AnyJson
from zwave_mcp.commands.export import export_tools_async
from zwave_mcp.config import load_settings
from zwave_mcp.server.build import build_server
from zwave_mcp.server.tools import PUBLIC, admin_tools

TYPED_BY = {"type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"}
MAP_KEYWORDS = ("properties", "$defs", "definitions", "patternProperties")
ARRAY_KEYWORDS = ("anyOf", "oneOf", "allOf", "prefixItems")
ONE_KEYWORDS = ("items", "additionalProperties", "not", "contains")


def subschemas(node: Any, path: str) -> Iterator[tuple[str, Any]]:
    """(path, schema) for `node` and every schema inside it."""
    yield path, node
    if not isinstance(node, dict):
        return
    for key in MAP_KEYWORDS:
        for name, sub in (node.get(key) or {}).items():
            yield from subschemas(sub, f"{path}.{key}.{name}")
    for key in ARRAY_KEYWORDS:
        for index, sub in enumerate(node.get(key) or []):
            yield from subschemas(sub, f"{path}.{key}[{index}]")
    for key in ONE_KEYWORDS:
        if isinstance(node.get(key), dict):
            yield from subschemas(node[key], f"{path}.{key}")


def untyped(schema: dict[str, Any]) -> list[str]:
    """The paths of subschemas that accept any value, or type with a list."""
    found = []
    for path, node in subschemas(schema, "outputSchema"):
        if not isinstance(node, dict):
            continue  # `additionalProperties: true` and the like are keywords' values, not field schemas
        if not TYPED_BY & node.keys():
            found.append(f"{path}: no type")
        elif isinstance(node.get("type"), list):
            found.append(f"{path}: a type list {node['type']} (use anyOf)")
    return found


@pytest.mark.parametrize("admin", [False, True], ids=["default", "admin"])
async def test_every_output_schema_field_has_a_type(admin: bool) -> None:
    settings = load_settings(environ={"ZWAVE_MCP_ADMIN": "true"} if admin else {})
    tools = await export_tools_async(build_server(settings), "mcp")
    registered = [spec.name for spec in [*PUBLIC, *(admin_tools() if admin else [])]]
    assert [t["name"] for t in tools] == registered
    problems = [f"{tool['name']}: {p}" for tool in tools for p in untyped(tool.get("outputSchema") or {})]
    assert problems == [], "\n".join(problems)
    with_values = [t["name"] for t in tools if "JsonValue" in (t.get("outputSchema") or {}).get("$defs", {})]
    assert "get_device_state" in with_values and "control_zwave_device" in with_values, with_values


def test_the_walk_finds_an_untyped_field_and_a_type_list() -> None:
    schema = {
        "type": "object",
        "properties": {
            "ok": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "value": {"default": None, "title": "Value"},
            "items": {"type": "array", "items": {}},
            "both": {"type": ["string", "null"]},
        },
    }
    assert untyped(schema) == [
        "outputSchema.properties.value: no type",
        "outputSchema.properties.items.items: no type",
        "outputSchema.properties.both: a type list ['string', 'null'] (use anyOf)",
    ]


def test_any_json_stays_any_at_run_time() -> None:
    """Typing the schema changes no answer: the value is neither validated nor converted."""
    from pydantic import BaseModel

    class Holder(BaseModel):
        value: AnyJson = None

    for value in (True, 1, 1.0, "on", [1, [2.5]], {"r": 255}, None, (1, 2)):
        assert Holder(value=value).value is value
    assert Holder(value=1.0).model_dump_json() == '{"value":1.0}'
    assert Holder.model_json_schema()["properties"]["value"]["$ref"] == "#/$defs/JsonValue"
