"""The Anthropic replay's own loop (its inline deltas, block and message events, and the stop
lines it applies without parsing) gives exactly what the whole way gives: every message,
finding and count, the counts of event types in the order the types first came included,
whatever bytes the lines are written in."""

from __future__ import annotations

import io
import json

import orjson
import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_provider_streams import _STREAMS, ROOT, _mutated, _whole_way

import msgcli

_ANTHROPIC = [events for dialect, events in _STREAMS if dialect == "anthropic"]


def _replayed(data: bytes):
    """What a user sees of a replay: the messages, the findings, the counts (the counts of
    event types as a list, so that their order counts too)."""
    written: list = []
    result = msgcli.replay(
        io.BytesIO(data), dialect="anthropic", sink=lambda *a: written.append(a[-1])
    )
    (file,) = result.report.files
    findings = [(f.line, f.code, f.message, f.pointer) for f in file.findings]
    summary = file.summary
    replay = summary.replay.to_dict() if summary.replay is not None else None
    order = list(replay["by_type"].items()) if replay is not None else None
    return written, findings, (summary.records, summary.errors, summary.warnings, replay, order)


def _same_both_ways(data: bytes):
    lean = _replayed(data)
    with _whole_way():
        whole = _replayed(data)
    assert lean == whole
    return lean


def _spelled(event: dict, how: str) -> bytes:
    """One event as a line, in the SDKs' compact bytes or in other bytes of the same JSON."""
    if how == "compact":
        return orjson.dumps(event)
    if how == "spaced":
        return json.dumps(event).encode()
    if how == "reversed":  # the same object, its keys in the other order
        return orjson.dumps(dict(reversed(list(event.items()))))
    return orjson.dumps(event) + b" "  # trailing white space


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_spelling_of_a_stream_replays_as_the_whole_way(data):
    """Real streams, one after another, changed as in the provider-stream tests, each line
    written in the SDKs' bytes or in others (so the stop lines are now taken by their bytes,
    now parsed), with LF or CRLF line ends and perhaps none after the last line."""
    events: list = []
    for _ in range(data.draw(st.integers(1, 3))):
        events += _mutated(data, data.draw(st.sampled_from(_ANTHROPIC)))
    hows = st.sampled_from(["compact", "compact", "spaced", "reversed", "trailing"])
    lines = [_spelled(e, data.draw(hows)) if type(e) is dict else orjson.dumps(e) for e in events]
    end = data.draw(st.sampled_from([b"\n", b"\r\n"]))
    body = b"".join(line + end for line in lines)
    if data.draw(st.booleans()) and body:
        body = body[: -len(end)]  # no line end after the last line
    _same_both_ways(body)


def _events(name: str) -> list[bytes]:
    return (ROOT / "anthropic-messages" / name / "events.jsonl").read_bytes().splitlines()


@pytest.mark.parametrize("scenario", ["text-unicode", "thinking", "tool-use", "parallel-tools"])
@pytest.mark.parametrize("end", [b"\n", b"\r\n", b""], ids=["LF", "CRLF", "none"])
def test_a_real_stream_replays_the_same_in_any_bytes(scenario: str, end: bytes):
    """The recorded stream in its own bytes, and with every line spaced out, give the same
    messages and counts, with the last line's end or without it; both as the whole way."""
    lines = _events(scenario)
    own = _same_both_ways(b"\n".join(lines) + end)
    spaced = [json.dumps(orjson.loads(x)).encode() for x in lines]
    other = _same_both_ways(b"\n".join(spaced) + end)
    assert own == other
    assert own[1] == []  # a complete stream: nothing to report
    assert own[2][3]["messages"] == own[2][3]["completed"] == 1


