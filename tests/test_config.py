"""Project configuration: ``[tool.msgcli]`` / ``msgcli.toml``, found from the current
directory up, overridden per path, and always beaten by the command line.

Each test builds a small project in a temporary folder, copies bundled logs into
it and runs the command line from inside it, as a user would.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, log_files, read_expect, sidecar

from msgcli.config import Config, _glob, discover, load

pytestmark = pytest.mark.project_config

TOOLS = FIXTURES / "invalid" / "agentscope-py" / "tool-pairing.jsonl"  # T and I findings
TIMES = FIXTURES / "invalid" / "agentscope-py" / "timestamps.jsonl"  # warnings only
CLEAN = FIXTURES / "real" / "agentscope-py" / "transcript.jsonl"
LOONG = FIXTURES / "real" / "loongflow" / "transcript.jsonl"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A folder with good/ and bad/ logs; the tests run from inside it."""
    (tmp_path / "good").mkdir()
    (tmp_path / "bad").mkdir()
    shutil.copyfile(CLEAN, tmp_path / "good" / "transcript.jsonl")
    shutil.copyfile(TOOLS, tmp_path / "bad" / "tool-pairing.jsonl")
    shutil.copyfile(sidecar(TOOLS), tmp_path / "bad" / "tool-pairing.expect")
    shutil.copyfile(TIMES, tmp_path / "bad" / "timestamps.jsonl")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def codes(run_cli, *args) -> tuple[int, list[tuple[str, int, str]]]:
    code, out = run_cli("validate", "-f", "json", *args)
    doc = json.loads(out)
    return code, [(Path(f["path"]).name, f["line"], f["code"]) for f in doc["findings"]]


# -- discovery ---------------------------------------------------------------------------


def test_found_from_a_subdirectory_and_a_pyproject_without_the_table_is_passed_over(project):
    write(project / "pyproject.toml", '[tool.msgcli]\nignore = ["T"]\n')
    write(project / "bad" / "pyproject.toml", '[project]\nname = "x"\n[tool.ruff]\n')
    assert discover(project / "bad") == project / "pyproject.toml"
    write(project / "bad" / "msgcli.toml", 'ignore = ["I"]\n')
    assert discover(project / "bad") == project / "bad" / "msgcli.toml"
    # in one folder, msgcli.toml comes first
    write(project / "msgcli.toml", "strict = true\n")
    assert discover(project) == project / "msgcli.toml"


def test_settings_from_the_file_apply_to_validate(run_cli, project):
    code, found = codes(run_cli, "bad/tool-pairing.jsonl")
    assert code == 1 and {c for _, _, c in found} == {
        "T001",
        "T002",
        "T003",
        "T004",
        "T005",
        "T006",
        "T008",
        "I002",
    }
    write(project / "pyproject.toml", '[tool.msgcli]\nignore = ["T"]\n')
    code, found = codes(run_cli, "bad/tool-pairing.jsonl")
    assert {c for _, _, c in found} == {"I002"}
    # from a folder below, the same file is found
    run_cli_from = project / "bad"
    import os

    os.chdir(run_cli_from)
    code, found = codes(run_cli, "tool-pairing.jsonl")
    assert {c for _, _, c in found} == {"I002"}


def test_a_bad_pyproject_elsewhere_in_the_tree_is_not_read(run_cli, project):
    # a pyproject.toml that says nothing to msgcli is never parsed, even if it is not TOML
    write(project / "pyproject.toml", "[project\nname = ")
    assert run_cli("validate", "good")[0] == 0


# -- precedence --------------------------------------------------------------------------


