"""Claude Code sessions through the commands built beside the dialect: the HTML and Markdown
exports of ``show``, ``diff``, ``export`` and ``query``.

Every test runs the real files of ``fixtures/real/claude-code`` and works out what a user
would check from the raw JSON: the distinct ``message.id`` of the assistant records, the
distinct ``tool_use`` ids, the subagent files beside a session, the lines a resumed session
shares with the file before it.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

REAL = FIXTURES / "real" / "claude-code"
SESSIONS = sorted(
    p for p in REAL.rglob("*.jsonl") if p.name != "stream.jsonl" and "subagents" not in p.parts
)
SUBAGENTS = sorted(p for p in REAL.rglob("*.jsonl") if "subagents" in p.parts)
#: main session files in their projects layout, with subagent files beside them
WITH_SUBAGENTS = sorted(
    p for p in REAL.rglob("*.jsonl") if "projects" in p.parts and "subagents" not in p.parts
)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().split(b"\n") if line.strip()]


def response_ids(recs: list[dict]) -> set[str]:
    """The API responses of a file: the distinct ``message.id`` of its assistant records."""
    return {r["message"]["id"] for r in recs if r.get("type") == "assistant"}


def tool_use_ids(recs: list[dict]) -> set[str]:
    return {
        b["id"]
        for r in recs
        if r.get("type") == "assistant"
        for b in r["message"].get("content") or ()
        if isinstance(b, dict) and b.get("type") == "tool_use"
    }


def prompt_uuids(recs: list[dict]) -> set[str]:
    """The user records that are prompts (not tool results)."""
    out = set()
    for r in recs:
        content = r.get("message", {}).get("content") if r.get("type") == "user" else None
        if isinstance(content, str) or (
            isinstance(content, list)
            and not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
        ):
            out.add(r["uuid"])
    return out


def subagent_files(session: Path) -> list[Path]:
    return sorted((session.parent / session.stem / "subagents").glob("agent-*.jsonl"))


def label(path: Path) -> str:
    return str(path.relative_to(REAL))


# -- export and query ---------------------------------------------------------------------


def _export(run_cli, path: Path, target: Path) -> sqlite3.Connection:
    code, _out = run_cli("export", "--no-findings", str(path), "--to", str(target))
    assert code == 0
    return sqlite3.connect(target)


@pytest.mark.parametrize("path", SESSIONS + SUBAGENTS, ids=label)
def test_export_one_assistant_row_per_response_and_a_tool_call_row_per_tool_use(
    run_cli, tmp_path, path
):
    recs = records(path)
    db = _export(run_cli, path, tmp_path / "t.sqlite")
    assistant = [row[0] for row in db.execute("SELECT id FROM messages WHERE role = 'assistant'")]
    assert sorted(assistant) == sorted(response_ids(recs))
    calls = [row[0] for row in db.execute("SELECT call_id FROM tool_calls")]
    assert sorted(calls) == sorted(tool_use_ids(recs))
    # every other record is a row of its own: nothing dropped
    merged_away = sum(r.get("type") == "assistant" for r in recs) - len(response_ids(recs))
    (rows,) = db.execute("SELECT count(*) FROM messages").fetchone()
    assert rows == len(recs) - merged_away


@pytest.mark.parametrize("path", SESSIONS + SUBAGENTS, ids=label)
def test_export_session_agent_and_sidechain_columns(run_cli, tmp_path, path):
    recs = records(path)
    db = _export(run_cli, path, tmp_path / "t.sqlite")
    turns = [r for r in recs if r.get("type") in ("user", "assistant")]
    got = db.execute(
        "SELECT DISTINCT session_id, agent_id, is_sidechain FROM messages "
        "WHERE role IN ('user', 'assistant', 'tool')"
    ).fetchall()
    want = {(r["sessionId"], r.get("agentId"), int(r["isSidechain"])) for r in turns}
    assert set(got) == want
    # a tool call's are those of the message that made it
    got_calls = set(
        db.execute("SELECT DISTINCT session_id, agent_id, is_sidechain FROM tool_calls")
    )
    assert got_calls <= want
    if "subagents" in path.parts:
        agent = path.stem[len("agent-") :]
        assert got == [(recs[0]["sessionId"], agent, 1)]


def test_export_of_a_projects_folder_tells_the_subagent_apart(run_cli, tmp_path):
    folder = REAL / "09-subagent" / "projects"
    (session,) = [p for p in WITH_SUBAGENTS if folder in p.parents]
    (sub,) = subagent_files(session)
    db = _export(run_cli, folder, tmp_path / "t.sqlite")
    agent = sub.stem[len("agent-") :]
    by_agent = dict(
        db.execute(
            "SELECT coalesce(agent_id, 'main'), count(*) FROM tool_calls GROUP BY agent_id"
        ).fetchall()
    )
    assert by_agent == {
        "main": len(tool_use_ids(records(session))),
        agent: len(tool_use_ids(records(sub))),
    }
    sessions = {row[0] for row in db.execute("SELECT session_id FROM messages")} - {None}
    assert sessions == {session.stem}


@pytest.mark.parametrize("path", SESSIONS, ids=label)
def test_query_gives_one_assistant_record_per_response(run_cli, path):
    recs = records(path)
    code, out = run_cli("query", "--role", "assistant", str(path))
    assert code == (0 if response_ids(recs) else 1)
    written = [json.loads(line) for line in out.split("\n") if line]
    assert sorted(r["message"]["id"] for r in written) == sorted(response_ids(recs))
    # each written response holds every block of its records, and nothing msgcli noted
    for rec in written:
        blocks = [
            b
            for r in recs
            if r.get("type") == "assistant" and r["message"]["id"] == rec["message"]["id"]
            for b in r["message"]["content"]
        ]
        assert rec["message"]["content"] == blocks
        assert not [k for k in rec if k.startswith("msgcli")]


@pytest.mark.parametrize("path", SESSIONS, ids=label)
def test_query_of_tool_results_writes_the_records_as_read(run_cli, path):
    recs = records(path)
    results = [
        r
        for r in recs
        if r.get("type") == "user"
        and isinstance(r["message"]["content"], list)
        and r["message"]["content"]
        and all(b.get("type") == "tool_result" for b in r["message"]["content"])
    ]
    code, out = run_cli("query", "--role", "tool", str(path))
    assert code == (0 if results else 1)
    # each record of tool results, unchanged
    assert [json.loads(line) for line in out.split("\n") if line] == results


# -- diff ----------------------------------------------------------------------------------


def test_diff_of_a_resumed_session_against_the_file_before_it_shows_only_additions(run_cli):
    before = REAL / "02-bash-ls" / "session.jsonl"
    resumed = REAL / "13a-resume" / "session.jsonl"
    old, new = records(before), records(resumed)
    # the premise: --resume appended to the same session file
    assert new[: len(old)] == old and len(new) > len(old)
    code, out = run_cli("diff", "--format", "json", str(before), str(resumed))
    assert code == 1
    report = json.loads(out)
    differences = report["differences"]
    assert differences
    assert {d["kind"] for d in differences} == {"added"}
    assert report["stat"]["removed"] == 0 and report["stat"]["changed"] == 0
    # what was added is what the resumed run wrote: every line after the old file's end
    added_lines = {d["b"]["line"] for d in differences}
    assert min(added_lines) == len(old) + 1
    appended = new[len(old) :]
    merged_away = sum(r.get("type") == "assistant" for r in appended) - len(response_ids(appended))
    assert len(differences) == len(appended) - merged_away
    # (ids are not compared unless asked: a call is its tool and arguments)
    added_calls = [
        (b["name"], b["arguments"])
        for d in differences
        for b in d["new"].get("content", ())
        if isinstance(b, dict) and b.get("kind") == "tool_call"
    ]
    assert added_calls == [
        (b["name"], b["input"])
        for r in appended
        if r.get("type") == "assistant"
        for b in r["message"]["content"]
        if b.get("type") == "tool_use"
    ]
    assert len(added_calls) == len(tool_use_ids(appended))


def test_diff_of_a_session_against_itself_is_empty(run_cli):
    path = str(REAL / "13a-resume" / "session.jsonl")
    code, _out = run_cli("diff", path, path)
    assert code == 0


# -- HTML and Markdown exports -------------------------------------------------------------


@pytest.mark.parametrize("session", WITH_SUBAGENTS, ids=label)
def test_html_export_holds_every_message_and_nests_the_subagent_under_its_call(
    run_cli, tmp_path, session
):
    page = tmp_path / "page.html"
    code, _out = run_cli("show", str(session), "--export-html", str(page))
    assert code == 0
    text = page.read_text(encoding="utf-8")
    main = records(session)
    (sub,) = subagent_files(session)
    agent = records(sub)
    start = text.index('<section class="nested"')
    end = text.index("</section>", start)
    nested, outside = text[start:end], text[:start] + text[end:]
    for mid in response_ids(main) | prompt_uuids(main):
        assert f'data-id="{mid}"' in outside
    for mid in response_ids(agent) | prompt_uuids(agent):
        assert f'data-id="{mid}"' in nested
        assert f'data-id="{mid}"' not in outside
    for tid in tool_use_ids(agent):
        assert tid in nested
    # the section comes right after the card of the Agent call that started the subagent
    meta = json.loads(sub.with_suffix(".meta.json").read_text())
    call_card = text.rindex("<article", 0, start)
    assert meta["toolUseId"] in text[call_card:start]
    # records outside the conversation are left out unless asked for
    asides = {r["type"] for r in main if r["type"] not in ("user", "assistant")}
    assert "queue-operation" in asides
    for kind in asides:
        assert f'data-role="{kind}"' not in text
    code, _out = run_cli("show", "--all", str(session), "--export-html", str(page))
    every = page.read_text(encoding="utf-8")
    for kind in asides:
        assert f'data-role="{kind}"' in every


@pytest.mark.parametrize("session", WITH_SUBAGENTS, ids=label)
def test_markdown_export_quotes_the_subagent_under_its_call(run_cli, session):
    code, out = run_cli("show", str(session), "--export-markdown", "-")
    assert code == 0
    (sub,) = subagent_files(session)
    agent = records(sub)
    lines = out.splitlines()
    quoted = "\n".join(line for line in lines if line.startswith(">"))
    plain = "\n".join(line for line in lines if not line.startswith(">"))
    for mid in response_ids(agent) | prompt_uuids(agent) | tool_use_ids(agent):
        assert mid in quoted and mid not in plain
    main = records(session)
    for mid in response_ids(main) | tool_use_ids(main):
        assert mid in plain
    meta = json.loads(sub.with_suffix(".meta.json").read_text())
    first_nested = next(i for i, line in enumerate(lines) if line.startswith("> **↳ subagent"))
    call = next(i for i, line in enumerate(lines) if meta["toolUseId"] in line)
    assert call < first_nested
    assert sub.stem[len("agent-") :] in lines[first_nested]


@pytest.mark.parametrize("path", [REAL / "09-subagent" / "session.jsonl"], ids=label)
def test_exports_of_a_session_without_its_folder_hold_every_message(run_cli, tmp_path, path):
    """A session copied out of its projects layout: no subagent to nest, nothing lost."""
    page = tmp_path / "page.html"
    code, _out = run_cli("show", str(path), "--export-html", str(page))
    assert code == 0
    text = page.read_text(encoding="utf-8")
    recs = records(path)
    assert '<section class="nested"' not in text
    for mid in response_ids(recs) | prompt_uuids(recs):
        assert f'data-id="{mid}"' in text


def test_a_broken_line_among_a_responses_records_is_told_in_its_place(run_cli, tmp_path):
    """The real parallel-read session (one response written over lines 6, 7 and 9, the
    result of its first call between them) with line 7 cut short: show tells of the broken
    line after the response that began before it and before the result after it, as the
    Markdown export does; the response after them follows."""
    lines = (REAL / "03-parallel-read" / "session.jsonl").read_text().splitlines()
    assert [json.loads(line)["message"].get("id") for line in lines[5:9:3]] == [
        json.loads(lines[5])["message"]["id"]
    ] * 2
    lines[6] = lines[6][:80]
    log = tmp_path / "session.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def order(text: str, pattern: str) -> list[int]:
        """The line numbers of the notices and message heads, as they are printed."""
        return [int(a or b) for a, b in re.findall(pattern, text)]

    code, out = run_cli("show", "--no-pager", str(log))
    assert code == 0
    assert order(out, r"(?m)^line (\d+): P001|^ [A-Z]+ .*  line (\d+)$") == [3, 6, 7, 8, 11]
    code, markdown = run_cli("show", "--export-markdown", "-", str(log))
    assert code == 0
    heads = r"(?m)^> ⚠ line (\d+): P001|^\*\*[A-Z]+\*\* · .* · line (\d+)$"
    assert order(markdown, heads) == [3, 6, 7, 8, 11]


# -- the README's examples -----------------------------------------------------------------


def _example(command: str) -> list[str]:
    """The output lines under ``$ command`` in the README's "Claude Code sessions" section."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Claude Code sessions\n", 1)[1].split("\n## ", 1)[0]
    block = section.split(f"```console\n$ {command}\n", 1)[1].split("```", 1)[0]
    return block.rstrip("\n").split("\n")


