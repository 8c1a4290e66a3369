"""A well-behaved MCP stdio server served through `zwave_mcp.stdio`, for e2e tests.

Tools: `echo` (answers its text), `noisy` (prints to stdout, which must land on stderr), `slow` (sleeps).
It also prints at "import time", after `protect_stdout()`, the way a chatty dependency would.
"""

from zwave_mcp.stdio import protect_stdout

protect_stdout()
print("import-time noise from a chatty dependency")

import asyncio  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

from mcp.server.mcpserver import MCPServer  # noqa: E402

from zwave_mcp.stdio import run_stdio  # noqa: E402

server = MCPServer("fixture-good")


@server.tool()
def echo(text: str) -> str:
    """Answer with the given text."""
    return text


@server.tool()
def noisy() -> str:
    """Print to stdout and to the raw fd 1, then answer."""
    print("x")
    os.write(1, b"raw fd 1 write\n")
    return "printed"


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


if __name__ == "__main__":
    drain = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    run_stdio(server, drain_timeout=drain)
    sys.exit(0)
