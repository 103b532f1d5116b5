"""Framing and bad input: every problem is located, every other line still read."""

from __future__ import annotations

import gzip
import io

import pytest

from msgcli.reader import ReadError, read_records


def records(data: bytes):
    return list(read_records(io.BytesIO(data)))


def test_blank_lines_bom_and_crlf_are_fine():
    recs = records(b'\xef\xbb\xbf{"a": 1}\r\n\r\n   \n{"b": 2}\r\n')
    assert [(r.line, r.obj, r.problem) for r in recs] == [(1, {"a": 1}, None), (4, {"b": 2}, None)]


def test_each_bad_line_is_reported_on_its_line_and_the_rest_is_read():
    data = b'{"a": 1}\n{oops}\n{"b": 2}\n[1]\n{"c": 3}\n'
    recs = records(data)
    assert [(r.line, r.problem.code if r.problem else None) for r in recs] == [
        (1, None),
        (2, "P001"),
        (3, None),
        (4, "P003"),
        (5, None),
    ]
    assert "column 2" in recs[1].problem.message


def test_truncated_last_line_is_told_apart_from_invalid_json():
    recs = records(b'{"a": 1}\n{"b": "unfinish')
    assert recs[-1].problem.code == "P004"
    # the same text followed by a newline was written whole: it is just invalid
    recs = records(b'{"a": 1}\n{"b": "unfinish\n{"c": 1}\n')
    assert recs[1].problem.code == "P001"


def test_nan_and_infinity_are_named_with_their_place_and_the_record_kept():
    (rec,) = records(b'{"score": NaN, "cost": [1, -Infinity]}\n')
    assert rec.problem.code == "P006"
    assert "NaN (at /score)" in rec.problem.message
    assert "-Infinity (at /cost/1)" in rec.problem.message
    assert rec.obj["cost"][0] == 1


def test_invalid_utf8_names_the_byte_and_column():
    (rec,) = records(b'{"text": "caf\xe9"}\n')
    assert rec.problem.code == "P002"
    assert "0xe9" in rec.problem.message and "column 14" in rec.problem.message


def test_deep_nesting_binary_and_empty():
    assert records(b"[" * 3000 + b"]" * 3000 + b"\n")[0].problem.code == "P005"
    assert records(b"\x00\x01\x02PK\x03\x04 binary\n")[0].problem.code == "P007"
    assert [(r.line, r.problem.code) for r in records(b"")] == [(0, "P008")]
    assert [(r.line, r.problem.code) for r in records(b"\n \n")] == [(0, "P008")]


def test_json_array_file_gives_each_element_its_line():
    data = b'[\n  {"a": 1},\n  {\n    "b": "tricky \\" ], {"\n  },\n  7\n]\n'
    recs = records(data)
    assert [(r.line, r.obj, r.problem.code if r.problem else None) for r in recs] == [
        (2, {"a": 1}, None),
        (3, {"b": 'tricky " ], {'}, None),
        (6, None, "P003"),
    ]


def test_a_line_that_is_an_array_in_a_jsonl_file_is_not_an_array_file():
    recs = records(b'[1, 2]\n{"a": 1}\n')
    assert [(r.line, r.problem.code if r.problem else None) for r in recs] == [
        (1, "P003"),
        (2, None),
    ]


def test_sse_framing_comments_and_multi_line_data():
    data = (
        b': heartbeat\n\ndata: {"a": 1}\n\nevent: x\ndata: {"b":\ndata:  2}\n\n:\n\ndata: {bad\n\n'
    )
    recs = records(data)
    assert [(r.line, r.obj, r.problem.code if r.problem else None) for r in recs] == [
        (3, {"a": 1}, None),
        (6, {"b": 2}, None),
        (11, None, "P001"),
    ]


def test_gzip_is_read_by_its_magic_and_a_cut_stream_is_reported(tmp_path):
    body = b"".join(b'{"n": %d}\n' % i for i in range(2000))
    whole = tmp_path / "log.data"  # no .gz suffix: recognised by content
    whole.write_bytes(gzip.compress(body))
    assert [r.obj["n"] for r in read_records(whole)] == list(range(2000))
    packed = gzip.compress(body)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    recs = list(read_records(cut))
    assert recs[-1].problem.code == "P009"
    assert all(r.problem is None for r in recs[:-1])


def test_missing_file_and_directory_raise_read_error(tmp_path):
    with pytest.raises(ReadError, match="no such file"):
        list(read_records(tmp_path / "nope.jsonl"))
    with pytest.raises(ReadError, match="directory"):
        list(read_records(tmp_path))
