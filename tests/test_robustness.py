"""Whatever bytes arrive, validate reports and never crashes.

Random lines are mixed into real logs: garbage bytes, truncations and
mutations of real records. Every run must end with known rule codes on
lines inside the input, one-line messages, and the exit status those
findings call for. (That the lines around a bad one are still checked is
shown by the fixtures in fixtures/invalid/bad-input.)
"""

from __future__ import annotations

import io

import orjson
from conftest import FIXTURES, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import msgcli
from msgcli.rules import RULES

REAL = [
    FIXTURES / "real" / "agentscope-py" / "transcript.jsonl",
    FIXTURES / "real" / "loongflow" / "transcript.jsonl",
    FIXTURES / "valid" / "agentscope-java" / "react-weather.jsonl",
]
LINES = [line for path in REAL for line in path.read_bytes().splitlines() if line.strip()]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def mutated_record(draw) -> bytes:
    record = orjson.loads(LINES[draw(st.integers(0, len(LINES) - 1))])
    keys = list(record)
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.sampled_from(["drop", "replace", "add", "content"]))
        if action == "drop" and keys:
            record.pop(draw(st.sampled_from(keys)), None)
        elif action == "replace" and keys:
            record[draw(st.sampled_from(keys))] = draw(json_values)
        elif action == "add":
            record[draw(st.text(max_size=8))] = draw(json_values)
        elif isinstance(record.get("content"), list) and record["content"]:
            block = record["content"][draw(st.integers(0, len(record["content"]) - 1))]
            if isinstance(block, dict) and block:
                block[draw(st.sampled_from(list(block)))] = draw(json_values)
    return orjson.dumps(record)


real_line = st.integers(0, len(LINES) - 1).map(LINES.__getitem__)
line_strategy = st.one_of(
    real_line,
    mutated_record(),
    st.binary(max_size=80),
    real_line.map(lambda line: line[: len(line) // 2]),
    st.just(b"[" * 1100),
    st.just(b'{"a": NaN}'),
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line_strategy, min_size=1, max_size=8), st.booleans())
def test_any_input_gives_located_findings_and_no_crash(lines, final_newline):
    data = b"\n".join(lines) + (b"\n" if final_newline else b"")
    run = msgcli.validate(io.BytesIO(data))
    total_lines = data.count(b"\n") + 1
    for finding in run.findings():
        assert finding.code in RULES
        assert 0 <= finding.line <= total_lines
        assert finding.message and "\n" not in finding.message
    # exit 2 only when the bytes could not be read at all (a broken gzip stream)
    unreadable = any(f.code == "P009" for f in run.findings())
    assert run.exit_code == (2 if unreadable else 1 if run.errors() else 0)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(mutated_record(), min_size=1, max_size=6),
    st.sampled_from(["agentscope-java", "agentscope-py", "loongflow"]),
    st.booleans(),
)
def test_convert_never_crashes_on_mutated_records(records, target, carry):
    """Records the framework would reject are still converted as far as they go (validate
    says what is wrong with them); nothing raises, and every finding is a known rule."""
    data = b"\n".join(records) + b"\n"
    result = msgcli.convert(io.BytesIO(data), target, carry=carry)
    assert {f.code for f in result.report.findings()} <= set(RULES)
    assert all(f.line >= 1 for f in result.report.findings())
    out = b"".join(orjson.dumps(r) + b"\n" for r in result.records)
    for other in ("agentscope-java", "agentscope-py", "loongflow"):
        msgcli.convert(io.BytesIO(out), other)  # and on again


