"""The typed path of validation must take exactly what the fast path takes, the same way.

A dialect's ``typed_messages`` decodes a JSONL line into the types of the records its
framework writes and answers a digest, or refuses the line (which then takes the whole
way). Both ways are checked, on every message record the fixtures hold, on the benchmark
templates, and on real records with values deleted or replaced:

- a line the typed path takes is valid against the published schema, the whole path
  (the dialect's rules and the shared per-record checks) finds nothing in it, and both give
  the same variant and digest (so no finding is lost); where the fast path takes it too,
  that is the fast path's digest;
- a line valid against the schema that the fast path takes, the typed path takes too
  (so the typed types reject nothing the schema accepts, within the shape the framework
  writes); where a typed path takes more than its fast path (LoongFlow's evolve_result),
  a record the whole path finds nothing in and that the fast path takes once those
  elements are put in plain form (:data:`STAND_INS`), the typed path takes too.
"""

from __future__ import annotations

import orjson
import pytest
from conftest import FIXTURES, examples, log_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import JSON_VALUES, mutated
from test_fast_path import RECORDS, TOKENS, _full_path

from msgcli.dialects import DIALECTS
from msgcli.schemas import compiled

TYPED = [name for name, dialect in DIALECTS.items() if dialect.typed is not None]


def _loongflow_plain(obj):
    """The record with each evolve_result, and each thought that is not text, as a text
    thought (what the fast path takes), or ``None`` when there is nothing to put so."""
    content = obj.get("content") if isinstance(obj, dict) else None
    if not isinstance(content, list):
        return None
    thought = {"type": "think", "metadata": {}, "content": "a thought"}
    out = [
        thought
        if isinstance(el, dict)
        and (
            el.get("type") == "evolve_result"
            or (el.get("type") == "think" and not isinstance(el.get("content", ""), str))
        )
        else el
        for el in content
    ]
    return None if out == content else {**obj, "content": out}


#: for a typed path that takes records its dialect's fast path does not: the record put in
#: the form the fast path takes (``None``: not such a record)
STAND_INS = {"loongflow": _loongflow_plain}


def _whole(name: str, obj):
    """``(variant, digest)`` as the whole path makes them, for a record valid against the
    schema on which no rule speaks; else ``None``."""
    dialect = DIALECTS[name]
    if not compiled(f"{name}/message").is_valid(obj):
        return None
    found, variant, item = _full_path(dialect, obj)
    return None if found else (variant, item)


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
        whole = _whole(name, obj)
        assert whole is not None, f"the typed path took a record a rule faults: {raw[:200]!r}"
        assert whole == typed, f"the typed path digests differently: {raw[:200]!r}"
        assert fast in (None, typed), f"the fast path digests differently: {raw[:200]!r}"
        return True
    assert fast is None, f"the typed path refused a record the fast path takes: {raw[:200]!r}"
    stand_in = STAND_INS.get(name, lambda obj: None)(obj) if valid else None
    if stand_in is not None and DIALECTS[name].fast_digest(stand_in) is not None:
        assert _whole(name, obj) is None, (
            f"the typed path refused a record the whole path finds nothing in: {raw[:200]!r}"
        )
    return False


def test_dialects_with_a_typed_path():
    assert {"agentscope-py", "agentscope-java", "loongflow"} <= set(TYPED)


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
                assert _whole(name, obj) == typed
    assert seen >= 10


#: the records of each dialect with a typed path on which the whole path finds nothing
GOOD = {name: [obj for n, obj in RECORDS if n == name and _whole(n, obj)] for name in TYPED}


@pytest.mark.parametrize("name", TYPED)
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_typed_path_agrees_on_mutated_records(name, data):
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
    before = DECODED.get("agentscope-py", 0)
    typed = _reports(path, monkeypatch, True)
    # every line from the second on: one that does not parse does not end the typed loop
    assert DECODED["agentscope-py"] - before == len(body) + len(lines)
    assert typed == _reports(path, monkeypatch, False)
    codes = {code for _, code, _, _ in typed[0]}
    assert {"P001", "P003", "P004", "P005", "I001"} <= codes, codes


