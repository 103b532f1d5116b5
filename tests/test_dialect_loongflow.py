"""The LoongFlow dialect: detection, reading, writing, schema, checks, times.

Two tables recorded from the library itself (``fixtures/cases/loongflow``) drive most of
it: inputs ``Message.from_dict()`` accepts, with what ``to_dict()`` made of them, and
inputs it rejects, with pydantic's error locations. For each case this file also states
what msgcli says about it, and why (``EDGE_VERDICTS``, ``INVALID_VERDICTS``).

That LoongFlow claims its real and hand-made records, and no other dialect's, is checked
in ``test_detection.py``; the edge cases of LoongFlow detection are here.
"""

from __future__ import annotations

import collections
import copy
import io
import json
from datetime import datetime, timedelta

import jsonschema
import orjson
import pytest
from conftest import FIXTURES, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from samples import ids, lines, records
from strategies import JSON_VALUES, exercise, mutated, shaped_records, shaped_values

import msgcli
from msgcli.dialects.loongflow import DIALECT
from msgcli.model import (
    DataBlock,
    EvolveResultBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
    ValueBlock,
)

REAL = FIXTURES / "real" / "loongflow" / "transcript.jsonl"
VALID = FIXTURES / "valid" / "loongflow"
CASES = FIXTURES / "cases" / "loongflow"

UUID = "a3cba04c-e8c9-4cc6-8c23-c4c52274e72f"

REAL_MESSAGES = records([REAL])
VALID_MESSAGES = records(sorted(VALID.glob("*.jsonl")) + sorted(VALID.glob("*.json")))
ALL_GOOD = REAL_MESSAGES + VALID_MESSAGES
GOOD_IDS = ids(ALL_GOOD)

EDGE_CASES = {c["case"]: c for c in lines(CASES / "edge_cases_valid.jsonl")}
INVALID_CASES = {c["case"]: c for c in lines(CASES / "invalid_cases.jsonl")}
PYPI_001_CASE = "evolve_result, str variant (PyPI 0.0.1)"


def _real(line: int) -> dict:
    return copy.deepcopy(REAL_MESSAGES[line - 1][2])


def _message(*content, **keys) -> dict:
    """A message as to_dict() writes it, with the given elements."""
    return {
        "id": keys.pop("id", UUID),
        "timestamp": keys.pop("timestamp", "2026-01-22T10:00:00.123456"),
        "trace_id": keys.pop("trace_id", ""),
        "conversation_id": keys.pop("conversation_id", ""),
        "role": keys.pop("role", "user"),
        "sender": keys.pop("sender", "user"),
        "metadata": keys.pop("metadata", {}),
        "content": list(content),
        **keys,
    }


def _text(data="hi", **keys) -> dict:
    return {"type": "content", "mime_type": "text/plain", "metadata": {}, "data": data, **keys}


def _evolve(**keys) -> dict:
    out = {
        "type": "evolve_result",
        "best_score": 0.9731,
        "best_solution": ["def solve(x):\n    return x * 2\n"],
        "evaluation": ['{"score": 0.9731}'],
        "start_time": "2026-01-22 10:00:00",
        "end_time": "2026-01-22 11:30:12",
        "cost_time": 5412,
        "last_iteration": 37,
        "total_iterations": 50,
        "total_cost": 1.8342,
        "total_tokens": 1520931.0,
    }
    out.update(keys)
    return {k: v for k, v in out.items() if v is not ...}


def _check(record: dict) -> list[tuple[str, str, str]]:
    found = []
    DIALECT.check(record, DIALECT.read(record), lambda c, m, p="": found.append((c, m, p)))
    return found


def _msgcli(record: dict) -> collections.Counter:
    """The rule codes `msgcli validate --dialect loongflow` gives for a one-line file."""
    data = io.BytesIO(orjson.dumps(record) + b"\n")
    return collections.Counter(f.code for f in msgcli.iter_findings(data, dialect="loongflow"))


def _codes(text: str) -> collections.Counter:
    """'S004*5 T002' -> Counter({'S004': 5, 'T002': 1})."""
    out: collections.Counter = collections.Counter()
    for word in text.split():
        code, _, times = word.partition("*")
        out[code] += int(times or 1)
    return out


# -- classify ---------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_every_accepted_case_is_recognised(case):
    assert DIALECT.classify(EDGE_CASES[case]["input"]) == "message"