def test_a_named_pipe_in_a_scanned_folder_is_passed_over(tmp_path):
    """A folder holding a real transcript, a named pipe called ``*.jsonl`` (no one writes to
    it) and a link that leads nowhere: every command that scans folders reads the transcript
    and finishes, the pipe passed over (named by validate --verbose), the broken link
    reported as unreadable; the pipe named on the command line is read as a stream."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    msgcli_bin = Path(sys.executable).with_name("msgcli")
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(FIXTURES / "real/agentscope-py/transcript.jsonl", folder / "run.jsonl")
    os.mkfifo(folder / "waiting.jsonl")
    (folder / "gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(msgcli_bin), *args], capture_output=True, text=True, timeout=120, cwd=tmp_path
        )

    checked = run("validate", "--verbose", "logs")
    assert checked.returncode == 2  # (the broken link)
    assert "logs/run.jsonl: agentscope-py (2.x) messages, 7 records, ok" in checked.stdout
    assert "logs/gone.jsonl:0: error P009 cannot read" in checked.stdout
    assert (
        "skipped 1 file that is a pipe, a socket or a device, not a regular file: "
        "logs/waiting.jsonl" in checked.stdout
    )
    assert "Friday" in run("show", "--no-pager", "logs").stdout
    assert (
        orjson.loads(run("stats", "-f", "json", "logs").stdout)["total"]["messages"]["total"] == 7
    )
    assert len(run("query", "logs").stdout.splitlines()) == 7
    exported = run("export", "logs", "--to", "tables.sqlite")
    assert "messages 7" in exported.stderr

    # named on the command line, a pipe is a stream to read (a shell's <(zcat log.gz))
    writer = subprocess.Popen(
        ["sh", "-c", f"cat '{folder / 'run.jsonl'}' > '{folder / 'waiting.jsonl'}'"]
    )
    try:
        piped = run("validate", "logs/waiting.jsonl")
    finally:
        writer.wait(timeout=60)
    assert piped.returncode == 0 and "7 records" in piped.stdout


def test_a_file_name_that_is_not_utf8_goes_through_every_command(tmp_path):
    """A real transcript (with a broken last line) under a name whose bytes are not UTF-8,
    as an old system or another locale may leave: every command reads it and writes the
    name with its odd byte escaped (``\\udcff``, as the terminal shows it); stats' JSON,
    query --neutral, every table export, sql and view once stopped with an internal error."""
    import os
    import sqlite3
    import subprocess
    import sys

    folder = tmp_path / "logs"
    folder.mkdir()
    name = os.fsdecode(b"run-\xff.jsonl")
    try:
        (folder / name).write_bytes(
            (FIXTURES / "invalid/mixed-problems/agentscope-py-run.jsonl").read_bytes()
        )
    except (OSError, UnicodeError):
        import pytest

        pytest.skip("this file system takes only UTF-8 names")

    def run(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [sys.executable, "-m", "msgcli", *args],
            capture_output=True,
            timeout=120,
            cwd=tmp_path,
            env={**os.environ, "NO_COLOR": "1"},
        )
        said = done.stderr.decode("utf-8", "replace")
        assert "internal error" not in said and "Traceback" not in said, (args, said)
        return done

    shown = "logs/run-\\udcff.jsonl"
    assert shown in run("validate", "--no-config", "logs").stdout.decode()
    assert "agentscope-py message log, 4 records" in run("stats", "logs").stdout.decode()
    import json

    # (as validate's JSON report writes it: JSON's own escape, \udcff, which json reads back)
    stats = json.loads(run("stats", "-f", "json", "logs").stdout)
    assert stats["files"][0]["path"] == f"logs/{name}"
    neutral = [orjson.loads(line) for line in run("query", "--neutral", "logs").stdout.splitlines()]
    assert {record["file"] for record in neutral} == {shown}
    for suffix in ("parquet", "sqlite", "duckdb", "csv"):
        run("export", "logs", "--to", f"tables.{suffix}")
    with sqlite3.connect(tmp_path / "tables.sqlite") as db:
        assert db.execute("SELECT DISTINCT file FROM messages").fetchall() == [(shown,)]
    assert run(
        "sql", "-f", "csv", "SELECT DISTINCT file FROM messages", "logs"
    ).stdout.decode().splitlines() == ["file", shown]
    run("view", "logs", "--output", "pages")
    index = (tmp_path / "pages" / "index.html").read_text(encoding="utf-8")
    assert 'href="run-%FF.jsonl.html"' in index  # (the page's own name, byte for byte)
    assert (tmp_path / "pages" / f"{name}.html").is_file()


def test_a_line_with_no_end_is_out_of_memory_in_one_line(tmp_path):
    """/dev/zero named on the command line: one endless line. With the memory a machine has
    (here 800 MB of address space) the run ends with one line saying so, exit 2, not as
    msgcli's own 'internal error'."""
    import os
    import subprocess
    import sys

    import pytest

    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    done = subprocess.run(
        ["sh", "-c", 'ulimit -v 819200 && exec "$0" -m msgcli validate /dev/zero', sys.executable],
        capture_output=True,
        timeout=120,
    )
    said = done.stderr.decode()
    assert done.returncode == 2
    assert said.startswith("msgcli: out of memory (") and "internal error" not in said
