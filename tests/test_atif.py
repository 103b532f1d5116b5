"""ATIF trajectories (the Harbor harness's interchange form): read, checked, shown, counted
and written, on the trajectories ``atif-make`` 0.10 wrote from real Claude Code sessions
(``fixtures/real/atif``) and on real logs of the other dialects converted to ATIF.

The numbers asserted are the producer's: the steps and token counts its files hold, the
tool call ids Claude Code wrote, the conversation of the session a trajectory came from.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES

from msgcli.api import convert
from msgcli.converters.text import as_text, parts_text
from msgcli.dialects import get_dialect
from msgcli.model import (
    DataBlock,
    EvolveResultBlock,
    HintBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    ValueBlock,
)
from msgcli.pipeline import validate_paths
from msgcli.stream import open_log

ATIF = FIXTURES / "real" / "atif" / "atif-make"
SESSIONS = sorted(ATIF.glob("*/trajectory.json"))
FROM_STREAM = sorted(ATIF.glob("*/trajectory-from-stream.json"))
CLAUDE = FIXTURES / "real" / "claude-code"

atif = pytest.importorskip("atif")


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "msgcli", *args], capture_output=True, input=stdin, check=False
    )


def findings(path: Path) -> list[tuple[int, str, str, str]]:
    report = validate_paths([path])
    return [(f.line, f.code, f.message, f.pointer) for fr in report.files for f in fr.findings]


# -- reading and checking the real trajectories -------------------------------------------


@pytest.mark.parametrize("path", SESSIONS, ids=[p.parent.name for p in SESSIONS])
def test_real_trajectories_validate_with_no_finding(path):
    report = validate_paths([path])
    (fr,) = report.files
    assert fr.summary.dialect == "atif"
    assert [f"{f.line}: {f.code} {f.message}" for f in fr.findings] == []
    # a record for the trajectory and one per step
    steps = json.loads(path.read_text())["steps"]
    assert fr.summary.records == 1 + len(steps)


@pytest.mark.parametrize("path", FROM_STREAM, ids=[p.parent.name for p in FROM_STREAM])
def test_stream_trajectories_have_no_error_and_say_where_the_totals_differ(path):
    # atif-make takes each step's usage from the stream's message_start (output tokens: 1)
    # and the final totals from the run's result record: the totals are no sum of the steps
    document = json.loads(path.read_text())
    found = findings(path)
    assert [f for f in found if f[1] != "A007"] == []
    steps_out = sum(s.get("metrics", {}).get("completion_tokens", 0) for s in document["steps"])
    total = document["final_metrics"]["total_completion_tokens"]
    assert steps_out != total
    assert any(
        f[3] == "/final_metrics/total_completion_tokens" and str(total) in f[2] for f in found
    )


def test_each_step_is_a_record_on_its_line_with_its_pointer():
    path = ATIF / "03-parallel-read" / "trajectory.json"
    lines = path.read_text().splitlines()
    items = [i for i in open_log(str(path)) if i.message is not None]
    by_where = {}
    for item in items:
        by_where.setdefault(item.where, item.line)
    assert by_where[""] == 1
    for index in range(3):
        line = by_where[f"/steps/{index}"]
        # the step's object opens on that line, its step_id right below
        assert lines[line - 1].strip() == "{"
        assert lines[line].strip() == f'"step_id": {index + 1},'


def test_the_conversation_of_a_trajectory_is_the_session_it_came_from():
    path = ATIF / "03-parallel-read" / "trajectory.json"
    msgs = [i.message for i in open_log(str(path)) if i.message is not None]
    roles = [m.role for m in msgs]
    assert roles == ["trajectory", "user", "assistant", "tool", "tool", "assistant"]
    calls = [b for m in msgs for b in m.content if isinstance(b, ToolCallBlock)]
    results = [b for m in msgs for b in m.content if isinstance(b, ToolResultBlock)]
    # the two parallel Read calls Claude Code made, and their results, by id
    assert [c.id for c in calls] == [
        "toolu_01Zs37Vulw881Ox5zPAXxuxu",
        "toolu_01GSoojnW4LnmdkMnakjTI84",
    ]
    assert [r.id for r in results] == [c.id for c in calls]
    assert [c.name for c in calls] == ["Read", "Read"]
    assert results[0].output.startswith("1\t# demo-project")
    assert msgs[2].usage.input_tokens == 1766 and msgs[2].usage.output_tokens == 86


def test_thinking_is_read_as_thinking():
    path = ATIF / "06-thinking" / "trajectory.json"
    document = json.loads(path.read_text())
    reasoning = [s["reasoning_content"] for s in document["steps"] if "reasoning_content" in s]
    msgs = [i.message for i in open_log(str(path)) if i.message is not None]
    thinking = [b.thinking for m in msgs for b in m.content if isinstance(b, ThinkingBlock)]
    assert thinking == reasoning and reasoning


def test_show_prints_the_conversation_and_the_trajectory_with_all():
    path = ATIF / "09-subagent" / "trajectory.json"
    shown = run("show", "--width", "120", str(path))
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout.decode()
    assert "Use a subagent to count the lines of README.md." in out
    assert "toolu_01jvzQKN2QKgzS0sR55MEIws" in out
    assert "README.md has **5** lines" in out
    assert "ATIF-v1.7 trajectory" not in out
    everything = run("show", "--all", "--width", "120", str(path)).stdout.decode()
    assert "ATIF-v1.7 trajectory claude-code 2.1.197" in everything


@pytest.mark.parametrize("path", SESSIONS + FROM_STREAM, ids=lambda p: p.parent.name + p.stem)
def test_stats_count_the_steps_tokens_never_the_final_metrics_on_top(path):
    document = json.loads(path.read_text())
    out = run("stats", "--format", "json", str(path))
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    (stats,) = report["files"]
    steps = [s for s in document["steps"] if "metrics" in s]
    tokens = stats["tokens"]
    assert tokens["input"] == sum(s["metrics"]["prompt_tokens"] for s in steps)
    assert tokens["output"] == sum(s["metrics"]["completion_tokens"] for s in steps)
    calls = sum(len(s.get("tool_calls", ())) for s in document["steps"])
    assert stats["tools"]["calls"] == calls


def test_responses_give_one_usage_per_agent_step_with_metrics():
    dialect = get_dialect("atif")
    path = ATIF / "04-write-edit-read" / "trajectory.json"
    document = json.loads(path.read_text())
    found = [r for i in open_log(str(path)) if i.message for r in dialect.responses(i.message)]
    steps = [s for s in document["steps"] if "metrics" in s]
    assert len(found) == len(steps) == 5
    assert (
        sum(r.input + r.cache_read + r.cache_write for r in found)
        == (document["final_metrics"]["total_prompt_tokens"])
    )
    assert sum(r.output for r in found) == document["final_metrics"]["total_completion_tokens"]
    assert {r.session for r in found} == {document["session_id"]}
    assert {r.model for r in found} == {"claude-sonnet-4-5-20250929"}
    assert all(r.time is not None and r.time.tzinfo is not None for r in found)
    assert {r.key for r in found} == {None}  # (each step its own response)


def test_view_writes_the_conversation_as_html(tmp_path):
    path = ATIF / "02-bash-ls" / "trajectory.json"
    made = run("view", "-o", str(tmp_path), str(path))
    assert made.returncode == 0, made.stderr
    pages = "".join(p.read_text() for p in tmp_path.rglob("*.html"))
    assert "toolu_010WiDONzeqVdXlFvPd3A6Cl" in pages
    assert "What files are in this directory?" in pages


def test_a_folder_scan_finds_the_trajectories():
    report = validate_paths([ATIF])
    names = {Path(fr.summary.path).name for fr in report.files}
    assert names == {"trajectory.json", "trajectory-from-stream.json"}
    assert {fr.summary.dialect for fr in report.files} == {"atif"}
    assert len(report.files) == len(SESSIONS) + len(FROM_STREAM)


def test_query_writes_a_step_as_it_is_in_the_file():
    path = ATIF / "02-bash-ls" / "trajectory.json"
    out = run("query", "--role", "user", str(path))
    assert out.returncode == 0, out.stderr
    (line,) = out.stdout.decode().splitlines()
    document = json.loads(path.read_text())
    assert json.loads(line) == document["steps"][0]


# -- writing ---------------------------------------------------------------------------


def conversation(path: Path | str) -> list[tuple]:
    """What a reader of a log sees of its conversation: each text, thinking, image or audio,
    tool call (id, name, arguments) and tool result (id, what it holds) in order, by role,
    then each model response's tokens (input at the base rate, cache reads, cache writes,
    output). Consecutive thinking is one (ATIF holds one reasoning text per step)."""
    out: list[tuple] = []
    tokens: list[tuple] = []
    for item in open_log(str(path)):
        msg = item.message
        if msg is None:
            continue
        dialect = get_dialect(msg.dialect)
        if dialect.aside(msg):
            continue
        role = msg.role
        for block in msg.content:
            entry = _entry(block, "user" if role == "tool" else role)
            if entry is None:
                continue
            if entry[0] == "thinking" and out and out[-1][0] == "thinking":
                out[-1] = ("thinking", f"{out[-1][1]}\n\n{entry[1]}")
            else:
                out.append(entry)
        usage = msg.usage
        if usage is not None and dialect.token_counts(msg) is not None:
            cached = usage.cached_tokens or 0
            written = usage.cache_creation_tokens or 0
            base = usage.input_tokens or 0
            if dialect.input_counts_cache:
                base -= cached + written
            tokens.append(("tokens", base, cached, written, usage.output_tokens))
    return out + tokens


def _entry(block, role) -> tuple | None:
    if isinstance(block, TextBlock):
        return ("text", role, block.text) if block.text else None
    if isinstance(block, ThinkingBlock):
        return ("thinking", block.thinking)
    if isinstance(block, (HintBlock, ValueBlock, EvolveResultBlock)):  # (text in ATIF)
        return ("text", role, as_text(block))
    if isinstance(block, DataBlock):
        source = block.source
        return ("data", None if source is None else source.url or source.data)
    if isinstance(block, ToolCallBlock):
        arguments = block.arguments
        if arguments is None and isinstance(block.input, str):
            arguments = json.loads(block.input or "{}")
        return ("call", block.id, block.name, arguments)
    if isinstance(block, ToolResultBlock):
        output = block.output
        if isinstance(output, list) and any(isinstance(b, DataBlock) for b in output):
            held = tuple(_entry(b, "tool") for b in output if not isinstance(b, dict))
            return ("result", block.id, held)
        return ("result", block.id, parts_text(output))
    return None


def to_atif(source: Path, tmp_path: Path) -> Path:
    result = convert(source, "atif")
    (document,) = result.records
    atif.Trajectory.model_validate(document)  # the format's own models take it
    target = tmp_path / "trajectory.json"
    target.write_text(json.dumps(document, indent=2, ensure_ascii=False))
    return target


CLAUDE_SESSIONS = sorted(CLAUDE.glob("*/session.jsonl"))


@pytest.mark.parametrize("source", CLAUDE_SESSIONS, ids=[p.parent.name for p in CLAUDE_SESSIONS])
def test_a_claude_code_session_goes_to_atif_and_back_unchanged(source, tmp_path):
    target = to_atif(source, tmp_path)
    assert findings(target) == []
    before, after = conversation(source), conversation(target)
    assert after == before


def test_the_atif_msgcli_writes_is_the_one_atif_make_wrote():
    # the same session, written by atif-make and by msgcli: the same steps, calls, results
    # and counts
    source = CLAUDE / "04-write-edit-read" / "session.jsonl"
    (mine,) = convert(source, "atif").records
    theirs = json.loads((ATIF / "04-write-edit-read" / "trajectory.json").read_text())
    keys = ("step_id", "source", "message", "tool_calls", "observation", "metrics", "timestamp")
    assert [{k: s.get(k) for k in keys} for s in mine["steps"]] == [
        {k: s.get(k) for k in keys} for s in theirs["steps"]
    ]
    assert mine["final_metrics"] == {
        k: v for k, v in theirs["final_metrics"].items() if k != "total_cost_usd"
    }
    assert mine["session_id"] == theirs["session_id"]
    assert mine["agent"]["version"] == theirs["agent"]["version"]


REAL = FIXTURES / "real"
#: a real log of every other dialect msgcli reads (event logs replayed); AgentScope
#: Python's eight-tools run returns a video, which ATIF has no place for (see below)
OTHERS = [
    REAL / "agentscope-py" / "transcript.jsonl",
    REAL / "agentscope-py" / "events-final.jsonl",
    REAL / "agentscope-py" / "events.jsonl",
    REAL / "agentscope-py" / "v1" / "transcript-v1.jsonl",
    *sorted(
        p
        for p in (REAL / "agentscope-py" / "runs").glob("*-final.jsonl")
        if not p.name.startswith("eight-tools")
    ),
    REAL / "agentscope-java" / "transcript.jsonl",
    REAL / "agentscope-java" / "transcript-hitl.jsonl",
    REAL / "agentscope-java" / "events.jsonl",
    REAL / "loongflow" / "transcript.jsonl",
    *sorted((REAL / "loongflow" / "runs").glob("*-messages.jsonl")),
    REAL / "openai-responses" / "events.jsonl",
    REAL / "anthropic" / "events.jsonl",
    REAL / "openai-chat" / "events.jsonl",
    CLAUDE / "06-thinking" / "stream.jsonl",
    # the coding agents: a Codex rollout, a Gemini CLI session, OpenCode databases
    *sorted((REAL / "codex" / "04-write-edit-read" / "sessions").rglob("rollout-*.jsonl")),
    *sorted((REAL / "gemini-cli" / "04-write-replace-read").rglob("session-*.jsonl")),
    REAL / "opencode" / "02-bash" / "data" / "opencode" / "opencode.db",
    REAL / "opencode" / "21-reasoning-parallel" / "data" / "opencode" / "opencode.db",
]


@pytest.mark.parametrize("source", OTHERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_real_log_of_another_dialect_goes_to_atif_and_back(source, tmp_path):
    target = to_atif(source, tmp_path)
    assert [f for f in findings(target) if f[1].startswith(("A", "P", "D"))] == []
    before = conversation(source)
    assert before and conversation(target) == before


def test_what_atif_has_no_place_for_is_reported(tmp_path):
    source = REAL / "agentscope-py" / "runs" / "eight-tools-final.jsonl"
    result = convert(source, "atif")
    (document,) = result.records
    atif.Trajectory.model_validate(document)
    notes = [f for fr in result.report.files for f in fr.findings if f.code == "X001"]
    assert any("video" in f.message for f in notes)
    # the video's URL is kept, as text
    assert "https://example.com/clip.mp4" in json.dumps(document)


@pytest.mark.parametrize("dialect", ["openai-chat", "anthropic", "openai-responses"])
def test_a_provider_conversation_goes_to_atif_and_back(dialect, tmp_path):
    # one conversation of the SDK's own (a line of conversations.jsonl: a request and its
    # answer), as a log of its own
    lines = (FIXTURES / "real" / dialect / "conversations.jsonl").read_bytes().splitlines()
    for number, line in enumerate(lines):
        source = tmp_path / f"conversation-{number}.jsonl"
        source.write_bytes(line + b"\n")
        target = to_atif(source, tmp_path)
        assert conversation(target) == conversation(source), number


def test_convert_writes_one_indented_document_for_one_log(tmp_path):
    source = CLAUDE / "02-bash-ls" / "session.jsonl"
    out = tmp_path / "trajectory.json"
    done = run("convert", "--to", "atif", "-q", str(source), "-o", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text.startswith('{\n  "schema_version": "ATIF-v1.7"')
    atif.Trajectory.model_validate(json.loads(text))
    # and one per line for several logs
    both = run("convert", "--to", "atif", "-q", str(source), str(CLAUDE / "03-parallel-read"))
    lines = both.stdout.decode().splitlines()
    assert len(lines) >= 3
    for line in lines:
        atif.Trajectory.model_validate(json.loads(line))
    # which msgcli reads: a trajectory on each line
    many = tmp_path / "many.jsonl"
    many.write_bytes(both.stdout)
    report = validate_paths([many])
    assert report.files[0].summary.dialect == "atif"
    assert report.summary.errors == 0


def test_rules_are_documented():
    out = run("rules", "A007")
    assert out.returncode == 0
    assert "final_metrics" in out.stdout.decode()


# -- subagents, versions, files of trajectories -------------------------------------------

EMBEDDED = FIXTURES / "valid" / "atif" / "embedded-subagent.json"


def test_an_embedded_subagent_is_shown_under_the_step_that_started_it():
    shown = run("show", "--width", "120", str(EMBEDDED))
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout.decode().splitlines()
    title = out.index("    subagent helper-1")
    # its steps follow, indented, with their lines and pointers in the file
    assert "line 87  at /subagent_trajectories/0/steps/0" in out[title + 1]
    assert out[title + 1].startswith("     USER")
    assert any("→ bash  call_wc_1" in line for line in out[title:])
    # and not again in the main thread, after it
    assert sum("count the lines of README.md" in line for line in out) == 2  # call + prompt
    final = next(i for i, line in enumerate(out) if "README.md has 5 lines." in line)
    assert final > title


def test_a_part_of_a_document_is_read_by_its_pointer():
    items = [i for i in open_log(f"{EMBEDDED}#/subagent_trajectories/0") if i.message]
    assert [i.where for i in items if i.message.role != "trajectory"] == [
        "/subagent_trajectories/0/steps/0",
        "/subagent_trajectories/0/steps/1",
        "/subagent_trajectories/0/steps/1",
        "/subagent_trajectories/0/steps/2",
    ]
    lines = EMBEDDED.read_text().splitlines()
    first = items[1].line
    assert lines[first].strip() == '"step_id": 1,'


def test_subagent_tokens_are_counted_once_and_by_agent():
    document = json.loads(EMBEDDED.read_text())
    steps = document["steps"] + document["subagent_trajectories"][0]["steps"]
    out = run("stats", "--format", "json", str(EMBEDDED))
    (stats,) = json.loads(out.stdout)["files"]
    assert stats["tokens"]["input"] == sum(
        s.get("metrics", {}).get("prompt_tokens", 0) for s in steps
    )
    dialect = get_dialect("atif")
    found = [r for i in open_log(str(EMBEDDED)) if i.message for r in dialect.responses(i.message)]
    # (in file order: the main trajectory's steps, then the subagent's)
    assert [r.agent for r in found] == [None, None, "helper-1", "helper-1"]
    assert [r.model for r in found] == ["model-a", "model-a", "model-b", "model-b"]
    # cached tokens are part of ATIF's prompt_tokens: input at the base rate is the rest
    assert (found[0].input, found[0].cache_read) == (150, 50)


@pytest.mark.parametrize(
    "source", [*SESSIONS, *FROM_STREAM, EMBEDDED], ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_atif_converted_to_atif_is_the_same_document(source):
    (document,) = convert(source, "atif").records
    assert document == json.loads(source.read_text())


def test_a_subagent_is_not_mixed_into_another_dialects_conversation():
    result = convert(EMBEDDED, "openai-chat")
    ids = [c["id"] for r in result.records for c in r.get("tool_calls", ())]
    assert ids == ["call_delegate_1"]
    notes = [f.message for fr in result.report.files for f in fr.findings if f.code == "X002"]
    assert any("outside the conversation" in n for n in notes)


def test_without_the_atif_package_the_checks_across_steps_still_run(monkeypatch):
    from msgcli.dialects.atif.checks import check_trajectory

    monkeypatch.setitem(sys.modules, "atif", None)  # an import of it fails
    source = FIXTURES / "invalid" / "atif" / "model-and-steps.json"
    found = check_trajectory(json.loads(source.read_text()))
    codes = [code for code, _, _ in found]
    assert codes.count("A011") == 1
    assert {"A005", "A006", "A007", "A010"} <= set(codes)
    assert "A001" not in codes


def test_what_a_newer_version_adds_is_info_and_changes_nothing(tmp_path):
    source = ATIF / "02-bash-ls" / "trajectory.json"
    document = json.loads(source.read_text())
    newer = json.loads(source.read_text())
    newer["schema_version"] = "ATIF-v1.9"
    newer["steps"][1]["tool_calls"][0]["tool_ancestry"] = {"parent": "root"}
    newer["steps"][1]["latency_ms"] = 84
    target = tmp_path / "trajectory.json"
    target.write_text(json.dumps(newer, indent=2))
    checked = run("validate", str(target))
    assert checked.returncode == 0, checked.stdout
    found = findings(target)
    assert sorted(code for _, code, _, _ in found) == ["A002", "A002", "A003"]
    assert {ptr for _, code, _, ptr in found if code == "A002"} == {
        "/steps/1/tool_calls/0/tool_ancestry",
        "/steps/1/latency_ms",
    }
    assert conversation(target) == conversation(source)
    assert document["steps"][1]["tool_calls"][0]["tool_call_id"] in json.dumps(conversation(target))


def test_a_file_of_trajectories_one_per_line_is_checked_line_by_line(tmp_path):
    good = json.loads((ATIF / "02-bash-ls" / "trajectory.json").read_text())
    bad = json.loads((ATIF / "09-subagent" / "trajectory.json").read_text())
    bad["steps"][2]["step_id"] = 7
    target = tmp_path / "trajectories.jsonl"
    target.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    assert [(line, code, ptr) for line, code, _, ptr in findings(target)] == [
        (2, "A005", "/steps/2/step_id")
    ]
    roles = [i.message.role for i in open_log(str(target)) if i.message]
    assert roles.count("trajectory") == 2 and roles.count("user") == 2


def test_diff_finds_the_trajectory_and_its_session_the_same_conversation():
    out = run(
        "diff",
        str(CLAUDE / "04-write-edit-read" / "session.jsonl"),
        str(ATIF / "04-write-edit-read" / "trajectory.json"),
    )
    text = out.stdout.decode()
    assert "0 changed; 0 tool calls changed" in text


@pytest.mark.parametrize("minor", range(7))
def test_every_earlier_version_is_read_and_what_came_later_is_info(minor, tmp_path):
    source = ATIF / "02-bash-ls" / "trajectory.json"
    older = json.loads(source.read_text())
    older["schema_version"] = f"ATIF-v1.{minor}"
    target = tmp_path / "trajectory.json"
    target.write_text(json.dumps(older, indent=2))
    found = findings(target)
    # atif-make writes trajectory_id and llm_call_count, which ATIF-v1.7 brought: info
    agent_steps = [i for i, s in enumerate(older["steps"]) if s["source"] == "agent"]
    assert sorted((code, ptr) for _, code, _, ptr in found) == [
        ("A004", f"/steps/{i}/llm_call_count") for i in agent_steps
    ] + [("A004", "/trajectory_id")]
    assert run("validate", str(target)).returncode == 0
    assert conversation(target) == conversation(source)


def test_view_nests_the_subagent(tmp_path):
    made = run("view", "-o", str(tmp_path), str(EMBEDDED))
    assert made.returncode == 0, made.stderr
    page = "".join(p.read_text() for p in tmp_path.rglob("*.html") if "index" not in p.name)
    nested = page.index('class="nested"')
    assert "subagent helper-1" in page[nested:]
    assert page.index("call_wc_1", nested) > nested


def test_a_step_copied_for_context_is_not_counted_again(tmp_path):
    source = ATIF / "02-bash-ls" / "trajectory.json"
    document = json.loads(source.read_text())
    document["steps"][1]["is_copied_context"] = True
    target = tmp_path / "trajectory.json"
    target.write_text(json.dumps(document, indent=2))
    assert findings(target) == []
    out = run("stats", "--format", "json", str(target))
    (stats,) = json.loads(out.stdout)["files"]
    assert stats["tokens"]["input"] == document["steps"][2]["metrics"]["prompt_tokens"]
    dialect = get_dialect("atif")
    found = [r for i in open_log(str(target)) if i.message for r in dialect.responses(i.message)]
    assert [r.output for r in found] == [document["steps"][2]["metrics"]["completion_tokens"]]


def test_markdown_export_nests_the_subagent(tmp_path):
    target = tmp_path / "run.md"
    made = run("show", "--export-markdown", str(target), str(EMBEDDED))
    assert made.returncode == 0, made.stderr
    text = target.read_text()
    helper = text.index("subagent helper-1")
    assert text.index("call_wc_1") > helper
    assert text.index("README.md has 5 lines.") > text.index("call_delegate_1")


def test_a_log_of_several_sessions_is_a_trajectory_each(tmp_path):
    # two Claude Code sessions, one after the other in one file
    first = (CLAUDE / "02-bash-ls" / "session.jsonl").read_bytes()
    second = (CLAUDE / "04-write-edit-read" / "session.jsonl").read_bytes()
    both = tmp_path / "two.jsonl"
    both.write_bytes(first + second)
    documents = convert(both, "atif").records
    assert [d["session_id"] for d in documents] == [
        json.loads((ATIF / name / "trajectory.json").read_text())["session_id"]
        for name in ("02-bash-ls", "04-write-edit-read")
    ]
    for document in documents:
        atif.Trajectory.model_validate(document)


def test_a_subagent_in_a_file_of_its_own_is_shown_under_its_step(tmp_path):
    document = json.loads(EMBEDDED.read_text())
    sub = document.pop("subagent_trajectories")[0]
    ref = document["steps"][2]["observation"]["results"][0]["subagent_trajectory_ref"][0]
    del ref["trajectory_id"]
    ref["trajectory_path"] = "helpers/helper-1.json"
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "helper-1.json").write_text(json.dumps(sub, indent=2))
    main = tmp_path / "trajectory.json"
    main.write_text(json.dumps(document, indent=2))
    # the folder holds two trajectories: the scan checks both
    assert validate_paths([tmp_path]).summary.errors == 0
    shown = run("show", "--width", "120", str(main)).stdout.decode().splitlines()
    title = shown.index("    subagent helpers/helper-1.json")
    assert shown[title + 1].startswith("     USER") and "at /steps/0" in shown[title + 1]
    assert any("call_wc_1" in line for line in shown[title:])
