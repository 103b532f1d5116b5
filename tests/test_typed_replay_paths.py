"""The shortcuts of the typed replay loops give what the whole way gives.

:mod:`test_typed_replay` replays every fixture log both ways; here the shortcuts the fast
paths take are held to the whole way one by one: AgentScope Java's final message
(``AGENT_RESULT``: checked by the typed message path before the message schema, compared
with the rebuilt message by its sorted JSON before the differences are worked out), the
HashMap order of tool arguments (kept for key sets that come again), and AgentScope Python's
deltas (one fast path each, which finds its block before it changes anything).
"""

from __future__ import annotations

import orjson
from conftest import FIXTURES
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import JSON_VALUES
from test_typed_replay import _replay

from msgcli.dialects.agentscope_java.replay import (
    _ORDERS,
    _java_bucket,
    java_hash_order,
    message_differences,
    same_message,
)
from msgcli.dialects.agentscope_java.typed import typed_path
from msgcli.dialects.agentscope_java.typed_events import typed_message
from msgcli.engine import FileCheck
from msgcli.schemas import compiled

JAVA = FIXTURES / "real" / "agentscope-java" / "events.jsonl"
PYTHON = FIXTURES / "real" / "agentscope-py" / "events.jsonl"


def _both_ways(path, monkeypatch) -> tuple:
    """The replay of ``path`` the typed way (asserted to be the whole way's), and how many
    of its records the typed loop left to the whole way."""
    taken = []
    take = FileCheck.take

    def counted(self, record):
        taken.append(record.line)
        return take(self, record)

    with monkeypatch.context() as patch:
        patch.setattr(FileCheck, "take", counted)
        typed = _replay(path, patch, True)
    assert typed == _replay(path, monkeypatch, False)
    return typed, taken


def _with_result(tmp_path, change) -> tuple:
    """The real Java log with its ``AGENT_RESULT``'s final message changed by ``change``;
    the path, and the line of that event."""
    lines = JAVA.read_bytes().splitlines()
    at = next(i for i, line in enumerate(lines) if b'"AGENT_RESULT"' in line)
    event = orjson.loads(lines[at])
    change(event["result"])
    lines[at] = orjson.dumps(event)
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path, at + 1


def _codes(replay) -> list[tuple[int, str]]:
    return [(line, code) for line, code, _, _ in replay[1]]


def test_the_final_message_as_written_takes_the_fast_path(monkeypatch, tmp_path):
    path, line = _with_result(tmp_path, lambda result: None)
    replay, taken = _both_ways(path, monkeypatch)
    assert line not in taken
    assert not _codes(replay)


def test_a_final_message_that_differs_is_reported_the_same_either_way(monkeypatch, tmp_path):
    def change(result):
        result["content"][0]["text"] += " (edited)"

    path, line = _with_result(tmp_path, change)
    replay, taken = _both_ways(path, monkeypatch)
    assert (line, "E011") in _codes(replay)
    assert line in taken  # (what is reported takes the whole way)


