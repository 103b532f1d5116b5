"""The JUnit and SARIF reports, read the way CI systems and code-scanning dashboards read them.

- Every document is checked against the format's published schema, stored in
  ``tests/schemas`` (see its README): SARIF against the OASIS SARIF 2.1.0 JSON
  Schema with the JSON Schema engines msgcli itself uses (jsonschema-rs decides,
  formats included; ``jsonschema`` explains a failure), JUnit against Jenkins
  xUnit's ``junit-10.xsd`` with ``xmlschema``. Broken documents are rejected by
  the same checks, so they cannot pass by accident.
- What a user looks at is counted against the fixtures' ``.expect`` sidecars:
  one test suite per file, one failing test case per line with an error, one
  SARIF result per finding, at the paths and lines the sidecars name.
"""

from __future__ import annotations

import io
import json
import os
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, unquote_to_bytes, urlsplit
from urllib.request import url2pathname

import jsonschema
import jsonschema_rs
import orjson
import pytest
import xmlschema
from conftest import FIXTURES, ROOT, log_files, read_expect, sidecar

from msgcli import __version__
from msgcli.findings import (
    ERROR,
    INFO,
    WARNING,
    FileReport,
    FileSummary,
    Finding,
    RunReport,
    tally,
)
from msgcli.pipeline import Options, validate_paths
from msgcli.report import FORMATS, get_reporter, sarif
from msgcli.rules import RULES
from msgcli.textsafe import visible

SCHEMAS = ROOT / "tests" / "schemas"
SARIF_SCHEMA = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
#: pass or fail, with the formats (uri, uri-reference, date-time) checked too
SARIF_CHECK = jsonschema_rs.validator_for(SARIF_SCHEMA, validate_formats=True)
#: the explanation when the check fails (the schema is draft-04: a Draft4Validator)
SARIF_EXPLAIN = jsonschema.validators.validator_for(SARIF_SCHEMA)(SARIF_SCHEMA)
#: the schema is draft-04, which has no "uri-reference" format: artifact URIs are checked
#: against RFC 3986 with the draft-07 format on their own
URI_REFERENCE = jsonschema_rs.validator_for(
    {"$schema": "http://json-schema.org/draft-07/schema#", "format": "uri-reference"},
    validate_formats=True,
)
JUNIT_XSD = xmlschema.XMLSchema(str(SCHEMAS / "junit-10.xsd"))

INVALID = log_files(FIXTURES / "invalid")
EVENT_INVALID = [p for p in log_files(FIXTURES / "events") if sidecar(p).is_file()]
WITH_SIDECARS = INVALID + EVENT_INVALID
MIXED = FIXTURES / "invalid" / "mixed-problems" / "agentscope-py-run.jsonl"
REAL_PY = FIXTURES / "real" / "agentscope-py" / "transcript.jsonl"

#: the inputs every document is checked for, as a user names them on the command line
RUNS = {
    "clean": ["fixtures/valid", "fixtures/real"],
    "invalid": ["fixtures/invalid"],
    "events": ["fixtures/events"],
    "unreadable": [
        "fixtures/invalid/bad-input/cut-off.jsonl.gz",
        "no/such/file.jsonl",
        "tests/schemas",  # a folder with no logs
    ],
    "whole-tree": ["fixtures"],
}


def ids(paths):
    return [str(p.relative_to(FIXTURES)) for p in paths]


def written(fmt: str, run: RunReport, **options) -> str:
    out = io.StringIO()
    get_reporter(fmt)(run, out, **options)
    return out.getvalue()


