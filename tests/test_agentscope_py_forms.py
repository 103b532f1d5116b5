"""AgentScope Python's other stream forms and files, on real output where a run made them:

- the AG-UI form its service publishes (``fixtures/real/agentscope-py/agui``: one run's native
  events and the AG-UI events the service's middleware made of each);
- the context the agent offloads when it compresses (``fixtures/real/agentscope-py/offload``:
  a reply split across two offloads, written under its one id);
- the 1.x streaming wrapper ``{"msg": ..., "last": ...}`` (no 1.x run was recorded: made from
  the real 1.x transcript).
"""

from __future__ import annotations

import json

import orjson
import pytest
from conftest import FIXTURES

from msgcli.pipeline import Options, validate_paths

AGUI = FIXTURES / "real" / "agentscope-py" / "agui"
OFFLOAD = FIXTURES / "real" / "agentscope-py" / "offload" / "context.jsonl"
LONG = FIXTURES / "real" / "agentscope-py" / "offload" / "long-context.jsonl"


def replay(path, **options):
    messages: list[dict] = []
    run = validate_paths([path], Options(**options), sink=lambda p, line, m: messages.append(m))
    (fr,) = run.files
    return messages, fr.findings, fr.summary


def read_jsonl(path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def write_jsonl(path, records) -> None:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))


def without_what_agui_lacks(msg: dict, nested_ids: bool = True) -> dict:
    """The AG-UI form carries no agent name, no token usage and no event times."""
    msg = json.loads(json.dumps(msg))
    for key in ("name", "usage", "created_at", "finished_at"):
        msg.pop(key, None)
    for block in msg["content"]:
        block.pop("created_at", None)
        block.pop("finished_at", None)
        if block["type"] == "tool_result" and isinstance(block["output"], list):
            for inner in block["output"]:
                inner.pop("created_at", None)
                if not nested_ids:
                    inner.pop("id", None)
    return msg


# -- AG-UI ------------------------------------------------------------------------------


def test_agui_stream_replays_to_the_messages_of_the_native_stream_of_the_same_run():
    agui, agui_findings, summary = replay(AGUI / "weather-agui-events.jsonl")
    native, native_findings, _ = replay(AGUI / "weather-events.jsonl")
    assert agui_findings == [] and native_findings == []
    assert summary.kind == "events" and summary.dialect == "agentscope-py"
    assert len(agui) == len(native) == 1
    assert [without_what_agui_lacks(m) for m in agui] == [
        without_what_agui_lacks(m) for m in native
    ]
    # what a reader checks: the same blocks, calls with their arguments, results
    (msg,) = agui
    assert [b["type"] for b in msg["content"]] == [
        "hint",
        "thinking",
        "text",
        "tool_call",
        "tool_call",
        "tool_result",
        "tool_result",
        "text",
    ]
    calls = {b["name"]: json.loads(b["input"]) for b in msg["content"] if b["type"] == "tool_call"}
    assert calls == {"get_weather": {"city": "Zürich"}, "report": {"text": "rain"}}
    results = [b for b in msg["content"] if b["type"] == "tool_result"]
    assert [r["state"] for r in results] == ["success", "success"]
    assert results[0]["output"][0]["text"] == "Zürich: 7 °C, light rain."
    assert msg["id"] == read_jsonl(AGUI / "weather-agui-events.jsonl")[0]["runId"]
    assert msg["usage"] is None  # AG-UI carries no token counts


RUNS = sorted((FIXTURES / "real" / "agentscope-py" / "runs").glob("*-agui-events.jsonl"))


@pytest.mark.parametrize("agui_log", RUNS, ids=[p.name for p in RUNS])
def test_every_real_agui_stream_replays_like_its_native_stream(agui_log):
    """Parked and resumed replies, the iteration limit, interrupts, media results."""
    agui, agui_findings, _ = replay(agui_log)
    native, native_findings, _ = replay(
        agui_log.with_name(agui_log.name.replace("-agui-events", "-events"))
    )
    assert agui_findings == [] and native_findings == []

    def comparable(msg):
        # AG-UI's TOOL_CALL_RESULT carries a result's text, not the state it ended in nor
        # the metadata of its end (an error with output reads as success)
        # and the reason a reply ended unless it hit the iteration limit (RUN_FINISHED for
        # an interrupted one too); its CUSTOM events leave out null values
        msg = without_what_agui_lacks(msg)
        msg.pop("finished_reason")
        msg.pop("error")  # AG-UI's RUN_FINISHED carries no error
        for block in msg["content"]:
            if block["type"] == "tool_result":
                block.pop("state")
                block.pop("metadata")
            for rule in block.get("suggested_rules") or ():
                for key in [k for k, v in rule.items() if v is None]:
                    del rule[key]
        return msg

    assert [comparable(m) for m in agui] == [comparable(m) for m in native]


def test_native_replay_is_what_the_framework_rebuilt():
    native, _, _ = replay(AGUI / "weather-events.jsonl")
    (final,) = read_jsonl(AGUI / "weather-final.jsonl")
    # (the framework gives text nested in a tool result a fresh random id when it rebuilds)
    assert without_what_agui_lacks(native[0], False) == without_what_agui_lacks(final, False)
    assert native[0]["usage"] == final["usage"]


