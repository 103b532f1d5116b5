"""Single JSON documents: state files are read as the messages inside them, a pretty-printed
record as that record, anything else is one P011; a directory scan passes over ``*.json``
files that are no log.

The state files are real: AgentScope Java's ``JsonFileAgentStateStore`` layout and AgentScope
Python's ``AgentState.model_dump_json(indent=2)`` (``fixtures/real/README.md``), with the JSON
schema AgentScope generates for that state beside it.
"""

from __future__ import annotations

import json
import shutil

from conftest import FIXTURES

import msgcli
from msgcli.stats import file_stats

JAVA_STORE = FIXTURES / "real/agentscope-java/state-store/__anon__/weather-1"
JAVA_STATE = JAVA_STORE / "agent_state.json"
PY_STATE = FIXTURES / "real/agentscope-py/state/agent_state.json"
SCHEMA = FIXTURES / "real/agentscope-py/state/agent_state.schema.json"


def _start_lines(path) -> list[int]:
    """The lines on which the elements of the document's ``context`` open, read off the text
    by its indentation: Python's ``indent=2`` opens each on a line ``    {``; Jackson's pretty
    printer opens the first on the ``"context" : [ {`` line and the others on ``  }, {``."""
    text = path.read_text(encoding="utf-8").splitlines()
    if any('"context" : [ {' in line for line in text):
        first = next(i for i, line in enumerate(text, 1) if '"context" : [ {' in line)
        return [first] + [i for i, line in enumerate(text, 1) if line == "  }, {"]
    return [i for i, line in enumerate(text, 1) if line == "    {"]


def test_the_java_state_store_reads_as_its_messages():
    run = msgcli.validate(JAVA_STATE)
    assert run.findings() == []
    (fr,) = run.files
    assert (fr.summary.dialect, fr.summary.kind, fr.summary.records) == (
        "agentscope-java",
        "messages",
        4,
    )
    # the same messages as the memory file the store keeps beside it
    inside = [m.id for _, m in msgcli.read_messages(JAVA_STATE)]
    memory = [m.id for _, m in msgcli.read_messages(JAVA_STORE / "memory_messages.jsonl")]
    assert inside == memory and len(inside) == 4


def test_each_message_is_placed_by_its_line_and_pointer():
    for path in (JAVA_STATE, PY_STATE):
        stats = file_stats(path)
        assert [ptr for _, ptr in stats.placed] == [
            f"/context/{i}" for i in range(len(stats.placed))
        ]
        assert [line for line, _ in stats.placed] == _start_lines(path)


def test_a_finding_points_into_the_document(tmp_path):
    doc = json.loads(JAVA_STATE.read_text(encoding="utf-8"))
    doc["context"][2]["content"][0]["type"] = "bogus"
    broken = tmp_path / "agent_state.json"
    broken.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    (finding,) = [f for f in msgcli.validate(broken).findings() if f.code == "S001"]
    assert finding.pointer == "/context/2/content/0/type"
    assert finding.line == _start_lines(broken)[2]


def test_show_says_where_each_message_sits(run_cli):
    code, out = run_cli("show", "--no-pager", str(PY_STATE))
    assert code == 0
    lines = _start_lines(PY_STATE)
    for index, line in enumerate(lines):
        assert f"line {line}  at /context/{index}" in out
    assert "What's the weather in Zürich" in out


def test_stats_json_lists_where_the_messages_sit(run_cli):
    code, out = run_cli("stats", "--format", "json", str(PY_STATE))
    assert code == 0
    (entry,) = json.loads(out)["files"]
    assert entry["messages"]["total"] == 3
    assert [d["pointer"] for d in entry["document"]] == ["/context/0", "/context/1", "/context/2"]


def test_a_folder_of_agentscope_output_checks_clean(tmp_path, run_cli):
    """State files, a schema, the memory and the logs side by side: no P001, no P011."""
    folder = tmp_path / "run"
    shutil.copytree(JAVA_STORE, folder / "store")
    shutil.copy(PY_STATE, folder / "agent_state.json")
    shutil.copy(SCHEMA, folder / "agent_state.schema.json")
    shutil.copy(FIXTURES / "real/agentscope-py/transcript.jsonl", folder / "transcript.jsonl")
    shutil.copy(FIXTURES / "valid/loongflow/file-storage.json", folder / "agent-stm.json")
    code, out = run_cli("validate", "--no-config", "-v", str(folder))
    assert code == 0, out
    assert "P001" not in out and "P011" not in out
    assert "Checked 5 files" in out
    assert f"skipped 1 JSON document that is no log of a known dialect: {folder}/" in out
    assert "agent_state.schema.json" in out.splitlines()[-2]


def test_a_document_that_is_no_log_is_one_finding(run_cli):
    code, out = run_cli("validate", "--no-config", str(SCHEMA))
    assert code == 1
    findings = [line for line in out.splitlines() if ": error P" in line]
    assert len(findings) == 1
    assert f"{SCHEMA}:1: error P011 a single JSON document, not a log" in findings[0]


def test_a_broken_document_is_one_finding_not_one_per_line(tmp_path):
    text = PY_STATE.read_text(encoding="utf-8")
    cut = tmp_path / "state.json"
    cut.write_text(text[: len(text) // 2], encoding="utf-8")
    findings = msgcli.validate(cut).findings()
    assert [f.code for f in findings] == ["P001"]


def test_a_pretty_printed_record_is_checked_as_that_record(tmp_path):
    line = (FIXTURES / "real/agentscope-java/transcript.jsonl").read_text().splitlines()[1]
    pretty = tmp_path / "message.json"
    pretty.write_text(json.dumps(json.loads(line), indent=2, ensure_ascii=False), encoding="utf-8")
    run = msgcli.validate(pretty)
    assert [f.code for f in run.findings()] == ["T002"]  # its result is in the next record
    assert run.files[0].summary.records == 1


def test_an_agentscope_1x_session_file_reads_as_its_messages():
    """``JSONSession`` writes ``{module: state_dict}`` on one line; InMemoryMemory's state is
    ``[[msg.to_dict(), marks], ...]``."""
    path = FIXTURES / "valid/agentscope-py/session-v1.json"
    real = FIXTURES / "real/agentscope-py/v1/transcript-v1.jsonl"
    assert msgcli.validate(path).findings() == []
    inside = [(m.id, m.variant) for _, m in msgcli.read_messages(path)]
    assert inside == [(m.id, m.variant) for _, m in msgcli.read_messages(real)]
    assert file_stats(path).placed[0] == (1, "/memory/content/0/0")
