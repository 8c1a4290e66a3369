# The two commands the README promises, plus the checks CI runs.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install demo test test-amqtt test-newest-mcp release-check lint bench mosquitto inspector

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

# The Inspector CLI tests (tests/e2e/test_inspector.py) need the pinned Inspector in .ci/node, as CI has it;
# installed again only when the lockfile changes. Without npm they skip, and this says so.
INSPECTOR_STAMP := .ci/node/node_modules/.package-lock.json

$(INSPECTOR_STAMP): .ci/node/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  npm ci --prefix .ci/node --ignore-scripts --no-audit --no-fund --loglevel=error; \
	else \
	  echo "npm is not installed: the MCP Inspector tests will be skipped (install Node.js and npm, then make test)"; \
	fi

inspector: $(INSPECTOR_STAMP)

# What CI runs: Mosquitto, the Inspector and the test extra (with matplotlib for the chart tests).
test: $(INSTALLED) mosquitto inspector
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
# repository and run --version, check-stdio and the demo with no broker installed (CI runs it).
release-check:
	.ci/release_check.sh

lint: $(INSTALLED)
	$(VENV)/bin/ruff check zwave_mcp tests bench
	$(VENV)/bin/ruff format --check zwave_mcp tests bench
	$(VENV)/bin/mypy zwave_mcp

bench: $(INSTALLED)
	$(PY) -m bench
