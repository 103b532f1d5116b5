"""The typed path of validation must take exactly what the fast path takes, the same way.

A dialect's ``typed_messages`` decodes a JSONL line into the types of the records its
framework writes and answers a digest, or refuses the line (which then takes the whole
way). Both ways are checked, on every message record the fixtures hold, on the benchmark
templates, and on real records with values deleted or replaced:

- a line the typed path takes is valid against the published schema, the fast path takes
  it too, and both give the same variant and digest (so no finding is lost);
- a line valid against the schema that the fast path takes, the typed path takes too
  (so the typed types reject nothing the schema accepts, within the shape the framework
  writes).
"""

from __future__ import annotations

import orjson
import pytest
from conftest import FIXTURES, examples, log_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import JSON_VALUES, mutated
from test_fast_path import RECORDS, TOKENS

from msgcli.dialects import DIALECTS
from msgcli.schemas import compiled

TYPED = [name for name, dialect in DIALECTS.items() if dialect.typed is not None]


def _typed(name: str, raw: bytes):
    decode, digest = DIALECTS[name].typed_messages()
    try:
        value = decode(raw)
    except Exception:
        return None
    return digest(value)


def _agree(name: str, obj) -> bool:
    """Whether the typed path took the record (asserting that it agrees when it did, and
    that it took it when the schema and the fast path do)."""
    raw = orjson.dumps(obj)
    typed = _typed(name, raw)
    valid = compiled(f"{name}/message").is_valid(obj)
    fast = DIALECTS[name].fast_digest(obj) if valid else None
    if typed is not None:
        assert valid, f"the typed path took a record the schema rejects: {raw[:200]!r}"
        assert fast == typed, f"the typed path digests differently: {raw[:200]!r}"
        return True
    assert fast is None, f"the typed path refused a record the fast path takes: {raw[:200]!r}"
    return False


def test_dialects_with_a_typed_path():
    assert "agentscope-py" in TYPED
    assert "agentscope-java" in TYPED


@pytest.mark.parametrize("name", TYPED)
def test_typed_path_agrees_on_every_fixture_record(name):
    taken = [_agree(name, obj) for n, obj in RECORDS if n == name]
    # it is there for the records the frameworks write: it must take most of them
    assert taken.count(True) >= 40


@pytest.mark.parametrize("name", TYPED)
def test_typed_path_takes_the_lines_as_written(name):
    # the line as the framework wrote it (key order, spacing, escapes), not as re-dumped
    seen = 0
    for path in log_files(FIXTURES / "real"):
        if path.suffix != ".jsonl":
            continue
        for raw in path.read_bytes().splitlines():
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if not isinstance(obj, dict):
                continue
            typed = _typed(name, raw)
            if typed is not None:
                seen += 1
                assert DIALECTS[name].fast_digest(obj) == typed
    assert seen >= 10


@pytest.mark.parametrize("name", TYPED)
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_typed_path_agrees_on_mutated_records(name, data):
    from test_fast_path import GOOD

    _agree(name, mutated(data, GOOD[name], JSON_VALUES | TOKENS))


@pytest.mark.parametrize("name", TYPED)
def test_values_the_two_parsers_read_differently_go_the_whole_way(name):
    good = orjson.dumps(next(obj for n, obj in RECORDS if n == name and _agree(n, obj)))
    assert _typed(name, good) is not None
    # an integer beyond 64 bits (orjson reads a float), a lone surrogate, NaN: refused
    for before, after in (
        (b'"metadata":{', b'"metadata":{"n":123456789012345678901234567890,'),
        (b'"metadata":{', b'"metadata":{"s":"\\ud800",'),
        (b'"metadata":{', b'"metadata":{"f":NaN,'),
    ):
        if before in good:
            assert _typed(name, good.replace(before, after, 1)) in (None, _typed(name, good))


#: lines the typed path decoded, per dialect (counted by _reports)
DECODED: dict[str, int] = {}


def _reports(path, monkeypatch, typed: bool):
    from msgcli.engine import FileCheck, validate_file

    with monkeypatch.context() as patch:
        patch.setattr(FileCheck, "typed_after", 1)  # the typed path from the second record
        for name in TYPED:
            dialect = DIALECTS[name]
            if not typed:
                patch.setattr(dialect, "typed", None)
                continue

            def counted(dialect=dialect, name=name):
                decode, digest = type(dialect).typed_messages(dialect)

                def decode_counted(raw):
                    DECODED[name] = DECODED.get(name, 0) + 1
                    return decode(raw)

                return decode_counted, digest

            patch.setattr(dialect, "typed_messages", counted)
        report = validate_file(path)
    summary = report.summary
    return (
        [(f.line, f.code, f.message, f.pointer) for f in report.findings],
        (summary.records, summary.errors, summary.warnings, summary.dialect, summary.variants),
    )


