"""``msgcli convert``: every real and valid log into each dialect and back.

What a user checks: the output is a clean log of the target dialect (``msgcli
validate`` finds no errors), converting back gives the records they started
with, what has no counterpart is reported at its line, and the mapping puts
each thing where the target dialect keeps it.
"""

from __future__ import annotations

import gzip
import io
import json
from datetime import UTC, timedelta, timezone
from pathlib import Path

import orjson
import pytest

import msgcli
import msgcli.writer
from msgcli.converters import carry

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
DIALECTS = ("agentscope-java", "agentscope-py", "loongflow")
UTC = UTC

REAL = [
    FIXTURES / "real/agentscope-py/transcript.jsonl",
    FIXTURES / "real/agentscope-py/events-final.jsonl",
    FIXTURES / "real/agentscope-py/events-data-final.jsonl",
    FIXTURES / "real/agentscope-py/v1/transcript-v1.jsonl",
    FIXTURES / "real/loongflow/transcript.jsonl",
]
#: the frameworks' own valid fixtures (those of the other dialects are records their readers
#: make, not messages: test_opencode and test_atif convert them)
VALID = sorted(
    p
    for p in (FIXTURES / "valid").glob("*/*.jsonl")
    if p.parent.name in ("agentscope-java", "agentscope-py", "loongflow")
)
#: warnings a converted log may rightly get (see the README's mapping notes)
EXPECTED_WARNINGS = {
    # LoongFlow calls have no state: a call awaiting confirmation reads as unanswered
    "T002",
    # LoongFlow orders time per conversation_id, AgentScope over the whole file
    "C002",
}


def records_of(data: bytes) -> list:
    return [orjson.loads(line) for line in data.splitlines() if line.strip()]


def convert(data: bytes | list, to: str, **options) -> tuple[list[dict], msgcli.RunReport]:
    if isinstance(data, list):
        data = b"".join(orjson.dumps(r) + b"\n" for r in data)
    options.setdefault("zone", UTC)
    result = msgcli.convert(io.BytesIO(data), to, **options)
    return result.records, result.report


def same(records: list, original: list) -> bool:
    """The same records, keys in the same order (``==`` on dicts ignores the order)."""
    return [orjson.dumps(r) for r in records] == [orjson.dumps(r) for r in original]


def problems(records: list[dict], dialect: str) -> list[str]:
    data = b"".join(orjson.dumps(r) + b"\n" for r in records)
    report = msgcli.validate(io.BytesIO(data), dialect=dialect)
    return [
        str(f)
        for f in report.findings()
        if f.severity.value == "error" or f.code not in EXPECTED_WARNINGS
    ]


def source_dialect(path: Path) -> str:
    return msgcli.detect_dialect(path)[0]


@pytest.mark.parametrize("path", REAL + VALID, ids=lambda p: str(p.relative_to(FIXTURES)))
@pytest.mark.parametrize("to", DIALECTS)
def test_converts_cleanly_and_back(path: Path, to: str):
    data = path.read_bytes()
    source = source_dialect(path)
    original = records_of(data)
    out, report = convert(data, to)
    assert not report.errors(), [str(f) for f in report.errors()]
    assert out, "nothing was written"
    assert problems(out, to) == []
    back, report_back = convert(out, source)
    assert not [f for f in report_back.findings() if f.code.startswith("X")]
    if source == to or "v1" in path.name or "legacy-1x" in path.name:
        # an older shape is brought to 2.x on the way: the way back is 2.x too
        assert problems(back, source) == []
        return
    assert same(back, original)


