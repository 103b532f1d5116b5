"""Nothing is lost: an output never overwrites an input, and never is half a file."""

from __future__ import annotations

import os
import shutil
from typing import Any

import pytest
from conftest import FIXTURES

from msgcli.outputs import PendingFile, SameFileError, check_outputs

TRANSCRIPT = FIXTURES / "real" / "agentscope-py" / "transcript.jsonl"
EVENTS = FIXTURES / "real" / "agentscope-py" / "events.jsonl"


def _copy(source, tmp_path, name=None):
    target = tmp_path / (name or source.name)
    shutil.copyfile(source, target)
    return target


# the four cases a user hit, each named three ways: as given, through a symlink, relatively
CASES = [
    ("convert", TRANSCRIPT, lambda f, o: ["convert", f, "--to", "loongflow", "-o", o]),
    ("replay", EVENTS, lambda f, o: ["replay", f, "-o", o]),
    ("validate", TRANSCRIPT, lambda f, o: ["validate", "--format", "json", "-o", o, f]),
    ("format", TRANSCRIPT, lambda f, o: ["format", f, "-o", o]),
    ("validate-prefixed", TRANSCRIPT, lambda f, o: ["validate", "-o", f"sarif:{o}", f]),
    ("show-export", TRANSCRIPT, lambda f, o: ["show", f, "--export-html", o]),
]


@pytest.mark.parametrize("how", ["same", "symlink", "relative"])
@pytest.mark.parametrize(("command", "source", "args"), CASES, ids=[c[0] for c in CASES])
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(
    run_cli, tmp_path, monkeypatch, command, source, args, how
):
    log = _copy(source, tmp_path)
    before = log.read_bytes()
    monkeypatch.chdir(tmp_path)
    output = str(log)
    if how == "symlink":
        (tmp_path / "link.jsonl").symlink_to(log)
        output = "link.jsonl"
    elif how == "relative":
        (tmp_path / "sub").mkdir()
        output = os.path.join("sub", os.pardir, log.name)
    code, _, err = run_cli(*args(str(log), output), stderr=True)
    assert code == 2
    assert "refusing to overwrite" in err
    assert len(err.strip().splitlines()) == 1
    assert log.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [log.name, *{"symlink": ["link.jsonl"], "relative": ["sub"]}.get(how, [])]
    )


def test_a_hard_link_is_the_same_file(run_cli, tmp_path):
    log = _copy(TRANSCRIPT, tmp_path)
    os.link(log, tmp_path / "other-name.jsonl")
    before = log.read_bytes()
    code, _, err = run_cli(
        "convert", str(log), "--to", "loongflow", "-o", str(tmp_path / "other-name.jsonl"),
        stderr=True,
    )  # fmt: skip
    assert code == 2 and "refusing to overwrite" in err
    assert log.read_bytes() == before


