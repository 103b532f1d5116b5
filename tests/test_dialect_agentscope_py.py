"""The AgentScope Python dialect: detection, reading, writing, schema, checks, times.

That Python claims its real and hand-made records, and no other dialect's, is checked in
``test_detection.py``; the edge cases of Python detection are here.
"""

from __future__ import annotations

import collections
import copy
import json
from datetime import datetime
from pathlib import Path

import orjson
import pytest
from conftest import FIXTURES, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from samples import drop_at, ids, lines, records, set_at
from strategies import JSON_VALUES, exercise, mutated, shaped_records, shaped_values

from msgcli.dialects.agentscope_py import DIALECT
from msgcli.model import (
    DataBlock,
    HintBlock,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)

REAL = FIXTURES / "real" / "agentscope-py"
VALID = FIXTURES / "valid" / "agentscope-py"
INVALID = FIXTURES / "invalid" / "agentscope-py"

REAL_MESSAGE_FILES = [
    REAL / "transcript.jsonl",
    REAL / "events-final.jsonl",
    REAL / "events-data-final.jsonl",
    REAL / "v1" / "transcript-v1.jsonl",
]

REAL_MESSAGES = records(REAL_MESSAGE_FILES)
VALID_MESSAGES = records(sorted(VALID.glob("*.jsonl")))
ALL_GOOD = REAL_MESSAGES + VALID_MESSAGES
GOOD_IDS = ids(ALL_GOOD)


def _transcript(line: int) -> dict:
    return copy.deepcopy(lines(REAL / "transcript.jsonl")[line - 1])


def _v1(line: int) -> dict:
    return copy.deepcopy(lines(REAL / "v1" / "transcript-v1.jsonl")[line - 1])


# -- classify ---------------------------------------------------------------------


def test_variant_follows_the_time_key():
    assert {DIALECT.variant(r) for _, _, r in records([REAL / "transcript.jsonl"])} == {"2.x"}
    v1 = records([REAL / "v1" / "transcript-v1.jsonl"])
    assert {DIALECT.variant(r) for _, _, r in v1} == {"1.x"}
    both = _transcript(2)
    both["timestamp"] = "2026-11-22 11:54:32.302"
    assert DIALECT.variant(both) == "2.x"


def test_a_v1_record_with_a_bad_timestamp_is_still_claimed():
    record = _v1(2)
    record["timestamp"] = "2026-11-22T11:54:34.492"
    assert DIALECT.classify(record) == "message"
    assert DIALECT.variant(record) == "1.x"


# -- read -------------------------------------------------------------------------


def test_read_react_reply():
    msg = DIALECT.read(_transcript(3))
    assert isinstance(msg, Message)
    assert msg.dialect == "agentscope-py"
    assert msg.variant == "2.x"
    assert msg.role == "assistant"
    assert msg.name == "Friday"
    assert msg.timestamp == "2026-11-22T11:54:32.303042"
    kinds = [b.type for b in msg.content]
    assert kinds == [
        "hint",
        "thinking",
        "text",
        "tool_call",
        "tool_result",
        "thinking",
        "text",
    ]
    call = msg.content[3]
    result = msg.content[4]
    assert isinstance(call, ToolCallBlock) and isinstance(result, ToolResultBlock)
    assert call.id == result.id == "call_7268933a41f141eeb6bf7a90"
    assert call.name == result.name == "get_weather"
    assert json.loads(call.input) == {"city": "Zürich", "unit": "celsius"}
    assert call.state == "finished"
    assert result.state == "success"
    nested = result.output[0]
    assert isinstance(nested, TextBlock)
    assert nested.text.startswith("Zürich: 7 °C")
    assert nested.path == ("content", 4, "output", 0)
    assert [b.path for b in msg.content] == [("content", i) for i in range(7)]
    hint = msg.content[0]
    assert isinstance(hint, HintBlock) and "<current-time>" in hint.hint
    assert msg.usage.input_tokens == 910 and msg.usage.output_tokens == 121
    assert msg.fields["finished_reason"] == "completed"
    assert not msg.extra and all(not b.extra for b in msg.blocks())