@pytest.mark.parametrize("path", REAL + VALID, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_round_trip_through_both_others(path: Path):
    """A to B to C, back to B and back to A: each way back undoes its way there."""
    source = source_dialect(path)
    if "v1" in path.name or "legacy-1x" in path.name:
        pytest.skip("an older shape comes home as 2.x")
    original = records_of(path.read_bytes())
    b, c = (d for d in DIALECTS if d != source)
    step, _ = convert(original, b)
    step, _ = convert(step, c)
    assert problems(step, c) == []
    back, _ = convert(step, b)
    assert problems(back, b) == []
    back, _ = convert(back, source)
    assert same(back, original)


def test_the_same_dialect_in_the_2x_shape_is_written_unchanged():
    path = FIXTURES / "real/agentscope-py/transcript.jsonl"
    out, report = convert(path.read_bytes(), "agentscope-py")
    assert out == records_of(path.read_bytes())
    assert report.findings() == []


# -- the mapping: what a user finds where ------------------------------------------


def real_py() -> list[dict]:
    return records_of((FIXTURES / "real/agentscope-py/transcript.jsonl").read_bytes())


def test_python_reply_splits_into_java_messages_at_its_tool_results():
    reply = real_py()[2]  # hint, thinking, text, tool_call, tool_result, thinking, text
    out, _ = convert([reply], "agentscope-java")
    assert [m["role"] for m in out] == ["ASSISTANT", "TOOL", "ASSISTANT"]
    first, tool, after = out
    assert [b["type"] for b in first["content"]] == ["hint", "thinking", "text", "tool_use"]
    call = first["content"][3]
    assert call["input"] == {"city": "Zürich", "unit": "celsius"}  # the parsed object
    assert call["content"] == reply["content"][3]["input"]  # and the raw text the model wrote
    assert call["id"] == tool["content"][0]["id"] == reply["content"][3]["id"]
    assert tool["content"][0]["output"][0]["text"].startswith("Zürich: 7 °C")
    assert [b["type"] for b in after["content"]] == ["thinking", "text"]
    # the 32-hex id in the UUID form Java writes; the time in Java's form, to the millisecond
    assert first["id"].replace("-", "") == reply["id"]
    assert first["timestamp"] == "2026-11-22 11:54:32.303"
    assert first["usage"] == {
        "inputTokens": 910,
        "outputTokens": 121,
        "cachedTokens": 0,
        "time": 0.0,
        "totalTokens": 1031,
    }
    assert tool["name"] == after["name"] == "Friday"
    # what Java has no place for (block ids and times, finished_reason ...) travels along
    kept = first["metadata"]["_msgcli"]["agentscope-py"]
    assert kept["n"] == 3
    assert "finished_reason" in json.dumps(kept["patch"])


def test_java_tool_messages_fold_into_the_python_reply():
    path = FIXTURES / "valid/agentscope-java/react-weather.jsonl"
    original = records_of(path.read_bytes())
    out, _ = convert(original, "agentscope-py")
    roles = [m["role"] for m in original]
    assert "TOOL" in roles
    assert len(out) == len(original) - roles.count("TOOL")
    assert {m["role"] for m in out} <= {"user", "assistant", "system"}
    for message in out:
        calls = {b["id"] for b in message["content"] if b["type"] == "tool_call"}
        results = {b["id"] for b in message["content"] if b["type"] == "tool_result"}
        assert results <= calls  # each result sits beside its call, as Python records them
        for block in message["content"]:
            if block["type"] == "tool_call":
                assert isinstance(block["input"], str)  # Python keeps the raw text
                assert isinstance(json.loads(block["input"]), dict)


def test_loongflow_gets_uuid_call_ids_that_still_pair():
    out, _ = convert([real_py()[2]], "loongflow")
    call = next(e for m in out for e in m["content"] if e["type"] == "tool_call")
    output = next(e for m in out for e in m["content"] if e["type"] == "tool_output")
    assert call["call_id"] == output["call_id"]
    assert len(call["call_id"]) == 36
    assert call["arguments"] == {"city": "Zürich", "unit": "celsius"}
    assert output["status"] == "success"
    # LoongFlow's usage lives in metadata, in its own words
    assert out[0]["metadata"]["usage"] == {
        "completion_tokens": 121,
        "prompt_tokens": 910,
        "total_tokens": 1031,
    }


def test_times_move_between_local_and_utc_by_the_zone():
    loongflow = records_of((FIXTURES / "real/loongflow/transcript.jsonl").read_bytes())
    zurich = timezone(timedelta(hours=1))
    out, _ = convert(loongflow[:1], "agentscope-java", zone=zurich)
    assert loongflow[0]["timestamp"].startswith("2026-11-22T11:52:09.")
    assert out[0]["timestamp"].startswith("2026-11-22 12:52:09.")  # UTC 11:52 is 12:52 at +01:00
    assert len(out[0]["timestamp"]) == len("2026-11-22 12:52:09.562")
    back, _ = convert(out, "loongflow", zone=zurich)
    assert same(back, loongflow[:1])


def test_what_has_no_counterpart_is_reported_at_its_line():
    path = FIXTURES / "real/loongflow/transcript.jsonl"
    out, report = convert(path.read_bytes(), "agentscope-py")
    found = {(f.line, f.code, f.pointer) for f in report.findings()}
    evolve_line = next(
        i
        for i, r in enumerate(records_of(path.read_bytes()), 1)
        if r["content"] and r["content"][0]["type"] == "evolve_result"
    )
    assert (evolve_line, "X001", "/content/0") in found
    # the evolve_result is readable as text in AgentScope, and whole on the way back
    text = next(m for m in out if "best_score" in json.dumps(m["content"]))
    assert text["content"][0]["type"] == "text"
    assert json.loads(text["content"][0]["text"])["best_score"] is not None


def test_hint_becomes_loongflow_text_and_comes_back_a_hint():
    reply = real_py()[2]
    out, report = convert([reply], "loongflow")
    assert out[0]["content"][0] == {
        "type": "content",
        "mime_type": "text/plain",
        "metadata": {},
        "data": reply["content"][0]["hint"],
    }
    assert [(f.code, f.pointer) for f in report.findings()] == [("X001", "/content/0")]
    back, _ = convert(out, "agentscope-py")
    assert same(back, [reply])


def test_no_carry_drops_and_names_each_loss():
    reply = real_py()[2]
    out, report = convert([reply], "agentscope-java", carry=False)
    assert "_msgcli" not in out[0]["metadata"]
    lost = [f for f in report.findings() if f.code == "X002"]
    assert len(lost) == 1 and lost[0].line == 1
    assert "finished_reason" in lost[0].message
    back, _ = convert(out, "agentscope-py")
    assert back != [reply]
    assert back[0]["finished_reason"] is None  # what was reported lost is lost


def test_carried_values_do_not_overrule_edits_made_in_the_target():
    reply = real_py()[2]
    out, _ = convert([reply], "agentscope-java")
    out[0]["content"][2]["text"] = "edited in Java"
    back, _ = convert(out, "agentscope-py")
    assert back[0]["content"][2]["text"] == "edited in Java"
    assert back[0]["content"][2]["id"] == reply["content"][2]["id"]


def test_agentscope_1x_becomes_2x():
    path = FIXTURES / "real/agentscope-py/v1/transcript-v1.jsonl"
    original = records_of(path.read_bytes())
    out, report = convert(path.read_bytes(), "agentscope-py")
    assert all("created_at" in m and "timestamp" not in m for m in out)
    # the 1.x tool-result message (role system) folds into the reply that made the call
    assert len(out) == len(original) - 1
    reply = next(m for m in out if any(b["type"] == "tool_call" for b in m["content"]))
    assert [b["type"] for b in reply["content"]] == ["thinking", "tool_call", "tool_result"]
    assert reply["content"][1]["input"] == '{"city": "Zürich"}'  # the 1.x raw_input
    # the image blocks are 2.x data blocks with the media type 2.x requires
    user = out[1]
    assert [b["type"] for b in user["content"]] == ["text", "data", "data"]
    assert user["content"][1]["source"]["media_type"] == "image/png"
    assert user["created_at"] == "2026-11-22T11:54:34.492000"
    assert [f.code for f in report.findings()] == ["X002"]  # the folded message's id and time


# -- the command ------------------------------------------------------------------


def test_cli_writes_gzip_and_reports_on_stderr(run_cli, tmp_path):
    target = tmp_path / "out.jsonl.gz"
    code, stdout, stderr = run_cli(
        "convert",
        str(FIXTURES / "real/loongflow/transcript.jsonl"),
        "--to",
        "agentscope-java",
        "--zone",
        "UTC",
        "-o",
        str(target),
        stderr=True,
    )
    assert code == 0
    assert stdout == ""
    assert "X001" in stderr and "transcript.jsonl:12" in stderr
    assert "Converted 12 records into 12 agentscope-java records" in stderr
    records = records_of(gzip.decompress(target.read_bytes()))
    assert len(records) == 12
    assert msgcli.validate(str(target)).exit_code == 0


def test_cli_reads_stdin_and_writes_stdout(run_cli):
    data = (FIXTURES / "real/agentscope-py/transcript.jsonl").read_bytes()
    code, stdout = run_cli("convert", "-", "--to", "loongflow", "--zone", "UTC", input=data)
    assert code == 0
    records = records_of(stdout.encode())
    assert len(records) == 9
    assert all("sender" in r and "trace_id" in r for r in records)


def test_cli_broken_lines_are_reported_and_the_rest_converted(run_cli, tmp_path):
    lines = (FIXTURES / "real/agentscope-py/transcript.jsonl").read_bytes().splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(b"\n".join([lines[0], b'{"name": "x", "con', lines[1], lines[3][:40]]))
    code, stdout, stderr = run_cli("convert", str(broken), "--to", "agentscope-java", stderr=True)
    assert code == 1
    assert f"{broken}:2: error P001" in stderr
    assert f"{broken}:4: error P004" in stderr
    assert len(records_of(stdout.encode())) == 2


def test_cli_reports_records_of_another_dialect(run_cli, tmp_path):
    py = (FIXTURES / "real/agentscope-py/transcript.jsonl").read_bytes().splitlines()[0]
    lf = (FIXTURES / "real/loongflow/transcript.jsonl").read_bytes().splitlines()[0]
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(py + b"\n" + lf + b"\n")
    code, stdout, stderr = run_cli("convert", str(mixed), "--to", "agentscope-java", stderr=True)
    assert code == 1  # a record that is not converted is an error
    assert f"{mixed}:2: error D002" in stderr
    assert len(records_of(stdout.encode())) == 1


def test_cli_converts_an_event_log_after_replaying_it(run_cli):
    events = FIXTURES / "real/agentscope-py/events.jsonl"
    code, stdout = run_cli("convert", str(events), "--to", "agentscope-java", "--zone", "UTC")
    assert code == 0
    roles = [r["role"] for r in records_of(stdout.encode())]
    assert roles == ["ASSISTANT", "TOOL", "ASSISTANT"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--to", "openai"], "openai"),
        (["--to", "loongflow", "--zone", "Mars/Olympus"], "unknown zone"),
        (["--to", "loongflow", "--select", "Q9"], "unknown rule code"),
    ],
)
def test_cli_usage_errors(run_cli, args, message):
    path = str(FIXTURES / "real/agentscope-py/transcript.jsonl")
    code, _, stderr = run_cli("convert", path, *args, stderr=True)
    assert code == 2
    assert message in stderr


