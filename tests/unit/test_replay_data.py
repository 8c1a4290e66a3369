"""Loading the recorded zwave-js-ui captures copied into `fixtures/recorded/` (see the captures README)."""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

RECORDED = Path(__file__).resolve().parents[2] / "fixtures" / "recorded"

CAPTURES = {
    "0": "0_first_start",
    "a": "a_named_timevalue",
    "b": "b_valueid_raw",
    "c": "c_valueid_names_valueobject_nodeinfo",
    "fault": "fault_controller_jam",
    "locks_a": "locks_a_named_timevalue",  # with the keypad locks 12 and 13 (`locks_getnodes`)
    "locks_b": "locks_b_valueid_raw",
}


@cache
def getnodes() -> list[dict[str, Any]]:
    return json.loads((RECORDED / "getNodes.json").read_text())


@cache
def _locks_getnodes() -> str:
    return (RECORDED / "getNodes_locks_12_13.json").read_text()


def locks_getnodes() -> list[dict[str, Any]]:
    """Nodes 12 (User Code) and 13 (User Credential) of the lock captures' first getNodes (a fresh copy)."""
    nodes: list[dict[str, Any]] = json.loads(_locks_getnodes())
    return nodes


def _jsonl_gz(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@cache
def capture(key: str) -> tuple[dict[str, Any], ...]:
    """The capture's messages in recorded order: dicts with t, topic, payload (text), qos, retain."""
    return tuple(_jsonl_gz(RECORDED / f"capture_{CAPTURES[key]}.jsonl.gz"))


@cache
def api_calls(key: str) -> tuple[dict[str, Any], ...]:
    return tuple(_jsonl_gz(RECORDED / f"api_calls_{CAPTURES[key]}.jsonl.gz"))


def first_write_t(key: str) -> float:
    """When the capture's write session starts: the first writeValue or value-topic write."""
    return min(c["t_request"] for c in api_calls(key) if c["kind"] == "set" or c.get("api") == "writeValue")
