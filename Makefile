# A newcomer needs only python3: every target below makes its own .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check --quiet

.PHONY: demo test test-all test-slow test-pythons lint format clean
.PHONY: chromium

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.test: pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[test,tables,dask,s3]'
	@touch $@

$(VENV)/.lint: pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[lint]'
	@touch $@

## demo: install, then validate a clean real transcript and one with problems
demo: $(VENV)/.test
	@echo "== msgcli validate: a real AgentScope Python transcript, and the real LoongFlow one"
	$(BIN)/msgcli validate --verbose fixtures/real/agentscope-py/transcript.jsonl fixtures/real/loongflow/transcript.jsonl
	@echo
	@echo "== msgcli validate: a transcript with problems (exit status 1 is expected; --no-config:"
	@echo "   this repository's configuration would hold it to its .expect sidecar instead)"
	$(BIN)/msgcli validate --no-config fixtures/invalid/mixed-problems/agentscope-py-run.jsonl || test $$? -eq 1
	@echo
	@echo "== msgcli validate: every bundled real log and valid fixture"
	$(BIN)/msgcli validate fixtures/real fixtures/valid
	@echo
	@echo "== msgcli validate: the repository's fixtures as CI checks them; the broken ones are negative"
	@echo "   fixtures held to their .expect sidecars ([tool.msgcli] in pyproject.toml, see 'msgcli config')"
	$(BIN)/msgcli validate fixtures
	@echo
	@echo "== msgcli replay: the real AgentScope Python SSE stream, rebuilt into its message"
	$(BIN)/msgcli replay fixtures/real/agentscope-py/events.sse | $(BIN)/msgcli validate --verbose -
	@echo
	@echo "== msgcli replay: a stream that stops mid-reply (exit status 1 is expected)"
	$(BIN)/msgcli replay fixtures/events/agentscope-py/invalid/stream-cut-mid-reply.jsonl > /dev/null || test $$? -eq 1
	@echo
	@echo "== msgcli show: an AgentScope Java confirmation run, replayed from its events"
	$(BIN)/msgcli show --no-pager fixtures/events/agentscope-java/hitl.jsonl
	@echo
	@echo "== msgcli stats: the real AgentScope Python transcript"
	$(BIN)/msgcli stats fixtures/real/agentscope-py/transcript.jsonl
	@echo
	@echo "== msgcli convert: the real LoongFlow transcript as AgentScope Java, checked, and back"
	$(BIN)/msgcli convert fixtures/real/loongflow/transcript.jsonl --to agentscope-java --zone UTC | $(BIN)/msgcli validate -
	$(BIN)/msgcli convert fixtures/real/loongflow/transcript.jsonl --to agentscope-java --zone UTC -q \
	  | $(BIN)/msgcli convert - --to loongflow --zone UTC -q \
	  | $(BIN)/python -c 'import json, sys; back = [json.loads(l) for l in sys.stdin]; \
	    orig = [json.loads(l) for l in open("fixtures/real/loongflow/transcript.jsonl")]; \
	    print("converted back:", "the original records" if back == orig else "DIFFERENT"); sys.exit(back != orig)'
	@echo
	@echo "== msgcli format: what AgentScope sends OpenAI for the README's example conversation"
	$(BIN)/msgcli format fixtures/readme/weather.jsonl --provider openai
	@echo
	@echo "== msgcli usage: tokens and cost of real Claude Code, Codex CLI, Gemini CLI and OpenCode"
	@echo "   sessions, by model (each response counted once, as the model API reported it)"
	$(BIN)/msgcli usage --by model fixtures/real/claude-code fixtures/real/codex fixtures/real/gemini-cli fixtures/real/opencode
	@echo
	@echo "== msgcli show: a real Codex CLI session that spawned a sub-agent (nested under its call)"
	$(BIN)/msgcli show --no-pager fixtures/real/codex/16-subagent/sessions
	@echo
	@echo "== msgcli convert: a real Claude Code session as OpenTelemetry GenAI spans and as an ATIF"
	@echo "   trajectory, each checked in its own form"
	$(BIN)/msgcli convert fixtures/real/claude-code/02-bash-ls/session.jsonl --to otel -q | $(BIN)/msgcli validate -
	$(BIN)/msgcli convert fixtures/real/claude-code/02-bash-ls/session.jsonl --to atif -q | $(BIN)/msgcli validate -

## test: install with the test extras and run the suite on every core (pytest-xdist), less the
## tests marked slow, each property test on a few hypothesis examples (HYPOTHESIS=fast; CI
## runs it with HYPOTHESIS=full, then make test-slow)
HYPOTHESIS ?= fast
PYTEST_WORKERS ?= auto
PYTEST_ARGS ?=
# --dist loadfile: a test module's tests share a worker (the browser and the cluster modules
# start one Chromium, one S3 endpoint and one Dask cluster each); bytecode is cached even
# where the environment says not to: each worker and each msgcli the
# tests start would otherwise compile msgcli (and the tests) from source again
PYTEST = PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile
test: $(VENV)/.test chromium
	MSGCLI_HYPOTHESIS=$(HYPOTHESIS) $(PYTEST) -m "not slow" $(PYTEST_ARGS)