def test_a_final_message_the_typed_path_refuses_is_asked_of_the_schema(monkeypatch, tmp_path):
    # a time not in Jackson's form: valid for the message schema (a rule speaks of it in a
    # message log), refused by the typed message path; an image block: the schema's, not
    # the typed path's
    def stamp(result):
        result["timestamp"] = "2026-11-24T00:59:45.351"

    def image(result):
        result["content"].append(
            {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
        )

    decode, digest = typed_path()
    for change in (stamp, image):
        path, line = _with_result(tmp_path, change)
        result = orjson.loads(path.read_bytes().splitlines()[line - 1])["result"]
        assert not typed_message((decode, digest), orjson.dumps(result))
        assert compiled("agentscope-java/message").is_valid(result)
        replay, taken = _both_ways(path, monkeypatch)
        assert line not in taken
        assert not _codes(replay)


def test_a_final_message_against_the_schema_goes_the_whole_way(monkeypatch, tmp_path):
    def change(result):
        result["role"] = "assistant"  # (Jackson writes the enum's name)

    path, line = _with_result(tmp_path, change)
    replay, taken = _both_ways(path, monkeypatch)
    assert line in taken
    assert any(code.startswith("S") for _, code in _codes(replay)), _codes(replay)


def _message(text, name, tool_input) -> dict:
    return {
        "name": name,
        "content": [
            {"type": "text", "text": text},
            {"type": "tool_use", "id": "c1", "name": "f", "input": tool_input, "state": "x"},
        ],
    }


@settings(max_examples=300, deadline=None)
@given(
    text=st.sampled_from(["a", "b", ""]),
    names=st.tuples(
        st.sampled_from(["Friday", None, 1, 1.0, True]), st.sampled_from(["Friday", None, 1])
    ),
    inputs=st.tuples(JSON_VALUES, JSON_VALUES),
)
def test_same_message_never_hides_a_difference(text, names, inputs):
    reported = _message(text, names[0], inputs[0])
    rebuilt = _message(text, names[1], inputs[1])
    for a, b in (
        (reported, rebuilt),
        (reported, reported),
        (rebuilt, orjson.loads(orjson.dumps(rebuilt))),
    ):
        if same_message(a, b):
            assert not message_differences(a, b)


def test_same_message_tells_json_types_apart():
    one = _message("a", "Friday", {"n": 1, "m": {"x": [True]}})
    other = _message("a", "Friday", {"m": {"x": [True]}, "n": 1})  # (key order: the same)
    assert same_message(one, other) and not message_differences(one, other)
    for changed in ({"n": 1.0, "m": {"x": [True]}}, {"n": 1, "m": {"x": [1]}}):
        two = _message("a", "Friday", changed)
        assert not same_message(one, two)
        assert message_differences(one, two)


def _hash_order(obj: dict) -> list:
    size = 16
    while len(obj) > size * 0.75:
        size *= 2
    return sorted(obj, key=lambda key: _java_bucket(key, size))


def test_hash_order_kept_for_key_sets_that_come_again():
    keys = ["city", "date", "unit", "query", "limit", "offset", "a" * 40, "é", "\U0001f600"]
    for n in range(2, len(keys) + 1):
        obj = {key: i for i, key in enumerate(keys[:n])}
        first = java_hash_order(obj)
        again = java_hash_order(dict(obj))
        assert list(first) == list(again) == _hash_order(obj)
        assert first == obj  # (the same values)
    # a key set too long to keep is ordered all the same, and not kept
    big = {"k" * 600: 1, "j" * 600: 2}
    assert list(java_hash_order(big)) == _hash_order(big)
    assert tuple(big) not in _ORDERS


def _python_with(tmp_path, edit) -> tuple:
    """The real Python log with ``edit(lines)`` applied; the path."""
    lines = PYTHON.read_bytes().splitlines()
    edit(lines)
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def _index(lines, kind: bytes) -> int:
    return next(i for i, line in enumerate(lines) if b'"' + kind + b'"' in line)


def test_python_deltas_that_cannot_be_placed_are_reported_the_same(monkeypatch, tmp_path):
    cases = {
        "text": b"TEXT_BLOCK_DELTA",
        "call": b"TOOL_CALL_DELTA",
        "result": b"TOOL_RESULT_TEXT_DELTA",
    }
    for kind in cases.values():
        if kind not in PYTHON.read_bytes():
            continue

        def unknown_block(lines, kind=kind):
            at = _index(lines, kind)
            event = orjson.loads(lines[at])
            for key in ("block_id", "tool_call_id"):
                if key in event:
                    event[key] = "never-started"
            event["id"] = "a-new-id"
            lines.insert(at + 1, orjson.dumps(event))

        def back_in_time(lines, kind=kind):
            at = _index(lines, kind)
            event = orjson.loads(lines[at])
            event["created_at"] = "1999" + event["created_at"][4:]
            event["id"] = "a-new-id"
            lines.insert(at + 1, orjson.dumps(event))

        def repeated(lines, kind=kind):
            at = _index(lines, kind)
            lines.insert(at + 1, lines[at])

        for edit, code in ((unknown_block, "E002"), (back_in_time, "E008"), (repeated, "E014")):
            replay, _taken = _both_ways(_python_with(tmp_path, edit), monkeypatch)
            assert code in {code for _, code in _codes(replay)}, (kind, code, _codes(replay))


def test_event_counts_keep_the_order_the_kinds_came_in(monkeypatch):
    # (the fast paths count most events on their own, and add them up when the loop ends)
    from test_typed_replay import _event_logs

    compared = 0
    for path in _event_logs():
        typed = _replay(path, monkeypatch, True)[2]["replay"]
        whole = _replay(path, monkeypatch, False)[2]["replay"]
        if typed is None:
            continue
        assert list(typed["by_type"].items()) == list(whole["by_type"].items()), path
        compared += 1
    assert compared > 60
