# zwave-mcp as a container: an MCP stdio server, so run it with -i and let the MCP client own stdin/stdout.
#
#   docker build -t zwave-mcp .
#   docker run -i --rm -v zwave-mcp-data:/data -e ZWAVE_MCP_MQTT_URL=mqtt://mqtt.lan:1883 zwave-mcp
#
# Or as the always-on home service over Streamable HTTP (docs/remote.md; deploy/compose.yaml runs it so):
#   docker run -d -p 127.0.0.1:8765:8765 -v zwave-mcp-data:/data -e ZWAVE_MCP_MQTT_URL=mqtt://mqtt.lan:1883 \
#     zwave-mcp serve --http 0.0.0.0:8765 --behind-proxy https://home.example.net
#
# The home's history lives in /data: mount a named volume there, or every --rm
# run starts with no memory of the home.
# All configuration comes from ZWAVE_MCP_* environment variables (docs/settings.md); nothing secret is baked in.
# For a broker password prefer a mounted file: -e ZWAVE_MCP_MQTT_PASSWORD_FILE=/run/secrets/mqtt -v ...

# The same pinned base for both stages, so the wheels fit the interpreter that runs them.
ARG PYTHON_IMAGE=python:3.12.10-slim-bookworm

# --- build: the project and every dependency as wheels ----------------------------------------------
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY zwave_mcp ./zwave_mcp
# Dependency versions come from pyproject.toml's ranges; the build tools stay in this stage.
RUN python -m pip wheel --no-cache-dir --wheel-dir /wheels .

# --- runtime: the wheels installed, no compilers, no pip cache, no sources ----------------------------
FROM ${PYTHON_IMAGE}
# The MCP registry takes the image as this server's only when the label names it as server.json does.
LABEL io.modelcontextprotocol.server.name="io.github.zwave-mcp/zwave-mcp" \
      org.opencontainers.image.title="zwave-mcp" \
      org.opencontainers.image.description="See and control a Z-Wave home through the MQTT gateway of Z-Wave JS UI (zwave-js-ui)" \
      org.opencontainers.image.licenses="MIT"
# Unbuffered so log lines reach stderr at once; no .pyc writes at run time (pip compiled them at install,
# and the non-root user cannot write to site-packages anyway).
# The user state and cache directories (the history file; libraries' caches) in /data, the one folder
# the non-root user may write: /data/zwave-mcp/history.sqlite3.
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    XDG_STATE_HOME=/data \
    XDG_CACHE_HOME=/data/cache
# The wheels are bind-mounted from the build stage, so they never become a layer of this image.
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    python -m pip install --no-cache-dir --no-index /wheels/*.whl \
    && groupadd --system --gid 10001 zwave \
    && useradd --system --no-log-init --uid 10001 --gid zwave --home-dir /data \
       --shell /usr/sbin/nologin zwave \
    && install -d -o 10001 -g 10001 -m 0700 /data
# A named volume mounted here starts as a copy of this folder, owned by the user, and keeps the history.
VOLUME ["/data"]
# The home service's port (serve --http); stdio needs none.
EXPOSE 8765
USER 10001:10001
WORKDIR /data
ENTRYPOINT ["zwave-mcp"]
