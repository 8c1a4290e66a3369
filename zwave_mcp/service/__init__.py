"""The always-on home service: the same MCP server over Streamable HTTP, the one writer of the home's memory.

`scopes.py` is the scope vocabulary (names, words, reach); `http.py` builds the Starlette app from the
SDK's Streamable HTTP app and bounds who may reach it; `callers.py` says who each request is from (the
SDK's auth context); `run.py` builds the sign-in and serves the app with uvicorn until SIGTERM.
"""
