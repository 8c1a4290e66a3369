"""The always-on home service: the same MCP server over Streamable HTTP, the one writer of the home's memory.

`scopes.py` is the scope vocabulary (names, words, reach); `http.py` builds the Starlette app from the
SDK's Streamable HTTP app; `run.py` serves it with uvicorn until SIGTERM.
"""
