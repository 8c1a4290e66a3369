"""Tool definitions for other clients: MCP, OpenAI chat-completions, Ollama / Qwen, Anthropic.

`convert_tools` is pure: it deep-copies what it needs and never touches its input. Ollama gets flattened
schemas because its client keeps only a small JSON-schema subset (type, description, enum, items,
properties, required): a `$ref`, an `anyOf` or a `null` type silently disappears there, and the model then
sees a parameter without a type.
"""

from __future__ import annotations

import copy
import json
import logging
import re
from collections.abc import Mapping
from typing import Any, Literal, get_args

import anyio
from mcp.server.mcpserver import MCPServer

log = logging.getLogger(__name__)

ExportFormat = Literal["mcp", "openai", "ollama", "anthropic"]
FORMATS: tuple[str, ...] = get_args(ExportFormat)

# What OpenAI and Anthropic accept for function names; Ollama passes names through to the same models.
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")

SCALAR_TYPES = ("string", "integer", "number", "boolean")
# Schema keywords whose value is a map of name → schema, a schema, or a list of schemas.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_ONE = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else")
_SCHEMA_LISTS = ("prefixItems",)
_UNIONS = ("anyOf", "oneOf")


# --- public API -------------------------------------------------------------------------------------


def convert_tools(tools: list[dict[str, Any]], fmt: str) -> list[dict[str, Any]]:
    """MCP tool dicts (as `tools/list` serves them) → the tool definitions `fmt` expects.

    Raises ValueError for an unknown format or a tool whose name the target APIs would reject.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown tool format {fmt!r}; use one of: {', '.join(FORMATS)}")
    converted = [_convert_one(tool, fmt) for tool in tools]
    log.debug("converted %d tools to %s format", len(converted), fmt, extra={"count": len(converted)})
    return converted


async def export_tools_async(server: MCPServer[Any], fmt: str) -> list[dict[str, Any]]:
    """The server's current tool list in `fmt`, for callers already inside an event loop."""
    listed = await server.list_tools()
    dumped = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed]
    return convert_tools(dumped, fmt)


def export_tools(server: MCPServer[Any], fmt: str) -> list[dict[str, Any]]:
    """The server's current tool list in `fmt`, from synchronous code (the CLI)."""
    return anyio.run(export_tools_async, server, fmt)


# --- one tool ---------------------------------------------------------------------------------------


def _convert_one(tool: Mapping[str, Any], fmt: str) -> dict[str, Any]:
    name = tool.get("name")
    if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
        raise ValueError(
            f"tool name {name!r} is not usable by other clients: it must be 1-64 letters, digits, _ or -"
        )
    description = str(tool.get("description") or tool.get("title") or "")
    schema = tool.get("inputSchema")
    parameters: dict[str, Any] = copy.deepcopy(dict(schema)) if isinstance(schema, Mapping) else {}
    parameters.setdefault("type", "object")
    parameters.setdefault("properties", {})

    if fmt == "mcp":
        return {**copy.deepcopy(dict(tool)), "description": description, "inputSchema": parameters}
    if fmt == "anthropic":
        return {"name": name, "description": description, "input_schema": parameters}
    if fmt == "ollama":
        parameters = flatten_schema(parameters)
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


# --- flattening for Ollama --------------------------------------------------------------------------


