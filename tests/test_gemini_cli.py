"""Gemini CLI sessions (``fixtures/real/gemini-cli``: Gemini CLI 0.61.0 run against a
scripted mock of the Gemini API, with the mock's ledger of the usage it sent), read through
every command: validate, stats (the ledger's sums), the ``responses`` hook, show and its
exports, replay of stream-json, convert, diff, export/query/sql."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import FIXTURES

from msgcli.dialects import get_dialect
from msgcli.pipeline import validate_paths
from msgcli.stats import file_stats
from msgcli.stream import open_log

REAL = FIXTURES / "real" / "gemini-cli"
SCENARIOS = sorted(p for p in REAL.iterdir() if p.is_dir())
SESSIONS = sorted(p for p in REAL.rglob("*.jsonl") if "chats" in p.parts)
STREAMS = sorted(REAL.rglob("stdout*.jsonl"))
LEGACY = FIXTURES / "cases" / "gemini-cli" / "session-2026-12-07T15-15-71685931.json"
DIALECT = get_dialect("gemini-cli")


def ids(paths):
    return [str(p.relative_to(REAL)) for p in paths]


def home(scenario: Path) -> Path:
    """The scenario's ``~/.gemini/tmp`` after its last run."""
    return scenario / "tmp"


def chats(scenario: Path) -> Path:
    return home(scenario) / "work" / "chats"


def main_session(scenario: Path) -> Path:
    return sorted(chats(scenario).glob("session-*.jsonl"))[0]


def ledger(scenario: Path) -> dict:
    return json.loads((scenario / "ledger.txt").read_text())["sum_completed_main"]


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def messages(path: Path):
    return [item.message for item in open_log(path) if item.message is not None]


# -- validate --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", SESSIONS + STREAMS + [LEGACY], ids=[*ids(SESSIONS + STREAMS), "legacy"]
)
def test_every_real_file_is_gemini_cli_and_has_no_finding(path):
    run = validate_paths([path])
    (report,) = run.files
    assert report.summary.dialect == "gemini-cli"
    assert [f"{f.line}: {f.code} {f.message}" for f in report.findings] == []


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_a_folder_in_the_cli_layout_is_found_and_validates(run_cli, scenario):
    code, out = run_cli("validate", str(home(scenario)))
    assert code == 0, out
    files = len(list(home(scenario).rglob("*.jsonl")))
    assert f"Checked {files} file" in out and "0 errors, 0 warnings" in out


def test_a_field_a_newer_release_adds_is_info_and_changes_nothing(tmp_path):
    source = main_session(REAL / "02-shell-one-command")
    lines = source.read_bytes().splitlines()
    edited = []
    for line in lines:
        rec = json.loads(line)
        if rec.get("type") == "gemini":
            rec["citations"] = [{"uri": "https://example.org"}]
        edited.append(json.dumps(rec).encode())
    target = tmp_path / source.name
    target.write_bytes(b"\n".join(edited) + b"\n")
    (report,) = validate_paths([target]).files
    assert {f.code for f in report.findings} == {"G001"}
    assert report.summary.errors == 0
    assert file_stats(target).tokens.to_dict() == file_stats(source).tokens.to_dict()


def test_schemas_are_published_per_record_kind(run_cli):
    code, out = run_cli("schema", "list")
    assert code == 0
    for kind in ("session", "user", "gemini", "patch", "rewind", "event"):
        assert f"gemini-cli/{kind}" in out
    code, out = run_cli("schema", "show", "gemini-cli/gemini")
    assert code == 0 and '"toolCalls"' in out


# -- stats and responses ---------------------------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_stats_of_the_whole_folder_equal_the_ledger(run_cli, scenario):
    code, out = run_cli("stats", "--format", "json", str(home(scenario)))
    assert code == 0
    tokens = json.loads(out)["total"]["tokens"]
    sums = ledger(scenario)
    assert tokens["input"] == sums["promptTokenCount"]
    assert tokens["output"] == sums["candidatesTokenCount"]
    assert tokens["cached"] == sums["cachedContentTokenCount"]
    assert tokens["reasoning"] == sums["thoughtsTokenCount"]
    assert tokens["messages"] == sums["responses"]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_responses_give_the_same_numbers_once_each(scenario):
    sums = ledger(scenario)
    found = []
    for path in home(scenario).rglob("*.jsonl"):
        for msg in messages(path):
            found.extend(DIALECT.responses(msg))
    assert len({r.key for r in found}) == len(found) == sums["responses"]
    # (the prompt of the tools' own use is billed as input too)
    assert sum(r.input + r.cache_read for r in found) == (
        sums["promptTokenCount"] + sums.get("toolUsePromptTokenCount", 0)
    )
    assert sum(r.cache_read for r in found) == sums["cachedContentTokenCount"]
    assert sum(r.output for r in found) == (
        sums["candidatesTokenCount"] + sums["thoughtsTokenCount"]
    )
    assert sum(r.reasoning for r in found) == sums["thoughtsTokenCount"]
    assert all(r.time is not None and r.time.tzinfo is not None for r in found)
    assert all(r.provider == "google" and r.model for r in found)