def checked_sarif(text: str) -> dict:
    """The SARIF document in ``text``, once it is valid against the OASIS schema."""
    doc = json.loads(text)
    if not SARIF_CHECK.is_valid(doc):
        problems = [
            f"{'/'.join(map(str, e.path))}: {e.message}" for e in SARIF_EXPLAIN.iter_errors(doc)
        ]
        problems += [str(e) for e in SARIF_CHECK.iter_errors(doc)]
        pytest.fail("the SARIF document is not valid:\n" + "\n".join(problems[:20]))
    for result in doc["runs"][0]["results"]:
        for location in result.get("locations", ()):
            uri = location["physicalLocation"]["artifactLocation"]["uri"]
            if not URI_REFERENCE.is_valid(uri):
                pytest.fail(f"the SARIF document names a file by {uri!r}, not a URI reference")
    return doc


def checked_junit(text: str) -> ET.Element:
    """The JUnit document in ``text``, once it is valid against junit-10.xsd."""
    data = text.encode("utf-8")
    JUNIT_XSD.validate(data)
    return ET.fromstring(data)


def sarif_of(run: RunReport) -> dict:
    return checked_sarif(written("sarif", run))


def junit_of(run: RunReport, **options) -> ET.Element:
    return checked_junit(written("junit", run, **options))


def run_in_root(paths: list[str], monkeypatch, **options) -> RunReport:
    monkeypatch.chdir(ROOT)
    return validate_paths(paths, Options(**options))


def results(doc: dict) -> list[dict]:
    (run,) = doc["runs"]
    return run["results"]


def place(result: dict) -> tuple[str, int]:
    """``(path, line)`` of a result: the URI made a path again; line 0 when it has no region."""
    physical = result["locations"][0]["physicalLocation"]
    uri = physical["artifactLocation"]["uri"]
    path = url2pathname(urlsplit(uri).path) if uri.startswith("file:") else unquote(uri)
    return path, physical.get("region", {}).get("startLine", 0)


def sarif_level(severity) -> str:
    """The SARIF level of a rule's findings: SARIF has no "info", it has "note"."""
    return {INFO: "note"}.get(severity, severity.value)


def cases_from_sidecar(pairs: list[tuple[int, str]]) -> tuple[int, int]:
    """``(test cases, failures)`` a file with these findings should have: the file's own
    case, and one per line with findings, failing when one of them is an error."""
    lines = {line for line, _ in pairs if line > 0}
    failing = {line for line, code in pairs if line > 0 and RULES[code].severity is ERROR}
    file_fails = any(RULES[code].severity is ERROR for _, code in pairs)
    return 1 + len(lines), len(failing) + int(file_fails)


def hand_made(*reports: FileReport) -> RunReport:
    run = RunReport()
    for fr in reports:
        run.files.append(fr)
        tally(run.summary, fr)
    return run


# -- the documents are valid -------------------------------------------------------------------


def test_both_formats_are_registered():
    assert {"junit", "sarif"} <= set(FORMATS)
    assert callable(get_reporter("junit")) and callable(get_reporter("sarif"))


@pytest.mark.parametrize("name", list(RUNS))
def test_every_sarif_document_is_valid_sarif_2_1_0(name, monkeypatch):
    run = run_in_root(RUNS[name], monkeypatch)
    doc = sarif_of(run)
    assert doc["version"] == "2.1.0"
    assert doc["$schema"].endswith("sarif-schema-2.1.0.json")
    assert len(results(doc)) == len(run.findings())


@pytest.mark.parametrize("name", list(RUNS))
def test_every_junit_document_is_valid_junit(name, monkeypatch):
    run = run_in_root(RUNS[name], monkeypatch)
    root = junit_of(run)
    assert root.tag == "testsuites" and root.get("name") == "msgcli"
    assert [s.get("name") for s in root] == [fr.summary.path for fr in run.files]


def test_negative_fixtures_give_valid_documents(monkeypatch):
    run = run_in_root(["fixtures/invalid", "fixtures/events"], monkeypatch, expect="invalid")
    sarif_of(run)
    junit_of(run)


