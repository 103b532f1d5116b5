"""``msgcli export`` and ``msgcli sql``: the real logs as tables, the same in every format."""

from __future__ import annotations

import contextlib
import csv
import json
import re
import shlex
import sqlite3
import subprocess
import sys
from datetime import datetime

import pytest
from conftest import FIXTURES, ROOT, log_files

duckdb = pytest.importorskip("duckdb")
pq = pytest.importorskip("pyarrow.parquet")

REAL = FIXTURES / "real"
PY = REAL / "agentscope-py" / "transcript.jsonl"
LOONG = REAL / "loongflow" / "transcript.jsonl"
MIXED = FIXTURES / "invalid" / "mixed-problems" / "agentscope-py-run.jsonl"
TABLES = ("messages", "blocks", "tool_calls", "findings")


def raw(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def export(run_cli, target, *paths, extra=()):
    code, _out, err = run_cli("export", *map(str, paths), "--to", str(target), *extra, stderr=True)
    assert code == 0, err
    return err


def counts_of(target) -> dict[str, int]:
    """Rows per table, read back with each format's own reader."""
    name = str(target)
    if name.endswith(".parquet"):
        return {t: pq.read_metadata(target / f"{t}.parquet").num_rows for t in TABLES}
    if name.endswith(".csv"):
        out = {}
        for t in TABLES:
            with open(target / f"{t}.csv", encoding="utf-8", newline="") as f:
                out[t] = sum(1 for _ in csv.reader(f)) - 1
        return out
    if name.endswith(".duckdb"):
        db = duckdb.connect(name, read_only=True)
        try:
            return {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
        finally:
            db.close()
    db = sqlite3.connect(name)
    try:
        return {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    finally:
        db.close()


def _real_logs() -> list:
    """Every real log (a JSON schema beside a state file is no log); four exports each, so
    past the first log of each producer they are marked slow: `make test` exports one log
    of each producer, `make test-all` and CI every one."""
    params, seen = [], set()
    for p in log_files(REAL):
        if p.name.endswith(".schema.json"):
            continue
        producer = p.relative_to(REAL).parts[0]
        params.append(pytest.param(p, marks=[pytest.mark.slow] if producer in seen else []))
        seen.add(producer)
    return params


@pytest.mark.parametrize("path", _real_logs(), ids=lambda p: str(p.relative_to(REAL)))
def test_every_real_log_gives_the_same_rows_in_every_format(run_cli, tmp_path, path):
    counts = {}
    for suffix in (".parquet", ".sqlite", ".duckdb", ".csv"):
        target = tmp_path / f"out{suffix}"
        export(run_cli, target, path)
        counts[suffix] = counts_of(target)
    assert len({json.dumps(c, sort_keys=True) for c in counts.values()}) == 1, counts
    got = counts[".parquet"]
    # one row a message: the lines of a message log, the rebuilt messages of an event log
    final = {
        "events.jsonl": "events-final.jsonl",
        "events.sse": "events-final.jsonl",
        "events-data.jsonl": "events-data-final.jsonl",
    }
    classic = path.relative_to(REAL).parts[0] in ("agentscope-py", "loongflow")
    if classic and len(path.relative_to(REAL).parts) == 2:
        assert got["messages"] == len(raw(path.with_name(final.get(path.name, path.name))))
    else:
        # event logs of other runs, Claude Code sessions (one message an API response),
        # provider conversations (several messages a line): as many as stats counts
        code, out = run_cli("stats", "--format", "json", str(path))
        assert code == 0
        assert got["messages"] == json.loads(out)["files"][0]["messages"]["total"]
    # real logs are clean, but for Claude Code's record of a failed API call (a warning)
    # and the warnings LoongFlow's own runs earn (tests/test_loongflow_runs.py says why
    # each: T002 on the call an interrupt cut off and on calls a compressed memory file
    # keeps; T009 on arguments the model wrote as no JSON)
    warned = {
        "claude-code/12c-api-error-final/session.jsonl": 1,
        "loongflow/runs/interrupt-messages.jsonl": 1,
        "loongflow/runs/interrupt-stm.json": 1,
        "loongflow/runs/react-compressed1-mtm.json": 15,
        "loongflow/runs/react-compressed3-mtm.json": 2,
        "loongflow/runs/react-messages.jsonl": 1,
        # what the GenAI conventions ask that older emitters do not write (test_otel.py):
        # OpenInference's spans have no gen_ai.operation.name nor gen_ai.provider.name,
        # pydantic-ai writes a tool's output as 'result', harbor-atif2otel both
        "otel/openinference/plain/traces.jsonl": 2,
        "otel/openinference/plain/otlp-http/0001-traces.json": 2,
        "otel/openinference/tools/traces.jsonl": 4,
        "otel/openinference/tools/otlp-http/0001-traces.json": 4,
        "otel/pydantic-ai/tools/traces.jsonl": 2,
        "otel/pydantic-ai/tools/otlp-http/0001-traces.json": 2,
        "otel/harbor-atif2otel/02-bash-ls/otlp.json": 6,
        # atif-make's trajectories of stream-json logs: totals that are no sum of the steps
        # (A007; test_atif says why)
        **{
            f"atif/atif-make/{name}/trajectory-from-stream.json": 1
            for name in (
                "01-plain-markdown",
                "02-bash-ls",
                "03-parallel-read",
                "04-write-edit-read",
                "06-thinking",
                "08-tool-denied",
                "13a-resume",
            )
        },
        "atif/atif-make/09-subagent/trajectory-from-stream.json": 2,
    }
    assert got["findings"] == warned.get(path.relative_to(REAL).as_posix(), 0)


def test_real_agentscope_transcript_rows(run_cli, tmp_path):
    target = tmp_path / "t.duckdb"
    export(run_cli, target, PY)
    db = duckdb.connect(str(target), read_only=True)
    messages = raw(PY)
    got = db.execute("SELECT line, id, role, sender, output_tokens FROM messages").fetchall()
    assert got == [
        (n, m["id"], m["role"], m["name"], (m["usage"] or {}).get("output_tokens"))
        for n, m in enumerate(messages, 1)
    ]
    blocks = db.execute("SELECT count(*) FROM blocks").fetchone()[0]
    nested = sum(
        len(b["output"])
        for m in messages
        for b in m["content"]
        if b["type"] == "tool_result" and isinstance(b["output"], list)
    )
    assert blocks == sum(len(m["content"]) for m in messages) + nested
    [call] = db.execute(
        "SELECT call_id, name, arguments, status, result_text, call_line, result_line, "
        "latency_seconds FROM tool_calls"
    ).fetchall()
    reply = messages[2]
    raw_call = next(b for b in reply["content"] if b["type"] == "tool_call")
    raw_result = next(b for b in reply["content"] if b["type"] == "tool_result")
    latency = (
        datetime.fromisoformat(raw_result["finished_at"])
        - datetime.fromisoformat(raw_call["finished_at"])
    ).total_seconds()
    assert call == (
        raw_call["id"],
        "get_weather",
        raw_call["input"],
        "success",
        raw_result["output"][0]["text"],
        3,
        3,
        pytest.approx(latency),
    )
    db.close()


def test_tool_calls_pair_across_messages(run_cli, tmp_path):
    target = tmp_path / "t.parquet"
    export(run_cli, target, LOONG)
    rows = pq.read_table(target / "tool_calls.parquet").to_pylist()
    messages = raw(LOONG)
    calls = [
        (n, b) for n, m in enumerate(messages, 1) for b in m["content"] if b["type"] == "tool_call"
    ]
    results = {
        b["call_id"]: (n, b)
        for n, m in enumerate(messages, 1)
        for b in m["content"]
        if b["type"] == "tool_output"
    }
    assert [(r["name"], r["call_line"], r["result_line"], r["status"]) for r in rows] == [
        (b["target"], n, results[b["call_id"]][0], results[b["call_id"]][1]["status"])
        for n, b in calls
    ]
    failed = next(r for r in rows if r["status"] == "error")
    assert failed["result_text"] == results[failed["call_id"]][1]["result"][0]["data"]
    assert json.loads(failed["arguments"]) == {"city": "Beijing"}


def test_findings_are_validate_s(run_cli, tmp_path):
    target = tmp_path / "f.sqlite"
    export(run_cli, target, MIXED)
    _code, out = run_cli("validate", "--format", "json", str(MIXED))
    expected = sorted((f["line"], f["code"], f["pointer"]) for f in json.loads(out)["findings"])
    db = sqlite3.connect(target)
    got = sorted(db.execute("SELECT line, code, pointer FROM findings").fetchall())
    assert got == expected and got
    # a bad row joins to its reason
    joined = db.execute(
        "SELECT m.id, f.code FROM messages m JOIN findings f USING (file, line)"
    ).fetchall()
    assert joined


def test_sqlite_full_text_index_finds_a_word_of_a_tool_result(run_cli, tmp_path):
    target = tmp_path / "t.db"
    export(run_cli, target, REAL)
    db = sqlite3.connect(target)
    found = db.execute(
        "SELECT b.file, b.line, b.pointer FROM blocks_fts JOIN blocks b ON b.rowid = "
        "blocks_fts.rowid WHERE blocks_fts MATCH 'humidity' AND b.pointer LIKE '%/output/%'"
    ).fetchall()
    assert (str(PY), 3, "/content/4/output/0") in found
    # LoongFlow keeps the failing tool's message in a content element of its output
    found = db.execute(
        "SELECT b.file, b.line FROM blocks_fts JOIN blocks b ON b.rowid = blocks_fts.rowid "
        "WHERE blocks_fts MATCH 'timed' AND b.file NOT LIKE '%/real/codex/%'"  # ("timed_out")
    ).fetchall()
    assert found == [(str(LOONG), 6)]
    found = db.execute(
        "SELECT m.sender FROM messages_fts JOIN messages m ON m.rowid = messages_fts.rowid "
        "WHERE messages_fts MATCH '\"light rain\"' AND m.file = ?",
        (str(PY),),
    ).fetchall()
    assert found == [("Friday",)]


QUESTIONS = [
    "SELECT name, count(*) AS calls, count_if(status = 'error') AS failed FROM tool_calls "
    "GROUP BY name ORDER BY name",
    "SELECT sender, sum(input_tokens), sum(output_tokens) FROM messages GROUP BY sender "
    "ORDER BY sender",
    "SELECT file, call_id, latency_seconds FROM tool_calls ORDER BY latency_seconds DESC, "
    "file, call_id",
    "SELECT file, line, type, kind, text, url, data_chars FROM blocks ORDER BY file, line, seq",
    "SELECT file, code, count(*) FROM findings GROUP BY ALL ORDER BY ALL",
    "SELECT file, line, time, time_text, finish_reason, session FROM messages ORDER BY ALL",
]


def test_duckdb_answers_the_same_over_parquet_and_duckdb_output(run_cli, tmp_path):
    paths = [REAL, MIXED]
    export(run_cli, tmp_path / "t.parquet", *paths)
    export(run_cli, tmp_path / "t.duckdb", *paths)
    over_parquet = duckdb.connect()
    for t in TABLES:
        over_parquet.execute(
            f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{tmp_path / 't.parquet' / t}.parquet')"
        )
    over_duckdb = duckdb.connect(str(tmp_path / "t.duckdb"), read_only=True)
    for question in QUESTIONS:
        answer = over_parquet.execute(question).fetchall()
        assert answer, question
        assert over_duckdb.execute(question).fetchall() == answer, question


def test_batches_bound_memory_and_give_the_same_rows(tmp_path):
    from msgcli.tables import table_rows

    whole: dict[str, list] = {t: [] for t in TABLES}
    small: dict[str, list] = {t: [] for t in TABLES}
    sizes = []
    table_rows([str(REAL)], lambda t, rows: whole[t].extend(rows))

    def sink(t, rows):
        sizes.append(len(rows))
        small[t].extend(rows)

    table_rows([str(REAL)], sink, batch=2)
    assert whole == small
    assert max(sizes) == 2


def test_sql_command_and_its_formats(run_cli):
    q = "SELECT name, count(*) AS calls FROM tool_calls GROUP BY name ORDER BY name"
    code, out = run_cli("sql", q, str(LOONG), "--format", "json")
    assert code == 0
    assert [json.loads(line) for line in out.splitlines()] == [
        {"name": "get_air_quality", "calls": 1},
        {"name": "get_weather", "calls": 1},
    ]
    code, out = run_cli("sql", q, str(LOONG), "--format", "csv")
    assert out.splitlines() == ["name,calls", "get_air_quality,1", "get_weather,1"]
    code, out = run_cli("sql", q, str(LOONG))
    assert code == 0 and "get_air_quality" in out
    code, out, err = run_cli("sql", "SELECT nope FROM messages", str(LOONG), stderr=True)
    assert code == 2 and err.startswith("msgcli: SQL:") and len(err.splitlines()) == 1


def test_sql_prints_log_text_literally(run_cli, tmp_path):
    lines = PY.read_text(encoding="utf-8").splitlines()
    msg = json.loads(lines[1])
    msg["content"][0]["text"] = "[bold]hi[/bold] \x1b]0;owned\x07"
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps(msg) + "\n", encoding="utf-8")
    _code, out = run_cli("sql", "SELECT text FROM messages", str(log))
    assert "[bold]hi[/bold]" in out and "\x1b" not in out and "\\e]0;owned\\x07" in out


def test_sql_cuts_a_long_value_of_its_table_and_says_so(run_cli, tmp_path):
    """A real transcript whose system prompt is 165,000 characters long: the table shows its
    first 2,000 and how many more there are, and says on standard error how to see them
    whole; --full and CSV give it whole."""
    lines = PY.read_text(encoding="utf-8").splitlines()
    msg = json.loads(lines[0])
    long = "".join(f"word{i:06d} " for i in range(15_000))
    msg["content"][0]["text"] = long
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join([json.dumps(msg), *lines[1:]]) + "\n", encoding="utf-8")
    query = "SELECT line, text FROM messages ORDER BY line"
    code, out, err = run_cli("sql", query, str(log), stderr=True)
    assert code == 0
    words = re.findall(r"word\d{6}", out)
    assert words[0] == "word000000" and "word014999" not in words
    assert len(words) == 181  # 2,000 characters: 181 words of 11 and a piece
    flat = re.sub(r"[│\s]", "", out)  # (the cell's lines, joined)
    assert f"…[{len(long) - 2_000:,}morecharacters]" in flat
    assert "Please answer in English and 中文." in out  # the short values whole
    assert "1 value cut: --full shows them whole" in err
    code, out, err = run_cli("sql", "--full", query, str(log), stderr=True)
    assert code == 0 and "word014999" in out and "cut" not in err
    code, out = run_cli("sql", "-f", "csv", query, str(log))
    assert long.strip() in out


def test_export_keeps_what_exists(run_cli, tmp_path):
    target = tmp_path / "t.sqlite"
    target.write_text("mine")
    code, _out, err = run_cli("export", str(PY), "--to", str(target), stderr=True)
    assert code == 2 and "--overwrite" in err and target.read_text() == "mine"
    export(run_cli, target, PY, extra=["--overwrite"])
    assert counts_of(target)["messages"] == len(raw(PY))
    code, _out, err = run_cli(
        "export", str(target), "--to", str(target), "--overwrite", stderr=True
    )
    assert code == 2 and "refusing to overwrite it" in err
    code, _out, err = run_cli("export", str(PY), "--to", str(tmp_path / "t.xlsx"), stderr=True)
    assert code == 2 and ".parquet" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.sqlite"]  # nothing half-written


def test_missing_extra_is_one_line_naming_the_install(run_cli, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "duckdb", None)
    for needs, args in (
        ("pyarrow", ("export", str(PY), "--to", str(tmp_path / "t.parquet"))),
        ("duckdb", ("export", str(PY), "--to", str(tmp_path / "t.duckdb"))),
        ("duckdb", ("sql", "SELECT 1", str(PY))),
    ):
        code, _out, err = run_cli(*args, stderr=True)
        assert code == 2
        assert err.splitlines() == [
            f"msgcli: this needs {needs}, which is not installed: pip install 'msgcli[tables]'"
        ]
    # SQLite and CSV need nothing more
    export(run_cli, tmp_path / "t.sqlite", PY)
    export(run_cli, tmp_path / "t.csv", PY)


def test_the_table_commands_leave_validate_light():
    code = (
        "import sys, msgcli.cli; "
        "print([m for m in ('pyarrow', 'duckdb', 'jmespath') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _readme_questions() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Logs as data", 1)[1].split("\n## ", 1)[0]
    return [
        line[2:]
        for line in section.splitlines()
        if line.startswith("$ msgcli sql ") and line.endswith(" logs/")
    ]


def test_readme_questions_run(run_cli):
    questions = _readme_questions()
    assert len(questions) >= 5
    answers = {}
    for line in questions:
        args = shlex.split(line)[1:]
        assert args[-1] == "logs/"
        code, out = run_cli(*args[:-1], str(REAL), str(MIXED), "--format", "json")
        assert code == 0, line
        answers[args[1]] = [json.loads(row) for row in out.splitlines()]
        assert answers[args[1]], line
    by_question = list(answers.values())
    # tool failure rate: LoongFlow's get_air_quality failed its only call
    rate = {row["name"]: row for row in by_question[0]}
    assert rate["get_air_quality"]["failure_rate"] == 1.0
    # findings per rule per file: the broken run's own findings
    assert any(row["file"] == str(MIXED) for row in by_question[4])


def test_readme_answer_is_what_msgcli_prints(run_cli):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = readme.split("<!-- example: failure-rate -->\n```text\n", 1)[1].split("```")[0]
    args = shlex.split(_readme_questions()[0])[1:-1]
    code, out = run_cli(*args, str(LOONG), str(PY))
    assert code == 0 and out == shown


def test_sql_reads_for_findings_only_when_asked(run_cli):
    def count(*args):
        code, out = run_cli("sql", *args, str(MIXED), "--format", "json")
        assert code == 0
        return json.loads(out)["n"]

    _code, out = run_cli("validate", "--format", "json", str(MIXED))
    found = json.loads(out)["findings"]
    assert count("SELECT count(*) AS n FROM FINDINGS") == len(found) > 0
    # without the second reading: only what reading met (the line that is not JSON)
    unreadable = [f for f in found if f["code"].startswith("P")]
    assert count("SELECT count(*) AS n FROM findings", "--no-findings") == len(unreadable) == 1
    readable = 0
    for line in MIXED.read_text(encoding="utf-8").splitlines():
        with contextlib.suppress(ValueError):
            readable += isinstance(json.loads(line), dict)
    assert count("SELECT count(*) AS n FROM messages") == readable
