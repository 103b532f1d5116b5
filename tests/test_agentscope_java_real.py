"""Real AgentScope Java output (``fixtures/real/agentscope-java``): what the framework
persisted is what ``replay`` rebuilds from its event streams, and ``validate`` accepts
every file it wrote.

The events carry neither the message ids (the provider's response id, a fresh UUID for
tool messages) nor the engine's clock, so those two are left out of the comparison;
everything else (names, roles, blocks, tool-call arguments and states, metadata, usage)
must be what the engine kept in its memory.
"""

from __future__ import annotations

import json

import orjson
import pytest
from conftest import FIXTURES

from msgcli.pipeline import Options, validate_paths

REAL = FIXTURES / "real" / "agentscope-java"

#: (event log, the memory the framework saved after it, events to replay: all if None)
PAIRS = [
    ("events.jsonl", "transcript.jsonl", None),
    ("events-hitl.jsonl", "transcript-hitl.jsonl", None),
    ("events-external.jsonl", "transcript-external.jsonl", None),
    # the first run only: the session as it was saved at the pause
    ("events-hitl.jsonl", "transcript-hitl-paused.jsonl", 14),
    ("events-external.jsonl", "transcript-external-paused.jsonl", 12),
    ("legacy-events.jsonl", "transcript-legacy.jsonl", None),
]


def replay(path, **options):
    messages: list[dict] = []
    run = validate_paths([path], Options(**options), sink=lambda p, line, m: messages.append(m))
    (fr,) = run.files
    return messages, fr.findings