# (record, expected, why)
CLASSIFY_DECISIONS = [
    (
        {"role": "user", "content": []},
        "message",
        "only LoongFlow accepts a bare role+content (AgentScope needs a name or upper-case role)",
    ),
    ({"role": "user", "content": [], "metadata": {}}, "message", "the same, with metadata"),
    ({"role": "USER", "content": []}, None, "an upper-case role and nothing else is Java's sign"),
    (
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        None,
        "an AgentScope block type and no LoongFlow sign",
    ),
    ({"role": "USER", "content": [_text()]}, "message", "a content element outweighs the role"),
    (
        {"role": "user", "content": [{"mime_type": "text/plain", "data": "x"}]},
        "message",
        "an untyped element with mime_type is a LoongFlow content element",
    ),
    (
        {"role": "assistant", "content": [{"type": "tool_call", "target": "f", "arguments": {}}]},
        "message",
        "tool_call is shared with AgentScope Python, but 'target' is LoongFlow's",
    ),
    ({"sender": "actor"}, "message", "sender, trace_id and conversation_id are LoongFlow's own"),
    (
        {"id": "msg-1", "timestamp": "2026-01-22T10:00:00", "role": "user", "content": []},
        "message",
        "a 'T' timestamp: AgentScope messages never have one under 'timestamp'",
    ),
    (
        {"id": UUID, "timestamp": 1769076000, "role": "user", "content": []},
        "message",
        "an epoch timestamp is LoongFlow-only too",
    ),
    (
        {"id": UUID, "timestamp": "yesterday", "role": "user", "content": []},
        "message",
        "plain keys with a hyphenated UUID id",
    ),
    (
        {"id": UUID.replace("-", ""), "role": "user", "content": []},
        None,
        "a 32-hex id without any LoongFlow sign looks like AgentScope Python 2.x",
    ),
    ({"content": []}, None, "nothing tells (AgentScope Java reads it too)"),
    ({"role": "user"}, None, "no content: nothing tells"),
    ({"sender": "x", "created_at": "2026-01-22T10:00:00"}, None, "created_at is AgentScope's"),
    ({"role": "user", "content": [], "name": "bob"}, None, "AgentScope always names the sender"),
    # AgentScope Python 2.x records, left out of the detection matrix: no dialect claims them
    (
        {
            "name": "Friday",
            "content": [],
            "role": "assistant",
            "id": "83cf2b3013784b90837f1cce3f71c1bc",
        },
        None,
        "AgentScope Python 2.x with the optional keys left out: still a name and a 32-hex id",
    ),
    (
        {
            "name": "Friday",
            "role": "assistant",
            "content": [{"type": "tool_call", "id": "call_1", "name": "f", "input": "{}"}],
        },
        None,
        "AgentScope Python 2.x tool call: the shared block name, with AgentScope's keys",
    ),
    (
        {"id": "8d05451a115e477e91ed86be278b185c", "role": "user", "content": []},
        None,
        "neither name nor created_at, but a 32-hex id and no LoongFlow sign",
    ),
]


@pytest.mark.parametrize(
    ("record", "expected", "why"), CLASSIFY_DECISIONS, ids=[d[2][:40] for d in CLASSIFY_DECISIONS]
)
def test_classify_decisions(record, expected, why):
    assert DIALECT.classify(record) == expected, why


# -- variant ----------------------------------------------------------------------


def test_variant_is_told_by_evolve_result_only():
    assert DIALECT.variant(_real(1)) is None
    assert DIALECT.variant(_real(12)) == "current"
    old = _evolve(best_solution="x", evaluation="y", total_cost=..., total_tokens=...)
    assert DIALECT.variant(_message(old)) == "0.0.1"
    assert DIALECT.variant(_message(_evolve(total_cost=..., total_tokens=...))) == "current"
    assert DIALECT.variant(_message(_evolve(evaluation="y"))) == "mixed"
    assert DIALECT.variant(_message(_evolve(), old)) == "mixed"
    assert DIALECT.variant(_message(_evolve(best_solution=None, evaluation=None))) is None


def test_valid_fixtures_name_their_variants():
    assert {DIALECT.variant(r) for r in lines(VALID / "evolve-0.0.1.jsonl")} == {None, "0.0.1"}
    assert {DIALECT.variant(r) for r in lines(VALID / "evolve-current.jsonl")} == {
        None,
        "current",
    }


# -- read -------------------------------------------------------------------------


def test_read_keeps_the_message_keys():
    msg = DIALECT.read(_real(3))
    assert msg.dialect == "loongflow"
    assert msg.id == "f61e5a65-7793-4894-b639-0dfb8c89b14a"
    assert msg.timestamp == "2026-11-22T11:52:09.563765"
    assert msg.role == "assistant"
    assert msg.name == "reasoner"
    assert msg.fields == {"trace_id": "trace-20260122-0001", "conversation_id": "conv-7f3a9c"}
    assert msg.metadata == {
        "usage": {"completion_tokens": 46, "prompt_tokens": 812, "total_tokens": 858}
    }
    assert msg.extra == {}


def test_usage_is_a_view_of_metadata_usage():
    msg = DIALECT.read(_real(3))
    assert (msg.usage.input_tokens, msg.usage.output_tokens, msg.usage.total_tokens) == (
        812,
        46,
        858,
    )
    assert msg.usage.extra == {}
    assert "usage" in msg.metadata  # metadata itself is untouched
    assert DIALECT.read(_message(_text(), metadata={"usage": None})).usage is None
    assert DIALECT.read(_real(1)).usage is None


def test_read_role_as_written():
    assert DIALECT.read(_message(_text(), role="USER")).role == "USER"
    assert DIALECT.read(_message(_text(), role="observer")).role == "observer"


def test_read_think_and_tool_call():
    think, call = DIALECT.read(_real(3)).content
    assert isinstance(think, ThinkingBlock)
    assert think.thinking.startswith("The user wants today's weather")
    assert think.path == ("content", 0)
    assert isinstance(call, ToolCallBlock)
    assert call.type == "tool_call"
    assert call.id == "a3cba04c-e8c9-4cc6-8c23-c4c52274e72f"
    assert call.name == "get_weather"
    assert call.arguments == {"city": "Beijing", "unit": "celsius"}
    assert call.input is None  # LoongFlow keeps no argument text
    assert call.fields["metadata"] == {"tool_arguments_err": ""}
    assert call.path == ("content", 1)


def test_read_tool_output_and_its_result_items():
    (result,) = DIALECT.read(_real(4)).content
    assert isinstance(result, ToolResultBlock)
    assert result.id == "a3cba04c-e8c9-4cc6-8c23-c4c52274e72f"
    assert result.name == "get_weather"
    assert result.state == "success"
    (item,) = result.output
    assert isinstance(item, ValueBlock)
    assert item.value["temp_c"] == 25
    assert item.mime_type == "application/json"
    assert item.path == ("content", 0, "result", 0)
    (error,) = DIALECT.read(_real(6)).content
    assert error.state == "error"
    assert isinstance(error.output[0], TextBlock)
    assert error.output[0].text == "upstream AQI service timed out after 10s"


