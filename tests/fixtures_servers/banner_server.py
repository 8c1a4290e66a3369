"""A polluting MCP server: prints a banner to stdout before serving with the SDK's own stdio transport."""

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("fixture-banner")


@server.tool()
def echo(text: str) -> str:
    """Answer with the given text."""
    return text


if __name__ == "__main__":
    print("Banner: fixture server v1 starting", flush=True)
    server.run()
    sys.exit(0)
