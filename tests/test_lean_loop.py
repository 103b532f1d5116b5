"""A Claude Code session's lean loop must give the report the whole way gives.

Past its first records, a session is read in a loop of its own (``FileCheck._own_step``):
each line is parsed and handed straight to the session checker, with no record object, no
generator layers and no detection beyond the dialect's own answer; anything else (a line
that does not parse, is not an object, nests too deep, or is not a session record) goes the
whole way. Both ways are run on every Claude Code log of the fixtures and on real sessions
with broken lines mixed in, and must say the same.
"""

from __future__ import annotations

import gzip

from conftest import FIXTURES, log_files

from msgcli.engine import FileCheck, validate_file

#: lines the lean step took
TAKEN = {"lines": 0}


def _report(path, monkeypatch, lean: bool):
    with monkeypatch.context() as patch:
        patch.setattr(FileCheck, "typed_after", 1 if lean else 10**9)
        own_step = FileCheck._own_step

        def counted(self, own):
            step = own_step(self, own)

            def counting(number, raw):
                taken = step(number, raw)
                TAKEN["lines"] += taken
                return taken

            return counting

        patch.setattr(FileCheck, "_own_step", counted)
        report = validate_file(path)
    summary = report.summary
    return (
        [(f.line, f.code, f.message, f.pointer) for f in report.findings],
        (summary.records, summary.errors, summary.warnings, summary.dialect, summary.kind),
        (summary.readable, summary.stopped_early),
    )


def _claude_logs():
    return [
        path
        for path in log_files(FIXTURES)
        if "claude-code" in path.parts and path.name.endswith((".jsonl", ".jsonl.gz"))
    ]


def test_every_claude_code_log_gets_the_same_report_either_way(monkeypatch):
    paths = _claude_logs()
    assert len(paths) > 30
    TAKEN["lines"] = 0
    for path in paths:
        assert _report(path, monkeypatch, True) == _report(path, monkeypatch, False), path
    assert TAKEN["lines"] > 300  # the lean loop really read the sessions


def _session(name: str) -> list[bytes]:
    return (FIXTURES / "real" / "claude-code" / name / "session.jsonl").read_bytes().splitlines()


def test_a_broken_session_gets_the_same_report_either_way(monkeypatch, tmp_path):
    lines = _session("03-parallel-read")
    user = next(line for line in lines if b'"type":"user"' in line)
    assistant = next(line for line in lines if b'"type":"assistant"' in line)
    deep = b'{"a":' * 1015 + b"1" + b"}" * 1015
    agentscope = (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl").read_bytes()
    bad = [
        b"",
        b"   ",
        b"{not json",
        b"[1, 2]",
        b'"text"',
        b'{"type": "user", "sessionId": NaN}',
        user.replace(b'"type":"user"', b'"deep":' + deep + b',"type":"user"', 1),
        user.replace(b'"type":"user"', b'"type":"brand-new-record"', 1),  # K001
        user.replace(b'"type":"user"', b'"type":"user","newField":1', 1),  # K004
        user.replace(b'"isSidechain":false', b'"isSidechain":"no"', 1),  # S-rule
        assistant,  # a uuid used again, a second record of a finished response
        agentscope.splitlines()[0],  # another dialect's record (D002)
        b"\xff\xfe",
        b"\x00\x01binary",
    ]
    body = []
    for extra in bad:
        body.extend(lines)
        body.append(extra)
    path = tmp_path / "broken.jsonl"
    path.write_bytes(b"\n".join(body + lines) + b"\n" + lines[3][:50])
    TAKEN["lines"] = 0
    lean = _report(path, monkeypatch, True)
    # the loop goes on after every broken line: each copy of the session is read by it
    assert TAKEN["lines"] >= len(lines) * len(bad)
    assert lean == _report(path, monkeypatch, False)
    codes = {code for _, code, _, _ in lean[0]}
    assert {"P001", "P002", "P003", "P004", "P005", "P007", "D002", "K001", "K004", "K006"} <= (
        codes
    ), codes


def test_a_compressed_session_cut_short_gets_the_same_report_either_way(monkeypatch, tmp_path):
    lines = _session("02-bash-ls")
    data = gzip.compress(b"\n".join(lines * 40) + b"\n")
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) * 2 // 3])
    lean = _report(path, monkeypatch, True)
    assert lean == _report(path, monkeypatch, False)
    assert "P009" in {code for _, code, _, _ in lean[0]}