def test_a_broken_sarif_document_is_rejected():
    good = json.loads(written("sarif", validate_paths([MIXED])))
    checked_sarif(json.dumps(good))

    def broken(change) -> dict:
        doc = json.loads(json.dumps(good))
        change(doc)
        return doc

    def drop_version(d):
        del d["version"]

    def bad_level(d):
        d["runs"][0]["results"][0]["level"] = "fatal"

    def bad_uri(d):
        d["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"][
            "uri"
        ] = "a path with spaces"

    def line_zero(d):
        d["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"] = {"startLine": 0}

    def no_driver_name(d):
        del d["runs"][0]["tool"]["driver"]["name"]

    def unknown_key(d):
        d["runs"][0]["results"][0]["pointer"] = "/content/0"

    for change in (drop_version, bad_level, line_zero, no_driver_name, unknown_key):
        doc = broken(change)
        assert not SARIF_CHECK.is_valid(doc), change.__name__
        with pytest.raises(pytest.fail.Exception):
            checked_sarif(json.dumps(doc))
    # a URI with spaces is caught by the URI reference check (draft-04 has no such format)
    with pytest.raises(pytest.fail.Exception, match="not a URI reference"):
        checked_sarif(json.dumps(broken(bad_uri)))


def test_a_broken_junit_document_is_rejected():
    good = written("junit", validate_paths([MIXED]))
    checked_junit(good)
    for bad in (
        good.replace('<testcase name="validate"', '<testcase title="validate"', 1),
        good.replace(' errors="0" skipped', " skipped", 1),  # a suite without its errors
        good.replace('time="0.000"', 'time="a while"', 1),
        good.replace("<properties>", "<property-list>", 1).replace(
            "</properties>", "</property-list>", 1
        ),
    ):
        assert bad != good
        with pytest.raises(xmlschema.XMLSchemaValidationError):
            checked_junit(bad)
    with pytest.raises(ET.ParseError):
        ET.fromstring(good.replace("</testsuites>", "").encode())


# -- what a user counts ------------------------------------------------------------------------


@pytest.mark.parametrize("path", WITH_SIDECARS, ids=ids(WITH_SIDECARS))
def test_junit_cases_and_failures_are_those_of_the_sidecar(path):
    pairs = read_expect(sidecar(path))
    run = validate_paths([path])
    root = junit_of(run)
    (suite,) = root
    tests, failures = cases_from_sidecar(pairs)
    assert suite.get("name") == str(path)
    assert (int(suite.get("tests")), int(suite.get("failures"))) == (tests, failures)
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == (
        str(tests),
        str(failures),
        "0",
    )
    cases = suite.findall("testcase")
    assert len(cases) == tests
    assert sum(1 for c in cases if c.find("failure") is not None) == failures
    assert {c.get("classname") for c in cases} == {str(path)}
    assert [c.get("name") for c in cases] == ["validate"] + [
        f"line {n}" for n in sorted({line for line, _ in pairs if line > 0})
    ]
    # every finding is written once, in the case of its line, as the text report writes it
    text = "\n".join(
        (el.text or "") for c in cases for el in c if el.tag in ("failure", "system-out")
    )
    for line, code in pairs:
        assert f"{path}:{line}: {code} " in text
    for case in cases[1:]:
        failure = case.find("failure")
        codes = [code for line, code in pairs if f"line {line}" == case.get("name")]
        if failure is not None:
            assert failure.get("type") in codes and RULES[failure.get("type")].severity is ERROR
        else:
            # a sidecar also lists info findings (what a newer release writes that msgcli does
            # not know): like warnings they pass, and are written in the case's output
            assert all(RULES[code].severity in (WARNING, INFO) for code in codes)
            assert case.find("system-out") is not None


