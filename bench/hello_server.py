"""The baseline server: a bare `MCPServer` hello-world with one tool, nothing else.

`python -m bench.hello_server` serves it on stdio (the start-up baseline), with `--zwave-stdio` on
zwave-mcp's own stdio transport (section 2's floor); `build_hello()` gives it to an in-process client (the
transport and throughput baselines).
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
    import sys

    if "--zwave-stdio" in sys.argv:
        # zwave-mcp's own stdio transport, as the server runs on it: the section 2 floor.
        from zwave_mcp.stdio.transport import protect_stdout, run_stdio

        protect_stdout()
        run_stdio(build_hello(), drain_timeout=5.0)
    else:
        build_hello().run("stdio")
