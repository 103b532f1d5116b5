"""``msgcli stats``: the counts a user checks, each computed again here from the raw JSON.

Every expectation below is counted from the log lines with a few lines of ``json``
(roles, tool names, result states, token fields as each framework writes them), never
through msgcli's own model, so a mapping mistake in a dialect reader shows up here.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from conftest import FIXTURES, document_messages, examples, log_files
from hypothesis import given, settings
from hypothesis import strategies as st

import msgcli.cli.stats_cmd  # noqa: F401  (registers the command on the app)
from msgcli.stats import collect_stats, file_stats

REAL_PY = FIXTURES / "real" / "agentscope-py"
REAL_LF = FIXTURES / "real" / "loongflow" / "transcript.jsonl"
PY_EVENTS = FIXTURES / "events" / "agentscope-py"
JAVA_EVENTS = FIXTURES / "events" / "agentscope-java"
VALID = FIXTURES / "valid"


# -- the raw JSON, read without msgcli ------------------------------------------------


def records(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return document_messages(json.loads(text))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def dialect_of(record: dict) -> str:
    if "sender" in record or "conversation_id" in record:
        return "loongflow"
    role = record.get("role")
    if isinstance(role, str) and role.isupper():
        return "agentscope-java"
    return "agentscope-py"


def sender(record: dict) -> str:
    name = record["sender"] if dialect_of(record) == "loongflow" else record["name"]
    return "" if name is None else name  # a message without a name counts under ""


def tokens(record: dict) -> tuple[int, int, int] | None:
    """``(input, output, cached)`` as each framework writes them, or None."""
    dialect = dialect_of(record)
    if dialect == "agentscope-py":
        u = record.get("usage")
        return (
            None if u is None else (u["input_tokens"], u["output_tokens"], u["cache_input_tokens"])
        )
    if dialect == "agentscope-java":
        u = record.get("usage") or (record.get("metadata") or {}).get("_chat_usage")
        return (
            None if u is None else (u["inputTokens"], u["outputTokens"], u.get("cachedTokens", 0))
        )
    u = (record.get("metadata") or {}).get("usage")
    return None if u is None else (u["prompt_tokens"], u["completion_tokens"], 0)


def token_sum(rows: list[dict]) -> dict:
    found = [t for t in map(tokens, rows) if t is not None]
    return {
        "input": sum(t[0] for t in found),
        "output": sum(t[1] for t in found),
        "cached": sum(t[2] for t in found),
        "messages": len(found),
    }


def tool_blocks(rows: list[dict]) -> tuple[Counter, Counter]:
    """Tool calls by tool name, and results by state, as the records write them."""
    calls: Counter = Counter()
    states: Counter = Counter()
    for row in rows:
        content = row.get("content")
        for block in content if isinstance(content, list) else []:  # 1.x: text content
            kind = block.get("type")
            if kind in ("tool_call", "tool_use", "function"):
                calls[block.get("name", block.get("target"))] += 1
            elif kind in ("tool_result", "tool_output"):
                states[block.get("state", block.get("status", "unstated"))] += 1
    return calls, states


def counts(stats) -> dict:
    """What the user reads about one file, from the JSON shape."""
    doc = stats.to_dict()
    return {
        "roles": doc["messages"]["by_role"],
        "senders": doc["messages"]["by_sender"],
        "calls": {name: t["calls"] for name, t in doc["tools"]["by_tool"].items()},
        "results": doc["tools"]["results"],
        "tokens": doc["tokens"],
        "reasons": doc["finish_reasons"],
    }


def expected(rows: list[dict]) -> dict:
    calls, states = tool_blocks(rows)
    return {
        "roles": dict(Counter(r["role"].lower() for r in rows)),
        "senders": dict(Counter(sender(r) for r in rows)),
        "calls": dict(calls),
        "results": dict(states),
        "tokens": token_sum(rows),
        "reasons": dict(Counter(r for r in map(reason, rows) if r is not None)),
    }


def reason(record: dict):
    """How a reply ended: Python ``finished_reason``, Java's generate reason in metadata."""
    if dialect_of(record) == "agentscope-py":
        return record.get("finished_reason")
    if dialect_of(record) == "agentscope-java":
        return (record.get("metadata") or {}).get("agentscope_generate_reason")
    return None


# -- message logs -------------------------------------------------------------------