def test_subagents_are_counted_apart_from_the_main_thread():
    scenario = REAL / "13-subagent"
    stats = file_stats(main_session(scenario))
    gc = stats.details["gemini_cli"]
    sub = gc["subagents"]
    assert sub["files"] == 1 and sub["responses"] == 2
    sums = ledger(scenario)
    assert stats.tokens.input + sub["input"] == sums["promptTokenCount"]
    assert stats.tokens.output + sub["output"] == sums["candidatesTokenCount"]
    assert gc["responses"] + sub["responses"] == sums["responses"]
    (agent_file,) = (chats(scenario) / "0feddf7b-aa6f-4032-a683-4e5ae324fd0e").glob("*.jsonl")
    agent = {r.agent for m in messages(agent_file) for r in DIALECT.responses(m)}
    assert agent == {agent_file.stem}


def test_a_response_written_twice_is_one_message():
    path = main_session(REAL / "02-shell-one-command")
    written = [r["id"] for r in records(path) if r.get("type") == "gemini"]
    assert len(written) > len(set(written))  # the CLI writes a tool-calling response twice
    read = [m.id for m in messages(path) if m.role == "assistant"]
    assert sorted(read) == sorted(set(written))


def test_legacy_json_document_is_read_like_the_journal():
    stats = file_stats(LEGACY)
    sums = ledger(REAL / "02-shell-one-command")
    assert stats.tokens.input == sums["promptTokenCount"]
    assert stats.tokens.messages == sums["responses"]
    journal = [(m.role, m.id) for m in messages(main_session(REAL / "02-shell-one-command"))]
    assert [(m.role, m.id) for m in messages(LEGACY)] == journal


# -- history: resume, $set, $rewindTo ------------------------------------------------------


def test_resume_rewrites_history_in_the_same_file_and_keeps_each_message_once():
    path = main_session(REAL / "08-resume")
    read = messages(path)
    prompts = [
        m.content[0].text for m in read if m.role == "user" and not m.fields.get("msgcli_context")
    ]
    assert [p.rsplit("] ", 1)[1] for p in prompts] == ["run1", "run2", "run3"]
    assert len({m.id for m in read}) == len(read)
    stats = file_stats(path)
    assert stats.no_result == 0 and stats.tool_results == {"success": 1}
    # the token data survives the rewritten history (where the CLI dropped it)
    assert stats.tokens.messages == ledger(REAL / "08-resume")["responses"]


def test_rewind_removes_from_the_history_but_the_billed_tokens_still_count(tmp_path):
    source = main_session(REAL / "08-resume")
    recs = records(source)
    run3 = next(r["id"] for r in recs if r.get("type") == "user" and "run3" in str(r["content"]))
    target = tmp_path / source.name
    target.write_bytes(source.read_bytes() + json.dumps({"$rewindTo": run3}).encode() + b"\n")
    (report,) = validate_paths([target]).files
    assert report.findings == []
    visible = [m for m in messages(target) if not DIALECT.aside(m)]
    assert not any("run3" in str(b) for m in visible for b in m.content)
    stats = file_stats(target)
    assert stats.tokens.input == ledger(REAL / "08-resume")["promptTokenCount"]
    assert stats.details["gemini_cli"]["rewound"] == 1


def test_the_second_file_of_a_compressed_session_adds_nothing():
    files = sorted(chats(REAL / "12-compression").glob("session-*.jsonl"))
    assert len(files) == 2
    later = file_stats(files[1])
    assert later.tokens.messages == 0
    assert file_stats(files[0]).tokens.input == ledger(REAL / "12-compression")["promptTokenCount"]


# -- replay of stream-json ------------------------------------------------------------------