def test_the_command_line_wins(run_cli, project):
    write(
        project / "msgcli.toml",
        'select = ["T"]\nignore = ["T002"]\nstrict = true\n',
    )
    _, found = codes(run_cli, "bad")
    assert {c for _, _, c in found} == {"T001", "T003", "T004", "T005", "T006", "T008"}
    # --select starts the rule set afresh: the file's ignore is gone too
    _, found = codes(run_cli, "--select", "T002,I", "bad")
    assert {c for _, _, c in found} == {"T002", "I002"}
    # --ignore takes more out of the file's set
    _, found = codes(run_cli, "--ignore", "T00", "bad")
    assert found == []
    # strict from the file: warnings fail; --no-strict on the command line undoes it
    assert run_cli("validate", "bad/timestamps.jsonl")[0] == 0  # only T is on
    assert run_cli("validate", "--select", "C", "bad/timestamps.jsonl")[0] == 1
    assert run_cli("validate", "--select", "C", "--no-strict", "bad/timestamps.jsonl")[0] == 0


def test_the_dialect_of_the_file_and_of_the_command_line(run_cli, project):
    shutil.copyfile(LOONG, project / "good" / "loong.jsonl")
    write(project / "msgcli.toml", 'dialect = "agentscope-py"\n')
    code, found = codes(run_cli, "good/loong.jsonl")
    assert code == 1 and found  # read as AgentScope Python: nothing fits
    assert run_cli("validate", "-d", "loongflow", "good/loong.jsonl")[0] == 0


def test_overrides_apply_to_their_paths_in_the_order_written(run_cli, project):
    write(
        project / "pyproject.toml",
        """
[tool.msgcli]
ignore = ["I"]

[[tool.msgcli.overrides]]
paths = ["bad"]
select = ["T", "I"]

[[tool.msgcli.overrides]]
paths = ["**/tool-*.jsonl"]
ignore = ["T00"]
""",
    )
    _, found = codes(run_cli, ".")
    # bad/: select T and I again, then tool-*.jsonl drops T001-T009; timestamps keeps nothing
    assert {(n, c) for n, _, c in found} == {("tool-pairing.jsonl", "I002")}
    # the command line beats every override
    _, found = codes(run_cli, "--select", "C", ".")
    assert sorted((n, line, c) for n, line, c in found) == [
        ("timestamps.jsonl", line, c) for line, c in read_expect(sidecar(TIMES))
    ]


def test_a_folder_of_negative_fixtures_in_the_configuration(run_cli, project):
    write(
        project / "pyproject.toml",
        '[tool.msgcli]\n[[tool.msgcli.overrides]]\npaths = ["bad"]\nexpect = "invalid"\n'
        "strict = true\n",
    )
    code, out = run_cli("validate", "-v", ".")
    assert code == 0, out
    assert "2 negative fixtures, 2 as expected" in out
    # the clean log is checked as usual
    assert "good/transcript.jsonl: agentscope-py (2.x) messages, 7 records, ok" in out
    # a broken log among the good ones fails the run
    shutil.copyfile(TOOLS, project / "good" / "tools.jsonl")
    assert run_cli("validate", ".")[0] == 1


def test_exclude_leaves_files_out_even_when_named(run_cli, project):
    write(project / "msgcli.toml", 'exclude = ["bad", "*.skip.jsonl"]\n')
    shutil.copyfile(TOOLS, project / "good" / "x.skip.jsonl")
    code, out = run_cli("validate", ".")
    assert code == 0
    assert "Checked 1 file" in out and "3 files excluded by the configuration" in out
    code, out = run_cli("validate", "bad/tool-pairing.jsonl")
    assert code == 0 and "1 file excluded" in out


def test_no_config_and_an_explicit_config(run_cli, project):
    write(project / "msgcli.toml", 'ignore = ["T", "I"]\n')
    write(project / "ci" / "strict.toml", "strict = true\n")
    assert run_cli("validate", "bad/tool-pairing.jsonl")[0] == 0
    assert run_cli("validate", "--no-config", "bad/tool-pairing.jsonl")[0] == 1
    # an explicit file's paths are relative to its own folder
    assert run_cli("validate", "--config", "ci/strict.toml", "bad/timestamps.jsonl")[0] == 1
    code, _, err = run_cli("validate", "--config", "x.toml", "--no-config", ".", stderr=True)
    assert code == 2 and "contradict" in err


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_per_path_settings_hold_with_workers(run_cli, project, jobs):
    for n in range(3):
        shutil.copyfile(TOOLS, project / "good" / f"tools-{n}.jsonl")
    write(
        project / "msgcli.toml",
        '[[overrides]]\npaths = ["good/tools-1.jsonl"]\nignore = ["T", "I"]\n',
    )
    _, found = codes(run_cli, "-j", jobs, "good")
    assert {n for n, _, _ in found} == {"tools-0.jsonl", "tools-2.jsonl"}