def test_read_text_keeps_mime_type_and_metadata():
    (block,) = DIALECT.read(_real(2)).content
    assert isinstance(block, TextBlock)
    assert block.type == "text"
    assert block.text.endswith("北京今天天气怎么样？")
    assert block.fields == {"type": "content", "mime_type": "text/plain", "metadata": {}}


def test_read_media_sources():
    png = DIALECT.read(_real(10)).content[0]
    assert isinstance(png, DataBlock)
    assert png.kind == "content"
    assert png.source.kind == "base64"
    assert png.source.data_uri is True
    assert png.source.data.startswith("iVBORw0KGgo")  # the part after the comma
    assert png.source.media_type == "image/png"
    url = DIALECT.read(_real(11)).content[1]
    assert isinstance(url, DataBlock)
    assert url.source.kind == "url"
    assert url.source.url == "https://example.com/beijing-sky.jpg"
    assert url.source.media_type == "image/jpeg"
    assert url.fields["metadata"] == {"source": "upload", "width": 640, "height": 480}


@pytest.mark.parametrize(
    ("mime_type", "data", "kind", "media_type", "payload"),
    [
        ("image/jpeg", "/9j/4AAQSkZJRg==", "base64", "image/jpeg", "/9j/4AAQSkZJRg=="),
        ("image/png", "data:image/gif;base64,R0lGOD==", "base64", "image/gif", "R0lGOD=="),
        ("audio/mpeg", "https://cdn.example.com/a.mp3", "url", "audio/mpeg", None),
        ("video/mp4", "s3://bucket/v.mp4", "url", "video/mp4", None),
        # not base64 at all: a URL without a scheme, which the URL check then reports
        ("image/png", "uploads/cat.png", "url", "image/png", None),
        # a data: URI that is not base64 is a URL too, kept whole
        ("image/svg+xml", "data:image/svg+xml,%3Csvg%2F%3E", "url", "image/svg+xml", None),
    ],
)
def test_read_media_forms(mime_type, data, kind, media_type, payload):
    element = {"type": "content", "mime_type": mime_type, "metadata": {}, "data": data}
    (block,) = DIALECT.read(_message(element)).content
    assert isinstance(block, DataBlock)
    assert block.source.kind == kind
    assert block.source.media_type == media_type
    if kind == "url":
        assert block.source.url == data
    else:
        assert block.source.data == payload
    assert DIALECT.write(DIALECT.read(_message(element)))["content"] == [element]


@pytest.mark.parametrize(
    ("element", "value"),
    [
        ({"type": "content", "mime_type": "application/json", "data": {"a": 1}}, {"a": 1}),
        ({"type": "content", "mime_type": "text/markdown", "data": "# h"}, "# h"),
        ({"type": "content", "mime_type": "text/plain", "data": None}, None),
        ({"type": "content", "mime_type": "text/plain", "data": 42}, 42),
        ({"type": "content", "mime_type": "image/png", "data": {"url": "x"}}, {"url": "x"}),
    ],
)
def test_read_other_content_is_a_value(element, value):
    (block,) = DIALECT.read(_message(element)).content
    assert isinstance(block, ValueBlock)
    assert block.value == value
    assert block.mime_type == element["mime_type"]


def test_read_content_without_mime_type_is_text():
    (block,) = DIALECT.read(_message({"type": "content", "data": "x"})).content
    assert isinstance(block, TextBlock)
    assert "mime_type" not in block.fields


def test_read_think_with_a_non_text_thought():
    element = {"type": "think", "metadata": {}, "content": {"plan": ["a", "b"]}}
    (block,) = DIALECT.read(_message(element)).content
    assert isinstance(block, ThinkingBlock)
    assert block.thinking == ""
    assert block.fields["content"] == {"plan": ["a", "b"]}


def test_read_function_alias_is_a_tool_call():
    element = {"type": "function", "call_id": UUID, "metadata": {}, "target": "f", "arguments": {}}
    (block,) = DIALECT.read(_message(element)).content
    assert isinstance(block, ToolCallBlock)
    assert block.fields["type"] == "function"


def test_read_evolve_result_shapes():
    (current,) = DIALECT.read(_real(12)).content
    assert isinstance(current, EvolveResultBlock)
    assert current.variant == "current"
    assert current.fields["best_score"] == 0.9731
    assert current.fields["total_tokens"] == 1520931.0
    assert current.extra == {}
    old = _evolve(best_solution="x", evaluation="y")
    (block,) = DIALECT.read(_message(old)).content
    assert block.variant == "0.0.1"
    # PyPI 0.0.1 has no total_cost/total_tokens: it drops them
    assert block.extra == {"total_cost": 1.8342, "total_tokens": 1520931.0}
    (mixed,) = DIALECT.read(_message(_evolve(evaluation="y"))).content
    assert mixed.variant == "mixed"
    assert mixed.extra == {}


def test_unknown_keys_go_to_extra_at_every_level():
    result = {"type": "content", "mime_type": "text/plain", "metadata": {}, "data": "ok", "x": 1}
    output = {
        "type": "tool_output",
        "call_id": UUID,
        "metadata": {},
        "tool_name": "f",
        "status": "success",
        "result": [result],
        "elapsed": 0.2,
    }
    record = _message(_text(text="dup"), output, parent_id="p1")
    msg = DIALECT.read(record)
    assert msg.extra == {"parent_id": "p1"}
    assert msg.content[0].extra == {"text": "dup"}
    assert msg.content[1].extra == {"elapsed": 0.2}
    assert msg.content[1].output[0].extra == {"x": 1}
    assert DIALECT.write(msg) == record


def test_unknown_and_untyped_elements_are_kept_whole():
    record = _message({"type": "text", "text": "x"}, "bare", {"mime_type": "text/plain"})
    msg = DIALECT.read(record)
    assert [type(b) for b in msg.content] == [UnknownBlock, UnknownBlock, UnknownBlock]
    assert msg.content[0].raw == {"type": "text", "text": "x"}
    assert DIALECT.write(msg) == record


