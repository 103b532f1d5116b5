"""OpenCode sessions: the real databases of ``fixtures/real/opencode`` (OpenCode 1.18.33 against a
scripted model API, with the ledger of the usage that API sent) through every command.

What a user would check is worked out from the files themselves: the ledger's sums, the
session and message rows read with the standard library's sqlite3 (from a copy, so that the
write-ahead log is applied), the texts and call ids OpenCode stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest
from conftest import FIXTURES

from msgcli.api import read_messages
from msgcli.dialects import DIALECTS
from msgcli.pipeline import validate_paths
from msgcli.stats import collect_stats

REAL = FIXTURES / "real" / "opencode"
#: the ledger of each run (what the mock API sent), and its metadata: kept apart from the
#: logs, where no directory scan of fixtures/real meets them
LEDGERS = FIXTURES / "cases" / "opencode"
SCENARIOS = sorted(
    REAL / p.parent.name for p in LEDGERS.glob("*/ledger.json") if (REAL / p.parent.name).is_dir()
)
STORAGE = LEDGERS / "storage-layout"
OPENCODE = DIALECTS["opencode"]


def db_of(scenario: Path) -> Path:
    return scenario / "data" / "opencode" / "opencode.db"


def ledger(scenario: Path) -> dict:
    return json.loads((LEDGERS / scenario.name / "ledger.json").read_text())


def rows(scenario: Path, tmp_path: Path, sql: str) -> list[sqlite3.Row]:
    """Rows of the scenario's database, read from a copy of its three files."""
    where = tmp_path / f"copy-{scenario.name}"
    where.mkdir(exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        shutil.copyfile(str(db_of(scenario)) + suffix, str(where / "opencode.db") + suffix)
    con = sqlite3.connect(where / "opencode.db")
    con.row_factory = sqlite3.Row
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def ids(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


def test_the_fixtures_are_there():
    names = {p.name for p in SCENARIOS}
    assert {"01-plain", "11-subagent", "15-fork", "14-api-error", "23-subagent-continue"} <= names
    assert len(SCENARIOS) == 12


# -- reading and validating -------------------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS, ids=ids(SCENARIOS))
def test_every_session_validates_without_an_error(scenario, run_cli):
    run = validate_paths([db_of(scenario)])
    (report,) = run.files
    assert report.summary.dialect == "opencode"
    assert [f"{f.line} {f.code} {f.message}" for f in report.findings] == []
    # a folder argument (the data directory) finds the database and only it
    code, out = run_cli("validate", "-f", "json", str(scenario / "data"))
    doc = json.loads(out)
    assert code == 0
    assert [f["path"] for f in doc["files"]] == [str(db_of(scenario))]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=ids(SCENARIOS))
def test_one_message_per_row_sessions_first(scenario, tmp_path):
    """Every session and message row is read once; a reply is one model call."""
    sessions = rows(scenario, tmp_path, "SELECT id FROM session")
    messages = rows(scenario, tmp_path, "SELECT id, data FROM message")
    read = [msg for _, msg in read_messages(db_of(scenario))]
    assert sorted(m.id for m in read if m.role == "session") == sorted(r["id"] for r in sessions)
    assert sorted(m.id for m in read if m.role != "session") == sorted(r["id"] for r in messages)
    roles = sorted(json.loads(r["data"])["role"] for r in messages)
    assert sorted(m.role for m in read if m.role != "session") == roles


def test_the_write_ahead_log_is_read_and_the_files_are_left_alone(tmp_path):
    """01-plain's opencode.db holds no row of its own (OpenCode left them in the -wal):
    reading sees the session all the same, and changes none of the three files."""
    scenario = REAL / "01-plain"
    folder = tmp_path / "data"
    folder.mkdir()
    for suffix in ("", "-wal", "-shm"):
        shutil.copyfile(str(db_of(scenario)) + suffix, str(folder / "opencode.db") + suffix)
    alone = tmp_path / "alone.db"
    shutil.copyfile(folder / "opencode.db", alone)
    con = sqlite3.connect(f"file:{alone}?mode=ro", uri=True)
    try:
        tables = con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    finally:
        con.close()
    assert tables == 0  # the main file alone: not even the schema
    files = [folder / n for n in ("opencode.db", "opencode.db-wal", "opencode.db-shm")]
    before = {f: (hashlib.sha256(f.read_bytes()).hexdigest(), f.stat().st_mtime_ns) for f in files}
    for f in [*files, folder]:
        f.chmod(stat.S_IREAD | stat.S_IEXEC if f == folder else stat.S_IREAD)
    try:
        read = [m for _, m in read_messages(folder / "opencode.db")]
        assert listing(folder) == sorted(f.name for f in files)
    finally:
        folder.chmod(0o755)
    assert [m.role for m in read] == ["session", "user", "assistant"]
    assert "mutex" in read[1].content[0].text
    after = {f: (hashlib.sha256(f.read_bytes()).hexdigest(), f.stat().st_mtime_ns) for f in files}
    assert after == before


def listing(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


# -- tokens -------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS, ids=ids(SCENARIOS))
def test_stats_equal_what_the_api_sent(scenario, run_cli):
    """The token totals of ``stats --format json`` are the usage the mock API sent for every
    completed response but the title request (which OpenCode never stores)."""
    want = ledger(scenario)["sum_completed_excluding_title"]
    code, out = run_cli("stats", "--format", "json", str(db_of(scenario)))
    assert code == 0
    total = json.loads(out)["total"]
    tokens = total["tokens"]
    assert tokens["input"] + tokens["cached"] == want["prompt_tokens"]
    assert tokens["output"] == want["completion_tokens"]
    assert tokens["cached"] == want["cached_tokens"]
    assert tokens.get("reasoning", 0) == want["reasoning_tokens"]
    assert tokens["messages"] == want["responses"]
    oc = total["opencode"]
    both = {k: oc["main"][k] + oc["sub_agents"][k] for k in oc["main"]}
    assert both["prompt_tokens"] == want["prompt_tokens"]
    assert both["completion_tokens"] == want["completion_tokens"]
    assert both["reasoning"] == want["reasoning_tokens"]
    assert both["responses"] == want["responses"]
    assert "title request" in oc["title_request"]


@pytest.mark.parametrize(
    "scenario", [REAL / "11-subagent", REAL / "23-subagent-continue"], ids=lambda p: p.name
)
def test_sub_agents_are_counted_apart(scenario, run_cli):
    sums = ledger(scenario)
    main, with_subagents = sums["sum_completed_main_turns"], sums["sum_completed_main_and_subagent"]
    _, out = run_cli("stats", "--format", "json", str(db_of(scenario)))
    oc = json.loads(out)["total"]["opencode"]
    assert oc["sub_agent_sessions"] == 1
    assert oc["main"]["prompt_tokens"] == main["prompt_tokens"]
    assert oc["main"]["responses"] == main["responses"]
    assert oc["sub_agents"]["prompt_tokens"] == (
        with_subagents["prompt_tokens"] - main["prompt_tokens"]
    )
    assert oc["sub_agents"]["completion_tokens"] == (
        with_subagents["completion_tokens"] - main["completion_tokens"]
    )


@pytest.mark.parametrize(
    "scenario", [REAL / "15-fork", REAL / "23-subagent-continue"], ids=lambda p: p.name
)
def test_a_forks_copies_are_counted_once(scenario, tmp_path, run_cli):
    """The database holds the fork's copies of its source's replies with their tokens: a sum
    over its rows counts them twice; msgcli reaches the ledger."""
    stored = 0
    for row in rows(scenario, tmp_path, "SELECT data FROM message"):
        data = json.loads(row["data"])
        if data["role"] == "assistant":
            tokens = data["tokens"]
            stored += tokens["input"] + tokens["cache"]["read"]
    want = ledger(scenario)["sum_completed_excluding_title"]["prompt_tokens"]
    assert stored > want
    _, out = run_cli("stats", "--format", "json", str(db_of(scenario)))
    total = json.loads(out)["total"]
    assert total["tokens"]["input"] + total["tokens"]["cached"] == want
    assert total["opencode"]["forks"] == 1
    assert total["opencode"]["fork_copies_not_counted"] > 0


@pytest.mark.parametrize("scenario", SCENARIOS, ids=ids(SCENARIOS))
def test_responses_give_the_same_numbers(scenario):
    """``Dialect.responses`` (what ``msgcli usage`` counts): one per completed response, each
    with a key of its own, the same sums as the ledger."""
    want = ledger(scenario)["sum_completed_excluding_title"]
    found = [r for _, msg in read_messages(db_of(scenario)) for r in OPENCODE.responses(msg)]
    assert len(found) == want["responses"] == len({r.key for r in found})
    assert sum(r.input + r.cache_read + r.cache_write for r in found) == want["prompt_tokens"]
    assert sum(r.output for r in found) == want["completion_tokens"]
    assert sum(r.cache_read for r in found) == want["cached_tokens"]
    assert sum(r.reasoning for r in found) == want["reasoning_tokens"]
    assert all(r.model == "mock-1" and r.provider == "mock" for r in found)
    assert all(r.time is not None and r.time.tzinfo is not None for r in found)
    subagents = (
        ledger(scenario)["sum_completed_main_and_subagent"]["responses"]
        - ledger(scenario)["sum_completed_main_turns"]["responses"]
    )
    if "subagent" in scenario.name:
        assert sum(1 for r in found if r.agent == "general") == subagents


def test_a_failed_call_counts_no_response(run_cli):
    scenario = REAL / "14-api-error"
    assert ledger(scenario)["sum_completed_excluding_title"]["responses"] == 0
    _, out = run_cli("stats", "--format", "json", str(db_of(scenario)))
    oc = json.loads(out)["total"]["opencode"]
    assert oc["failed_responses"] == 1
    assert oc["main"]["responses"] == 0


# -- the older storage/ folders ---------------------------------------------------------------


def test_the_storage_layout_reads_as_the_database(run_cli):
    """The same two sessions (11-subagent's, in the storage/ layout of OpenCode before 1.2):
    a folder argument finds the two session files and passes over the message and part files,
    no finding, and the ledger's totals."""
    run = validate_paths([STORAGE / "storage"])
    assert sorted(Path(r.summary.path).name for r in run.files) == [
        "ses_daee50647ffeUoWXUK3b5sYuFa.json",
        "ses_daee513fdffemek7hH1bqpfzel.json",
    ]
    assert [f.code for r in run.files for f in r.findings] == []
    assert all(r.summary.dialect == "opencode" for r in run.files)
    report = collect_stats([STORAGE / "storage"])
    want = json.loads((STORAGE / "ledger.json").read_text())
    tokens = report.total.tokens
    assert tokens.input + tokens.cached == want["sum_completed_excluding_title"]["prompt_tokens"]
    assert tokens.output == want["sum_completed_excluding_title"]["completion_tokens"]
    details = report.total.details["opencode"]
    assert details["sub_agents"]["prompt_tokens"] == (
        want["sum_completed_main_and_subagent"]["prompt_tokens"]
        - want["sum_completed_main_turns"]["prompt_tokens"]
    )


# -- problems -------------------------------------------------------------------------------


def _writable_copy(scenario: Path, tmp_path: Path) -> Path:
    folder = tmp_path / scenario.name
    folder.mkdir()
    for suffix in ("", "-wal", "-shm"):
        shutil.copyfile(str(db_of(scenario)) + suffix, str(folder / "opencode.db") + suffix)
        (folder / ("opencode.db" + suffix)).chmod(0o644)
    return folder / "opencode.db"


def test_a_broken_row_is_a_located_finding_and_the_rest_is_read(tmp_path, run_cli):
    path = _writable_copy(REAL / "02-bash", tmp_path)
    con = sqlite3.connect(path)
    (first,) = con.execute("SELECT id FROM message ORDER BY id LIMIT 1").fetchone()
    con.execute("UPDATE message SET data = '{broken' WHERE id = ?", (first,))
    con.commit()
    con.close()
    code, out, err = run_cli("validate", str(path), stderr=True)
    assert code == 1
    assert f"{path}:2: error P001 message {first}: its data cannot be read" in out
    assert "Traceback" not in out + err
    read = [m for _, m in read_messages(path)]
    # the message whose data is lost still shows its parts: the prompt
    assert [m.role for m in read] == ["session", None, "assistant", "assistant"]
    assert "greeting" in read[1].content[0].text


def test_what_is_new_is_an_info_finding(tmp_path, run_cli):
    """A part type and a field no release writes: info findings, exit 0, the same tokens."""
    path = _writable_copy(REAL / "02-bash", tmp_path)
    con = sqlite3.connect(path)
    (mid, sid) = con.execute(
        "SELECT id, session_id FROM message WHERE data LIKE '%\"assistant\"%' LIMIT 1"
    ).fetchone()
    con.execute(
        "INSERT INTO part VALUES (?, ?, ?, 1, 1, ?)",
        ("prt_zzzzzzzzzzzzzzzzzzzzzzzzzz", mid, sid, '{"type":"hologram","glow":1}'),
    )
    con.execute("UPDATE message SET data = json_set(data, '$.mood', 'calm') WHERE id = ?", (mid,))
    con.commit()
    con.close()
    code, out = run_cli("validate", str(path))
    assert code == 0
    assert 'info N001 part type "hologram"' in out
    assert 'info N002 field "mood"' in out
    _, doc = run_cli("stats", "--format", "json", str(path))
    want = ledger(REAL / "02-bash")["sum_completed_excluding_title"]
    assert json.loads(doc)["total"]["tokens"]["output"] == want["completion_tokens"]
    code, out = run_cli("show", "--all", str(path))
    assert code == 0 and "hologram" in out


def test_a_sqlite_file_of_another_program_is_said_so(tmp_path, run_cli):
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    code, out, err = run_cli("validate", str(other), stderr=True)
    assert code == 2 or code == 1
    assert "without OpenCode's session, message and part tables" in out + err
    assert "Traceback" not in out + err


# -- show, HTML, Markdown -------------------------------------------------------------------------


def _show(run_cli, scenario: str, *more: str) -> str:
    code, out = run_cli("show", "--width", "200", *more, str(db_of(REAL / scenario)))
    assert code == 0
    return out


def test_show_holds_prompts_answers_reasoning_tools_and_errors(run_cli):
    out = _show(run_cli, "21-reasoning-parallel")
    assert "[oc:21] Run two commands in parallel." in out
    assert "I should run two commands at once." in out  # reasoning
    assert "call_g21_a" in out and "call_g21_b" in out
    assert "Both commands ran: one and two." in out
    out = _show(run_cli, "22-tool-error")
    assert "File not found" in out and "← error" in out
    out = _show(run_cli, "14-api-error")
    assert "error (APIError): Invalid value for parameter" in out
    out = _show(run_cli, "12-compaction")
    assert "[the conversation is compacted here (automatic)]" in out
    assert out.index("compaction summary") < out.index("## Goal")


def test_a_sub_agent_reads_under_the_call_that_started_it(run_cli):
    out = _show(run_cli, "11-subagent")
    call = out.index("call_oc11_1_0")
    child = out.index("[oc:11-child] List the files in the project and report.")
    child_answer = out.index("Files: README.md and the .git folder.\n")
    parent_answer = out.index("The sub-agent reported the file list.")
    assert call < child < parent_answer and child < child_answer
    assert "general (sub-agent)" in out


def test_a_fork_reads_as_a_branch(run_cli, tmp_path):
    out = _show(run_cli, "15-fork")
    source = rows(
        REAL / "15-fork", tmp_path, "SELECT id FROM session WHERE title NOT LIKE '%fork%'"
    )
    assert f"fork of {source[0]['id']}" in out
    # the copies are shown once (as the source's), the fork's own turn after them
    assert out.count("Noted: 42.") == 1
    assert out.index("Noted: 42.") < out.index("It was 42 (answered in the fork).")
    everything = _show(run_cli, "15-fork", "--all")
    assert everything.count("Noted: 42.") == 2
    assert f"fork of {source[0]['id']} (2 message(s) copied from it)" in everything


@pytest.mark.parametrize("kind", ["--export-html", "--export-markdown"])
def test_html_and_markdown(kind, tmp_path, run_cli):
    target = tmp_path / ("out.html" if kind == "--export-html" else "out.md")
    code, _ = run_cli("show", kind, str(target), str(db_of(REAL / "11-subagent")))
    assert code == 0
    text = target.read_text()
    for needed in (
        "Use a sub-agent to inspect the project.",
        "call_oc11_1_0",
        "List the files in the project and report.",
        "The sub-agent reported the file list.",
    ):
        assert needed in text


# -- convert, diff, export, query, sql ------------------------------------------------------------


@pytest.mark.parametrize(
    "target", ["openai-chat", "anthropic", "openai-responses", "agentscope-py"]
)
@pytest.mark.parametrize(
    "scenario",
    [REAL / "11-subagent", REAL / "21-reasoning-parallel", REAL / "22-tool-error"],
    ids=lambda p: p.name,
)
def test_convert_keeps_every_call_id(scenario, target, tmp_path, run_cli):
    out = tmp_path / f"out-{target}.jsonl"
    code, _ = run_cli("convert", "-t", target, str(db_of(scenario)), "-o", str(out))
    assert code == 0
    calls = {
        json.loads(r["data"])["callID"]
        for r in rows(scenario, tmp_path, "SELECT data FROM part")
        if json.loads(r["data"])["type"] == "tool"
    }
    text = out.read_text()
    assert calls and all(call in text for call in calls)
    run = validate_paths([out])
    (report,) = run.files
    assert report.summary.dialect == target
    assert [f for f in report.findings if f.severity.name == "ERROR"] == []


def test_a_continued_session_against_the_database_before_it_adds_only(run_cli):
    """24: the database after ``opencode run`` and after ``opencode run --continue``: the
    second run's prompt and answer are added, nothing else changes."""
    scenario = REAL / "24-continue-snapshots"
    before = scenario / "before" / "opencode" / "opencode.db"
    code, out = run_cli("diff", str(before), str(db_of(scenario)))
    assert code == 1  # (as diff(1): they differ)
    assert out.rstrip().endswith("2 messages added, 0 removed, 0 changed; 0 tool calls changed")
    assert "[oc:24] Which word was it?" in out and "The word was apricot." in out


def test_diff_of_a_session_against_itself(run_cli):
    path = str(db_of(REAL / "08-continue"))
    code, out = run_cli("diff", path, path)
    assert code == 0 and "no differences" in out


def test_tables_name_sessions_agents_and_parents(tmp_path, run_cli):
    path = str(db_of(REAL / "11-subagent"))
    code, out = run_cli(
        "sql",
        "-f",
        "csv",
        "SELECT session_id, agent_id, parent_session_id, count(*) AS n, "
        "sum(input_tokens) AS input FROM messages WHERE role = 'assistant' "
        "GROUP BY ALL ORDER BY agent_id NULLS FIRST",
        path,
    )
    assert code == 0
    sessions = rows(REAL / "11-subagent", tmp_path, "SELECT id, parent_id FROM session")
    parent = next(r["id"] for r in sessions if r["parent_id"] is None)
    child = next(r["id"] for r in sessions if r["parent_id"] is not None)
    lines = out.strip().splitlines()
    assert lines[1].startswith(f"{parent},,,2,")
    assert lines[2].startswith(f"{child},general,{parent},2,")
    target = tmp_path / "out.sqlite"
    code, _ = run_cli("export", "--no-findings", path, "--to", str(target))
    assert code == 0
    con = sqlite3.connect(target)
    try:
        found = con.execute(
            "SELECT call_id, session_id, agent_id, parent_session_id FROM tool_calls ORDER BY 1"
        ).fetchall()
    finally:
        con.close()
    assert found == [
        ("call_oc11_1_0", parent, None, None),
        ("call_oc11_2_0", child, "general", parent),
    ]


def test_query_writes_the_records_and_reads_back(tmp_path, run_cli):
    path = str(db_of(REAL / "23-subagent-continue"))
    code, out = run_cli("query", path)
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert all("_msgcli" not in r for r in records)  # what msgcli noted stays out
    saved = tmp_path / "session.jsonl"
    saved.write_text(out)
    run = validate_paths([saved])
    assert [f.code for f in run.files[0].findings] == []
    code, out = run_cli("query", "--session", records[0]["session"]["id"], path)
    assert code == 0 and out


def test_redact_masks_a_secret_in_a_tool_output(tmp_path, run_cli):
    path = _writable_copy(REAL / "02-bash", tmp_path)
    secret = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
    con = sqlite3.connect(path)
    con.execute(
        "UPDATE part SET data = json_set(data, '$.state.output', ?) WHERE data LIKE '%\"tool\"%'",
        (f"OPENAI_API_KEY={secret}\n",),
    )
    con.commit()
    con.close()
    code, out = run_cli("show", "--redact", str(path))
    assert code == 0
    assert secret not in out and "[REDACTED:openai]" in out
    code, out = run_cli("convert", "--redact", "-t", "openai-chat", str(path))
    assert code == 0 and secret not in out


def test_schemas_and_rules_are_published(run_cli):
    code, out = run_cli("schema", "list")
    assert code == 0
    for name in ("opencode/session", "opencode/message", "opencode/part"):
        assert name in out
    code, out = run_cli("rules", "N004")
    assert code == 0 and "duplicate-call-id" in out


# -- every reading path -------------------------------------------------------------------------


def test_every_reading_path_reaches_the_database(run_cli):
    """The parallel path (-j), the path a progress bar follows (which reads a file's bytes as
    they go), the library's readers: each reads the database's rows, never its bytes."""
    databases = sorted(REAL.rglob("opencode.db"))
    code, out = run_cli("validate", "-j", "2", "-f", "json", str(REAL))
    doc = json.loads(out)
    assert code == 0
    assert sorted(f["path"] for f in doc["files"]) == sorted(str(p) for p in databases)
    assert all(f["dialect"] == "opencode" for f in doc["files"])
    assert doc["summary"]["errors"] == 0

    from msgcli.api import detect_dialect
    from msgcli.engine import validate_file

    class Untouched:
        """A progress bar that must not be asked to follow the file's bytes."""

        def reading(self, *args):
            raise AssertionError("a database read as bytes")

    report = validate_file(db_of(REAL / "11-subagent"), tracker=Untouched())
    assert report.summary.dialect == "opencode" and report.summary.records == 8
    assert detect_dialect(db_of(REAL / "11-subagent")) == ("opencode", "message")


def test_storage_sessions_copied_into_the_database_are_read_once(tmp_path, run_cli):
    """OpenCode 1.2 copies the storage/ JSON files into opencode.db on its first start and
    leaves them: a scan of the data folder holding both counts each session once."""
    data = tmp_path / "opencode"
    shutil.copytree(STORAGE / "storage", data / "storage")
    for suffix in ("", "-wal", "-shm"):
        shutil.copyfile(
            str(db_of(REAL / "11-subagent")) + suffix, str(data / "opencode.db") + suffix
        )
    code, out = run_cli("validate", str(data))
    assert code == 0, out
    code, out = run_cli("stats", "--format", "json", str(data))
    total = json.loads(out)["total"]
    want = ledger(REAL / "11-subagent")["sum_completed_excluding_title"]
    assert total["files"] == 3
    assert total["tokens"]["input"] + total["tokens"]["cached"] == want["prompt_tokens"]
    assert total["tokens"]["messages"] == want["responses"]
    assert total["opencode"]["migrated_sessions_counted_from_the_database"] == 2


def test_a_column_a_later_release_adds_is_kept_as_an_info_finding(tmp_path, run_cli):
    path = _writable_copy(REAL / "01-plain", tmp_path)
    con = sqlite3.connect(path)
    con.execute("ALTER TABLE session ADD COLUMN mood text")
    con.execute("UPDATE session SET mood = 'calm'")
    con.commit()
    con.close()
    code, out = run_cli("validate", str(path))
    assert code == 0
    assert ':1: info N002 field "mood" is not one msgcli knows on a session: kept' in out
    code, out = run_cli("query", str(path))
    assert json.loads(out.splitlines()[0])["session"]["mood"] == "calm"


TARGETS = ["openai-chat", "anthropic", "openai-responses", "agentscope-py", "agentscope-java"]


@pytest.mark.slow
@pytest.mark.parametrize("target", [*TARGETS, "loongflow"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=ids(SCENARIOS))
def test_every_session_converts_to_every_target(scenario, target, tmp_path, run_cli):
    """Every real session, to every dialect msgcli writes: no error finding in the target,
    and every call id OpenCode stored in it (LoongFlow's call ids are UUIDs: its writer
    makes one of each id, the calls still paired with their results)."""
    out = tmp_path / "out.jsonl"
    code, _ = run_cli("convert", "-t", target, str(db_of(scenario)), "-o", str(out))
    assert code == 0
    run = validate_paths([out])
    (report,) = run.files
    assert report.summary.errors == 0, [f.message for f in report.findings]
    text = out.read_text()
    if target == "loongflow":
        return
    for row in rows(scenario, tmp_path, "SELECT data FROM part"):
        part = json.loads(row["data"])
        if part["type"] == "tool":
            assert part["callID"] in text


def test_a_fork_of_a_fork_counts_every_call_once(tmp_path, run_cli):
    """15-fork's fork forked again (made here from its own rows, as OpenCode copies: new ids,
    the same data): the new session's copies, of the source and of the first fork, count
    nothing."""
    path = _writable_copy(REAL / "15-fork", tmp_path)
    con = sqlite3.connect(path)
    con.row_factory = sqlite3.Row
    fork = con.execute("SELECT * FROM session WHERE title LIKE '%fork%'").fetchone()
    second = dict(fork)
    second["id"] = fork["id"][:-4] + "ZZZZ"
    second["title"] = fork["title"] + " (fork #2)"
    second["time_created"] = fork["time_created"] + 60_000
    con.execute(
        f"INSERT INTO session ({', '.join(second)}) VALUES ({', '.join('?' * len(second))})",
        list(second.values()),
    )
    messages = con.execute("SELECT * FROM message WHERE session_id = ?", (fork["id"],)).fetchall()
    for m in messages:
        new_id = m["id"][:-4] + "ZZZZ"
        data = m["data"]
        for other in messages:  # (a reply names the copy of its prompt)
            data = data.replace(other["id"], other["id"][:-4] + "ZZZZ")
        con.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (new_id, second["id"], m["time_created"], m["time_updated"], data),
        )
        for p in con.execute("SELECT * FROM part WHERE message_id = ?", (m["id"],)).fetchall():
            con.execute(
                "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                (p["id"][:-4] + "ZZZZ", new_id, second["id"], p[3], p[4], p["data"]),
            )
    con.commit()
    con.close()
    want = ledger(REAL / "15-fork")["sum_completed_excluding_title"]
    code, out = run_cli("stats", "--format", "json", str(path))
    total = json.loads(out)["total"]
    assert total["tokens"]["input"] + total["tokens"]["cached"] == want["prompt_tokens"]
    assert total["tokens"]["messages"] == want["responses"]
    assert total["opencode"]["forks"] == 2
    code, out = run_cli("validate", str(path))
    assert code == 0, out