def test_read_media():
    msg = DIALECT.read(_transcript(4))
    url, b64 = msg.content[1], msg.content[2]
    assert isinstance(url, DataBlock) and isinstance(b64, DataBlock)
    assert url.source.kind == "url"
    assert url.source.url.startswith("https://upload.wikimedia.org/")
    assert url.source.media_type == "image/png"
    assert b64.source.kind == "base64" and b64.source.data.startswith("iVBORw0KGgo")
    assert b64.name == "red-pixel.png"


def test_read_v1_shapes():
    system = DIALECT.read(_v1(1))
    assert system.variant == "1.x"
    assert system.timestamp == "2026-11-22 11:54:34.508"
    assert len(system.content) == 1 and isinstance(system.content[0], TextBlock)
    assert system.content[0].text == "You are Friday, a concise weather assistant."
    assert system.content[0].path == ("content",)

    user = DIALECT.read(_v1(2))
    media = user.content[1:]
    assert [b.kind for b in media] == ["image", "image"]
    assert [b.source.kind for b in media] == ["url", "base64"]

    reply = DIALECT.read(_v1(3))
    call = reply.content[1]
    assert isinstance(call, ToolCallBlock)
    assert call.arguments == {"city": "Zürich"}
    assert json.loads(call.input) == call.arguments

    result_msg = DIALECT.read(_v1(4))
    assert result_msg.role == "system"
    result = result_msg.content[0]
    assert isinstance(result, ToolResultBlock) and result.id == call.id
    assert result.output[0].path == ("content", 0, "output", 0)


def test_unknown_keys_go_to_extra_and_thinking_keeps_its_own():
    record = _transcript(3)
    record["timestamp"] = "2026-11-22 11:54:32.303"
    record["content"][1]["signature"] = "EqQBCkYIBxgC"
    record["content"][2]["annotations"] = []
    record["content"][4]["output"][0]["cached"] = True
    record["usage"]["total_tokens"] = 1031
    record["content"].append(
        {
            "type": "data",
            "id": "0" * 32,
            "source": {"type": "url", "url": "https://x.example/a.png", "media_type": "image/png"},
            "name": None,
            "created_at": "2026-11-22T11:54:32.340718",
            "finished_at": None,
        }
    )
    record["content"][-1]["source"]["detail"] = "high"
    msg = DIALECT.read(record)
    assert msg.extra == {"timestamp": "2026-11-22 11:54:32.303"}
    assert msg.content[1].extra == {"signature": "EqQBCkYIBxgC"}
    assert msg.content[2].extra == {"annotations": []}
    assert msg.content[4].output[0].extra == {"cached": True}
    assert msg.usage.extra == {"total_tokens": 1031}
    assert msg.content[-1].source.extra == {"detail": "high"}
    assert "thinking" in DIALECT.keeps_extra_on
    assert orjson.dumps(DIALECT.write(msg)) == orjson.dumps(record)


def test_unknown_and_untyped_blocks_are_kept_whole():
    record = _transcript(5)
    record["content"].insert(0, {"text": "no type"})
    record["content"].insert(0, {"type": "tool_use", "id": "c", "name": "n", "input": {}})
    msg = DIALECT.read(record)
    assert all(isinstance(b, UnknownBlock) for b in msg.content[:2])
    assert orjson.dumps(DIALECT.write(msg)) == orjson.dumps(record)


# -- read never raises ---------------------------------------------------------------

KNOWN_KEYS = [
    "name",
    "content",
    "role",
    "id",
    "metadata",
    "created_at",
    "usage",
    "finished_at",
    "finished_reason",
    "structured_output",
    "error",
    "timestamp",
    "invocation_id",
    "type",
    "text",
    "thinking",
    "hint",
    "input",
    "raw_input",
    "output",
    "source",
    "state",
    "url",
    "data",
    "media_type",
]
TOKENS = [
    "text",
    "thinking",
    "hint",
    "tool_call",
    "tool_result",
    "data",
    "image",
    "audio",
    "video",
    "tool_use",
    "base64",
    "url",
]
SHAPED = shaped_values(KNOWN_KEYS, TOKENS)


