"""Byte ranges of one log through the library, as a Spark, Dask or Ray job checks a large file:
``validate_range`` on each range (anywhere, in any process), ``join_ranges`` over all of them.

The joined report must be the report of the whole file (``validate_one``), finding for finding:
on the real logs, and on a log whose broken lines (bad JSON, invalid UTF-8, a line that is no
object, blank lines, a cut last line) sit at the edges of the ranges, with tool calls answered
and message ids repeated across them. The ranges are cut at line starts (``byte_ranges``) and
at any byte at all (an engine's own input splits).
"""

from __future__ import annotations

import gzip
import json
import pickle
import random
from itertools import pairwise
from pathlib import Path

import pytest
from conftest import FIXTURES

from msgcli.api import (
    RangeError,
    byte_ranges,
    join_ranges,
    joined_messages,
    read_messages,
    read_range,
    validate_one,
    validate_range,
)

#: the real message logs of the dialects whose checks can be split
SPLITTABLE = [
    FIXTURES / "real" / "agentscope-py" / "transcript.jsonl",
    FIXTURES / "real" / "agentscope-java" / "transcript.jsonl",
    FIXTURES / "real" / "loongflow" / "transcript.jsonl",
    FIXTURES / "invalid" / "mixed-problems" / "agentscope-py-run.jsonl",
]


def _joined(path: Path, ranges: list[tuple[int, int]], **options) -> dict:
    # each result goes through pickle, as it does between a Spark or Dask worker and the driver
    results = [
        pickle.loads(pickle.dumps(validate_range(str(path), start, end, **options)))
        for start, end in ranges
    ]
    random.Random(len(ranges)).shuffle(results)  # they arrive in any order
    return join_ranges(results, **options)


def _every(size: int, step: int) -> list[tuple[int, int]]:
    """Ranges of ``step`` bytes: cut anywhere, mid-line, mid-character."""
    cuts = [*range(0, size, step), size]
    return list(pairwise(cuts))


@pytest.mark.parametrize("path", SPLITTABLE, ids=lambda p: p.parent.name)
@pytest.mark.parametrize("parts", [2, 3, 5, 8])
def test_ranges_at_line_starts_join_to_the_whole_file(path, parts):
    ranges = byte_ranges(str(path), parts)
    assert len(ranges) > 1 and ranges[0][0] == 0 and ranges[-1][1] == path.stat().st_size
    assert _joined(path, ranges) == validate_one(str(path))


@pytest.mark.parametrize("path", SPLITTABLE, ids=lambda p: p.parent.name)
@pytest.mark.parametrize("step", [97, 1000, 4096])
def test_ranges_cut_anywhere_join_to_the_whole_file(path, step):
    ranges = _every(path.stat().st_size, step)
    assert _joined(path, ranges) == validate_one(str(path))


def test_the_findings_of_the_mixed_problems_log_are_there_joined():
    """A test that would pass on no findings at all would prove nothing: the invalid real log
    has findings across records (tool pairing, repeated ids) and they survive the cut."""
    path = FIXTURES / "invalid" / "mixed-problems" / "agentscope-py-run.jsonl"
    whole = validate_one(str(path))
    codes = {f["code"] for f in whole["findings"]}
    assert whole["failed"] and len(codes) >= 3
    assert _joined(path, _every(path.stat().st_size, 300))["findings"] == whole["findings"]