def _turns(msgs):
    """What a session and its stream-json output both say: the prompts, the answers' text,
    the calls' and results' ids."""
    out = []
    for m in msgs:
        if DIALECT.aside(m) or m.fields.get("msgcli_context"):
            continue  # (the stream holds neither the header nor the CLI's context message)
        calls = [b.id for b in m.content if b.type == "tool_call"]
        results = [b.id for b in m.content if b.type == "tool_result"]
        text = "".join(b.text for b in m.content if b.type == "text")
        out.append((m.role, text if not results else "", calls, results))
    return out


@pytest.mark.parametrize(
    "scenario",
    [
        "02-shell-one-command",
        "04-write-replace-read",
        "05-failing-command",
        "13-subagent",
        "14-policy-deny",
        "n1-stream-json-thoughts",
    ],
)
def test_stream_json_rebuilds_the_messages_of_the_session_file(scenario):
    folder = REAL / scenario
    replayed = _turns(messages(folder / "stdout.jsonl"))
    assert replayed == _turns(messages(main_session(folder)))


@pytest.mark.parametrize(
    ("scenario", "after"), [("08-resume", "after-run2"), ("n2-resume-parallel-calls", None)]
)
def test_stream_json_of_a_resumed_run_rebuilds_that_run(scenario, after):
    folder = REAL / scenario
    replayed = _turns(messages(folder / "stdout.run2.jsonl"))
    session = main_session(folder)
    if after is not None:
        session = folder / after / "tmp" / "work" / "chats" / session.name
    whole = _turns(messages(session))
    assert len(whole) > len(replayed) and whole[-len(replayed) :] == replayed


def test_the_cli_own_totals_include_its_side_calls_the_session_file_does_not():
    folder = REAL / "n1-stream-json-thoughts"
    result = json.loads((folder / "stdout.jsonl").read_text().splitlines()[-1])
    whole = json.loads((folder / "ledger.txt").read_text())
    assert result["stats"]["input_tokens"] == whole["sum_completed_all"]["promptTokenCount"]
    assert file_stats(main_session(folder)).tokens.input == ledger(folder)["promptTokenCount"]
    assert ledger(folder)["promptTokenCount"] < result["stats"]["input_tokens"]


# -- show, HTML, Markdown -------------------------------------------------------------------


def test_show_nests_the_subagent_under_its_call_and_shows_errors(run_cli, tmp_path):
    code, out = run_cli("show", str(main_session(REAL / "13-subagent")))
    assert code == 0
    assert (
        out.index("invoke_agent") < out.index("sub-agent generalist") < out.index("ls -1 | wc -l")
    )
    code, out = run_cli("show", str(main_session(REAL / "14-policy-deny")))
    assert "Tool execution denied by policy." in out and "error" in out
    page = tmp_path / "s.html"
    code, _ = run_cli("show", str(main_session(REAL / "13-subagent")), "--export-html", str(page))
    assert code == 0 and "ls -1 | wc -l" in page.read_text()
    nested = tmp_path / "n.md"
    code, _ = run_cli(
        "show", str(main_session(REAL / "13-subagent")), "--export-markdown", str(nested)
    )
    text = nested.read_text()
    assert code == 0 and text.index("sub-agent generalist") < text.index("ls -1 | wc -l")
    md = tmp_path / "s.md"
    code, _ = run_cli(
        "show", str(main_session(REAL / "01-plain-markdown")), "--export-markdown", str(md)
    )
    assert code == 0 and "naïve café" in md.read_text()


# -- convert, diff, export, query, sql ------------------------------------------------------


@pytest.mark.parametrize(
    "target", ["openai-chat", "anthropic", "openai-responses", "agentscope-py"]
)
def test_convert_keeps_every_call_id_and_validates_in_its_target(run_cli, tmp_path, target):
    source = main_session(REAL / "14-policy-deny")
    calls = {
        c["id"]
        for r in records(source)
        if r.get("type") == "gemini"
        for c in r.get("toolCalls", ())
    }
    out = tmp_path / "out.jsonl"
    code, _ = run_cli("convert", "-t", target, str(source), "-o", str(out))
    assert code == 0
    text = out.read_text()
    assert calls and all(c in text for c in calls)
    (report,) = validate_paths([out]).files
    assert report.summary.dialect == target and report.summary.errors == 0


def test_gemini_cli_is_no_conversion_target(run_cli):
    code, _out = run_cli(
        "convert", "-t", "gemini-cli", str(main_session(REAL / "01-plain-markdown"))
    )
    assert code == 2