@given(JSON_VALUES)
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_read_never_raises_on_any_json(value):
    exercise(DIALECT, value)


@given(shaped_records(KNOWN_KEYS, TOKENS))
@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_read_never_raises_on_message_shaped_json(record):
    exercise(DIALECT, record)
    exercise(DIALECT, {**record, "timestamp": "2026-11-22 11:54:34.508"})


@given(st.data())
@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_read_never_raises_on_mutated_real_records(data):
    exercise(DIALECT, mutated(data, [r for _, _, r in REAL_MESSAGES], SHAPED))


# -- write ------------------------------------------------------------------------


def _key_orders(value):
    if isinstance(value, dict):
        return [list(value), *[_key_orders(v) for v in value.values()]]
    if isinstance(value, list):
        return [_key_orders(v) for v in value]
    return None


@pytest.mark.parametrize("record", [r for _, _, r in ALL_GOOD], ids=GOOD_IDS)
def test_write_gives_the_record_back(record):
    written = DIALECT.write(DIALECT.read(record))
    assert written == record
    assert _key_orders(written) == _key_orders(record)
    assert orjson.dumps(written) == orjson.dumps(record)


def test_write_reproduces_the_2x_lines_byte_for_byte():
    # model_dump_json writes compact UTF-8, as orjson does
    for path in (REAL / "transcript.jsonl", REAL / "events-final.jsonl"):
        for line in path.read_bytes().splitlines():
            assert orjson.dumps(DIALECT.write(DIALECT.read(orjson.loads(line)))) == line


def test_write_v1_string_content_stays_a_string():
    record = _v1(1)
    written = DIALECT.write(DIALECT.read(record))
    assert written["content"] == "You are Friday, a concise weather assistant."
    assert (
        json.dumps(written, ensure_ascii=False).encode()
        == ((REAL / "v1" / "transcript-v1.jsonl").read_bytes().splitlines()[0])
    )


def test_write_v1_tool_use_without_raw_input():
    record = _v1(3)
    del record["content"][1]["raw_input"]
    msg = DIALECT.read(record)
    assert msg.content[1].input is None
    assert DIALECT.write(msg) == record


def test_write_keeps_invocation_id_of_v1():
    record = _v1(5)
    record["invocation_id"] = "inv-1"
    msg = DIALECT.read(record)
    assert not msg.extra
    assert list(DIALECT.write(msg)) == list(record)


# -- schema -----------------------------------------------------------------------


def test_schema_leaves_unknown_keys_to_the_checks(schema):
    assert "additionalProperties" not in json.dumps(schema)


@pytest.mark.parametrize("record", [r for _, _, r in ALL_GOOD], ids=GOOD_IDS)
def test_schema_accepts_good_records(validator, record):
    assert list(validator.iter_errors(record)) == []


