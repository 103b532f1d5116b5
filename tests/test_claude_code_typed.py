"""A Claude Code session's typed path must take only what the whole way finds nothing in.

Past its first records, a session's lines are decoded straight into typed records
(``SessionChecker.typed``, :mod:`msgcli.dialects.claude_code.typed`); a line the types
refuse, or a record a rule could speak on, goes the whole way (parsed by orjson, its
record type's schema through jsonschema-rs, each rule of the checker). So that no finding
is ever lost, a line the typed path takes must be one that:

- orjson parses into a session record (the dialect classifies it as one);
- is valid against its record type's published schema (jsonschema-rs and the
  ``jsonschema`` package both say so);
- the checker finds nothing in (no finding of any rule), and
- gives the checks across records the same digest the whole way gives.

Checked on every record of every Claude Code fixture, on each of their values deleted or
replaced by a value of every JSON type, on records mutated at random (hypothesis), and on
the fuzzer's hostile lines (invalid UTF-8, lone surrogates, huge numbers, deep nesting).
"""

from __future__ import annotations

import json
import random

import orjson
import pytest
from conftest import FIXTURES, examples, log_files
from fuzz.mutate import _mutate_bytes, _mutate_value
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import _paths, mutated, shaped_values

from msgcli.dialects import MESSAGE
from msgcli.dialects.claude_code import DIALECT, typed
from msgcli.dialects.claude_code.checks import SessionChecker
from msgcli.dialects.claude_code.known import MESSAGE_FIELDS, RECORD_FIELDS
from msgcli.dialects.claude_code.typed import CONSTRAINED, REQUIRED, TYPES
from msgcli.engine import validate_file
from msgcli.guard import RECORD_DEPTH, nests_deeper
from msgcli.schemas import compiled, load_schema

#: a session file's name that is no UUID: no condition on sessionId
NAME = "session.jsonl"


def _session_lines() -> list[bytes]:
    out = []
    for path in log_files(FIXTURES):
        if "claude-code" not in path.parts or not path.name.endswith(".jsonl"):
            continue
        for line in path.read_bytes().split(b"\n"):
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if type(obj) is dict and DIALECT.classify(obj) == MESSAGE and "type" in obj:
                out.append(line)
    return out


LINES = _session_lines()
RECORDS = [orjson.loads(line) for line in LINES]


def _shape(obj: dict) -> tuple:
    """A record's shape: its type, its fields and the types of its message's blocks."""
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    blocks = content if isinstance(content, list) else []
    kinds = tuple(b.get("type") if isinstance(b, dict) else None for b in blocks)
    return obj["type"], tuple(sorted(obj)), kinds


#: one record of each shape, for exhaustive edits
SHAPES = list({_shape(obj): obj for obj in RECORDS if obj["type"] in TYPES}.values())


def _typed(raw: bytes, name: str = NAME) -> list | None:
    """The digests the typed path gives the line, or None when it refuses it."""

    def emit(*args, **kwargs):  # pragma: no cover - the typed path reports nothing
        raise AssertionError(f"the typed path reported {args}")

    checker = SessionChecker(emit, name)
    checker.digests = []
    return checker.digests if checker.typed(lambda line, raw: False)(7, raw) else None


def _whole(obj: dict, name: str = NAME) -> tuple[list, list]:
    """The findings and digests the whole way gives the parsed record."""
    found: list = []
    checker = SessionChecker(lambda *args, **kwargs: found.append(args), name)
    checker.digests = []
    checker.check(7, obj)
    return found, checker.digests


def agrees(raw: bytes, name: str = NAME) -> bool:
    """Whether the typed path takes ``raw``; when it does, that it had to."""
    typed = _typed(raw, name)
    if typed is None:
        return False
    obj = orjson.loads(raw)  # (raises if the typed path took what orjson refuses)
    assert type(obj) is dict and DIALECT.classify(obj) == MESSAGE, raw
    assert not nests_deeper(obj), raw
    schema = compiled(f"claude-code/{obj['type']}")
    assert schema.is_valid(obj), raw
    assert not list(schema.errors(obj)), raw
    findings, digests = _whole(obj, name)
    assert findings == [], (raw, findings)
    assert digests == typed, raw
    return True


def test_the_types_say_what_the_schemas_say():
    """Each typed record type holds the fields msgcli knows of it, requires what its schema
    requires, and constrains every field its schema constrains."""
    for kind, fields in CONSTRAINED.items():
        schema = load_schema(f"claude-code/{kind}")
        assert REQUIRED[kind] == set(schema["required"]) - {"type"}, kind
        assert set(TYPES[kind].__struct_fields__) == RECORD_FIELDS[kind] - {"type"}, kind
        for name, spec in schema["properties"].items():
            if name != "type" and set(spec) - {"title", "description"}:
                assert name in fields, (kind, name)
        assert set(fields) <= set(schema["properties"]), kind
    message = load_schema("claude-code/assistant")["properties"]["message"]
    assert set(typed._Message.__struct_fields__) == MESSAGE_FIELDS
    assert set(message["properties"]) <= MESSAGE_FIELDS
    assert set(message["required"]) == typed._MESSAGE_REQUIRED


