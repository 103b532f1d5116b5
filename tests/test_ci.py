"""msgcli in CI: report files beside the terminal's report, and the README's "Use in CI"
section, which must be exactly what this repository runs on its own fixtures."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES, ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
CI_RUN = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
SCHEMAS = ROOT / "tests" / "schemas"
BROKEN = FIXTURES / "invalid" / "agentscope-py" / "tool-pairing.jsonl"
CLEAN = FIXTURES / "real" / "agentscope-py" / "transcript.jsonl"


def section(title: str) -> str:
    start = README.index(f"\n### {title}\n")
    end = README.index("\n##", start + 5)
    return README[start:end]


def blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, re.DOTALL)


def sarif_valid(doc: dict) -> None:
    import jsonschema_rs

    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema_rs.validator_for(schema).validate(doc)


def junit_valid(path: Path) -> ET.Element:
    import xmlschema

    xmlschema.XMLSchema(str(SCHEMAS / "junit-10.xsd")).validate(str(path))
    return ET.parse(path).getroot()


# -- --output -----------------------------------------------------------------------------


def test_output_takes_the_format_and_the_terminal_keeps_the_text(run_cli, tmp_path):
    report = tmp_path / "report.json"
    code, out = run_cli("validate", "--format", "json", "--output", str(report), str(BROKEN))
    assert code == 1
    doc = json.loads(report.read_text(encoding="utf-8"))
    assert doc["summary"]["exit_code"] == 1 and doc["findings"]
    # the terminal: the text report, finding lines and the summary
    assert out.splitlines()[-1].startswith("Checked 1 file")
    assert f"{BROKEN}:3: error T001 " in out


def test_prefixed_outputs_leave_format_on_the_terminal(run_cli, tmp_path):
    sarif, junit = tmp_path / "msgcli.sarif", tmp_path / "junit.xml"
    code, out = run_cli(
        "validate",
        "--format",
        "github",
        "--output",
        f"sarif:{sarif}",
        "-o",
        f"junit:{junit}",
        str(BROKEN),
        str(CLEAN),
    )
    assert code == 1
    assert out.startswith("::error file=") or out.startswith("::warning file=")
    assert "Checked" not in out
    doc = json.loads(sarif.read_text(encoding="utf-8"))
    sarif_valid(doc)
    annotations = [ln for ln in out.splitlines() if ln.startswith("::")]
    assert len(doc["runs"][0]["results"]) == len(annotations)
    root = junit_valid(junit)
    assert [s.get("name") for s in root.iter("testsuite")] == [str(BROKEN), str(CLEAN)]


def test_an_output_that_cannot_be_written_stops_before_the_run(run_cli, tmp_path):
    code, out, err = run_cli(
        "validate", "-o", f"sarif:{tmp_path}/no/such/dir/x.sarif", str(CLEAN), stderr=True
    )
    assert code == 2 and out == ""
    assert err.startswith(f"msgcli: cannot write {tmp_path}/no/such/dir/x.sarif")


def test_quiet_and_the_exit_code_hold_with_outputs(run_cli, tmp_path):
    code, out = run_cli(
        "validate", "-q", "-f", "sarif", "-o", str(tmp_path / "r.sarif"), str(CLEAN)
    )
    assert (code, out) == (0, "")
    sarif_valid(json.loads((tmp_path / "r.sarif").read_text(encoding="utf-8")))


# -- the README's "Use in CI" --------------------------------------------------------------


def workflow() -> dict:
    (text,) = blocks(section("GitHub Actions"), "yaml")
    return yaml.safe_load(text)


def msgcli_command() -> str:
    steps = workflow()["jobs"]["msgcli"]["steps"]
    (command,) = [s["run"] for s in steps if "run" in s and s["run"].startswith("msgcli ")]
    return command


def test_the_workflow_is_what_ci_runs():
    command = msgcli_command()
    assert "--format github" in command and "sarif:" in command
    runs = [ln for ln in CI_RUN.splitlines() if not ln.lstrip().startswith("#")]
    assert any(ln.endswith(command) for ln in runs), f"{command!r} not in .ci/run"
    steps = workflow()["jobs"]["msgcli"]["steps"]
    (upload,) = [
        s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif")
    ]
    sarif = [a.split(":", 1)[1] for a in shlex.split(command) if a.startswith("sarif:")]
    assert upload["with"]["sarif_file"] == sarif[0]
    assert upload["if"] == "always()"  # the report is wanted most when the job fails


@pytest.mark.project_config
def test_the_workflow_passes_on_this_repository(run_cli, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    args = shlex.split(msgcli_command())[1:]
    # the same command, with the reports written to a temporary folder
    args = [re.sub(r"^(sarif|junit):(.*)$", lambda m: f"{m[1]}:{tmp_path / m[2]}", a) for a in args]
    code, out = run_cli(*args)
    assert code == 0, out
    assert out == ""  # no annotation: the fixtures meet their expectations
    doc = json.loads((tmp_path / "msgcli.sarif").read_text(encoding="utf-8"))
    sarif_valid(doc)
    results = doc["runs"][0]["results"]
    # the negative fixtures' findings are there, suppressed, and nothing else
    assert results and all(r.get("suppressions") for r in results)
    root = junit_valid(tmp_path / "msgcli-junit.xml")
    assert root.get("failures") == "0"


def test_the_configuration_shown_is_the_repository_s():
    (text,) = blocks(section("Project configuration"), "toml")
    shown = tomllib.loads(text)["tool"]["msgcli"]
    own = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["msgcli"]
    assert shown == own


@pytest.mark.project_config
def test_the_config_example_is_what_msgcli_config_prints(run_cli, monkeypatch):
    monkeypatch.chdir(ROOT)
    (console,) = blocks(section("Project configuration"), "console")
    command, *expected = console.rstrip("\n").splitlines()
    code, out = run_cli(*shlex.split(command.removeprefix("$ "))[1:])
    assert code == 0
    got = out.rstrip("\n").splitlines()
    # the first two lines name this checkout's folder, which differs from machine to machine
    assert got[0] == f"configuration: {ROOT / 'pyproject.toml'} [tool.msgcli]"
    assert got[1] == f"paths are relative to: {ROOT}"
    assert got[2:] == expected[2:]


def test_the_pre_commit_and_gitlab_examples_fit():
    (pre_commit,) = blocks(section("pre-commit"), "yaml")
    (hook,) = yaml.safe_load(pre_commit)["repos"][0]["hooks"]
    manifest = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] in {h["id"] for h in manifest}
    (gitlab,) = blocks(section("GitLab CI"), "yaml")
    job = yaml.safe_load(gitlab)["transcripts"]
    (command,) = [c for c in job["script"] if c.startswith("msgcli ")]
    junit = [a.split(":", 1)[1] for a in shlex.split(command) if a.startswith("junit:")]
    assert job["artifacts"]["reports"]["junit"] == junit[0]
    assert job["artifacts"]["when"] == "always"


def test_shell_completion_is_offered(run_cli):
    code, out = run_cli("--help")
    assert code == 0 and "--install-completion" in out and "--show-completion" in out
    assert "msgcli --install-completion" in section("Shell completion")