def test_content_that_is_not_a_list_is_kept_whole():
    for value in ("Where is my order?", None, {"data": "x"}):
        record = _message(content=value)
        msg = DIALECT.read(record)
        assert isinstance(msg.content[0], UnknownBlock)
        assert DIALECT.write(msg) == record


# -- read never raises --------------------------------------------------------------

KNOWN_KEYS = [
    "id",
    "timestamp",
    "trace_id",
    "conversation_id",
    "role",
    "sender",
    "metadata",
    "content",
    "type",
    "mime_type",
    "data",
    "call_id",
    "target",
    "arguments",
    "tool_name",
    "status",
    "result",
    "usage",
    "tool_arguments_err",
    "best_score",
    "best_solution",
    "evaluation",
    "cost_time",
    "total_cost",
]
TOKENS = [
    "content",
    "tool_call",
    "function",
    "tool_output",
    "think",
    "evolve_result",
    "image/png",
    "text/plain",
    "data:image/png;base64,iVBORw0K",
    "https://x.org/a.png",
    UUID,
    UUID.upper(),
    "2026-01-22 10:00:00",
    "2026-02-29",
    "1769076000",
]
SHAPED = shaped_values(KNOWN_KEYS, TOKENS)
#: the neutral block types read() gives (LoongFlow has no hint)
BLOCK_TYPES = {
    "text",
    "thinking",
    "tool_call",
    "tool_result",
    "data",
    "value",
    "evolve_result",
    "unknown",
}


@given(JSON_VALUES)
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_read_never_raises_on_any_json(value):
    exercise(DIALECT, value, BLOCK_TYPES)


@given(shaped_records(KNOWN_KEYS, TOKENS))
@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_read_never_raises_on_message_shaped_json(record):
    exercise(DIALECT, record, BLOCK_TYPES)


@given(st.data())
@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_read_never_raises_on_mutated_real_records(data):
    exercise(DIALECT, mutated(data, [r for _, _, r in ALL_GOOD], SHAPED), BLOCK_TYPES)


# -- write ------------------------------------------------------------------------


@pytest.mark.parametrize("record", [r for _, _, r in ALL_GOOD], ids=GOOD_IDS)
def test_write_gives_the_record_back(record):
    # byte equality: same values, same key order at every level
    assert orjson.dumps(DIALECT.write(DIALECT.read(record))) == orjson.dumps(record)


def test_write_reproduces_the_real_lines_byte_for_byte():
    for line in REAL.read_bytes().splitlines():
        written = DIALECT.write(DIALECT.read(json.loads(line)))
        assert json.dumps(written, ensure_ascii=False).encode() == line


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_write_gives_library_output_back(case):
    # what to_dict() made of each accepted input is genuine library output
    record = EDGE_CASES[case]["to_dict"]
    assert orjson.dumps(DIALECT.write(DIALECT.read(record))) == orjson.dumps(record)


def test_write_keeps_missing_keys_missing():
    for record in (
        {"role": "user", "content": []},
        {"role": "assistant", "content": [{"type": "tool_call", "target": "f", "arguments": {}}]},
        {
            "role": "tool",
            "content": [{"type": "tool_output", "call_id": UUID, "result": [{"data": "50%"}]}],
        },
    ):
        assert DIALECT.write(DIALECT.read(record)) == record


def test_write_after_an_edit():
    msg = DIALECT.read(_real(3))
    msg.content[1].arguments = {"city": "Shanghai"}
    msg.name = "planner"
    out = DIALECT.write(msg)
    assert out["sender"] == "planner"
    assert out["content"][1]["arguments"] == {"city": "Shanghai"}
    assert list(out) == list(_real(3))


# -- schema -----------------------------------------------------------------------


def test_schema_leaves_unknown_keys_to_the_checks(schema):
    assert "additionalProperties" not in json.dumps(schema)


@pytest.mark.parametrize("record", [r for _, _, r in ALL_GOOD], ids=GOOD_IDS)
def test_schema_accepts_good_records(validator, record):
    assert [e.message for e in validator.iter_errors(record)] == []


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_schema_accepts_every_input_the_library_accepts(validator, case):
    record = EDGE_CASES[case]["input"]
    assert [e.message for e in validator.iter_errors(record)] == []
    assert [e.message for e in validator.iter_errors(EDGE_CASES[case]["to_dict"])] == []


# pydantic's loc names the element type after the index ("content", 0, "tool_call", ...) and
# the member of a union ("role", "str"); neither is a key of the record.
_ELEMENT_TAGS = {"content", "tool_call", "function", "tool_output", "think", "evolve_result"}
_UNION_MEMBERS = {"str", "str-enum[Role]"}


def _loc_to_pointer(loc: list) -> str:
    parts = []
    for i, part in enumerate(loc):
        after_element = i >= 2 and loc[i - 2] == "content" and isinstance(loc[i - 1], int)
        if after_element and part in _ELEMENT_TAGS:
            continue
        if part in _UNION_MEMBERS and i > 0 and loc[i - 1] == "role":
            continue
        parts.append(str(part))
    return "/" + "/".join(parts) if parts else ""


def _schema_errors(validator, record) -> list[tuple[str, str, str]]:
    out = []
    for error in validator.iter_errors(record):
        ptr = "/" + "/".join(str(p) for p in error.absolute_path) if error.absolute_path else ""
        out.append((ptr, error.validator, error.message))
    return out


def test_loc_translation():
    assert _loc_to_pointer(["content", 0, "tool_call", "arguments"]) == "/content/0/arguments"
    assert _loc_to_pointer(["content", 0, "tool_output", "result", 0, "type"]) == (
        "/content/0/result/0/type"
    )
    assert _loc_to_pointer(["role", "str-enum[Role]"]) == "/role"
    assert _loc_to_pointer(["content", 0]) == "/content/0"


