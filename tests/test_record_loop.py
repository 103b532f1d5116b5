"""One record loop: every command places a record of another dialect the same way.

A real LoongFlow transcript with a real AgentScope Python message spliced in: ``validate``
reports D002 at that line, and ``show``, ``stats``, ``format``, ``convert`` and the library
read the rest and say the same about that line (D002, the same words), or, for ``diff``,
pass it over as its policy says.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES

import msgcli
from msgcli.engine import Options
from msgcli.pipeline import validate_paths
from msgcli.stream import EVENT_ITEM, MESSAGE_ITEM, PROBLEM_ITEM, open_log

LOONGFLOW = FIXTURES / "real" / "loongflow" / "transcript.jsonl"
PY_TRANSCRIPT = FIXTURES / "real" / "agentscope-py" / "transcript.jsonl"
PY_EVENTS = FIXTURES / "real" / "agentscope-py" / "events.jsonl"
SPLICED_AT = 4  # the line the foreign record is on


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    lines = LOONGFLOW.read_text(encoding="utf-8").splitlines()
    foreign = PY_TRANSCRIPT.read_text(encoding="utf-8").splitlines()[1]
    lines.insert(SPLICED_AT - 1, foreign)
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _validate_d002(path: Path) -> str:
    run = validate_paths([path])
    (finding,) = [f for f in run.findings() if f.code == "D002"]
    assert finding.line == SPLICED_AT
    return finding.message


def test_every_reading_command_says_what_validate_says(mixed: Path, run_cli) -> None:
    said = _validate_d002(mixed)
    assert "AgentScope" in said and "LoongFlow" in said
    # the library's loop
    items = list(open_log(mixed))
    problems = [i for i in items if i.kind == PROBLEM_ITEM]
    assert [(i.line, i.code, i.notice) for i in problems] == [(SPLICED_AT, "D002", said)]
    assert sum(i.kind == MESSAGE_ITEM for i in items) == 12  # every LoongFlow message read
    # convert reports it as a finding, in the same words
    code, _, err = run_cli("convert", str(mixed), "--to", "agentscope-java", "-q", stderr=True)
    assert code == 1 and f"{mixed}:{SPLICED_AT}: error D002 {said}" in err
    # format names the line it could not use
    code, _, err = run_cli("format", str(mixed), "--provider", "openai", stderr=True)
    assert f"{mixed}:{SPLICED_AT}: {said}" in err
    # show puts it where it is in the conversation
    code, out = run_cli("show", "--no-pager", str(mixed))
    assert "one file should hold one dialect" in out
    # stats counts the LoongFlow messages only
    code, out = run_cli("stats", "--format", "json", str(mixed))
    (stats,) = json.loads(out)["files"]
    assert stats["dialect"] == "loongflow" and stats["messages"]["total"] == 12
    # the library's reader gives the LoongFlow messages, none of the foreign one
    lines = [line for line, _ in msgcli.read_messages(mixed)]
    assert SPLICED_AT not in lines and len(lines) == 12


def test_diff_passes_the_foreign_record_over(mixed: Path, run_cli) -> None:
    code, out, err = run_cli("diff", str(LOONGFLOW), str(mixed), stderr=True)
    # the same twelve messages: no difference, and nothing said of the foreign line
    assert code == 0 and "no differences" in out and "D002" not in out + err


def test_dialect_option_checks_every_record_but_reads_only_those_it_takes() -> None:
    # validate: every record of the event log is checked as a LoongFlow message
    run = validate_paths([PY_EVENTS], Options(dialect="loongflow"))
    codes = {f.code for f in run.findings()}
    assert codes and not codes & {"D001", "D002"}
    assert run.files[0].summary.dialect == "loongflow"
    # reading: none of them is a LoongFlow record, and each says so
    items = list(open_log(PY_EVENTS, Options(dialect="loongflow")))
    assert items and all(i.kind == PROBLEM_ITEM and i.code == "D001" for i in items)
    assert "LoongFlow" in items[0].notice


def test_an_event_log_gives_its_events_when_asked() -> None:
    plain = list(open_log(PY_EVENTS))
    with_events = list(open_log(PY_EVENTS, events=True))
    events = [i for i in with_events if i.kind == EVENT_ITEM]
    assert len(events) == 33 and all(isinstance(i.event, dict) for i in events)
    assert [i for i in with_events if i.kind != EVENT_ITEM] == plain
    assert any(i.kind == MESSAGE_ITEM for i in plain)  # the replay's messages
