"""Real LoongFlow runs (``fixtures/real/loongflow/runs``, see its README): the framework's own
ReActAgent, its memory files, its interrupt and a coordinator of member agents.

What a user checks on them: every file validates without an error; every tool call the agent
made is paired with the output its actor wrote; ``show`` and ``stats`` read the memory files
(JSON arrays) as their messages and say where each sits; the interrupt message the framework
adds twice is two messages, while a hand-edited copy that repeats an id is a duplicate.
The expected values are read off the raw JSON here, not from msgcli.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from conftest import FIXTURES

import msgcli
from msgcli.stats import file_stats

RUNS = FIXTURES / "real" / "loongflow" / "runs"
LOGS = sorted(RUNS.glob("*-messages.jsonl"))
MEMORY = sorted(RUNS.glob("*-?tm.json"))
INTERRUPT = "Agent execution was interrupted by user"


def raw_jsonl(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def raw_array(path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))


def element_lines(path) -> list[int]:
    """The lines on which the array's elements open: ``json.dump(..., indent=2)`` writes
    each as ``  {`` on a line of its own."""
    text = path.read_text(encoding="utf-8").splitlines()
    return [i for i, line in enumerate(text, 1) if line == "  {"]


def test_the_runs_are_all_there():
    names = {p.name for p in RUNS.iterdir()}
    for run in ("react", "interrupt", "max-steps", "coordinator", "researcher", "writer"):
        assert f"{run}-messages.jsonl" in names
        assert f"{run}-stm.json" in names
    assert {"react-mtm.json", "react-ltm.json", "react-compressed1-mtm.json"} <= names


@pytest.mark.parametrize("path", sorted(RUNS.iterdir()), ids=lambda p: p.name)
def test_every_file_validates_without_an_error(path):
    run = msgcli.validate(path)
    assert [f"{f.line}: {f.code} {f.message}" for f in run.errors()] == []
    (fr,) = run.files
    assert fr.summary.dialect == "loongflow"
    records = raw_array(path) if path.suffix == ".json" else raw_jsonl(path)
    assert fr.summary.records == len(records)


@pytest.mark.parametrize(
    "name", ["react-messages.jsonl", "max-steps-messages.jsonl", "coordinator-messages.jsonl"]
)
def test_every_call_gets_the_output_its_actor_wrote(name):
    path = RUNS / name
    raw = raw_jsonl(path)
    calls = [el for m in raw for el in m["content"] if el["type"] == "tool_call"]
    outputs = [el for m in raw for el in m["content"] if el["type"] == "tool_output"]
    assert calls and len(calls) == len(outputs)
    # no unanswered call, no orphan output, no reused id
    assert [
        f for f in msgcli.validate(path).findings() if f.code[0] in "TI" and f.code != "T009"
    ] == []
    stats = file_stats(path)
    assert sum(t.calls for t in stats.tools.values()) == len(calls)
    assert sum(t.no_result for t in stats.tools.values()) == 0
    by_tool = Counter(el["target"] for el in calls)
    assert {name: t.calls for name, t in stats.tools.items()} == dict(by_tool)
    results: Counter = Counter()
    for t in stats.tools.values():
        results.update(t.results)
    assert dict(results) == dict(Counter(el["status"] for el in outputs))


def test_the_parallel_reply_shows_every_kind_of_output(run_cli):
    path = RUNS / "react-messages.jsonl"
    raw = raw_jsonl(path)
    first = raw[1]
    calls = [el for el in first["content"] if el["type"] == "tool_call"]
    assert len(calls) == 14  # all at once
    code, out = run_cli("show", "--no-pager", str(path))
    assert code == 0
    errors = [
        el["result"][0]["data"]
        for m in raw
        for el in m["content"]
        if el["type"] == "tool_output" and el["status"] == "error"
    ]
    assert len(errors) == 5
    for text in errors:  # the error texts, as the tools and the framework wrote them
        assert text.splitlines()[0] in out
    assert "Tool 'get_forecast' not found" in out
    assert "File is empty" in out
    assert out.count("image/png") == 2  # the PNG elements, as one line each ...
    png = next(
        r["data"]
        for m in raw
        for el in m["content"]
        if el["type"] == "tool_output"
        for r in el["result"]
        if r["mime_type"] == "image/png"
    )
    assert png.split(",", 1)[1][:20] not in out  # ... never their base64
    assert "Bring an umbrella in Berlin." in out  # the Read tool's numbered text
    # the calls whose arguments LoongFlow could not parse are named
    found = msgcli.validate(path).findings()
    assert [(f.line, f.code) for f in found if f.code == "T009"] == [(2, "T009")]


def test_the_coordinator_shows_what_each_member_answered(run_cli):
    path = RUNS / "coordinator-messages.jsonl"
    raw = raw_jsonl(path)
    targets = [el["target"] for el in raw[1]["content"] if el["type"] == "tool_call"]
    assert targets == ["researcher", "writer"]
    member_answers = {
        name: raw_jsonl(RUNS / f"{name}-messages.jsonl")[-1]["content"][0]["data"]
        for name in targets
    }
    code, out = run_cli("show", "--no-pager", str(path))
    assert code == 0
    assert member_answers["researcher"] in out
    # the writer's structured answer is pretty JSON in the coordinator's tool output
    assert json.dumps(member_answers["writer"], indent=2, ensure_ascii=False).splitlines()[2] in out


@pytest.mark.parametrize("path", MEMORY, ids=lambda p: p.name)
def test_a_memory_file_is_read_as_its_messages_each_placed(path):
    messages = raw_array(path)
    stats = file_stats(path)
    assert stats.messages == len(messages)
    assert stats.placed == [(line, f"/{i}") for i, line in enumerate(element_lines(path))]
    ids = [m.id for _, m in msgcli.read_messages(path)]
    assert ids == [m["id"] for m in messages]


def test_show_of_a_memory_file_says_where_each_message_sits(run_cli):
    path = RUNS / "react-compressed1-mtm.json"
    messages = raw_array(path)
    assert [m["sender"] for m in messages] == ["compressor", "reasoner"]
    code, out = run_cli("show", "--no-pager", str(path))
    assert code == 0
    for index, line in enumerate(element_lines(path)):
        assert f"line {line}  at /{index}" in out
    assert messages[0]["content"][0]["data"][:40] in out  # the compressor's summary


def test_stats_json_of_a_memory_file_lists_the_pointers(run_cli):
    path = RUNS / "react-stm.json"
    code, out = run_cli("stats", "--format", "json", str(path))
    assert code == 0
    (entry,) = json.loads(out)["files"]
    count = len(raw_array(path))
    assert entry["messages"]["total"] == count
    assert [d["pointer"] for d in entry["document"]] == [f"/{i}" for i in range(count)]
    assert [d["line"] for d in entry["document"]] == element_lines(path)


def test_a_finding_in_a_memory_file_points_into_it():
    path = RUNS / "interrupt-stm.json"
    messages = raw_array(path)
    index = next(
        i for i, m in enumerate(messages) if any(el["type"] == "tool_call" for el in m["content"])
    )
    (finding,) = msgcli.validate(path).findings()
    # the interrupted call never got its output: said on the message that made it
    assert finding.code == "T002"
    assert finding.pointer == f"/{index}/content/1"
    assert finding.line == element_lines(path)[index]


def test_the_interrupt_message_added_twice_is_two_messages():
    for path in (RUNS / "interrupt-messages.jsonl", RUNS / "interrupt-stm.json"):
        messages = raw_array(path) if path.suffix == ".json" else raw_jsonl(path)
        notes = [m for m in messages if m["content"][0].get("data") == INTERRUPT]
        assert len(notes) == 2 and notes[0]["id"] != notes[1]["id"]
        assert [f.code for f in msgcli.validate(path).findings() if f.code.startswith("I")] == []


def test_a_repeated_id_in_a_hand_edited_copy_is_still_a_duplicate(tmp_path):
    # the second interrupt message given the first's id
    lines = (RUNS / "interrupt-messages.jsonl").read_text(encoding="utf-8").splitlines()
    notes = [i for i, line in enumerate(lines) if INTERRUPT in line]
    first = json.loads(lines[notes[0]])
    second = json.loads(lines[notes[1]])
    second["id"] = first["id"]
    lines[notes[1]] = json.dumps(second, ensure_ascii=False)
    edited = tmp_path / "interrupt-messages.jsonl"
    edited.write_text("\n".join(lines) + "\n", encoding="utf-8")
    dupes = [f for f in msgcli.validate(edited).findings() if f.code == "I001"]
    assert [(f.line, f.pointer) for f in dupes] == [(notes[1] + 1, "/id")]
    assert f"line {notes[0] + 1}" in dupes[0].message

    # a memory file with one of its messages copied in twice
    messages = raw_array(RUNS / "react-stm.json")
    messages.append(messages[0])
    copied = tmp_path / "react-stm.json"
    copied.write_text(json.dumps(messages, indent=2, ensure_ascii=False), encoding="utf-8")
    dupes = [f for f in msgcli.validate(copied).findings() if f.code == "I001"]
    last = len(messages) - 1
    assert [(f.line, f.pointer) for f in dupes] == [(element_lines(copied)[last], f"/{last}/id")]


def test_the_final_reply_carries_the_framework_totals():
    """``ReActAgent.run`` adds its token totals to the reply after it went into the memory:
    the returned reply has them, the logged one does not, and the sums agree with the usage
    the reasoner messages carry."""
    replies = raw_jsonl(RUNS / "max-steps-reply.jsonl")
    logged = raw_jsonl(RUNS / "max-steps-messages.jsonl")
    (reply,) = replies
    assert reply["id"] == logged[-1]["id"]
    assert "total_prompt_tokens" in reply["metadata"]
    assert "total_prompt_tokens" not in logged[-1]["metadata"]
    stats = file_stats(RUNS / "max-steps-messages.jsonl")
    usage = [m["metadata"]["usage"] for m in logged if m["metadata"].get("usage")]
    assert stats.tokens.input == sum(u["prompt_tokens"] for u in usage)
    assert stats.tokens.output == sum(u["completion_tokens"] for u in usage)


def _raw(path) -> list[dict]:
    return raw_array(path) if path.suffix == ".json" else raw_jsonl(path)


@pytest.mark.parametrize("path", sorted(RUNS.iterdir()), ids=lambda p: p.name)
def test_the_only_warnings_are_the_ones_the_framework_earns(path):
    """T009: the call whose arguments were no JSON; T002: the call the interrupt cut off, and
    the calls a compressed medium-term file keeps (their outputs went to the short-term
    file). No C002: a parallel batch's outputs are stamped as each finishes but kept in call
    order, and a compression's summary comes before the older messages it kept; neither is
    out of order for LoongFlow (Dialect.time_follows)."""
    messages = _raw(path)
    at = {}  # line of a message -> the message
    lines = element_lines(path) if path.suffix == ".json" else range(1, len(messages) + 1)
    for line, msg in zip(lines, messages, strict=True):
        at[line] = msg
    compressed = messages[0]["sender"] == "compressor"
    for f in msgcli.validate(path).findings():
        msg = at[f.line]
        calls = [el for el in msg["content"] if el["type"] == "tool_call"]
        if f.code == "T009":
            assert any(el["metadata"].get("tool_arguments_err") for el in calls)
        elif f.code == "T002":
            assert path.name.startswith("interrupt-") or (compressed and "-mtm" in path.name)
            assert calls and msg["sender"] == "reasoner"
        else:
            raise AssertionError(f"{path.name}:{f.line}: {f.code} {f.message}")


def test_outputs_stamped_as_their_tools_finish_are_in_order_but_time_going_back_is_not(tmp_path):
    """The actor stamps each output of a parallel batch when its tool finishes and adds them in
    call order (line 8 finished last, so lines 9 to 14 are earlier than it): that is no C002.
    An output stamped before the call that asked for it, or a reply stamped before the outputs
    it follows, still is."""
    lines = (RUNS / "react-messages.jsonl").read_text(encoding="utf-8").splitlines()
    assert not [
        f for f in msgcli.validate(RUNS / "react-messages.jsonl").findings() if f.code == "C002"
    ]
    records = [json.loads(line) for line in lines]
    call_time = records[1]["timestamp"]
    assert records[0]["role"] == "user" and records[1]["sender"] == "reasoner"
    assert records[7]["timestamp"] > records[8]["timestamp"]  # (the run as described)
    # an output stamped a minute before its call
    early = dict(
        records[2],
        timestamp=call_time.replace(call_time[14:16], f"{int(call_time[14:16]) - 1:02d}"),
    )
    # the next reply stamped before the outputs: back to the user's question
    later = next(i for i, r in enumerate(records) if i > 2 and r["role"] == "assistant")
    back = dict(records[later], timestamp=records[0]["timestamp"])
    edited = tmp_path / "edited.jsonl"
    out = [*records]
    out[2], out[later] = early, back
    edited.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out), encoding="utf-8"
    )
    older = sorted(f.line for f in msgcli.validate(edited).findings() if f.code == "C002")
    assert older == [3, later + 1], older