@pytest.mark.parametrize("case", sorted(set(INVALID_CASES) - {PYPI_001_CASE}))
def test_schema_rejects_what_the_library_rejects(validator, case):
    """Each pydantic error has a schema error at the same place.

    A missing key is reported on the object that lacks it ('required'); a bad element type
    on its 'type' key; everything else at the loc itself.
    """
    record = INVALID_CASES[case]["input"]
    found = _schema_errors(validator, record)
    assert found, "the schema accepts a record the library rejects"
    for error in INVALID_CASES[case]["errors"]:
        ptr = _loc_to_pointer(error["loc"])
        if error["type"] == "missing":
            parent, _, key = ptr.rpartition("/")
            hits = [f for f in found if f[0] == parent and f[1] == "required" and repr(key) in f[2]]
        elif error["type"] == "union_tag_not_found":
            hits = [f for f in found if f[0] == ptr and f[1] == "required" and "'type'" in f[2]]
        elif error["type"] == "union_tag_invalid":
            hits = [f for f in found if f[0] == ptr + "/type"]
        else:
            hits = [f for f in found if f[0] == ptr]
        assert hits, f"no schema error at {ptr} for {error}; got {found}"


def test_the_pypi_001_shape_is_accepted_and_named(validator):
    record = INVALID_CASES[PYPI_001_CASE]["input"]
    # the current library rejects it (list_type), PyPI 0.0.1 loads it: msgcli takes both shapes
    assert [e["type"] for e in INVALID_CASES[PYPI_001_CASE]["errors"]] == ["list_type"] * 2
    assert list(validator.iter_errors(record)) == []
    assert DIALECT.variant(record) == "0.0.1"
    (block,) = DIALECT.read(record).content
    assert block.variant == "0.0.1"


# (where, value, accepted, why): what pydantic 2.12/2.14 does with these values in lax mode,
# as observed with LoongFlow 876155f and PyPI 0.0.1.
SCHEMA_DECISIONS = [
    ("id", UUID.upper(), True, "hex digits in any case"),
    ("id", UUID.replace("-", ""), True, "32 hex digits"),
    ("id", "{" + UUID + "}", True, "braces"),
    ("id", "urn:uuid:" + UUID, True, "urn:uuid: prefix"),
    ("id", "URN:UUID:" + UUID, False, "the prefix is case-sensitive"),
    ("id", "{" + UUID.replace("-", "") + "}", False, "braces only around the hyphenated form"),
    ("id", UUID + "\n", False, "no trailing newline"),
    ("id", "", False, "empty"),
    ("id", 7, False, "not a string"),
    ("id", None, False, "null"),
    ("timestamp", "2026-01-22 10:00:00", True, "space separator"),
    ("timestamp", "2026-01-22t10:00z", True, "lower-case t/z, no seconds"),
    ("timestamp", "2026-01-22T10:00:00,5+0530", True, "comma fraction, offset without colon"),
    ("timestamp", "2026-01-22T10:00:00.1234567", True, "more than 6 digits are cut"),
    ("timestamp", "2024-02-29", True, "a leap day"),
    ("timestamp", "2026-02-29", False, "not a leap year"),
    ("timestamp", "2026-01-22T24:00:00", False, "hour 24"),
    ("timestamp", "2026-01-22T10:00:00+08", False, "an offset needs minutes"),
    ("timestamp", "2026-01-22Z", False, "no zone on a date"),
    ("timestamp", "0000-01-01", False, "year 0"),
    ("timestamp", 1769076000, True, "epoch seconds"),
    ("timestamp", 1769076000123, True, "epoch milliseconds"),
    ("timestamp", "1769076000", True, "epoch seconds as text"),
    ("timestamp", 1e20, False, "past year 9999"),
    ("timestamp", True, False, "a boolean"),
    ("timestamp", None, False, "null"),
    ("timestamp", "12345678123446789234567812345678", False, "an id pasted in: too many digits"),
    ("best_score", "0.5", True, "numeric text"),
    ("best_score", " inf ", True, "inf text"),
    ("best_score", True, True, "a boolean is 1.0"),
    ("best_score", "high", False, "not a number"),
    ("best_score", None, False, "null"),
    ("cost_time", 3.0, True, "a whole float"),
    ("cost_time", "60", True, "digit text"),
    ("cost_time", " 60.00 ", True, "digit text with a zero fraction"),
    ("cost_time", True, True, "a boolean is 1"),
    ("cost_time", 1.5, False, "a fraction"),
    ("cost_time", "1.5", False, "a fraction as text"),
    ("cost_time", "1e3", False, "exponent text"),
    ("best_solution", ["a", "b"], True, "current shape"),
    ("best_solution", "a", True, "PyPI 0.0.1 shape"),
    ("best_solution", [1], False, "list items are strings"),
    ("best_solution", None, False, "null"),
    ("start_time", 1769076000, False, "free text, but text"),
]


def _with(where: str, value) -> dict:
    if where in ("id", "timestamp"):
        return _message(_text(), **{where: value})
    if where == "best_solution" and isinstance(value, str):  # the whole 0.0.1 shape
        old = _evolve(best_solution=value, evaluation="ok", total_cost=..., total_tokens=...)
        return _message(old, role="assistant")
    return _message(_evolve(**{where: value}), role="assistant")


@pytest.mark.parametrize(
    ("where", "value", "accepted", "why"),
    SCHEMA_DECISIONS,
    ids=[f"{d[0]}:{d[3]}" for d in SCHEMA_DECISIONS],
)
def test_schema_decisions(validator, where, value, accepted, why):
    assert validator.is_valid(_with(where, value)) is accepted, why