@pytest.mark.parametrize("path", WITH_SIDECARS, ids=ids(WITH_SIDECARS))
def test_sarif_results_are_those_of_the_sidecar(path):
    pairs = read_expect(sidecar(path))
    run = validate_paths([path])
    doc = sarif_of(run)
    got = [(place(r), r["ruleId"], r["level"]) for r in results(doc)]
    assert Counter((line, code) for (_, line), code, _ in got) == Counter(pairs)
    assert {p for (p, _), _, _ in got} <= {str(path)}
    # SARIF has no "info" level: the info findings a sidecar lists are results of level "note"
    assert all(level == sarif_level(RULES[code].severity) for _, code, level in got)
    assert doc["runs"][0]["invocations"] == [
        {"executionSuccessful": run.exit_code < 2, "exitCode": run.exit_code}
    ]


def test_clean_logs_give_one_passing_case_per_file_and_no_result(monkeypatch):
    run = run_in_root(["fixtures/valid"], monkeypatch)
    files = log_files(FIXTURES / "valid")
    root = junit_of(run)
    assert int(root.get("tests")) == len(files) and root.get("failures") == "0"
    assert all(len(suite.findall("testcase")) == 1 for suite in root)
    doc = sarif_of(run)
    assert results(doc) == []
    assert doc["runs"][0]["invocations"] == [{"executionSuccessful": True, "exitCode": 0}]


def test_the_driver_lists_every_rule_and_results_point_at_them(monkeypatch):
    doc = sarif_of(run_in_root(["fixtures"], monkeypatch))
    driver = doc["runs"][0]["tool"]["driver"]
    assert driver["name"] == "msgcli"
    assert driver["version"] == driver["semanticVersion"] == __version__
    rules = driver["rules"]
    assert [r["id"] for r in rules] == list(RULES)
    for descriptor, rule in zip(rules, RULES.values(), strict=True):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        # SARIF has no "info" level: an info finding is a "note"
        level = {"info": "note"}.get(rule.severity.value, rule.severity.value)
        assert descriptor["defaultConfiguration"]["level"] == level
        assert descriptor["help"]["text"].startswith(rule.summary)
        assert "helpUri" not in descriptor
    found = results(doc)
    assert found
    for result in found:
        assert result["ruleId"] in RULES
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_paths_lines_and_pointers_are_where_a_viewer_looks(monkeypatch):
    run = run_in_root([str(MIXED.relative_to(ROOT))], monkeypatch)
    findings = run.findings()
    doc = sarif_of(run)
    for finding, result in zip(findings, results(doc), strict=True):
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {
            "uri": "fixtures/invalid/mixed-problems/agentscope-py-run.jsonl",
            "uriBaseId": "%SRCROOT%",
        }
        assert location["region"] == {"startLine": finding.line}
        if finding.pointer:
            assert result["message"]["text"] == f"{finding.message} (at {finding.pointer})"
            assert result["properties"] == {"pointer": finding.pointer}
        else:  # the last line, cut off: the record as a whole
            assert result["message"]["text"] == finding.message
            assert "properties" not in result


def test_whole_file_findings_have_no_region_and_sit_in_the_file_case(monkeypatch):
    run = run_in_root(["fixtures/invalid/bad-input/empty.jsonl", "no/such.jsonl"], monkeypatch)
    doc = sarif_of(run)
    assert [(place(r), r["ruleId"]) for r in results(doc)] == [
        (("fixtures/invalid/bad-input/empty.jsonl", 0), "P008"),
        (("no/such.jsonl", 0), "P009"),
    ]
    assert doc["runs"][0]["invocations"] == [{"executionSuccessful": False, "exitCode": 2}]
    root = junit_of(run)
    for suite, code in zip(root, ["P008", "P009"], strict=True):
        (case,) = suite.findall("testcase")
        failure = case.find("failure")
        assert failure.get("type") == code
        assert f"{suite.get('name')}:0: {code} " in failure.text


