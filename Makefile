# The two commands the README promises, plus the checks CI runs.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install demo test test-amqtt test-newest-mcp release-check mcpb lint bench mosquitto node-tools

# The venv, and the test extra installed again whenever pyproject.toml changes (a new test dependency
# reaches a venv made before it).
INSTALLED := $(VENV)/.installed

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(INSTALLED): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e ".[test]"
	@touch $@

install: $(INSTALLED)

demo: $(INSTALLED)
	$(VENV)/bin/zwave-mcp demo

# The tests start their own Mosquitto on a free 127.0.0.1 port; install it when it is missing and we may.
mosquitto:
	@command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mosquitto >/dev/null; } || \
	  echo "Mosquitto is not installed (apt-get install mosquitto); the tests fall back on an embedded broker"

# The pinned Node tools, each folder with its lockfile: the MCP Inspector (.ci/node) for
# tests/e2e/test_inspector.py, the official MCPB CLI (mcpb) for `make mcpb` and tests/e2e/test_mcpb.py.
# Installed again only when a lockfile changes. Without npm those tests are skipped, and this says so.
NODE_TOOLS := .ci/node/node_modules/.package-lock.json mcpb/node_modules/.package-lock.json

%/node_modules/.package-lock.json: %/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  npm ci --prefix $* --ignore-scripts --no-audit --no-fund --loglevel=error; \
	else \
	  echo "npm is not installed: the tests that need $* will be skipped (install Node.js and npm, then make test)"; \
	fi

node-tools: $(NODE_TOOLS)

# The Claude Desktop bundle, dist/zwave-mcp-<version>.mcpb: validated and packed by the official MCPB CLI.
mcpb: mcpb/node_modules/.package-lock.json
	mcpb/build.sh

# What CI runs: Mosquitto, the Node tools and the test extra (matplotlib for the chart tests, uv for the MCPB).
test: $(INSTALLED) mosquitto node-tools
	$(PY) -m pytest -q -p no:cacheprovider

# The broker the tests fall back on when Mosquitto is missing (MQTT 3.1.1 only): the tests that talk to a
# broker, again on it, so the fallback keeps working.
test-amqtt: $(INSTALLED)
	ZWAVE_TEST_BROKER=amqtt $(PY) -m pytest -q -p no:cacheprovider tests/integration tests/e2e

# The suite against the newest mcp 2.x (CI runs it; users keep the pin CI has proven, pyproject.toml): a venv of
# its own, the pin overridden, then `python -m zwave_mcp.server.compat --check` names each private SDK part that
# broke, and the tests run (TESTS= picks some: make test-newest-mcp TESTS="tests/unit/test_compat.py").
NEWEST_MCP_VENV ?= .venv-newest-mcp
TESTS ?=

test-newest-mcp:
	[ -x $(NEWEST_MCP_VENV)/bin/python ] || python3 -m venv $(NEWEST_MCP_VENV)
	$(NEWEST_MCP_VENV)/bin/python -m pip install -q --upgrade pip
	$(NEWEST_MCP_VENV)/bin/python -m pip install -q -e ".[test]"
	@# pip warns that zwave-mcp requires mcp<2.4 when a newer one comes: that is the point here.
	$(NEWEST_MCP_VENV)/bin/python -m pip install -q --upgrade "mcp>=2,<3"
	@$(NEWEST_MCP_VENV)/bin/python -c "from importlib.metadata import version as v; print('mcp', v('mcp'), 'mcp-types', v('mcp-types'))"
	@failed=0; \
	  $(NEWEST_MCP_VENV)/bin/python -m zwave_mcp.server.compat --check || failed=1; \
	  $(NEWEST_MCP_VENV)/bin/python -m pytest -q -p no:cacheprovider $(TESTS) || failed=1; \
	  exit $$failed

# Build the sdist and wheel, twine check them, install the wheel (no extras) in a clean venv outside the
# repository and run --version, check-stdio and the demo with no broker installed; run the wheel with uvx;
# check server.json against the MCP registry's schema; build the MCPB (CI runs it).
release-check: mcpb/node_modules/.package-lock.json
	.ci/release_check.sh

lint: $(INSTALLED)
	$(VENV)/bin/ruff check zwave_mcp tests bench
	$(VENV)/bin/ruff format --check zwave_mcp tests bench
	$(VENV)/bin/mypy zwave_mcp

bench: $(INSTALLED)
	$(PY) -m bench
