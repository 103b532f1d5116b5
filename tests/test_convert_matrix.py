"""Every conversion checks in its target: each bundled log of every dialect, converted to
every ``convert --to`` target, validates there with no error.

A warning in the converted log is one the source log has too (an unanswered tool call
stays unanswered; a trace says O010 where a log of messages says T002), or follows a loss or
change ``convert`` declared for that file (X001, X002), or is LoongFlow's time order (it
orders times per conversation, AgentScope over the whole file: ``docs/convert-mapping.md``)
or Gemini CLI's (a resume rewrites the session's first message, which keeps its place), or
a provider's response converted to provider messages (its calls are handed to the
application: their results come in the next request, which the log does not hold). Where the
source has no value the target requires (a time, a tool's name), the converter writes a
stand-in and says so (X003); a ``null`` never stands where the target wants a string.
"""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path

import orjson
import pytest
from conftest import FIXTURES, log_files, sidecar

import msgcli
import msgcli.writer
from msgcli.containers import container_for
from msgcli.converters import targets
from msgcli.dialects import DIALECTS
from msgcli.pipeline import validate_paths


def bundled_logs() -> list[Path]:
    """The JSON logs and the logs kept in a container (OpenCode's database, an OTLP
    protobuf body), as a directory scan takes them."""
    kept = [p for p in FIXTURES.rglob("*") if p.is_file() and container_for(str(p), b"")]
    return sorted({*log_files(FIXTURES), *kept})


#: every log the repository bundles, but the negative fixtures (their findings are the point)
CANDIDATES = [
    p
    for p in bundled_logs()
    if "invalid" not in p.relative_to(FIXTURES).parts and not sidecar(p).is_file()
]
#: the loss a converted file declares (X001, X002) explains any warning in the target
DECLARED = {"X001", "X002"}
#: a target's finding that is a source's finding in the target's own rule family: a tool
#: call no result answers is T002 in a log of messages and O010 in a trace, an empty
#: argument text T005 there and O013 (arguments that are no JSON object) here
SAME = {"O010": "T002", "O013": "T005"}


@cache
def source_report(path: Path):
    (report,) = validate_paths([path]).files
    return report


@cache
def source_warnings(path: Path) -> frozenset[str]:
    """The warnings the source has: of its records and, for an event log, of the messages
    its events rebuild, as their own dialect checks them (the framework's own reply may
    hold, say, a call that never gets a result)."""
    report = source_report(path)
    codes = {f.code for f in report.findings if f.severity.value == "warning"}
    dialect = report.summary.dialect
    if report.summary.kind == "events" and dialect in targets():
        replayed = msgcli.convert(str(path), dialect).records
        rebuilt = msgcli.validate(io.BytesIO(lines(replayed)), dialect=dialect)
        codes |= {f.code for f in rebuilt.findings() if f.severity.value == "warning"}
    return frozenset(codes)


def lines(records: list[dict]) -> bytes:
    return b"".join(msgcli.writer.dumps(r) + b"\n" for r in records)


def convert_and_check(path: Path, to: str) -> list[str]:
    """What is wrong with converting ``path`` to ``to``: each problem as a line of text."""
    source = source_report(path)
    result = msgcli.convert(str(path), to)
    declared = {f.code for f in result.report.findings()}
    wrong = [f"convert: {f}" for f in result.report.errors()]
    if not result.records:
        # nothing in the conversation (a subagent's .meta.json): convert says so
        if "X002" not in declared:
            wrong.append("nothing was written and convert did not say why")
        return wrong
    report = msgcli.validate(io.BytesIO(lines(result.records)), dialect=to)
    for f in report.findings():
        if f.severity.value == "error":
            wrong.append(f"{to}: {f}")
        elif f.severity.value == "warning":
            if f.code in source_warnings(path) or declared & DECLARED:
                continue
            if SAME.get(f.code) in source_warnings(path):
                continue  # (the source's own finding, in the target's rule family)
            if f.code == "C002" and source.summary.dialect == "loongflow":
                continue
            if f.code == "C002" and source.summary.dialect == "gemini-cli":
                # a resumed Gemini CLI session rewrites its first message (the session
                # context) with the resume's time and keeps its place first in the history
                continue
            if f.code == "T002" and not DIALECTS[to].load_writer().has_metadata:
                # a provider's response hands its calls to the application, and a log of
                # provider messages pairs them with results: a response alone ends unpaired
                continue
            wrong.append(f"{to}: {f} (a warning the source has not, no loss declared)")
    return wrong