def read_jsonl(path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def comparable(msg: dict) -> dict:
    return {k: v for k, v in msg.items() if k not in ("id", "timestamp")}


@pytest.mark.parametrize("events, memory, until", PAIRS, ids=[f"{p[1]}" for p in PAIRS])
def test_replay_gives_what_the_framework_persisted(events, memory, until):
    messages, findings = replay(REAL / events, until=until)
    assert [f"{f.line}: {f.code} {f.message}" for f in findings] == []
    # the user's own message is not in the events: it is the first line of the memory
    persisted = [m for m in read_jsonl(REAL / memory) if m["role"] != "USER"]
    assert [comparable(m) for m in messages] == [comparable(m) for m in persisted]


@pytest.mark.parametrize("events, memory, until", PAIRS, ids=[f"{p[1]}" for p in PAIRS])
def test_replayed_tool_calls_have_the_persisted_name_arguments_and_state(events, memory, until):
    def calls(msgs):
        return [
            (b["id"], b["name"], b["input"], json.loads(b["content"]), b["state"])
            for m in msgs
            for b in m["content"]
            if b["type"] == "tool_use"
        ]

    messages, _ = replay(REAL / events, until=until)
    assert calls(messages) == calls(read_jsonl(REAL / memory))
    assert calls(messages)  # every pair has calls


def test_states_follow_the_engine():
    """after execution 'allowed' (after a confirmation and for external calls too); while
    waiting for the user 'asking', with the request's reply id in metadata until resumed."""
    states = {}
    for events, _memory, until in PAIRS:
        messages, _ = replay(REAL / events, until=until)
        for m in messages:
            for b in m["content"]:
                if b["type"] == "tool_use":
                    states[(events, until)] = (b["state"], sorted(m["metadata"]))
    assert states[("events-hitl.jsonl", 14)] == (
        "asking",
        ["_chat_usage", "agentscope_confirm_request_reply_id"],
    )
    assert states[("events-hitl.jsonl", None)] == ("allowed", ["_chat_usage"])
    assert states[("events-external.jsonl", 12)] == (
        "allowed",
        ["_chat_usage", "agentscope_external_execution_request_reply_id"],
    )
    assert states[("events-external.jsonl", None)] == ("allowed", ["_chat_usage"])


def test_a_rule_denied_call_stays_pending_and_a_declined_one_asking():
    """Hand-made cases no real run made: the permission rules deny one call of a batch
    (runToolBatch: its result is 'denied', the call keeps 'pending'); the user declines a
    call (applyConfirmResults leaves it 'asking' and stores a denial)."""
    events = FIXTURES / "events" / "agentscope-java"
    messages, _ = replay(events / "parallel-tools.jsonl")
    states = {
        b["name"]: b["state"] for m in messages for b in m["content"] if b["type"] == "tool_use"
    }
    assert states["book_table"] == "pending"
    assert set(states.values()) == {"pending", "allowed"}
    messages, _ = replay(events / "hitl.jsonl")
    calls = [b for m in messages for b in m["content"] if b["type"] == "tool_use"]
    assert sorted(b["state"] for b in calls) == ["allowed", "asking"]


def test_replay_writes_utc_or_the_zone_asked_for(run_cli, tmp_path):
    out = tmp_path / "out.jsonl"
    code, _ = run_cli("replay", str(REAL / "events.jsonl"), "-o", str(out))
    assert code == 0
    utc = [m["timestamp"] for m in read_jsonl(out)]
    # this run's JVM was on UTC: the times the engine wrote
    assert utc[0] == read_jsonl(REAL / "transcript.jsonl")[1]["timestamp"]
    shanghai = tmp_path / "sh.jsonl"
    code, _ = run_cli(
        "replay", str(REAL / "events.jsonl"), "--zone", "Asia/Shanghai", "-o", str(shanghai)
    )
    assert code == 0
    assert read_jsonl(shanghai)[0]["timestamp"] == "2026-11-24 08:59:45.203"
    code, _ = run_cli("replay", str(REAL / "events.jsonl"), "--zone", "+08:00", "-o", str(shanghai))
    assert read_jsonl(shanghai)[0]["timestamp"] == "2026-11-24 08:59:45.203"
    code, _, err = run_cli(
        "replay", str(REAL / "events.jsonl"), "--zone", "Nowhere/Atall", stderr=True
    )
    assert code == 2 and "unknown zone" in err


def test_a_paused_sessions_unanswered_call_is_not_t002(tmp_path):
    for name in ("transcript-hitl-paused.jsonl", "transcript-external-paused.jsonl"):
        run = validate_paths([REAL / name])
        assert run.files[0].findings == []
    # without the request's reply id the message no longer says why: T002
    lines = (REAL / "transcript-external-paused.jsonl").read_bytes().splitlines()
    reply = orjson.loads(lines[1])
    del reply["metadata"]["agentscope_external_execution_request_reply_id"]
    edited = tmp_path / "edited.jsonl"
    edited.write_bytes(lines[0] + b"\n" + orjson.dumps(reply) + b"\n")
    run = validate_paths([edited])
    assert [(f.line, f.code) for f in run.files[0].findings] == [(2, "T002")]


def test_the_legacy_stream_is_validated_as_what_it_is(tmp_path):
    run = validate_paths([REAL / "legacy-events.jsonl"])
    (fr,) = run.files
    assert fr.findings == [] and fr.summary.kind == "events"
    # its message is checked against the message schema: a broken one is a located error
    lines = (REAL / "legacy-events.jsonl").read_bytes().splitlines()
    event = orjson.loads(lines[5])
    event["message"]["role"] = 7
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(b"\n".join([*lines[:5], orjson.dumps(event), *lines[6:]]) + b"\n")
    run = validate_paths([broken])
    assert {(f.line, f.code[0]) for f in run.files[0].findings} == {(6, "S")}


def test_legacy_chunks_are_joined_when_no_whole_message_came(tmp_path):
    """A stream asked for chunks only (StreamOptions without the final emission): the
    reply is put together from its chunks, tool-call fragments joined per call."""
    lines = (REAL / "legacy-events.jsonl").read_bytes().splitlines()
    chunks_only = [
        line for line in lines if not (b'"REASONING"' in line and b'"isLast":true' in line)
    ]
    path = tmp_path / "chunks.jsonl"
    path.write_bytes(b"\n".join(chunks_only) + b"\n")
    messages, findings = replay(path)
    assert findings == []
    first = messages[0]
    assert [b["type"] for b in first["content"]] == ["thinking", "text", "tool_use"]
    call = first["content"][2]
    assert (call["name"], call["input"], call["state"]) == (
        "get_weather",
        {"city": "Genf"},
        "allowed",
    )


def test_the_library_takes_the_zone():
    from datetime import timedelta, timezone

    from msgcli import api

    result = api.replay(REAL / "events.jsonl", zone=timezone(timedelta(hours=8)))
    assert result.messages[0]["timestamp"] == "2026-11-24 08:59:45.203"
