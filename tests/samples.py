"""Sample records of every dialect, and the helpers the dialect tests share to read and edit them.

The hand-made samples are written from each framework's specification: a few records per
dialect, of each kind it has (messages, and events where the framework streams them). With
the bundled logs (``fixtures/real``, ``fixtures/valid/<dialect>``) they make the detection
matrix of ``test_detection.py``: each dialect claims its own records, with the right kind,
and leaves every other dialect's alone.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import orjson
from conftest import FIXTURES, document_messages

from msgcli.dialects import EVENT, MESSAGE

# -- reading and editing records -------------------------------------------------------


def log_records(path: Path) -> list[tuple[int, Any]]:
    """``(line, value)`` for every record of a log: JSONL, a JSON array or object (``.json``:
    the position in the array), or Server-Sent Events (``data: <json>`` lines); gzip or not."""
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        raw = gzip.decompress(raw)
    if path.name.endswith(".json"):
        value = orjson.loads(raw)
        if isinstance(value, dict) and "context" not in value and "memory" not in value:
            return [(1, value)]  # one record (a Claude Code subagent's .meta.json)
        return list(enumerate(document_messages(value), 1))
    sse = path.name.endswith(".sse")
    out = []
    for number, line in enumerate(raw.splitlines(), 1):
        if sse:
            if not line.startswith(b"data: "):
                continue
            line = line[len(b"data: ") :]
        if line.strip():
            out.append((number, orjson.loads(line)))
    return out


def lines(path: Path) -> list:
    """The records of a log, in order."""
    return [value for _, value in log_records(path)]


def records(paths) -> list[tuple[str, int, Any]]:
    """``(file name, line, record)`` for every record of the given logs."""
    return [(p.name, line, value) for p in paths for line, value in log_records(p)]


def ids(found) -> list[str]:
    """Test ids for :func:`records`: ``name:line``."""
    return [f"{name}:{line}" for name, line, _ in found]


def set_at(record, path, value):
    """Set the value at ``path`` (keys and indexes) in place; gives the record back."""
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return record


def drop_at(record, path):
    """Delete the value at ``path`` in place; gives the record back."""
    target = record
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return record


# -- AgentScope Java -------------------------------------------------------------------
# No recorded Java output exists: these follow the Jackson annotations, as the hand-made
# logs of fixtures/valid/agentscope-java do.

_JAVA_REPLY = {
    "id": "chatcmpl-123",
    "name": "WeatherAgent",
    "role": "ASSISTANT",
    "content": [
        {"type": "text", "text": "Let me check."},
        {
            "type": "tool_use",
            "id": "call_1",
            "name": "get_weather",
            "input": {"city": "Beijing"},
            "content": '{"city":"Beijing"}',
            "metadata": {},
            "state": "pending",
        },
    ],
    "metadata": {},
    "timestamp": "2026-08-22 23:15:56.123",
    "usage": {
        "inputTokens": 120,
        "outputTokens": 45,
        "cachedTokens": 0,
        "time": 1.5,
        "totalTokens": 165,
    },
}
_JAVA_TOOL_RESULT = {
    "id": "6f1c2a5e-8b1d-4c1e-9a7b-0f2e3d4c5b6a",
    "name": "WeatherAgent",
    "role": "TOOL",
    "content": [
        {
            "type": "tool_result",
            "id": "call_1",
            "name": "get_weather",
            "output": [{"type": "text", "text": "Beijing: 28°C"}],
            "metadata": {},
            "state": "success",
        }
    ],
    "metadata": {},
    "timestamp": "2026-08-22 23:15:57.001",
    "usage": None,
}
JAVA_MESSAGES = [
    # 2.x messages: upper-case roles, a name, "yyyy-MM-dd HH:mm:ss.SSS" timestamps
    {
        "id": "test-1",
        "name": "user",
        "role": "USER",
        "content": [{"type": "text", "text": "hello"}],
        "metadata": {},
    },
    _JAVA_REPLY,
    # the same reply with a usage that has only the three token counts
    {**_JAVA_REPLY, "usage": {"inputTokens": 120, "outputTokens": 45, "totalTokens": 165}},
    _JAVA_TOOL_RESULT,
    {**_JAVA_TOOL_RESULT, "name": None},
    # Java 1.x: six keys, a UUID id, the same timestamp form as Python 1.x
    {
        "id": "0b5d3f0e-3c1a-4d8e-9f27-6a1b2c3d4e5f",
        "name": "user",
        "role": "USER",
        "content": [{"type": "text", "text": "hi"}],
        "metadata": {},
        "timestamp": "2026-05-26 10:00:00.000",
    },
]


def java_event(kind: str, **keys) -> dict:
    body = {"type": kind, "id": "0f3a" * 8, "createdAt": "2026-08-22T15:15:55.901234Z"}
    body.update(keys)
    body["type"] = kind  # Jackson writes it again, last; a dict keeps one
    return body


JAVA_EVENTS = [
    java_event("AGENT_START", replyId="9b2c" * 8, name="WeatherAgent", role="assistant"),
    java_event("TEXT_BLOCK_DELTA", replyId="a1b2" * 8, blockId="text", delta="Let me "),
    java_event(
        "TOOL_CALL_DELTA",
        replyId="a1b2" * 8,
        toolCallId="",
        toolCallName="__fragment__",
        delta='"}',
    ),
    java_event("REQUEST_STOP", reason="permission asking", generateReason="PERMISSION_ASKING"),
    java_event("CUSTOM", name="state_updated", value={}),
    java_event("SUBAGENT_EXPOSED", subagentId="s1", agentId="a1", sessionId="x", label="sub"),
    java_event("EXCEED_MAX_ITERS", replyId="", maxIters=10, currentIter=10),
    java_event("REPLY_START", replyId="9b2c" * 8, name="A", role="assistant"),  # an alias
    {"type": "AGENT_END", "replyId": "9b2c" * 8},  # rebuilt without id/createdAt
    # events: camelCase createdAt/replyId, short ids
    java_event(
        "AGENT_START",
        id="0f3a5b6c7d8e9f000112233445566778",
        replyId="9b2c",
        name="WeatherAgent",
        role="assistant",
    ),
    java_event(
        "TEXT_BLOCK_DELTA",
        id="e3",
        createdAt="2026-08-22T15:15:56.001Z",
        replyId="a1b2",
        blockId="text",
        delta="Let me ",
    ),
    java_event(
        "TOOL_CALL_DELTA",
        id="e3",
        createdAt="2026-08-22T15:15:56.001Z",
        replyId="a1b2",
        toolCallId="call_1",
        toolCallName="__fragment__",
        delta='"Beijing"}',
    ),
    # legacy coarse events, around a whole message or a bare one
    {
        "type": "REASONING",
        "message": lines(FIXTURES / "valid" / "agentscope-java" / "hints.jsonl")[0],
        "isLast": True,
        "messageId": "x",
    },
    {"type": "REASONING", "message": {"role": "ASSISTANT"}, "isLast": True, "messageId": "m1"},
    # hook traces
    {
        "ts": 1787000000000,
        "event_type": "PRE_CALL",
        "agent_id": "a1",
        "agent_name": "Friday",
        "run_id": "r1",
        "turn_id": "t1",
        "step_id": "s1",
    },
    {"ts": 1795000000000, "event_type": "PRE_CALL", "agent_id": "a1", "agent_name": "Friday"},
]
#: the hand-made Java event log (an error only when it is validated as messages)
JAVA_EVENT_LOG = lines(FIXTURES / "events" / "agentscope-java" / "minimal-run.jsonl")
#: the Msg inside AGENT_RESULT is a message as Jackson writes it, too
JAVA_RESULT_MESSAGES = [e["result"] for e in JAVA_EVENT_LOG if "result" in e]

# -- AgentScope Python -----------------------------------------------------------------

PY2_MESSAGES = [
    # every key Msg.model_dump_json() writes
    {
        "name": "Friday",
        "content": [{"type": "text", "text": "Hi", "id": "a" * 32, "created_at": None}],
        "role": "assistant",
        "id": "b" * 32,
        "metadata": {},
        "created_at": "2026-11-22T11:54:32.303653",
        "usage": None,
        "finished_at": None,
        "finished_reason": None,
        "structured_output": None,
        "error": None,
    },
    # created_at, 32-hex ids, a name
    {
        "name": "user",
        "content": [{"type": "text", "text": "hi", "id": "1d2a6bff5a954f0984bfe4bde54de04e"}],
        "role": "user",
        "id": "8d05451a115e477e91ed86be278b185c",
        "metadata": {},
        "created_at": "2026-11-22T11:54:32.302881",
    },
]
PY1_MESSAGES = [
    # 22-char id, space-separated timestamp, string content
    {
        "id": "BTUrZiMdHqcjaSrvPzzdWS",
        "name": "user",
        "role": "user",
        "content": "Hello",
        "metadata": {},
        "timestamp": "2026-11-22 11:54:34.508",
    },
    {
        "id": "BTUrZiMdHqcjaSrvPzzdWS",
        "name": "system",
        "role": "system",
        "content": "You are Friday.",
        "metadata": {},
        "timestamp": "2026-11-22 11:54:34.508",
    },
]
PY_EVENTS = [
    # events: snake_case created_at/reply_id
    {
        "id": "c" * 32,
        "created_at": "2026-11-22T11:54:32.303031",
        "metadata": {},
        "type": "REPLY_START",
        "session_id": "d" * 32,
        "reply_id": "e" * 32,
        "name": "Friday",
        "role": "assistant",
    },
    {
        "id": "00cccfa1e5ed4e64b81143683de13803",
        "created_at": "2026-11-22T11:54:32.303031",
        "metadata": {},
        "type": "REPLY_START",
        "reply_id": "83cf2b3013784b90837f1cce3f71c1bc",
        "name": "Friday",
        "role": "assistant",
    },
    # a CUSTOM event has no reply_id
    {
        "id": "5d0c4b8a9e7f4a1b8c2d3e4f5a6b7c8d",
        "created_at": "2026-11-22T11:54:32.330001",
        "metadata": {},
        "type": "CUSTOM",
        "name": "mcp_progress",
        "value": {"progress": 0.5},
    },
]

# -- LoongFlow -------------------------------------------------------------------------

LOONGFLOW_MESSAGES = [
    {
        "id": "5fff58bd-4dfa-4247-a53e-6b43f987502e",
        "timestamp": "2026-11-22T11:52:09.563601",
        "trace_id": "",
        "conversation_id": "",
        "role": "USER",  # LoongFlow takes any role string
        "sender": "user",
        "metadata": {},
        "content": [{"type": "content", "mime_type": "text/plain", "metadata": {}, "data": "hi"}],
    },
    {  # what LoongFlow accepts, without the keys it writes
        "id": "12345678-1234-4678-9234-567812345678",
        "timestamp": "2026-01-22T10:00:00.123456",
        "role": "USER",
        "content": [{"type": "content", "mime_type": "text/plain", "data": "hi"}],
    },
    {
        "id": "f61e5a65-7793-4894-b639-0dfb8c89b14a",
        "timestamp": "2026-11-22T11:52:09.563765",
        "trace_id": "trace-20260122-0001",
        "conversation_id": "conv-7f3a9c",
        "role": "assistant",
        "sender": "reasoner",
        "metadata": {"usage": {"completion_tokens": 46, "prompt_tokens": 812, "total_tokens": 858}},
        "content": [
            {"type": "think", "metadata": {}, "content": "I should call get_weather."},
            {
                "type": "tool_call",
                "call_id": "a3cba04c-e8c9-4cc6-8c23-c4c52274e72f",
                "metadata": {"tool_arguments_err": ""},
                "target": "get_weather",
                "arguments": {"city": "Beijing"},
            },
        ],
    },
    {
        "id": "7765fc5e-8fdc-4ec9-89b6-2513fee7a36a",
        "timestamp": "2026-11-22T11:52:09.563937",
        "trace_id": "",
        "conversation_id": "",
        "role": "tool",
        "sender": "actor",
        "metadata": {},
        "content": [
            {
                "type": "tool_output",
                "call_id": "a3cba04c-e8c9-4cc6-8c23-c4c52274e72f",
                "metadata": {},
                "tool_name": "get_weather",
                "status": "success",
                "result": [
                    {
                        "type": "content",
                        "mime_type": "text/plain",
                        "metadata": {},
                        "data": "sunny",
                    }
                ],
            }
        ],
    },
    # without trace_id/sender: still a UUID id and an ISO timestamp
    {
        "id": "7765fc5e-8fdc-4ec9-89b6-2513fee7a36a",
        "timestamp": "2026-11-22T11:52:09.563937",
        "role": "user",
        "content": [{"type": "content", "mime_type": "text/plain", "metadata": {}, "data": "hi"}],
    },
]

# -- provider wire forms --------------------------------------------------------------

CHAT_MESSAGES = [
    {"role": "user", "content": "What is 2+2?"},
    {"role": "system", "content": "You are terse."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "4"},
    {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]},
    {"id": "chatcmpl-1", "object": "chat.completion", "choices": []},
]
CHAT_EVENTS = [
    {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "4"}, "finish_reason": None}],
    },
]
RESPONSES_MESSAGES = [
    {"type": "function_call", "call_id": "call_1", "name": "add", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_1", "output": "4"},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "4"}]},
    {"model": "gpt-5", "input": "What is 2+2?"},
    {"id": "resp_1", "object": "response", "output": []},
]
RESPONSES_EVENTS = [
    {"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1"}},
    {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "4"},
    {"type": "error", "code": "server_error", "message": "boom", "sequence_number": 3},
]
ANTHROPIC_MESSAGES = [
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}}],
    },
    {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "4"}],
    },
    {"system": "Be terse.", "messages": [{"role": "user", "content": "hi"}]},
    {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-x"},
]
ANTHROPIC_EVENTS = [
    {"type": "message_start", "message": {"id": "msg_1", "content": []}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "4"}},
    {"type": "ping"},
    {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
]
# -- Claude Code ---------------------------------------------------------------------------

_CC = FIXTURES / "real" / "claude-code"
#: every record type of a session file, a subagent's meta file, and a stream-json log
CLAUDE_CODE_MESSAGES = [
    *lines(_CC / "23-interactive" / "session.jsonl"),
    *lines(_CC / "19-compact" / "session.jsonl"),
    *lines(
        _CC
        / "09-subagent/projects/-tmp-cc-work-09-subagent/e53477da-f35b-4b62-8591-b926e937a2f0"
        / "subagents/agent-a9cc50b2b12bfa1ca.meta.json"
    ),
]
CLAUDE_CODE_EVENTS = lines(_CC / "17-partial-messages" / "stream.jsonl")

# -- OpenCode ------------------------------------------------------------------------------

#: the records msgcli reads out of OpenCode's database (a session, its messages with their
#: parts), as ``msgcli query`` writes them: a session with a sub-agent, a fork, a compaction
OPENCODE_MESSAGES = [
    *lines(FIXTURES / "valid" / "opencode" / "11-subagent.jsonl"),
    *lines(FIXTURES / "valid" / "opencode" / "15-fork.jsonl"),
    *lines(FIXTURES / "valid" / "opencode" / "12-compaction.jsonl"),
]

# -- Codex CLI -----------------------------------------------------------------------------

_CX = FIXTURES / "real" / "codex"
#: every record type of a rollout (a compaction, a sub-agent's and its parent's), and the
#: output of codex exec --json
CODEX_MESSAGES = [
    *lines(next((_CX / "12-compaction" / "sessions").rglob("*.jsonl"))),
    *(r for p in sorted((_CX / "16-subagent" / "sessions").rglob("*.jsonl")) for r in lines(p)),
]
CODEX_EVENTS = [
    *lines(_CX / "04-write-edit-read" / "stdout.jsonl"),
    *lines(_CX / "16-subagent" / "stdout.jsonl"),
]

# -- Gemini CLI ----------------------------------------------------------------------------

_GC = FIXTURES / "real" / "gemini-cli"
#: every record kind of a session file (header, messages, $set), a sub-agent's file, a
#: resumed session (a header again, the rewritten history), the older single JSON document
#: and a stream-json log
GEMINI_CLI_MESSAGES = [
    *lines(_GC / "13-subagent/tmp/work/chats/session-2026-12-07T15-18-0feddf7b.jsonl"),
    *lines(
        _GC
        / "13-subagent/tmp/work/chats/0feddf7b-aa6f-4032-a683-4e5ae324fd0e"
        / "c584e42e-35b6-45f5-b0d3-05d22f297475.jsonl"
    ),
    *lines(_GC / "08-resume/tmp/work/chats/session-2026-12-07T15-16-826cf29c.jsonl"),
    {"$rewindTo": "9a5f51bf-ad19-465a-8854-163169bfff54"},
]
GEMINI_CLI_EVENTS = [
    *lines(_GC / "14-policy-deny" / "stdout.jsonl"),
    *lines(_GC / "13-subagent" / "stdout.jsonl"),
]

# -- no dialect's ------------------------------------------------------------------------

#: AG-UI protocol events (camelCase like Java's): the form AgentScope Python's service
#: publishes its events in, read as AgentScope Python events
AGUI_EVENTS = [
    {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
    {"type": "TOOL_CALL_START", "toolCallId": "call_1", "toolCallName": "get_weather"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
    {"type": "RUN_STARTED", "threadId": "ad5e2adb", "runId": "83cf2b30"},
    {"type": "TEXT_MESSAGE_START", "messageId": "76d85a52", "role": "assistant"},
]
#: JSON values that are no record at all
NON_RECORDS = [None, 3, "text", [], [{"role": "USER"}], [{"role": "user"}], {}]

# -- the detection matrix ----------------------------------------------------------------

#: dialect -> kind -> the samples that dialect must claim as that kind (and no other dialect)
#: OTLP export records: traces (as the file exporter writes a line), log records, a bare
#: ResourceSpans
_OTEL_SPAN = {
    "traceId": "0af7651916cd43dd8448eb211c80319c",
    "spanId": "00f067aa0ba902b7",
    "name": "chat gpt-4o-mini",
    "kind": 3,
    "startTimeUnixNano": "1796656679468850000",
    "endTimeUnixNano": "1796656679611575000",
    "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}],
    "status": {},
}
OTEL_MESSAGES = [
    {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [_OTEL_SPAN]}]}]},
    {
        "resourceLogs": [
            {
                "scopeLogs": [
                    {
                        "logRecords": [
                            {
                                "eventName": "gen_ai.user.message",
                                "body": {"kvlistValue": {"values": []}},
                            }
                        ]
                    }
                ]
            }
        ]
    },
    {"resource": {}, "scopeSpans": [{"scope": {"name": "x"}, "spans": [_OTEL_SPAN]}]},
]

#: ATIF: a trajectory on one line (a line of a JSONL file of trajectories), and a step
#: as the reader makes a record of it (its place in the document noted under msgcli_atif)
ATIF_RECORDS = [
    {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "claude-code", "version": "2.1.197"},
        "steps": [{"step_id": 1, "source": "user", "message": "hi"}],
    },
    {"schema_version": "ATIF-v1.2", "session_id": "s", "agent": {"name": "a", "version": "1"}},
    {
        "step_id": 1,
        "source": "user",
        "message": "hi",
        "msgcli_atif": {"kind": "step", "at": "/steps/0", "depth": 0},
    },
]

DIALECT_SAMPLES: dict[str, dict[str, list]] = {
    "agentscope-java": {
        MESSAGE: [*JAVA_MESSAGES, *JAVA_RESULT_MESSAGES],
        EVENT: [*JAVA_EVENTS, *JAVA_EVENT_LOG],
    },
    "agentscope-py": {
        MESSAGE: [*PY2_MESSAGES, *PY1_MESSAGES],
        EVENT: [*PY_EVENTS, *AGUI_EVENTS],
    },
    "loongflow": {MESSAGE: LOONGFLOW_MESSAGES, EVENT: []},
    "openai-chat": {MESSAGE: CHAT_MESSAGES, EVENT: CHAT_EVENTS},
    "openai-responses": {MESSAGE: RESPONSES_MESSAGES, EVENT: RESPONSES_EVENTS},
    "anthropic": {MESSAGE: ANTHROPIC_MESSAGES, EVENT: ANTHROPIC_EVENTS},
    "claude-code": {MESSAGE: CLAUDE_CODE_MESSAGES, EVENT: CLAUDE_CODE_EVENTS},
    "opencode": {MESSAGE: OPENCODE_MESSAGES, EVENT: []},
    "codex": {MESSAGE: CODEX_MESSAGES, EVENT: CODEX_EVENTS},
    "gemini-cli": {MESSAGE: GEMINI_CLI_MESSAGES, EVENT: GEMINI_CLI_EVENTS},
    "otel": {MESSAGE: OTEL_MESSAGES, EVENT: []},
    "atif": {MESSAGE: ATIF_RECORDS, EVENT: []},
}
#: records no dialect may claim
UNCLAIMED = [*NON_RECORDS]

#: the bundled logs that hold events; every other log under fixtures/real and
#: fixtures/valid/<dialect> holds messages
EVENT_LOGS = {
    "real/agentscope-py/events.jsonl",
    "real/agentscope-py/events-data.jsonl",
    "real/agentscope-py/events.sse",
    "real/openai-chat/events.jsonl",
    "real/openai-responses/events.jsonl",
    "real/anthropic/events.jsonl",
    "real/anthropic/events.sse",
    "real/agentscope-py/agui/weather-events.jsonl",
    "real/agentscope-py/agui/weather-agui-events.jsonl",
    "real/agentscope-py/structured/structured-events.jsonl",
    "real/agentscope-py/structured/structured-agui-events.jsonl",
    "real/agentscope-java/events.jsonl",
    "real/agentscope-java/events-hitl.jsonl",
    "real/agentscope-java/events-external.jsonl",
    "real/agentscope-java/legacy-events.jsonl",
}


#: the real AgentScope Python runs: native events and their AG-UI form
EVENT_LOGS |= {
    f"real/agentscope-py/runs/{p.name}"
    for p in (FIXTURES / "real" / "agentscope-py" / "runs").glob("*events.jsonl")
}
#: ... and the same event logs as the service's SSE bodies (native and AG-UI)
EVENT_LOGS |= {
    f"real/agentscope-py/runs/{p.name}"
    for p in (FIXTURES / "real" / "agentscope-py" / "runs").glob("*events.sse")
}


def log_dialect_and_kind(path: Path) -> tuple[str, str]:
    """The dialect (the folder under ``real/`` or ``valid/``) and the kind of a bundled log."""
    where = path.relative_to(FIXTURES)
    stream_json = (where.parts[1] == "claude-code" and where.name == "stream.jsonl") or (
        where.parts[1] in ("codex", "gemini-cli") and where.name.startswith("stdout")
    )
    kind = EVENT if where.as_posix() in EVENT_LOGS or stream_json else MESSAGE
    return where.parts[1], kind
