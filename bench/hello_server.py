"""The baseline server: a bare `MCPServer` hello-world with one tool, nothing else.

`python -m bench.hello_server` serves it on stdio (the start-up baseline); `build_hello()` gives it to an
in-process client (the transport and throughput baselines).
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer


def build_hello() -> MCPServer:
    server: MCPServer = MCPServer(name="hello")

    @server.tool()
    def hello(name: str = "world") -> str:
        """Say hello."""
        return f"Hello, {name}!"

    return server


if __name__ == "__main__":
    build_hello().run("stdio")