def test_the_fixtures_records_take_the_typed_path_and_agree():
    taken = sum(agrees(line) for line in LINES)
    common = sum(obj["type"] in TYPES for obj in RECORDS)
    assert common > 300
    # the 2.1.197 sessions' records all decode; newer releases' new fields go the whole way
    assert taken > common * 0.8, (taken, common)


@pytest.mark.parametrize("index", range(len(SHAPES)))
def test_every_value_of_a_record_deleted_or_replaced(index):
    """Each value of a record of each shape, at any depth, deleted or replaced by a value of
    each JSON type (the edge of each constraint too: an empty string, a negative or a
    whole-valued float number, an integer beyond 64 bits)."""
    record = SHAPES[index]
    replacements = [None, True, False, 0, -1, 1.0, 2.5, 2**64, "", "x", [], [1], {}, {"k": "v"}]
    agrees(orjson.dumps(record))  # (a shape from a negative fixture may go the whole way)
    for path in list(_paths(record))[1:]:
        if len(path) > 5:
            continue
        for value in [..., *replacements]:
            edited = orjson.loads(orjson.dumps(record))
            parent = edited
            for key in path[:-1]:
                parent = parent[key]
            if value is ...:
                del parent[path[-1]]
            else:
                parent[path[-1]] = value
            agrees(json.dumps(edited, ensure_ascii=False).encode())  # (2**64 too)
    # a field msgcli does not know, at the top and in the message, goes the whole way (K004)
    assert not agrees(orjson.dumps({**record, "brandNewField": 1}))
    if isinstance(record.get("message"), dict) and record["type"] == "assistant":
        edited = {**record, "message": {**record["message"], "brand_new": 1}}
        assert not agrees(orjson.dumps(edited))


def test_an_integer_written_as_a_float_goes_the_whole_way():
    record = next(obj for obj in SHAPES if obj["type"] == "assistant")
    usage = {**record["message"]["usage"], "output_tokens": 5.0}
    raw = orjson.dumps({**record, "message": {**record["message"], "usage": usage}})
    assert _typed(raw) is None
    assert _whole(orjson.loads(raw))[0] == []  # (valid: the whole way says so)


def test_what_the_file_name_says_is_held_to():
    """A session file named by its UUID: a record of another session goes the whole way
    (K008); a subagent file: a record of another agent (K014)."""
    record = next(obj for obj in SHAPES if obj["type"] == "user")
    raw = orjson.dumps(record)
    own = f"{record['sessionId']}.jsonl"
    other = "00000000-0000-4000-8000-000000000000.jsonl"
    assert agrees(raw, own)
    assert _typed(raw, other) is None
    assert "K008" in {f[0] for f in _whole(record, other)[0]}
    agent = orjson.dumps({**record, "agentId": "a1"})
    assert agrees(agent, "x/subagents/agent-a1.jsonl")
    assert _typed(agent, "x/subagents/agent-b2.jsonl") is None


def test_a_synthetic_api_error_goes_the_whole_way():
    record = next(obj for obj in SHAPES if obj["type"] == "assistant")
    message = {**record["message"], "model": "<synthetic>"}
    raw = orjson.dumps({**record, "message": message, "isApiErrorMessage": True})
    assert _typed(raw) is None
    assert "K013" in {f[0] for f in _whole(orjson.loads(raw))[0]}


KEYS = sorted(set().union(*RECORD_FIELDS.values(), MESSAGE_FIELDS, {"brandNew"}))
TOKENS = [
    "user",
    "assistant",
    "attachment",
    "system",
    "text",
    "tool_use",
    "tool_result",
    "thinking",
    "image",
    "message",
    "<synthetic>",
    "",
    "toolu_01",
    "3f2a9c1e-1111-4222-8333-444455556666",
]


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_records(data):
    record = mutated(data, SHAPES, shaped_values(KEYS, TOKENS))
    try:
        raw = orjson.dumps(record)
    except (TypeError, orjson.JSONEncodeError):
        return
    agrees(raw)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32), st.sampled_from(LINES))
def test_hostile_lines(seed, line):
    """The fuzzer's hostile values and bytes (invalid UTF-8, lone surrogates, NaN, integers
    beyond 64 bits, deep nesting, cut lines): what the typed path takes, orjson reads the
    same way and the whole way finds nothing in."""
    rnd = random.Random(seed)
    raw = _mutate_value(line, rnd) if rnd.random() < 0.6 else line
    if rnd.random() < 0.5:
        raw = _mutate_bytes(raw, rnd)
    for piece in raw.split(b"\n"):
        agrees(piece)


@pytest.mark.parametrize("depth", [900, 1000, 1005, 1009, 1010, 1011, 1015, 1030])
def test_a_record_nesting_deep_goes_the_whole_way_past_the_limit(depth, tmp_path):
    """A value nested past the depth a record may have (P005 on the whole way) is never
    taken, whether the types refuse it or the JSON text's brackets are counted."""
    record = next(obj for obj in SHAPES if obj["type"] == "user")
    deep = b'{"a":' * depth + b"1" + b"}" * depth
    raw = orjson.dumps({**record, "toolUseResult": "@@"}).replace(b'"@@"', deep)
    if agrees(raw):
        assert depth + 1 <= RECORD_DEPTH
    if depth + 1 > RECORD_DEPTH:
        path = tmp_path / "deep.jsonl"
        path.write_bytes(raw + b"\n")
        assert "P005" in {f.code for f in validate_file(path).findings}