def test_replay_and_convert_read_the_configuration(run_cli, project):
    events = FIXTURES / "events" / "agentscope-py" / "invalid" / "stream-cut-mid-reply.jsonl"
    shutil.copyfile(events, project / "events.jsonl")
    code, _, err = run_cli("replay", "events.jsonl", "-o", "out.jsonl", stderr=True)
    assert code == 1 and "E007" in err
    write(project / "msgcli.toml", 'ignore = ["E007"]\n')
    code, _, err = run_cli("replay", "events.jsonl", "-o", "out.jsonl", stderr=True)
    assert code == 0 and "E007" not in err
    # convert: a per-path dialect, and strictness, from the file
    shutil.copyfile(CLEAN, project / "good" / "py.jsonl")
    write(
        project / "msgcli.toml",
        'strict = true\n[[overrides]]\npaths = ["good/py.jsonl"]\nselect = ["P"]\n',
    )
    code, _, err = run_cli("convert", "good/py.jsonl", "--to", "loongflow", stderr=True)
    assert code == 0 and "X001" not in err  # hints become text (X001), not selected here
    code, _, err = run_cli("convert", "good/transcript.jsonl", "--to", "loongflow", stderr=True)
    assert code == 1 and "X001" in err  # warnings fail: strict from the file


# -- bad configuration ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[tool.msgcli]\nselct = ['T']\n", "unknown key 'selct' (did you mean 'select'?)"),
        ("[tool.msgcli]\nstrict = 'yes'\n", "strict must be true or false, not 'yes'"),
        ("[tool.msgcli]\nselect = ['Q123']\n", "select: unknown rule code or prefix: 'Q123'"),
        ("[tool.msgcli]\ndialect = 'openai'\n", "dialect must be one of agentscope-java"),
        ("[tool.msgcli]\nignore = 5\n", "ignore must be a list of strings, not 5"),
        ("[tool.msgcli]\noverrides = 'bad'\n", "overrides must be an array of tables"),
        ("[[tool.msgcli.overrides]]\nexpect = 'invalid'\n", "overrides #1: paths must name"),
        (
            "[[tool.msgcli.overrides]]\npaths = ['x']\nexpect = 'broken'\n",
            'overrides #1: expect must be "invalid" or "valid", not \'broken\'',
        ),
        ("[tool.msgcli]\nexclude = ['']\n", "exclude: an empty pattern"),
        ("[tool.msgcli\nselect = 1\n", "not valid TOML: "),
    ],
)
def test_bad_configuration_names_the_file_and_the_key_and_exits_2(run_cli, project, text, says):
    write(project / "pyproject.toml", text)
    for command in (("validate", "good"), ("config",), ("replay", "good")):
        code, out, err = run_cli(*command, stderr=True)
        assert code == 2
        assert err.startswith("msgcli: pyproject.toml")
        assert says in err
        assert "Traceback" not in err and out == ""


def test_bad_toml_says_the_line(run_cli, project):
    write(project / "msgcli.toml", "strict = true\nselect = [T]\n")
    code, _, err = run_cli("validate", "good", stderr=True)
    assert code == 2 and "msgcli.toml: not valid TOML" in err and "line 2" in err


def test_a_bad_rule_code_on_the_command_line_is_a_usage_error(run_cli, project):
    code, _, err = run_cli("validate", "--select", "ZZ", "good", stderr=True)
    assert code == 2 and "unknown rule code or prefix: 'ZZ'" in err