def test_strict_fails_a_line_with_only_warnings(tmp_path):
    log = tmp_path / "warned.jsonl"
    # an unknown key (S003) on a message that is otherwise fine: a warning only
    record = json.loads(REAL_PY.read_text(encoding="utf-8").splitlines()[0])
    record["surprise"] = 1
    log.write_text(json.dumps(record) + "\n", encoding="utf-8")
    lenient = junit_of(validate_paths([log]))
    strict = junit_of(validate_paths([log], Options(strict=True)))
    (suite,) = lenient
    assert suite.get("failures") == "0" and suite.get("tests") == "2"
    assert "S003" in suite.findall("testcase")[1].find("system-out").text
    (suite,) = strict
    assert suite.get("failures") == "2"
    assert suite.findall("testcase")[1].find("failure").get("type") == "S003"


def test_text_from_a_log_survives_markup_and_control_characters():
    nasty = (
        "[bold]bold[/bold] <script>alert('x')</script> & \"quoted\" \x1b[31mred\x1b[0m "
        "nul\x00 bell\x07 rtl\u202e nonchar\ufffe lone\ud800 tab\tnewline\nend"
    )
    path = "logs/<odd> & [name].jsonl"
    finding = Finding(path, 2, "T001", ERROR, nasty, "/content/0/<x>")
    run = hand_made(FileReport(FileSummary(path=path, records=2, errors=1), [finding]))
    # SARIF: the message as the finding has it; only the lone surrogate, which no JSON
    # document can hold, becomes an escape
    (result,) = results(sarif_of(run))
    assert result["message"]["text"] == (
        nasty.replace("\ud800", "\\ud800") + " (at /content/0/<x>)"
    )
    assert place(result) == (path, 2)
    # JUnit: as the text report writes it (control characters made visible), then escaped
    text = written("junit", run)
    for raw in ("\x1b", "\x00", "\x07", "\ufffe", "\ud800", "<script>"):
        assert raw not in text
    root = checked_junit(text)
    failure = root.find("testsuite/testcase[@name='line 2']/failure")
    shown = visible(nasty).replace("\ufffe", "\\ufffe").replace("\ud800", "\\ud800")
    for piece in ("[bold]bold[/bold]", "<script>alert('x')</script>", '& "quoted"', "\\e[31m"):
        assert piece in shown and piece in failure.get("message") and piece in failure.text
    assert failure.get("message") == f"T001 {shown} (at /content/0/<x>)"
    assert failure.text == f"{path}:2: T001 {shown} (at /content/0/<x>)\n"
    assert root.find("testsuite").get("name") == path


def test_odd_file_names_become_uri_references(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    names = ["a b#1%?.jsonl", "zürich.jsonl", "x:y.jsonl", "semi;colon[1].jsonl"]
    folder = Path("logs")
    folder.mkdir()
    for name in names:
        (folder / name).write_bytes(b"")  # empty: one finding at line 0
    raw = b"bad-\xff-name.jsonl"
    try:
        (folder / os.fsdecode(raw)).write_bytes(b"")
    except (OSError, UnicodeError):  # a file system that insists on UTF-8 names
        raw = b""
    run = validate_paths(["logs", str(tmp_path / "logs" / "zürich.jsonl")])
    doc = sarif_of(run)
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in results(doc)]
    relative = [loc for loc in locations if "uriBaseId" in loc]
    absolute = [loc for loc in locations if "uriBaseId" not in loc]
    assert {unquote_to_bytes(loc["uri"]) for loc in relative} == {
        os.fsencode(str(folder / n)) for n in names
    } | ({b"logs/" + raw} if raw else set())
    assert all(loc["uriBaseId"] == "%SRCROOT%" for loc in relative)
    assert all(" " not in loc["uri"] and "#" not in loc["uri"] for loc in relative)
    assert "logs/x%3Ay.jsonl" in {loc["uri"] for loc in relative}
    (only,) = absolute
    assert only["uri"].startswith("file:///") and only["uri"].endswith("/logs/z%C3%BCrich.jsonl")
    root = junit_of(run)
    assert len(root) == len(names) + (1 if raw else 0) + 1
    if raw:
        assert "logs/bad-\\udcff-name.jsonl" in {s.get("name") for s in root}