def test_a_broken_loongflow_log_gets_the_same_report_either_way(monkeypatch, tmp_path):
    lines = (FIXTURES / "real" / "loongflow" / "transcript.jsonl").read_bytes().splitlines()
    call, output, evolve = lines[2], lines[3], lines[11]
    old = (FIXTURES / "valid" / "loongflow" / "evolve-0.0.1.jsonl").read_bytes().splitlines()[1]
    deep = b'{"a":' * 1015 + b"1" + b"}" * 1015
    bad = [
        b"",
        b"[1, 2]",
        lines[1].replace(b'"metadata": {}', b'"metadata": {"deep": ' + deep + b"}", 1),
        lines[1].replace(b'"role": "user"', b'"role": "observer"', 1),  # S006
        lines[1].replace(b'"db1ed794-5c88', b'"DB1ED794-5C88', 1),  # I003
        lines[1].replace(b'"id": "db1ed794', b'"id": "urn:uuid:db1ed794', 1),  # I003
        lines[1].replace(b'09.563728"', b'09.563728+00:00"', 1),  # C001
        lines[1].replace(b'09.563728"', b'09.000000"', 1),  # C001
        lines[1].replace(b'"2026-11-22T11:52:09.563728"', b"1795348329.5", 1),  # C001
        lines[1].replace(b'09.563728"', b'09.563728+08:00"', 1),  # written so: taken
        lines[1].replace(b'09.563728"', b'09.563728-25:00"', 1),  # S001
        lines[1].replace(b'"2026-11-22', b'"2026-02-30', 1),  # S001
        lines[1].replace(b'"2026-11-22', b'"0001-01-01', 1).replace(b'09.563728"', b'09Z"'),
        lines[1].replace(b'"2026-11-22', b'"0001-01-01', 1).replace(b'.563728"', b'+01:00"'),
        lines[1].replace(b'"data": "What', b'"data": " "}, {"type": "content", "data": "What'),
        lines[1].replace(b'"sender": "user", ', b"", 1),  # S004
        lines[1].replace(b'"mime_type": "text/plain"', b'"mime_type": "text/plain; charset=x"'),
        lines[1].replace(
            b'"data": "What',
            b'"data": "  "}, {"type": "think", "metadata": {}, "content": {"plan": 1}, "x": "',
            1,
        ),  # S003
        call.replace(b'"tool_arguments_err": ""', b'"tool_arguments_err": "bad JSON"', 1),  # T009
        call.replace(b'"tool_arguments_err": ""', b'"tool_arguments_err": false', 1),
        call.replace(b'"target": "get_weather"', b'"target": "__fragment__"', 1),  # T008
        call.replace(b'"type": "tool_call"', b'"type": "function"', 1),
        call.replace(b'"a3cba04c', b'"{a3cba04c', 1).replace(b'c4c52274e72f"', b'c4c52274e72f}"'),
        output.replace(b'"role": "tool"', b'"role": "assistant"', 1),  # T007
        output.replace(b'"status": "success"', b'"status": "done"', 1),  # S001
        output.replace(b'"result": [{"type": "content", ', b'"result": [{', 1),  # S004
        output.replace(b'"result": [{"type": "content"', b'"result": [{"type": "think"', 1),
        output.replace(b'"application/json"', b'"image/png"', 1),
        evolve,  # a message id used again (I001)
        evolve.replace(b'"cost_time": 5412', b'"cost_time": 5412.0', 1),  # S005
        evolve.replace(b'"best_score": 0.9731', b'"best_score": "0.9731"', 1),  # S005
        evolve.replace(b'"cost_time": 5412', b'"cost_time": 18446744073709551615', 1),
        evolve.replace(b'"cost_time": 5412', b'"cost_time": 18446744073709551616', 1),
        evolve.replace(b', "total_tokens": 1520931.0', b"", 1),  # S004
        # a string and a list (B004)
        evolve.replace(
            b'"best_solution": ["def solve(x):\\n    return x * 2\\n"]', b'"best_solution": "x"'
        ),
        evolve.replace(b'"evaluation": ["', b'"evaluation": "', 1).replace(b'"], "st', b'", "st'),
        evolve.replace(b"}]}", b"}, " + evolve[evolve.index(b'{"type": "evolve') :], 1),
        old,
        # the current shape's keys in the 0.0.1 shape (S003)
        old.replace(b'"total_iterations": ', b'"total_cost": 1.0, "total_iterations": ', 1),
        old.replace(b"}]}", b', "metadata": {}}]}', 1),  # S003
        # lines that are not JSON: held back, said as the reader says them, and the loop
        # goes on after them
        b"\xff\xfe",
        b"{not json",
    ]
    body = []
    for extra in bad:
        body.extend(lines)
        body.append(extra)
    path = tmp_path / "broken.jsonl"
    path.write_bytes(b"\n".join(body + lines) + b"\n" + lines[3][:50])
    DECODED.clear()
    typed = _reports(path, monkeypatch, True)
    assert DECODED["loongflow"] > len(body) - 2 * len(lines), "the typed loop ended early"
    assert typed == _reports(path, monkeypatch, False)
    codes = {code for _, code, _, _ in typed[0]}
    expected = {"P001", "P003", "P004", "P005", "I001", "S001", "S003", "S004", "S005", "S006"}
    assert expected | {"I003", "C001", "T007", "T008", "T009", "B004"} <= codes, codes


