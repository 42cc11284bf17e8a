# The two commands: `make run` (set up and start a server) and `make test-all` (set up and run every test,
# as CI does). `make test` is the day-to-day loop.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8765

.PHONY: run test test-all lint setup browser redis postgres nginx clean

# PyICU (names: Unicode's confusable skeleton) builds against ICU: as root, install its headers
# when pkg-config cannot find them.
$(BIN)/arena: pyproject.toml
	@pkg-config --exists icu-uc 2>/dev/null && command -v g++ >/dev/null 2>&1 || { \
	  echo "installing ICU's headers, pkg-config and g++ to build PyICU"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq libicu-dev pkg-config g++ >/dev/null; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/arena

setup: $(BIN)/arena

run: setup
	@echo "Open http://$(HOST):$(PORT)/ in a browser to play (Ctrl-C stops the server)."
	$(BIN)/arena serve --host $(HOST) --port $(PORT)

# Tests run in parallel, one pytest-xdist worker per core (at most 4); `make test PYTEST_WORKERS=0` runs
# them in this one process.
PYTEST_WORKERS ?= auto
PARALLEL := -n $(PYTEST_WORKERS) --maxprocesses 4 --dist worksteal

# The day-to-day loop (about 100 s on two idle cores; README.md): 20 random playouts per game instead of 200, and
# without the browser tests, the solver's searches, the benchmarks, the fuzz campaign, the README
# tour, the tests that need redis-server (and nginx: deploy/local-cluster's) and those marked slow
# (longer end-to-end runs).
test: setup
	ARENA_PLAYOUTS=20 $(BIN)/pytest -q $(PARALLEL) --ignore=tests/web --ignore=tests/solver --ignore=tests/tooling/test_bench.py \
	  --ignore=tests/test_readme_tour.py --ignore=tests/server/test_restart.py --ignore=tests/test_local_cluster.py \
	  --ignore=tests/server/test_nodes.py --ignore=tests/server/test_tournament_restart.py \
	  -m "not slow" \
	  -k "not campaign and not redis"

# Every test and the lint, as CI runs them (about 15 minutes on two idle cores; README.md).
test-all: setup browser redis postgres nginx lint
	$(BIN)/pytest -q $(PARALLEL)

# ruff (lint, and the format check), mypy (strict for the engine and the protocol), and
# import-linter (the layers of docs/design.md, and no import circles): pyproject.toml has each
# one's settings.
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict engine server/protocol.py
	$(BIN)/mypy
	$(BIN)/lint-imports

# The browser tests drive Debian's chromium (Playwright's own browser download is not used);
# as root, install it when it is missing.
browser:
	@command -v chromium >/dev/null 2>&1 || [ -n "$$ARENA_CHROMIUM" ] || { \
	  echo "installing Debian's chromium for the browser tests (tests/web)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }

# The Redis store's tests (tests/server/test_redis.py, test_store.py) start Debian's redis-server;
# as root, install it when it is missing.
redis:
	@command -v redis-server >/dev/null 2>&1 || { \
	  echo "installing Debian's redis-server for the Redis store's tests"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq redis-server >/dev/null; }

# The archive's tests (tests/server/test_archive.py, tests/client/test_cli_db.py) and
# deploy/local-cluster start a PostgreSQL of their own from Debian's postgresql (initdb and postgres,
# in /usr/lib/postgresql/*/bin); as root, install it when it is missing.
postgres:
	@command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  echo "installing Debian's postgresql for the archive's tests"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq postgresql >/dev/null; }

# deploy/local-cluster (and its test, tests/test_local_cluster.py) runs Debian's nginx as the
# balancer, with a config and ports of its own; as root, install it when it is missing. The package
# may start the system's nginx on port 80 as well, which the local cluster does not use. nginx is
# in /usr/sbin, off an ordinary user's PATH.
nginx:
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { \
	  echo "installing Debian's nginx for deploy/local-cluster and its test"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends nginx >/dev/null; }

clean:
	rm -rf $(VENV) *.egg-info