# (record maker, change, expected error path, expected keyword)
SCHEMA_CASES = {
    "2.x name missing": (_transcript, 2, ("drop", ("name",)), (), "required"),
    "2.x content a string": (_transcript, 2, ("set", ("content",), "hi"), ("content",), "type"),
    "2.x role tool": (_transcript, 3, ("set", ("role",), "tool"), ("role",), "enum"),
    "2.x role upper-case": (_transcript, 2, ("set", ("role",), "User"), ("role",), "enum"),
    "2.x name not a string": (_transcript, 2, ("set", ("name",), 7), ("name",), "type"),
    "2.x created_at null": (
        _transcript,
        2,
        ("set", ("created_at",), None),
        ("created_at",),
        "type",
    ),
    "2.x finished_reason stop": (
        _transcript,
        3,
        ("set", ("finished_reason",), "stop"),
        ("finished_reason",),
        "enum",
    ),
    "2.x usage without output_tokens": (
        _transcript,
        3,
        ("drop", ("usage", "output_tokens")),
        ("usage",),
        "required",
    ),
    "2.x usage float tokens": (
        _transcript,
        3,
        ("set", ("usage", "input_tokens"), 9.5),
        ("usage", "input_tokens"),
        "type",
    ),
    "2.x error type unknown value": (
        _transcript,
        3,
        ("set", ("error",), {"type": "quota", "message": "m"}),
        ("error", "type"),
        "enum",
    ),
    "2.x error without message": (
        _transcript,
        3,
        ("set", ("error",), {"type": "internal"}),
        ("error",),
        "required",
    ),
    "2.x 1.x block type": (
        _transcript,
        3,
        ("set", ("content", 3, "type"), "tool_use"),
        ("content", 3, "type"),
        "enum",
    ),
    "2.x block without type": (
        _transcript,
        3,
        ("drop", ("content", 2, "type")),
        ("content", 2),
        "required",
    ),
    "2.x tool_call input object": (
        _transcript,
        3,
        ("set", ("content", 3, "input"), {"city": "Zürich"}),
        ("content", 3, "input"),
        "type",
    ),
    "2.x tool_call without id": (
        _transcript,
        3,
        ("drop", ("content", 3, "id")),
        ("content", 3),
        "required",
    ),
    "2.x tool_call state upper-case": (
        _transcript,
        3,
        ("set", ("content", 3, "state"), "FINISHED"),
        ("content", 3, "state"),
        "enum",
    ),
    "2.x tool_result state": (
        _transcript,
        3,
        ("set", ("content", 4, "state"), "ok"),
        ("content", 4, "state"),
        "enum",
    ),
    "2.x thinking nested in output": (
        _transcript,
        3,
        ("set", ("content", 4, "output", 0, "type"), "thinking"),
        ("content", 4, "output", 0, "type"),
        "enum",
    ),
    "2.x text without text": (
        _transcript,
        1,
        ("drop", ("content", 0, "text")),
        ("content", 0),
        "required",
    ),
    "2.x hint source object": (
        _transcript,
        3,
        ("set", ("content", 0, "source"), {"label": "System"}),
        ("content", 0, "source"),
        "type",
    ),
    "2.x source without media_type": (
        _transcript,
        4,
        ("drop", ("content", 2, "source", "media_type")),
        ("content", 2, "source"),
        "required",
    ),
    "2.x source kind file": (
        _transcript,
        4,
        ("set", ("content", 1, "source", "type"), "file"),
        ("content", 1, "source", "type"),
        "enum",
    ),
    "2.x url not a string": (
        _transcript,
        4,
        ("set", ("content", 1, "source", "url"), 5),
        ("content", 1, "source", "url"),
        "type",
    ),
    "2.x suggested rule without source": (
        _transcript,
        3,
        (
            "set",
            ("content", 3, "suggested_rules"),
            [{"tool_name": "Bash", "rule_content": None, "behavior": "allow"}],
        ),
        ("content", 3, "suggested_rules", 0),
        "required",
    ),
    "2.x suggested rule behavior": (
        _transcript,
        3,
        (
            "set",
            ("content", 3, "suggested_rules"),
            [{"tool_name": "Bash", "rule_content": None, "behavior": "ALLOW", "source": "s"}],
        ),
        ("content", 3, "suggested_rules", 0, "behavior"),
        "enum",
    ),
    "1.x role tool": (_v1, 4, ("set", ("role",), "tool"), ("role",), "enum"),
    "1.x content object": (_v1, 5, ("set", ("content",), {"text": "x"}), ("content",), "type"),
    "1.x role missing": (_v1, 5, ("drop", ("role",)), (), "required"),
    "1.x 2.x block": (
        _v1,
        3,
        ("set", ("content", 1, "type"), "tool_call"),
        ("content", 1, "type"),
        "enum",
    ),
    "1.x tool_use input text": (
        _v1,
        3,
        ("set", ("content", 1, "input"), '{"city": "Zürich"}'),
        ("content", 1, "input"),
        "type",
    ),
    "1.x base64 without data": (
        _v1,
        2,
        ("drop", ("content", 2, "source", "data")),
        ("content", 2, "source"),
        "required",
    ),
    "1.x tool_result without name": (
        _v1,
        4,
        ("drop", ("content", 0, "name")),
        ("content", 0),
        "required",
    ),
}


