"""`zwave-mcp passphrase`: set the home's passphrase, the one the consent page asks before a client is approved.

Read from the terminal (twice, not echoed) or, when stdin is not a terminal, as one line from stdin (for a
script or a container's secret). Kept only as a slow hash (scrypt) in the authorization store of the state
directory; never printed, logged or written plain. A new passphrase does not end approved clients
(`zwave-mcp clients revoke` does).
"""

from __future__ import annotations

import argparse
import getpass
import sys
from contextlib import closing
from pathlib import Path


def state_dir_flag(parser: argparse.ArgumentParser, default: object = None) -> None:
    """--state-dir; a subcommand's copy passes `argparse.SUPPRESS`, so the flag given before it still counts."""
    parser.add_argument(
        "--state-dir",
        type=Path,
        default=default,
        help="the folder of the service's state (default: the platform's state folder for zwave-mcp, where "
        "history lives too); the service must use the same one",
    )


def _read_passphrase() -> str | None:
    if sys.stdin.isatty():
        first = getpass.getpass("New passphrase: ")
        if getpass.getpass("The same again: ") != first:
            print("zwave-mcp: the two passphrases differ; nothing was changed", file=sys.stderr)
            return None
        return first
    return sys.stdin.readline().rstrip("\r\n")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="zwave-mcp passphrase",
        description="Set the home's passphrase, which the consent page asks before it approves a client of "
        "the home service. Read from the terminal, or as one line from stdin.",
    )
    state_dir_flag(parser)
    args = parser.parse_args(argv)

    from zwave_mcp.service.auth import default_state_dir, open_store
    from zwave_mcp.service.auth.passphrase import META_KEY, hash_passphrase, problem

    passphrase = _read_passphrase()
    if passphrase is None:
        return 1
    why = problem(passphrase)
    if why is not None:
        print(f"zwave-mcp: {why}; nothing was changed", file=sys.stderr)
        return 2
    with closing(open_store(args.state_dir or default_state_dir())) as store:
        had = store.get_meta(META_KEY) is not None
        store.set_meta(META_KEY, hash_passphrase(passphrase))
    print(
        "The passphrase is changed; approved clients stay approved."
        if had
        else "The passphrase is set; the consent page asks for it from now on."
    )
    return 0