# -- negative fixtures -------------------------------------------------------------------------


def negative_fixture() -> RunReport:
    """Two negative fixtures, by hand: one that does not meet its sidecar, one that does."""
    log, expect = "logs/bad.jsonl", "logs/bad.expect"
    broken = FileReport(
        FileSummary(path=log, records=6, errors=2, expect="invalid", sidecar=expect, expected=2),
        [
            Finding(expect, 3, "F002", ERROR, "T001 (orphan-tool-result) at line 4 did not occur"),
            Finding(log, 5, "F003", ERROR, "S003 a key nobody expected [not listed in bad.expect]"),
        ],
        [
            Finding(log, 0, "P004", ERROR, "the last line is cut off"),
            Finding(log, 2, "T002", WARNING, "tool call never gets a result", "/content/1"),
        ],
    )
    held = FileReport(
        FileSummary(path="logs/held.jsonl", records=3, expect="invalid", expected=1),
        [],
        [Finding("logs/held.jsonl", 2, "I001", ERROR, "two messages share the id 'a'")],
    )
    return hand_made(broken, held)


def test_junit_negative_fixtures_pass_when_their_expectation_holds():
    root = junit_of(negative_fixture())
    broken, held = root
    assert (broken.get("tests"), broken.get("failures")) == ("2", "2")
    validate_case, line_5 = broken.findall("testcase")
    failure = validate_case.find("failure")
    assert failure.get("type") == "F002"
    # the sidecar's own problem is reported at the sidecar's line, in the file's case
    assert "logs/bad.expect:3: F002 T001 (orphan-tool-result)" in failure.text
    assert line_5.get("name") == "line 5" and line_5.find("failure").get("type") == "F003"
    assert validate_case.find("system-out").text.splitlines() == [
        "expected: logs/bad.jsonl:0: P004 the last line is cut off",
        "expected: logs/bad.jsonl:2: T002 tool call never gets a result (at /content/1)",
    ]
    properties = {p.get("name"): p.get("value") for p in broken.iter("property")}
    assert properties["expect"] == "invalid" and properties["sidecar"] == "logs/bad.expect"
    assert (held.get("tests"), held.get("failures")) == ("1", "0")
    (case,) = held.findall("testcase")
    assert case.find("failure") is None
    assert case.find("system-out").text == (
        "expected: logs/held.jsonl:2: I001 two messages share the id 'a'\n"
    )


def test_sarif_negative_fixtures_suppress_what_was_expected():
    doc = sarif_of(negative_fixture())
    found = results(doc)
    plain = [r for r in found if "suppressions" not in r]
    closed = [r for r in found if "suppressions" in r]
    assert [(place(r), r["ruleId"]) for r in plain] == [
        (("logs/bad.expect", 3), "F002"),
        (("logs/bad.jsonl", 5), "F003"),
    ]
    assert [(place(r), r["ruleId"], r["suppressions"]) for r in closed] == [
        (
            ("logs/bad.jsonl", 0),
            "P004",
            [{"kind": "external", "justification": "expected by logs/bad.expect"}],
        ),
        (
            ("logs/bad.jsonl", 2),
            "T002",
            [{"kind": "external", "justification": "expected by logs/bad.expect"}],
        ),
        (
            ("logs/held.jsonl", 2),
            "I001",
            [{"kind": "external", "justification": "expected by --expect-invalid"}],
        ),
    ]
    assert doc["runs"][0]["invocations"] == [{"executionSuccessful": True, "exitCode": 1}]


