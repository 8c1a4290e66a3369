# The two commands the README promises, plus the checks CI runs.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install demo test lint bench

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"

install: $(PY)

demo: $(PY)
	$(VENV)/bin/zwave-mcp demo

test: $(PY)
	$(PY) -m pytest -q -p no:cacheprovider

lint: $(PY)
	$(VENV)/bin/ruff check zwave_mcp tests bench
	$(VENV)/bin/ruff format --check zwave_mcp tests bench
	$(VENV)/bin/mypy zwave_mcp

bench: $(PY)
	$(PY) -m bench