def test_schema_total_fields_are_only_checked_for_the_current_shape(validator):
    # PyPI 0.0.1 ignores total_cost/total_tokens; the current library checks them
    old = _evolve(best_solution="x", evaluation="y", total_cost="n/a")
    assert validator.is_valid(_message(old))
    assert not validator.is_valid(_message(_evolve(total_cost="n/a")))


def test_schema_result_items_are_content_elements(validator):
    output = {
        "type": "tool_output",
        "call_id": UUID,
        "tool_name": "f",
        "status": "success",
        "result": [{"data": "no type is fine"}, {"type": "content", "data": None}],
    }
    assert validator.is_valid(_message(output, role="tool"))
    output["result"] = [{"type": "think", "content": "x"}]
    paths = {e[0] for e in _schema_errors(validator, _message(output, role="tool"))}
    assert paths == {"/content/0/result/0", "/content/0/result/0/type"}


def test_schema_and_fast_validator_agree(schema):
    import jsonschema_rs

    fast = jsonschema_rs.validator_for(schema)
    slow = jsonschema.Draft202012Validator(schema)
    records = [c["input"] for c in EDGE_CASES.values()] + [
        c["input"] for c in INVALID_CASES.values()
    ]
    records += [_with(w, v) for w, v, _, _ in SCHEMA_DECISIONS]
    for record in records:
        assert fast.is_valid(record) == slow.is_valid(record), record


# -- what msgcli says about each case -------------------------------------------------

# case -> (rule codes of `msgcli validate --dialect loongflow` on the input alone, why)
EDGE_VERDICTS = {
    "minimal: only role+content (id/timestamp generated at parse time!)": (
        "S004*6 B001",
        "all six keys to_dict() writes are missing (id and timestamp are invented on load); "
        "content is empty",
    ),
    "empty content list": (
        "S004*4 B001",
        "trace_id, conversation_id, sender, metadata are missing; [] is accepted but empty",
    ),
    "custom role string": (
        "S004*5 S006",
        "any role string is accepted, but providers know only four roles (S006); four message "
        "keys and the element's metadata are missing",
    ),
    "role upper-case is just another free string": (
        "S004*5 S006",
        "'USER' is one more free string to LoongFlow, not the user role (S006); same missing keys",
    ),
    "timestamp with Z (tz-aware, re-serialized with Z)": (
        "S004*5",
        "an aware time is written back with Z, so the form is LoongFlow's own: no C001",
    ),
    "timestamp with +08:00 offset": (
        "S004*5",
        "an offset is written back as given: no C001",
    ),
    "timestamp with space separator": (
        "S004*5 C001",
        "accepted, but LoongFlow writes a 'T'",
    ),
    "timestamp date only": ("S004*5 C001", "accepted, but LoongFlow writes T00:00:00"),
    "timestamp unix seconds (int)": (
        "S004*5 C001",
        "an epoch number is written back as ISO 8601 text with Z",
    ),
    "id as 32 hex chars": ("S004*5 I003", "an accepted UUID form; LoongFlow writes it hyphenated"),
    "id as urn:uuid": ("S004*5 I003", "an accepted UUID form; written without the prefix"),
    "content element without mime_type -> text/plain": (
        "S004*6",
        "the element's mime_type (default text/plain) and metadata are missing too",
    ),
    "content element data null": (
        "S004*6",
        "data null is allowed; it is a value, not empty text, so no B001",
    ),
    "custom mime type string": ("S004*5", "any mime_type string is accepted"),
    "tool_call with type 'function' alias": (
        "S004*5 T002",
        "the alias is accepted and kept; alone in a file, the call is never answered",
    ),
    "tool_call without call_id (uuid4 generated at parse time!)": (
        "S004*6",
        "the missing call_id is reported as S004 (a new one on every load: nothing can answer "
        "the call); without an id there is nothing to pair, so no T002",
    ),
    "tool_output result item without type": (
        "S004*8 T001",
        "the output's metadata and the result item's type, mime_type and metadata are missing; "
        "the output answers no call in the file",
    ),
    "tool_output with no matching tool_call anywhere (not checked)": (
        "S004*5 T001 T007",
        "the library never pairs calls; msgcli does (T001), and a tool output belongs in a "
        "tool message, not a user one (T007)",
    ),
    "unknown keys are silently dropped": (
        "S004*5 S003*2",
        "extra_top and extra_el are lost on load",
    ),
    "evolve_result, list variant (repo HEAD)": (
        "S004*6",
        "the current shape without total_cost/total_tokens: both default to 0.0 but are "
        "always written",
    ),
    "evolve_result best_score numeric string": (
        "S004*6 S005",
        "'0.5' is coerced to 0.5 on load (S005), and the missing keys are reported",
    ),
}

