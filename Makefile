# The two commands: `make run` (set up and start a server) and `make test` (set up and run every test).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8765

.PHONY: run test test-quick setup browser clean

$(BIN)/arena: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/arena

setup: $(BIN)/arena

run: setup
	@echo "Open http://$(HOST):$(PORT)/ in a browser to play (Ctrl-C stops the server)."
	$(BIN)/arena serve --host $(HOST) --port $(PORT)

test: setup browser
	$(BIN)/pytest -q

# The day-to-day loop (about 80 s on two cores): everything but the browser tests, the engine's
# random playouts, the solver's searches and the benchmarks, which `make test` runs too.
test-quick: setup
	$(BIN)/pytest -q --ignore=tests/web --ignore=tests/engine/test_properties.py --ignore=tests/solver \
	  --ignore=tests/client/test_bench.py -k "not campaign"

# The browser tests drive Debian's chromium (Playwright's own browser download is not used);
# as root, install it when it is missing.
browser:
	@command -v chromium >/dev/null 2>&1 || [ -n "$$ARENA_CHROMIUM" ] || { \
	  echo "installing Debian's chromium for the browser tests (tests/web)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }

clean:
	rm -rf $(VENV) *.egg-info
