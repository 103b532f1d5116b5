"""The command line as a user and a CI job meet it: output formats, options, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import FIXTURES

REAL_PY = str(FIXTURES / "real" / "agentscope-py" / "transcript.jsonl")
REAL_LF = str(FIXTURES / "real" / "loongflow" / "transcript.jsonl")
BAD_JSON = str(FIXTURES / "invalid" / "bad-input" / "invalid-json.jsonl")
TRUNCATED = str(FIXTURES / "invalid" / "bad-input" / "truncated.jsonl")


def test_clean_log_exits_0_with_a_summary(run_cli):
    code, out = run_cli("validate", REAL_PY, REAL_LF)
    assert code == 0
    assert out.strip().splitlines()[-1] == (
        "Checked 2 files (agentscope-py 1, loongflow 1), 19 records: 0 errors, 0 warnings."
    )


def test_text_findings_read_path_line_code_message_pointer(run_cli):
    code, out = run_cli("validate", BAD_JSON)
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith(f"{BAD_JSON}:2: error P001 invalid JSON: ")
    assert "1 error" in out.splitlines()[-1]


def test_json_format_document(run_cli):
    code, out = run_cli("validate", "--format", "json", BAD_JSON, REAL_LF)
    assert code == 1
    doc = json.loads(out)
    assert doc["version"] == 1
    assert doc["summary"]["files"] == 2 and doc["summary"]["errors"] == 1
    assert doc["summary"]["exit_code"] == 1
    (finding,) = doc["findings"]
    assert finding["path"] == BAD_JSON and finding["line"] == 2 and finding["code"] == "P001"
    assert finding["severity"] == "error"
    assert {f["dialect"] for f in doc["files"]} == {"agentscope-py", "loongflow"}


def test_github_format_is_exactly_the_workflow_command(run_cli):
    code, out = run_cli("validate", "--format", "github", TRUNCATED)
    assert code == 1
    (line,) = out.splitlines()
    assert line.startswith(f"::error file={TRUNCATED},line=3,title=P004::the last line is cut off")


def test_github_format_escapes_what_would_break_the_command(tmp_path, run_cli):
    log = tmp_path / "a,b:c.jsonl"
    log.write_bytes(b'{"x": 1}\n')
    _, out = run_cli("validate", "--format", "github", str(log))
    (line,) = out.splitlines()
    assert "file=" + str(log).replace(":", "%3A").replace(",", "%2C") + ",line=1" in line


def test_missing_path_and_empty_folder_exit_2_but_the_rest_is_checked(tmp_path, run_cli):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("not a log")
    code, out = run_cli(
        "validate", "--format", "json", str(tmp_path / "nope.jsonl"), str(empty), BAD_JSON
    )
    assert code == 2
    doc = json.loads(out)
    assert [(f["code"], f["line"]) for f in doc["findings"]] == [
        ("P009", 0),
        ("P010", 0),
        ("P001", 2),
    ]


def test_select_ignore_and_strict(tmp_path, run_cli):
    log = tmp_path / "log.jsonl"
    # an empty file (an error) and nothing else
    log.write_bytes(b"")
    assert run_cli("validate", str(log))[0] == 1
    assert run_cli("validate", "--ignore", "P008", str(log))[0] == 0
    assert run_cli("validate", "--select", "T,I", str(log))[0] == 0
    first = (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl").read_bytes().split(b"\n")[0]
    warned = tmp_path / "warned.jsonl"
    warned.write_bytes(first[:-1] + b',"extra":1}\n')  # a key the framework drops: S003
    assert run_cli("validate", str(warned))[0] == 0
    assert run_cli("validate", "--strict", str(warned))[0] == 1


def test_unknown_rule_code_is_a_usage_error(run_cli):
    code, _ = run_cli("validate", "--select", "Z999", REAL_PY)
    assert code == 2


def test_max_errors_stops_early(tmp_path, run_cli):
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"{bad\n" * 50)
    code, out = run_cli("validate", "--format", "json", "--max-errors", "5", str(log))
    doc = json.loads(out)
    assert code == 1
    assert len(doc["findings"]) == 5 and doc["summary"]["stopped_early"] is True


def test_stdin_and_gzip_from_stdin(run_cli):
    import gzip

    with open(REAL_PY, "rb") as handle:
        data = handle.read()
    assert run_cli("validate", "-", input=data)[0] == 0
    code, out = run_cli("validate", "--format", "json", "-", input=gzip.compress(data))
    assert code == 0 and json.loads(out)["files"][0]["path"] == "<stdin>"


def test_forced_dialect(run_cli):
    code, out = run_cli("validate", "--dialect", "loongflow", "--format", "json", REAL_PY)
    assert code == 1
    assert {f["code"] for f in json.loads(out)["findings"]} >= {"S001"}


def test_rules_command_lists_every_rule(run_cli):
    from msgcli.rules import RULES

    code, out = run_cli("rules", "--format", "json")
    assert code == 0
    assert [r["code"] for r in json.loads(out)] == list(RULES)
    code, out = run_cli("rules")
    assert all(c in out for c in RULES)


def test_schema_list_and_show(run_cli):
    code, out = run_cli("schema", "list")
    names = [line.split("\t")[0] for line in out.splitlines()]
    assert {"agentscope-java/message", "agentscope-py/message", "loongflow/message"} <= set(names)
    code, out = run_cli("schema", "show", "loongflow")
    assert code == 0 and json.loads(out)["$id"] == "urn:msgcli:schema:loongflow:message"
    assert run_cli("schema", "show", "nope")[0] == 2


def _msgcli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "msgcli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )


def test_internal_error_is_one_line_and_traceback_on_request(tmp_path):
    # A dialect module that breaks stands in for a bug: the user sees one line and exit 2.
    plugin = tmp_path / "sitecustomize.py"
    plugin.write_text(
        "import msgcli.checks as c\n"
        "def boom(*a, **k):\n    raise RuntimeError('simulated bug')\n"
        "c.CrossChecks.feed_digest = boom\n"
    )
    env = {"PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    result = _msgcli("validate", REAL_PY, env=env)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "msgcli: internal error: RuntimeError: simulated bug "
        "(run again with --traceback to see where)"
    )
    assert "Traceback" not in result.stderr
    result = _msgcli("validate", "--traceback", REAL_PY, env=env)
    assert "Traceback (most recent call last)" in result.stderr


def test_version_and_help():
    assert _msgcli("--version").stdout.startswith("msgcli ")
    out = _msgcli("--help").stdout
    for command in ("validate", "rules", "schema"):
        assert command in out


def test_readme_rule_table_is_the_registry(run_cli):
    from conftest import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("\n", readme.index("<!-- rules-table")) + 1
    end = readme.index("<!-- end rules-table -->")
    _, out = run_cli("rules", "--format", "markdown")
    assert readme[start:end].strip() == out.strip()


def test_text_from_a_log_cannot_drive_the_terminal(tmp_path, run_cli):
    # keys, values and even the file name carry escape sequences and rich markup
    log = tmp_path / "run\x1b[2J.jsonl"
    log.write_text(
        '{"role": "USER", "content": [{"type": "text", "text": "hi"}], "id": "a", "name": "u", '
        '"metadata": {}, "timestamp": "\\u001b]0;pwned\\u0007", "usage": null, '
        '"[bold red]x\\u001b[31m\\u009b": 1}\n',
        encoding="utf-8",
    )
    for fmt in ("text", "github"):
        _, out = run_cli("validate", "--format", fmt, str(log))
        assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
        assert "[bold red]x" in out  # markup is printed as written
        assert "\\e[2J" in out or "\\u001b" in out


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch):
    import io

    from msgcli.report.text import use_colour

    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert use_colour(Tty()) is True
    assert use_colour(io.StringIO()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_colour(Tty()) is False


def test_a_file_name_that_is_not_utf8_is_reported_in_every_format(tmp_path):
    import os
    import subprocess
    import sys

    from conftest import FIXTURES

    name = os.fsencode(tmp_path) + b"/bad-\xff.jsonl"
    with open(name, "wb") as out:
        out.write((FIXTURES / "invalid" / "agentscope-py" / "tool-pairing.jsonl").read_bytes())
    msgcli = [sys.executable, "-m", "msgcli", "validate"]
    for fmt in ("text", "json", "github", "junit", "sarif"):
        done = subprocess.run([*msgcli, "-f", fmt, str(tmp_path)], capture_output=True)
        assert done.returncode == 1, (fmt, done.stderr)
        assert b"internal error" not in done.stderr
    done = subprocess.run([*msgcli, "-f", "json", str(tmp_path)], capture_output=True)
    import json

    doc = json.loads(done.stdout)
    assert doc["files"][0]["path"].endswith("bad-\udcff.jsonl")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize(
    "args",
    [
        ["query", "{log}"],
        ["show", "--no-pager", "{log}"],
        ["stats", "{log}"],
        ["validate", "{log}"],
        ["convert", "{log}", "--to", "loongflow", "-o", "/dev/full"],
        ["validate", "{log}", "-o", "json:/dev/full"],
        ["show", "--export-html", "/dev/full", "{log}"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_a_full_disk_is_one_line_and_no_internal_error(args):
    """Standard output or an output file on a full disk (/dev/full): one line saying why,
    exit status 2; it once read as msgcli's own 'internal error'."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "msgcli", *[a.format(log=REAL_PY) for a in args]],
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    assert done.returncode == 2
    assert done.stderr.decode() == "msgcli: cannot write: No space left on device\n"