def _broken_log(tmp_path: Path) -> tuple[Path, list[int]]:
    """The real AgentScope Python transcript with broken lines put between its records; the
    byte offsets where each broken line starts, ends, and its middle."""
    source = (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl").read_bytes()
    lines = source.splitlines(keepends=True)
    broken = [
        b'{"id": "cut-off", "role": "assistant", "content": [{"type": "te\n',
        b"\xff\xfe not utf-8 \xc3\n",
        b"[1, 2, 3]\n",
        b"\n",
        b"   \n",
        b'{"id": "nan", "role": "user", "content": [], "x": NaN}\n',
        b"not json at all\n",
    ]
    out = bytearray()
    edges: list[int] = []
    for line in lines:
        out += line
        if broken:
            bad = broken.pop(0)
            edges += [len(out), len(out) + len(bad) // 2, len(out) + len(bad)]
            out += bad
    out += lines[0]  # its message id again: a repeated id across ranges
    out += b'{"id": "last", "role": "user", "content": [{"type": "te'  # cut last line
    path = tmp_path / "broken.jsonl"
    path.write_bytes(bytes(out))
    edges.append(len(out) - 10)
    return path, sorted(set(edges))


def test_broken_lines_at_the_edges_of_ranges_are_found_as_in_the_whole_file(tmp_path):
    path, edges = _broken_log(tmp_path)
    whole = validate_one(str(path))
    codes = [f["code"] for f in whole["findings"]]
    # what a user sees in the whole-file run: bad JSON, bad UTF-8, no object, NaN, a cut line
    assert {"P001", "P002", "P004", "P006"} <= set(codes), codes
    size = path.stat().st_size
    # cut exactly at the start, the middle and the end of each broken line
    cuts = [0, *edges, size]
    ranges = list(pairwise(cuts))
    assert _joined(path, ranges) == whole
    for step in (13, 211):
        assert _joined(path, _every(size, step)) == whole
    for parts in (2, 7):
        assert _joined(path, byte_ranges(str(path), parts)) == whole


def test_options_apply_to_the_ranges_as_to_the_whole_file(tmp_path):
    path, _ = _broken_log(tmp_path)
    options = {"ignore": ["P001"], "strict": True}
    assert _joined(path, _every(path.stat().st_size, 150), **options) == validate_one(
        str(path), **options
    )


def test_a_claude_code_session_is_cut_like_any_message_log():
    """A response's records, and a call and its result, may fall in different ranges: the
    checks across records run over the ranges' digests in file order, as for one pass."""
    path = FIXTURES / "real" / "claude-code" / "03-parallel-read" / "session.jsonl"
    ranges = _every(path.stat().st_size, 500)
    results = [validate_range(str(path), s, e) for s, e in ranges]
    assert len(ranges) > 3 and not any(r.get("whole") for r in results)
    assert join_ranges(results) == validate_one(str(path))


@pytest.mark.parametrize(
    "path",
    [FIXTURES / "real" / "agentscope-py" / "events.sse"],
    ids=lambda p: p.name,
)
def test_a_log_that_cannot_be_cut_is_checked_whole_by_its_first_range(path):
    """An SSE stream, a gzip file: the range at byte 0 checks the whole file, the others
    give nothing; joined, the whole file."""
    ranges = _every(path.stat().st_size, 500)
    results = [validate_range(str(path), s, e) for s, e in ranges]
    assert sum(1 for r in results if r.get("whole")) == 1
    assert join_ranges(results) == validate_one(str(path))


def test_a_gzip_log_is_checked_whole(tmp_path):
    path = tmp_path / "t.jsonl.gz"
    path.write_bytes(gzip.compress(SPLITTABLE[0].read_bytes()))
    assert _joined(path, _every(path.stat().st_size, 256)) == validate_one(str(path))


def test_ranges_that_do_not_cover_the_file_once_are_refused():
    path = str(SPLITTABLE[0])
    size = SPLITTABLE[0].stat().st_size
    results = [validate_range(path, s, e) for s, e in _every(size, 1000)]
    with pytest.raises(RangeError, match="gap"):
        join_ranges(results[:2] + results[3:])  # a range lost
    with pytest.raises(RangeError, match="overlap"):
        join_ranges([*results, results[1]])  # a range counted twice
    with pytest.raises(RangeError, match="end at byte"):
        join_ranges(results[:-1])  # the tail lost
    other = validate_range(str(SPLITTABLE[2]), 0, 10)
    with pytest.raises(RangeError, match="files"):
        join_ranges([*results, other])


@pytest.mark.parametrize("path", SPLITTABLE, ids=lambda p: p.parent.name)
def test_read_range_gives_the_messages_of_the_whole_file_with_its_line_numbers(path):
    whole = list(read_messages(str(path)))
    assert whole
    for ranges in (byte_ranges(str(path), 3), _every(path.stat().st_size, 333)):
        results = [pickle.loads(pickle.dumps(read_range(str(path), s, e))) for s, e in ranges]
        got = list(joined_messages(results))
        assert [line for line, _ in got] == [line for line, _ in whole]
        assert [m.id for _, m in got] == [m.id for _, m in whole]
        assert got == whole


def test_the_ranges_results_are_plain_data():
    path = str(FIXTURES / "invalid" / "mixed-problems" / "agentscope-py-run.jsonl")
    result = validate_range(path, 0, 2000)
    json.dumps({k: v for k, v in result.items() if k != "digests"})  # findings, summary
    assert all(isinstance(f["line"], int) for f in result["findings"])