def test_the_typed_path_takes_what_loongflow_writes_in_its_less_common_forms():
    # each of these the whole path finds nothing in: the typed path takes it, the same way
    lines = (FIXTURES / "real" / "loongflow" / "transcript.jsonl").read_bytes().splitlines()
    user, call, evolve = lines[1], lines[2], lines[11]
    old = (FIXTURES / "valid" / "loongflow" / "evolve-0.0.1.jsonl").read_bytes().splitlines()[1]
    taken = [
        user.replace(b'09.563728"', b'09.563728+08:00"', 1),
        user.replace(b'09.563728"', b'09-00:30"', 1),
        user.replace(b'09.563728"', b'09.563728Z"', 1),
        # (an instant before year 1 in UTC: no time to compare, as the whole path has it)
        user.replace(b'"2026-11-22T11', b'"0001-01-01T00', 1).replace(b'.563728"', b'+01:00"'),
        user.replace(b'"mime_type": "text/plain"', b'"mime_type": "Text/Plain; charset=utf-8"'),
        user.replace(b'"data": "What', b'"data": {"q": "What', 1).replace(b'"}]}', b'"}}]}', 1),
        call.replace(b'"type": "tool_call"', b'"type": "function"', 1),
        call.replace(b'"tool_arguments_err": ""', b'"tool_arguments_err": false', 1),
        call.replace(b'"tool_arguments_err": ""', b'"tool_arguments_err": null', 1),
        call.replace(b'"content": "The user', b'"content": {"plan": "The user', 1).replace(
            b'get_weather."}', b'get_weather."}}', 1
        ),
        evolve,
        evolve.replace(b'"cost_time": 5412', b'"cost_time": 18446744073709551615', 1),
        evolve.replace(b'"last_iteration": 37', b'"last_iteration": -9223372036854775808', 1),
        evolve.replace(b'"best_score": 0.9731', b'"best_score": 1', 1),
        evolve.replace(b'"total_tokens": 1520931.0', b'"total_tokens": 1520931', 1),
        old,
    ]
    for raw in taken:
        obj = orjson.loads(raw)
        assert _whole("loongflow", obj) is not None, raw
        assert _typed("loongflow", raw) == _whole("loongflow", obj), raw
        assert _agree("loongflow", obj), raw


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
        # lines orjson does not parse (held back, said as the reader says them)
        call.replace(b'"metadata":{', b'"metadata":{"deep":' + deep + b",", 1),
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
    # every line from the second to the cut one at the end
    assert DECODED["agentscope-java"] - before == len(body) + len(lines)
    assert typed == _reports(path, monkeypatch, False)
    codes = {code for _, code, _, _ in typed[0]}
    wanted = {"P001", "S001", "S002", "S003", "S004", "C001", "C002", "B003", "T001", "T004"}
    assert wanted | {"T008", "I001", "I002"} <= codes, codes


def test_a_compressed_log_cut_short_gets_the_same_report_either_way(monkeypatch, tmp_path):
    import gzip

    lines = (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl").read_bytes()
    whole = gzip.compress(lines.replace(b"\n", b"\n\n", 1).replace(b"{", b"{not json\n{", 1) * 50)
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(whole[: len(whole) * 2 // 3])
    typed = _reports(path, monkeypatch, True)
    assert typed == _reports(path, monkeypatch, False)
    codes = {code for _, code, _, _ in typed[0]}
    assert {"P001", "P009"} <= codes, codes