@pytest.mark.parametrize("case", sorted(SCHEMA_CASES))
def test_schema_rejects(validator, case):
    maker, line, change, where, keyword = SCHEMA_CASES[case]
    record = maker(line)
    if change[0] == "drop":
        drop_at(record, change[1])
    else:
        set_at(record, change[1], change[2])
    errors = list(validator.iter_errors(record))
    assert [(tuple(e.absolute_path), e.validator) for e in errors] == [(where, keyword)]
    assert not any(isinstance(e.schema, dict) and e.schema.get("x-msgcli-rule") for e in errors), (
        "a plain schema error must not be annotated as another rule"
    )


ROLE_BLOCK_BODIES = {
    "thinking": {"type": "thinking", "thinking": "t"},
    "tool_call": {"type": "tool_call", "id": "call_1", "name": "f", "input": "{}"},
    "hint": {"type": "hint", "hint": "h", "source": None},
    "data": {
        "type": "data",
        "source": {"type": "url", "url": "https://x.example/a.png", "media_type": "image/png"},
    },
    "tool_result": {"type": "tool_result", "id": "call_1", "name": "f", "output": "ok"},
}


@pytest.mark.parametrize(
    ("line", "block_type"),
    [(2, "thinking"), (2, "tool_call"), (2, "hint"), (2, "tool_result"), (1, "data"), (1, "hint")],
)
def test_schema_role_block_errors_are_s002(validator, line, block_type):
    record = _transcript(line)
    record["content"].append(ROLE_BLOCK_BODIES[block_type])
    errors = list(validator.iter_errors(record))
    assert [(tuple(e.absolute_path), e.validator) for e in errors] == [
        (("content", 1, "type"), "enum")
    ]
    assert errors[0].schema.get("x-msgcli-rule") == "S002"


def test_schema_unknown_block_in_user_message_is_s001_only(validator):
    record = _transcript(2)
    record["content"].append({"type": "image", "source": {"type": "url", "url": "u"}})
    errors = list(validator.iter_errors(record))
    assert [(tuple(e.absolute_path), e.validator) for e in errors] == [
        (("content", 1, "type"), "enum")
    ]
    assert "x-msgcli-rule" not in errors[0].schema


def test_schema_role_rules_apply_to_2x_only(validator):
    # 1.x keeps tool results in system messages: no role/block rule
    assert list(validator.iter_errors(_v1(4))) == []
    record = _v1(1)
    record["content"] = [{"type": "thinking", "thinking": "t"}]
    assert list(validator.iter_errors(record)) == []


def test_schema_accepts_what_the_framework_accepts(validator):
    record = _transcript(3)
    record["content"][1]["signature"] = "kept by ThinkingBlock"
    record["extra_key"] = "dropped, not rejected"
    record["content"][4]["output"] = "plain string output"
    record["content"][0]["hint"] = [{"type": "text", "text": "hi"}]
    record["created_at"] = "whenever"
    assert list(validator.iter_errors(record)) == []


# -- check ------------------------------------------------------------------------


def _check(record):
    found = []
    DIALECT.check(
        record,
        DIALECT.read(record),
        lambda code, message, pointer="": found.append((code, pointer, message)),
    )
    return found


@pytest.mark.parametrize("record", [r for _, _, r in ALL_GOOD], ids=GOOD_IDS)
def test_check_is_silent_on_good_records(record):
    assert _check(record) == []


def test_check_missing_keys_2x():
    record = _transcript(3)
    del record["usage"]["cache_input_tokens"]
    del record["content"][3]["suggested_rules"]
    del record["content"][4]["metadata"]
    del record["structured_output"]
    found = _check(record)
    assert sorted((c, p) for c, p, _ in found) == [
        ("S004", ""),
        ("S004", "/content/3"),
        ("S004", "/content/4"),
        ("S004", "/usage"),
    ]
    messages = " ".join(m for _, _, m in found)
    for key in ("cache_input_tokens", "suggested_rules", "metadata", "structured_output"):
        assert key in messages