def test_every_fixture_log_gets_the_same_report_either_way(monkeypatch):
    checked = 0
    for path in log_files(FIXTURES):
        if path.suffix != ".jsonl":
            continue
        assert _reports(path, monkeypatch, True) == _reports(path, monkeypatch, False), path
        checked += 1
    assert checked > 100
    assert all(DECODED.get(name, 0) > 100 for name in TYPED), DECODED


def test_a_broken_log_gets_the_same_report_either_way(monkeypatch, tmp_path):
    lines = (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl").read_bytes().splitlines()
    deep = b'{"a":' * 1015 + b"1" + b"}" * 1015
    bad = [
        b"",
        b"   ",
        b"{not json",
        b"[1, 2]",
        b'{"name": NaN}',
        lines[1].replace(b'"metadata":{', b'"metadata":{"deep":' + deep + b",", 1),
        lines[2].replace(b'"role":"assistant"', b'"role":"tool"', 1),
        lines[2].replace(b'"created_at":"2026', b'"created_at":"1999', 1),
        lines[0],  # a message id used again
        b"\xff\xfe",
    ]
    body = []
    for extra in bad:
        body.extend(lines)
        body.append(extra)
    path = tmp_path / "broken.jsonl"
    path.write_bytes(b"\n".join(body + lines) + b"\n" + lines[3][:50])
    typed = _reports(path, monkeypatch, True)
    assert typed == _reports(path, monkeypatch, False)
    codes = {code for _, code, _, _ in typed[0]}
    assert {"P001", "P003", "P004", "P005", "I001"} <= codes, codes


def _agree_raw(name: str, raw: bytes) -> bool:
    """:func:`_agree` on a line as written (values orjson and msgspec may read apart)."""
    typed = _typed(name, raw)
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        assert typed is None, f"the typed path took a line that is not JSON: {raw[:200]!r}"
        return False
    valid = compiled(f"{name}/message").is_valid(obj)
    fast = DIALECTS[name].fast_digest(obj) if valid else None
    assert typed == fast, f"the typed path and the fast path differ: {raw[:200]!r}"
    return typed is not None


def test_java_lines_as_jackson_may_write_them():
    lines = (FIXTURES / "real" / "agentscope-java" / "transcript.jsonl").read_bytes().splitlines()
    call = lines[1]  # an ASSISTANT message with usage, _chat_usage, a thinking and a tool_use
    chat = b'"_chat_usage":{"inputTokens":812,"outputTokens":46,"cachedTokens":0,"time":0.632,'
    assert chat in call and _agree_raw("agentscope-java", call)
    obj = orjson.loads(call)
    taken = [
        # the keys in another order (the metadata is a HashMap; the mapper's order may differ)
        orjson.dumps(dict(reversed(obj.items()))),
        call.replace(b',"', b', "').replace(b'":', b'" : '),
        # a key or a value written with escapes, a key written twice (the last one counts)
        call.replace(b'"role":"ASSISTANT"', b'"\\u0072ole":"ASSIST\\u0041NT"'),
        call.replace(b'"role":"ASSISTANT"', b'"role":"USER","role":"ASSISTANT"'),
        # counts as JSON Schema reads integers, a time beyond 64 bits
        call.replace(
            b'"cachedTokens":0,"time":0.632,"totalTokens":858}}',
            b'"cachedTokens":0.0,"time":123456789012345678901234567890,"totalTokens":858.0}}',
        ),
        # metadata counts beyond 64 bits, which orjson reads as floats (equal here)
        call.replace(
            chat,
            b'"_chat_usage":{"inputTokens":100000000000000000000001,'
            b'"outputTokens":0,"cachedTokens":0,"time":0.632,',
            1,
        ).replace(b'"totalTokens":858}}', b'"totalTokens":100000000000000000000002}}', 1),
        # a paused session's call
        call.replace(
            b'"metadata":{"_chat',
            b'"metadata":{"agentscope_confirm_request_reply_id'
            b'":"b8aa9e225cf64f89a8020573ab49a666","_chat',
            1,
        ),
        call.replace(b"Let me check", b"\\ud83d\\ude00 Let me check"),
        call.replace(b"2026-11-24", b"\\u0032026-11-24"),  # (the same time)
    ]
    for raw in taken:
        assert _agree_raw("agentscope-java", raw), raw
    refused = [
        call.replace(b"00:59:45.203", b"24:00:00.000"),  # (newer Pythons read it as midnight)
        call.replace(b"00:59:45.203", b"00:59:45.20"),
        call.replace(b"2026-11-24 00:59", b"2026-11-24T00:59"),
        call.replace(b"2026-11-24", b"2026-02-30"),
        call.replace(b'"totalTokens":858}}', b'"totalTokens":859}}', 1),  # B003 in _chat_usage
        call.replace(b'"totalTokens":858}}', b'"totalTokens":"858"}}', 1),
        call.replace(
            chat,
            b'"_chat_usage":{"inputTokens":100000000000000000000000,'
            b'"outputTokens":0,"cachedTokens":0,"time":0.632,',
            1,
        ),
        call.replace(b'"totalTokens":858}', b'"totalTokens":18446744073709551616}', 2),
        call.replace(b'"cachedTokens":0,"time"', b'"cachedTokens":2147483648,"time"'),
        call.replace(b'"cachedTokens":0,"time"', b'"cachedTokens":0.5,"time"'),
        call.replace(b'"cachedTokens":0,"time"', b'"cachedTokens":true,"time"'),
        call.replace(b'"state":"allowed"', b'"state":"ALLOWED"'),
        call.replace(b'"name":"get_weather"', b'"name":"__fragment__"'),
        call.replace(b'"content":"{', b'"content":"[{'),
        call.replace(b'"type":"thinking"', b'"type":"thinking","type":"text"'),
        call.replace(b'"role":"ASSISTANT"', b'"role":"USER"'),  # a call in a USER message
        call.replace(b'"role":"ASSISTANT"', b'"role":"assistant"'),
        call.replace(b'"metadata":null', b'"metadata":null,"extra":1'),
        call.replace(b"Let me check", b"\\udc00 Let me check"),
        call.replace(b"Let me check", b"\xff Let me check"),
    ]
    result = lines[2]
    assert _agree_raw("agentscope-java", result)
    taken.append(result.replace(b'"metadata":{}', b'"metadata":{"agentscope_suspended":true}', 1))
    assert _agree_raw("agentscope-java", taken[-1])
    refused += [
        result.replace(b'"metadata":{}', b'"metadata":{"agentscope_suspended":null}', 1),
        result.replace(b'"role":"TOOL"', b'"role":"SYSTEM"'),
        result.replace(
            b'"output":[{"type":"text",',
            b'"output":[{"type":"thinking","metadata":null,"thinking":""},{"type":"text",',
        ),
        result.replace(b'"output":[{"type":"text",', b'"output":[{'),
        result.replace(b'"state":"success"', b'"state":null,"state":"nope"'),
    ]
    for index, raw in enumerate(refused):
        assert raw not in (call, result), index
        assert not _agree_raw("agentscope-java", raw), index


def test_a_broken_java_log_gets_the_same_report_either_way(monkeypatch, tmp_path):
    java = FIXTURES / "real" / "agentscope-java"
    lines = (java / "transcript.jsonl").read_bytes().splitlines()
    legacy = (java / "transcript-legacy.jsonl").read_bytes().splitlines()
    hint = next(
        line
        for line in (FIXTURES / "valid" / "agentscope-java" / "hints.jsonl")
        .read_bytes()
        .splitlines()
        if b'"type":"hint"' in line
    )
    call, result = lines[1], lines[2]
    deep = b'{"a":' * 1015 + b"1" + b"}" * 1015
    bad = [
        b"",
        b"[1, 2]",
        call.replace(b"00:59:45.203", b"00:59:45.2"),  # C001
        call.replace(b"2026-11-24", b"2026-02-30"),  # C001, not a real date
        call.replace(b"2026-11-24", b"1999-11-24"),  # C002
        call.replace(b'"totalTokens":858}}', b'"totalTokens":859}}', 1),  # B003
        call.replace(b'"content":"{', b'"content":"[{'),  # T004
        call.replace(b'"name":"get_weather"', b'"name":"__fragment__"'),  # T008
        call.replace(b'"cachedTokens":0,"time"', b'"cachedTokens":2147483648,"time"'),
        call.replace(b'"role":"ASSISTANT"', b'"role":"USER"'),  # S002
        call.replace(b'"metadata":null', b'"metadata":null,"signature":"x"'),  # S003
        result.replace(b',"state":"success"', b""),  # S004
        result.replace(b'"metadata":{}', b'"metadata":{"agentscope_suspended":null}', 1),
        result.replace(b"call_Wx81aQ", b"call_nobody"),  # T001
        call,  # a message id used again, and a tool call id
        lines[0],  # media blocks
        hint,
        legacy[0],  # the 1.x shape
        # lines orjson does not parse: the rest of the file the reader's way
        stop := call.replace(b'"metadata":{', b'"metadata":{"deep":' + deep + b",", 1),
        b'{"id":"x","role":"USER","content":[],"timestamp":NaN}',
        b"{not json",
        b"\xff\xfe",
    ]
    body = []
    for extra in bad:
        body.extend(lines)
        body.append(extra)
    path = tmp_path / "broken.jsonl"
    path.write_bytes(b"\n".join(body + lines) + b"\n" + lines[3][:50])
    before = DECODED.get("agentscope-java", 0)
    typed = _reports(path, monkeypatch, True)
    # every line from the second to the first one orjson does not parse
    assert DECODED["agentscope-java"] - before == body.index(stop)
    assert typed == _reports(path, monkeypatch, False)
    codes = {code for _, code, _, _ in typed[0]}
    wanted = {"P001", "S001", "S002", "S003", "S004", "C001", "C002", "B003", "T001", "T004"}
    assert wanted | {"T008", "I001", "I002"} <= codes, codes
