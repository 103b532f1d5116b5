"""An integer beyond 64 bits is read as the integer it is, and written back unchanged by every
command that writes records or rows of them.

orjson, the reader's parser, makes a float of such an integer (2**70 would come back as
1.1805916207174113e+21); the line that holds one is read again by the standard library's
parser, that line only. The tests insert 2**70 into real logs, where a producer could put
it (a message's metadata, a tool call's arguments, a model call's token count), and look
for its digits in what each command writes.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import orjson
import pytest
from conftest import FIXTURES

import msgcli
import msgcli.writer
from msgcli.converters import targets
from msgcli.guard import may_hold_big_int
from msgcli.reader import read_records

BIG = 2**70
DIGITS = str(BIG)  # 1180591620717411303424
FLOAT = repr(float(BIG))  # what orjson makes of it: 1.1805916207174113e+21
JAVA = FIXTURES / "real/agentscope-java/transcript.jsonl"
PY_EVENTS = FIXTURES / "real/agentscope-py/events.jsonl"


@pytest.fixture
def java_log(tmp_path: Path) -> Path:
    """The real Java transcript with 2**70 in the user message's metadata and in the
    tool call's arguments (the object and its JSON text)."""
    data = JAVA.read_bytes()
    meta = b'"metadata":{"channel":"web"}'
    call = b'"input":{"city":"Z\xc3\xbcrich","unit":"celsius"}'
    text = b'"content":"{\\"city\\":\\"Z\xc3\xbcrich\\",\\"unit\\":\\"celsius\\"}"'
    assert data.count(meta) == data.count(call) == data.count(text) == 1
    data = data.replace(meta, b'"metadata":{"channel":"web","trace":%d}' % BIG)
    data = data.replace(call, call[:-1] + b',"n":%d}' % BIG)
    data = data.replace(text, text[:-2] + b',\\"n\\":%d}"' % BIG)
    path = tmp_path / "transcript.jsonl"
    path.write_bytes(data)
    return path