## test-all: every test, the slow ones too, each property test at its full count
test-all: $(VENV)/.test chromium
	$(MAKE) test HYPOTHESIS=full
	$(MAKE) test-slow

## test-slow: only the tests marked slow, in one process (they time a browser, start S3 and
## Dask clusters and whole msgcli processes: nothing else runs beside them)
test-slow: $(VENV)/.test chromium
	MSGCLI_HYPOTHESIS=full PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -m slow $(PYTEST_ARGS)

## test-pythons: the whole suite (as test-all: the slow tests in one process) under every other
## supported Python found on PATH (own venvs), but for the timing of the browser's opening of a
## 10k-message page: the page is the same bytes under every Python, and make test-slow times it
OTHER_PYTHONS ?= python3.12 python3.13
BROWSER_TIMING = tests/test_browser.py::test_a_10k_message_page_opens_within_3_seconds
test-pythons:
	@for py in $(OTHER_PYTHONS); do \
	  if ver=$$($$py -c 'import sys; assert sys.version_info >= (3, 11); print("%d.%d" % sys.version_info[:2])' 2>/dev/null); then \
	    echo "== Python $$ver ($$py), from $$(date -u +%H:%M:%S) UTC"; \
	    $$py -m venv .venv-python$$ver && .venv-python$$ver/bin/python -m pip --disable-pip-version-check -q install -e '.[test]' \
	      && MSGCLI_HYPOTHESIS=full PYTHONDONTWRITEBYTECODE= .venv-python$$ver/bin/python -m pytest -q -p no:cacheprovider \
	        -n $(PYTEST_WORKERS) --dist loadfile -m "not slow" $(PYTEST_ARGS) \
	      && MSGCLI_HYPOTHESIS=full PYTHONDONTWRITEBYTECODE= .venv-python$$ver/bin/python -m pytest -q -p no:cacheprovider \
	        -m slow --deselect $(BROWSER_TIMING) $(PYTEST_ARGS) || exit 1; \
	  else echo "== $$py: not on this machine, skipped"; fi; \
	done

## chromium: the browser the HTML export tests drive (Debian's package, installed as root when
## missing; without it those tests are skipped and say why)
chromium:
	@if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  echo "installing chromium for the browser tests"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	    || echo "chromium could not be installed: the browser tests will be skipped"; \
	fi

## lint: ruff over the package, the tests and the benchmarks, mypy over the package
lint: $(VENV)/.lint
	$(BIN)/ruff check msgcli tests benchmarks
	$(BIN)/ruff format --check msgcli tests benchmarks
	$(BIN)/mypy

format: $(VENV)/.lint
	$(BIN)/ruff format msgcli tests benchmarks
	$(BIN)/ruff check --fix msgcli tests benchmarks

clean:
	rm -rf $(VENV) .venv-python3.* .pytest_cache .ruff_cache .mypy_cache .hypothesis build dist

.PHONY: bench
BENCH_ARGS ?=

$(VENV)/.bench: pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[test,bench]'
	@touch $@

## bench: time msgcli on generated logs beside orjson, jsonschema and check-jsonschema, into BENCHMARKS.md (BENCH_ARGS=--quick: 100k only; BENCH_1G=1 adds a 1 GB log)
bench: $(VENV)/.bench
	$(BIN)/python benchmarks/run.py$(if $(BENCH_1G), --big) $(BENCH_ARGS)

.PHONY: fuzz
FUZZ_ARGS ?=

## fuzz: the property tests at their full hypothesis count, then 100,000 mutations of the real
## logs through every command; counts per command (FUZZ_ARGS=--count N --seed S --keep DIR;
## --commands REGEX; --sweep [--limit N]: every key path of the real records set to each hostile value)
fuzz: $(VENV)/.test
	MSGCLI_HYPOTHESIS=full $(PYTEST) -m hypothesis $(PYTEST_ARGS)
	$(BIN)/python -m tests.fuzz.run $(FUZZ_ARGS)

## bench-cluster: validate of the 1 GiB log from a local S3 endpoint: one process, -j 2, a LocalCluster of two workers
## (BENCH_CLUSTER_ARGS="--from disk" reads it from local disk; "--rows local" runs the LocalCluster row only)
.PHONY: bench-cluster
BENCH_CLUSTER_ARGS ?=
bench-cluster: $(VENV)/.test
	$(BIN)/python benchmarks/cluster.py $(BENCH_CLUSTER_ARGS)

## bench-usage: msgcli usage beside ccusage (installed from the npm registry into bench-out/, never a
## dependency) on 3,000 Claude Code sessions and on one 400 MB session, into bench-out/usage
.PHONY: bench-usage
BENCH_USAGE_ARGS ?=
bench-usage: $(VENV)/.bench
	$(BIN)/python benchmarks/usage.py $(BENCH_USAGE_ARGS)
