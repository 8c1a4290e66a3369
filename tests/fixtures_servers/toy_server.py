"""A tiny MCPServer for transport tests: `echo`, `noisy` (prints to stdout) and `slow` (sleeps)."""

import asyncio
import os

from mcp.server.mcpserver import MCPServer


def build_toy_server() -> MCPServer:
    server = MCPServer("fixture-good")

    @server.tool()
    def echo(text: str) -> str:
        """Answer with the given text."""
        return text

    @server.tool()
    def noisy() -> str:
        """Print to sys.stdout and to the raw fd 1, then answer."""
        print("x")
        os.write(1, b"raw fd 1 write\n")
        return "printed"

    @server.tool()
    async def slow(seconds: float) -> str:
        """Sleep, then answer."""
        await asyncio.sleep(seconds)
        return f"slept {seconds}"

    return server
