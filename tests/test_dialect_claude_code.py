"""Claude Code sessions: the real files of two releases through every command.

Fixtures: ``fixtures/real/claude-code`` (sessions, subagent files and stream-json logs
written by Claude Code 2.1.197 and 2.1.332) and ``fixtures/newer/claude-code`` (a real
session with what an unknown release might add). What a user would check is worked out
here from the raw JSON: line counts, the ``result`` records of the stream-json logs,
tool_use ids, the subagent files beside a session.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import FIXTURES
from typer.testing import CliRunner

from msgcli.cli import app
from msgcli.pipeline import validate_paths

REAL = FIXTURES / "real" / "claude-code"
NEWER = FIXTURES / "newer" / "claude-code" / "invented-release.jsonl"
ALL_FILES = sorted(
    p for p in REAL.rglob("*") if p.is_file() and p.name.endswith((".jsonl", ".json"))
)
SESSIONS = [p for p in ALL_FILES if p.name.endswith(".jsonl") and p.name != "stream.jsonl"]
STREAMS = [p for p in ALL_FILES if p.name == "stream.jsonl"]
#: scenarios whose session file holds more than the run of its stream (a resume, a compaction)
MULTI_RUN = {"13a-resume", "19-compact"}
SINGLE_RUN = [p.parent for p in STREAMS if p.parent.name not in MULTI_RUN]

runner = CliRunner()


def ids(paths):
    return [str(p.relative_to(REAL)) for p in paths]


def lines(path: Path) -> list[dict]:
    """The records of a file, split on \\n only (a raw U+2028 is part of its line)."""
    return [json.loads(x) for x in path.read_bytes().split(b"\n") if x.strip()]


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


# -- reading and validate ----------------------------------------------------------------


@pytest.mark.parametrize("path", ALL_FILES, ids=ids(ALL_FILES))
def test_every_real_file_is_claude_code_with_records_equal_to_lines_and_no_error(path):
    run = validate_paths([path])
    (fr,) = run.files
    assert fr.summary.dialect == "claude-code"
    assert fr.summary.records == len(lines(path))
    assert [str(f) for f in fr.findings if f.severity.value == "error"] == []
    assert run.exit_code == 0
    if path.name == "stream.jsonl":
        assert fr.summary.kind == "events"
    else:
        assert fr.summary.kind == "messages"


def test_a_raw_line_separator_inside_a_string_does_not_split_the_record():
    path = REAL / "01-plain-markdown" / "session.jsonl"
    raw = path.read_bytes()
    assert "\u2028".encode() in raw
    assert len(raw.decode().splitlines()) > raw.count(b"\n")  # str.splitlines would cut it
    run = validate_paths([path])
    assert run.files[0].summary.records == raw.count(b"\n")
    assert run.findings() == []


def test_the_only_warning_of_the_2_1_197_sessions_is_the_synthetic_api_error():
    run = validate_paths([REAL])
    warned = [(Path(f.path).parent.name, f.line, f.code) for f in run.findings()]
    assert warned == [("12c-api-error-final", 6, "K013")]
    assert run.exit_code == 0


def test_validate_a_projects_folder_finds_sessions_and_subagent_files():
    projects = REAL / "09-subagent" / "projects"
    result = invoke("validate", "-v", str(projects))
    assert result.exit_code == 0, result.output
    assert "agent-a9cc50b2b12bfa1ca.jsonl: claude-code messages, 6 records, ok" in result.output
    assert "e53477da-f35b-4b62-8591-b926e937a2f0.jsonl: claude-code messages" in result.output
    assert "Checked 3 files (claude-code 3)" in result.output


def test_an_invented_release_gives_one_info_finding_per_new_thing_and_exit_0():
    result = invoke("validate", "--format", "json", str(NEWER))
    assert result.exit_code == 0
    report = json.loads(result.output)
    found = [(f["line"], f["code"], f["severity"]) for f in report["findings"]]
    assert found == [
        (4, "K002", "info"),  # attachment kind telepathy_hint
        (6, "K001", "info"),  # record type vibe-check
        (7, "K003", "info"),  # system subtype quantum_tick
        (8, "K004", "info"),  # field moodRing
    ]
    assert report["summary"]["errors"] == report["summary"]["warnings"] == 0
    assert report["files"][0]["records"] == len(lines(NEWER))


@pytest.mark.parametrize(
    ("fmt", "wanted"),
    [
        ("text", "(4 info findings)"),
        ("github", "::notice file="),
        ("sarif", '"level": "note"'),
        ("junit", 'failures="0"'),
    ],
)
def test_info_findings_never_fail_and_every_report_names_them(fmt, wanted):
    result = invoke("validate", "--strict", "--format", fmt, str(NEWER))
    assert result.exit_code == 0, result.output
    assert wanted in result.output


def test_the_newest_release_is_read_without_info_findings():
    run = validate_paths([REAL / "2.1.332"])
    assert run.findings() == []
    assert run.summary.files == 15


# -- stats --------------------------------------------------------------------------------


def _results(stream: Path) -> list[dict]:
    return [r for r in lines(stream) if r.get("type") == "result"]


@pytest.mark.parametrize("scenario", SINGLE_RUN, ids=[p.name for p in SINGLE_RUN])
def test_stats_tokens_equal_claude_codes_own_result_usage(scenario):
    result = invoke("stats", "--format", "json", str(scenario / "session.jsonl"))
    assert result.exit_code == 0
    tokens = json.loads(result.output)["files"][0]["tokens"]
    usage = [r["usage"] for r in _results(scenario / "stream.jsonl")]
    assert usage, "a single run ends with its result"
    assert tokens["input"] == sum(u["input_tokens"] for u in usage)
    assert tokens["output"] == sum(u["output_tokens"] for u in usage)
    assert tokens["cached"] == sum(u["cache_read_input_tokens"] for u in usage)


@pytest.mark.parametrize("path", SESSIONS, ids=ids(SESSIONS))
def test_stats_counts_each_distinct_tool_use_once(path):
    distinct = set()
    names: dict[str, str] = {}
    for record in lines(path):
        message = record.get("message")
        if record.get("type") == "assistant" and isinstance(message, dict):
            for block in message.get("content") or []:
                if block.get("type") == "tool_use":
                    distinct.add(block["id"])
                    names[block["id"]] = block["name"]
    report = json.loads(invoke("stats", "--format", "json", str(path)).output)["files"][0]
    assert report["tools"]["calls"] == len(distinct)
    per_tool: dict[str, int] = defaultdict(int)
    for name in names.values():
        per_tool[name] += 1
    assert {k: v["calls"] for k, v in report["tools"]["by_tool"].items()} == per_tool
    # one message per API response: as many assistant messages as distinct message ids
    responses = {r["message"]["id"] for r in lines(path) if r.get("type") == "assistant"}
    assert report["messages"]["by_role"].get("assistant", 0) == len(responses)
    assert report["records"] == len(lines(path))


def test_stats_shows_subagents_apart_from_the_main_thread():
    folder = REAL / "09-subagent" / "projects" / "-tmp-cc-work-09-subagent"
    main = folder / "e53477da-f35b-4b62-8591-b926e937a2f0.jsonl"
    sub = folder / "e53477da-f35b-4b62-8591-b926e937a2f0/subagents/agent-a9cc50b2b12bfa1ca.jsonl"
    report = json.loads(invoke("stats", "--format", "json", str(main)).output)["files"][0]
    usage = _results(REAL / "09-subagent" / "stream.jsonl")[0]["usage"]
    assert report["tokens"]["input"] == usage["input_tokens"]
    cc = report["claude_code"]
    assert cc["thread"] == "main"
    sub_records = [r for r in lines(sub) if r.get("type") == "assistant"]
    sub_usage = {r["message"]["id"]: r["message"]["usage"] for r in sub_records}
    assert cc["subagents"]["files"] == 1
    assert cc["subagents"]["input"] == sum(u["input_tokens"] for u in sub_usage.values())
    assert cc["subagents"]["output"] == sum(u["output_tokens"] for u in sub_usage.values())
    assert set(cc["subagents"]["by_agent"]) == {"a9cc50b2b12bfa1ca"}
    text = invoke("stats", str(main)).output
    assert "claude code subagents" in text


def test_stats_leaves_out_synthetic_api_error_records():
    report = json.loads(
        invoke("stats", "--format", "json", str(REAL / "12c-api-error-final/session.jsonl")).output
    )["files"][0]
    assert report["tokens"]["input"] == 0 and report["tokens"]["messages"] == 0
    assert report["claude_code"]["synthetic"] == 1


# -- show -----------------------------------------------------------------------------------


def test_show_nests_the_subagent_under_the_agent_call_that_started_it():
    folder = REAL / "2.1.332" / "g05-subagent" / "projects" / "-tmp-i24cc-work-g05-subagent"
    main = next(folder.glob("*.jsonl"))
    result = invoke("show", "--no-pager", "--width", "120", str(main))
    assert result.exit_code == 0
    out = result.output
    call = out.index("→ Agent")
    nested = out.index("subagent general-purpose (aa63fbd3c29d87f86): Count README lines")
    sub_call = out.index("→ Bash")
    assert call < nested < sub_call
    # the subagent's lines are indented under the main thread's
    line = next(x for x in out.splitlines() if "wc -l README.md" in x and "command" in x)
    assert line.startswith(" " * 8)
    assert "ATTACHMENT" not in out  # outside the conversation: only with --all


def test_show_all_shows_every_record_kind():
    path = REAL / "23-interactive" / "session.jsonl"
    kinds = {r["type"] for r in lines(path)}
    out = invoke("show", "--no-pager", "--all", str(path)).output
    for kind in kinds - {"user", "assistant"}:
        assert kind.upper() in out, kind


def test_show_prints_no_escape_byte_from_a_session(tmp_path):
    records = lines(REAL / "07-bash-fails" / "session.jsonl")
    for record in records:
        message = record.get("message")
        if record.get("type") == "user" and isinstance(message, dict):
            for block in message["content"] if isinstance(message["content"], list) else []:
                block["content"] = "\x1b[31mred\x1b[0m \x07 bell \x1b]0;title\x07"
    path = tmp_path / "escapes.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    result = invoke("show", "--no-pager", str(path))
    assert result.exit_code == 0
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "red" in result.output


def test_show_marks_errors_denials_and_thinking():
    out = invoke("show", "--no-pager", str(REAL / "08-tool-denied" / "session.jsonl")).output
    assert "← error" in out and "denied" in out.lower()
    out = invoke("show", "--no-pager", str(REAL / "06-thinking" / "session.jsonl")).output
    assert "thinking" in out.lower()


# -- replay ---------------------------------------------------------------------------------

PARTIAL = [p for p in STREAMS if any(r.get("type") == "stream_event" for r in lines(p))]


def _merged_assistant_lines(records: list[dict]) -> dict[str, list]:
    merged: dict[str, list] = {}
    for r in records:
        if r.get("type") == "assistant":
            merged.setdefault(r["message"]["id"], []).extend(r["message"]["content"])
    return merged


def _replayed(path: Path) -> dict[str, list]:
    result = invoke("replay", str(path))
    assert result.exit_code == 0, result.output
    out = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
    return {r["message"]["id"]: r["message"]["content"] for r in out if r["type"] == "assistant"}


@pytest.mark.parametrize("path", PARTIAL, ids=ids(PARTIAL))
def test_replay_rebuilds_each_response_from_its_stream_events(path, tmp_path):
    records = lines(path)
    expected = _merged_assistant_lines(records)
    assert expected
    assert _replayed(path) == expected
    # the same without the assistant lines: only the events are left to rebuild from
    bare = tmp_path / "events-only.jsonl"
    bare.write_text(
        "".join(json.dumps(r) + "\n" for r in records if r.get("type") != "assistant"),
        encoding="utf-8",
    )
    assert _replayed(bare) == expected


def test_replay_rebuilds_usage_and_stop_reason_of_the_final_message():
    path = REAL / "17-partial-messages" / "stream.jsonl"
    result = invoke("replay", str(path))
    rebuilt = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
    session = lines(REAL / "17-partial-messages" / "session.jsonl")
    final = {r["message"]["id"]: r["message"] for r in session if r.get("type") == "assistant"}
    for r in rebuilt:
        if r["type"] == "assistant":
            want = final[r["message"]["id"]]
            assert r["message"]["stop_reason"] == want["stop_reason"]
            assert r["message"]["usage"]["output_tokens"] == want["usage"]["output_tokens"]


# -- convert --------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [*SESSIONS, NEWER], ids=[*ids(SESSIONS), "invented-release"])
def test_convert_to_agentscope_py_keeps_every_tool_use_id_and_validates(path, tmp_path):
    out = tmp_path / "converted.jsonl"
    result = invoke("convert", "--to", "agentscope-py", str(path), "-o", str(out))
    assert result.exit_code == 0, result.output
    calls = {
        b["id"]
        for r in lines(path)
        if r.get("type") == "assistant"
        for b in r["message"]["content"]
        if b.get("type") == "tool_use"
    }
    converted = lines(out)
    got_calls = {b["id"] for m in converted for b in m["content"] if b["type"] == "tool_call"}
    got_results = {b["id"] for m in converted for b in m["content"] if b["type"] == "tool_result"}
    assert got_calls == calls
    answered = {
        b["tool_use_id"]
        for r in lines(path)
        if r.get("type") == "user" and isinstance(r["message"]["content"], list)
        for b in r["message"]["content"]
        if b.get("type") == "tool_result"
    }
    assert got_results == answered & calls
    run = validate_paths([out])
    assert run.files[0].summary.dialect == "agentscope-py"
    assert [str(f) for f in run.findings()] == []
    # one assistant message per API response
    responses = {r["message"]["id"] for r in lines(path) if r.get("type") == "assistant"}
    assert sum(1 for m in converted if m["role"] == "assistant") == len(responses)


def test_convert_refuses_to_write_claude_code():
    result = invoke("convert", "--to", "claude-code", str(REAL / "02-bash-ls" / "session.jsonl"))
    assert result.exit_code == 2


# -- schemas --------------------------------------------------------------------------------


def test_a_schema_is_published_per_record_type():
    listed = invoke("schema", "list").output
    for kind in ("user", "assistant", "attachment", "system", "queue-operation", "last-prompt"):
        assert f"claude-code/{kind}" in listed


def test_a_record_that_breaks_its_schema_is_an_error_at_its_line(tmp_path):
    records = lines(REAL / "02-bash-ls" / "session.jsonl")
    records[2]["message"] = "not an object"
    path = tmp_path / "broken.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    run = validate_paths([path])
    assert [(f.line, f.code) for f in run.findings() if f.severity.value == "error"] == [
        (3, "S001")
    ]


def test_a_parent_later_in_the_file_is_not_dangling():
    # 23-interactive-like race: a record may come before the record it follows
    records = lines(REAL / "03-parallel-read" / "session.jsonl")
    moved = [records[0], records[1], records[5], records[2], records[3], records[4], *records[6:]]
    text = "".join(json.dumps(r) + "\n" for r in moved)
    run = validate_paths([], streams=[io.BytesIO(text.encode())])
    assert [f.code for f in run.findings() if f.code == "K005"] == []


def test_rule_codes_are_documented():
    out = invoke("rules").output
    for code in ("K001", "K005", "K011", "K013", "K015"):
        assert re.search(rf"\b{code}\b", out)


# -- redaction ------------------------------------------------------------------------------

SECRETS = {
    "anthropic": "sk-ant-api03-" + "Qx7" * 30,
    "openai": "sk-proj-" + "Z9k" * 15,
    "github": "ghp_" + "a1B2" * 9,
    "aws-access-key-id": "AKIAIOSFODNN7EXAMPLE",
    "google-api-key": "AIzaSyA" + "b" * 32,
    "slack": "xoxb-123456789012-abcdefghijkl",
    "private-key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n"
    "-----END RSA PRIVATE KEY-----",
}


def _session_with_secrets(tmp_path: Path) -> Path:
    records = lines(REAL / "02-bash-ls" / "session.jsonl")
    text = "\n".join(f"{k} is {v} here" for k, v in SECRETS.items())
    text += "\nDB_PASSWORD=hunter2hunter2 and\ncurl -H 'Authorization: Bearer abcdefghijklmnop1234'"
    for record in records:
        if record.get("type") == "user" and isinstance(record["message"]["content"], list):
            record["message"]["content"][0]["content"] = text
            record["toolUseResult"]["stdout"] = text
    path = tmp_path / "secrets.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_show_redact_masks_secrets_and_keeps_the_words_around_them(tmp_path):
    path = _session_with_secrets(tmp_path)
    plain = invoke("show", "--no-pager", "--width", "200", str(path)).output
    assert SECRETS["github"] in plain
    out = invoke("show", "--no-pager", "--width", "200", "--full", "--redact", str(path)).output
    for name, secret in SECRETS.items():
        assert secret.splitlines()[-1] not in out, name
        assert f"[REDACTED:{name}]" in out, name
    assert "hunter2hunter2" not in out and "DB_PASSWORD=[REDACTED:assignment]" in out
    assert "abcdefghijklmnop1234" not in out and "Authorization: Bearer [REDACTED:" in out
    assert "github is [REDACTED:github] here" in out


def test_convert_redact_masks_secrets_in_every_field(tmp_path):
    path = _session_with_secrets(tmp_path)
    out = tmp_path / "shared.jsonl"
    result = invoke("convert", "--redact", "--to", "agentscope-py", str(path), "-o", str(out))
    assert result.exit_code == 0
    text = out.read_text(encoding="utf-8")
    for secret in SECRETS.values():
        assert secret.splitlines()[-1] not in text
    assert "hunter2hunter2" not in text
    # the structured tool result kept in metadata is masked too
    assert text.count("[REDACTED:github]") >= 2


def test_redaction_leaves_the_real_sessions_alone():
    from msgcli.redact import redact_record

    for path in SESSIONS + STREAMS:
        for record in lines(path):
            assert redact_record(record) == record, path


def test_readme_claude_code_examples_are_what_msgcli_prints(monkeypatch):
    from conftest import ROOT

    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for command in (
        "msgcli validate --no-config fixtures/newer/claude-code/invented-release.jsonl",
        "msgcli convert --to agentscope-py -o shared.jsonl "
        "fixtures/real/claude-code/03-parallel-read/session.jsonl",
    ):
        shown = readme.split(f"$ {command}\n", 1)[1].split("```", 1)[0].rstrip("\n").splitlines()
        args = command.split()[1:]
        if "-o" in args:
            args[args.index("-o") + 1] = os.devnull
        result = runner.invoke(app, args, catch_exceptions=False)
        assert (result.output).rstrip("\n").splitlines() == shown
    stats = "msgcli stats " + str(
        Path("fixtures/real/claude-code/09-subagent/projects/-tmp-cc-work-09-subagent")
        / "e53477da-f35b-4b62-8591-b926e937a2f0.jsonl"
    )
    shown = readme.split(f"$ {stats}\n", 1)[1].split("...", 1)[0].rstrip("\n").splitlines()
    out = invoke(*stats.split()[1:]).output.splitlines()
    assert out[: len(shown)] == shown


def test_an_unknown_stream_json_type_is_an_info_finding(tmp_path):
    records = lines(REAL / "17-partial-messages" / "stream.jsonl")
    records.insert(1, {"type": "hologram", "session_id": records[0]["session_id"], "uuid": "x"})
    records.insert(2, {**records[0], "subtype": "weather_report"})
    path = tmp_path / "stream.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    run = validate_paths([path])
    assert [(f.line, f.code, f.severity.value) for f in run.findings()] == [
        (2, "K015", "info"),
        (3, "K015", "info"),
    ]
    assert run.exit_code == 0


def test_format_says_plainly_that_claude_code_logs_are_not_formatted():
    result = invoke("format", "-p", "openai", str(REAL / "02-bash-ls" / "session.jsonl"))
    assert result.exit_code == 2
    assert "Claude Code session logs are not formatted" in result.output


def test_a_session_checked_in_parts_gives_the_findings_of_one_pass(monkeypatch):
    """The checks across records also run over the digests of parts, in file order."""
    from msgcli import parallel
    from msgcli.dialects.claude_code import DIALECT
    from msgcli.pipeline import Options

    assert DIALECT.splittable  # (a large session is cut into parts with -j 3 or more)
    path = FIXTURES / "invalid" / "claude-code" / "6645826f-2c30-4b72-b895-49259659e657.jsonl"
    single = validate_paths([path], Options(jobs=1))
    planned = []
    plan = parallel._plan_parts

    def spy(*args):
        result = plan(*args)
        planned.append(result)
        return result

    monkeypatch.setattr(parallel, "_plan_parts", spy)
    monkeypatch.setattr(parallel, "SPLIT_BYTES", 1)
    monkeypatch.setattr(parallel, "PART_BYTES", 2048)
    assert validate_paths([path], Options(jobs=2)).findings() == single.findings()
    assert planned == [None]  # (two workers: checked whole, the parts would not pay)
    planned.clear()
    split = validate_paths([path], Options(jobs=3))
    assert planned and planned[0] is not None and len(planned[0][1]) > 3
    assert [str(f) for f in split.findings()] == [str(f) for f in single.findings()]
    assert len(single.findings()) == 10


def test_a_resumed_session_counts_both_runs():
    # 13a-resume's file starts with the bytes 02-bash-ls's run wrote, then the resumed run
    first = (REAL / "02-bash-ls" / "session.jsonl").read_bytes()
    resumed = REAL / "13a-resume" / "session.jsonl"
    assert resumed.read_bytes().startswith(first)
    usage = [
        r["usage"]
        for scenario in ("02-bash-ls", "13a-resume")
        for r in _results(REAL / scenario / "stream.jsonl")
    ]
    tokens = json.loads(invoke("stats", "--format", "json", str(resumed)).output)["files"][0][
        "tokens"
    ]
    assert tokens["input"] == sum(u["input_tokens"] for u in usage)
    assert tokens["output"] == sum(u["output_tokens"] for u in usage)
