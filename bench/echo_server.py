"""A JSON-RPC peer with no MCP SDK: answers every request line at once with a fixed tool result.

The floor of a call over stdio (two processes, two pipes, a JSON line each way, Python on both ends):
section 2 sets the bare `MCPServer`'s one-line tool against it, which is the SDK's own cost per call.
"""

from __future__ import annotations

import json
import os
import sys

HELLO = {"content": [{"type": "text", "text": "Hello, world!"}], "isError": False}


def main() -> None:
    out = sys.stdout.fileno()
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" in message:
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": HELLO}
            os.write(out, json.dumps(reply, separators=(",", ":")).encode() + b"\n")


if __name__ == "__main__":
    main()