# -- msgcli config ------------------------------------------------------------------------


def test_config_shows_each_value_and_where_it_came_from(run_cli, project):
    write(
        project / "pyproject.toml",
        '[tool.msgcli]\nignore = ["C002"]\nexclude = ["bad/timestamps.jsonl"]\n'
        '[[tool.msgcli.overrides]]\npaths = ["bad"]\nexpect = "invalid"\n'
        'dialect = "agentscope-py"\n',
    )
    code, out = run_cli(
        "config", "--strict", "bad/tool-pairing.jsonl", "bad/timestamps.jsonl", "good/x.jsonl"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"configuration: {project / 'pyproject.toml'} [tool.msgcli]"
    assert any(
        ln.startswith("rules ")
        and "off: C002" in ln
        and ln.endswith("from pyproject.toml [tool.msgcli]")
        for ln in lines
    )
    assert any(ln.startswith("strict ") and ln.endswith("from command line") for ln in lines)
    assert "bad/timestamps.jsonl: excluded" in lines
    i = lines.index("bad/tool-pairing.jsonl: overrides #1")
    block = lines[i + 1 : i + 5]
    assert block[0].split()[:2] == ["dialect", "agentscope-py"]
    assert block[0].endswith("from pyproject.toml [tool.msgcli] overrides #1")
    assert block[3].split()[:2] == ["expect", "invalid"]
    assert "good/x.jsonl: overrides none" in lines

    code, out = run_cli("config", "-f", "json", "--select", "T", "good/x.jsonl")
    doc = json.loads(out)
    assert doc["file"] == str(project / "pyproject.toml")
    assert doc["settings"]["rules"]["steps"] == [
        {"source": "pyproject.toml [tool.msgcli]", "step": "ignore", "codes": ["C002"]},
        {"source": "command line", "step": "select", "codes": ["T"]},
    ]
    assert doc["settings"]["rules"]["on"] == sum(1 for c in _rules() if c.startswith("T"))
    assert doc["overrides"] == [
        {"number": 1, "paths": ["bad"], "dialect": "agentscope-py", "expect": "invalid"}
    ]


def test_config_without_a_file(run_cli, project):
    code, out = run_cli("config")
    assert code == 0 and out.startswith("configuration: none found")
    assert "from default" in out


def _rules():
    from msgcli.rules import RULES

    return RULES


# -- globs --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        ("fixtures/invalid", "fixtures/invalid/a/b.jsonl", True),
        ("fixtures/invalid", "fixtures/invalid-more/b.jsonl", False),
        ("fixtures/invalid/", "fixtures/invalid/b.jsonl", True),
        ("./fixtures", "fixtures/b.jsonl", True),
        ("fixtures/*/invalid", "fixtures/events/invalid/x.jsonl", True),
        ("fixtures/*/invalid", "fixtures/events/py/invalid/x.jsonl", False),
        ("fixtures/**/invalid", "fixtures/events/py/invalid/x.jsonl", True),
        ("fixtures/**/invalid", "fixtures/invalid/x.jsonl", True),
        ("**/*.jsonl.gz", "a/b/c.jsonl.gz", True),
        ("*.jsonl.gz", "a/b/c.jsonl.gz", True),  # no slash: any depth
        ("*.jsonl.gz", "a/b/c.jsonl", False),
        ("cases", "fixtures/cases/x.jsonl", True),
        ("cases", "fixtures/showcases/x.jsonl", False),
        ("fixtures/cut-?.jsonl", "fixtures/cut-1.jsonl", True),
        ("fixtures/cut-[0-9].jsonl", "fixtures/cut-a.jsonl", False),
        ("fixtures/cut-[!0-9].jsonl", "fixtures/cut-a.jsonl", True),
        ("a.b", "axb", False),  # a dot is a dot
    ],
)
def test_glob_patterns(pattern, path, hit):
    import re

    assert (re.fullmatch(_glob(pattern), path) is not None) is hit


