"""Replay on typed events must give what the whole way gives, line for line.

The AgentScope Python and Java replayers hand the rest of a JSONL event log to a loop of
their own (:mod:`msgcli.replayers.typed`) once it is past its first records: each line is
decoded into the types of the events the framework writes and applied by a fast path, and
anything else takes the whole way. Here every log is replayed both ways (the typed loop from
the second record, and never) and must give the same messages, byte for byte, the same
findings and the same summary (replay counts included): on every fixture log, on real logs
with broken lines mixed in, and with one event of a real log mutated (hypothesis).
"""

from __future__ import annotations

import dataclasses

import orjson
import pytest
from conftest import FIXTURES, examples, log_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import JSON_VALUES, mutated

from msgcli.engine import FileCheck, Options, validate_file
from msgcli.replayers.typed import TypedReplay

#: records the whole way took while the typed loop ran (counted by _replay)
TAKEN: dict[str, int] = {}
#: records read in the typed runs
READ: dict[str, int] = {}

DIALECTS = ("agentscope-py", "agentscope-java")


def _replay(path, monkeypatch, typed: bool, options: Options | None = None):
    """Messages (as JSON text), findings and summary of ``path`` replayed either way."""
    messages: list[tuple[int, bytes]] = []
    with monkeypatch.context() as patch:
        patch.setattr(TypedReplay, "lean_after", 1 if typed else 10**12)
        if typed:
            take = FileCheck.take

            def counted(self, record):
                if self.summary.dialect in DIALECTS:
                    TAKEN[self.summary.dialect] = TAKEN.get(self.summary.dialect, 0) + 1
                return take(self, record)

            patch.setattr(FileCheck, "take", counted)
        report = validate_file(
            path,
            options=options or Options(),
            sink=lambda name, line, message: messages.append((line, orjson.dumps(message))),
        )
    summary = report.summary
    if typed and summary.dialect in DIALECTS:
        READ[summary.dialect] = READ.get(summary.dialect, 0) + summary.records
    return (
        messages,
        [(f.line, f.code, f.message, f.pointer) for f in report.findings],
        dataclasses.asdict(summary),
    )


def _event_logs() -> list:
    out = []
    for path in log_files(FIXTURES):
        text = path.read_bytes()[:4000]
        if b'"reply_id"' in text or b'"createdAt"' in text or b'"replyId"' in text:
            out.append(path)
    return out


def test_every_event_log_replays_the_same_either_way(monkeypatch):
    logs = _event_logs()
    assert len(logs) > 60
    for path in logs:
        typed = _replay(path, monkeypatch, True)
        assert typed == _replay(path, monkeypatch, False), path
    # the typed loop is what replays these logs: most of their records never go the whole way
    for dialect in DIALECTS:
        assert READ.get(dialect, 0) > 500, READ
        assert TAKEN.get(dialect, 0) < READ[dialect] / 2, (TAKEN, READ)


def _real(dialect: str) -> list[bytes]:
    name = "events.jsonl"
    return (FIXTURES / "real" / dialect / name).read_bytes().splitlines()


