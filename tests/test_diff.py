"""``msgcli diff`` and :func:`msgcli.diff`: two conversations compared as a user reads them.

The real pairs: ``fixtures/events/agentscope-py/<scenario>-final.jsonl`` and
``fixtures/real/agentscope-py/v2-rerun/<scenario>-final.jsonl`` are two runs of the same
scenario by AgentScope Python, made at different times (fresh ids, times, and the time
in the runtime-state hint). Each mutation below is made on the raw JSON of the second
run, and where it must be reported (line, pointer) is worked out from that JSON.
"""

from __future__ import annotations

import io
import itertools
import json
import random
import re
from pathlib import Path

import orjson
import pytest
from conftest import FIXTURES

import msgcli
from msgcli.compare import DiffError, _align

FIRST = FIXTURES / "events" / "agentscope-py"
RERUN = FIXTURES / "real" / "agentscope-py" / "v2-rerun"
SCENARIOS = ("multi-agent", "parallel-tools", "exceed-max-iters")
FORMATS = ("text", "json", "github", "stat")


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def run_diff(run_cli, a: Path | str, b: Path | str, fmt: str, *more: str):
    args = ["diff", str(a), str(b), *more]
    if fmt == "stat":
        args.append("--stat")
    else:
        args += ["--format", fmt]
    return run_cli(*args, stderr=True)