def test_a_log_inside_an_input_directory_is_refused(run_cli, tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    log = _copy(TRANSCRIPT, folder)
    before = log.read_bytes()
    code, _, err = run_cli("convert", str(folder), "--to", "loongflow", "-o", str(log), stderr=True)
    assert code == 2
    assert "is a log in the input directory" in err
    assert log.read_bytes() == before


def test_a_new_file_inside_an_input_directory_is_written(run_cli, tmp_path):
    """Nothing is lost, and the run does not read its own output: it appears when done."""
    folder = tmp_path / "logs"
    folder.mkdir()
    _copy(TRANSCRIPT, folder)
    code, _ = run_cli("convert", str(folder), "--to", "loongflow", "-o", str(folder / "lf.jsonl"))
    assert code == 0
    _, direct = run_cli("convert", str(TRANSCRIPT), "--to", "loongflow")
    assert (folder / "lf.jsonl").read_text() == direct
    assert sorted(p.name for p in folder.iterdir()) == ["lf.jsonl", TRANSCRIPT.name]


def test_two_outputs_that_are_one_file_are_refused(run_cli, tmp_path):
    code, _, err = run_cli(
        "validate",
        "-o",
        f"json:{tmp_path / 'r'}",
        "-o",
        f"sarif:{tmp_path / 'r'}",
        str(TRANSCRIPT),
        stderr=True,
    )
    assert code == 2 and "are the same file" in err
    assert list(tmp_path.iterdir()) == []


def test_writing_to_dev_null_still_works(run_cli):
    code, _ = run_cli("convert", str(TRANSCRIPT), "--to", "loongflow", "-o", os.devnull)
    assert code == 0


def test_an_interrupted_run_leaves_the_old_file(run_cli, tmp_path, monkeypatch):
    target = tmp_path / "out.jsonl"
    target.write_text("the good file from yesterday\n")

    import msgcli.converters.run

    real = msgcli.converters.run.convert_paths

    def interrupted(paths, to, write, **kwargs):
        write({"half": "of a run"})
        raise KeyboardInterrupt

    monkeypatch.setattr(msgcli.converters.run, "convert_paths", interrupted)
    code, _ = run_cli("convert", str(TRANSCRIPT), "--to", "loongflow", "-o", str(target))
    assert code != 0
    assert target.read_text() == "the good file from yesterday\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]  # no temporary file left
    monkeypatch.setattr(msgcli.converters.run, "convert_paths", real)
    assert run_cli("convert", str(TRANSCRIPT), "--to", "loongflow", "-o", str(target))[0] == 0
    _, direct = run_cli("convert", str(TRANSCRIPT), "--to", "loongflow")
    assert target.read_text() == direct


def test_a_replaced_file_keeps_its_mode_and_a_symlink_is_written_through(tmp_path):
    target = tmp_path / "report.json"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    with PendingFile(str(link), text=True) as out:
        out.stream.write("new")
    assert link.is_symlink()
    assert target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o640


def test_check_outputs_ignores_standard_streams_and_missing_inputs(tmp_path):
    check_outputs([None, "-"], ["-"])
    check_outputs([str(tmp_path / "new.jsonl")], [str(tmp_path / "missing.jsonl")])
    with pytest.raises(SameFileError):
        check_outputs([str(TRANSCRIPT)], [str(TRANSCRIPT)])


def test_a_file_in_a_folder_where_nothing_new_may_be_made_is_written_in_place(
    tmp_path, monkeypatch
):
    target = tmp_path / "report.json"
    target.write_text("old")
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode: False if str(p) == str(tmp_path) else real_access(p, mode)
    )
    with PendingFile(str(target), text=True) as out:
        out.stream.write("new")
    assert target.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


# every command that reads logs, with a real log as its one input (diff: as both; replay: the
# events of that run)
STDOUT_CASES = {
    "convert": ["convert", "{f}", "--to", "loongflow"],
    "replay": ["replay", "{f}"],
    "validate": ["validate", "{f}"],
    "format": ["format", "{f}"],
    "show": ["show", "--no-pager", "{f}"],
    "stats": ["stats", "{f}"],
    "query": ["query", "{f}"],
    "diff": ["diff", "{f}", "{f}"],
    "sql": ["sql", "SELECT count(*) FROM messages", "{f}"],
    "export": ["export", "{f}", "--to", "tables.sqlite"],
    "view": ["view", "{f}", "--output", "pages"],
    "config": ["config", "{f}"],
}


@pytest.mark.parametrize("command", STDOUT_CASES)
def test_standard_output_into_an_input_is_refused(tmp_path, command):
    """``msgcli query run.jsonl >> run.jsonl`` read what it appended, without end (the file
    grew by a hundred thousand lines a second); now every command that reads logs stops
    first, with one line, and the log is as it was. The same with the log named through a
    folder, and standard output to another file works."""
    import subprocess
    import sys

    from conftest import ROOT

    def run(named: str, out: Any) -> subprocess.CompletedProcess:
        args = [a.format(f=named) for a in STDOUT_CASES[command]]
        return subprocess.run(
            [sys.executable, "-m", "msgcli", *args],
            stdout=out,
            stderr=subprocess.PIPE,
            timeout=120,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )

    log = _copy(EVENTS if command == "replay" else TRANSCRIPT, tmp_path, "run.jsonl")
    before = log.read_bytes()
    for named in (str(log), str(tmp_path)):
        with open(log, "ab") as out:
            refused = run(named, out)
        said = refused.stderr.decode()
        assert refused.returncode == 2, said
        assert said.startswith("msgcli: standard output is ") and "refusing to write to it" in said
        assert log.read_bytes() == before
    with open(tmp_path / "elsewhere.out", "wb") as out:
        written = run(str(log), out)
    assert written.returncode in (0, 1) and "refusing" not in written.stderr.decode()
