"""Issue 42: the page on the home service says every scope in the consent page's own words, and the
deployment files start the service the way it accepts (loopback, or behind a proxy's https address)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from zwave_mcp.commands.cli import _build_parser
from zwave_mcp.service.http import exposure_for
from zwave_mcp.service.scopes import ALL_SCOPES, SCOPE_WORDS

ROOT = Path(__file__).resolve().parents[2]
REMOTE = (ROOT / "docs" / "remote.md").read_text(encoding="utf-8")


def test_every_scope_is_in_the_table_with_the_consent_pages_words() -> None:
    rows = dict(re.findall(r"^\| `(home:\w+)` \| (.+?) \|$", REMOTE, re.MULTILINE))
    assert list(rows) == list(ALL_SCOPES)
    for scope in ALL_SCOPES[:3]:
        assert rows[scope] == SCOPE_WORDS[scope], scope
    assert "--admin" in rows["home:admin"]


def _serve_args(words: list[str]) -> list[str]:
    return words[words.index("serve") :]


def test_the_systemd_unit_starts_the_service_as_it_accepts() -> None:
    unit = (ROOT / "deploy" / "zwave-mcp.service").read_text(encoding="utf-8")
    (start,) = re.findall(r"^ExecStart=(.+)$", unit, re.MULTILINE)
    args = _build_parser().parse_args(_serve_args(shlex.split(start)))
    exposure = exposure_for(args.http, behind_proxy=args.behind_proxy)
    assert exposure.host == "127.0.0.1" and exposure.public_url == "https://home.example.net"


def test_the_compose_file_starts_the_service_as_it_accepts() -> None:
    compose = (ROOT / "deploy" / "compose.yaml").read_text(encoding="utf-8")
    (command,) = re.findall(r"^\s+command: (\[.+\])$", compose, re.MULTILINE)
    words = [w.strip(' "') for w in command.strip("[]").split(",")]
    args = _build_parser().parse_args(_serve_args(words))
    exposure = exposure_for(args.http, behind_proxy=args.behind_proxy)
    assert exposure.port == 8765 and exposure.public_url is not None
    assert '"127.0.0.1:8765:8765"' in compose, "the host publishes it on loopback only"
