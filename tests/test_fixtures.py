"""Acceptance over the bundled logs, the way a user runs msgcli on them.

- Every real producer log (``fixtures/real``) validates with no error.
- Every hand-made valid log (``fixtures/valid/<dialect>``) gives no finding at all.
- Every invalid log (``fixtures/invalid/<theme>``) gives exactly the findings its
  ``.expect`` sidecar lists, as (line, code) pairs.
- Every event log in ``fixtures/events`` gives exactly the findings of its
  ``.expect`` sidecar, or none when it has no sidecar.
- Together, the sidecars cover every rule in the registry.
"""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import FIXTURES, log_files, read_expect, sidecar

from msgcli.pipeline import validate_paths
from msgcli.rules import RULES

# Claude Code's real files (a warning on a synthetic API-error record included) are held to
# their own standard in test_dialect_claude_code, LoongFlow's agent runs (warnings on an
# interrupted call, on unparsable arguments and on the framework's time stamps) in
# test_loongflow_runs; a JSON schema beside a state file is no log (a directory scan passes
# it over); the OpenTelemetry emitters' files (warnings where an older emitter writes what the
# GenAI conventions no longer say) in test_otel;
# atif-make's trajectories of stream-json logs hold each step's opening usage and the run's
# totals, which a warning says (A007): test_atif holds them to that
REAL = [
    p
    for p in log_files(FIXTURES / "real")
    if "claude-code" not in p.parts
    and p.relative_to(FIXTURES / "real").parts[0] != "otel"
    and p.name != "trajectory-from-stream.json"
    and p.parent != FIXTURES / "real" / "loongflow" / "runs"
    and not p.name.endswith(".schema.json")
]
VALID = log_files(FIXTURES / "valid")
INVALID = log_files(FIXTURES / "invalid")
#: event logs (``fixtures/events/<dialect>``): those with an ``.expect`` sidecar
#: show stream problems; the rest must replay without a finding. The rebuilt
#: messages beside them (``*-final.jsonl``, ``*-expected.jsonl``) are message logs.
EVENTS = log_files(FIXTURES / "events")
EVENT_INVALID = [p for p in EVENTS if sidecar(p).is_file()]
EVENT_CLEAN = [p for p in EVENTS if p not in EVENT_INVALID]


def ids(paths):
    return [str(p.relative_to(FIXTURES)) for p in paths]


def findings_of(path):
    run = validate_paths([path])
    return run, [f for fr in run.files for f in fr.findings]


@pytest.mark.parametrize("path", REAL, ids=ids(REAL))
def test_real_logs_are_detected_and_finding_free(path):
    run, findings = findings_of(path)
    (fr,) = run.files
    assert fr.summary.dialect == path.relative_to(FIXTURES / "real").parts[0]
    assert [f"{f.line}: {f.code} {f.message}" for f in findings] == []
    if fr.summary.kind == "events":
        # an event log is replayed while it is checked
        assert fr.summary.replay.messages >= 1


@pytest.mark.parametrize("path", VALID, ids=ids(VALID))
def test_valid_fixtures_give_no_finding(path):
    run, findings = findings_of(path)
    assert [f"{f.line}: {f.code} {f.message} ({f.pointer})" for f in findings] == []
    assert run.files[0].summary.dialect == path.relative_to(FIXTURES / "valid").parts[0]


@pytest.mark.parametrize("path", INVALID, ids=ids(INVALID))
def test_invalid_fixtures_give_exactly_the_expected_findings(path):
    expect = sidecar(path)
    assert expect.is_file(), f"{path.name} has no .expect sidecar"
    _, findings = findings_of(path)
    got = sorted((f.line, f.code) for f in findings)
    assert Counter(got) == Counter(read_expect(expect)), "\n".join(
        f"{f.line}: {f.code} {f.message} ({f.pointer})" for f in findings
    )


@pytest.mark.parametrize("path", EVENT_INVALID, ids=ids(EVENT_INVALID))
def test_broken_event_logs_give_exactly_the_expected_findings(path):
    _, findings = findings_of(path)
    got = sorted((f.line, f.code) for f in findings)
    assert Counter(got) == Counter(read_expect(sidecar(path))), "\n".join(
        f"{f.line}: {f.code} {f.message} ({f.pointer})" for f in findings
    )


@pytest.mark.parametrize("path", EVENT_CLEAN, ids=ids(EVENT_CLEAN))
def test_event_fixtures_and_their_messages_give_no_finding(path):
    _, findings = findings_of(path)
    assert [f"{f.line}: {f.code} {f.message} ({f.pointer})" for f in findings] == []


def test_every_rule_is_covered_by_a_fixture():
    covered = {code for p in INVALID for _, code in read_expect(sidecar(p))}
    covered |= {code for p in EVENT_INVALID for _, code in read_expect(sidecar(p))}
    covered |= {"P009", "P010"}  # missing paths and empty folders: see test_cli
    covered |= {"X001", "X002"}  # what a conversion cannot carry over: see test_convert
    covered |= {"X003"}  # what a conversion fills in: see test_convert_matrix
    covered |= {"F001", "F002", "F003", "F004"}  # negative fixtures gone wrong: see test_expect
    # info findings of Claude Code releases msgcli does not know: see test_dialect_claude_code
    covered |= {"K001", "K002", "K003", "K004", "K015"}
    # what is merely new in a tolerant producer's log: see test_unknown_is_info
    covered |= {"U001", "U002", "U003", "U004", "U005"}
    # ... and of Gemini CLI releases: see test_gemini_cli
    covered |= {"G001"}
    # the atif package missing: see test_atif; what newer ATIF versions bring (info):
    # fixtures/newer/atif and test_atif
    covered |= {"A011", "A002", "A003", "A004"}
    assert sorted(set(RULES) - covered) == []
