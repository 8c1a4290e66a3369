"""Check server.json as the MCP registry will: its schema of 2025-12-11, then the official registry's rules.

    python .ci/check_server_json.py [server.json]      (exit 0 when it passes; else one line per problem)

The registry publishes the schema at static.modelcontextprotocol.io, which this machine and CI cannot reach,
and no npm or PyPI package carries it. So SCHEMA below is written here from the published schema as read
(its ServerDetail, Package, KeyValueInput/Input, Argument and transport definitions; the 2025-12-11 release
added only URL variables for remotes, which server.json does not use): every constraint it places on the
fields a server.json may hold, none left out, nothing added. REGISTRY_RULES are what the official registry
checks on top (docs/reference/server-json/official-registry-requirements.md): packages from the public
registries only, an OCI image named with its tag. Needs jsonschema (the test extra has it).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "description": {"type": "string"},
        "isRequired": {"type": "boolean"},
        "format": {"enum": ["string", "number", "boolean", "filepath"]},
        "value": {"type": "string"},
        "isSecret": {"type": "boolean"},
        "default": {"type": "string"},
        "placeholder": {"type": "string"},
        "choices": {"type": "array", "items": {"type": "string"}},
    },
}
WITH_VARIABLES: dict[str, Any] = {
    "allOf": [
        INPUT,
        {"properties": {"variables": {"type": "object", "additionalProperties": INPUT}}},
    ]
}
KEY_VALUE = {"allOf": [WITH_VARIABLES, {"required": ["name"], "properties": {"name": {"type": "string"}}}]}
ARGUMENT = {
    "anyOf": [
        {  # positional: a value, or a hint naming one
            "allOf": [WITH_VARIABLES],
            "required": ["type"],
            "properties": {
                "type": {"enum": ["positional"]},
                "valueHint": {"type": "string"},
                "isRepeated": {"type": "boolean"},
            },
            "anyOf": [{"required": ["valueHint"]}, {"required": ["value"]}],
        },
        {  # named: --flag {value}
            "allOf": [WITH_VARIABLES],
            "required": ["type", "name"],
            "properties": {
                "type": {"enum": ["named"]},
                "name": {"type": "string"},
                "isRepeated": {"type": "boolean"},
            },
        },
    ]
}
HEADERS = {"type": "array", "items": KEY_VALUE}
HTTP_URL = {"type": "string", "pattern": r"^https?://[^\s]+$"}
TRANSPORT = {
    "anyOf": [
        {"type": "object", "required": ["type"], "properties": {"type": {"enum": ["stdio"]}}},
        {
            "type": "object",
            "required": ["type", "url"],
            "properties": {"type": {"enum": ["streamable-http", "sse"]}, "url": HTTP_URL, "headers": HEADERS},
        },
    ]
}
PACKAGE = {
    "type": "object",
    "required": ["registryType", "identifier", "transport"],
    "properties": {
        "registryType": {"type": "string"},
        "registryBaseUrl": {"type": "string", "format": "uri"},
        "identifier": {"type": "string"},
        "version": {"type": "string", "minLength": 1, "maxLength": 255, "not": {"const": "latest"}},
        "fileSha256": {"type": "string", "pattern": "^[a-f0-9]{64}$"},
        "runtimeHint": {"type": "string"},
        "transport": TRANSPORT,
        "runtimeArguments": {"type": "array", "items": ARGUMENT},
        "packageArguments": {"type": "array", "items": ARGUMENT},
        "environmentVariables": {"type": "array", "items": KEY_VALUE},
    },
}
SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["name", "description", "version"],
    "properties": {
        "$schema": {"type": "string", "format": "uri"},
        "name": {
            "type": "string",
            "minLength": 3,
            "maxLength": 200,
            "pattern": r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$",
        },
        "title": {"type": "string", "minLength": 1, "maxLength": 100},
        "description": {"type": "string", "minLength": 1, "maxLength": 100},
        "version": {"type": "string", "maxLength": 255},
        "websiteUrl": {"type": "string", "format": "uri"},
        "repository": {
            "type": "object",
            "required": ["url", "source"],
            "properties": {f: {"type": "string"} for f in ("source", "id", "subfolder")}
            | {"url": {"type": "string", "format": "uri"}},
        },
        "icons": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["src"],
                "properties": {
                    "src": {"type": "string", "format": "uri", "maxLength": 255},
                    "mimeType": {
                        "enum": ["image/png", "image/jpeg", "image/jpg", "image/svg+xml", "image/webp"]
                    },
                    "sizes": {"type": "array", "items": {"type": "string", "pattern": r"^(\d+x\d+|any)$"}},
                    "theme": {"enum": ["light", "dark"]},
                },
            },
        },
        "packages": {"type": "array", "items": PACKAGE},
        "remotes": {"type": "array", "items": TRANSPORT["anyOf"][1]},
        "_meta": {"type": "object"},
    },
}
# The official registry's own checks, for the two package types server.json has.
PUBLIC_OCI_HOSTS = ("docker.io/", "ghcr.io/", "mcr.microsoft.com/")
VERSION_RANGE = re.compile(r"[\^~<>=*]|(^|\.)x(\.|$)")  # ^1.2, ~1.2, >=1.2, 1.x, 1.*


def registry_problems(data: dict[str, Any]) -> list[str]:
    problems = []
    for i, package in enumerate(data.get("packages", [])):
        where, kind, identifier = (
            f"packages/{i}",
            package.get("registryType"),
            str(package.get("identifier", "")),
        )
        if kind == "pypi":
            if package.get("registryBaseUrl", "https://pypi.org") != "https://pypi.org":
                problems.append(f"{where}: a PyPI package must come from https://pypi.org")
            if "version" not in package:
                problems.append(f"{where}: a PyPI package needs its exact version")
        elif kind == "oci":
            name, _, tag = identifier.rpartition(":")
            if not identifier.startswith(PUBLIC_OCI_HOSTS) or "/" in tag or not name:
                problems.append(f"{where}: {identifier!r} is not a public image named with its tag")
        else:
            problems.append(f"{where}: registryType {kind!r} is not one this check knows")
    for where, version in [("version", data["version"])] + [
        (f"packages/{i}/version", p["version"])
        for i, p in enumerate(data.get("packages", []))
        if "version" in p
    ]:
        if VERSION_RANGE.search(version):
            problems.append(f"{where}: {version!r} is a range, not a version")
    if data.get("$schema") != SCHEMA_URL:
        problems.append(f"$schema: not {SCHEMA_URL}")
    return problems


def problems(data: Any) -> list[str]:
    import jsonschema

    validator = jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
    found = [
        f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in validator.iter_errors(data)
    ]
    return found or registry_problems(data)


def main(argv: list[str]) -> int:
    path = Path(argv[0] if argv else "server.json")
    found = problems(json.loads(path.read_text(encoding="utf-8")))
    for line in found:
        print(f"{path}: {line}")
    print(f"{path}: {'valid' if not found else 'INVALID'} against the registry's schema of 2025-12-11")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
