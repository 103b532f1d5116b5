"""The typed path of validation must take exactly what the fast path takes, the same way.

A dialect's ``typed_messages`` decodes a JSONL line into the types of the records its
framework writes and answers a digest, or refuses the line (which then takes the whole
way). Both ways are checked, on every message record the fixtures hold, on the benchmark
templates, and on real records with values deleted or replaced:

- a line the typed path takes is valid against the published schema, the fast path takes
  it too, and both give the same variant and digest (so no finding is lost);
- a line valid against the schema that the fast path takes, the typed path takes too
  (so the typed types reject nothing the schema accepts, within the shape the framework
  writes).
"""

from __future__ import annotations

import orjson
import pytest
from conftest import FIXTURES, examples, log_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import JSON_VALUES, mutated
from test_fast_path import RECORDS, TOKENS

from msgcli.dialects import DIALECTS
from msgcli.schemas import compiled

TYPED = [name for name, dialect in DIALECTS.items() if dialect.typed is not None]


def _typed(name: str, raw: bytes):
    decode, digest = DIALECTS[name].typed_messages()
    try:
        value = decode(raw)
    except Exception:
        return None
    return digest(value)


def _agree(name: str, obj) -> bool:
    """Whether the typed path took the record (asserting that it agrees when it did, and
    that it took it when the schema and the fast path do)."""
    raw = orjson.dumps(obj)
    typed = _typed(name, raw)
    valid = compiled(f"{name}/message").is_valid(obj)
    fast = DIALECTS[name].fast_digest(obj) if valid else None
    if typed is not None:
        assert valid, f"the typed path took a record the schema rejects: {raw[:200]!r}"
        assert fast == typed, f"the typed path digests differently: {raw[:200]!r}"
        return True
    assert fast is None, f"the typed path refused a record the fast path takes: {raw[:200]!r}"
    return False


def test_dialects_with_a_typed_path():
    assert "agentscope-py" in TYPED
    assert "agentscope-java" in TYPED


@pytest.mark.parametrize("name", TYPED)
def test_typed_path_agrees_on_every_fixture_record(name):
    taken = [_agree(name, obj) for n, obj in RECORDS if n == name]
    # it is there for the records the frameworks write: it must take most of them
    assert taken.count(True) >= 40


@pytest.mark.parametrize("name", TYPED)
def test_typed_path_takes_the_lines_as_written(name):
    # the line as the framework wrote it (key order, spacing, escapes), not as re-dumped
    seen = 0
    for path in log_files(FIXTURES / "real"):
        if path.suffix != ".jsonl":
            continue
        for raw in path.read_bytes().splitlines():
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if not isinstance(obj, dict):
                continue
            typed = _typed(name, raw)
            if typed is not None:
                seen += 1
                assert DIALECTS[name].fast_digest(obj) == typed
    assert seen >= 10


@pytest.mark.parametrize("name", TYPED)
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_typed_path_agrees_on_mutated_records(name, data):
    from test_fast_path import GOOD

    _agree(name, mutated(data, GOOD[name], JSON_VALUES | TOKENS))


@pytest.mark.parametrize("name", TYPED)
def test_values_the_two_parsers_read_differently_go_the_whole_way(name):
    good = orjson.dumps(next(obj for n, obj in RECORDS if n == name and _agree(n, obj)))
    assert _typed(name, good) is not None
    # an integer beyond 64 bits (orjson reads a float), a lone surrogate, NaN: refused
    for before, after in (
        (b'"metadata":{', b'"metadata":{"n":123456789012345678901234567890,'),
        (b'"metadata":{', b'"metadata":{"s":"\\ud800",'),
        (b'"metadata":{', b'"metadata":{"f":NaN,'),
    ):
        if before in good:
            assert _typed(name, good.replace(before, after, 1)) in (None, _typed(name, good))


#: lines the typed path decoded, per dialect (counted by _reports)
DECODED: dict[str, int] = {}


def _reports(path, monkeypatch, typed: bool):
    from msgcli.engine import FileCheck, validate_file

    with monkeypatch.context() as patch:
        patch.setattr(FileCheck, "typed_after", 1)  # the typed path from the second record
        for name in TYPED:
            dialect = DIALECTS[name]
            if not typed:
                patch.setattr(dialect, "typed", None)
                continue

            def counted(dialect=dialect, name=name):
                decode, digest = type(dialect).typed_messages(dialect)

                def decode_counted(raw):
                    DECODED[name] = DECODED.get(name, 0) + 1
                    return decode(raw)

                return decode_counted, digest

            patch.setattr(dialect, "typed_messages", counted)
        report = validate_file(path)
    summary = report.summary
    return (
        [(f.line, f.code, f.message, f.pointer) for f in report.findings],
        (summary.records, summary.errors, summary.warnings, summary.dialect, summary.variants),
    )


def test_every_fixture_log_gets_the_same_report_either_way(monkeypatch):
    checked = 0
    for path in log_files(FIXTURES):
        if path.suffix != ".jsonl":
            continue
        assert _reports(path, monkeypatch, True) == _reports(path, monkeypatch, False), path
        checked += 1
    assert checked > 100
    assert all(DECODED.get(name, 0) > 100 for name in TYPED), DECODED


def test_a_broken_log_gets_the_same_report_either_way(monkeypatch, tmp_path):
    lines = (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl").read_bytes().splitlines()
    deep = b'{"a":' * 1015 + b"1" + b"}" * 1015
    bad = [
        b"",
        b"   ",
        b"{not json",
        b"[1, 2]",
        b'{"name": NaN}',
        lines[1].replace(b'"metadata":{', b'"metadata":{"deep":' + deep + b",", 1),
        lines[2].replace(b'"role":"assistant"', b'"role":"tool"', 1),
        lines[2].replace(b'"created_at":"2026', b'"created_at":"1999', 1),
        lines[0],  # a message id used again
        b"\xff\xfe",
    ]
    body = []
    for extra in bad:
        body.extend(lines)
        body.append(extra)
    path = tmp_path / "broken.jsonl"
    path.write_bytes(b"\n".join(body + lines) + b"\n" + lines[3][:50])
    typed = _reports(path, monkeypatch, True)
    assert typed == _reports(path, monkeypatch, False)
    codes = {code for _, code, _, _ in typed[0]}
    assert {"P001", "P003", "P004", "P005", "I001"} <= codes, codes