_ODD = [
    # stop lines the loop knows by their bytes, where they must not apply: twice, before
    # the block or the message started, after the message ended, for a block never started
    b'{"index":0,"type":"content_block_stop"}',
    b'{"type":"message_stop"}',
    b'{"index":7,"type":"content_block_stop"}',
    b'{"index":63,"type":"content_block_stop"}',
    b'{"index":64,"type":"content_block_stop"}',
    # the same events in other bytes, and lines that are none of them
    b'{"index":0, "type":"content_block_stop"}',
    b'{"index":-1,"type":"content_block_stop"}',
    b'{"index":0,"type":"content_block_stop","extra":1}',
    b'{"type":"message_stop","type":"message_stop"}',
    b'{"type":"message_stop"}{"type":"message_stop"}',
    b'{"index":0,"type":"content_block_stop"',
    b"",
    # a text or thinking block whose value is no string, and deltas to it
    b'{"content_block":{"text":5,"type":"text"},"index":0,"type":"content_block_start"}',
    b'{"content_block":{"text":["a"],"type":"text"},"index":0,"type":"content_block_start"}',
    b'{"delta":{"text":["b"],"type":"text_delta"},"index":0,"type":"content_block_delta"}',
    b'{"delta":{"text":5,"type":"text_delta"},"index":0,"type":"content_block_delta"}',
    b'{"delta":{"thinking":null,"type":"thinking_delta"},"index":0,"type":"content_block_delta"}',
    b'{"delta":{"type":"text_delta"},"index":0,"type":"content_block_delta"}',
    b'{"delta":"text_delta","index":0,"type":"content_block_delta"}',
    b'{"delta":{"text":"c","type":"text_delta"},"index":true,"type":"content_block_delta"}',
    # a block that starts out of place (twice: the second time where the first one is kept),
    # a message that starts inside another, a message delta with no usable usage
    b'{"content_block":{"text":"","type":"text"},"index":1,"type":"content_block_start"}',
    b'{"content_block":{"type":"image"},"index":0,"type":"content_block_start"}',
    b'{"message":{"id":"m","content":[],"model":"x","role":"assistant","type":"message",'
    b'"usage":{"input_tokens":1,"output_tokens":1}},"type":"message_start"}',
    b'{"delta":{"stop_reason":"end_turn"},"type":"message_delta","usage":null}',
    b'{"delta":{"stop_reason":"end_turn"},"type":"message_delta","usage":[1]}',
    b'{"delta":null,"type":"message_delta"}',
    # a block at an index out of range, and a delta and a stop for it (two or three lines)
    b'{"content_block":{"text":"","type":"text"},"index":-1,"type":"content_block_start"}\n'
    b'{"delta":{"text":"d","type":"text_delta"},"index":-1,"type":"content_block_delta"}',
    b'{"content_block":{"text":"","type":"text"},"index":"0","type":"content_block_start"}\n'
    b'{"delta":{"text":"e","type":"text_delta"},"index":"0","type":"content_block_delta"}\n'
    b'{"index":"0","type":"content_block_stop"}',
]


@pytest.mark.parametrize("odd", _ODD, ids=range(len(_ODD)))
@pytest.mark.parametrize("at", [1, 2, 3, 5, -2, -1])
@pytest.mark.parametrize("times", [1, 2])
def test_odd_lines_anywhere_in_a_real_stream_are_reported_as_the_whole_way(
    odd: bytes, at: int, times: int
):
    """A line of an odd kind (once, or twice in a row) put at several places of a real
    stream, and another stream after it: the same messages, findings and counts as the whole
    way."""
    lines = _events("text-unicode")
    changed = [*lines[:at], *([odd] * times), *lines[at:], *_events("thinking")]
    _same_both_ways(b"\n".join(changed) + b"\n")


def test_the_stop_lines_known_by_their_bytes_are_those_events():
    """Each line the loop applies without parsing is, parsed, exactly the event it is taken
    for; any other bytes are parsed."""
    from msgcli.dialects.anthropic.replay import _SHORT, _SHORT_LINES

    for line, index in _SHORT_LINES.items():
        assert len(line) < _SHORT
        event = orjson.loads(line)
        if index < 0:
            assert event == {"type": "message_stop"}
        else:
            assert event == {"index": index, "type": "content_block_stop"}
            assert type(event["index"]) is int


@pytest.mark.parametrize("value", [["a"], 5, 1.5, True, None, {"a": 1}], ids=repr)
@pytest.mark.parametrize("field", ["text", "thinking"])
def test_a_block_and_its_deltas_holding_other_values_than_text(field: str, value):
    """A block that starts with a value of another kind than text (which the whole way keeps)
    and deltas bringing the same kind of value: joined or not, as the whole way does it."""
    scenario = "text-unicode" if field == "text" else "thinking"
    events = [orjson.loads(x) for x in _events(scenario)]
    for event in events:
        block = event.get("content_block")
        if type(block) is dict and field in block:
            block[field] = value
        delta = event.get("delta")
        if type(delta) is dict and field in delta:
            delta[field] = value
    _same_both_ways(b"".join(orjson.dumps(e) + b"\n" for e in events))