def test_cli_missing_file_exits_2(run_cli, tmp_path):
    code, _, stderr = run_cli(
        "convert", str(tmp_path / "nope.jsonl"), "--to", "loongflow", stderr=True
    )
    assert code == 2
    assert "P009" in stderr


@pytest.mark.parametrize("zone, expected", [("UTC", 0), ("+05:30", 330), ("-08", -480)])
def test_zone_forms(zone, expected):
    from msgcli.cli.convert_cmd import parse_zone

    tz = parse_zone(zone)
    assert tz is not None
    assert tz.utcoffset(None) == timedelta(minutes=expected)


def test_zone_by_name_and_local():
    from msgcli.cli.convert_cmd import parse_zone

    assert parse_zone("local") is None
    assert parse_zone("Europe/Zurich") is not None


# -- the patch that travels along ----------------------------------------------------


@pytest.mark.parametrize(
    "original, rebuilt",
    [
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
        ({"a": 1, "c": 3, "b": 2}, {"a": 1, "b": 2}),
        ({"a": 1}, {"a": 1.0}),
        ({"a": True}, {"a": 1}),
        ([1, 2, 3], [1, 2]),
        ([{"x": [1, {"y": None}]}], [{"x": [1, {"y": 0}], "z": 1}]),
        ("text", None),
    ],
)
def test_patch_rebuilds_the_original(original, rebuilt):
    patch = carry.diff(original, rebuilt)
    assert patch is not None
    restored = carry.apply(rebuilt, patch)
    assert orjson.dumps(restored) == orjson.dumps(original)
    assert carry.diff(original, original) is None


