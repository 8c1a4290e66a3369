"""`make demo` shows the user no build warning (issue 46): setuptools' "BuildBackendWarning: Editable
installation…" came with every editable install until pyproject.toml said where the package sits."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]


def test_the_editable_install_make_demo_runs_prints_no_warning(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True, timeout=120)
    pip = [str(tmp_path / "venv" / "bin" / "python"), "-m", "pip"]
    # As the Makefile does (`pip install -q -e ".[test]"`), without the dependencies: only the build speaks.
    done = subprocess.run(
        [*pip, "install", "-q", "--no-deps", "-e", str(REPO)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    said = [
        line for line in (done.stdout + done.stderr).splitlines() if "Location '" not in line
    ]  # this pip.conf
    assert not [line for line in said if "warning" in line.lower()], "\n".join(said)
    (pth,) = (tmp_path / "venv").glob("lib/python*/site-packages/__editable__.zwave_mcp-*.pth")
    assert pth.read_text().strip() == str(REPO)
