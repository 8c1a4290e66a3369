"""`zwave-mcp clients`: the clients approved to use the home service, and `clients revoke NAME` to end one.

A client is named as it named itself when it registered (what the consent page showed). Revoking ends
its grants at once (the service reads every token from the store on every call, so its next call is
refused) and forgets its registration: to come back it must register and be approved again.
"""

from __future__ import annotations

import argparse
import sys
import time
from contextlib import closing
from datetime import datetime

from zwave_mcp.answers import and_list, plural
from zwave_mcp.commands.passphrase import state_dir_flag
from zwave_mcp.history.periods import when
from zwave_mcp.names import normalize
from zwave_mcp.safetext import terminal_safe
from zwave_mcp.service import scopes


def _sentence(name: str, granted: list[str], approved_at: float, last_used: float | None, now: float) -> str:
    clock = datetime.fromtimestamp(now).astimezone()
    may = and_list([scopes.SCOPE_ALLOWS[scope] for scope in scopes.known(granted)]) or "do nothing"
    approved = when(datetime.fromtimestamp(approved_at).astimezone(), clock)
    used = (
        "never used"
        if last_used is None
        else f"last used {when(datetime.fromtimestamp(last_used).astimezone(), clock)}"
    )
    return f"{terminal_safe(name)} may {may}; approved {approved}, {used}."


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="zwave-mcp clients",
        description="List the clients approved to use the home service (name, what they may do, when last "
        "used); 'zwave-mcp clients revoke NAME' ends one at once.",
    )
    state_dir_flag(parser)
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    revoke = sub.add_parser("revoke", help="end a client's approval at once (its next call is refused)")
    revoke.add_argument("name", help="the client's name as the list shows it (case and spaces do not matter)")
    state_dir_flag(revoke, argparse.SUPPRESS)
    args = parser.parse_args(argv)

    from zwave_mcp.service.auth import default_state_dir, open_store

    with closing(open_store(args.state_dir or default_state_dir())) as store:
        approved = store.approved()
        if args.action != "revoke":
            if not approved:
                print("No client is approved yet: a client asks when it first connects, on the consent page.")
            for client in approved:
                print(
                    _sentence(client.name, client.scopes, client.approved_at, client.last_used, time.time())
                )
            return 0
        chosen = [client for client in approved if normalize(client.name) == normalize(args.name)]
        if not chosen:
            names = and_list([terminal_safe(client.name) for client in approved], last="or")
            hint = f" The approved ones are {names}." if names else " No client is approved."
            print(
                f"zwave-mcp: no approved client is named {terminal_safe(args.name)!r}.{hint}", file=sys.stderr
            )
            return 1
        for client in chosen:
            store.revoke_client(client.client_id)
        count = "" if len(chosen) == 1 else f" ({plural(len(chosen), 'registration')})"
        print(f"{terminal_safe(chosen[0].name)}{count} is no longer approved: its next call is refused.")
        return 0