def test_cli_prints_log_text_literally(run_cli, tmp_path):
    record = records_of((FIXTURES / "real/loongflow/transcript.jsonl").read_bytes())[0]
    record["role"] = "crit\x1b[2Jic [bold]x[/bold]"
    log = tmp_path / "evil.jsonl"
    log.write_bytes(orjson.dumps(record) + b"\n")
    code, stdout, stderr = run_cli("convert", str(log), "--to", "agentscope-py", stderr=True)
    assert code == 0
    assert "\x1b" not in stderr
    assert "crit\\x1b[2Jic [bold]x[/bold]" in stderr  # escaped, the markup as written
    assert records_of(stdout.encode())[0]["role"] == "assistant"


def test_loongflow_hears_of_a_call_state_only_when_the_call_waits():
    call = {
        "type": "tool_use",
        "id": "call_1",
        "name": "Bash",
        "input": {"cmd": "ls"},
        "content": '{"cmd": "ls"}',
        "metadata": {},
        "state": "allowed",
    }
    asked = {
        "id": "0f8fad5b-d9cb-469f-a165-70867728950e",
        "name": "Agent",
        "role": "ASSISTANT",
        "content": [call],
        "metadata": {},
        "timestamp": "2026-11-22 11:54:32.303",
        "usage": None,
    }
    result = {
        "id": "7c9e6679-7425-40de-944b-e07fc1f90ae7",
        "name": "Agent",
        "role": "TOOL",
        "content": [
            {
                "type": "tool_result",
                "id": "call_1",
                "name": "Bash",
                "output": [{"type": "text", "text": "a.txt"}],
                "metadata": {},
                "state": "success",
            }
        ],
        "metadata": {},
        "timestamp": "2026-11-22 11:54:32.404",
        "usage": None,
    }
    _, answered = convert([asked, result], "loongflow")
    assert answered.findings() == []
    _, waiting = convert([asked], "loongflow")
    assert [(f.code, f.line, f.pointer) for f in waiting.findings()] == [("X001", 1, "/content/0")]
    assert "'allowed'" in waiting.findings()[0].message


