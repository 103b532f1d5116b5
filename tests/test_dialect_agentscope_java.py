"""The AgentScope Java dialect: detection, reading, writing, schema, checks, times.

No recorded Java output exists, so the good records are the hand-made logs of
``fixtures/valid/agentscope-java`` (Jackson-shaped, see their README) and the
message inside the hand-made event log. That Java claims them, and no other
dialect's records, is checked in ``test_detection.py``; the edge cases of Java
detection are here.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime

import orjson
import pytest
from conftest import FIXTURES, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from samples import JAVA_EVENT_LOG, drop_at, ids, lines, records, set_at
from strategies import JSON_VALUES, exercise, mutated, shaped_records, shaped_values

from msgcli.dialects.agentscope_java import DIALECT
from msgcli.model import (
    DataBlock,
    HintBlock,
    Message,
    Source,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
    Usage,
    ValueBlock,
)

VALID = FIXTURES / "valid" / "agentscope-java"

VALID_MESSAGES = records(sorted(VALID.glob("*.jsonl")))
#: the Msg inside AGENT_RESULT is a message as Jackson writes it, too
RESULT_MESSAGES = [
    ("minimal-run.jsonl", i, e["result"]) for i, e in enumerate(JAVA_EVENT_LOG, 1) if "result" in e
]
GOOD = VALID_MESSAGES + RESULT_MESSAGES
GOOD_IDS = ids(GOOD)


def _system() -> dict:
    """A SYSTEM message (the agent's prompt, which the framework sends but never keeps in
    memory, so no stored log holds one)."""
    return {
        "id": "922f3d9b-20be-461f-9b69-90928701ce93",
        "name": "system",
        "role": "SYSTEM",
        "content": [{"type": "text", "text": "You are WeatherAgent, a concise weather assistant."}],
        "metadata": {},
        "timestamp": "2026-08-22 23:15:41.207",
        "usage": None,
    }


def _by_file(name: str) -> list[dict]:
    return lines(VALID / name)


def _same(a, b) -> bool:
    """Equal, key order included."""
    return orjson.dumps(a) == orjson.dumps(b)


# -- detection ------------------------------------------------------------------------


def test_a_broken_java_message_is_still_claimed():
    good = _by_file("react-weather.jsonl")[0]
    # a wrong-case role or no role at all, in the 2.x key order: a Java record with a schema error
    lower = dict(good, role="user")
    no_role = {k: v for k, v in good.items() if k != "role"}
    assert DIALECT.classify(lower) == "message"
    assert DIALECT.classify(no_role) == "message"
    # but a lower-case role without the 2.x shape is left to the other dialects
    assert DIALECT.classify({k: v for k, v in lower.items() if k != "usage"}) is None


def test_variant():
    assert {DIALECT.variant(r) for r in _by_file("legacy-1x.jsonl")} == {"1.x"}
    assert {DIALECT.variant(r) for r in _by_file("react-weather.jsonl")} == {"2.x"}
    # no usage key, but a hint block: 2.x (a 2.x record that lost its usage)
    hint_only = _by_file("hints.jsonl")[3]
    assert DIALECT.variant({k: v for k, v in hint_only.items() if k != "usage"}) == "2.x"


# -- reading --------------------------------------------------------------------------


def test_read_react_run():
    records = _by_file("react-weather.jsonl")
    user, reasoning, tool, final = (DIALECT.read(r) for r in records[:4])
    assert [m.role for m in (user, reasoning, tool, final)] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert all(m.dialect == "agentscope-java" and m.variant == "2.x" for m in (user, tool))
    assert reasoning.name == "WeatherAgent" and reasoning.id.startswith("chatcmpl-")
    think, say, call = reasoning.content
    assert isinstance(think, ThinkingBlock) and think.fields == {"metadata": None}
    assert isinstance(say, TextBlock) and say.text.startswith("Let me check")
    assert isinstance(call, ToolCallBlock)
    assert call.type == "tool_call" and call.path == ("content", 2)
    assert call.name == "get_weather" and call.state == "allowed"
    assert call.arguments == {"city": "Hangzhou"}  # the object
    assert json.loads(call.input) == {"city": "Hangzhou"}  # the raw text
    assert call.fields == {"metadata": {}}
    (result,) = tool.content
    assert isinstance(result, ToolResultBlock)
    assert (result.id, result.name, result.state) == (call.id, "get_weather", "success")
    assert result.output[0].path == ("content", 0, "output", 0)
    assert "18°C" in result.output[0].text
    assert reasoning.usage.input_tokens == 412 and reasoning.usage.output_tokens == 58
    assert reasoning.usage.total_tokens == 470 and reasoning.usage.time == pytest.approx(1.734)
    assert tool.usage is None
    assert reasoning.timestamp == "2026-08-22 23:15:57.198"
    assert not any(m.extra for m in (user, reasoning, tool, final))


def test_read_media():
    user, _, audio, _, video_and_data, _, tool, _ = (
        DIALECT.read(r) for r in _by_file("media.jsonl")
    )
    _, by_url, by_data = user.content
    assert isinstance(by_url, DataBlock) and by_url.kind == "image"
    assert by_url.source == Source(
        kind="url", url="https://cdn.example.com/shelf/before.jpg", media_type="image/jpeg"
    )
    assert by_data.source.kind == "base64" and by_data.source.media_type == "image/png"
    assert by_data.fields == {"minPixels": 3136, "maxPixels": 1003520}
    assert not by_data.extra
    assert audio.content[1].kind == "audio" and audio.content[1].source.kind == "base64"
    video, data = video_and_data.content[1:]
    assert video.kind == "video" and video.fields == {"fps": 2.0, "maxFrames": 64}
    assert data.kind == "data" and data.name == "stock-q3.pdf" and len(data.id) == 32
    assert data.source.media_type == "application/pdf"
    image_out = tool.content[0].output[1]
    assert isinstance(image_out, DataBlock) and image_out.path == ("content", 0, "output", 1)


def test_read_hints_and_1x():
    hint_msg = DIALECT.read(_by_file("hints.jsonl")[3])
    (hint,) = hint_msg.content
    assert isinstance(hint, HintBlock) and hint.source == "reviewer" and len(hint.id) == 32
    legacy = [DIALECT.read(r) for r in _by_file("legacy-1x.jsonl")]
    assert {m.variant for m in legacy} == {"1.x"}
    call = legacy[1].content[1]
    assert call.state is None and call.arguments == {"city": "Paris"}
    assert legacy[0].content[1].source.media_type is None


def test_snake_case_pixel_keys_are_known():
    record = {
        "id": "x",
        "name": None,
        "role": "USER",
        "content": [
            {
                "type": "image",
                "source": {"type": "url", "url": "https://e.com/a.png"},
                "min_pixels": 1,
                "max_pixels": 2,
            },
            {"type": "video", "max_frames": 3, "total_pixels": 4},
        ],
        "metadata": {},
        "timestamp": "2026-08-22 23:15:56.123",
        "usage": None,
    }
    msg = DIALECT.read(record)
    assert [b.extra for b in msg.content] == [{}, {}]
    assert msg.content[0].fields == {"min_pixels": 1, "max_pixels": 2}
    assert _same(DIALECT.write(msg), record)


def test_unknown_keys_go_to_extra_at_every_level():
    record = copy.deepcopy(_by_file("media.jsonl")[5])  # [text, tool_use] and usage
    record["content"][1]["arguments"] = "{}"
    record["usage"]["reasoningTokens"] = 3
    record["generateReason"] = "TOOL_CALLS"
    msg = DIALECT.read(record)
    assert msg.extra == {"generateReason": "TOOL_CALLS"}
    assert msg.content[1].extra == {"arguments": "{}"}
    assert msg.usage.extra == {"reasoningTokens": 3}
    source_record = copy.deepcopy(_by_file("media.jsonl")[0])
    source_record["content"][1]["source"]["detail"] = "high"
    assert DIALECT.read(source_record).content[1].source.extra == {"detail": "high"}


def test_unknown_and_broken_blocks_are_kept_whole():
    record = copy.deepcopy(_by_file("react-weather.jsonl")[0])
    odd = [{"type": "image_url", "image_url": {"url": "u"}}, {"text": "no type"}, None, 7]
    record["content"] = odd
    msg = DIALECT.read(record)
    assert all(isinstance(b, UnknownBlock) for b in msg.content)
    assert [b.raw for b in msg.content] == odd
    assert _same(DIALECT.write(msg), record)


def test_role_spelling_is_written_back():
    record = dict(_by_file("react-weather.jsonl")[0], role="user")
    msg = DIALECT.read(record)
    assert msg.role == "user"
    assert DIALECT.write(msg)["role"] == "user"


KNOWN_KEYS = [
    "id",
    "name",
    "role",
    "content",
    "metadata",
    "timestamp",
    "usage",
    "type",
    "text",
    "thinking",
    "input",
    "state",
    "output",
    "source",
    "url",
    "mime_type",
    "media_type",
    "data",
    "hint",
    "inputTokens",
    "outputTokens",
    "totalTokens",
    "time",
    "fps",
    "minPixels",
]
TOKENS = [
    "text",
    "thinking",
    "image",
    "audio",
    "video",
    "tool_use",
    "tool_result",
    "hint",
    "data",
    "url",
    "base64",
    "USER",
    "TOOL",
]
SHAPED = shaped_values(KNOWN_KEYS, TOKENS)


@given(JSON_VALUES)
@settings(max_examples=examples(200), suppress_health_check=[HealthCheck.too_slow])
def test_nothing_raises_on_any_json(value):
    exercise(DIALECT, value)


@given(shaped_records(KNOWN_KEYS, TOKENS))
@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow])
def test_nothing_raises_on_message_shaped_json(record):
    exercise(DIALECT, record)


@given(st.data())
@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow])
def test_nothing_raises_on_mutated_records(data):
    exercise(DIALECT, mutated(data, [r for _, _, r in GOOD], SHAPED))


def test_deeply_nested_tool_results_do_not_raise():
    block = {"type": "text", "text": "leaf"}
    for _ in range(80):  # deeper than the reader descends; within what orjson parses
        block = {
            "type": "tool_result",
            "id": "c",
            "name": "t",
            "output": [block],
            "metadata": {},
            "state": "success",
        }
    record = {
        "id": "x",
        "name": "A",
        "role": "TOOL",
        "content": [block],
        "metadata": {},
        "timestamp": "2026-08-22 23:15:56.123",
        "usage": None,
    }
    exercise(DIALECT, record)
    assert _same(DIALECT.write(DIALECT.read(record)), record)
    for _ in range(400):  # deeper than any parser hands over: still no RecursionError
        block = {"type": "tool_result", "output": [block]}
    exercise(DIALECT, dict(record, content=[block]))


# -- writing --------------------------------------------------------------------------


@pytest.mark.parametrize("record", [r for _, _, r in GOOD], ids=GOOD_IDS)
def test_write_gives_the_record_back(record):
    assert _same(DIALECT.write(DIALECT.read(record)), record)


def test_write_reproduces_the_valid_files_byte_for_byte():
    for path in sorted(VALID.glob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            written = DIALECT.write(DIALECT.read(orjson.loads(line)))
            text = json.dumps(written, ensure_ascii=False, separators=(",", ":"))
            assert text.encode() == line, path.name


def test_write_1x_has_six_keys_and_no_states():
    for record in _by_file("legacy-1x.jsonl"):
        written = DIALECT.write(DIALECT.read(record))
        assert list(written) == ["id", "name", "role", "content", "metadata", "timestamp"]
        assert "state" not in json.dumps(written)


def test_write_from_another_dialect_is_a_valid_java_message(validator):
    msg = Message(
        dialect="agentscope-py",
        role="assistant",
        name="Friday",
        id="f" * 32,
        content=[
            ThinkingBlock(type="thinking", thinking="Check the weather.", extra={"signature": "s"}),
            ToolCallBlock(
                type="tool_call",
                id="call_1",
                name="get_weather",
                input='{"city": "Zürich"}',
                state="finished",
                fields={"suggested_rules": []},
            ),
            ToolResultBlock(
                type="tool_result",
                id="call_1",
                name="get_weather",
                output="Zürich: 7 °C",
                state="in_progress",
            ),
            DataBlock(
                type="data",
                kind="content",
                source=Source(
                    kind="base64", media_type="image/png", data="iVBORw0KGgo=", data_uri=True
                ),
            ),
            ValueBlock(type="value", value={"answer": 42}),
            HintBlock(type="hint", id="h1", hint="be brief", source={"label": "System"}),
        ],
        metadata={},
        timestamp="2026-11-22T11:54:32.303653",
        usage=Usage(input_tokens=10, output_tokens=5, cache_creation_tokens=3),
        variant="2.x",
        fields={"finished_reason": "completed"},
    )
    written = DIALECT.write(msg)
    assert list(written) == ["id", "name", "role", "content", "metadata", "timestamp", "usage"]
    assert written["role"] == "ASSISTANT"
    assert written["timestamp"] == "2026-11-22 11:54:32.303"
    call = written["content"][1]
    assert call["input"] == {"city": "Zürich"} and call["content"] == '{"city": "Zürich"}'
    assert call["state"] == "finished" and "suggested_rules" not in call
    assert written["content"][2]["output"] == [{"type": "text", "text": "Zürich: 7 °C"}]
    assert written["content"][2]["state"] == "running"
    assert written["content"][3]["type"] == "data"
    assert written["usage"] == {
        "inputTokens": 10,
        "outputTokens": 5,
        "cachedTokens": 0,
        "time": 0.0,
        "totalTokens": 15,
    }
    errors = [e.message for e in validator.iter_errors(written)]
    assert errors == []


# -- schema ---------------------------------------------------------------------------


@pytest.mark.parametrize("record", [r for _, _, r in GOOD], ids=GOOD_IDS)
def test_schema_accepts_good_records(validator, record):
    assert [e.message for e in validator.iter_errors(record)] == []


def _base() -> dict:
    return copy.deepcopy(_by_file("react-weather.jsonl")[1])  # ASSISTANT thinking/text/tool_use


def _tool() -> dict:
    return copy.deepcopy(_by_file("react-weather.jsonl")[2])  # TOOL with a tool_result


def _user_media() -> dict:
    return copy.deepcopy(_by_file("media.jsonl")[0])  # USER text, image url, image base64


# (record, path of the error, failing keyword)
SCHEMA_CASES = {
    "role lower case": (set_at(_base(), ["role"], "assistant"), ["role"], "enum"),
    "role missing": (drop_at(_base(), ["role"]), [], "required"),
    "role null": (set_at(_base(), ["role"], None), ["role"], "enum"),
    "content a string": (set_at(_base(), ["content"], "hi"), ["content"], "type"),
    "metadata an array": (set_at(_base(), ["metadata"], []), ["metadata"], "type"),
    "id a number": (set_at(_base(), ["id"], 7), ["id"], "type"),
    "block type unknown": (
        set_at(_base(), ["content", 1, "type"], "image_url"),
        ["content", 1, "type"],
        "enum",
    ),
    "block type missing": (drop_at(_base(), ["content", 1, "type"]), ["content", 1], "required"),
    "text not a string": (
        set_at(_base(), ["content", 1, "text"], ["a"]),
        ["content", 1, "text"],
        "type",
    ),
    "thinking metadata a string": (
        set_at(_base(), ["content", 0, "metadata"], "x"),
        ["content", 0, "metadata"],
        "type",
    ),
    "tool_use state upper case": (
        set_at(_base(), ["content", 2, "state"], "PENDING"),
        ["content", 2, "state"],
        "enum",
    ),
    "tool_use input a string": (
        set_at(_base(), ["content", 2, "input"], "{}"),
        ["content", 2, "input"],
        "type",
    ),
    "tool_use content an object": (
        set_at(_base(), ["content", 2, "content"], {}),
        ["content", 2, "content"],
        "type",
    ),
    "tool_result state unknown": (
        set_at(_tool(), ["content", 0, "state"], "SUCCESS"),
        ["content", 0, "state"],
        "enum",
    ),
    "tool_result output a string": (
        set_at(_tool(), ["content", 0, "output"], "ok"),
        ["content", 0, "output"],
        "type",
    ),
    "tool_result output null element": (
        set_at(_tool(), ["content", 0, "output"], [None]),
        ["content", 0, "output", 0],
        "type",
    ),
    "tool_result output bad block": (
        set_at(_tool(), ["content", 0, "output", 0, "type"], "txt"),
        ["content", 0, "output", 0, "type"],
        "enum",
    ),
    "tool_result metadata null value": (
        set_at(_tool(), ["content", 0, "metadata"], {"agentscope_suspended": None}),
        ["content", 0, "metadata", "agentscope_suspended"],
        "not",
    ),
    "image without source": (
        drop_at(_user_media(), ["content", 1, "source"]),
        ["content", 1],
        "required",
    ),
    "image source null": (
        set_at(_user_media(), ["content", 1, "source"], None),
        ["content", 1, "source"],
        "type",
    ),
    "url source without url": (
        drop_at(_user_media(), ["content", 1, "source", "url"]),
        ["content", 1, "source"],
        "required",
    ),
    "base64 without data": (
        drop_at(_user_media(), ["content", 2, "source", "data"]),
        ["content", 2, "source"],
        "required",
    ),
    "source type unknown": (
        set_at(_user_media(), ["content", 1, "source", "type"], "file"),
        ["content", 1, "source", "type"],
        "enum",
    ),
    "pixel limit a float": (
        set_at(_user_media(), ["content", 2, "maxPixels"], 1.5),
        ["content", 2, "maxPixels"],
        "type",
    ),
    "hint source an object": (
        set_at(copy.deepcopy(_by_file("hints.jsonl")[3]), ["content", 0, "source"], {"a": 1}),
        ["content", 0, "source"],
        "type",
    ),
    "usage count a string": (
        set_at(_base(), ["usage", "inputTokens"], "412"),
        ["usage", "inputTokens"],
        "type",
    ),
    "usage count beyond int": (
        set_at(_base(), ["usage", "outputTokens"], 2**31),
        ["usage", "outputTokens"],
        "maximum",
    ),
    "usage an array": (set_at(_base(), ["usage"], []), ["usage"], "type"),
}


@pytest.mark.parametrize("case", sorted(SCHEMA_CASES))
def test_schema_rejects(validator, case):
    record, path, keyword = SCHEMA_CASES[case]
    errors = list(validator.iter_errors(record))
    assert [(list(e.absolute_path), e.validator) for e in errors] == [(path, keyword)]
    assert all(e.schema.get("x-msgcli-rule", "S001") == "S001" for e in errors)


@pytest.mark.parametrize(
    ("role", "block"),
    [
        ("USER", {"type": "thinking", "thinking": "t", "metadata": None}),
        ("USER", {"type": "hint", "id": "h", "hint": "x", "source": "alice"}),
        (
            "USER",
            {
                "type": "tool_use",
                "id": "c",
                "name": "n",
                "input": {},
                "content": None,
                "metadata": {},
                "state": "pending",
            },
        ),
        ("SYSTEM", {"type": "image", "source": {"type": "url", "url": "https://e.com/a.png"}}),
        (
            "SYSTEM",
            {"type": "data", "source": {"type": "url", "url": "https://e.com/a"}, "id": "d"},
        ),
    ],
)
def test_schema_role_block_errors_are_s002(validator, role, block):
    record = _system()
    record["role"] = role
    record["content"].append(block)
    (error,) = validator.iter_errors(record)
    assert list(error.absolute_path) == ["content", 1, "type"]
    assert error.schema["x-msgcli-rule"] == "S002"


def test_schema_unknown_block_in_user_message_is_s001_only(validator):
    record = set_at(_user_media(), ["content", 1, "type"], "image_url")
    (error,) = validator.iter_errors(record)
    assert error.validator == "enum" and "x-msgcli-rule" not in error.schema


def test_schema_accepts_what_the_framework_accepts(validator):
    system = _system()
    accepted = [
        set_at(copy.deepcopy(system), ["content"], []),  # role check skipped on empty content
        set_at(copy.deepcopy(system), ["content"], None),  # null content reads as []
        set_at(copy.deepcopy(system), ["content", 0], None) | {},  # null elements are dropped
        set_at(_base(), ["content", 2, "state"], None),  # reads as pending
        drop_at(_base(), ["content", 2, "state"]),  # 1.x shape
        set_at(_base(), ["content", 2, "content"], None),  # no raw text
        set_at(_base(), ["usage"], None),
        set_at(_base(), ["usage", "totalTokens"], "anything"),  # ignored on read
        set_at(_base(), ["metadata", "agentscope_generate_reason"], "NOT_A_REASON"),
        set_at(_base(), ["timestamp"], "yesterday"),  # never parsed on read
        set_at(_base(), ["unknownKey"], 1),  # ignored on read
        set_at(_tool(), ["role"], "TOOL") | {"content": [{"type": "text", "text": "any block"}]},
        set_at(_user_media(), ["content", 1, "min_pixels"], 10),
        {
            "id": None,
            "name": None,
            "role": "ASSISTANT",
            "content": [
                {"type": "video"},
                {"type": "text", "text": None},
                {"type": "hint", "id": None, "hint": None, "source": None},
            ],
        },
    ]
    for record in accepted:
        assert [e.message for e in validator.iter_errors(record)] == []


# -- checks ---------------------------------------------------------------------------


def _check(record) -> list[tuple[str, str]]:
    found = []
    msg = DIALECT.read(record)
    DIALECT.check(record, msg, lambda code, message, ptr="": found.append((code, ptr)))
    return sorted(found)


@pytest.mark.parametrize("record", [r for _, _, r in GOOD], ids=GOOD_IDS)
def test_good_records_pass_the_checks(record):
    assert _check(record) == []


def test_missing_keys_depend_on_the_version():
    v2 = drop_at(drop_at(_base(), ["timestamp"]), ["content", 2, "content"])
    assert _check(v2) == [("S004", ""), ("S004", "/content/2")]
    legacy = _by_file("legacy-1x.jsonl")[1]
    assert _check(legacy) == []  # six keys and no states: the 1.x shape is complete
    no_usage = drop_at(_by_file("hints.jsonl")[3], ["usage"])  # a 2.x hint without usage
    assert _check(no_usage) == [("S004", "")]
    no_cached = drop_at(_base(), ["usage", "cachedTokens"])
    assert _check(no_cached) == [("S004", "/usage")]


@pytest.mark.parametrize(
    "stamp",
    [
        "2026-08-22T23:15:56.123",
        "2026-08-22 23:15:56",
        "2026-08-22 23:15:56.12",
        "2026-08-22 23:15:56.123+08:00",
        "2026-08-22 23:15:56.123\n",
        "2026-13-01 00:00:00.000",
        None,
    ],
)
def test_timestamp_form(stamp):
    assert _check(set_at(_base(), ["timestamp"], stamp)) == [("C001", "/timestamp")]


def test_usage_totals():
    assert _check(set_at(_base(), ["usage", "totalTokens"], 412)) == [
        ("B003", "/usage/totalTokens")
    ]
    assert _check(set_at(_base(), ["metadata", "_chat_usage", "totalTokens"], "470")) == [
        ("B003", "/metadata/_chat_usage/totalTokens")
    ]
    # a missing count reads as 0
    record = drop_at(set_at(_base(), ["usage", "totalTokens"], 58), ["usage", "inputTokens"])
    assert _check(record) == [("S004", "/usage")]


def test_generate_reason_is_not_checked():
    # an unknown name reads as MODEL_STOP in the framework: no finding
    assert _check(set_at(_base(), ["metadata", "agentscope_generate_reason"], "NOPE")) == []


# -- time -----------------------------------------------------------------------------


def test_parse_time():
    assert DIALECT.parse_time("2026-08-22 23:15:56.123") == datetime(
        2026, 8, 22, 23, 15, 56, 123000
    )
    # near forms still give a time, so a badly stamped message keeps its place in the order
    assert DIALECT.parse_time("2026-08-22T23:15:56.5") == datetime(2026, 8, 22, 23, 15, 56, 500000)
    assert DIALECT.parse_time("2026-08-22 23:15:56") == datetime(2026, 8, 22, 23, 15, 56)
    for value in [
        "2026-08-22 23:15:56.123+08:00",
        "2026-02-30 10:00:00.000",
        "yesterday",
        "",
        None,
        1787000000,
        "２０２６-08-22 23:15:56.123",
    ]:
        assert DIALECT.parse_time(value) is None, value


def test_parse_time_orders_the_valid_logs():
    for path in sorted(VALID.glob("*.jsonl")):
        times = [DIALECT.parse_time(r["timestamp"]) for r in lines(path)]
        assert None not in times and times == sorted(times), path.name


def test_time_group_is_the_whole_file():
    assert DIALECT.time_group(DIALECT.read(_base())) is None
