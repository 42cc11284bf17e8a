# The two commands: `make run` (set up and start a server) and `make test` (set up and run every test).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8765

.PHONY: run test setup clean

$(BIN)/arena: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/arena

setup: $(BIN)/arena

run: setup
	$(BIN)/arena serve --host $(HOST) --port $(PORT)

test: setup
	$(BIN)/pytest -q

clean:
	rm -rf $(VENV) *.egg-info
