"""The tool list kept between starts: keyed by everything that shapes it, never trusted when broken, and
the staged server answers `tools/list` from it before building, then keeps the list it really has."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from mcp_types import ListToolsResult, Tool

from zwave_mcp.config import load_settings
from zwave_mcp.server.build import stage_server
from zwave_mcp.server.compat import lowlevel_server
from zwave_mcp.server.tool_list_cache import MAX_BYTES, ToolListCache, dump_tools

SETTINGS = {"mqtt_url": "mqtt://u:hunter2@127.0.0.1:9", "prefix": "listcache"}


def _cache(tmp_path: Path, **overrides: object) -> ToolListCache:
    return ToolListCache(load_settings({**SETTINGS, **overrides}, environ={}), tmp_path)


def _tools(*names: str) -> list[Tool]:
    return [Tool(name=n, description=f"{n} things", input_schema={"type": "object"}) for n in names]


def test_a_stored_list_loads_as_stored_and_other_keys_files_go(tmp_path: Path) -> None:
    first = _cache(tmp_path)
    assert first.load() is None  # nothing kept yet
    first.store(_tools("a", "b"))
    assert [t.name for t in first.load() or []] == ["a", "b"]
    other = _cache(tmp_path, read_only=True)  # read-only hides tools: another key
    assert other.path != first.path and other.load() is None
    other.store(_tools("a"))
    assert sorted(p.name for p in tmp_path.iterdir()) == [other.path.name]
    assert "hunter2" not in other.path.name and "hunter2" not in other.path.read_text()


def test_the_key_follows_the_settings_and_the_files_they_name(tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text("read_only = false\n")
    before = _cache(tmp_path, policy_file=str(policy)).path
    assert _cache(tmp_path, policy_file=str(policy)).path == before  # the same start again
    policy.write_text("read_only = true\n")  # a policy can make the server read-only
    assert _cache(tmp_path, policy_file=str(policy)).path != before
    assert _cache(tmp_path, prefix="elsewhere").path != _cache(tmp_path).path


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not json",
        b"\xff\xfe\x00",
        b"[]",
        b'{"tools": []}',
        b'[{"name": 7}]',
        b"[" * 100_000,
        b'[{"name": "a", "inputSchema": {"type": "object"}}' + b" " * MAX_BYTES + b"]",
    ],
)
def test_a_broken_or_foreign_file_is_ignored(tmp_path: Path, content: bytes) -> None:
    cache = _cache(tmp_path)
    cache.path.write_bytes(content)
    assert cache.load() is None


def test_the_staged_server_answers_tools_list_from_the_kept_list_then_keeps_what_it_has(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        settings = load_settings(SETTINGS, environ={})
        cache = ToolListCache(settings, tmp_path)
        stale = _tools("an_old_tool")
        cache.store(stale)
        staged = stage_server(settings, tool_list_cache=cache)
        assert staged.answers_unfinished("tools/list") and staged.finish_delay("initialize") > 0
        assert not staged.answers_unfinished("tools/call")
        handler = lowlevel_server(staged.server).get_request_handler("tools/list")
        assert handler is not None
        answer = await handler.handler(None, None)  # type: ignore[arg-type]
        assert isinstance(answer, ListToolsResult) and dump_tools(answer.tools) == dump_tools(stale)
        assert not staged.finished  # answered before building

        staged.finish()
        built = await staged.server.list_tools()
        answer = await handler.handler(None, None)  # type: ignore[arg-type]
        assert dump_tools(answer.tools) == dump_tools(built)  # once built, the server's own list
        await staged._keep_tool_list()  # what the lifespan runs once the server is started
        assert json.loads(cache.path.read_bytes()) == dump_tools(built)  # the stale list is replaced

    asyncio.run(scenario())


def test_without_a_kept_list_only_initialize_comes_before_building(tmp_path: Path) -> None:
    staged = stage_server(load_settings(SETTINGS, environ={}), tool_list_cache=_cache(tmp_path))
    assert staged.answers_unfinished("initialize")
    assert not staged.answers_unfinished("tools/list")
    assert not staged.answers_unfinished("notifications/initialized")
    assert staged.finish_delay("initialize") == 0.0


def test_a_session_that_ends_before_the_start_was_done_still_keeps_its_list(tmp_path: Path) -> None:
    """stdin can end right after tools/list, before the lifespan started anything: the list is kept then."""

    async def scenario() -> None:
        cache = _cache(tmp_path)
        staged = stage_server(load_settings(SETTINGS, environ={}), tool_list_cache=cache)
        staged.finish()
        await staged._stop()  # what the lifespan runs at the end, here with nothing started
        assert json.loads(cache.path.read_bytes()) == dump_tools(await staged.server.list_tools())

    asyncio.run(scenario())
