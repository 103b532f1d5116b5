"""Whatever an event stream holds, replay reports and never crashes, and never loses
what it can place.

Streams are made from real and fixture event logs by dropping, repeating, swapping
and mutating events. Every run must end with known rule codes on lines inside the
input. When events are only dropped, repeated or reordered (every event still one the
framework wrote), every rebuilt message must still match the dialect's message schema:
the replay writes what arrived, never a malformed message.
"""

from __future__ import annotations

import io

import orjson
from conftest import FIXTURES, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import msgcli
from msgcli.rules import RULES
from msgcli.schemas import compiled


def _events(folder, pattern):
    out = []
    for path in sorted(folder.glob(pattern)):
        if path.name.endswith(("-final.jsonl", "-expected.jsonl")):
            continue
        lines = [x for x in path.read_bytes().splitlines() if x.strip()]
        try:
            out.append([orjson.loads(x) for x in lines])
        except orjson.JSONDecodeError:
            continue  # a deliberately cut file
    return out


PY_LOGS = _events(FIXTURES / "real" / "agentscope-py", "events*.jsonl") + _events(
    FIXTURES / "events" / "agentscope-py", "*.jsonl"
)
JAVA_LOGS = _events(FIXTURES / "events" / "agentscope-java", "*.jsonl")
LOGS = {"agentscope-py": PY_LOGS, "agentscope-java": JAVA_LOGS}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**31), 2**31) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def reshuffled(draw, dialect: str, mutate: bool):
    logs = LOGS[dialect]
    events = [dict(e) for e in logs[draw(st.integers(0, len(logs) - 1))]]
    for _ in range(draw(st.integers(1, 6))):
        if not events:
            break
        i = draw(st.integers(0, len(events) - 1))
        action = draw(
            st.sampled_from(
                ["drop", "repeat", "swap", "mutate"] if mutate else ["drop", "repeat", "swap"]
            )
        )
        if action == "drop":
            events.pop(i)
        elif action == "repeat":
            events.insert(draw(st.integers(0, len(events))), dict(events[i]))
        elif action == "swap":
            j = draw(st.integers(0, len(events) - 1))
            events[i], events[j] = events[j], events[i]
        else:
            event = events[i]
            keys = list(event)
            key = draw(st.sampled_from(keys)) if keys else "type"
            if draw(st.booleans()):
                event[key] = draw(json_values)
            else:
                event.pop(key, None)
    return events


def _run(dialect, events):
    data = b"".join(orjson.dumps(e) + b"\n" for e in events)
    messages: list[dict] = []
    result = msgcli.replay(
        io.BytesIO(data), dialect=dialect, sink=lambda path, line, m: messages.append(m)
    )
    return result.report, messages


def _sane(report, events):
    for fr in report.files:
        for f in fr.findings:
            assert f.code in RULES
            assert 0 <= f.line <= max(len(events), 1)
            assert "\n" not in f.message


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(LOGS)), st.data())
def test_any_stream_is_reported_without_a_crash(dialect, data):
    events = data.draw(reshuffled(dialect, mutate=True))
    report, messages = _run(dialect, events)
    _sane(report, events)
    assert all(type(m) is dict for m in messages)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(LOGS)), st.data())
def test_streams_of_real_events_rebuild_schema_valid_messages(dialect, data):
    events = data.draw(reshuffled(dialect, mutate=False))
    report, messages = _run(dialect, events)
    _sane(report, events)
    schema = compiled(f"{dialect}/message")
    for message in messages:
        assert schema.is_valid(message), message
