"""What is merely new is never an error, in the logs of a tolerant producer (Claude Code,
OpenAI Chat Completions, OpenAI Responses, Anthropic Messages: ``Dialect.tolerant``).

Into every real JSONL log of those producers (sessions, stream-json logs, provider streams,
conversations, fine-tuning files), records, fields, content blocks, stream events and delta
types that no release has written are put: ``validate``'s exit status and its findings other
than info, ``replay``'s messages (their bytes) and ``stats``' token totals stay what they are
without them, and each invented thing is an info finding on its own line. The places are
chosen once for every file (the middle of each kind of record), and by Hypothesis on top.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import orjson
import pytest
from conftest import FIXTURES, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from msgcli import api
from msgcli.dialects import DIALECTS
from msgcli.replayers import MARK_KEY

#: the folders that hold the real logs of tolerant producers
_ROOTS = (
    FIXTURES / "real" / "claude-code",
    FIXTURES / "real" / "anthropic",
    FIXTURES / "real" / "openai-chat",
    FIXTURES / "real" / "openai-responses",
    FIXTURES / "provider-streams",
    FIXTURES / "newer",
)
LOGS = sorted(p for root in _ROOTS for p in root.rglob("*.jsonl"))
TOLERANT = {name for name, d in DIALECTS.items() if d.tolerant}

#: invented names: no release writes them (and no other dialect claims them)
NEW_TYPE = "x-invented-record"
NEW_FIELD = "xInventedField"
NEW_BLOCK = "x_invented_block"
NEW_EVENT = "x_invented_event"
NEW_DELTA = "x_invented_delta"


def test_the_tolerant_dialects():
    # the producers whose readers skip what they do not know, and only they
    assert {"claude-code", "anthropic", "openai-chat", "openai-responses"} <= TOLERANT
    assert not TOLERANT & {"agentscope-py", "agentscope-java", "loongflow"}
    assert len(LOGS) > 150


# -- what the commands say of a log ---------------------------------------------------------


def _outcome(path: Path, moved: list[int]) -> dict:
    """What must not change: the exit status, the findings other than info (at the line they
    had before the records were put in: ``moved`` are the new lines), the messages replay
    writes, and the token totals of stats."""

    def back(line: int) -> int:
        return line - sum(1 for m in moved if m <= line)

    report = api.validate_one(str(path))
    kept = sorted(
        (back(f["line"]), f["code"], f["pointer"])
        for f in report["findings"]
        if f["severity"] != "info"
    )
    infos = [(f["line"], f["code"]) for f in report["findings"] if f["severity"] == "info"]
    result = api.replay(str(path))
    messages = []
    for message in result.messages:
        mark = message.get(MARK_KEY)
        if isinstance(mark, dict):  # (a cut response says where: lines before the new ones)
            message = {**message, MARK_KEY: {**mark, "line": back(mark["line"])}}
            message[MARK_KEY]["from"] = back(mark["from"])
        messages.append(orjson.dumps(message, option=orjson.OPT_SORT_KEYS))
    stats = api.stats_one(str(path))
    return {
        "failed": report["failed"],
        "dialect": report["summary"]["dialect"],
        "findings": kept,
        "messages": messages,
        "tokens": stats.get("tokens"),
        "infos": infos,
    }


def _same(before: dict, after: dict) -> None:
    for key in ("failed", "dialect", "findings", "messages", "tokens"):
        assert after[key] == before[key], key


# -- the invented things --------------------------------------------------------------------


def _lines(path: Path) -> list[bytes]:
    lines = path.read_bytes().split(b"\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _parsed(line: bytes):
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _dump(value: dict) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


def _kind(records: list) -> str:
    """Which family of log the records are (their first record tells)."""
    first = next((r for r in records if r is not None), {})
    if "sessionId" in first or first.get("type") in ("queue-operation", "summary"):
        return "session"
    if "session_id" in first:
        return "stream-json"
    for r in records:
        if r is None:
            continue
        if r.get("object") == "chat.completion.chunk":
            return "chat-events"
        if isinstance(r.get("type"), str) and r["type"].startswith("response."):
            return "responses-events"
        if r.get("type") in ("message_start", "content_block_start"):
            return "anthropic-events"
    return "conversations"


def inventions(records: list, at: int, family: str) -> list[tuple[str, int, list, dict]]:
    """What a newer release might write, put in at or after record ``at`` (0-based), each as
    ``(what, index to insert before, [new records], {index: replaced record})``; a record
    with a new field or block replaces its original in place."""
    n = len(records)
    out: list[tuple[str, int, list, dict]] = []
    at = min(max(at, 1), n)  # (the first record settles the file's dialect: it stays)
    # a record of a kind no release wrote, without any envelope (Claude Code 2.1.331's
    # file-history-delta is one)
    bare = {
        "type": NEW_TYPE,
        "messageId": str(uuid.UUID(int=at)),
        "trackingPath": "/tmp/x",
        "backup": {"backupFileName": None, "version": 1},
        "timestamp": "2026-12-07T00:00:00.000Z",
    }
    out.append(("record", at, [bare], {}))
    out.append(("record without a type", at, [{NEW_FIELD: 1, "nested": {"a": [1, 2]}}], {}))
    for i in _places(at, n):
        record = records[i]
        if record is not None:
            break
    else:
        return out
    if family == "session":
        session = next((r["sessionId"] for r in records if r and "sessionId" in r), "s")
        out.append(
            (
                "record with the envelope",
                at,
                [
                    {
                        "type": NEW_TYPE,
                        "uuid": str(uuid.UUID(int=at + 7)),
                        "sessionId": session,
                        "isSidechain": False,
                        "timestamp": "2026-12-07T00:00:00.000Z",
                        "payload": {"a": 1},
                    }
                ],
                {},
            )
        )
        for i in _places(at, n):
            r = records[i]
            if r and r.get("type") in ("user", "assistant", "system", "attachment"):
                out.append(("field", i, [], {i: {**r, NEW_FIELD: {"a": 1}}}))
                break
        for i in _places(at, n):
            r = records[i]
            message = r.get("message") if r and r.get("type") == "assistant" else None
            if isinstance(message, dict) and isinstance(message.get("content"), list):
                block = {"type": NEW_BLOCK, "data": "x"}
                changed = {**r, "message": {**message, "content": [*message["content"], block]}}
                out.append(("block", i, [], {i: changed}))
                break
        for i in _places(at, n):
            r = records[i]
            if r and r.get("type") == "system" and isinstance(r.get("subtype"), str):
                out.append(("system subtype", i, [], {i: {**r, "subtype": "x_invented"}}))
                break
    elif family == "stream-json":
        sid = next((r["session_id"] for r in records if r and "session_id" in r), "s")
        out.append(("record with the envelope", at, [{"type": NEW_TYPE, "session_id": sid}], {}))
        for i in _places(at, n):
            r = records[i]
            if r and r.get("type") in ("system", "result", "stream_event"):
                out.append(("field", i, [], {i: {**r, NEW_FIELD: {"a": 1}}}))
                break
        for i in _places(at, n):
            r = records[i]
            if r and r.get("type") == "stream_event":
                event = {"type": "stream_event", "session_id": sid, "event": {"type": NEW_EVENT}}
                if "parent_tool_use_id" in r:
                    event["parent_tool_use_id"] = r["parent_tool_use_id"]
                out.append(("event", i, [event], {}))
                break
        for i in _places(at, n):
            r = records[i]
            inner = r.get("event") if r and r.get("type") == "stream_event" else None
            if isinstance(inner, dict) and inner.get("type") == "content_block_start":
                delta = {
                    **r,
                    "event": {
                        "type": "content_block_delta",
                        "index": inner.get("index"),
                        "delta": {"type": NEW_DELTA, "x": "y"},
                    },
                }
                out.append(("delta", i + 1, [delta], {}))
                break
    elif family == "anthropic-events":
        out.append(("event", at, [{"type": NEW_EVENT, "index": 0, "x": {"a": 1}}], {}))
        for i in _places(at, n):
            r = records[i]
            if r and r.get("type") in ("content_block_delta", "message_delta", "ping"):
                out.append(("field", i, [], {i: {**r, NEW_FIELD: 1}}))
                break
        for i in _places(at, n):
            r = records[i]
            if r and r.get("type") == "content_block_start":
                delta = {
                    "type": "content_block_delta",
                    "index": r.get("index"),
                    "delta": {"type": NEW_DELTA, "x": "y"},
                }
                out.append(("delta", i + 1, [delta], {}))
                break
    elif family == "responses-events":
        out.append(("event", at, [{"type": "response." + NEW_EVENT, "sequence_number": 0}], {}))
        out.append(("event", at, [{"type": NEW_EVENT}], {}))
        for i in _places(at, n):
            r = records[i]
            if r and isinstance(r.get("type"), str) and r["type"].endswith(".delta"):
                out.append(("field", i, [], {i: {**r, NEW_FIELD: 1}}))
                out.append(
                    ("delta", i + 1, [{**r, "type": "response.output_text." + NEW_DELTA}], {})
                )
                break
    elif family == "chat-events":
        out.append(("event", at, [{"object": "chat.completion." + NEW_EVENT, "id": "x"}], {}))
        for i in _places(at, n):
            r = records[i]
            previous = records[i - 1] if i > 0 else None
            if (
                r
                and r.get("object") == "chat.completion.chunk"
                and previous
                and previous.get("id") == r.get("id")
            ):
                out.append(("field", i, [], {i: {**r, NEW_FIELD: 1}}))
                break
    else:  # conversations, fine-tuning lines, messages
        for i in _places(at, n):
            r = records[i]
            changed = _new_in_conversation(r)
            if changed is not None:
                out.append(("field and block", i, [], {i: changed}))
                break
    return out


def _places(at: int, n: int) -> list[int]:
    """The records from ``at`` on, then those before it (the first one, which settles the
    file's dialect, left as it is)."""
    return [*range(at, n), *range(1, min(at, n))]


def _new_in_conversation(record: dict | None) -> dict | None:
    """A conversation record with a new field on one message and a new block at the end of
    its content (where it is a list)."""
    if record is None:
        return None
    copy = orjson.loads(orjson.dumps(record))
    for key in ("messages", "input", "output"):
        items = copy.get(key)
        if not isinstance(items, list):
            continue
        messages = [m for m in items if isinstance(m, dict) and "content" in m]
        if not messages:
            continue
        messages[0][NEW_FIELD] = {"a": 1}
        for message in messages:
            if isinstance(message["content"], list):
                message["content"].append({"type": NEW_BLOCK, "data": "x"})
                break
        return copy
    return None


def _put(lines: list[bytes], what: tuple) -> tuple[list[bytes], list[int]]:
    """The log's lines with an invention put in, and the (1-based) lines that are new."""
    _, before, added, replaced = what
    out = list(lines)
    for i, record in replaced.items():
        out[i] = _dump(record)
    out[before:before] = [_dump(r) for r in added]
    return out, list(range(before + 1, before + 1 + len(added)))


def _write(tmp: Path, path: Path, lines: list[bytes]) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    # (a subagent's file keeps its name: the checks across files read it)
    target = tmp / path.name
    target.write_bytes(b"\n".join(lines) + b"\n")
    return target


_BASE: dict[Path, dict] = {}


def _base(path: Path) -> dict:
    if path not in _BASE:
        _BASE[path] = _outcome(path, [])
    return _BASE[path]


def _check(path: Path, tmp: Path, at: int, only: str | None = None) -> int:
    before = _base(path)
    if before["dialect"] not in TOLERANT:
        return 0
    lines = _lines(path)
    records = [_parsed(line) for line in lines]
    done = 0
    for what in inventions(records, at, _kind(records)):
        if only is not None and what[0] != only:
            continue
        changed, moved = _put(lines, what)
        target = _write(tmp / f"{what[0].replace(' ', '-')}-{at}", path, changed)
        after = _outcome(target, moved)
        try:
            _same(before, after)
            # each invention is said, as an info finding, on its own line
            lines_said = {line for line, _ in after["infos"]}
            for line in moved or [i + 1 for i in what[3]]:
                assert line in lines_said, (line, after["infos"])
        except AssertionError as exc:
            raise AssertionError(f"{path} with a new {what[0]} at {what[1]}: {exc}") from exc
        done += 1
    return done


@pytest.mark.parametrize("path", LOGS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_new_things_in_every_real_log(path, tmp_path):
    records = [_parsed(line) for line in _lines(path)]
    assert _check(path, tmp_path, len(records) // 2) or _base(path)["dialect"] not in TOLERANT


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_new_things_where_hypothesis_puts_them(data, tmp_path_factory):
    path = data.draw(st.sampled_from(LOGS), label="log")
    count = len(_lines(path))
    at = data.draw(st.integers(min_value=1, max_value=max(count, 1)), label="at")
    _check(path, tmp_path_factory.mktemp("new"), at)


# -- done when: the two cases the issue names -------------------------------------------------


def test_a_session_with_records_no_release_wrote_validates(tmp_path):
    """A Claude Code session with records of a kind no release has written yet (one like
    2.1.331's file-history-delta: no uuid, no sessionId; one with the envelope; one with no
    type at all) validates with exit status 0, each an info finding on its line, and reads
    as before in every command (the records shown with show --all only)."""
    from typer.testing import CliRunner

    from msgcli.cli.app import app

    source = FIXTURES / "real" / "claude-code" / "02-bash-ls" / "session.jsonl"
    lines = _lines(source)
    new = [
        {
            "type": "file-history-delta",
            "messageId": "8b427c92-22b4-4487-a75f-7862b3aa5749",
            "trackingPath": "/work/notes.txt",
            "backup": {"backupFileName": "abc@v2", "version": 2},
            "timestamp": "2026-11-25T01:26:02.000Z",
        },
        {
            "type": "session-digest",
            "uuid": "0f6f1c9e-0000-4000-8000-000000000001",
            "sessionId": json.loads(lines[2])["sessionId"],
            "timestamp": "2026-11-25T01:26:02.000Z",
        },
        {"checkpoint": 3},
    ]
    lines[3:3] = [_dump(r) for r in new]
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    runner = CliRunner()
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    report = api.validate_one(str(path))
    said = {(f["line"], f["code"], f["severity"]) for f in report["findings"]}
    assert {(4, "K001", "info"), (5, "K001", "info"), (6, "K001", "info")} <= said
    assert not [f for f in report["findings"] if f["severity"] != "info"]
    # kept, counted and shown; the tokens as without them
    assert api.stats_one(str(path))["tokens"] == api.stats_one(str(source))["tokens"]
    shown = runner.invoke(app, ["show", "--all", str(path)]).output
    assert "FILE-HISTORY-DELTA" in shown and "SESSION-DIGEST" in shown and "checkpoint" in shown
    assert "FILE-HISTORY-DELTA" not in runner.invoke(app, ["show", str(path)]).output
    converted = runner.invoke(app, ["convert", "--to", "openai-chat", str(path)])
    assert converted.exit_code == 0, converted.output


@pytest.mark.parametrize(
    "source",
    [
        FIXTURES / "real" / "anthropic" / "events.jsonl",
        FIXTURES / "provider-streams" / "anthropic-messages" / "thinking" / "events.jsonl",
        FIXTURES / "real" / "openai-responses" / "events.jsonl",
        FIXTURES / "provider-streams" / "openai-responses" / "reasoning" / "events.jsonl",
    ],
    ids=lambda p: str(p.relative_to(FIXTURES)),
)
def test_a_stream_with_a_new_event_or_delta_type_replays_the_same(source, tmp_path):
    """An Anthropic or OpenAI Responses stream with an event type and a delta type the API
    added later replays to the same message (byte for byte) with exit status 0, as the SDK
    skips both; each is an info finding (U004, U005)."""
    from typer.testing import CliRunner

    from msgcli.cli.app import app

    lines = _lines(source)
    records = [_parsed(line) for line in lines]
    if records[0].get("type") == "message_start":
        start = next(i for i, r in enumerate(records) if r["type"] == "content_block_start")
        added = [
            (
                start + 1,
                {
                    "type": "content_block_delta",
                    "index": records[start]["index"],
                    "delta": {"type": "audio_delta", "audio": "AAAA"},
                },
            ),
            (1, {"type": "content_block_annotation", "index": 0, "note": {"a": 1}}),
        ]
    else:
        delta = next(i for i, r in enumerate(records) if r["type"].endswith(".delta"))
        added = [
            (delta + 1, {**records[delta], "type": "response.output_audio_transcript.delta"}),
            (1, {"type": "response.annotation.added", "sequence_number": 2, "x": 1}),
        ]
    changed = list(lines)
    for index, record in added:  # (the later place first)
        changed.insert(index, _dump(record))
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"\n".join(changed) + b"\n")
    runner = CliRunner()
    out_before = tmp_path / "before.jsonl"
    out_after = tmp_path / "after.jsonl"
    first = runner.invoke(app, ["replay", str(source), "-o", str(out_before)])
    second = runner.invoke(app, ["replay", str(path), "-o", str(out_after)])
    assert first.exit_code == 0, first.output
    assert second.exit_code == 0, second.output
    assert out_after.read_bytes() == out_before.read_bytes()
    report = api.validate_one(str(path))
    infos = {(f["line"], f["code"]) for f in report["findings"] if f["severity"] == "info"}
    assert {f["code"] for f in report["findings"]} <= {"U004", "U005"}
    assert len(infos) == 2 and {code for _, code in infos} <= {"U004", "U005"}


def test_a_record_of_another_dialect_is_still_d002(tmp_path):
    """Tolerance is for what no dialect knows: a record another dialect claims stays D002."""
    source = FIXTURES / "real" / "anthropic" / "events.jsonl"
    lines = _lines(source)
    lines.insert(3, _dump({"type": "response.output_text.delta", "delta": "x", "item_id": "i"}))
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    report = api.validate_one(str(path))
    assert report["failed"]
    assert [(f["line"], f["code"]) for f in report["findings"]] == [(4, "D002")]


def test_a_strict_producer_keeps_its_errors(tmp_path):
    """AgentScope's and LoongFlow's own readers (pydantic models) reject what they do not
    know: there a record of no known dialect is still D001."""
    source = FIXTURES / "real" / "agentscope-py" / "transcript.jsonl"
    lines = _lines(source)
    lines.insert(1, _dump({"type": NEW_TYPE, NEW_FIELD: 1}))
    path = tmp_path / "transcript.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    report = api.validate_one(str(path))
    assert report["failed"]
    assert ("D001", 2) in {(f["code"], f["line"]) for f in report["findings"]}


def test_a_new_block_type_in_a_stream_is_kept_as_the_sdk_keeps_it(tmp_path):
    """A content block of a type the API added later, streamed: the Anthropic SDK's
    accumulator appends it to the message as it came, and so does replay (an info finding,
    U003, exit status 0); the blocks before it are rebuilt as without it."""
    anthropic_streaming = pytest.importorskip("anthropic.lib.streaming._messages")
    source = FIXTURES / "real" / "anthropic" / "events.jsonl"
    records = [orjson.loads(line) for line in _lines(source)]
    stop = next(i for i, r in enumerate(records) if r["type"] == "message_delta")
    count = sum(1 for r in records if r["type"] == "content_block_start")
    new = {"type": "x_invented_block", "payload": {"a": 1}}
    records[stop:stop] = [
        {"type": "content_block_start", "index": count, "content_block": new},
        {"type": "content_block_stop", "index": count},
    ]
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    before = api.replay(str(source)).messages
    result = api.replay(str(path))
    (message,) = result.messages
    assert message["content"][:-1] == before[0]["content"]
    assert message["content"][-1] == new
    assert [f.code for f in result.report.findings()] == ["U003"]
    assert result.report.exit_code == 0
    # the SDK's own accumulator, fed the same events
    snapshot = None
    buffers: dict = {}
    for event in records:
        snapshot = anthropic_streaming.accumulate_event(
            event=event, current_snapshot=snapshot, json_bufs=buffers
        )
    assert snapshot is not None
    assert [b.type for b in snapshot.content] == [b["type"] for b in message["content"]]
