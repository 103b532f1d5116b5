"""Which dialect claims a record, checked for every dialect at once.

Every sample of ``samples.py`` and every record of the bundled logs (``fixtures/real``,
``fixtures/valid/<dialect>``) is claimed by its own dialect, as a message or an event, and
by no other; the registry's ``classify()`` names that dialect. Records of no dialect (other
protocols, values that are no record) are claimed by none. Detection edge cases of one
dialect stay in that dialect's test file.
"""

from __future__ import annotations

import pytest
from conftest import FIXTURES, log_files
from samples import DIALECT_SAMPLES, EVENT_LOGS, UNCLAIMED, lines, log_dialect_and_kind, log_records

from msgcli.dialects import DIALECTS, classify

LOGS = [
    p
    for p in log_files(FIXTURES / "real") + log_files(FIXTURES / "valid")
    if not p.name.endswith(".schema.json")  # a JSON schema beside a state file: no log
]

SAMPLES = [
    pytest.param(name, kind, record, id=f"{name}-{kind}-{i}")
    for name, kinds in DIALECT_SAMPLES.items()
    for kind, found in kinds.items()
    for i, record in enumerate(found, 1)
]
LOG_RECORDS = [
    pytest.param(*log_dialect_and_kind(path), record, id=f"{path.relative_to(FIXTURES)}:{line}")
    for path in LOGS
    for line, record in log_records(path)
]


def _verdicts(record) -> dict[str, str | None]:
    return {name: dialect.classify(record) for name, dialect in DIALECTS.items()}


@pytest.mark.parametrize(("name", "kind", "record"), SAMPLES + LOG_RECORDS)
def test_each_record_is_claimed_by_its_own_dialect_only(name, kind, record):
    expected = {other: (kind if other == name else None) for other in DIALECTS}
    assert _verdicts(record) == expected
    found = classify(record)
    assert found is not None and (found[0].name, found[1]) == (name, kind)


@pytest.mark.parametrize("record", UNCLAIMED, ids=repr)
def test_records_of_no_dialect_are_left_alone(record):
    assert _verdicts(record) == dict.fromkeys(DIALECTS)
    assert classify(record) is None


def test_the_matrix_covers_every_dialect_and_kind():
    assert set(DIALECT_SAMPLES) == set(DIALECTS)
    for name, kinds in DIALECT_SAMPLES.items():
        assert kinds["message"], name
    # a renamed event log would silently count as a message log
    assert {p.relative_to(FIXTURES).as_posix() for p in LOGS} >= EVENT_LOGS
    assert {log_dialect_and_kind(p)[0] for p in LOGS} == set(DIALECTS)
    assert all(log_records(p) for p in LOGS)


def _library_cases():
    folder = FIXTURES / "cases" / "loongflow"
    for file in ("edge_cases_valid.jsonl", "invalid_cases.jsonl"):
        for case in lines(folder / file):
            for key in ("input", "to_dict"):
                if isinstance(case.get(key), dict):
                    yield pytest.param(case[key], id=f"{file}:{case['case']}:{key}")


@pytest.mark.parametrize("record", list(_library_cases()))
def test_loongflow_library_cases_are_left_to_loongflow(record):
    """What LoongFlow's library accepts or rejects is never another dialect's record (whether
    LoongFlow claims each one is in test_dialect_loongflow.py)."""
    verdicts = _verdicts(record)
    del verdicts["loongflow"]
    assert verdicts == dict.fromkeys(verdicts)