MESSAGE_LOGS = [
    REAL_PY / "transcript.jsonl",
    REAL_PY / "v1" / "transcript-v1.jsonl",
    REAL_PY / "events-final.jsonl",
    REAL_PY / "events-data-final.jsonl",
    REAL_LF,
    # (ATIF trajectories hold steps, each read into several messages: see test_atif; the
    # OpenCode records are a session and its messages with their parts: see test_opencode)
    *[p for p in log_files(VALID) if p.relative_to(VALID).parts[0] not in ("atif", "opencode")],
]


@pytest.mark.parametrize("path", MESSAGE_LOGS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_message_log_counts_match_the_raw_records(path):
    stats = file_stats(path)
    rows = records(path)
    assert stats.kind == "messages" and stats.readable
    assert stats.messages == len(rows) == stats.records
    assert counts(stats) == expected(rows)
    assert stats.tokens.messages == token_sum(rows)["messages"]


def test_real_python_transcript_tools_blocks_time_and_reasons():
    path = REAL_PY / "transcript.jsonl"
    rows = records(path)
    doc = file_stats(path).to_dict()
    assert doc["dialect"] == "agentscope-py"
    # the one tool of the ReAct reply, and its answer (in the same message)
    assert doc["tools"]["by_tool"] == {
        "get_weather": {"calls": 1, "results": {"success": 1}, "no_result": 0}
    }
    # every block, those inside a tool result's output too
    types: Counter = Counter()
    media: Counter = Counter()
    stack = [b for r in rows for b in r["content"]]
    while stack:
        block = stack.pop()
        types[block["type"]] += 1
        if block["type"] == "data":
            media[block["source"]["media_type"].split("/")[0]] += 1
        if block["type"] == "tool_result" and isinstance(block["output"], list):
            stack.extend(block["output"])
    assert doc["blocks"]["by_type"] == dict(types.most_common())
    assert doc["blocks"]["media"] == dict(media) == {"image": 2}
    # the span: from the earliest creation to the latest finish
    stamps = sorted(s for r in rows for s in (r["created_at"], r["finished_at"]) if s)
    assert (doc["time"]["first"], doc["time"]["last"]) == (stamps[0], stamps[-1])
    assert doc["time"]["seconds"] == pytest.approx(0.050601)
    reasons = Counter(r["finished_reason"] for r in rows if r["finished_reason"])
    assert doc["finish_reasons"] == dict(reasons) == {"completed": 4}
    assert doc["events"] is None


def test_loongflow_tool_outputs_by_status_and_usage_from_metadata():
    for path in (REAL_LF, VALID / "loongflow" / "react-parallel-tools.jsonl"):
        rows = records(path)
        statuses = Counter(
            el["status"]
            for r in rows
            for el in r["content"]
            if isinstance(el, dict) and el.get("type") == "tool_output"
        )
        stats = file_stats(path)
        assert dict(stats.tool_results) == dict(statuses)
        assert stats.tokens.to_dict() == token_sum(rows)
    # the real transcript: one success, one error, nothing left unanswered
    stats = file_stats(REAL_LF)
    assert {n: t.to_dict() for n, t in stats.tools.items()} == {
        "get_weather": {"calls": 1, "results": {"success": 1}, "no_result": 0},
        "get_air_quality": {"calls": 1, "results": {"error": 1}, "no_result": 0},
    }
    assert stats.tokens.to_dict() == {"input": 812, "output": 46, "cached": 0, "messages": 1}
    # the in_progress output and the final one of the same call are both results
    parallel = file_stats(VALID / "loongflow" / "react-parallel-tools.jsonl")
    assert parallel.tool_results["in_progress"] == 1 and parallel.no_result == 0


def test_java_results_in_later_messages_are_paired():
    rows = records(VALID / "agentscope-java" / "react-weather.jsonl")
    stats = file_stats(VALID / "agentscope-java" / "react-weather.jsonl")
    calls, states = tool_blocks(rows)
    assert stats.tool_calls == sum(calls.values()) == 2
    assert dict(stats.tool_results) == dict(states)
    assert stats.no_result == 0


def test_java_1x_usage_is_read_from_chat_usage_once():
    path = VALID / "agentscope-java" / "legacy-1x.jsonl"
    rows = records(path)
    assert all("usage" not in r for r in rows)
    chat = [r["metadata"]["_chat_usage"] for r in rows if "_chat_usage" in r["metadata"]]
    stats = file_stats(path)
    assert stats.tokens.input == sum(u["inputTokens"] for u in chat) == 3090
    assert stats.tokens.output == sum(u["outputTokens"] for u in chat)
    # a 2.x message holds the same counts twice (usage and _chat_usage): counted once
    both = VALID / "agentscope-java" / "parallel-tools.jsonl"
    assert file_stats(both).tokens.input == sum(
        r["usage"]["inputTokens"] for r in records(both) if r.get("usage")
    )


def test_unanswered_calls_count_as_no_result():
    # a reply parked for the user's confirmation: the call is asking, no result yet
    stats = file_stats(PY_EVENTS / "hitl-parked-final.jsonl")
    assert {n: t.to_dict() for n, t in stats.tools.items()} == {
        "book_table": {"calls": 1, "results": {}, "no_result": 1}
    }


def test_a_result_before_its_call_still_answers_it(tmp_path):
    line = records(REAL_PY / "transcript.jsonl")[2]
    call = next(b for b in line["content"] if b["type"] == "tool_call")
    result = next(b for b in line["content"] if b["type"] == "tool_result")
    first = dict(line, content=[result])
    second = dict(line, id="another", content=[call])
    log = tmp_path / "swapped.jsonl"
    log.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n", encoding="utf-8")
    (tool,) = file_stats(log).tools.values()
    assert tool.to_dict() == {"calls": 1, "results": {"success": 1}, "no_result": 0}


# -- event logs ---------------------------------------------------------------------


def test_real_event_log_tokens_equal_those_of_the_message_the_framework_rebuilt():
    final = records(REAL_PY / "events-final.jsonl")
    want = token_sum(final)
    assert want["input"] == 910 and want["output"] == 121
    for name in ("events.jsonl", "events.sse"):
        stats = file_stats(REAL_PY / name)
        assert stats.kind == "events"
        assert stats.tokens.to_dict() == want
        assert counts(stats) == expected(final)


PY_PAIRS = sorted(
    p for p in PY_EVENTS.glob("*.jsonl") if (PY_EVENTS / f"{p.stem}-final.jsonl").exists()
)


@pytest.mark.parametrize("path", PY_PAIRS, ids=lambda p: p.stem)
def test_python_event_log_counts_match_the_stored_replies(path):
    events = records(path)
    final = records(PY_EVENTS / f"{path.stem}-final.jsonl")
    stats = file_stats(path)
    assert stats.kind == "events" and stats.dialect == "agentscope-py"
    assert stats.messages == len(final)
    assert counts(stats) == expected(final)
    reasons = Counter(r["finished_reason"] for r in final if r["finished_reason"])
    assert dict(stats.finish_reasons) == dict(reasons)
    # the replay's own counts, from the event types
    types = Counter(e["type"] for e in events)
    assert stats.events is not None
    assert dict(stats.events.by_type) == dict(types)
    assert stats.events.events == len(events) == stats.records
    assert dict(stats.events.finished_reasons) == dict(
        Counter(e.get("finished_reason", "completed") for e in events if e["type"] == "REPLY_END")
    )
    parked = any(r["finished_reason"] is None for r in final)
    assert stats.events.parked == int(parked)
    assert stats.events.cut == 0


# error-mid-stream: the replay also keeps the model call the failure cut off (see below)
JAVA_SCENARIOS = sorted(
    p
    for p in JAVA_EVENTS.glob("*.jsonl")
    if (JAVA_EVENTS / f"{p.stem}-expected.jsonl").exists() and p.stem != "error-mid-stream"
)


@pytest.mark.parametrize("path", JAVA_SCENARIOS, ids=lambda p: p.stem)
def test_java_event_log_counts_match_the_persisted_messages(path):
    persisted = JAVA_EVENTS / f"{path.stem}-persisted.jsonl"
    rows = records(persisted if persisted.exists() else JAVA_EVENTS / f"{path.stem}-expected.jsonl")
    events = records(path)
    stats = file_stats(path)
    assert stats.kind == "events" and stats.dialect == "agentscope-java"
    assert counts(stats) == expected(rows)
    assert stats.events is not None and stats.events.events == len(events)
    assert dict(stats.events.by_type) == dict(Counter(e["type"] for e in events))
    runs = sum(1 for e in events if e["type"] == "AGENT_END")
    assert stats.events.completed == runs


def test_cut_and_parked_replies_and_unknown_event_types():
    cut = file_stats(PY_EVENTS / "cut-mid-tool-call.jsonl")
    assert cut.events is not None and (cut.events.cut, cut.events.completed) == (1, 0)
    assert cut.stream_errors >= 1  # the E007 the replay reports
    parked = file_stats(PY_EVENTS / "hitl-parked.jsonl")
    assert parked.events is not None and parked.events.parked == 1
    java_cut = file_stats(JAVA_EVENTS / "error-mid-stream.jsonl")
    assert java_cut.events is not None and java_cut.events.cut == 1
    # the two messages the engine completed, and the model call the failure cut off
    completed = records(JAVA_EVENTS / "error-mid-stream-persisted.jsonl")
    want = expected(completed)
    want["roles"]["assistant"] += 1
    want["senders"]["Analyst"] += 1
    assert counts(java_cut) == want
    unknown = PY_EVENTS / "invalid" / "unknown-event-type.jsonl"
    rows = records(unknown)
    known = {e["type"] for e in records(REAL_PY / "events.jsonl")} | {
        e["type"] for p in PY_PAIRS for e in records(p)
    }
    strange = Counter(e["type"] for e in rows if e["type"] not in known)
    assert strange
    stats = file_stats(unknown)
    assert stats.events is not None and dict(stats.events.unknown) == dict(strange)


def test_an_unreadable_line_is_counted(tmp_path):
    good = (REAL_PY / "transcript.jsonl").read_bytes().splitlines()
    log = tmp_path / "broken.jsonl"
    log.write_bytes(good[0] + b"\n{not json\n" + good[1] + b"\n")
    stats = file_stats(log)
    assert (stats.messages, stats.unreadable_lines, stats.records) == (2, 1, 2)
    assert stats.readable
    # the real event log cut in the middle of its last line
    cut = file_stats(PY_EVENTS / "cut-mid-line.jsonl")
    assert cut.unreadable_lines == 1


# -- the command line ---------------------------------------------------------------

FILE_KEYS = {
    "path",
    "dialect",
    "kind",
    "readable",
    "problem",
    "records",
    "unreadable_lines",
    "stream_errors",
    "messages",
    "blocks",
    "tools",
    "tokens",
    "time",
    "finish_reasons",
    "events",
}
COUNT_KEYS = FILE_KEYS - {"path", "dialect", "kind", "readable", "problem"}


def test_json_document_shape(run_cli):
    code, out = run_cli(
        "stats",
        "--format",
        "json",
        str(REAL_PY / "transcript.jsonl"),
        str(REAL_PY / "events.jsonl"),
    )
    assert code == 0
    doc = json.loads(out)
    assert set(doc) == {"version", "files", "total", "exit_code"}
    assert doc["version"] == 1 and doc["exit_code"] == 0
    for entry in doc["files"]:
        assert set(entry) == FILE_KEYS
        assert set(entry["messages"]) == {"total", "by_role", "by_sender", "structured_outputs"}
        assert set(entry["blocks"]) == {"by_type", "in_tool_results", "media"}
        assert set(entry["tools"]) == {"calls", "results", "no_result", "by_tool"}
        assert set(entry["tokens"]) == {"input", "output", "cached", "messages"}
        assert set(entry["time"]) == {"first", "last", "seconds"}
    messages, events = doc["files"]
    assert (messages["kind"], events["kind"]) == ("messages", "events")
    assert messages["events"] is None
    assert set(events["events"]) == {
        "events",
        "by_type",
        "unknown_types",
        "messages",
        "completed",
        "parked",
        "cut",
        "finished_reasons",
    }
    total = doc["total"]
    assert set(total) == COUNT_KEYS | {"files", "unreadable", "dialects"}
    assert (total["files"], total["unreadable"]) == (2, 0)
    assert total["dialects"] == {"agentscope-py": 2}
    assert total["messages"]["total"] == 7 + 1
    assert total["tokens"]["input"] == messages["tokens"]["input"] + events["tokens"]["input"]
    assert total["tools"]["by_tool"]["get_weather"]["calls"] == 2
    assert total["events"]["events"] == 33


def test_a_directory_is_every_log_below_it(run_cli):
    folder = FIXTURES / "real"
    code, out = run_cli("stats", "--format", "json", str(folder))
    assert code == 0
    doc = json.loads(out)
    # every log, files before subfolders (compared as sets of paths); the JSON schema beside
    # a state file is passed over (no log), and a Claude Code subagent file (with its meta
    # file) whose session is in the folder is counted under that session, not again on its own
    # (the logs kept in a file that is no JSON text, a database or a protobuf body, are the
    # names a dialect's container declares: OpenCode's opencode.db, OTLP's *.pb)
    containers = [p for p in folder.rglob("*") if p.name == "opencode.db" or p.suffix == ".pb"]
    logs = [
        p
        for p in [*log_files(folder), *containers]
        if not p.name.endswith(".schema.json") and "subagents" not in p.parts
    ]
    assert sorted(f["path"] for f in doc["files"]) == sorted(str(p) for p in logs)
    assert doc["total"]["claude_code"]["subagents"]["files"] == sum(
        1 for p in log_files(folder) if "subagents" in p.parts and p.suffix == ".jsonl"
    )
    for key in ("records", "unreadable_lines"):
        assert doc["total"][key] == sum(f[key] for f in doc["files"])
    assert doc["total"]["messages"]["total"] == sum(f["messages"]["total"] for f in doc["files"])
    report = collect_stats([folder])
    assert report.total.tokens.input == sum(f.tokens.input for f in report.files)


def test_standard_input(run_cli):
    path = REAL_PY / "transcript.jsonl"
    code, out = run_cli("stats", "--format", "json", "-", input=path.read_bytes())
    assert code == 0
    (entry,) = json.loads(out)["files"]
    assert entry["path"] == "<stdin>"
    from_file = file_stats(path).to_dict()
    assert {k: v for k, v in entry.items() if k != "path"} == {
        k: v for k, v in from_file.items() if k != "path"
    }


def test_unreadable_paths_exit_2(tmp_path, run_cli):
    empty_dir = tmp_path / "nothing"
    empty_dir.mkdir()
    code, out, err = run_cli(
        "stats", str(REAL_LF), str(tmp_path / "missing.jsonl"), str(empty_dir), stderr=True
    )
    assert code == 2
    assert "missing.jsonl: cannot read: no such file or directory" in err
    assert "the directory holds no log files" in err
    assert "Total: 3 files (loongflow 1), 2 unreadable" in out
    code, out = run_cli("stats", "--format", "json", str(tmp_path / "missing.jsonl"))
    assert code == 2
    (entry,) = json.loads(out)["files"]
    assert entry["readable"] is False and entry["problem"]


def test_text_report_one_section_per_file_then_totals(run_cli):
    code, out = run_cli("stats", str(REAL_PY / "transcript.jsonl"), str(REAL_LF))
    assert code == 0
    assert f"== {REAL_PY / 'transcript.jsonl'}" in out and f"== {REAL_LF}" in out
    assert "Total: 2 files (agentscope-py 1, loongflow 1)" in out
    assert re.search(r"^get_weather\s+2\s+success 2\s+0$", out, re.M)  # the totals' row
    assert re.search(r"^get_air_quality\s+1\s+error 1\s+0$", out, re.M)
    assert not any(line != line.rstrip() for line in out.splitlines())
    code, single = run_cli("stats", str(REAL_PY / "transcript.jsonl"))
    assert "==" not in single and "Total" not in single
    assert single.splitlines()[0] == "agentscope-py message log, 7 records"


def test_event_log_text_shows_events_and_replies(run_cli):
    code, out = run_cli("stats", str(PY_EVENTS / "hitl-parked.jsonl"))
    assert code == 0
    assert re.search(r"^replies\s+0 completed, 1 parked, 0 cut off$", out, re.M)
    assert re.search(r"^REQUIRE_USER_CONFIRM\s+1$", out, re.M)
    assert re.search(r"^book_table\s+1\s+-\s+1$", out, re.M)


def hostile_log(tmp_path: Path) -> Path:
    row = records(REAL_PY / "transcript.jsonl")[2]
    row["name"] = "[bold]x[/] \x1b]0;title\x07"
    for block in row["content"]:
        if block["type"] in ("tool_call", "tool_result"):
            block["name"] = "[red]tool\x1b[2J"
    log = tmp_path / "hostile.jsonl"
    log.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return log


def test_text_from_the_log_prints_literally_and_escaped(tmp_path, run_cli, monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    log = hostile_log(tmp_path)
    code, out = run_cli("stats", str(log))
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "[bold]x[/] \\e]0;title\\x07" in out
    assert "[red]tool\\e[2J" in out
    # with colour forced, the only escapes are msgcli's own styles
    monkeypatch.setenv("FORCE_COLOR", "1")
    code, out = run_cli("stats", str(log), str(REAL_LF))
    assert "\x1b[" in out
    rest = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "\x1b" not in rest and "\x07" not in rest
    assert "[bold]x[/] \\e]0;title\\x07" in rest
    # NO_COLOR wins over FORCE_COLOR
    monkeypatch.setenv("NO_COLOR", "1")
    code, out = run_cli("stats", str(log))
    assert "\x1b" not in out


def test_dialect_option(run_cli):
    code, out = run_cli(
        "stats",
        "--format",
        "json",
        "--dialect",
        "loongflow",
        str(REAL_LF),
        str(REAL_PY / "events.jsonl"),
    )
    assert code == 0
    lf, py = json.loads(out)["files"]
    assert lf["dialect"] == "loongflow" and lf["messages"]["total"] == 12
    assert py["messages"]["total"] == 0  # nothing in an AgentScope event log is a LoongFlow message
    code, _ = run_cli("stats", "--dialect", "nope", str(REAL_LF))
    assert code == 2


def test_a_terminal_that_gives_no_size_still_gets_the_tables(monkeypatch):
    import io
    import sys

    from msgcli.render.stats import print_stats as _print_text

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

        def fileno(self) -> int:  # a pseudo-terminal of 0 columns, as `script` gives
            raise OSError("no size")

    out = Terminal()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setenv("NO_COLOR", "1")
    _print_text(collect_stats([REAL_PY / "transcript.jsonl"]))
    text = out.getvalue()
    assert re.search(r"^get_weather\s+1\s+success 1\s+0$", text, re.M)
    assert max(map(len, text.splitlines())) <= 80


def test_stats_is_listed_in_the_help(run_cli):
    code, out = run_cli("--help")
    assert code == 0 and "stats" in out


def test_huge_token_counts_still_give_a_json_document(tmp_path, run_cli):
    row = records(REAL_PY / "transcript.jsonl")[2]
    row["usage"]["input_tokens"] = 2**64 - 1  # the largest integer the reader keeps as one
    log = tmp_path / "huge.jsonl"
    log.write_text((json.dumps(row) + "\n") * 2, encoding="utf-8")
    code, out = run_cli("stats", "--format", "json", str(log))
    assert code == 0
    assert json.loads(out)["files"][0]["tokens"]["input"] == pytest.approx(2.0 * (2**64 - 1))


# -- the text report's two layouts -------------------------------------------------------------


def _rich_lines(items: list, width: int) -> list[str]:
    import io

    from msgcli.render import stats as render

    buffer = io.StringIO()
    render._print_items(render._console(buffer, False, width), items)
    return [line.rstrip() for line in buffer.getvalue().splitlines()]


@pytest.mark.parametrize("width", [40, 57, 80, 120, 1000])
def test_the_plain_layout_of_a_report_is_rich_s_at_any_width(width):
    """Without colour a section is laid out by msgcli itself (rich took some 7 ms a file:
    minutes for a folder of thousands of sessions). Every log of the fixtures, alone and in
    totals, at five widths: where the plain layout takes a section it is rich's, line for
    line; where a line would not fit it leaves the section to rich (which folds it); at a
    pipe's width of 1,000 it takes every one."""
    from msgcli.render import stats as render

    report = collect_stats([FIXTURES])
    taken = 0
    for fs in [*report.files, report.total]:
        items = [render._Bold(f"== {fs.path}"), *render._file_items(fs), None]
        plain = render._plain_lines(items, width)
        if plain is None:
            assert width < 1000
            continue
        taken += 1
        assert plain == _rich_lines(items, width), fs.path
    if width == 1000:
        assert taken == len(report.files) + 1
    elif width >= 80:
        assert taken > 0  # (narrower, the tables of most logs no longer fit)


@settings(max_examples=examples(100), deadline=None)
@given(
    names=st.lists(
        st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30),
        min_size=1,
        max_size=6,
    ),
    width=st.integers(min_value=20, max_value=200),
)
def test_any_names_lay_out_as_rich_lays_them_out(names, width):
    """Senders, roles, tools and blocks with any names (wide and combining characters,
    controls, emoji): the plain layout, where it takes a section, is rich's."""
    from msgcli.render import stats as render
    from msgcli.stats import FileStats

    fs = FileStats(path="p.jsonl", dialect="agentscope-py", kind="messages", records=3)
    fs.messages = len(names)
    for i, name in enumerate(names):
        fs.roles[name] += i + 1
        fs.senders[name[::-1]] += 10**i
        fs.blocks[name[:3]] += i
        fs.finish_reasons[name] += 1
    items = render._file_items(fs)
    plain = render._plain_lines(items, width)
    if plain is not None:
        assert plain == _rich_lines(items, width)