def test_fixtures_held_to_their_sidecars_give_a_green_report(monkeypatch):
    run = run_in_root(["fixtures/invalid"], monkeypatch, expect="invalid")
    root = junit_of(run)
    assert root.get("failures") == "0", written("text", run)
    for suite, path in zip(root, INVALID, strict=True):
        (case,) = suite.findall("testcase")
        # a file with an empty sidecar (a fork's parent, kept beside the fork it is checked
        # with) has no finding to write
        out = (case.findtext("system-out") or "").splitlines()
        assert Counter((int(line.split(":")[2]), line.split(" ")[2]) for line in out) == Counter(
            read_expect(sidecar(path))
        )
    doc = sarif_of(run)
    assert all(len(r["suppressions"]) == 1 for r in results(doc))
    assert len(results(doc)) == sum(len(read_expect(sidecar(p))) for p in INVALID)
    assert {r["suppressions"][0]["justification"] for r in results(doc)} == {
        f"expected by {sidecar(p).relative_to(ROOT)}" for p in INVALID if read_expect(sidecar(p))
    }


# -- standard input, determinism, streams, size ------------------------------------------------


def test_standard_input_has_no_uri():
    run = validate_paths([], streams=[io.BytesIO(MIXED.read_bytes())])
    doc = sarif_of(run)
    first = results(doc)[0]
    assert "locations" not in first
    assert first["properties"]["input"] == "<stream>"
    assert first["properties"]["line"] == 3
    (suite,) = junit_of(run)
    assert suite.get("name") == "<stream>"


def test_the_same_run_gives_the_same_documents(monkeypatch):
    for fmt in ("junit", "sarif"):
        first = written(fmt, run_in_root(["fixtures/invalid"], monkeypatch))
        again = written(fmt, run_in_root(["fixtures/invalid"], monkeypatch))
        assert first == again


def test_sarif_is_written_as_one_document_would_be(monkeypatch):
    """The reporter writes result by result; the text is that of the whole document."""
    for paths in (["fixtures/valid"], ["fixtures/invalid", "fixtures/events"]):
        run = run_in_root(paths, monkeypatch)
        whole = orjson.dumps(sarif.to_document(run), option=orjson.OPT_INDENT_2).decode()
        assert written("sarif", run) == whole + "\n"
    run = negative_fixture()
    whole = orjson.dumps(sarif.to_document(run), option=orjson.OPT_INDENT_2).decode()
    assert written("sarif", run) == whole + "\n"


def test_the_run_time_goes_on_testsuites_only():
    root = junit_of(validate_paths([MIXED]), elapsed=1.23456)
    assert root.get("time") == "1.235"
    assert {s.get("time") for s in root} == {"0.000"}


def test_a_stream_that_is_not_utf8_still_gets_a_well_formed_document():
    finding = Finding("logs/天气.jsonl", 1, "S001", ERROR, "“Zürich” 天气 😀 not allowed")
    run = hand_made(FileReport(FileSummary(path=finding.path, errors=1), [finding]))
    for fmt in ("junit", "sarif"):
        raw = io.BytesIO()
        stream = io.TextIOWrapper(raw, encoding="cp1252", newline="\n")
        get_reporter(fmt)(run, stream)
        stream.flush()
        data = raw.getvalue()
        assert data.isascii()
        if fmt == "sarif":
            doc = checked_sarif(data.decode("ascii"))
            assert results(doc)[0]["message"]["text"] == finding.message
        else:
            JUNIT_XSD.validate(data)
            failure = ET.fromstring(data).find("testsuite/testcase[@name='line 1']/failure")
            assert failure.get("message") == f"S001 {finding.message}"


