"""The MCP surface: the server and its lifespan (`build`), the tools, resources, prompts and completions, the
executor every tool call passes through, asking the person, the client log, and the SDK parts we rely on."""