def test_readme_diff_example_is_what_msgcli_prints(run_cli, monkeypatch):
    monkeypatch.chdir(ROOT)
    command = (
        "msgcli diff --stat fixtures/real/claude-code/02-bash-ls/session.jsonl "
        "fixtures/real/claude-code/13a-resume/session.jsonl"
    )
    code, out = run_cli(*command.split()[1:])
    assert code == 1
    assert out.rstrip("\n").split("\n") == _example(command)


def test_readme_sql_example_is_what_msgcli_prints(run_cli, monkeypatch):
    pytest.importorskip("duckdb")
    monkeypatch.chdir(ROOT)
    query = (
        "SELECT coalesce(agent_id, 'main') AS agent, is_sidechain, count(*) AS responses, "
        "sum(output_tokens) AS output FROM messages WHERE role = 'assistant' GROUP BY ALL "
        "ORDER BY agent"
    )
    folder = "fixtures/real/claude-code/09-subagent/projects"
    code, out = run_cli("sql", "-f", "csv", query, folder)
    assert code == 0
    assert out.rstrip("\n").replace("\r", "").split("\n") == _example(
        f'msgcli sql -f csv "{query}" {folder}'
    )


def test_readme_export_example_writes_both_files(run_cli, monkeypatch, tmp_path):
    session = WITH_SUBAGENTS[0]
    command = f"msgcli show {session.relative_to(ROOT)} --export-html session.html"
    command += " --export-markdown session.md"
    lines = _example(command)
    assert lines == ["msgcli: wrote session.html", "msgcli: wrote session.md"]
    monkeypatch.chdir(tmp_path)
    code, _out = run_cli(
        "show", str(session), "--export-html", "session.html", "--export-markdown", "session.md"
    )
    assert code == 0
    assert (tmp_path / "session.html").stat().st_size and (tmp_path / "session.md").stat().st_size


