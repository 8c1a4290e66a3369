"""A test session leaves nothing in the temporary directory (issue 31: every run left a
zwave-mcp-test-state-* and a zwave-mcp-test-cache-* folder behind)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]


def test_a_session_removes_its_state_and_cache_folders(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    env.pop("XDG_STATE_HOME", None)  # the inner session makes its own, as a fresh run does
    env.pop("XDG_CACHE_HOME", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/unit/test_compat.py"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("zwave-mcp-test-"))
    assert left == [], left