def _agui_findings(tmp_path, records):
    path = tmp_path / "agui.jsonl"
    write_jsonl(path, records)
    _, findings, _ = replay(path)
    return [(f.line, f.code) for f in findings]


def test_agui_order_rules(tmp_path):
    events = read_jsonl(AGUI / "weather-agui-events.jsonl")
    # content for a text message that never started
    start = next(i for i, e in enumerate(events) if e["type"] == "TEXT_MESSAGE_START")
    assert "E002" in {c for _, c in _agui_findings(tmp_path, events[:start] + events[start + 1 :])}
    # the run finishes while a text message is open
    end = next(i for i, e in enumerate(events) if e["type"] == "TEXT_MESSAGE_END")
    found = _agui_findings(tmp_path, events[:end] + events[end + 1 :])
    assert (len(events) - 1, "E015") in found
    # events before RUN_STARTED: the hint (a native event in a CUSTOM one) belongs to a
    # reply that never started; the step after it is outside any run (said once)
    found = _agui_findings(tmp_path, events[1:])
    assert found[:2] == [(1, "E001"), (2, "E002")]
    assert [code for _, code in found].count("E002") == 1
    # the log stops inside the run
    found = _agui_findings(tmp_path, events[:-1])
    assert any(code == "E007" for _, code in found)


def test_agui_schema_errors_are_located(tmp_path):
    events = read_jsonl(AGUI / "weather-agui-events.jsonl")
    i = next(i for i, e in enumerate(events) if e["type"] == "TOOL_CALL_START")
    del events[i]["toolCallName"]
    j = next(i for i, e in enumerate(events) if e["type"] == "TEXT_MESSAGE_CONTENT")
    events[j]["delta"] = 7  # AG-UI: a delta is a string (an empty one is allowed)
    found = _agui_findings(tmp_path, events)
    assert (i + 1, "S001") in found and (j + 1, "S001") in found


# -- the 1.x streaming wrapper --------------------------------------------------------


def test_stream_wrapper_snapshots(tmp_path):
    messages = read_jsonl(FIXTURES / "real" / "agentscope-py" / "v1" / "transcript-v1.jsonl")
    reply = messages[-1]
    partial = dict(
        reply, content=reply["content"][:1] if isinstance(reply["content"], list) else ""
    )
    records = [{"msg": m, "last": True} for m in messages[:-1]]
    records += [{"msg": partial, "last": False}, {"msg": reply, "last": True}]
    path = tmp_path / "stream.jsonl"
    write_jsonl(path, records)
    replayed, findings, summary = replay(path)
    assert findings == [] and summary.kind == "events"
    assert replayed == messages  # the whole messages, each once
    # a stream that stops before a message is whole: its last snapshot, marked, and E007
    write_jsonl(path, records[:-1])
    replayed, findings, _ = replay(path)
    assert [f.code for f in findings] == ["E007"]
    assert replayed[-1]["metadata"]["msgcli_replay"]["state"] == "cut"


# -- offloaded context ----------------------------------------------------------------


def test_a_reply_split_across_offloads_is_not_a_duplicate():
    records = read_jsonl(OFFLOAD)
    first, second = records[1], records[2]
    # the framework's own file: one reply, written in two parts under its one id
    assert first["id"] == second["id"] and first["created_at"] == second["created_at"]
    assert {b["id"] for b in first["content"]}.isdisjoint(b["id"] for b in second["content"])
    run = validate_paths([OFFLOAD])
    assert run.files[0].findings == []


def test_replies_split_by_automatic_compressions_are_not_duplicates():
    """A 24-turn conversation compressed while it went on: reply after reply is offloaded in
    parts, each part stamped when its reasoning step began."""
    records = read_jsonl(LONG)
    ids = [r["id"] for r in records]
    repeated = {i for i in ids if ids.count(i) > 1}
    assert len(repeated) >= 2
    for rid in repeated:
        parts = [r for r in records if r["id"] == rid]
        assert len({(p["role"], p["name"]) for p in parts}) == 1
        assert len({p["content"][0]["id"] for p in parts}) == len(parts)
    assert any(len({p["created_at"] for p in records if p["id"] == rid}) > 1 for rid in repeated)
    run = validate_paths([LONG])
    assert run.files[0].findings == []


@pytest.mark.parametrize("which", [1, 2])
def test_a_copied_line_is_still_a_duplicate(tmp_path, which):
    lines = OFFLOAD.read_bytes().splitlines()
    edited = tmp_path / "context.jsonl"
    edited.write_bytes(b"\n".join([*lines, lines[which]]) + b"\n")
    run = validate_paths([edited])
    found = [(f.line, f.code) for f in run.files[0].findings]
    assert (len(lines) + 1, "I001") in found
    assert all(line == len(lines) + 1 for line, _ in found)


def test_another_senders_message_under_the_same_id_is_a_duplicate(tmp_path):
    """Parts of one message have its sender; a record of another sender with the same id
    is another message."""
    records = read_jsonl(OFFLOAD)
    other = dict(records[2], name="Bob")
    path = tmp_path / "context.jsonl"
    write_jsonl(path, [*records[:2], other])
    run = validate_paths([path])
    assert [(f.line, f.code) for f in run.files[0].findings] == [(3, "I001")]