# -- two real runs of the same scenario -------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_two_real_runs_differ_in_ids_and_times_only(scenario):
    a, b = records(FIRST / f"{scenario}-final.jsonl"), records(RERUN / f"{scenario}-final.jsonl")
    # the runs really were made apart: every message id and time is fresh
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert x["id"] != y["id"] and x["created_at"] != y["created_at"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_two_real_runs_of_the_same_scenario_are_the_same(run_cli, scenario, fmt):
    a, b = FIRST / f"{scenario}-final.jsonl", RERUN / f"{scenario}-final.jsonl"
    code, out, err = run_diff(run_cli, a, b, fmt)
    assert (code, err) == (0, "")
    if fmt == "json":
        doc = json.loads(out)
        assert doc["same"] is True and doc["differences"] == []
        assert doc["steps"]["a"] == doc["steps"]["b"] > 0
    elif fmt == "github":
        assert out == ""
    elif fmt == "stat":
        assert out.strip().endswith("0 messages added, 0 removed, 0 changed; 0 tool calls changed")
    else:
        assert "no differences" in out


def test_ids_and_times_are_compared_when_asked(run_cli):
    a, b = FIRST / "multi-agent-final.jsonl", RERUN / "multi-agent-final.jsonl"
    code, out, _ = run_cli("diff", str(a), str(b), "--compare", "ids", "-f", "json", stderr=True)
    assert code == 1
    differences = json.loads(out)["differences"]
    assert {d["field"] for d in differences} == {"/id"}
    assert [d["b"]["line"] for d in differences] == [1, 2, 3, 4]
    code, out, _ = run_cli("diff", str(a), str(b), "--compare", "times", "-f", "json", stderr=True)
    assert code == 1
    fields = {d["field"] for d in json.loads(out)["differences"]}
    # the message times, the blocks' times, and the current time the runtime hint tells
    assert {"/timestamp", "/content/0/created_at", "/content/0/hint"} <= fields
    assert all(f.endswith(("/timestamp", "_at", "/hint")) for f in fields)


# -- mutations of the second run: each is exactly one difference at its line -----------


def _mutate_argument(rows: list[dict]) -> dict:
    (msg,) = rows
    index, call = next(
        (i, b)
        for i, b in enumerate(msg["content"])
        if b.get("name") == "convert_currency" and b["type"] == "tool_call"
    )
    args = json.loads(call["input"])
    args["amount"] = 750
    call["input"] = json.dumps(args)
    return {
        "kind": "changed",
        "b_line": 1,
        "a_line": 1,
        "b_pointer": f"/content/{index}/input",
        "field_end": "/arguments/amount",
        "old": 500,
        "new": 750,
        "tool_calls": 1,
        "text": ["500", "750"],
    }


def _insert_message(rows: list[dict]) -> dict:
    extra = json.loads(json.dumps(rows[1]))
    extra["name"] = "Carol"
    extra["id"] = "0" * 32
    extra["content"] = [{"type": "text", "id": "1" * 32, "text": "I can drive us there."}]
    rows.insert(2, extra)
    return {
        "kind": "added",
        "b_line": 3,
        "a_line": 3,  # where the new message would be in A
        "b_pointer": "",
        "tool_calls": 0,
        "text": ["Carol", "I can drive us there."],
    }


def _drop_result(rows: list[dict]) -> dict:
    (msg,) = rows
    index = next(
        i
        for i, b in enumerate(msg["content"])
        if b["type"] == "tool_result" and b["name"] == "convert_currency"
    )
    output = msg["content"][index]["output"][0]["text"]
    del msg["content"][index]
    return {
        "kind": "removed",
        "b_line": 1,
        "a_line": 1,
        "a_pointer": f"/content/{index}",
        "tool_calls": 0,
        "text": ["convert_currency", output],
    }


def _change_word(rows: list[dict]) -> dict:
    msg = rows[1]  # Bob
    index, block = next((i, b) for i, b in enumerate(msg["content"]) if b["type"] == "text")
    assert "return" in block["text"]
    block["text"] = block["text"].replace("return", "single", 1)
    return {
        "kind": "changed",
        "b_line": 2,
        "a_line": 2,
        "b_pointer": f"/content/{index}",
        "field_end": "/text",
        "tool_calls": 0,
        "text": ["[-return-]", "{+single+}"],
    }


MUTATIONS = {
    "tool-argument": ("parallel-tools", _mutate_argument),
    "inserted-message": ("multi-agent", _insert_message),
    "dropped-tool-result": ("parallel-tools", _drop_result),
    "one-word": ("multi-agent", _change_word),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("mutation", MUTATIONS)
def test_one_mutation_is_exactly_one_difference_at_its_line(run_cli, tmp_path, mutation, fmt):
    scenario, mutate = MUTATIONS[mutation]
    a = FIRST / f"{scenario}-final.jsonl"
    rows = records(RERUN / f"{scenario}-final.jsonl")
    want = mutate(rows)
    b = write(tmp_path / "b.jsonl", rows)
    code, out, err = run_diff(run_cli, a, b, fmt)
    assert code == 1, out
    assert err == ""
    kind = want["kind"]
    if fmt == "json":
        doc = json.loads(out)
        assert doc["same"] is False
        (d,) = doc["differences"]
        assert d["kind"] == kind
        assert d["b"]["line"] == want["b_line"]
        assert d["a"]["line"] == want["a_line"]
        if "b_pointer" in want and kind != "added":
            assert d["b"]["pointer"] == want["b_pointer"]
        if "a_pointer" in want:
            assert d["a"]["pointer"] == want["a_pointer"]
        if kind == "changed":
            assert d["field"].endswith(want["field_end"])
            if "old" in want:
                assert (d["old"], d["new"]) == (want["old"], want["new"])
        stat = doc["stat"]
        assert stat[kind] == 1
        assert sum(stat[k] for k in ("added", "removed", "changed")) == 1
        assert stat["tool_calls_changed"] == want["tool_calls"]
    elif fmt == "github":
        (line,) = out.splitlines()
        assert line.startswith(
            f"::error file={b},line={want['b_line']},title=msgcli diff%3A {kind}::"
        )
        body = line.split("::", 2)[2]
        for text in want["text"][:1] if kind != "changed" else want["text"]:
            assert text in body
    elif fmt == "stat":
        counts = {"added": 0, "removed": 0, "changed": 0}
        counts[kind] = 1
        unit = "message" if counts["added"] == 1 else "messages"
        assert out.strip().endswith(
            f"{counts['added']} {unit} added, {counts['removed']} removed, "
            f"{counts['changed']} changed; {want['tool_calls']} tool call"
            f"{'' if want['tool_calls'] == 1 else 's'} changed"
        )
    else:
        mark = {"added": "+", "removed": "-", "changed": "~"}[kind]
        lines = out.splitlines()
        assert lines[0].startswith(f"--- {a}") and lines[1].startswith(f"+++ {b}")
        headers = [x for x in lines if re.match(rf"^{re.escape(mark)}  [A-Z]+  ", x)]
        assert len(headers) == 1, out
        assert f"line {want['b_line'] if kind != 'removed' else want['a_line']}" in headers[0]
        for text in want["text"]:
            assert any(text in x for x in lines), (text, out)
        if kind == "changed":
            assert any(x.startswith("-") and want["text"][0] in x for x in lines)
            assert any(x.startswith("+") and want["text"][1] in x for x in lines)
        # nothing else is marked as different: no other step is shown as added or removed
        others = [x for x in lines[2:] if re.match(r"^[-+~]  [A-Z]+  ", x) and x[0] != mark]
        assert others == []


# -- event logs and their framework's messages ------------------------------------------

FINALS = (
    [
        (p.with_name(p.name.replace("-final.jsonl", ".jsonl")), p)
        for p in sorted(FIRST.glob("*-final.jsonl"))
    ]
    + [
        (p.with_name(p.name.replace("-expected.jsonl", ".jsonl")), p)
        for p in sorted((FIXTURES / "events" / "agentscope-java").glob("*-expected.jsonl"))
        if not p.name.startswith("error-mid-stream")  # the log ends mid-reply: see below
    ]
    + [
        (
            FIXTURES / "real" / "agentscope-py" / "events.jsonl",
            FIXTURES / "real" / "agentscope-py" / "events-final.jsonl",
        ),
        (
            FIXTURES / "real" / "agentscope-py" / "events.sse",
            FIXTURES / "real" / "agentscope-py" / "events-final.jsonl",
        ),
        (
            FIXTURES / "real" / "agentscope-py" / "events-data.jsonl",
            FIXTURES / "real" / "agentscope-py" / "events-data-final.jsonl",
        ),
    ]
)


@pytest.mark.parametrize("events, final", FINALS, ids=[str(f.name) for _, f in FINALS])
def test_a_replayed_event_log_is_the_message_its_framework_built(run_cli, events, final):
    code, out, err = run_cli("diff", str(events), str(final), "--stat", stderr=True)
    assert (code, err) == (0, ""), out


def test_an_event_log_that_stops_mid_reply_is_trouble_with_the_line(run_cli):
    events = FIXTURES / "events" / "agentscope-java" / "error-mid-stream.jsonl"
    final = FIXTURES / "events" / "agentscope-java" / "error-mid-stream-expected.jsonl"
    code, out, err = run_cli("diff", str(events), str(final), "--format", "json", stderr=True)
    assert code == 2
    assert f"{events}:16: E007" in err
    # the half-built reply is there, and shown as what the framework's messages lack
    (d,) = json.loads(out)["differences"]
    assert d["kind"] == "removed" and d["a"]["line"] == 16


# -- across dialects ----------------------------------------------------------------------

CROSS = [
    (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl", "agentscope-java"),
    (FIXTURES / "real" / "agentscope-py" / "v1" / "transcript-v1.jsonl", "loongflow"),
    (FIXTURES / "events" / "agentscope-java" / "parallel-tools-expected.jsonl", "agentscope-py"),
    (FIRST / "parallel-tools-final.jsonl", "agentscope-java"),
]


@pytest.mark.parametrize("source, target", CROSS, ids=[f"{p.name}->{t}" for p, t in CROSS])
def test_a_conversation_and_its_conversion_are_the_same(run_cli, tmp_path, source, target):
    converted = msgcli.convert(source, target, zone=None)
    out_path = write(tmp_path / "converted.jsonl", converted.records)
    assert msgcli.detect_dialect(out_path)[0] == target != msgcli.detect_dialect(source)[0]
    code, out, err = run_cli("diff", str(source), str(out_path), stderr=True)
    assert (code, err) == (0, ""), out
    # and a change made after the conversion is found across the dialects
    rows = records(out_path)
    texts = [
        (i, b)
        for i, r in enumerate(rows)
        for b in r["content"]
        if b.get("type") == "text" and isinstance(b.get("text"), str) and b["text"].strip()
    ]
    if not texts:
        return  # the target keeps these texts in another shape: the first half is the test
    row, block = texts[-1]
    block["text"] += " Extra words."
    write(out_path, rows)
    code, out, _ = run_cli("diff", str(source), str(out_path), "-f", "json", stderr=True)
    assert code == 1
    (d,) = json.loads(out)["differences"]
    assert (d["kind"], d["b"]["line"]) == ("changed", row + 1)
    assert d["new"].endswith(" Extra words.")


# -- match modes ----------------------------------------------------------------------------


def _parallel(tmp_path: Path, change) -> Path:
    rows = records(RERUN / "parallel-tools-final.jsonl")
    change(rows[0]["content"])
    return write(tmp_path / "b.jsonl", rows)


def test_match_tools_compares_only_the_calls(run_cli, tmp_path):
    a = FIRST / "parallel-tools-final.jsonl"

    def reword(content):
        for block in content:
            if block["type"] == "text":
                block["text"] = "Completely different words."

    b = _parallel(tmp_path, reword)
    assert run_cli("diff", str(a), str(b))[0] == 1
    assert run_cli("diff", str(a), str(b), "--match", "tools")[0] == 0

    def other_city(content):
        for block in content:
            if block["type"] == "tool_call" and block["name"] == "get_weather":
                block["input"] = json.dumps({"city": "Osaka", "day": "friday"})

    b = _parallel(tmp_path, other_city)
    code, out = run_cli("diff", str(a), str(b), "--match", "tools", "-f", "json")
    (d,) = json.loads(out)["differences"]
    assert (code, d["field"], d["old"], d["new"]) == (1, "/arguments/city", "Tokyo", "Osaka")


def test_match_unordered_accepts_the_calls_of_a_turn_in_any_order(run_cli, tmp_path):
    a = FIRST / "parallel-tools-final.jsonl"

    def swap(content):
        calls = [i for i, b in enumerate(content) if b["type"] == "tool_call"]
        results = [i for i, b in enumerate(content) if b["type"] == "tool_result"]
        for group in (calls, results):
            content[group[0]], content[group[-1]] = content[group[-1]], content[group[0]]

    b = _parallel(tmp_path, swap)
    assert run_cli("diff", str(a), str(b))[0] == 1
    assert run_cli("diff", str(a), str(b), "--match", "unordered")[0] == 0
    # a changed argument is still a change
    rows = records(b)
    for block in rows[0]["content"]:
        if block["type"] == "tool_call" and block["name"] == "get_weather":
            block["input"] = json.dumps({"city": "Osaka", "day": "friday"})
    write(b, rows)
    assert run_cli("diff", str(a), str(b), "--match", "unordered")[0] == 1


def test_match_subset_finds_a_steps_among_others(run_cli, tmp_path):
    rows = records(FIRST / "multi-agent-final.jsonl")
    a = write(tmp_path / "a.jsonl", [rows[0], rows[3]])  # Alice's plan, Zoë's note
    b = RERUN / "multi-agent-final.jsonl"
    assert run_cli("diff", str(a), str(b), "--match", "subset")[0] == 0
    assert run_cli("diff", str(a), str(b))[0] == 1
    rows[3]["content"][-1]["text"] = "Weather note: it will snow."
    write(a, [rows[0], rows[3]])
    code, out = run_cli("diff", str(a), str(b), "--match", "subset", "-f", "json")
    (d,) = json.loads(out)["differences"]
    assert (code, d["kind"], d["a"]["line"], d["b"]["line"]) == (1, "changed", 2, 4)


# -- what is compared ------------------------------------------------------------------------


def test_metadata_is_compared_when_asked_and_paths_can_be_ignored(run_cli, tmp_path):
    a = FIRST / "multi-agent-final.jsonl"
    rows = records(RERUN / "multi-agent-final.jsonl")
    rows[1]["metadata"] = {"session": "s-2", "trace": {"span": "x"}}
    b = write(tmp_path / "b.jsonl", rows)
    assert run_cli("diff", str(a), str(b))[0] == 0
    code, out = run_cli("diff", str(a), str(b), "--compare", "metadata", "-f", "json")
    fields = sorted(d["field"] for d in json.loads(out)["differences"])
    assert (code, fields) == (1, ["/metadata/session", "/metadata/trace/span"])
    code, _ = run_cli(
        "diff",
        str(a),
        str(b),
        "--compare",
        "metadata",
        "--ignore-path",
        "/metadata/session",
        "--ignore-path",
        "/metadata/trace/*",
    )
    assert code == 0


def test_unknown_mode_or_field_and_unreadable_files_are_trouble(run_cli, tmp_path):
    a = FIRST / "multi-agent-final.jsonl"
    code, _, err = run_cli("diff", str(a), str(tmp_path / "none.jsonl"), stderr=True)
    assert code == 2 and "none.jsonl: no such file" in err
    code, _, err = run_cli("diff", str(a), str(a), "--compare", "colour", stderr=True)
    assert code == 2 and "cannot compare 'colour'" in err
    code, _, err = run_cli("diff", str(a), str(a), "--match", "fuzzy", stderr=True)
    assert code == 2
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"hello": "world"}\n')
    code, _, err = run_cli("diff", str(a), str(junk), stderr=True)
    assert code == 2 and "not a message or event log" in err


def test_a_broken_line_is_reported_at_its_line_and_the_rest_is_compared(run_cli, tmp_path):
    a = FIRST / "multi-agent-final.jsonl"
    lines = (RERUN / "multi-agent-final.jsonl").read_text("utf-8").splitlines(keepends=True)
    lines.insert(1, '{"name": "Bob", "content": [\n')
    b = tmp_path / "b.jsonl"
    b.write_text("".join(lines), "utf-8")
    code, out, err = run_cli("diff", str(a), str(b), "-f", "json", stderr=True)
    assert code == 2
    assert f"{b}:2: P00" in err
    assert json.loads(out)["differences"] == []


def test_text_from_a_log_is_printed_literally(run_cli, tmp_path):
    a = FIRST / "multi-agent-final.jsonl"
    rows = records(RERUN / "multi-agent-final.jsonl")
    extra = json.loads(json.dumps(rows[1]))
    extra["content"][-1]["text"] = "[bold red]hi[/] \x1b]0;pwned\x07 \u202e done"
    b = write(tmp_path / "b.jsonl", [*rows, extra])
    for fmt in ("text", "github"):
        code, out = run_cli("diff", str(a), str(b), "-f", fmt)
        assert code == 1
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
        assert "[bold red]hi[/]" in out
        assert "\\e]0;pwned\\x07" in out  # shown as escapes, as show does


# -- the library ------------------------------------------------------------------------------


def test_library_diff_takes_paths_messages_and_records():
    a, b = FIRST / "parallel-tools-final.jsonl", RERUN / "parallel-tools-final.jsonl"
    result = msgcli.diff(a, b)
    assert isinstance(result, msgcli.DiffResult)
    assert result.same and result.exit_code == 0
    messages = [m for _, m in msgcli.read_messages(b)]
    assert msgcli.diff(a, messages).same
    rows = records(b)
    rows[0]["content"][2]["text"] = "Let me look these up one by one…"
    result = msgcli.diff(a, rows)
    (d,) = result.differences
    assert (d.kind, d.field, d.b.line) == ("changed", "/content/2/text", 1)
    assert "[-at the same time-]{+one by one+}" in d.describe()
    with pytest.raises(ValueError):
        msgcli.diff(a, b, match="fuzzy")
    with pytest.raises(DiffError):
        msgcli.diff(a, FIRST / "missing.jsonl")
    # a binary stream too
    assert msgcli.diff(io.BytesIO(a.read_bytes()), b).same


def test_alignment_is_a_longest_common_subsequence():
    rng = random.Random(7)
    for _ in range(300):
        a = [rng.randrange(4) for _ in range(rng.randrange(0, 14))]
        b = [rng.randrange(4) for _ in range(rng.randrange(0, 14))]
        pairs = _align(a, b)
        assert all(a[i] == b[j] for i, j in pairs)
        assert all(p[0] < q[0] and p[1] < q[1] for p, q in itertools.pairwise(pairs))
        assert len(pairs) == _lcs_length(a, b)


def _lcs_length(a: list, b: list) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            table[i][j] = (
                table[i + 1][j + 1] + 1 if a[i] == b[j] else max(table[i + 1][j], table[i][j + 1])
            )
    return table[0][0]


def test_one_insertion_early_in_a_long_log_is_one_difference(tmp_path):
    rows = records(FIRST / "multi-agent-final.jsonl") * 200
    extra = json.loads(json.dumps(rows[1]))
    extra["name"] = "Carol"
    longer = [*rows[:5], extra, *rows[5:]]
    a = write(tmp_path / "a.jsonl", rows)
    b = write(tmp_path / "b.jsonl", longer)
    result = msgcli.diff(a, b)
    (d,) = result.differences
    assert (d.kind, d.b.line) == ("added", 6)
    assert orjson.loads(orjson.dumps(result.as_dict()))["stat"]["added"] == 1


def test_readme_example_is_what_msgcli_prints(run_cli, monkeypatch):
    from conftest import ROOT

    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = (
        "msgcli diff fixtures/real/agentscope-py/v2-rerun/multi-agent-final.jsonl "
        "fixtures/readme/multi-agent-changed.jsonl"
    )
    shown = readme.split(f"$ {command}\n", 1)[1].split("```", 1)[0]
    code, out = run_cli(*command.split()[1:])
    assert code == 1
    assert shown == out


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_reading_b_in_a_second_process_gives_the_same_result(tmp_path, monkeypatch, mutation):
    import msgcli.compare

    scenario, mutate = MUTATIONS[mutation]
    a = FIRST / f"{scenario}-final.jsonl"
    rows = records(RERUN / f"{scenario}-final.jsonl")
    mutate(rows)
    b = write(tmp_path / "b.jsonl", rows)
    here = msgcli.diff(a, b)
    monkeypatch.setattr(msgcli.compare, "PARALLEL_BYTES", 0)
    monkeypatch.setattr("msgcli.parallel.default_jobs", lambda: 2)
    assert msgcli.compare._parallel(a, b)
    there = msgcli.diff(a, b)
    assert there.as_dict() == here.as_dict()
    assert len(there.differences) == 1
    # what the text view needs of B's steps came back whole
    assert all(
        isinstance(op.b, msgcli.compare.Step) for op in there.ops if op.kind in ("added", "changed")
    )
    with pytest.raises(DiffError):
        msgcli.diff(a, tmp_path / "missing.jsonl")
    (tmp_path / "junk.jsonl").write_text('{"hello": "world"}\n')
    with pytest.raises(DiffError, match="not a message or event log"):
        msgcli.diff(a, tmp_path / "junk.jsonl")
