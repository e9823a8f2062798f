# neardup: make demo (try it), make test (the whole suite), make bench (benchmarks)
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha1sum | cut -c1-12)

.PHONY: demo test test-fast lint typecheck bench sysdeps clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	rm -f $(VENV)/.installed-*; touch $(STAMP)

venv: $(STAMP)

# system packages the tests drive for real: redis-server, headless chromium (Debian packages)
sysdeps:
	@missing=""; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v java >/dev/null || missing="$$missing openjdk-17-jre-headless"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

demo: $(STAMP)
	$(PY) -m neardup.cli.main dedup examples/news.jsonl --out demo-out/clusters.jsonl --keep-out demo-out/kept.jsonl
	@echo; echo "one line per document in demo-out/clusters.jsonl; duplicates:"; \
	grep -v '"duplicate_of":null' demo-out/clusters.jsonl | head -20
	@echo; echo "scored against the shipped ground truth (examples/news.truth.jsonl):"
	$(PY) -m neardup.cli.main eval --truth examples/news.truth.jsonl demo-out/clusters.jsonl

test: $(STAMP) sysdeps
	$(PY) -m pytest -q -p no:cacheprovider tests

test-fast: $(STAMP)
	$(PY) -m pytest -q -x -m "not slow and not spark and not browser" tests

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench

typecheck: $(STAMP)
	$(VENV)/bin/mypy

bench: $(STAMP)
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info demo-out .pytest_cache .mypy_cache .ruff_cache