@pytest.mark.parametrize("path", CANDIDATES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_log_converts_to_every_target_and_validates_there(path: Path):
    source = source_report(path)
    if source.summary.dialect is None or source.summary.errors:
        pytest.skip("not a valid log of a dialect (a request's scenario, an outcome, a case table)")
    wrong = [line for to in targets() for line in convert_and_check(path, to)]
    assert wrong == []


def test_the_matrix_covers_every_dialect_as_a_source():
    """The sweep above reaches a real log of every dialect, as messages and as events."""
    seen = set()
    for path in CANDIDATES:
        if "real" not in path.relative_to(FIXTURES).parts[:1]:
            continue
        report = source_report(path)
        if report.summary.dialect and not report.summary.errors:
            seen.add((report.summary.dialect, report.summary.kind))
    dialects = {d for d, _ in seen}
    assert dialects == set(DIALECTS)
    assert {d for d, kind in seen if kind == "events"} >= {
        "agentscope-py",
        "agentscope-java",
        "anthropic",
        "openai-chat",
        "openai-responses",
        "claude-code",
    }


# -- what a user of a provider conversation finds in AgentScope and LoongFlow ------------

CHAT = FIXTURES / "real/openai-chat/conversations.jsonl"
ANTHROPIC = FIXTURES / "real/anthropic/conversations.jsonl"


@pytest.mark.parametrize("path", [CHAT, ANTHROPIC], ids=["openai-chat", "anthropic"])
@pytest.mark.parametrize("to", ["agentscope-py", "agentscope-java", "loongflow"])
def test_provider_conversations_get_stand_in_times_and_the_calls_names(path: Path, to: str):
    result = msgcli.convert(str(path), to)
    report = msgcli.validate(io.BytesIO(lines(result.records)), dialect=to)
    assert report.exit_code == 0
    assert [f for f in report.findings() if f.severity.value != "info"] == []
    # no time in the source: the documented stand-in, on every message
    times = [r.get("created_at") or r.get("timestamp") for r in result.records]
    assert times and all(t is not None and t.startswith("1970-01-01") for t in times)
    if to == "agentscope-py":
        blocks = [b for r in result.records for b in r["content"]]
        assert all(b["created_at"] is not None for b in blocks)
        assert b"null" not in orjson.dumps([r["name"] for r in result.records])
    # one X003 says so, at the first line, counting the messages of the source
    (filled,) = [f for f in result.report.findings() if f.code == "X003"]
    assert filled.severity.value == "info" and filled.line == 1
    requests = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    count = sum(len(r["messages"]) + bool(r.get("system")) for r in requests)
    assert filled.message.startswith(f"{count} message(s) with no time")
    # every tool result carries the name of the call it answers, as the source's call says
    source = path.read_text(encoding="utf-8")
    names = {
        b.get("name") or b.get("tool_name")
        for r in result.records
        for b in r["content"]
        if b["type"] in ("tool_result", "tool_output")
    }
    assert names and all(isinstance(n, str) and f'"{n}"' in source for n in names)


def test_messages_on_one_line_get_ids_of_their_own():
    """A request holds many messages on one line: each gets its own made id."""
    for to in ("agentscope-py", "agentscope-java", "loongflow"):
        records = msgcli.convert(str(CHAT), to).records
        ids = [r["id"] for r in records]
        assert len(set(ids)) == len(ids)
        again = [r["id"] for r in msgcli.convert(str(CHAT), to).records]
        assert again == ids  # made from what they stand for: the same on every run


def test_a_message_written_in_parts_under_one_id_gets_a_new_id_where_ids_are_unique():
    """AgentScope Python offloads a reply in parts under its one id (context.jsonl); Java
    gives each message its own id: the second part gets a made one (X001), and converting
    back gives the parts their shared id again."""
    path = FIXTURES / "real/agentscope-py/offload/context.jsonl"
    original = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    assert original[1]["id"] == original[2]["id"]
    result = msgcli.convert(str(path), "agentscope-java")
    ids = [r["id"] for r in result.records]
    assert len(set(ids)) == len(ids)
    renamed = [f for f in result.report.findings() if f.code == "X001" and f.pointer == "/id"]
    assert [f.line for f in renamed] == [3]
    back = msgcli.convert(io.BytesIO(lines(result.records)), "agentscope-py").records
    assert [orjson.dumps(r) for r in back] == [orjson.dumps(r) for r in original]


def test_a_request_converted_to_its_own_dialect_keeps_the_system_prompt_valid():
    """An Anthropic request's system prompt is no message of its own: converted to
    ``anthropic`` it is written on a line of its own as ``{"system": ...}``."""
    path = FIXTURES / (
        "provider-streams/anthropic-messages/conversations/conv-01-weather-parallel/"
        "turn-1/request.json"
    )
    result = msgcli.convert(str(path), "anthropic")
    request = orjson.loads(path.read_bytes())
    assert result.records[0] == {"system": request["system"]}
    assert result.records[1:] == request["messages"]
