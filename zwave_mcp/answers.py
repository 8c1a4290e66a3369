"""The shapes every answer shares and the small words they are said with, below the MCP surface so that
every room (history, devices, policy, the tools, `zwave-mcp explain`) says "a, b and c" the same way.

`ToolResult` is the base of every tool's result: `summary` is one plain sentence a voice assistant can speak.

`AnyJson`: a field that may hold any JSON value (a device's value, an MQTT payload), typed for clients.

At run time it is `Any`: nothing is validated or converted, so answers stay exactly as they were. In an
output schema it is `{"$ref": "#/$defs/JsonValue"}`, one definition per schema whose `anyOf` names each
JSON type (boolean, integer, number, string, array and object of JSON values, null), so a client that
checks schemas sees a type on every field instead of a schema that accepts anything (the MCP Inspector
calls that an "untyped schema"; a `type` array would be its "type union", less portable).
"""

from __future__ import annotations

import functools
from typing import Annotated, Any

from pydantic import BaseModel, GetJsonSchemaHandler, TypeAdapter
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema
from typing_extensions import TypeAliasType

JsonValue = TypeAliasType(
    "JsonValue", "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"
)


@functools.cache
def _json_value_core_schema() -> CoreSchema:
    adapter: TypeAdapter[Any] = TypeAdapter(JsonValue)
    return adapter.core_schema


class _TypedAsJsonValue:
    """Gives `Any` the JSON schema of `JsonValue`; built only when a schema is asked for."""

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return handler(_json_value_core_schema())


AnyJson = Annotated[Any, _TypedAsJsonValue]


class ToolResult(BaseModel):
    """Base of every tool's result: `summary` is one plain sentence a voice assistant can speak."""

    summary: str


def and_list(items: list[str], most: int | None = None, last: str = "and") -> str:
    """ "a", "a and b", "a, b and c" ("a, b or c" with `last="or"`); past `most` items the rest is said
    as "N more"."""
    if most is not None and len(items) > most:
        items = [*items[:most], f"{len(items) - most} more"]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
