"""The typed loop (``FileCheck._typed_loop``) and the checks across records it feeds, as
made cheaper per record: the same report as the whole way on the cases those savings touch.

- times read all at once (AgentScope Python) must still see each time on its own: a time
  that holds a NUL between two written times is no time as the framework writes it (C001);
- the nesting bound is asked only of lines long enough to nest too deep: a long line that
  does, and one just short of it, get what the whole way gives them;
- ids kept in compact form and tool items fed whole: every pairing finding (I001, I002,
  T001, T002, T003, T006) and the time order (C002) as the whole way says them.
"""

from __future__ import annotations

import orjson
from conftest import FIXTURES
from hypothesis import example, given
from hypothesis import strategies as st
from test_typed_path import _reports, _typed

from msgcli.checks import CrossChecks
from msgcli.dialects import get_dialect
from msgcli.guard import RECORD_DEPTH


def _py_lines() -> list[bytes]:
    return (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl").read_bytes().splitlines()


def test_a_time_holding_a_nul_is_no_written_time(monkeypatch, tmp_path):
    lines = _py_lines()
    obj = orjson.loads(lines[1])
    two = "2026-01-01T00:00:00.000000\x002026-01-01T00:00:00.000000"
    obj["content"][0]["finished_at"] = two
    line = orjson.dumps(obj)
    assert _typed("agentscope-py", line) is None  # the typed path leaves it to the whole way
    path = tmp_path / "nul.jsonl"
    path.write_bytes(b"\n".join([*lines, line]) + b"\n")
    typed = _reports(path, monkeypatch, True)
    assert typed == _reports(path, monkeypatch, False)
    assert (len(lines) + 1, "C001") in {(line, code) for line, code, _, _ in typed[0]}


def _padded(line: bytes, size: int, deep: int) -> bytes:
    """``line`` (with empty metadata) with metadata that nests the record ``deep`` levels,
    padded to ``size`` bytes."""
    nested = b'{"a":' * (deep - 2) + b"1" + b"}" * (deep - 2)  # (the record and its metadata)
    out = line.replace(b'"metadata":{}', b'"metadata":{"deep":' + nested + b',"pad":""}', 1)
    return out.replace(b'"pad":""', b'"pad":"' + b"x" * (size - len(out)) + b'"', 1)


def test_lines_at_the_nesting_bound_get_the_whole_ways_report(monkeypatch, tmp_path):
    lines = _py_lines()
    short = 2 * RECORD_DEPTH + 1  # (a line no longer than this cannot nest deeper)
    brief = sorted((line for line in lines if b'"metadata":{}' in line), key=len)
    assert len(brief[1]) < short - 100
    extra = [
        _padded(brief[0], short, 20),
        _padded(brief[1], short + 1, 20),
        _padded(brief[2], 5 * short, RECORD_DEPTH),  # as deep as a record may be
        _padded(brief[3], 5 * short, RECORD_DEPTH + 1),  # deeper: P005
    ]
    assert [len(line) for line in extra[:2]] == [short, short + 1]
    body = []
    for line in extra:
        body.extend(lines)
        body.append(line)
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b"\n".join(body) + b"\n")
    typed = _reports(path, monkeypatch, True)
    assert typed == _reports(path, monkeypatch, False)
    deep_line = 4 * len(lines) + 4
    assert (deep_line, "P005") in {(line, code) for line, code, _, _ in typed[0]}


def _changed(line: bytes, before: bytes, after: bytes) -> bytes:
    assert before in line
    return line.replace(before, after, 1)


def test_pairings_and_time_order_as_the_whole_way_says_them(monkeypatch, tmp_path):
    path = FIXTURES / "real" / "agentscope-java" / "transcript.jsonl"
    lines = path.read_bytes().splitlines()
    call = next(line for line in lines if b'"tool_use"' in line)
    result = next(line for line in lines if b'"tool_result"' in line)
    shuffled = [
        *lines,
        *lines,  # every id again: I001, I002, a call answered again
        result,  # a result for a call answered already: nothing to say
        call,  # two calls with the same id (I002), waiting
        call,
        # the first one answered for another tool (T006), the second never (T002)
        _changed(result, b'"call_Wx81aQ","name":"', b'"call_Wx81aQ","name":"other_'),
        _changed(result, b'"tool_result","id":"', b'"tool_result","id":"new-'),  # T001
        _changed(lines[0], b'"timestamp":"20', b'"timestamp":"19'),  # older: C002
    ]
    out = tmp_path / "pairs.jsonl"
    out.write_bytes(b"\n".join(shuffled) + b"\n")
    typed = _reports(out, monkeypatch, True)
    assert typed == _reports(out, monkeypatch, False)
    codes = {code for _, code, _, _ in typed[0]}
    assert {"I001", "I002", "T001", "T002", "T006", "C002"} <= codes, codes


_ID_CHARS = "0123456789abcdefABCDEF-xz_ \n١"


@given(
    first=st.text(_ID_CHARS, max_size=40) | st.uuids().map(str) | st.uuids().map(lambda u: u.hex),
    second=st.text(_ID_CHARS, max_size=40) | st.integers(-5, 2**70),
    same=st.booleans(),
)
@example(first="abc", second="ABC", same=False)
@example(first="0abc", second="abc", same=False)
@example(first="12", second=12, same=False)
@example(
    first="bea6fd0d-d4b1-40c7-85f3-530abb702fae",
    second="bea6fd0dd4b140c785f3530abb702fae",
    same=False,
)
@example(first="bea6fd0d-d4b1-40c7-85f3-530abb702fae", second="", same=True)
def test_two_ids_are_one_exactly_when_they_are_equal(first, second, same):
    # the compact form of a message id (numbers for hex and UUID text) is worked out in the
    # feed itself: two ids may only ever meet when they are the same id
    if same:
        second = first
    found = []
    checks = CrossChecks(get_dialect("agentscope-java"), lambda *a, **k: found.append(a[0]))
    checks.feed_digest(1, (first or None, first, None, None, ()))
    checks.feed_digest(2, (second if second != "" else None, second, None, None, ()))
    assert (found == ["I001"]) == (first != "" and first == second)