# case -> (classify() on the input alone, rule codes with --dialect loongflow, why)
INVALID_VERDICTS = {
    PYPI_001_CASE: (
        "message",
        "S004*4",
        "the PyPI 0.0.1 shape, valid for msgcli (variant 0.0.1); 0.0.1 has no total_* keys",
    ),
    "missing role": (
        None,
        "S001 S004*6 B001",
        "nothing tells the dialect (D001 on its own); as LoongFlow: role is required",
    ),
    "missing content": (
        None,
        "S001 S004*6",
        "nothing tells the dialect (D001 on its own); as LoongFlow: content is required (that "
        "error is enough: no B001 on top)",
    ),
    "content null": (
        "message",
        "S001 S004*4",
        "content must be a list (that error is enough: no B001 on top)",
    ),
    "role null": ("message", "S001 S004*4 B001", "role must be a string; content is []"),
    "role int": ("message", "S001 S004*4 B001", "role must be a string; content is []"),
    "sender null": ("message", "S001 S004*3 B001", "sender must be a string"),
    "trace_id int": ("message", "S001 S004*3 B001", "trace_id must be a string"),
    "metadata list": ("message", "S001 S004*3 B001", "metadata must be an object"),
    "id not a uuid": ("message", "S001 S004*4 B001", "'msg-1' is no UUID form"),
    "timestamp garbage": ("message", "S001 S004*4 B001", "'yesterday' does not parse"),
    "element without type": (
        "message",
        "S001 S004*4",
        "an element needs its type (the union's tag)",
    ),
    "element unknown type": ("message", "S001 S004*4", "'text' is AgentScope's block name"),
    "content element missing data": (
        "message",
        "S001 S004*5",
        "data is required (null is fine); its metadata is missing too",
    ),
    "tool_call missing target": (
        "message",
        "S001 S004*6",
        "target is required; call_id and metadata are missing too",
    ),
    "tool_call arguments as JSON string": (
        "message",
        "S001 S004*6",
        "arguments must be an object, not JSON text",
    ),
    "tool_call OpenAI-style call_id": (
        "message",
        "S001 S004*5 T002",
        "a provider call id is no UUID; alone in a file the call is never answered",
    ),
    "tool_output missing tool_name": (
        "message",
        "S001 S004*5 T001 T007",
        "tool_name is required; the output answers no call, in a user message",
    ),
    "tool_output bad status": (
        "message",
        "S001 S004*5 T001 T007",
        "status is exactly success, error or in_progress",
    ),
    "tool_output result contains think": (
        "message",
        "S001*2 S004*5 T001 T007",
        "a result item must be a content element: wrong type and no data",
    ),
    "think missing content": ("message", "S001 S004*5", "a think element needs its content"),
    "evolve_result cost_time fractional": (
        "message",
        "S001 S004*6",
        "cost_time is an integer; the current-shape total_* keys are missing too",
    ),
}


def test_the_verdict_tables_cover_every_case():
    assert set(EDGE_VERDICTS) == set(EDGE_CASES)
    assert set(INVALID_VERDICTS) == set(INVALID_CASES)


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_what_msgcli_says_about_accepted_inputs(case):
    codes, why = EDGE_VERDICTS[case]
    found = _msgcli(EDGE_CASES[case]["input"])
    assert not {"S001", "S002"} & set(found), "the library accepts this input"
    assert found == _codes(codes), why


@pytest.mark.parametrize("case", sorted(INVALID_CASES))
def test_what_msgcli_says_about_rejected_inputs(case):
    kind, codes, why = INVALID_VERDICTS[case]
    record = INVALID_CASES[case]["input"]
    assert DIALECT.classify(record) == kind, why
    found = _msgcli(record)
    assert found == _codes(codes), why
    if case != PYPI_001_CASE:
        assert found["S001"] >= 1


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_library_output_draws_no_warning(case):
    """to_dict() output is what LoongFlow writes: check() has nothing to say about it,
    except a role the library keeps as written but no provider knows (S006)."""
    record = EDGE_CASES[case]["to_dict"]
    expected = [] if record["role"] in ("system", "user", "assistant", "tool") else ["S006"]
    assert [code for code, _, _ in _check(record)] == expected


@pytest.mark.parametrize(
    "case",
    [c for c in sorted(EDGE_CASES) if c.startswith(("timestamp", "id as"))],
)
def test_warnings_name_what_the_library_writes(case):
    given, written = EDGE_CASES[case]["input"], EDGE_CASES[case]["to_dict"]
    messages = {code: m for code, m, _ in _check(given) if code in ("C001", "I003")}
    if given["timestamp"] != written["timestamp"]:
        assert repr(written["timestamp"]) in messages["C001"]
    if given["id"] != written["id"]:
        assert repr(written["id"]) in messages["I003"]
        assert DIALECT.pair_key(given["id"]) == written["id"]
    assert DIALECT.parse_time(given["timestamp"]) == DIALECT.parse_time(written["timestamp"])


# -- check ------------------------------------------------------------------------


@pytest.mark.parametrize("record", [r for _, _, r in ALL_GOOD], ids=GOOD_IDS)
def test_check_is_silent_on_good_records(record):
    assert _check(record) == []


def test_check_missing_keys_point_at_the_object_that_lacks_them():
    call = {"type": "tool_call", "target": "f", "arguments": {}}
    found = _check({"role": "assistant", "content": [call]})
    where = collections.Counter(p for c, _, p in found if c == "S004")
    assert where == {"": 6, "/content/0": 2}
    messages = " ".join(m for _, m, _ in found)
    assert "'id' is missing" in messages and "fresh" in messages
    assert "'call_id' is missing" in messages


def test_check_result_items_of_another_type_are_left_to_the_schema():
    output = {
        "type": "tool_output",
        "call_id": UUID,
        "metadata": {},
        "tool_name": "f",
        "status": "success",
        "result": [{"type": "think", "content": "x"}],
    }
    assert _check(_message(output, role="tool")) == []


@pytest.mark.parametrize(
    ("stamp", "warned"),
    [
        ("2026-01-22T10:00:00", False),
        ("2026-01-22T10:00:00.000001", False),
        ("2026-01-22T10:00:00.500000Z", False),
        ("2026-01-22T18:00:00-03:30", False),
        ("2026-01-22T10:00:00.5", True),  # the library writes six digits
        ("2026-01-22T10:00:00.000000", True),  # ... and no zero fraction
        ("2026-01-22T10:00:00+00:00", True),  # ... and Z for UTC
        ("2026-01-22T10:00", True),
        ("2026-01-22t10:00:00", True),
        ("1769076000", True),
        (1769076000.5, True),
        ("yesterday", False),  # not accepted at all: the schema's business
        (None, False),
    ],
)
def test_check_timestamp_forms(stamp, warned):
    found = [c for c, _, _ in _check(_message(_text(), timestamp=stamp))]
    assert ("C001" in found) is warned