def found(text: str | bytes) -> tuple[int, int]:
    """How often the integer's digits, and the float orjson would make of it, occur."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return text.count(DIGITS), text.count(FLOAT)


# -- the reader -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [2**64, 2**70, -(2**63) - 1, -(2**80), 10**40],
    ids=["2^64", "2^70", "-2^63-1", "-2^80", "10^40"],
)
def test_an_integer_beyond_64_bits_is_read_as_itself(value: int):
    line = b'{"role": "user", "n": %d, "list": [1, %d, 2.5]}\n' % (value, value)
    (record,) = read_records(io.BytesIO(line))
    assert record.obj == {"role": "user", "n": value, "list": [1, value, 2.5]}
    assert type(record.obj["n"]) is int


def test_a_line_without_one_reads_as_orjson_reads_it():
    # 64-bit integers, long digit runs inside strings, floats with many digits
    line = (
        b'{"a": 18446744073709551615, "b": -9223372036854775808, '
        b'"c": "12345678901234567890123", "d": 1.2345678901234567890123, "e": 1e300}'
    )
    (record,) = read_records(io.BytesIO(line))
    assert record.obj == orjson.loads(line)
    # the common line is not read twice: no 19 digits in a row
    assert not may_hold_big_int(JAVA.read_bytes())


def test_json_documents_and_event_streams_keep_it_too(tmp_path: Path):
    document = tmp_path / "log.json"
    document.write_bytes(b'[{"role": "user", "content": "hi", "metadata": {"n": %d}}]' % BIG)
    (record,) = read_records(document)
    assert record.obj["metadata"]["n"] == BIG
    sse = tmp_path / "log.sse"
    sse.write_bytes(b'data: {"type": "x", "n": %d}\n\n' % BIG)
    (record,) = read_records(sse)
    assert record.obj["n"] == BIG


def test_beside_a_nan_it_is_still_exact():
    (record,) = read_records(io.BytesIO(b'{"role": "user", "a": NaN, "n": %d}\n' % BIG))
    assert record.problem is not None and record.problem.code == "P006"
    assert record.obj["n"] == BIG


# -- every command that writes records ------------------------------------------------


@pytest.mark.parametrize("to", targets())
def test_convert_writes_it_back_unchanged(java_log: Path, to: str):
    result = msgcli.convert(str(java_log), to)
    written = b"".join(msgcli.writer.dumps(r) + b"\n" for r in result.records)
    digits, floats = found(written)
    assert floats == 0
    # the metadata where the target has metadata, the arguments everywhere
    has_metadata = msgcli.dialects.DIALECTS[to].load_writer().has_metadata
    assert digits >= (2 if has_metadata else 1)
    if to != "agentscope-java":
        back = msgcli.convert(io.BytesIO(written), "agentscope-java").records
        again = b"".join(msgcli.writer.dumps(r) + b"\n" for r in back)
        if has_metadata:
            # with what traveled along, the way back gives the log byte for byte once parsed
            original = [json.loads(line) for line in java_log.read_bytes().splitlines()]
            assert [json.loads(line) for line in again.splitlines()] == original
        assert found(again)[1] == 0


def test_query_writes_it_back_unchanged(run_cli, java_log: Path):
    code, stdout = run_cli("query", str(java_log))
    assert code == 0
    written = [json.loads(line) for line in stdout.splitlines()]
    assert written == [json.loads(line) for line in java_log.read_bytes().splitlines()]
    assert found(stdout) == (3, 0)


@pytest.mark.parametrize("provider", ["openai", "anthropic", "dashscope"])
def test_format_sends_it_unchanged(run_cli, java_log: Path, provider: str):
    code, stdout = run_cli("format", str(java_log), "--provider", provider)
    assert code == 0
    request = json.loads(stdout)
    assert found(stdout) == (1, 0)  # the tool call's arguments (metadata is not sent)
    if provider == "anthropic":
        (call,) = [
            b for m in request["messages"] for b in m["content"] if b.get("type") == "tool_use"
        ]
        assert call["input"]["n"] == BIG


@pytest.mark.parametrize("suffix", [".csv", ".sqlite", ".parquet", ".duckdb"])
def test_export_writes_it_unchanged_in_every_table_format(
    run_cli, java_log: Path, tmp_path: Path, suffix: str
):
    target = tmp_path / f"tables{suffix}"
    code, _ = run_cli("export", str(java_log), "--to", str(target))
    assert code == 0
    arguments = _tool_call_arguments(target, suffix)
    assert arguments == [
        json.dumps({"city": "Zürich", "unit": "celsius", "n": BIG}, separators=(",", ":"))
    ] or [json.loads(a) for a in arguments] == [{"city": "Zürich", "unit": "celsius", "n": BIG}]
    assert all(FLOAT not in a for a in arguments)


def _tool_call_arguments(target: Path, suffix: str) -> list[str]:
    query = "SELECT arguments FROM tool_calls WHERE arguments IS NOT NULL"
    if suffix == ".csv":
        with (target / "tool_calls.csv").open(encoding="utf-8") as fh:
            return [row["arguments"] for row in csv.DictReader(fh) if row["arguments"]]
    if suffix == ".sqlite":
        return [row[0] for row in sqlite3.connect(target).execute(query)]
    import duckdb

    if suffix == ".parquet":
        rows = duckdb.sql(f"SELECT arguments FROM '{target / 'tool_calls.parquet'}'").fetchall()
        return [row[0] for row in rows if row[0] is not None]
    connection = duckdb.connect(str(target))
    try:
        return [row[0] for row in connection.execute(query).fetchall()]
    finally:
        connection.close()


def test_sql_answers_with_it_unchanged(run_cli, java_log: Path):
    code, stdout = run_cli(
        "sql", "SELECT arguments FROM tool_calls", str(java_log), "--format", "json"
    )
    assert code == 0
    assert DIGITS in stdout and FLOAT not in stdout


def test_replay_sums_it_exactly(run_cli, tmp_path: Path):
    """A model call's token count of 2**70: the rebuilt reply's usage is the exact sum."""
    data = PY_EVENTS.read_bytes()
    assert data.count(b'"input_tokens": 412,') == 1
    log = tmp_path / "events.jsonl"
    log.write_bytes(data.replace(b'"input_tokens": 412,', b'"input_tokens": %d,' % BIG))
    code, stdout = run_cli("replay", str(log))
    assert code == 0
    (reply,) = [json.loads(line) for line in stdout.splitlines()]
    assert reply["usage"]["input_tokens"] == BIG + 498  # the two model calls, summed
    assert FLOAT not in stdout
