"""Round trips on generated conversations (hypothesis).

The strategies below write conversations in each dialect's own JSON, the way
its framework writes them (all keys, in order; tool calls answered; times in
order), independently of msgcli's readers and writers. For every pair of
dialects: the log is clean in its own dialect, converts to a clean log of the
other, and converting back gives the records it started from. A message's metadata may
hold ``_msgcli`` already (what a tool or an earlier conversion kept there): it comes back
byte for byte too, through A → B → A and A → B → C → A.
"""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta

import orjson
import pytest
from conftest import examples
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import msgcli

DIALECTS = ("agentscope-java", "agentscope-py", "loongflow")
#: warnings a converted log may rightly get (see test_convert)
EXPECTED_WARNINGS = {"T002", "C002"}

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
words = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=24
).filter(lambda t: t.strip() != "")
names = st.sampled_from(["Friday", "user", "Alice", "Bob", "critic", "Zoë 🤖"])
tools = st.sampled_from(["get_weather", "search", "Bash", "read_file"])
scalars = st.none() | st.booleans() | st.integers(-1000, 10**6) | st.text(max_size=8)
#: what a tool, or a user, kept under metadata._msgcli itself (its keys no dialect's name)
own_carry = st.dictionaries(
    st.sampled_from(["note", "by", "run"]), scalars | st.lists(scalars, max_size=2), max_size=2
)
metadata = st.builds(
    lambda plain, own: {**plain, "_msgcli": own} if own is not None else plain,
    st.dictionaries(
        st.text(min_size=1, max_size=6).filter(lambda k: k != "_msgcli"), scalars, max_size=3
    ),
    st.none() | own_carry,
)
#: a Python tool result's metadata holds no nulls (the framework rejects them)
result_metadata = st.dictionaries(
    st.text(min_size=1, max_size=6), st.integers(0, 9) | st.text(max_size=8), max_size=2
)
arguments = st.dictionaries(st.sampled_from(["city", "q", "path", "n"]), scalars, max_size=3)
tokens = st.integers(0, 100_000)
steps = st.integers(0, 5_000_000)  # microseconds between messages


class Clock:
    def __init__(self, start: datetime):
        self.now = start

    def tick(self, micros: int) -> datetime:
        self.now += timedelta(microseconds=micros)
        return self.now


def iso(when: datetime) -> str:
    return when.isoformat()