@pytest.mark.parametrize(
    ("scenario", "later", "added"),
    [
        ("08-resume", "after-run2", 4),
        ("08-resume", "after-run3", 6),
        ("n2-resume-parallel-calls", None, 5),
    ],
)
def test_diff_of_a_resumed_session_against_the_file_before_shows_only_additions(
    run_cli, scenario, later, added
):
    folder = REAL / scenario
    name = main_session(folder).name
    before = folder / "after-run1" / "tmp" / "work" / "chats" / name
    after = main_session(folder)
    if later is not None:
        after = folder / later / "tmp" / "work" / "chats" / name
    code, out = run_cli("diff", "-f", "json", str(before), str(after))
    assert code == 1  # (they differ)
    stat = json.loads(out)["stat"]
    assert (stat["added"], stat["removed"], stat["changed"]) == (added, 0, 0)


def test_export_has_session_agent_and_parent_columns(run_cli, tmp_path):
    db_path = tmp_path / "t.sqlite"
    code, _ = run_cli(
        "export", "--no-findings", str(home(REAL / "13-subagent")), "--to", str(db_path)
    )
    assert code == 0
    db = sqlite3.connect(db_path)
    rows = set(
        db.execute(
            "SELECT session_id, agent_id, is_sidechain, parent_session_id FROM messages "
            "WHERE role = 'assistant'"
        )
    )
    parent = "0feddf7b-aa6f-4032-a683-4e5ae324fd0e"
    agent = "c584e42e-35b6-45f5-b0d3-05d22f297475"
    assert rows == {(parent, None, 0, None), (agent, agent, 1, parent)}
    total = db.execute("SELECT sum(input_tokens), sum(reasoning_tokens) FROM messages").fetchone()
    sums = ledger(REAL / "13-subagent")
    assert total == (sums["promptTokenCount"], sums["thoughtsTokenCount"])


def test_query_writes_records_as_the_cli_wrote_them(run_cli):
    code, out = run_cli(
        "query", "--role", "assistant", str(main_session(REAL / "02-shell-one-command"))
    )
    assert code == 0
    lines = [json.loads(x) for x in out.splitlines() if x.strip()]
    assert len(lines) == 2 and all(not any(k.startswith("msgcli_") for k in r) for r in lines)


def test_sql_counts_the_subagents_calls(run_cli):
    code, out = run_cli(
        "sql",
        "SELECT name, parent_session_id FROM tool_calls WHERE parent_session_id IS NOT NULL",
        str(home(REAL / "13-subagent")),
    )
    assert code == 0
    assert "run_shell_command" in out and "complete_task" in out and "invoke_agent" not in out


def test_redact_masks_a_secret_in_a_prompt(run_cli, tmp_path):
    source = main_session(REAL / "01-plain-markdown")
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    text = source.read_text(encoding="utf-8").replace("[gm:01-plain-markdown]", secret)
    target = tmp_path / source.name
    target.write_text(text, encoding="utf-8")
    code, out = run_cli("show", "--redact", str(target))
    assert code == 0 and secret not in out and "naïve" in out
    code, out = run_cli("convert", "--redact", "-t", "openai-chat", str(target))
    assert code == 0 and secret not in out and "naïve" in out
    code, out = run_cli("query", "--redact", str(target))
    assert code == 0 and secret not in out and "naïve" in out
    code, out = run_cli("sql", "--redact", "-f", "json", "SELECT text FROM messages", str(target))
    assert code == 0 and secret not in out and "naïve" in out
    db_path = tmp_path / "t.sqlite"
    code, _ = run_cli("export", "--redact", "--no-findings", str(target), "--to", str(db_path))
    texts = " ".join(t for (t,) in sqlite3.connect(db_path).execute("SELECT text FROM blocks") if t)
    assert code == 0 and secret not in texts and "naïve" in texts
    code, out = run_cli("query", str(target))
    assert secret in out


@pytest.mark.parametrize("stream", STREAMS, ids=ids(STREAMS))
def test_replay_writes_a_session_file_that_validates(run_cli, tmp_path, stream):
    code, out = run_cli("replay", str(stream))
    assert code == 0
    target = tmp_path / "replayed.jsonl"
    target.write_text(out, encoding="utf-8")
    (report,) = validate_paths([target]).files
    assert report.summary.dialect == "gemini-cli" and report.findings == []
    assert _turns(messages(target)) == _turns(messages(stream))


