#!/usr/bin/env bash
# `make mcpb`: the Claude Desktop bundle dist/zwave-mcp-<version>.mcpb (or in the folder given), checked and
# packed by the official MCPB CLI pinned in mcpb/package-lock.json (installed by `npm ci --prefix mcpb`).
#
# The bundle is of the `uv` kind: manifest.json beside the package's own pyproject.toml and source, so the
# uv of Claude Desktop brings Python and the dependencies itself and runs `zwave-mcp` (the manifest's
# mcp_config); no Python package is bundled. tests/e2e/test_mcpb.py unpacks one and starts it that way.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-dist}"
mcpb=mcpb/node_modules/.bin/mcpb
[ -x "$mcpb" ] || { echo "the MCPB CLI is missing: npm ci --prefix mcpb (make mcpb does it)"; exit 1; }

version="$(python3 -c 'import zwave_mcp; print(zwave_mcp.__version__)')"
said="$(python3 -c 'import json; print(json.load(open("mcpb/manifest.json"))["version"])')"
[ "$said" = "$version" ] || { echo "mcpb/manifest.json says version $said, the package is $version"; exit 1; }

stage="$(mktemp -d "${TMPDIR:-/tmp}/zwave-mcp-mcpb-XXXXXX")"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out"
cp mcpb/manifest.json pyproject.toml README.md LICENSE "$stage"/
cp -R zwave_mcp "$stage"/
find "$stage" -name __pycache__ -prune -exec rm -rf {} +
"$mcpb" validate "$stage/manifest.json"
"$mcpb" pack "$stage" "$out/zwave-mcp-$version.mcpb"