@pytest.mark.parametrize("depth", [300, 1000])
def test_values_nested_deeper_than_orjson_writes_convert_and_come_back(depth):
    """The reader takes up to 1,024 levels of JSON; orjson writes 255."""
    line = (FIXTURES / "readme/weather.jsonl").read_bytes().splitlines()[0]
    deep = b'"metadata": {"x": ' + b"[" * depth + b"]" * depth + b"}"
    data = line.replace(b'"metadata": {}', deep) + b"\n"
    assert deep in data
    for to in ("agentscope-java", "loongflow"):
        out, report = convert(data, to)
        assert not report.findings()
        lines = b"".join(msgcli.writer.dumps(r) + b"\n" for r in out)
        back, _ = convert(lines, "agentscope-py")
        assert msgcli.writer.dumps(back[0]) == msgcli.writer.dumps(orjson.loads(data))


# -- what an earlier conversion carried ------------------------------------------------

#: a real log of each dialect, and a provider's (no metadata: it carries nothing itself)
ORIGINS = {
    "agentscope-py": FIXTURES / "real/agentscope-py/transcript.jsonl",
    "agentscope-java": FIXTURES / "real/agentscope-java/transcript.jsonl",
    "loongflow": FIXTURES / "real/loongflow/transcript.jsonl",
    "openai-chat": FIXTURES / "real/openai-chat/conversations.jsonl",
}


def carrying(dialect: str) -> dict[str, list[dict]]:
    """Records of ``dialect`` whose metadata holds ``_msgcli``: converted from each other
    log (so they carry what that conversion kept), and the real log with a value a tool
    kept there itself."""
    found = {}
    for origin, path in ORIGINS.items():
        if origin != dialect:
            found[origin], _ = convert(path.read_bytes(), dialect)
    own = records_of(ORIGINS[dialect].read_bytes())
    for record in own:
        record["metadata"]["_msgcli"] = {"note": "kept by a tool", "n": [1, 2]}
    found["own"] = own
    return found


def carried(records: list[dict]) -> list:
    return [(r.get("metadata") or {}).get("_msgcli") for r in records]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_what_an_earlier_conversion_carried_survives_later_ones(dialect: str):
    """A → B → A and A → B → C → A give the records back byte for byte, metadata._msgcli
    included, for records that carry it already, for every B and C (but B the dialect they
    came from: A → B is then the way back, which uses up what was carried)."""
    for origin, start in carrying(dialect).items():
        if not any(carried(start)):
            continue  # (a conversion that lost nothing keeps nothing: Chat to Java)
        for b in DIALECTS:
            if b == dialect:
                continue
            there, _ = convert(start, b)
            back, _ = convert(there, dialect)
            assert same(back, start), (origin, b)
            if b == origin:
                continue  # (A to B is the way back, which uses up what was carried)
            for c in DIALECTS:
                if c in (dialect, b):
                    continue
                on, _ = convert(there, c)
                assert problems(on, c) == []
                back, _ = convert(on, dialect)
                assert same(back, start), (origin, b, c)
                assert carried(back) == carried(start)


def test_a_converted_log_converted_on_goes_back_step_by_step():
    """Python records made from a LoongFlow log, converted to Java: the Java records carry
    the way back to Python after the way back to LoongFlow, and converting them to
    LoongFlow goes back through Python."""
    original = records_of((FIXTURES / "real/loongflow/transcript.jsonl").read_bytes())
    py, _ = convert(original, "agentscope-py")
    assert {tuple(k) for k in carried(py) if k} == {("loongflow",)}
    java, _ = convert(py, "agentscope-java")
    # Java's records carry the way back to Python after the way back to LoongFlow
    assert ("loongflow", "agentscope-py") in {tuple(k) for k in carried(java) if k}
    loongflow, _ = convert(java, "loongflow")
    assert same(loongflow, original)  # back through Python, then to LoongFlow
    back, _ = convert(java, "agentscope-py")
    assert same(back, py)