def test_check_epoch_warnings_say_the_unit():
    (seconds,) = [m for c, m, _ in _check(_message(_text(), timestamp=1769076000)) if c == "C001"]
    assert "seconds" in seconds and "'2026-01-22T10:00:00Z'" in seconds
    millis = _check(_message(_text(), timestamp=1769076000250))
    assert "milliseconds" in millis[0][1] and "'2026-01-22T10:00:00.250000Z'" in millis[0][1]


@pytest.mark.parametrize(
    ("value", "warned"),
    [
        (UUID, False),
        (UUID.upper(), True),
        (UUID.replace("-", ""), True),
        ("{" + UUID + "}", True),
        ("urn:uuid:" + UUID, True),
        ("call_abc123", False),  # not accepted at all: the schema's business
    ],
)
def test_check_id_forms(value, warned):
    call = {"type": "tool_call", "call_id": value, "metadata": {}, "target": "f", "arguments": {}}
    found = _check(_message(call, id=value, role="assistant"))
    assert [p for c, _, p in found if c == "I003"] == (
        ["/id", "/content/0/call_id"] if warned else []
    )


@pytest.mark.parametrize(
    ("error", "warned"),
    [
        ("", False),
        (None, False),
        ("Failed to parse tool arguments: invalid syntax (<unknown>, line 1)", True),
        ({"msg": "bad"}, True),
    ],
)
def test_check_tool_arguments_error(error, warned):
    meta = {"tool_arguments_err": error}
    call = {"type": "tool_call", "call_id": UUID, "metadata": meta, "target": "f", "arguments": {}}
    found = _check(_message(call, role="assistant"))
    assert [p for c, _, p in found] == (
        ["/content/0/metadata/tool_arguments_err"] if warned else []
    )
    if warned and isinstance(error, str):
        assert error in found[0][1]


def test_check_evolve_result_shapes():
    mixed = _check(_message(_evolve(evaluation="ok")))
    assert [(c, p) for c, _, p in mixed] == [("B004", "/content/0")]
    assert "best_solution is a list but evaluation is a string" in mixed[0][1]
    old = _evolve(best_solution="x", evaluation="y", total_cost=..., total_tokens=...)
    assert _check(_message(old)) == []
    both = _check(_message(_evolve(), old))
    assert [(c, p) for c, _, p in both] == [("B004", "/content/1")]
    current_without_totals = _check(_message(_evolve(total_cost=..., total_tokens=...)))
    assert [c for c, _, _ in current_without_totals] == ["S004", "S004"]


def test_unusual_roles_are_a_warning_and_usual_ones_are_fine():
    # any string is a valid LoongFlow role, but providers know only four
    for role in ("observer", "USER", ""):
        assert [code for code, _, _ in _check(_message(_text(), role=role))] == ["S006"]
    for role in ("system", "user", "assistant", "tool"):
        assert _check(_message(_text(), role=role)) == []


# -- ids, times, groups -------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "key"),
    [
        (UUID, UUID),
        (UUID.upper(), UUID),
        (UUID.replace("-", ""), UUID),
        ("{" + UUID.upper() + "}", UUID),
        ("urn:uuid:" + UUID, UUID),
        ("call_abc123", "call_abc123"),
        ("URN:UUID:" + UUID, "URN:UUID:" + UUID),
        (7, 7),
        (None, None),
    ],
)
def test_pair_key(value, key):
    assert DIALECT.pair_key(value) == key


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-11-22T11:52:09.563765", datetime(2026, 11, 22, 11, 52, 9, 563765)),
        ("2026-01-22T10:00:00", datetime(2026, 1, 22, 10)),
        ("2026-01-22 10:00:00", datetime(2026, 1, 22, 10)),
        ("2026-01-22", datetime(2026, 1, 22)),
        ("2026-01-22T10:00:00Z", datetime(2026, 1, 22, 10)),
        ("2026-01-22T18:00:00+08:00", datetime(2026, 1, 22, 10)),
        ("2026-01-22T05:30:00-0430", datetime(2026, 1, 22, 10)),
        ("2026-01-22T10:00:00.1234567", datetime(2026, 1, 22, 10, 0, 0, 123456)),
        (1769076000, datetime(2026, 1, 22, 10)),
        (1769076000.5, datetime(2026, 1, 22, 10, 0, 0, 500000)),
        (1769076000250, datetime(2026, 1, 22, 10, 0, 0, 250000)),
        ("1769076000", datetime(2026, 1, 22, 10)),
        (0, datetime(1970, 1, 1)),
    ],
)
def test_parse_time(value, expected):
    assert DIALECT.parse_time(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        "",
        "yesterday",
        "2026-02-29",
        "2026-01-22T24:00:00",
        "2026-01-22T10:00:00+08",
        1e20,
        float("nan"),
        [],
        {},
    ],
)
def test_parse_time_gives_none_for_what_does_not_parse(value):
    assert DIALECT.parse_time(value) is None


def test_parse_time_orders_naive_and_aware_times_together():
    naive = DIALECT.parse_time("2026-01-22T10:00:00")
    aware = DIALECT.parse_time("2026-01-22T18:00:01+08:00")
    assert aware - naive == timedelta(seconds=1)


def test_time_group_is_the_conversation():
    assert DIALECT.time_group(DIALECT.read(_real(1))) == "conv-7f3a9c"
    assert DIALECT.time_group(DIALECT.read(_real(12))) == ""
    assert DIALECT.time_group(DIALECT.read({"role": "user", "content": []})) == ""


def test_dialect_attributes():
    assert DIALECT.name == "loongflow"
    assert DIALECT.tool_result_roles == frozenset({"tool"})
    assert DIALECT.keeps_extra_on == frozenset()
    assert DIALECT.tool_input_key is None
