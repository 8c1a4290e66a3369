"""The stdio transport (newline-delimited JSON-RPC on stdout and nothing else) and `check-stdio`, the
harness that proves a server's stdout holds only JSON-RPC."""
