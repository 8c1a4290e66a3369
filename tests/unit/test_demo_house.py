"""`zwave-mcp demo --house`: only with --serve, and a bad file is one line, not a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from zwave_mcp.commands import demo


def test_house_without_serve_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert demo.main(["--house", "fixtures/devices/switch_zooz_zen72_state.json"]) == demo.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.strip() == "zwave-mcp demo: --house needs --serve (the scripted demo uses the captured house)"


def test_an_unreadable_house_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "home.json"
    bad.write_text('{"hello": "world"}', encoding="utf-8")
    assert demo.main(["--serve", "--house", str(bad)]) == demo.EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"zwave-mcp demo: cannot load house '{bad}': ")
    assert "\n" not in err and "Traceback" not in err
