"""``msgcli validate --expect-invalid``: negative fixtures kept under test.

A user keeps known-bad transcripts beside their golden ones and wants CI to
fail when one of them stops failing, or fails differently than its ``.expect``
sidecar says. These tests run the command on the bundled broken logs (whose
sidecars the fixture tests already hold to exactly their findings), on the
clean ones, and on copies with sidecars made wrong on purpose.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, log_files, read_expect, sidecar

from msgcli.expect import find_sidecar, read_sidecar
from msgcli.pipeline import Options, validate_paths

INVALID = FIXTURES / "invalid"
EVENT_INVALID = [FIXTURES / "events" / d / "invalid" for d in ("agentscope-java", "agentscope-py")]
# (a real log held to a sidecar, such as a Claude Code session with a warning, is not clean)
CLEAN = [
    p
    for p in log_files(FIXTURES / "real") + log_files(FIXTURES / "valid")
    if not sidecar(p).is_file()
    and not p.name.endswith(".schema.json")  # no log: a JSON schema beside a state file
]

TOOLS = INVALID / "agentscope-py" / "tool-pairing.jsonl"


def json_report(run_cli, *args):
    code, out = run_cli("validate", "-f", "json", *args)
    return code, json.loads(out)


def copy_with_sidecar(tmp_path: Path, log: Path, text: str | None, name: str | None = None):
    target = tmp_path / (name or log.name)
    shutil.copyfile(log, target)
    if text is not None:
        stem = target.name.removesuffix(".jsonl")
        (tmp_path / f"{stem}.expect").write_text(text, encoding="utf-8")
    return target


def test_every_bundled_broken_log_fails_exactly_as_its_sidecar_says(run_cli):
    code, doc = json_report(run_cli, "--expect-invalid", str(INVALID), *map(str, EVENT_INVALID))
    assert code == 0, [f["message"] for f in doc["findings"]]
    assert doc["findings"] == []
    files = doc["files"]
    logs = log_files(INVALID) + [p for d in EVENT_INVALID for p in log_files(d)]
    assert len(files) == len(logs)
    # every file was held to its own sidecar, and all it listed was found
    for entry in files:
        log = Path(entry["path"])
        assert entry["expect"]["sidecar"] == str(sidecar(log))
        assert entry["expect"]["expected"] == len(read_expect(sidecar(log)))
        assert entry["expect"]["met"] is True
    assert doc["summary"]["exit_code"] == 0 and doc["summary"]["failed"] == 0


def test_a_clean_log_expected_to_be_invalid_fails_with_f001(run_cli):
    code, doc = json_report(run_cli, "--expect-invalid", *map(str, CLEAN))
    assert code == 1
    assert [(f["path"], f["line"], f["code"]) for f in doc["findings"]] == [
        (str(p), 0, "F001") for p in CLEAN
    ]
    assert doc["summary"]["failed"] == len(CLEAN)


def test_without_the_flag_the_same_logs_report_their_own_findings(run_cli):
    code, doc = json_report(run_cli, str(TOOLS))
    assert code == 1
    assert sorted((f["line"], f["code"]) for f in doc["findings"]) == read_expect(sidecar(TOOLS))
    assert "expect" not in doc["files"][0]


def test_a_sidecar_that_no_longer_holds_says_what_moved(run_cli, tmp_path):
    listed = read_expect(sidecar(TOOLS))
    assert (5, "T002") in listed and (6, "I002") in listed
    text = sidecar(TOOLS).read_text(encoding="utf-8")
    text = text.replace("\n5 T002", "\n7 T002").replace("\n6 I002", "\n# expect: I002, C001")
    log = copy_with_sidecar(tmp_path, TOOLS, text + "12 Z999\nnot a pair\n")
    code, out = run_cli("validate", "--expect-invalid", str(log))
    assert code == 1
    side = tmp_path / "tool-pairing.expect"
    lines = side.read_text(encoding="utf-8").splitlines()
    at = {line: n for n, line in enumerate(lines, 1)}
    # the finding now unlisted, at its line in the log, with the original code and text
    assert f"{log}:5: error F003 T002 " in out and "never gets a result" in out
    # the entries that found nothing, at their lines in the sidecar
    assert f"{side}:{at['7 T002']}: error F002 T002 (unanswered-tool-call) at line 7" in out
    expect_line = at["# expect: I002, C001"]
    assert f"{side}:{expect_line}: error F002 C001 (timestamp-format) was expected" in out
    assert f"{side}:{at['12 Z999']}: error F004 'Z999' is not a rule code" in out
    assert f"{side}:{at['not a pair']}: error F004 cannot read 'not a pair'" in out
    assert "F003 I002" not in out  # I002 is met by the '# expect:' list
    assert "1 negative fixture, 0 as expected" in out


def test_codes_listed_without_lines_match_anywhere_and_in_any_number(run_cli, tmp_path):
    codes = sorted({code for _, code in read_expect(sidecar(TOOLS))})
    log = copy_with_sidecar(tmp_path, TOOLS, f"# expect: {', '.join(codes)}\n")
    code, out = run_cli("validate", "--expect-invalid", str(log))
    assert code == 0, out
    # one code too few: every finding of it is unexpected
    log = copy_with_sidecar(tmp_path, TOOLS, f"# expect: {', '.join(codes[1:])}\n")
    code, out = run_cli("validate", "--expect-invalid", "-q", str(log))
    assert code == 1
    missing = [n for _, n in read_expect(sidecar(TOOLS)) if n == codes[0]]
    assert out.count(f": error F003 {codes[0]} ") == len(missing)


def test_a_sidecar_that_lists_nothing_expects_no_finding(run_cli, tmp_path):
    clean = FIXTURES / "valid" / "agentscope-py" / "media.jsonl"
    log = copy_with_sidecar(tmp_path, clean, "# a record the framework accepts: no finding\n")
    assert run_cli("validate", "--expect-invalid", str(log))[0] == 0
    log = copy_with_sidecar(tmp_path, TOOLS, "# no finding expected\n")
    code, out = run_cli("validate", "--expect-invalid", "-q", str(log))
    assert code == 1
    assert out.count(": error F003 ") == len(read_expect(sidecar(TOOLS)))


def test_the_full_name_sidecar_comes_first(tmp_path):
    log = copy_with_sidecar(tmp_path, TOOLS, "# expect: T\n")
    assert find_sidecar(log) == str(tmp_path / "tool-pairing.expect")
    (tmp_path / "tool-pairing.jsonl.expect").write_text("# expect: T001\n", encoding="utf-8")
    assert find_sidecar(log) == str(tmp_path / "tool-pairing.jsonl.expect")
    gz = INVALID / "bad-input" / "cut-off.jsonl.gz"
    assert find_sidecar(gz) == str(INVALID / "bad-input" / "cut-off.expect")


def test_prefixes_and_retired_codes_are_not_sidecar_codes(tmp_path):
    side = tmp_path / "x.expect"
    side.write_text("# expect: T\n# expect: D003\n3 t001\n", encoding="utf-8")
    read = read_sidecar(side)
    assert [(f.line, f.code) for f in read.problems] == [(1, "F004"), (2, "F004")]
    assert "retired" in read.problems[1].message
    assert read.pairs == {(3, "T001"): [3]}  # codes are read in any case


def test_rules_left_out_are_left_out_of_the_expectation(run_cli):
    # T only: the sidecar's I002 line is not expected, and nothing else is found
    code, out = run_cli("validate", "--expect-invalid", "--select", "T,F", str(TOOLS))
    assert code == 0, out
    # F003 ignored: a sidecar that lists only some of the findings is enough
    partial = INVALID / "agentscope-py" / "tool-pairing.jsonl"
    code, _ = run_cli("validate", "--expect-invalid", "--ignore", "F003", str(partial))
    assert code == 0


def test_an_unreadable_negative_fixture_is_not_a_usage_error(run_cli):
    gz = INVALID / "bad-input" / "cut-off.jsonl.gz"
    assert read_expect(sidecar(gz)) == [(4, "P009")]
    assert run_cli("validate", str(gz))[0] == 2
    assert run_cli("validate", "--expect-invalid", str(gz))[0] == 0
    # a path that is not there at all stays one
    assert run_cli("validate", "--expect-invalid", str(INVALID / "no-such.jsonl"))[0] == 2


def test_standard_input_has_no_sidecar_and_needs_an_error(run_cli):
    code, out = run_cli("validate", "--expect-invalid", "-", input=TOOLS.read_bytes())
    assert code == 0
    clean = (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl").read_bytes()
    code, out = run_cli("validate", "--expect-invalid", "-", input=clean)
    assert code == 1 and "<stdin>:0: error F001" in out


def test_warnings_make_a_file_invalid_only_when_strict(run_cli, tmp_path):
    warned = INVALID / "agentscope-py" / "timestamps.jsonl"
    severities = {f.severity.value for f in validate_paths([warned]).findings()}
    assert severities == {"warning"}
    log = copy_with_sidecar(tmp_path, warned, None)
    code, out = run_cli("validate", "--expect-invalid", str(log))
    assert code == 1 and "F001 the file is expected to be invalid, but it has no error (only" in out
    assert run_cli("validate", "--expect-invalid", "--strict", str(log))[0] == 0


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_split_log_is_held_to_its_sidecar_after_its_parts_are_merged(monkeypatch, tmp_path, jobs):
    import msgcli.parallel as parallel

    monkeypatch.setattr(parallel, "SPLIT_BYTES", 1)
    monkeypatch.setattr(parallel, "PART_BYTES", 2048)
    big = tmp_path / "runs.jsonl"
    source = INVALID / "agentscope-java" / "tool-pairing.jsonl"
    big.write_bytes(source.read_bytes() * 6)
    one = validate_paths([big], Options(jobs=1))
    # the findings of one pass, written down as a sidecar: -j 2 must meet it exactly
    (tmp_path / "runs.expect").write_text(
        "".join(f"{f.line} {f.code}\n" for f in one.findings()), encoding="utf-8"
    )
    run = validate_paths([big], Options(jobs=jobs, expect="invalid"))
    assert run.exit_code == 0, [str(f) for f in run.findings()]
    assert run.files[0].summary.expected == len(one.findings()) > 6


def test_every_file_named_is_held_to_the_expectation(run_cli):
    # a folder of clean logs beside a broken one: one F001 per clean file, the broken one met
    code, doc = json_report(
        run_cli, "--expect-invalid", str(TOOLS), str(FIXTURES / "real" / "agentscope-py")
    )
    assert code == 1
    assert {f["code"] for f in doc["findings"]} == {"F001"}
    assert doc["files"][0]["expect"]["met"] is True


def test_the_library_holds_negative_fixtures_too():
    import msgcli

    assert msgcli.validate(INVALID, expect_invalid=True).exit_code == 0
    run = msgcli.validate(CLEAN[0], expect_invalid=True)
    assert [f.code for f in run.findings()] == ["F001"]
