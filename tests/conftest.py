from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
LOG_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".sse")

#: The hypothesis profile, chosen by $MSGCLI_HYPOTHESIS: ``fast`` (``make test``) runs each
#: property test on a few examples, ``full`` (``make test-all``, ``make fuzz``, CI) on the
#: count the test names. Unset, a CI run ($CI) is ``full`` and any other run ``fast``.
PROFILE = os.environ.get("MSGCLI_HYPOTHESIS") or ("full" if os.environ.get("CI") else "fast")
settings.register_profile("full")
settings.register_profile("fast", max_examples=15)
if PROFILE not in ("fast", "full"):
    raise pytest.UsageError(f"MSGCLI_HYPOTHESIS={PROFILE!r}: the profiles are fast and full")
settings.load_profile(PROFILE)


def examples(full: int) -> int:
    """How many examples a property test runs: ``full`` under the full profile, no more than
    the fast profile's few under ``fast``. (A test's own ``max_examples`` would override any
    profile, so each names its full count through this.)"""
    return full if PROFILE == "full" else min(full, settings.default.max_examples)


@pytest.fixture(autouse=True)
def _no_project_config(request, monkeypatch):
    """The command line reads the repository's own [tool.msgcli] when run from its root, as
    the tests are; tests see msgcli as a user without a configuration does, unless marked
    ``project_config`` (the tests of the configuration itself)."""
    if request.node.get_closest_marker("project_config") is None:
        import msgcli.config

        monkeypatch.setattr(msgcli.config, "discover", lambda start=None: None)


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch):
    """``show`` follows $COLUMNS when piped: the tests see the width it uses without it."""
    monkeypatch.delenv("COLUMNS", raising=False)


def log_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name.endswith(LOG_SUFFIXES))


def document_messages(value):
    """The messages a parsed JSON log document holds, read by its known shapes: a JSON array
    (LoongFlow's FileStorage), a state file's ``context`` (AgentScope ``AgentState``, AgentScope
    Java's ``agent_state.json``), an AgentScope 1.x session's ``memory.content`` pairs."""
    if isinstance(value, list):
        return value
    if "context" in value:
        return value["context"]
    if "memory" in value:
        return [pair[0] for pair in value["memory"]["content"]]
    return []


def sidecar(log: Path) -> Path:
    name = log.name
    for suffix in LOG_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return log.with_name(name + ".expect")


def values_of(value, key):
    """Every value of ``key`` anywhere inside a JSON document (e.g. every ``$ref``)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == key:
                yield v
            yield from values_of(v, key)
    elif isinstance(value, list):
        for v in value:
            yield from values_of(v, key)


def resolve_pointer(document, pointer: str):
    """The value a JSON pointer names in ``document`` (KeyError/IndexError if none)."""
    value = document
    for raw in pointer.split("/")[1:] if pointer else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def read_expect(path: Path) -> list[tuple[int, str]]:
    """``(line, code)`` pairs from an ``.expect`` sidecar."""
    out = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        line, code = text.split()
        out.append((int(line), code))
    return sorted(out)


@pytest.fixture(scope="module")
def schema(request) -> dict:
    """The message schema of the dialect the test module is about (its ``DIALECT``), as the
    repository holds it."""
    path = ROOT / "schemas" / request.module.DIALECT.name / "message.schema.json"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def validator(schema):
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture
def run_cli():
    """Run the msgcli command line in-process; returns (exit code, stdout), or
    (exit code, stdout, stderr) with ``stderr=True``."""
    from typer.testing import CliRunner

    from msgcli.cli import app

    runner = CliRunner()

    def run(*args: str, input: bytes | str | None = None, stderr: bool = False):
        result = runner.invoke(app, list(args), input=input, catch_exceptions=False)
        if stderr:
            return result.exit_code, result.stdout, result.stderr
        return result.exit_code, result.stdout

    return run
