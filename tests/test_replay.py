"""``msgcli replay``: messages rebuilt from event logs, compared with what the framework built.

The comparison rule (the framework stamps some fields with the wall clock while it
rebuilds, and draws some ids at random, so a replay cannot reproduce them):

- AgentScope Python: identical except the ``created_at`` of the message and of every
  block (nested ones included), the ``finished_at`` of hint blocks, and the ``id`` of
  text blocks nested inside a ``tool_result``'s output.
- AgentScope Java: identical except the message ``id`` (the provider's response id)
  and ``timestamp`` (the engine's clock), which the events do not carry.
"""

from __future__ import annotations

import gzip
import io
import json

import orjson
import pytest
from conftest import FIXTURES, read_expect

from msgcli.pipeline import Options, validate_paths
from msgcli.replayers import MARK_KEY
from msgcli.rules import RULES

REAL = FIXTURES / "real" / "agentscope-py"
PY_EVENTS = FIXTURES / "events" / "agentscope-py"
JAVA_EVENTS = FIXTURES / "events" / "agentscope-java"


def replay(path, **options):
    """``(messages, findings, file summary)`` of replaying one log through the library."""
    messages: list[dict] = []
    run = validate_paths([path], Options(**options), sink=lambda p, line, m: messages.append(m))
    (fr,) = run.files
    return messages, fr.findings, fr.summary


def python_view(msg: dict) -> dict:
    """A Python message without what the framework stamps while it rebuilds."""
    msg = json.loads(json.dumps(msg))
    msg.pop("created_at", None)
    for block in msg["content"]:
        block.pop("created_at", None)
        if block["type"] == "hint":
            block.pop("finished_at", None)
        if block["type"] == "tool_result" and isinstance(block["output"], list):
            for inner in block["output"]:
                inner.pop("created_at", None)
                if inner["type"] == "text":
                    inner.pop("id", None)
    return msg


def java_view(msg: dict) -> dict:
    return {k: v for k, v in msg.items() if k not in ("id", "timestamp")}


