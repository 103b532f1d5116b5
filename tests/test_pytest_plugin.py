"""The pytest plugin (``transcript_snapshot``), run as a user's test suite would run it.

Each test writes a small test module with pytester and runs pytest on it; the plugin
comes in through msgcli's ``pytest11`` entry point, as in a user's environment.
"""

from __future__ import annotations

import json
from importlib.metadata import entry_points

from conftest import FIXTURES

pytest_plugins = ["pytester"]

FIRST = FIXTURES / "events" / "agentscope-py" / "multi-agent-final.jsonl"
RERUN = FIXTURES / "real" / "agentscope-py" / "v2-rerun" / "multi-agent-final.jsonl"
EVENTS = FIXTURES / "events" / "agentscope-py" / "multi-agent.jsonl"

TEST_MODULE = """
import msgcli

def test_agent(transcript_snapshot):
    transcript_snapshot.assert_match({source}, "multi-agent")
"""


def _module(pytester, source: str) -> None:
    pytester.makepyfile(test_agent=TEST_MODULE.format(source=source))


def test_the_plugin_is_a_pytest11_entry_point():
    found = [e for e in entry_points(group="pytest11") if e.name == "msgcli"]
    assert [e.value for e in found] == ["msgcli.pytest_plugin"]


def test_a_missing_snapshot_fails_and_says_how_to_write_it(pytester):
    _module(pytester, repr(str(FIRST)))
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*no golden transcript *__snapshots__/multi-agent.jsonl: run pytest "
            "--msgcli-update-snapshots to write it*"
        ]
    )
    assert not (pytester.path / "__snapshots__").exists()


MATCHING = """
import msgcli

def test_the_second_run(transcript_snapshot):
    transcript_snapshot.assert_match({rerun!r}, "multi-agent")

def test_the_event_log_replayed(transcript_snapshot):
    transcript_snapshot.assert_match({events!r}, "multi-agent")

def test_messages_of_the_neutral_model(transcript_snapshot):
    messages = [m for _, m in msgcli.read_messages({rerun!r})]
    transcript_snapshot.assert_match(messages, "multi-agent")

def test_dialect_records(transcript_snapshot):
    import json
    with open({rerun!r}, encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    transcript_snapshot.assert_match(records, "multi-agent.jsonl")
"""


def test_update_writes_the_golden_file_and_other_runs_of_it_pass(pytester):
    _module(pytester, repr(str(FIRST)))
    pytester.runpytest("--msgcli-update-snapshots").assert_outcomes(passed=1)
    golden = pytester.path / "__snapshots__" / "multi-agent.jsonl"
    written = [json.loads(x) for x in golden.read_text("utf-8").splitlines()]
    assert written == [json.loads(x) for x in FIRST.read_text("utf-8").splitlines()]
    # a second run of the same scenario (fresh ids and times) matches it, given as a path,
    # as the event log the first run's messages were built from, as messages, as records
    pytester.makepyfile(test_agent=MATCHING.format(rerun=str(RERUN), events=str(EVENTS)))
    pytester.runpytest().assert_outcomes(passed=4)


def test_a_changed_transcript_fails_with_a_readable_diff_until_updated(pytester, tmp_path):
    golden = pytester.path / "__snapshots__" / "multi-agent.jsonl"
    golden.parent.mkdir()
    golden.write_bytes(FIRST.read_bytes())
    rows = [json.loads(x) for x in RERUN.read_text("utf-8").splitlines()]
    rows[1]["content"][-1]["text"] = rows[1]["content"][-1]["text"].replace("return", "single")
    del rows[3]
    changed = tmp_path / "changed.jsonl"
    changed.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    _module(pytester, repr(str(changed)))
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*transcript 'multi-agent' differs from *__snapshots__/multi-agent.jsonl "
            "(run pytest --msgcli-update-snapshots to accept it):",
            "--- *__snapshots__/multi-agent.jsonl  (4 steps)",
            "+++ multi-agent (this run)  (3 steps)",
            "~  ASSISTANT  Bob  *line 2  (A line 2)",
            "~   /content/1/text",
            "-     Budget check: the funicular is CHF 38 ?-return-? per person*",
            "+     Budget check: the funicular is CHF 38 {+single+} per person*",
            "-  ASSISTANT  Zoë  *line 4",
            "*1 removed, 1 changed*",
        ]
    )
    # no traceback of the plugin's own code: the diff is the message
    assert "pytest_plugin.py" not in result.stdout.str()
    # updating accepts the change; the next run passes
    pytester.runpytest("--msgcli-update-snapshots").assert_outcomes(passed=1)
    assert len(golden.read_text("utf-8").splitlines()) == 3
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_transcript_with_lines_that_cannot_be_read_fails_even_when_updating(tmp_path):
    import pytest

    from msgcli.pytest_plugin import TranscriptSnapshot

    broken = tmp_path / "broken.jsonl"
    lines = RERUN.read_text("utf-8").splitlines(keepends=True)
    broken.write_text(lines[0] + '{"name": "Bob", "content": [\n' + lines[1], "utf-8")
    for update in (True, False):
        snapshot = TranscriptSnapshot(tmp_path / "__snapshots__", update)
        with pytest.raises(pytest.fail.Exception, match=rf"{broken}:2: P00"):
            snapshot.assert_match(broken, "broken")
    assert not (tmp_path / "__snapshots__").exists()
