# neardup: make demo (try it), make test (the whole suite), make bench (benchmarks)
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha1sum | cut -c1-12)

.PHONY: demo test test-fast lint typecheck bench sysdeps clean venv warmup

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	rm -f $(VENV)/.installed-*; touch $(STAMP)

# compile every numba kernel into the per-user kernel cache once (seconds when it is already there),
# so no later run compiles; the C extension (the nshash scanner) is built by pip install itself
warmup: $(STAMP)
	$(PY) -m neardup.warmup

venv: $(STAMP) warmup

# the demo needs the core package only (no extras, no test tools): a venv of about 0.5 GB
DEMO_STAMP := $(VENV)/.demo-$(shell cat pyproject.toml | sha1sum | cut -c1-12)
$(DEMO_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	rm -f $(VENV)/.demo-*; touch $(DEMO_STAMP)

# system packages the tests drive for real: redis-server, headless chromium and CJK fonts for its
# screenshots, Java for Spark (Debian packages)
sysdeps:
	@missing=""; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v java >/dev/null || missing="$$missing openjdk-17-jre-headless"; \
	dpkg -s fonts-noto-cjk >/dev/null 2>&1 || missing="$$missing fonts-noto-cjk"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

demo: $(DEMO_STAMP)
	$(VENV)/bin/neardup dedup examples/news.jsonl --out demo-out/clusters.jsonl --keep-out demo-out/kept.jsonl
	@echo; echo "one line per document in demo-out/clusters.jsonl; duplicates:"; \
	grep -v '"duplicate_of":null' demo-out/clusters.jsonl | head -20
	@echo; echo "scored against the shipped ground truth (examples/news.truth.jsonl):"
	$(VENV)/bin/neardup eval score --truth examples/news.truth.jsonl demo-out/clusters.jsonl
	@echo; echo "next: run neardup from the venv, e.g."; \
	echo "  $(VENV)/bin/neardup --help"; \
	echo "  $(VENV)/bin/neardup dedup your.jsonl --out clusters.jsonl"; \
	echo "or put it on your PATH for this shell: source $(VENV)/bin/activate"; \
	echo "pip built the C kernels if this machine has a C compiler: nothing compiles on a first run;"; \
	echo "without one, run $(VENV)/bin/neardup warmup once before a corpus of your own (a few minutes)"; \
	echo "(extras: $(VENV)/bin/pip install -e '.[html,redis,service]'; see README.md, Install)"

# the kernels are compiled once by warmup (in parallel, each kernel once) instead of by whichever
# test process or child (CLI runs, services, Spark workers) first needs one; the tests then run in
# two pytest-xdist workers (each with its own redis-server and, when it gets Spark tests, its own
# local[2] SparkSession); worksteal: a worker that runs out of tests takes some queued for the other
test: $(STAMP) sysdeps warmup
	$(PY) -m pytest -q -p no:cacheprovider -n 2 --dist worksteal --doctest-modules tests src/neardup

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
