"""A tiny MCPServer for transport tests: `echo`, `noisy` (prints to stdout), `slow` (sleeps) and
`unencodable` (answers with text no serializer can encode)."""

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

    @server.tool()
    def unencodable() -> str:
        """Answer with a lone surrogate, made here rather than read, as a bug would."""
        return "half of a pair: " + chr(0xD800)

    return server