def read_jsonl(path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def with_final(folder, suffix):
    if not folder.is_dir():
        return []
    return sorted(
        p
        for p in folder.glob("*.jsonl")
        if not p.name.endswith(suffix) and p.with_name(p.stem + suffix).is_file()
    )


REAL_PAIRS = [
    (REAL / "events.jsonl", REAL / "events-final.jsonl"),
    (REAL / "events.sse", REAL / "events-final.jsonl"),
    (REAL / "events-data.jsonl", REAL / "events-data-final.jsonl"),
] + [
    # more real runs: each reply's native events and the message the framework rebuilt
    (p, p.with_name(p.name.replace("-events.jsonl", "-final.jsonl")))
    for folder in ("agui", "structured", "runs")
    for p in sorted((REAL / folder).glob("*-events.jsonl"))
    if not p.name.endswith("-agui-events.jsonl")
    and p.with_name(p.name.replace("-events.jsonl", "-final.jsonl")).is_file()
]
REAL_PAIRS += [
    # the same native events as the service's SSE body sends them
    (p, p.with_name(p.name.replace("-events.sse", "-final.jsonl")))
    for p in sorted((REAL / "runs").glob("*-events.sse"))
    if not p.name.endswith("-agui-events.sse")
]


@pytest.mark.parametrize("events, final", REAL_PAIRS, ids=[p[0].name for p in REAL_PAIRS])
def test_real_python_logs_replay_to_the_message_the_framework_built(events, final):
    messages, findings, summary = replay(events)
    assert [f"{f.line}: {f.code} {f.message}" for f in findings] == []
    expected = read_jsonl(final)
    assert [python_view(m) for m in messages] == [python_view(m) for m in expected]
    # key order too: the replay writes the message as the framework does
    assert [list(m) for m in messages] == [list(m) for m in expected]
    assert summary.replay.completed == len(expected)


PY_SCENARIOS = with_final(PY_EVENTS, "-final.jsonl")


@pytest.mark.parametrize("events", PY_SCENARIOS, ids=[p.name for p in PY_SCENARIOS])
def test_python_scenarios_replay_to_what_the_framework_built(events):
    messages, findings, _ = replay(events)
    final = events.with_name(events.stem + "-final.jsonl")
    assert [f"{f.line}: {f.code} {f.message}" for f in findings] == []
    assert [python_view(m) for m in messages] == [python_view(m) for m in read_jsonl(final)]


JAVA_SCENARIOS = with_final(JAVA_EVENTS, "-expected.jsonl")


def java_persisted(events):
    """The messages as the engine's memory holds them at the end of the log (its in-place
    edits of tool-call states and pause metadata done), where they differ from the
    messages as first written."""
    persisted = events.with_name(events.stem + "-persisted.jsonl")
    return persisted if persisted.is_file() else events.with_name(events.stem + "-expected.jsonl")


@pytest.mark.parametrize("events", JAVA_SCENARIOS, ids=[p.name for p in JAVA_SCENARIOS])
def test_java_scenarios_replay_to_what_the_engine_persists(events):
    """What the engine persists; and for a run that failed mid-stream, also the model call
    it was in, which the engine drops and the replay keeps, marked 'cut', with an E007."""
    messages, findings, _ = replay(events)
    expected = java_persisted(events)
    kept = [m for m in messages if MARK_KEY not in m["metadata"]]
    assert [java_view(m) for m in kept] == [java_view(m) for m in read_jsonl(expected)]
    sidecar = events.with_name(events.stem + ".expect")
    expected_codes = sorted(c for _, c in read_expect(sidecar)) if sidecar.is_file() else []
    assert sorted(f.code for f in findings) == expected_codes
    if len(kept) < len(messages):
        assert "E007" in expected_codes


#: every event log with the messages its framework built (or would persist) from it
ALL_PAIRS = (
    REAL_PAIRS
    + [(p, p.with_name(p.stem + "-final.jsonl")) for p in PY_SCENARIOS]
    + [(p, java_persisted(p)) for p in JAVA_SCENARIOS]
)


def _validate_findings(path):
    run = validate_paths([path])
    return sorted((f.line, f.code) for f in run.files[0].findings)


@pytest.mark.parametrize("events, known", ALL_PAIRS, ids=[p[0].name for p in ALL_PAIRS])
def test_replayed_messages_pass_validate(events, known, run_cli, tmp_path):
    """The replay's output is a message log validate accepts: no error, and no warning
    that the framework's own rebuilt messages do not get too."""
    out = tmp_path / "out.jsonl"
    code, _ = run_cli("replay", str(events), "-o", str(out))
    assert code in (0, 1)  # 1: a stream that breaks off (E007), see its .expect sidecar
    got = _validate_findings(out)
    assert not [code for _, code in got if RULES[code].severity.value == "error"]
    assert got == _validate_findings(known)


# -- the command ---------------------------------------------------------------


def test_replay_writes_jsonl_to_stdout_and_reports_on_stderr(run_cli):
    code, out, err = run_cli("replay", str(REAL / "events.jsonl"), stderr=True)
    assert code == 0
    msg = json.loads(out)  # one message, nothing else on stdout
    assert "33 records: 0 errors, 0 warnings" in err
    assert msg["id"] == "83cf2b3013784b90837f1cce3f71c1bc"  # the reply id of the events
    assert msg["finished_reason"] == "completed"


def test_gzip_stdin_and_sse_give_the_same_messages(tmp_path):
    plain, _, _ = replay(REAL / "events.jsonl")
    packed = tmp_path / "events.jsonl.gz"
    packed.write_bytes(gzip.compress((REAL / "events.jsonl").read_bytes()))
    zipped, _, _ = replay(packed)
    sse, _, _ = replay(REAL / "events.sse")
    got: list[dict] = []
    stream = io.BytesIO((REAL / "events.jsonl").read_bytes())
    validate_paths([], Options(), streams=[stream], sink=lambda p, n, m: got.append(m))
    assert plain == zipped == sse == got


def test_a_message_log_has_nothing_to_replay(run_cli):
    code, out, err = run_cli("replay", str(REAL / "transcript.jsonl"), stderr=True)
    assert code == 2
    assert out == ""
    assert "is a message log, not an event log" in err


def test_a_log_cut_mid_reply_keeps_every_delta_and_says_where_it_stopped(tmp_path):
    lines = (REAL / "events.jsonl").read_bytes().splitlines(keepends=True)
    # stop inside the tool call's arguments
    cut_at = next(i for i, x in enumerate(lines, 1) if b'"TOOL_CALL_DELTA"' in x)
    log = tmp_path / "cut.jsonl"
    log.write_bytes(b"".join(lines[:cut_at]))
    (msg,), findings, summary = replay(log)
    assert [(f.line, f.code) for f in findings] == [(cut_at, "E007")]
    assert "tool call call_7268933a41f141eeb6bf7a90" in findings[0].message
    # everything that arrived is there: the thinking, the text, the start of the arguments
    call = next(b for b in msg["content"] if b["type"] == "tool_call")
    assert call["input"] == '{"city": '
    assert call["finished_at"] is None
    assert msg["finished_reason"] is None
    assert msg["metadata"][MARK_KEY]["state"] == "cut"
    assert summary.replay.cut == 1


def test_until_an_event_count_or_id_gives_the_state_at_that_point(tmp_path):
    events = read_jsonl(REAL / "events.jsonl")
    (full,), _, _ = replay(REAL / "events.jsonl")
    (at_ten,), findings, _ = replay(REAL / "events.jsonl", until=10)
    assert findings == []  # stopping on purpose is no broken stream
    assert at_ten["metadata"][MARK_KEY]["state"] == "open"
    assert len(at_ten["content"]) < len(full["content"])
    (by_id,), _, _ = replay(REAL / "events.jsonl", until=events[9]["id"])
    assert by_id == at_ten


def test_until_an_unknown_id_is_a_usage_error(run_cli):
    code, out, err = run_cli("replay", "--until", "nope", str(REAL / "events.jsonl"), stderr=True)
    assert code == 2
    assert "no event with id 'nope'" in err
    assert json.loads(out)["finished_reason"] == "completed"  # the whole log was replayed


def test_unknown_event_types_are_skipped_counted_and_warned(tmp_path):
    lines = (REAL / "events.jsonl").read_bytes().splitlines(keepends=True)
    future = (
        b'{"id": "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f", "created_at": "2026-11-22T11:54:32.303600", '
        b'"metadata": {}, "type": "REASONING_SUMMARY_DELTA", '
        b'"reply_id": "83cf2b3013784b90837f1cce3f71c1bc", "delta": "x"}\n'
    )
    log = tmp_path / "newer.jsonl"
    log.write_bytes(b"".join([*lines[:2], future, future, *lines[2:]]))
    (msg,), findings, summary = replay(log)
    assert [(f.line, f.code) for f in findings] == [(3, "E009"), (4, "E009")]
    assert summary.replay.unknown == {"REASONING_SUMMARY_DELTA": 2}
    (plain,), _, _ = replay(REAL / "events.jsonl")
    assert python_view(msg) == python_view(plain)


def test_memory_is_bounded_by_the_open_replies():
    """A finished reply is written and forgotten at once: replaying many replies keeps
    at most one open, whatever the length of the log."""
    from msgcli.dialects.agentscope_py.replay import PyReplayer

    template = read_jsonl(REAL / "events.jsonl")
    written: list[int] = []
    replayer = PyReplayer(lambda *a, **k: None, lambda line, msg: written.append(line))
    peak = 0
    line = 0
    for n in range(200):
        rid = f"{n:032x}"
        for event in template:
            line += 1
            event = dict(event, reply_id=rid, id=f"{line:032x}")
            replayer.feed(line, event)
            peak = max(peak, len(replayer.replies))
    replayer.finish(line)
    assert len(written) == 200
    assert peak == 1
    assert replayer.replies == {}


@pytest.mark.parametrize(
    "written, java_order",
    [
        # iteration orders printed by java.util.HashMap (OpenJDK 17) for these keys
        (["restaurant", "time", "party"], ["restaurant", "time", "party"]),
        (["version", "env", "service"], ["service", "env", "version"]),
        (["order_id", "include_items"], ["include_items", "order_id"]),
        (["city", "date"], ["date", "city"]),
        (["from", "to", "date"], ["date", "from", "to"]),
    ],
)
def test_java_tool_input_keys_come_in_hashmap_order(written, java_order):
    from msgcli.dialects.agentscope_java.replay import java_hash_order

    assert list(java_hash_order({k: 1 for k in written})) == java_order
