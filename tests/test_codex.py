"""Codex CLI rollouts through every command, on the real files of ``fixtures/real/codex``.

What is checked comes from the raw files and from what the mock model API sent
(``ledger.json``): the response ids of the ``token_usage_record`` lines, the call ids of the
``response_item`` calls, the sum of the usage the mock sent over completed responses.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import FIXTURES

from msgcli.dialects import get_dialect
from msgcli.pipeline import validate_paths
from msgcli.stream import open_log

REAL = FIXTURES / "real" / "codex"
#: what the mock model API sent in each scenario, and how the CLI was run
LEDGERS = FIXTURES / "ledgers" / "codex"
SCENARIOS = sorted(p for p in REAL.iterdir() if p.is_dir())
ROLLOUTS = sorted(REAL.rglob("rollout-*.jsonl"))
#: scenarios of one run: stdout.jsonl is the --json output of the run its rollout holds
SINGLE = [s for s in SCENARIOS if (s / "stdout.jsonl").is_file()]


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().split(b"\n") if line.strip()]


def requests_of(scenario: Path) -> list[dict]:
    return json.loads((LEDGERS / scenario.name / "ledger.json").read_text())["requests"]


def ledger(scenario: Path) -> dict:
    doc = json.loads((LEDGERS / scenario.name / "ledger.json").read_text())
    return doc["sum_over_completed_responses"]


def rollouts(scenario: Path) -> list[Path]:
    return sorted((scenario / "sessions").rglob("rollout-*.jsonl"))


def label(path: Path) -> str:
    return str(path.relative_to(REAL))


def payloads(path: Path, kind: str) -> list[dict]:
    return [r["payload"] for r in records(path) if r["type"] == kind]


def call_ids(path: Path) -> set[str]:
    return {
        p["call_id"]
        for p in payloads(path, "response_item")
        if p["type"] in ("function_call", "custom_tool_call")
    }


def messages(source: Path) -> list:
    return [item.message for item in open_log(source) if item.message is not None]


# -- validate --------------------------------------------------------------------------


@pytest.mark.parametrize("path", ROLLOUTS, ids=label)
def test_every_real_rollout_is_read_as_codex_and_has_no_finding(path):
    run = validate_paths([path])
    (report,) = run.files
    assert report.summary.dialect == "codex"
    assert [f"{f.line}: {f.code} {f.message}" for f in report.findings] == []


@pytest.mark.parametrize("scenario", SCENARIOS, ids=label)
def test_a_sessions_folder_validates_as_the_cli_wrote_it(run_cli, scenario):
    code, out = run_cli("validate", "--format", "json", str(scenario / "sessions"))
    assert code == 0
    doc = json.loads(out)
    assert len(doc["files"]) == len(rollouts(scenario))
    assert {f["dialect"] for f in doc["files"]} == {"codex"}
    assert doc["summary"]["errors"] == 0 and doc["summary"]["warnings"] == 0


def test_a_fork_given_without_its_parent_is_told_so_and_with_it_is_not(tmp_path):
    parent, fork = rollouts(REAL / "13-fork")
    assert records(fork)[0]["payload"]["forked_from_id"] in parent.name
    shutil.copy(fork, tmp_path / fork.name)
    alone = validate_paths([tmp_path / fork.name]).files[0].findings
    assert [(f.line, f.code) for f in alone] == [(1, "R006")]
    shutil.copy(parent, tmp_path / parent.name)
    assert validate_paths([tmp_path / fork.name]).files[0].findings == []


def test_a_compressed_rollout_reads_as_the_plain_one_and_a_cut_one_is_a_located_finding(
    run_cli, tmp_path
):
    zstandard = pytest.importorskip("zstandard")
    (plain,) = rollouts(REAL / "08-resume")
    data = plain.read_bytes()
    packed = zstandard.ZstdCompressor().compress(data)
    whole = tmp_path / (plain.name + ".zst")
    whole.write_bytes(packed)
    code, out = run_cli("stats", "--format", "json", str(tmp_path))
    assert code == 0
    tokens = json.loads(out)["total"]["tokens"]
    assert (tokens["input"], tokens["output"]) == (
        ledger(REAL / "08-resume")["input_tokens"],
        ledger(REAL / "08-resume")["output_tokens"],
    )
    assert validate_paths([whole]).files[0].findings == []
    cut = tmp_path / "cut" / whole.name
    cut.parent.mkdir()
    cut.write_bytes(packed[: len(packed) // 2])
    code, out = run_cli("validate", str(cut))
    assert code == 2  # the file cannot be read to its end
    assert "P009" in out and "Zstandard stream ends before its end marker" in out


# -- stats: the ledger's tokens ------------------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS, ids=label)
def test_stats_of_a_scenario_equal_what_the_model_api_sent(run_cli, scenario):
    want = ledger(scenario)
    # the whole folder: the rollouts, resumed, forked and sub-agent files included, and the
    # --json output beside them, which adds no tokens
    for target in (scenario / "sessions", scenario):
        code, out = run_cli("stats", "--format", "json", str(target))
        assert code == 0
        tokens = json.loads(out)["total"]["tokens"]
        assert tokens["input"] == want["input_tokens"]
        assert tokens["cached"] == want["cached_tokens"]
        assert tokens["output"] == want["output_tokens"]
        assert tokens["reasoning"] == want["reasoning_tokens"]
        assert tokens["input"] + tokens["output"] == want["total_tokens"]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=label)
def test_responses_give_each_model_response_once_with_the_ledgers_numbers(scenario):
    dialect = get_dialect("codex")
    found = [r for path in rollouts(scenario) for m in messages(path) for r in dialect.responses(m)]
    requests = requests_of(scenario)
    sent = {r["response_id"] for r in requests if r["completed"]}
    assert sorted(r.key[2] for r in found) == sorted(sent)
    assert len({r.key for r in found}) == len(found)
    want = ledger(scenario)
    assert sum(r.input + r.cache_read for r in found) == want["input_tokens"]
    assert sum(r.cache_read for r in found) == want["cached_tokens"]
    assert sum(r.output for r in found) == want["output_tokens"]
    assert sum(r.reasoning for r in found) == want["reasoning_tokens"]
    assert all(r.time is not None and r.time.tzinfo is not None for r in found)
    assert {r.model for r in found} == {"gpt-5.5"}


def test_a_sub_agent_is_counted_apart_from_the_thread_that_spawned_it(run_cli):
    scenario = REAL / "16-subagent"
    requests = requests_of(scenario)
    theirs = [r for r in requests if r["completed"] and r["agent_name"] != "/root"]
    assert theirs  # the premise: the helper made requests of its own
    code, out = run_cli("stats", "--format", "json", str(scenario / "sessions"))
    assert code == 0
    details = json.loads(out)["total"]["codex"]
    sub = details["subagents"]
    assert sub["responses"] == len(theirs)
    assert sub["output"] == sum(r["usage_sent"]["output_tokens"] for r in theirs)
    assert list(sub["by_agent"]) == ["/root/helper"]
    main = details["main"]
    assert main["responses"] + sub["responses"] == sum(r["completed"] for r in requests)
    dialect = get_dialect("codex")
    agents = {
        r.agent for path in rollouts(scenario) for m in messages(path) for r in dialect.responses(m)
    }
    assert agents == {None, "/root/helper"}


def test_a_fork_counts_only_what_it_added():
    _parent, fork = rollouts(REAL / "13-fork")
    requests = requests_of(REAL / "13-fork")
    fork_thread = records(fork)[0]["payload"]["id"]
    added = [r for r in requests if r["completed"] and r["thread_id"] == fork_thread]
    assert added
    dialect = get_dialect("codex")
    counted = [r for m in messages(fork) for r in dialect.responses(m)]
    assert [r.key[2] for r in counted] == [r["response_id"] for r in added]
    # the CLI's own running total in the fork file includes its parent's: never used
    last = [p for p in payloads(fork, "event_msg") if p["type"] == "token_count"][-1]
    assert last["info"]["total_token_usage"]["output_tokens"] > sum(r.output for r in counted)


def test_a_compaction_repeats_token_counts_but_each_response_counts_once():
    (path,) = rollouts(REAL / "12-compaction")
    counts = [p for p in payloads(path, "event_msg") if p["type"] == "token_count" and p["info"]]
    summed = sum(c["info"]["last_token_usage"]["input_tokens"] for c in counts)
    want = ledger(REAL / "12-compaction")["input_tokens"]
    assert summed != want  # the trap: summing token_count events counts one twice
    dialect = get_dialect("codex")
    found = [r for m in messages(path) for r in dialect.responses(m)]
    assert sum(r.input + r.cache_read for r in found) == want
    assert any(m.role == "compacted" for m in messages(path))


# -- one message per response --------------------------------------------------------------


@pytest.mark.parametrize("path", ROLLOUTS, ids=label)
def test_one_assistant_message_per_model_response_holding_every_call(path):
    read = messages(path)
    answers = [m for m in read if m.role == "assistant"]
    assert [m.id for m in answers] == [
        p["response_id"] for p in payloads(path, "token_usage_record")
    ]
    calls = {b.id for m in answers for b in m.content if b.type == "tool_call"}
    assert calls == call_ids(path)
    results = {b.id for m in read if m.role == "tool" for b in m.content}
    assert results == calls


# -- replay of codex exec --json -----------------------------------------------------------


def root_rollout(scenario: Path) -> Path:
    """The rollout of the thread the run started (not a sub-agent's)."""
    (path,) = [p for p in rollouts(scenario) if "parent_thread_id" not in records(p)[0]["payload"]]
    return path


@pytest.mark.parametrize("scenario", SINGLE, ids=label)
def test_the_json_output_rebuilds_the_answers_and_calls_of_the_rollout(scenario):
    path = root_rollout(scenario)
    replayed = messages(scenario / "stdout.jsonl")
    # a compaction's summary is a response of the rollout the --json output does not print
    requests = requests_of(scenario)
    compaction = {r["response_id"] for r in requests if r.get("request_kind") == "compaction"}
    read = [m for m in messages(path) if m.id not in compaction]

    def answers(msgs):
        return [
            b.text for m in msgs if m.role == "assistant" for b in m.content if b.type == "text"
        ]

    def calls(msgs):
        return [
            b.name
            for m in msgs
            if m.role == "assistant"
            for b in m.content
            if b.type == "tool_call"
        ]

    assert answers(replayed) == answers(read)
    if "spawn_agent" in calls(read):
        # the output prints no item for spawning a sub-agent (only the wait for it)
        assert len(calls(replayed)) == len(calls(read)) - 1
        return
    assert len(calls(replayed)) == len(calls(read))
    assert [m.role for m in replayed if not m.fields.get("aside")] == [
        m.role for m in read if m.role in ("assistant", "tool")
    ]
    states = [b.state for m in replayed if m.role == "tool" for b in m.content]
    want = [b.state for m in read if m.role == "tool" for b in m.content]
    assert [s == "error" for s in states] == [s == "error" for s in want]


def test_replay_counts_the_turn_usage_the_output_prints_but_gives_it_to_no_message(run_cli):
    out = REAL / "08-resume" / "stdout-run2.jsonl"
    code, text = run_cli("stats", "--format", "json", str(out))
    assert code == 0
    assert json.loads(text)["total"]["tokens"]["input"] == 0


# -- show, HTML, Markdown ------------------------------------------------------------------


def test_show_gives_prompts_answers_reasoning_and_apply_patch_as_a_patch(run_cli):
    (path,) = rollouts(REAL / "04-write-edit-read")
    code, out = run_cli("show", "--full", str(path))
    assert code == 0
    prompt = next(
        p["content"][0]["text"]
        for p in payloads(path, "response_item")
        if p["type"] == "message" and p["role"] == "user" and "[cx:" in p["content"][0]["text"]
    )
    assert prompt in out
    patches = [
        p["input"] for p in payloads(path, "response_item") if p["type"] == "custom_tool_call"
    ]
    assert patches
    for patch in patches:
        for line in patch.strip().split("\n"):
            assert line in out  # the patch's own lines, not its JSON string
    assert "<environment_context>" not in out  # context Codex wrote itself: show --all
    code, every = run_cli("show", "--all", str(path))
    assert "<environment_context>" in every


def test_show_of_a_failing_command_and_a_failed_turn(run_cli):
    (path,) = rollouts(REAL / "05-failing-command")
    code, out = run_cli("show", str(path))
    assert code == 0
    assert "error" in out
    assert "Process exited with code 3" in out


def test_a_sub_agent_is_nested_under_the_call_that_spawned_it(run_cli, tmp_path):
    main, child = rollouts(REAL / "16-subagent")
    page = tmp_path / "page.html"
    code, _ = run_cli("show", str(main), "--export-html", str(page))
    assert code == 0
    text = page.read_text(encoding="utf-8")
    start = text.index('<section class="nested"')
    end = text.index("</section>", start)
    nested, outside = text[start:end], text[:start] + text[end:]
    for rid in (p["response_id"] for p in payloads(child, "token_usage_record")):
        assert f'data-id="{rid}"' in nested and f'data-id="{rid}"' not in outside
    for rid in (p["response_id"] for p in payloads(main, "token_usage_record")):
        assert f'data-id="{rid}"' in outside
    call_card = text.rindex("<article", 0, start)
    assert "call_cx16_spawn" in text[call_card:start]
    code, md = run_cli("show", str(main), "--export-markdown", "-")
    assert code == 0 and "sub-agent /root/helper" in md and "from-subagent-cx16" in md


def test_a_fork_shows_the_thread_and_ordinal_it_branched_from(run_cli):
    _parent, fork = rollouts(REAL / "13-fork")
    meta = records(fork)[0]["payload"]
    code, out = run_cli("show", "--all", "--full", "--width", "300", str(fork))
    assert code == 0
    assert (
        f"forked from thread {meta['forked_from_id']} before ordinal "
        f"{meta['forked_from_ordinal_exclusive']}"
    ) in out


# -- convert, diff, export, query, sql -----------------------------------------------------


@pytest.mark.parametrize(
    "target",
    [
        "openai-responses",
        "openai-chat",
        "anthropic",
        "agentscope-py",
        "agentscope-java",
        "loongflow",
    ],
)
@pytest.mark.parametrize("scenario", ["04-write-edit-read", "16-subagent"])
def test_convert_keeps_every_call_id_and_validates_in_its_target(
    run_cli, tmp_path, scenario, target
):
    path = rollouts(REAL / scenario)[0]
    out = tmp_path / "converted.jsonl"
    code, _ = run_cli("convert", "-q", "--to", target, "-o", str(out), str(path))
    assert code == 0
    text = out.read_text(encoding="utf-8")
    for cid in call_ids(path):
        assert text.count(json.dumps(cid)) >= 2, cid  # the call and its output
    code, report = run_cli("validate", "--no-config", "--format", "json", str(out))
    doc = json.loads(report)
    assert doc["summary"]["errors"] == 0, report
    assert doc["files"][0]["dialect"] == target


def test_convert_to_codex_says_why_not(run_cli, tmp_path):
    source = FIXTURES / "real" / "anthropic" / "transcript.jsonl"
    code, _out, err = run_cli(
        "convert", "--to", "codex", "-o", str(tmp_path / "x.jsonl"), str(source), stderr=True
    )
    assert code == 2
    assert "does not write" in err


def test_diff_of_a_resumed_rollout_against_the_file_before_it_shows_only_additions(
    run_cli, tmp_path
):
    (path,) = rollouts(REAL / "08-resume")
    lines = path.read_bytes().split(b"\n")
    first_end = next(i for i, line in enumerate(lines) if b'"task_complete"' in line)
    before = tmp_path / path.name
    before.write_bytes(b"\n".join(lines[: first_end + 1]) + b"\n")
    code, out = run_cli("diff", "--format", "json", str(before), str(path))
    assert code == 1
    report = json.loads(out)
    assert {d["kind"] for d in report["differences"]} == {"added"}
    assert report["stat"]["removed"] == 0 and report["stat"]["changed"] == 0
    assert min(d["b"]["line"] for d in report["differences"]) == first_end + 2


def test_export_tells_threads_sub_agents_and_parents_apart(run_cli, tmp_path):
    target = tmp_path / "x.sqlite"
    code, _ = run_cli(
        "export", "--no-findings", str(REAL / "16-subagent" / "sessions"), "--to", str(target)
    )
    assert code == 0
    main, child = rollouts(REAL / "16-subagent")
    main_id = records(main)[0]["payload"]["id"]
    child_id = records(child)[0]["payload"]["id"]
    db = sqlite3.connect(target)
    rows = set(
        db.execute(
            "SELECT session_id, agent_id, is_sidechain, parent_session_id, count(*) FROM messages "
            "WHERE role = 'assistant' GROUP BY 1, 2, 3, 4"
        )
    )
    assert rows == {(main_id, None, 0, None, 3), (child_id, "/root/helper", 1, main_id, 2)}
    calls = set(db.execute("SELECT call_id FROM tool_calls WHERE result_line IS NOT NULL"))
    assert {c for (c,) in calls} == call_ids(main) | call_ids(child)


def test_query_writes_one_record_per_response(run_cli):
    (path,) = rollouts(REAL / "02-shell-one")
    code, out = run_cli("query", "--role", "assistant", str(path))
    assert code == 0
    got = [json.loads(line) for line in out.splitlines()]
    assert [r["payload"]["response_id"] for r in got] == [
        p["response_id"] for p in payloads(path, "token_usage_record")
    ]
    assert all("\x00thread" not in r for r in got)


def test_sql_sums_the_tokens_per_thread(run_cli):
    pytest.importorskip("duckdb")
    folder = REAL / "16-subagent" / "sessions"
    code, out = run_cli(
        "sql",
        "-f",
        "csv",
        "SELECT sum(input_tokens) AS input FROM messages WHERE role = 'assistant'",
        str(folder),
    )
    assert code == 0
    assert out.split()[-1] == str(ledger(REAL / "16-subagent")["input_tokens"])


def test_redact_masks_a_secret_in_a_prompt_and_a_tool_output(run_cli, tmp_path):
    (path,) = rollouts(REAL / "02-shell-one")
    key = "sk-proj-" + "Q7x" * 30
    text = path.read_text(encoding="utf-8").replace("hello-from-cx02", f"hello {key}")
    copy = tmp_path / path.name
    copy.write_text(text, encoding="utf-8")
    code, out = run_cli("show", "--full", str(copy))
    assert key in out  # the premise: the secret is in the call and in its output
    for args in (
        ("show", "--redact", "--full", str(copy)),
        ("query", "--redact", str(copy)),
        ("convert", "--redact", "-q", "--to", "openai-responses", str(copy)),
    ):
        code, out = run_cli(*args)
        assert code == 0, args
        assert key not in out, args
    target = tmp_path / "x.sqlite"
    code, _ = run_cli("export", "--redact", "--no-findings", str(copy), "--to", str(target))
    assert code == 0
    db = sqlite3.connect(target)
    texts = [t for (t,) in db.execute("SELECT text FROM blocks WHERE text IS NOT NULL")]
    assert any("hello" in t for t in texts) and not any(key in t for t in texts)
    if importlib.util.find_spec("duckdb"):
        query = "SELECT string_agg(text, ' ') FROM blocks"
        code, out = run_cli("sql", "--redact", "-f", "csv", query, str(copy))
        assert code == 0 and "hello" in out and key not in out


def test_show_of_a_sessions_folder_shows_a_sub_agent_once_under_its_call(run_cli):
    _main, child = rollouts(REAL / "16-subagent")
    code, out = run_cli("show", "--width", "200", str(REAL / "16-subagent" / "sessions"))
    assert code == 0
    for rid in (p["response_id"] for p in payloads(child, "token_usage_record")):
        assert out.count(f"#{rid}") == 1
    assert "sub-agent /root/helper (Pauli)" in out


def test_schemas_and_rules_are_published(run_cli):
    code, out = run_cli("schema", "list")
    assert code == 0
    kinds = {r["type"] for path in ROLLOUTS for r in records(path)}
    for kind in kinds:
        assert f"codex/{kind}" in out
    code, out = run_cli("schema", "show", "codex/token_usage_record")
    assert code == 0
    assert "response_id" in json.loads(out)["properties"]["payload"]["required"]
    code, out = run_cli("rules", "R006")
    assert code == 0 and "sessions folder" in out


def test_a_fork_is_shown_as_a_branch_after_its_parents_last_response_before_it(run_cli, tmp_path):
    parent, fork = rollouts(REAL / "13-fork")
    at = records(fork)[0]["payload"]["forked_from_ordinal_exclusive"]
    before = [
        r["payload"]["response_id"]
        for r in records(parent)
        if r["type"] == "token_usage_record" and r["ordinal"] < at
    ]
    page = tmp_path / "page.html"
    code, _ = run_cli("show", str(REAL / "13-fork" / "sessions"), "--export-html", str(page))
    assert code == 0
    text = page.read_text(encoding="utf-8")
    start = text.index('<section class="nested"')
    nested = text[start : text.index("</section>", start)]
    for rid in (p["response_id"] for p in payloads(fork, "token_usage_record")):
        assert text.count(f'data-id="{rid}"') == 1 and f'data-id="{rid}"' in nested
    card = text.rindex("<article", 0, start)
    assert f'data-id="{before[-1]}"' in text[card:start]


def _odd_copies(path: Path) -> list[dict]:
    """The records of a real rollout, each field a type names replaced by values of every
    other JSON type, one record at a time."""
    recs = records(path)
    out = [recs[0]]
    odd = [None, 3, ["x"], {"x": 1}, True, ""]
    for i, rec in enumerate(recs[1:]):
        value = odd[i % len(odd)]
        copy = json.loads(json.dumps(rec))
        payload = copy.get("payload")
        where = i % 4
        if where == 0:
            copy["type"] = value
        elif where == 1 and isinstance(payload, dict):
            payload["type"] = value
        elif where == 2 and isinstance(payload, dict):
            for key in ("call_id", "response_id", "item", "usage", "content", "role"):
                if key in payload:
                    payload[key] = value
        else:
            copy["payload"] = value
        out += [rec, copy]
    return out


@pytest.mark.parametrize("scenario", ["04-write-edit-read", "12-compaction", "16-subagent"])
def test_records_of_odd_shapes_are_located_findings_never_a_traceback(run_cli, tmp_path, scenario):
    source = rollouts(REAL / scenario)[0]
    path = tmp_path / source.name
    path.write_text("\n".join(json.dumps(r) for r in _odd_copies(source)) + "\n")
    code, out = run_cli("validate", "--format", "json", str(path))
    assert code in (0, 1)
    found = json.loads(out)["findings"]
    assert found and all(f["line"] >= 1 for f in found)
    for args in (
        ("stats", "--format", "json"),
        ("show", "--all", "--full"),
        ("query",),
        ("export", "--no-findings", "--to", str(tmp_path / "t.sqlite"), "--overwrite"),
        ("convert", "-q", "--to", "openai-responses"),
    ):
        code, _out = run_cli(*args, str(path))
        assert code in (0, 1), args
    events = [
        json.loads(line) for line in (REAL / scenario / "stdout.jsonl").read_text().splitlines()
    ]
    odd = [
        {**e, "item": {**e["item"], "id": ["x"], "type": {"t": 1}}} for e in events if "item" in e
    ]
    stream = tmp_path / "stdout.jsonl"
    stream.write_text("\n".join(json.dumps(e) for e in events + odd) + "\n")
    code, _out = run_cli("replay", str(stream))
    assert code in (0, 1)