def test_a_record_kind_a_newer_release_adds_is_info_kept_and_shown_with_all(run_cli, tmp_path):
    source = main_session(REAL / "02-shell-one-command")
    lines = source.read_bytes().splitlines(keepends=True)
    new = [
        b'{"id":"x1","timestamp":"2026-12-07T15:15:39.412Z","type":"compression",'
        b'"content":[{"text":"a summary of what came before"}]}\n',
        b'{"$unset":{"summary":true}}\n',
    ]
    target = tmp_path / source.name
    target.write_bytes(b"".join(lines[:3] + new + lines[3:]))
    (report,) = validate_paths([target]).files
    assert [(f.line, f.code) for f in report.findings] == [(4, "G001"), (5, "G001")]
    assert report.summary.errors == 0
    assert file_stats(target).tokens.to_dict() == file_stats(source).tokens.to_dict()
    code, out = run_cli("show", str(target))
    assert code == 0 and "a summary of what came before" not in out
    code, out = run_cli("show", "--all", str(target))
    assert code == 0 and "a summary of what came before" in out and "$unset" in out


def test_a_stream_record_type_a_newer_release_adds_is_info_and_counted(tmp_path):
    source = REAL / "02-shell-one-command" / "stdout.jsonl"
    lines = source.read_bytes().splitlines(keepends=True)
    new = b'{"type":"thought","timestamp":"2026-12-07T15:15:39.412Z","content":"hmm"}\n'
    target = tmp_path / "stdout.jsonl"
    target.write_bytes(b"".join([*lines[:3], new, *lines[3:]]))
    (report,) = validate_paths([target]).files
    assert [(f.line, f.code) for f in report.findings] == [(4, "G001")]
    assert report.summary.replay.unknown == {"thought": 1}
    assert _turns(messages(target)) == _turns(messages(source))


#: records of the right shape with values of the wrong type, as a broken or hand-edited
#: file holds them (no producer wrote these)
BROKEN = [
    b'{"$set":{"messages":[1,{"id":"m","type":"user","timestamp":"t","content":5}]}}\n',
    b'{"$set":"x"}\n',
    b'{"$rewindTo":5}\n',
    b'{"id":"g1","timestamp":"2026-12-07T15:15:40Z","type":"gemini","content":7,"thoughts":"x",'
    b'"tokens":{"input":"many","output":null},"model":3,"toolCalls":{"id":"c"}}\n',
    b'{"id":"g2","timestamp":"2026-12-07T15:15:40Z","type":"gemini","content":[1,{"functionCall":'
    b'{"id":7,"args":"x"}},{"thought":true,"text":"t"}],"toolCalls":[1,{"id":null,"name":2,'
    b'"agentId":5,"result":"r"}]}\n',
    b'{"id":"u1","timestamp":"2026-12-07T15:15:40Z","type":"user","content":[{"functionResponse":'
    b'{"id":"c","name":"x","response":"not an object"}},{"inlineData":{"mimeType":"image/png",'
    b'"data":"AAAA"}},{"fileData":{"fileUri":"gs://b/o"}}]}\n',
    b'{"sessionId":5,"projectHash":"h","startTime":"s"}\n',
]


@pytest.mark.parametrize(
    "command",
    [
        ("validate",),
        ("stats", "--format", "json"),
        ("show", "--all"),
        ("query",),
        ("convert", "-t", "openai-chat"),
        ("convert", "-t", "agentscope-py"),
    ],
    ids=lambda c: " ".join(c),
)
def test_values_of_the_wrong_type_give_findings_never_a_traceback(run_cli, tmp_path, command):
    source = main_session(REAL / "02-shell-one-command")
    target = tmp_path / source.name
    target.write_bytes(source.read_bytes() + b"".join(BROKEN))
    code, _out = run_cli(*command, str(target))  # (an exception would fail the test)
    assert code in (0, 1)
    if command[0] == "validate":
        (report,) = validate_paths([target]).files
        assert report.summary.errors > 0
        assert all(f.line > 11 for f in report.findings)  # only the lines added are faulted


def test_export_of_values_of_the_wrong_type(run_cli, tmp_path):
    source = main_session(REAL / "02-shell-one-command")
    target = tmp_path / source.name
    target.write_bytes(source.read_bytes() + b"".join(BROKEN))
    code, _ = run_cli("export", str(target), "--to", str(tmp_path / "t.sqlite"))
    assert code == 0