@pytest.mark.slow  # every report written at 100,000 findings: 5 s of CPU
def test_a_hundred_thousand_findings_are_written_in_linear_time():
    def run_of(n: int) -> RunReport:
        reports = []
        for f in range(10):
            path = f"logs/run-{f}.jsonl"
            findings = [
                Finding(
                    path,
                    1 + i // 2,
                    "T001" if i % 2 else "S003",
                    ERROR if i % 2 else WARNING,
                    f"finding {i}",
                    f"/content/{i % 7}",
                )
                for i in range(n // 10)
            ]
            errors = sum(1 for x in findings if x.severity is ERROR)
            reports.append(
                FileReport(
                    FileSummary(path=path, errors=errors, warnings=len(findings) - errors), findings
                )
            )
        return hand_made(*reports)

    timings = {}
    for n in (10_000, 100_000):
        run = run_of(n)
        for fmt in ("junit", "sarif"):
            # this process's CPU time, the best of three: the wall time of a long writing
            # grows with whatever else the machine runs (a loaded CI machine made it 3.5
            # times as long), a short one's does not
            spent = []
            for _ in range(3):
                start = time.process_time()
                text = written(fmt, run)
                spent.append(time.process_time() - start)
            timings[fmt, n] = min(spent)
            if n == 100_000 and fmt == "junit":
                root = ET.fromstring(text)
                assert root.get("tests") == str(10 + n // 2)
                assert root.get("failures") == str(10 + n // 2)
    for fmt in ("junit", "sarif"):
        # ten times the findings: well under a hundred times the time
        assert timings[fmt, 100_000] < 30 * timings[fmt, 10_000] + 0.5, timings


# -- the command line --------------------------------------------------------------------------


CLI_INPUTS = {
    "clean": ([str(REAL_PY)], 0),
    "invalid": ([str(MIXED)], 1),
    "unreadable": ([str(MIXED), "no/such/file.jsonl"], 2),
}


@pytest.mark.parametrize("name", list(CLI_INPUTS))
def test_exit_codes_do_not_depend_on_the_format(name, run_cli):
    paths, code = CLI_INPUTS[name]
    for fmt in ("text", "json", "junit", "sarif"):
        got, out = run_cli("validate", "--format", fmt, *paths)
        assert got == code, fmt
        if fmt == "junit":
            checked_junit(out)
        elif fmt == "sarif":
            doc = checked_sarif(out)
            assert doc["runs"][0]["invocations"][0]["exitCode"] == code


def test_cli_writes_sarif_and_junit_files_beside_the_text_report(tmp_path, run_cli):
    sarif, junit = tmp_path / "msgcli.sarif", tmp_path / "msgcli.xml"
    code, out = run_cli("validate", str(MIXED), "-o", f"sarif:{sarif}", "-o", f"junit:{junit}")
    assert code == 1
    assert out.splitlines()[0].startswith(f"{MIXED}:3: ")
    assert len(results(checked_sarif(sarif.read_text(encoding="utf-8")))) == 7
    root = checked_junit(junit.read_text(encoding="utf-8"))
    assert root.get("failures") == str(cases_from_sidecar(read_expect(sidecar(MIXED)))[1])


def test_cli_standard_input_in_sarif(run_cli):
    code, out = run_cli("validate", "--format", "sarif", "-", input=MIXED.read_bytes())
    assert code == 1
    found = results(checked_sarif(out))
    assert {r["properties"]["input"] for r in found} == {"<stdin>"}
    assert all("locations" not in r for r in found)


def test_cli_expect_invalid_turns_the_fixtures_green(run_cli):
    code, out = run_cli("validate", "--expect-invalid", "--format", "junit", "fixtures/invalid")
    assert code == 0
    root = checked_junit(out)
    assert root.get("failures") == "0" and len(root) == len(INVALID)
    code, out = run_cli("validate", "--expect-invalid", "--format", "sarif", str(REAL_PY))
    assert code == 1
    (result,) = results(checked_sarif(out))
    assert result["ruleId"] == "F001" and "suppressions" not in result


@pytest.mark.project_config
def test_the_projects_own_check_of_its_fixtures_is_green(run_cli, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out = run_cli("validate", "--format", "junit", "fixtures")
    root = checked_junit(out)
    assert (code, root.get("failures")) == (0, "0")
    code, out = run_cli("validate", "--format", "sarif", "fixtures")
    assert code == 0
    assert all("suppressions" in r for r in results(checked_sarif(out)))