def java_time(when: datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S.") + f"{when.microsecond // 1000:03d}"


# -- AgentScope Python 2.x ------------------------------------------------------------


@st.composite
def py_conversation(draw) -> list[dict]:
    clock = Clock(draw(st.datetimes(datetime(2024, 1, 1), datetime(2027, 1, 1))))
    out = []

    def stamp() -> str:
        return iso(clock.tick(draw(steps)))

    def block(kind: str, **keys) -> dict:
        created = stamp()
        finished = draw(st.none() | st.just(stamp()))
        if kind in ("tool_call", "tool_result", "data"):
            return {"type": kind, **keys, "created_at": created, "finished_at": finished}
        body = {"type": kind, **keys}
        head = {k: body.pop(k) for k in ("type", kind)}
        return {
            **head,
            "id": draw(st.uuids()).hex,
            **body,
            "created_at": created,
            "finished_at": finished,
        }

    def data() -> dict:
        source = draw(
            st.sampled_from(
                [
                    {"type": "url", "url": "https://example.com/a.png", "media_type": "image/png"},
                    {"type": "base64", "data": PNG, "media_type": "image/png"},
                ]
            )
        )
        return block(
            "data", id=draw(st.uuids()).hex, source=source, name=draw(st.none() | st.just("a.png"))
        )

    def message(role: str, content: list, **more) -> dict:
        created = stamp()
        return {
            "name": draw(names),
            "content": content,
            "role": role,
            "id": draw(st.uuids()).hex,
            "metadata": draw(metadata),
            "created_at": created,
            "usage": more.get("usage"),
            "finished_at": more.get("finished_at"),
            "finished_reason": more.get("reason"),
            "structured_output": None,
            "error": None,
        }

    if draw(st.booleans()):
        out.append(message("system", [block("text", text=draw(words))]))
    for _ in range(draw(st.integers(1, 3))):
        user = [block("text", text=draw(words))]
        if draw(st.booleans()):
            user.append(data())
        out.append(message("user", user))
        content = []
        if draw(st.booleans()):
            content.append(
                block(
                    "hint",
                    hint=draw(words),
                    source=draw(st.none() | st.just('{"label": "System"}')),
                )
            )
        if draw(st.booleans()):
            content.append(block("thinking", thinking=draw(words)))
        for _ in range(draw(st.integers(0, 2))):
            call_id = "call_" + draw(st.uuids()).hex[:24]
            name = draw(tools)
            content.append(
                block(
                    "tool_call",
                    id=call_id,
                    name=name,
                    input=json.dumps(draw(arguments)),
                    state="finished",
                    suggested_rules=[],
                )
            )
            output = draw(st.just(draw(words)) | st.just([block("text", text=draw(words))]))
            content.append(
                block(
                    "tool_result",
                    id=call_id,
                    name=name,
                    output=output,
                    state=draw(st.sampled_from(["success", "error"])),
                    metadata=draw(result_metadata),
                )
            )
        content.append(block("text", text=draw(words)))
        usage = draw(
            st.none()
            | st.builds(
                lambda i, o: {
                    "input_tokens": i,
                    "output_tokens": o,
                    "cache_input_tokens": 0,
                    "cache_creation_input_tokens": 0,
                },
                tokens,
                tokens,
            )
        )
        reply = message(
            "assistant", content, usage=usage, reason=draw(st.none() | st.just("completed"))
        )
        reply["finished_at"] = stamp() if reply["finished_reason"] else None
        out.append(reply)
    return out


# -- AgentScope Java 2.x --------------------------------------------------------------


@st.composite
def java_conversation(draw) -> list[dict]:
    clock = Clock(draw(st.datetimes(datetime(2024, 1, 1), datetime(2027, 1, 1))))
    agent = draw(names)
    out = []

    def message(role: str, content: list, name: str, usage=None) -> dict:
        return {
            "id": str(draw(st.uuids())),
            "name": name,
            "role": role,
            "content": content,
            "metadata": draw(metadata),
            "timestamp": java_time(clock.tick(draw(steps))),
            "usage": usage,
        }

    if draw(st.booleans()):
        out.append(message("SYSTEM", [{"type": "text", "text": draw(words)}], agent))
    for _ in range(draw(st.integers(1, 3))):
        user = [{"type": "text", "text": draw(words)}]
        if draw(st.booleans()):
            user.append(
                {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
            )
        out.append(message("USER", user, "user"))
        content = []
        if draw(st.booleans()):
            content.append({"type": "thinking", "thinking": draw(words), "metadata": None})
        if draw(st.booleans()):
            content.append({"type": "text", "text": draw(words)})
        calls = []
        for _ in range(draw(st.integers(0, 2))):
            args = draw(arguments)
            call = {
                "type": "tool_use",
                "id": "call_" + draw(st.uuids()).hex[:24],
                "name": draw(tools),
                "input": args,
                "content": draw(st.none() | st.just(json.dumps(args))),
                "metadata": {},
                "state": "finished",
            }
            calls.append(call)
            content.append(call)
        if not content:
            content.append({"type": "text", "text": draw(words)})
        usage = draw(
            st.none()
            | st.builds(
                lambda i, o: {
                    "inputTokens": i,
                    "outputTokens": o,
                    "cachedTokens": 0,
                    "time": 0.25,
                    "totalTokens": i + o,
                },
                tokens,
                tokens,
            )
        )
        out.append(message("ASSISTANT", content, agent, usage))
        for call in calls:
            result = {
                "type": "tool_result",
                "id": call["id"],
                "name": call["name"],
                "output": [{"type": "text", "text": draw(words)}],
                "metadata": {},
                "state": draw(st.sampled_from(["success", "error"])),
            }
            out.append(message("TOOL", [result], agent))
        if calls:
            out.append(message("ASSISTANT", [{"type": "text", "text": draw(words)}], agent))
    return out


# -- LoongFlow ------------------------------------------------------------------------


@st.composite
def loongflow_conversation(draw) -> list[dict]:
    clock = Clock(draw(st.datetimes(datetime(2024, 1, 1), datetime(2027, 1, 1))))
    trace, conversation = (
        draw(st.sampled_from(["", "trace-1"])),
        draw(st.sampled_from(["", "conv-7f3a9c"])),
    )
    agent = draw(names)
    out = []

    def text(value: str) -> dict:
        return {"type": "content", "mime_type": "text/plain", "metadata": {}, "data": value}

    def message(role: str, content: list, sender: str, meta=None) -> dict:
        return {
            "id": str(draw(st.uuids())),
            "timestamp": iso(clock.tick(draw(steps))),
            "trace_id": trace,
            "conversation_id": conversation,
            "role": role,
            "sender": sender,
            "metadata": meta if meta is not None else draw(metadata),
            "content": content,
        }

    if draw(st.booleans()):
        out.append(message("system", [text(draw(words))], agent))
    for _ in range(draw(st.integers(1, 3))):
        user = [text(draw(words))]
        if draw(st.booleans()):
            user.append(
                {
                    "type": "content",
                    "mime_type": "image/png",
                    "metadata": {},
                    "data": "https://example.com/a.png",
                }
            )
        out.append(message("user", user, "user"))
        content = []
        if draw(st.booleans()):
            content.append({"type": "think", "metadata": {}, "content": draw(words)})
        calls = []
        for _ in range(draw(st.integers(0, 2))):
            call = {
                "type": "tool_call",
                "call_id": str(draw(st.uuids())),
                "metadata": {},
                "target": draw(tools),
                "arguments": draw(arguments),
            }
            calls.append(call)
            content.append(call)
        if not calls:
            content.append(text(draw(words)))
        meta = draw(
            st.none()
            | st.builds(
                lambda i, o: {
                    "usage": {"completion_tokens": o, "prompt_tokens": i, "total_tokens": i + o}
                },
                tokens,
                tokens,
            )
        )
        out.append(message("assistant", content, agent, meta))
        for call in calls:
            output = {
                "type": "tool_output",
                "call_id": call["call_id"],
                "metadata": {},
                "tool_name": call["target"],
                "status": draw(st.sampled_from(["success", "error"])),
                "result": [text(draw(words))],
            }
            out.append(message("tool", [output], agent))
        if calls:
            out.append(message("assistant", [text(draw(words))], agent))
    return out


CONVERSATIONS = {
    "agentscope-py": py_conversation(),
    "agentscope-java": java_conversation(),
    "loongflow": loongflow_conversation(),
}


def jsonl(records: list[dict]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def convert(records: list[dict], to: str) -> list[dict]:
    result = msgcli.convert(io.BytesIO(jsonl(records)), to, zone=UTC)
    assert not result.report.errors(), [str(f) for f in result.report.errors()]
    return result.records


def problems(records: list[dict], dialect: str) -> list[str]:
    report = msgcli.validate(io.BytesIO(jsonl(records)), dialect=dialect)
    return [
        str(f)
        for f in report.findings()
        if f.severity.value == "error" or f.code not in EXPECTED_WARNINGS
    ]


PAIRS = [(a, b) for a in DIALECTS for b in DIALECTS if a != b]


@pytest.mark.parametrize("source, target", PAIRS)
def test_generated_conversations_convert_and_come_back(source, target):
    @settings(
        max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    @given(CONVERSATIONS[source])
    def check(original):
        assert problems(original, source) == []  # the strategy writes what the framework does
        converted = convert(original, target)
        assert problems(converted, target) == []
        # the same records, keys in the same order
        assert jsonl(convert(converted, source)) == jsonl(original)

    check()


@pytest.mark.parametrize("dialect", DIALECTS)
def test_what_an_earlier_conversion_carried_survives_later_ones(dialect):
    """Records of one dialect that came from another (so their metadata._msgcli holds what
    that conversion kept, beside what a user kept there) are the same records, byte for
    byte, after A → B → A and A → B → C → A, for every B and C (neither the dialect they came
    from: A → B or B → C is then the way back, which uses up what was carried)."""

    @settings(
        max_examples=examples(10),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(st.sampled_from([d for d in DIALECTS if d != dialect]).flatmap(_origin_and_log))
    def check(drawn):
        origin, log = drawn
        start = convert(log, dialect)  # records of A that carry an entry for the origin
        # (a conversion that loses nothing keeps nothing: such a log carries nothing)
        assume(any("_msgcli" in (r.get("metadata") or {}) for r in start))
        for b in DIALECTS:
            if b == dialect:
                continue
            there = convert(start, b)
            assert jsonl(convert(there, dialect)) == jsonl(start), (origin, b)
            if b == origin:
                # the way back to the origin uses what was carried up: B's records are the
                # origin's own, and a conversion that loses nothing on from there keeps
                # nothing that says where they went before
                continue
            for c in DIALECTS:
                if c in (dialect, b, origin):
                    # (C the origin: B → C is the way back to it by another road than the one
                    # the records came, and the origin's writer spells nothing as the way
                    # taken has it: a Java block's metadata comes back {} from LoongFlow
                    # where the origin wrote null, which A's records never carried)
                    continue
                on = convert(there, c)
                assert jsonl(convert(on, dialect)) == jsonl(start), (origin, b, c)

    check()


def _origin_and_log(origin: str):
    return st.tuples(st.just(origin), CONVERSATIONS[origin])


@pytest.mark.parametrize("source", DIALECTS)
def test_generated_conversations_keep_their_words_in_every_dialect(source):
    """Every text the conversation holds can be found in each converted log's content."""

    @settings(
        max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    @given(CONVERSATIONS[source])
    def check(original):
        said = set(_texts(original))
        for target in DIALECTS:
            if target == source:
                continue
            converted = convert(original, target)
            content = [m["content"] for m in converted]
            assert said <= set(_texts(content)), target

    check()


def _texts(value) -> list[str]:
    """The message words in a record: text, thinking, hint, tool output (not ids or times)."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            words = (
                (key in ("text", "thinking", "hint", "output") and isinstance(item, str))
                or (key == "data" and value.get("mime_type") == "text/plain")
                or (key == "content" and value.get("type") == "think")
            )
            if words:
                found.append(item)
            elif key not in ("metadata",):
                found.extend(_texts(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(_texts(item))
    return found