def test_check_required_keys_are_left_to_the_schema():
    record = _transcript(2)
    del record["name"]
    del record["content"][0]["text"]
    assert _check(record) == []


def test_check_missing_keys_1x():
    record = _v1(2)
    del record["id"]
    del record["metadata"]
    found = _check(record)
    assert [(c, p) for c, p, _ in found] == [("S004", ""), ("S004", "")]
    messages = " ".join(m for _, _, m in found)
    assert '"id"' in messages and '"metadata"' in messages


def test_check_timestamp_forms():
    record = _transcript(2)
    record["created_at"] = "2026-11-22T11:54:32.302Z"
    record["content"][0]["created_at"] = "2026-11-22 11:54:32.302908"
    found = _check(record)
    assert sorted((c, p) for c, p, _ in found) == [
        ("C001", "/content/0/created_at"),
        ("C001", "/created_at"),
    ]
    # the fraction is left out when it is 0: that is still the written form
    record = _transcript(2)
    record["created_at"] = record["finished_at"] = "2026-11-22T11:52:01"
    assert _check(record) == []


def test_check_timestamp_form_1x():
    record = _v1(2)
    record["timestamp"] = "2026-11-22 11:54:34"
    assert [(c, p) for c, p, _ in _check(record)] == [("C001", "/timestamp")]


def test_check_error_reply_without_error():
    record = _transcript(5)
    record["finished_reason"] = "error"
    assert [(c, p) for c, p, _ in _check(record)] == [("B002", "/finished_reason")]
    record["error"] = {"type": "rate_limit", "message": "Rate limit exceeded."}
    assert _check(record) == []


def test_check_does_not_judge_ids():
    record = _transcript(2)
    record["id"] = "my-own-id-factory-0001"
    record["content"][0]["id"] = "x"
    assert _check(record) == []


# -- parse_time -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-22T11:54:32.302881", datetime(2026, 11, 22, 11, 54, 32, 302881)),
        ("2026-11-22T11:52:01", datetime(2026, 11, 22, 11, 52, 1)),
        ("2026-11-22 11:54:34.508", datetime(2026, 11, 22, 11, 54, 34, 508000)),
        ("2026-11-22T11:54:32.302Z", datetime(2026, 11, 22, 11, 54, 32, 302000)),
        ("2026-11-22T12:54:32+01:00", datetime(2026, 11, 22, 11, 54, 32)),
        ("2026-11-22T06:24:32-0530", datetime(2026, 11, 22, 11, 54, 32)),
    ],
)
def test_parse_time(text, expected):
    assert DIALECT.parse_time(text) == expected


@pytest.mark.parametrize(
    "value",
    [None, 1795000000, "", "yesterday", "2026-13-01T00:00:00", "2026-02-30 10:00:00.000", [], {}],
)
def test_parse_time_gives_none_for_what_does_not_parse(value):
    assert DIALECT.parse_time(value) is None


def test_time_group_is_the_whole_file():
    assert DIALECT.time_group(DIALECT.read(_transcript(1))) is None


# -- fixtures against the validator -------------------------------------------------


def _expected(path: Path) -> collections.Counter:
    out = collections.Counter()
    for raw in path.read_text(encoding="utf-8").splitlines():
        raw = raw.split("#", 1)[0].strip()
        if raw:
            line, code = raw.split()
            out[(int(line), code)] += 1
    return out


@pytest.mark.parametrize("path", sorted(INVALID.glob("*.jsonl")), ids=lambda p: p.name)
def test_invalid_fixture_findings(path):
    from msgcli.engine import validate_file

    report = validate_file(path)
    found = collections.Counter((f.line, f.code) for f in report.findings)
    assert found == _expected(path.with_suffix(".expect"))


@pytest.mark.parametrize("path", sorted(VALID.glob("*.jsonl")), ids=lambda p: p.name)
def test_valid_fixtures_have_no_finding(path):
    from msgcli.engine import validate_file

    report = validate_file(path)
    assert report.findings == []
    assert report.summary.dialect == "agentscope-py"
