#!/usr/bin/env bash
# The release check (CI runs it, `make release-check` too, and the release workflow before publishing): what a
# person gets from a release, tried as they would. Build the sdist and the wheel (the wheel from the sdist, so
# the sdist is known complete), check their metadata as PyPI will, install the wheel with no extras in a clean
# venv outside the repository, and run the first commands a new user runs: --version, check-stdio on itself,
# and the demo with no MQTT broker installed. Then run the wheel with uvx (as `uvx zwave-mcp` will run the
# PyPI package), check server.json as the MCP registry will, and build the Claude Desktop bundle (MCPB).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-python3}"
work="$(mktemp -d "${TMPDIR:-/tmp}/zwave-mcp-release-check-XXXXXX")"
trap 'rm -rf "$work"' EXIT
step() { printf '\n== release check: %s\n' "$*"; }

step "build tools (build, twine, uv, jsonschema) in a venv of their own"
"$python" -m venv "$work/tools"
"$work/tools/bin/python" -m pip install -q --upgrade pip
"$work/tools/bin/python" -m pip install -q build twine uv jsonschema

step "sdist and wheel"
"$work/tools/bin/python" -m build --outdir "$work/dist" "$repo" >"$work/build.log" 2>&1 \
    || { cat "$work/build.log"; exit 1; }
ls "$work/dist"
# setuptools' deprecation boxes ("`project.license` as a TOML table is deprecated") mean metadata that
# will stop building after their due date.
if grep -i -n "deprecat" "$work/build.log"; then
    echo "the build printed deprecation warnings (above)"; exit 1
fi
"$work/tools/bin/twine" check --strict "$work/dist"/*
if [ -n "${RELEASE_DIST:-}" ]; then  # the release workflow publishes exactly what was checked
    mkdir -p "$RELEASE_DIST" && cp "$work/dist"/* "$RELEASE_DIST"/
fi

step "the wheel in a clean venv outside the repository, no extras"
"$python" -m venv "$work/user"
"$work/user/bin/python" -m pip install -q --upgrade pip
"$work/user/bin/python" -m pip install -q "$work/dist"/*.whl
bin="$work/user/bin"
cd "$work"  # nothing of the repository on sys.path
# The user's state and cache stay out of this machine's home; no broker is listening on this port.
export XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache"
port="$("$bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

step "zwave-mcp --version"
"$bin/zwave-mcp" --version

step "zwave-mcp check-stdio -- zwave-mcp (no broker: the protocol must hold, the tools answer unavailable)"
ZWAVE_MCP_MQTT_URL="mqtt://127.0.0.1:$port" ZWAVE_MCP_TOOL_TIMEOUT=5 \
    "$bin/zwave-mcp" check-stdio -- "$bin/zwave-mcp"

step "zwave-mcp demo with no MQTT broker installed"
# --broker embedded is what the demo does on a machine without Mosquitto (it would otherwise find
# /usr/sbin/mosquitto whatever PATH says): the broker must come with the plain install.
"$bin/zwave-mcp" demo --broker embedded >"$work/demo.txt" 2>"$work/demo.err" \
    || { cat "$work/demo.txt" "$work/demo.err"; exit 1; }
tail -n 1 "$work/demo.txt"
if [ -s "$work/demo.err" ]; then
    echo "the demo wrote to stderr:"; cat "$work/demo.err"; exit 1
fi

step "uvx --from the wheel zwave-mcp --version (what \`uvx zwave-mcp\` runs once the package is on PyPI)"
# --refresh-package: this wheel has the name and version of a release, so a cached older build of it must not do.
"$work/tools/bin/uvx" --quiet --refresh-package zwave-mcp --from "$(echo "$work/dist"/*.whl)" zwave-mcp --version

step "server.json against the MCP registry's schema (2025-12-11)"
"$work/tools/bin/python" "$repo/.ci/check_server_json.py" "$repo/server.json"

step "the Claude Desktop bundle (MCPB): mcpb validate, mcpb pack"
[ -x "$repo/mcpb/node_modules/.bin/mcpb" ] \
    || npm ci --prefix "$repo/mcpb" --ignore-scripts --no-audit --no-fund --loglevel=error
"$repo/mcpb/build.sh" "$work/mcpb" >"$work/mcpb.log" 2>&1 || { cat "$work/mcpb.log"; exit 1; }
ls "$work/mcpb"

step "passed"
