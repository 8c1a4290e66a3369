# The two commands the README promises, plus the checks CI runs.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install demo test test-amqtt lint bench mosquitto

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"

install: $(PY)

demo: $(PY)
	$(VENV)/bin/zwave-mcp demo

# The tests start their own Mosquitto on a free 127.0.0.1 port; install it when it is missing and we may.
mosquitto:
	@command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mosquitto >/dev/null; } || \
	  echo "Mosquitto is not installed (apt-get install mosquitto); the tests fall back on an embedded broker"

test: $(PY) mosquitto
	$(PY) -m pytest -q -p no:cacheprovider

# The broker the tests fall back on when Mosquitto is missing (MQTT 3.1.1 only): the tests that talk to a
# broker, again on it, so the fallback keeps working.
test-amqtt: $(PY)
	ZWAVE_TEST_BROKER=amqtt $(PY) -m pytest -q -p no:cacheprovider tests/integration tests/e2e

lint: $(PY)
	$(VENV)/bin/ruff check zwave_mcp tests bench
	$(VENV)/bin/ruff format --check zwave_mcp tests bench
	$(VENV)/bin/mypy zwave_mcp

bench: $(PY)
	$(PY) -m bench