def test_exports_with_redact_mask_secrets_in_the_session_and_its_subagents(run_cli, tmp_path):
    """No real session holds a secret: one is written into a copy of a real session and of its
    subagent's file (a prompt, and a tool result), as a user's key would be."""
    import shutil

    session = WITH_SUBAGENTS[0]
    root = tmp_path / "projects"
    shutil.copytree(session.parent, root / session.parent.name)
    copy = root / session.parent.name / session.name
    (sub,) = subagent_files(copy)
    key = "sk-ant-api03-" + "Q7x" * 30
    password = "DB_PASSWORD=correct-horse-battery"

    def plant(path: Path, where: str) -> None:
        recs = records(path)
        for rec in recs:
            content = rec.get("message", {}).get("content")
            if where == "prompt" and rec.get("type") == "user" and isinstance(content, str):
                rec["message"]["content"] = f"{content} my key is {key}"
                break
            if where == "result" and rec.get("type") == "user" and isinstance(content, list):
                content[0]["content"] = f"{password}\n{content[0]['content']}"
                break
        else:
            raise AssertionError(f"nothing to plant a secret in, in {path}")
        path.write_text("\n".join(json.dumps(r) for r in recs) + "\n", encoding="utf-8")

    plant(copy, "prompt")
    plant(sub, "result")
    page, notes = tmp_path / "page.html", tmp_path / "notes.md"
    args = [str(copy), "--export-html", str(page), "--export-markdown", str(notes)]
    code, _out = run_cli("show", *args)
    assert code == 0
    for out in (page, notes):  # without --redact the secrets are there: the test can fail
        text = out.read_text(encoding="utf-8")
        assert key in text and "correct-horse-battery" in text
        out.unlink()
    code, _out = run_cli("show", "--redact", *args)
    assert code == 0
    for out in (page, notes):
        text = out.read_text(encoding="utf-8")
        assert key not in text and "correct-horse-battery" not in text
        assert "my key is [REDACTED:" in text and "DB_PASSWORD=[REDACTED:" in text
        for tid in tool_use_ids(records(sub)):
            assert tid in text  # the subagent is still there, nested


@pytest.mark.parametrize("target", ["anthropic", "openai-chat", "openai-responses"])
@pytest.mark.parametrize("path", SESSIONS, ids=label)
def test_convert_to_the_provider_dialects_keeps_every_tool_use_id_and_validates(
    run_cli, tmp_path, path, target
):
    out = tmp_path / "converted.jsonl"
    code, _ = run_cli("convert", "-q", "--to", target, "-o", str(out), str(path))
    assert code == 0
    text = out.read_text(encoding="utf-8")
    calls = tool_use_ids(records(path))
    for tid in calls:
        assert text.count(json.dumps(tid)) >= 2, tid  # the call and its result
    code, report = run_cli("validate", "--no-config", "--format", "json", str(out))
    doc = json.loads(report)
    assert doc["summary"]["errors"] == 0, report
    if calls:  # (plain text messages look alike in every provider's form)
        assert doc["files"][0]["dialect"] == target
