"""The `zwave-mcp` commands: serve (the default), config, tools (export), explain, demo, simulate, check-stdio."""