def _broken(lines: list[bytes], dialect: str) -> list[bytes]:
    """Lines that are wrong in every way the typed loop must leave to the whole way."""
    deep = b'{"a":' * 1015 + b"1" + b"}" * 1015
    delta = next(line for line in lines if b'TEXT_BLOCK_DELTA"' in line)
    start = next(line for line in lines if b'MODEL_CALL_START"' in line)
    end = next(line for line in lines if b'TOOL_RESULT_END"' in line)
    bad = [
        b"",
        b"   ",
        b"{not json",
        b"[1, 2]",
        b'{"type": NaN}',
        b"\xff\xfe",
        delta,  # the same event again: its id repeats (E014)
        delta.replace(b'"delta":"', b'"delta":"\\ud800', 1).replace(
            b'"delta": "', b'"delta": "\\ud800', 1
        ),
        delta.replace(b'"delta":"', b'"delta":1,"x":"', 1).replace(
            b'"delta": "', b'"delta": 1, "x": "', 1
        ),
        delta.replace(b"{", b'{"unknown": "key", ', 1),
        delta.replace(b"{", b'{"deep": ' + deep + b", ", 1),
        delta.replace(b"{", b'{"metadata": {"n": 123456789012345678901234567890}, ', 1),
        delta.replace(b"{", b'{"metadata": {"s": "\xff"}, ', 1),
        start,  # a model call that starts again
        end,  # a tool result that ends again
        delta.replace(b"_BLOCK_DELTA", b"_BLOCK_END", 1),
    ]
    if dialect == "agentscope-java":
        bad += [
            delta.replace(b'"TEXT_BLOCK_DELTA"}', b'"TEXT_BLOCK_START"}', 1),  # two types
            delta.replace(b'"createdAt":"2026-', b'"createdAt":"1999-', 1),  # time goes back
            delta.replace(b'"createdAt":"', b'"createdAt":"x', 1),  # no Instant
            delta.replace(b'"TEXT_BLOCK_DELTA"', b'"BINARY_BLOCK_DELTA"'),  # a legacy name
        ]
    else:
        bad += [
            delta.replace(b'"created_at": "2026-', b'"created_at": "1999-', 1),
            delta.replace(b'"created_at": "', b'"created_at": 5, "x": "', 1),
            delta.replace(b'"reply_id": "', b'"reply_id": "other', 1),  # never started
        ]
    return bad


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_broken_log_replays_the_same_either_way(dialect, monkeypatch, tmp_path):
    lines = _real(dialect)
    # the broken lines in the middle of a reply (after a text delta)
    cut = next(i for i, line in enumerate(lines) if b'TEXT_BLOCK_DELTA"' in line) + 1
    body = [*lines[:cut], *_broken(lines, dialect), *lines[cut:]]
    path = tmp_path / "broken.jsonl"
    path.write_bytes(b"\n".join(body) + b"\n" + lines[3][:50])
    typed = _replay(path, monkeypatch, True)
    assert typed == _replay(path, monkeypatch, False)
    codes = {code for _, code, _, _ in typed[1]}
    assert {"P001", "P002", "P003", "P004", "P005", "E014", "E003"} <= codes, codes
    assert typed[0], "the messages are rebuilt"
    # --until and --max-errors stop where they always did (the typed loop is not used)
    for options in (Options(until=len(lines) + 5), Options(max_errors=3)):
        assert _replay(path, monkeypatch, True, options) == _replay(
            path, monkeypatch, False, options
        )


def _records(dialect: str) -> list[dict]:
    return [orjson.loads(line) for line in _real(dialect)]


GOOD = {dialect: _records(dialect) for dialect in DIALECTS}


@pytest.mark.parametrize("dialect", DIALECTS)
@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_mutated_event_replays_the_same_either_way(dialect, data, tmp_path_factory):
    lines = _real(dialect)
    event = mutated(data, GOOD[dialect][2:], JSON_VALUES)
    at = data.draw(st.integers(min_value=2, max_value=len(lines)))
    body = [*lines[:at], orjson.dumps(event), *lines[at:]]
    path = tmp_path_factory.mktemp("mutated") / "events.jsonl"
    path.write_bytes(b"\n".join(body) + b"\n")
    with pytest.MonkeyPatch.context() as patch:
        assert _replay(path, patch, True) == _replay(path, patch, False), event


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_compressed_log_cut_short_replays_the_same_either_way(dialect, monkeypatch, tmp_path):
    import gzip

    lines = _real(dialect)
    body = [*lines[:5], b"{not json", *lines[5:]]
    packed = gzip.compress(b"\n".join(body) + b"\n")
    path = tmp_path / "events.jsonl.gz"
    path.write_bytes(packed[: len(packed) * 3 // 4])
    typed = _replay(path, monkeypatch, True)
    assert typed == _replay(path, monkeypatch, False)
    codes = {code for _, code, _, _ in typed[1]}
    assert {"P001", "P009"} <= codes, codes