def test_paths_are_relative_to_the_configuration_file(tmp_path, monkeypatch):
    write(tmp_path / "repo" / "msgcli.toml", 'exclude = ["logs/old"]\n')
    monkeypatch.chdir(tmp_path / "repo")
    config = load()
    assert config.excluded("logs/old/a.jsonl")
    assert config.excluded(str(tmp_path / "repo" / "logs" / "old" / "a.jsonl"))
    monkeypatch.chdir(tmp_path)
    assert config.excluded("repo/logs/old/a.jsonl")
    assert not config.excluded("logs/old/a.jsonl")  # outside the project
    assert not config.excluded("-")
    assert Config.empty().excluded("logs/old/a.jsonl") is False


# -- the repository's own configuration ---------------------------------------------------


def test_the_repository_validates_its_own_fixtures(run_cli, monkeypatch):
    """``msgcli validate fixtures`` from the root, as CI runs it: the clean logs are clean,
    every broken one fails exactly as its sidecar says, and the non-logs are excluded."""
    monkeypatch.chdir(ROOT)
    code, out = run_cli("validate", "-f", "json", "fixtures")
    doc = json.loads(out)
    assert code == 0, [f["message"] for f in doc["findings"]]
    negative = [f for f in doc["files"] if "expect" in f]
    with_sidecar = [p for p in log_files(FIXTURES) if sidecar(p).is_file()]
    with_sidecar = [p for p in with_sidecar if "cases" not in p.parts]
    assert sorted(f["path"] for f in negative) == sorted(
        str(p.relative_to(ROOT)) for p in with_sidecar
    )
    assert sum(f["expect"]["expected"] for f in negative) == sum(
        len(read_expect(sidecar(p))) for p in with_sidecar
    )
    # fixtures/oracles holds the ledgers of the real OpenTelemetry runs (the mock's answers,
    # the receiver's index of bodies): JSON files that are no logs, excluded with the others
    excluded = ("cases", "format", "provider-streams", "oracles")
    assert doc["summary"]["excluded"] == sum(len(log_files(FIXTURES / name)) for name in excluded)


def test_the_library_reads_a_configuration_only_when_asked(project):
    import msgcli
    from msgcli.config import ConfigError

    write(
        project / "msgcli.toml", 'ignore = ["T"]\n[[overrides]]\npaths = ["good"]\nstrict = true\n'
    )
    assert {f.code for f in msgcli.validate("bad").findings()} >= {"T001", "I002"}
    assert {f.code for f in msgcli.validate("bad", config=True).findings()} == {
        "I002",
        "C001",
        "C002",
    }
    # the arguments win over the file
    found = msgcli.validate("bad", config="msgcli.toml", select=["T001"]).findings()
    assert {f.code for f in found} == {"T001"}
    write(project / "msgcli.toml", "ignore = 3\n")
    with pytest.raises(ConfigError, match=r"msgcli\.toml: ignore must be a list"):
        msgcli.validate("bad", config=True)


def test_convert_says_what_the_configuration_left_out(run_cli, project):
    write(project / "msgcli.toml", 'exclude = ["bad"]\n')
    code, out, err = run_cli("convert", ".", "--to", "agentscope-java", stderr=True)
    assert code == 0
    assert len(out.splitlines()) >= 7  # the clean transcript, converted
    assert err.rstrip().endswith("; 2 files excluded by the configuration.")


def test_a_top_level_key_that_is_not_a_table_is_an_unknown_key(run_cli, project):
    write(project / "msgcli.toml", "tool = 5\n")
    code, _, err = run_cli("validate", "good", stderr=True)
    assert code == 2 and err.startswith("msgcli: msgcli.toml: unknown key 'tool'")
    code, _, err = run_cli("validate", "--config", "msgcli.toml", "good", stderr=True)
    assert code == 2 and "Traceback" not in err