def flatten_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `schema` with every `$ref` inlined and every union or null type collapsed.

    Optional[X] becomes X (and `"default": null` goes); a union of scalar types becomes a type list;
    other unions keep the common ground and say what they accept in the description. `title`s go: they
    are pydantic's echo of the field name and only cost the model tokens.
    """
    defs: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        found = schema.get(key)
        if isinstance(found, Mapping):
            defs.update({f"#/{key}/{name}": sub for name, sub in found.items()})
    flat = _flatten(schema, defs, ())
    if flat.get("type") != "object":
        flat = {**_any_object(), "description": flat.get("description", "")}
    flat.setdefault("properties", {})
    return flat


def _any_object() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


def _flatten(node: Any, defs: Mapping[str, Any], seen: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(node, Mapping):
        # `true` (anything) or `false` as a schema: the nearest thing Ollama understands is a string.
        return {"type": "string"}
    node = dict(node)
    ref = node.pop("$ref", None)
    if isinstance(ref, str):
        # A recursive model (or a dangling reference) cannot be inlined forever: accept any object.
        cyclic = ref in seen or ref not in defs
        target = _any_object() if cyclic else _flatten(defs[ref], defs, (*seen, ref))
        # Keywords beside a $ref (a field's description, default) describe this use of it: they win.
        node = {**target, **node}

    if "allOf" in node:
        arms = node.pop("allOf")
        flat_arms = [_flatten(arm, defs, seen) for arm in arms] if isinstance(arms, list) else []
        node = _merge_all([*flat_arms, node])
    for key in _UNIONS:
        if key in node:
            arms = node.pop(key)
            real = [arm for arm in arms if not _is_null(arm)] if isinstance(arms, list) else []
            merged, note = _collapse_union([_flatten(arm, defs, seen) for arm in real])
            # The outer node's own keywords (description, default) describe the field: they win.
            node = {**merged, **node}
            if note:
                node["description"] = _add_sentence(str(node.get("description") or ""), note)

    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("$defs", "definitions", "title", "$schema"):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            out[key] = {name: _flatten(sub, defs, seen) for name, sub in value.items()}
        elif key in _SCHEMA_ONE and isinstance(value, Mapping):
            out[key] = _flatten(value, defs, seen)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_flatten(sub, defs, seen) for sub in value]
        else:
            out[key] = copy.deepcopy(value)
    return _drop_null(out)


def _drop_null(node: dict[str, Any]) -> dict[str, Any]:
    """No `null` left in `type`, `enum` or `default`; a single `const` becomes a one-value enum."""
    kind = node.get("type")
    if isinstance(kind, list) or kind == "null":
        kinds = [k for k in (kind if isinstance(kind, list) else [kind]) if k != "null"]
        if kinds:
            node["type"] = _one_or_list(kinds)
        else:
            node.pop("type")
    if "const" in node:
        const = node.pop("const")
        if const is not None:
            node.setdefault("enum", [const])
    if isinstance(node.get("enum"), list):
        node["enum"] = [v for v in node["enum"] if v is not None]
        if not node["enum"]:
            node.pop("enum")
    if "default" in node and node["default"] is None:
        node.pop("default")
    return _note_limits(node)


def _note_limits(node: dict[str, Any]) -> dict[str, Any]:
    """Ollama keeps only type, description, enum, items and properties: say a range or default in words."""
    notes = []
    low, high = node.get("minimum"), node.get("maximum")
    if low is not None and high is not None:
        notes.append(f"Range {low} to {high}.")
    elif low is not None or high is not None:
        notes.append(f"At least {low}." if low is not None else f"At most {high}.")
    if "default" in node and isinstance(node["default"], (str, int, float, bool)):
        notes.append(f"Default {json.dumps(node['default'])}.")
    text = " ".join(notes)
    described = str(node.get("description") or "")
    # A union arm is flattened before it merges into its field: note each limit once.
    if text and text not in described:
        node["description"] = f"{described.rstrip()} ({text})" if described else text
    return node


def _add_sentence(text: str, sentence: str) -> str:
    text = text.rstrip()
    if not text:
        return sentence
    return f"{text} {sentence}" if text.endswith((".", "!", "?", ")")) else f"{text}. {sentence}"


def _one_or_list(kinds: list[str]) -> str | list[str]:
    return kinds[0] if len(kinds) == 1 else kinds


def _is_null(arm: Any) -> bool:
    if not isinstance(arm, Mapping):
        return False
    return arm.get("type") == "null" or arm.get("enum") == [None] or ("const" in arm and arm["const"] is None)


def _collapse_union(real: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """The non-null arms of an anyOf / oneOf → one schema Ollama can keep, and a note on what it accepts."""
    if not real:
        return {}, ""
    if len(real) == 1:
        return real[0], ""
    kinds: list[str] = []
    for arm in real:
        arm_kinds = arm.get("type", [])
        for kind in arm_kinds if isinstance(arm_kinds, list) else [arm_kinds]:
            if kind not in kinds:
                kinds.append(kind)
    if "integer" in kinds and "number" in kinds:
        kinds.remove("integer")  # every integer is a number
    merged: dict[str, Any] = {"type": _one_or_list(kinds) if kinds else "string"}
    enums = [arm.get("enum") for arm in real]
    if all(isinstance(e, list) for e in enums):
        merged["enum"] = list(dict.fromkeys(v for e in enums for v in e or []))
    # Structured arms: keep the one array's items and the one object's properties, so a model still
    # sees their shape; two of either cannot be told apart in this subset of JSON schema.
    for kind, keys in (("array", ("items",)), ("object", ("properties", "required"))):
        shaped = [arm for arm in real if arm.get("type") == kind]
        if len(shaped) == 1:
            merged.update({k: shaped[0][k] for k in keys if k in shaped[0]})
    note = ""
    if not set(kinds) <= set(SCALAR_TYPES) or "enum" not in merged:
        note = "Accepts " + " or ".join(dict.fromkeys(_describe_arm(arm) for arm in real)) + "."
    return merged, note


def _describe_arm(arm: Mapping[str, Any]) -> str:
    if isinstance(arm.get("enum"), list):
        return "one of " + ", ".join(map(str, arm["enum"]))
    kind = arm.get("type", "a value")
    text = "/".join(kind) if isinstance(kind, list) else str(kind)
    low, high = arm.get("minimum"), arm.get("maximum")
    if low is not None and high is not None:
        text += f" {low}-{high}"
    if arm.get("description"):
        text += f" ({arm['description']})"
    return text


def _merge_all(arms: list[dict[str, Any]]) -> dict[str, Any]:
    """allOf → one schema: properties and required lists are joined, other keywords: later wins."""
    merged: dict[str, Any] = {}
    for arm in arms:
        for key, value in arm.items():
            if key == "properties" and isinstance(value, Mapping):
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required" and isinstance(value, list):
                merged["required"] = list(dict.fromkeys([*merged.get("required", []), *value]))
            else:
                merged[key] = value
    return merged
