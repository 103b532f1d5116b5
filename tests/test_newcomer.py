"""The rough edges a newcomer hit, each as the newcomer met it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

TRANSCRIPT = FIXTURES / "real" / "agentscope-py" / "transcript.jsonl"
LOONGFLOW = FIXTURES / "real" / "loongflow" / "transcript.jsonl"
EVENTS = FIXTURES / "real" / "agentscope-py" / "events.jsonl"
TOOLS = FIXTURES / "invalid" / "agentscope-py" / "tool-pairing.jsonl"
JAVA_IDS = FIXTURES / "valid" / "agentscope-java" / "parallel-tools.jsonl"
LONG_RESULT = FIXTURES / "events" / "agentscope-java" / "multi-agent-persisted.jsonl"
MSGCLI = [sys.executable, "-m", "msgcli"]


# -- text findings name their severity -------------------------------------------------


def test_text_findings_say_error_or_warning_without_colour(run_cli, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    code, out = run_cli("validate", str(TOOLS))
    assert code == 1
    lines = out.splitlines()[:-1]
    assert f"{TOOLS}:3: error T001 " in out  # an orphan result is an error
    assert f"{TOOLS}:2: warning T005 " in out  # an empty argument text is a warning
    assert all(": error " in line or ": warning " in line for line in lines)
    summary = out.splitlines()[-1]
    errors = int(summary.split(": ")[-1].split(" error")[0])
    assert sum(": error " in line for line in lines) == errors


# -- -f is --format everywhere ------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "-f", "json", str(TRANSCRIPT)],
        ["replay", "-f", "json", str(EVENTS)],
        ["convert", "-f", "json", str(TRANSCRIPT), "--to", "loongflow"],
        ["stats", "-f", "json", str(TRANSCRIPT)],
        ["rules", "-f", "json"],
        ["config", "-f", "json"],
    ],
    ids=lambda a: a[0],
)
def test_dash_f_is_format_in_every_command(run_cli, args):
    code, out, err = run_cli(*args, stderr=True)
    assert code == 0
    json.loads(out if args[0] not in ("replay", "convert") else err)


def test_show_has_no_dash_f_and_follow_is_spelt_out(run_cli):
    code, _, err = run_cli("show", "-f", str(TRANSCRIPT), stderr=True)
    assert code == 2 and "No such option: -f" in err


# -- show: short ids, --id, folding, width -------------------------------------------------


def _headers(out: str) -> list[str]:
    """The message headers: `` ASSISTANT  name  time  #id  line N``."""
    return [line for line in out.splitlines() if re.match(r" (SYSTEM|USER|ASSISTANT|TOOL) ", line)]


def test_show_short_ids_are_unique_in_the_file(run_cli):
    """AgentScope Java keeps the provider's response id: every reply's id starts with
    'chatcmpl-', so the first 8 characters say nothing."""
    code, out = run_cli("show", "--no-pager", str(JAVA_IDS))
    assert code == 0
    shown = [line.split("#")[1].split()[0] for line in _headers(out) if "#" in line]
    ids = [json.loads(line)["id"] for line in JAVA_IDS.read_text().splitlines()]
    assert len(set(shown)) == len(shown) >= 3
    for short in shown:
        assert len(short) >= 8
        assert sum(i.startswith(short) for i in ids) == 1
    # each short id picks its message
    for short in shown:
        code, out, err = run_cli("show", "--no-pager", "--id", short, str(JAVA_IDS), stderr=True)
        assert len(_headers(out)) == 1 and err == ""
    # standard input is not read twice: 8 characters after the word the ids share
    _, out = run_cli("show", "--no-pager", "-", input=JAVA_IDS.read_bytes())
    piped = [line.split("#")[1].split()[0] for line in _headers(out) if "#" in line]
    assert piped[1:] == [i[:17] for i in ids if i.startswith("chatcmpl-")]
    assert len(set(piped)) == len(piped)


def test_a_file_too_large_to_read_twice_shows_8_characters_after_the_ids_word(
    run_cli, tmp_path, monkeypatch
):
    import msgcli.render.view

    monkeypatch.setattr(msgcli.render.view, "SHORT_ID_READ_LIMIT", 100)
    _, out = run_cli("show", "--no-pager", str(JAVA_IDS))
    assert "#chatcmpl-zneBtcdk " in out


def test_an_id_prefix_of_several_messages_says_so(run_cli):
    code, out, err = run_cli(
        "show", "--no-pager", "--id", "chatcmpl", str(JAVA_IDS), stderr=True
    )  # fmt: skip
    assert code == 0
    assert "--id chatcmpl matches 3 messages" in err
    assert "give more of the id" in err
    assert len(_headers(out)) == 3
    code, out, err = run_cli("show", "--no-pager", "--id", "nothing", str(JAVA_IDS), stderr=True)
    assert "--id nothing matches no message" in err


def test_long_tool_results_fold_and_full_shows_them(run_cli):
    result = json.loads(LONG_RESULT.read_text().splitlines()[4])["content"][0]["output"][0]["text"]
    lines = result.splitlines()
    assert len(lines) == 8
    _, out = run_cli("show", "--no-pager", str(LONG_RESULT))
    assert lines[0] in out and lines[5] in out
    assert "reply:" not in out
    assert out.count(lines[7]) == 1  # the researcher's own message; not in the result
    assert "… 2 more lines (--full)" in out
    _, out = run_cli("show", "--no-pager", "--full", str(LONG_RESULT))
    assert all(line in out for line in lines)
    assert out.count(lines[7]) == 2
    assert "more lines" not in out


def test_show_follows_columns_when_piped_and_pads_nothing(run_cli, monkeypatch):
    for log in (TRANSCRIPT, LOONGFLOW, LONG_RESULT):
        for extra in ([], ["--markdown"]):
            _, out = run_cli("show", "--no-pager", *extra, str(log))
            assert max(len(line) for line in out.splitlines()) <= 100
            assert [line for line in out.splitlines() if line.endswith(" ")] == []
    monkeypatch.setenv("COLUMNS", "60")
    _, out = run_cli("show", "--no-pager", "--markdown", str(TRANSCRIPT))
    assert 50 < max(len(line) for line in out.splitlines()) <= 60
    assert [line for line in out.splitlines() if line.endswith(" ")] == []


# -- a closed pipe is not an error --------------------------------------------------------


@pytest.fixture(scope="module")
def long_log(tmp_path_factory) -> Path:
    """The real transcript 300 times over (ids made unique): more than a pipe holds."""
    path = tmp_path_factory.mktemp("long") / "long.jsonl"
    lines = TRANSCRIPT.read_text(encoding="utf-8").splitlines()
    with path.open("w", encoding="utf-8") as out:
        for i in range(300):
            for line in lines:
                record = json.loads(line)
                record["id"] = f"{i}-{record['id']}"
                out.write(json.dumps(record) + "\n")
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["show", "--no-pager"],
        ["show"],
        ["validate", "--select", "P,S"],
        ["validate", "-f", "json"],
        ["convert", "--to", "loongflow"],
    ],
    ids=" ".join,
)
def test_a_closed_pipe_ends_quietly_with_status_0(long_log, args):
    """``msgcli ... | head -1``: the reader had what it wanted; no error, no traceback."""
    code, err = _piped_to_head([*MSGCLI, *args, str(long_log)])
    assert code == 0, err
    assert "Error" not in err and "Traceback" not in err


def _piped_to_head(command: list[str]) -> tuple[int, str]:
    """``command | head -1``: its exit status and standard error."""
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, text=True
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # what head does after its line
    err = proc.stderr.read()
    return proc.wait(timeout=300), err


# -- -o takes the format its suffix names --------------------------------------------------


def test_an_output_without_prefix_takes_the_format_its_suffix_names(run_cli, tmp_path):
    json_out, xml_out, sarif_out = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "r.sarif"
    code, out = run_cli(
        "validate", "-o", str(json_out), "-o", str(xml_out), "-o", str(sarif_out), str(TOOLS)
    )
    assert code == 1
    assert json.loads(json_out.read_text())["summary"]["exit_code"] == 1
    assert xml_out.read_text().startswith("<?xml") and "<testsuites" in xml_out.read_text()
    assert json.loads(sarif_out.read_text())["version"] == "2.1.0"
    assert out.splitlines()[-1].startswith("Checked 1 file")  # the terminal reads text


def test_an_unknown_output_prefix_is_a_usage_error(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli("validate", "-o", "yaml:x.y", str(TRANSCRIPT), stderr=True)
    assert code == 2
    assert "unknown report format 'yaml'" in err
    assert list(tmp_path.iterdir()) == []
    code, _, err = run_cli("validate", "-o", "sarif:", str(TRANSCRIPT), stderr=True)
    assert code == 2 and "name the file after the colon" in err
    # a file whose name has a colon is still written, named as a path
    code, _ = run_cli("validate", "-o", "./yaml:x.json", str(TRANSCRIPT))
    assert code == 0
    assert json.loads((tmp_path / "yaml:x.json").read_text())["summary"]["exit_code"] == 0


def test_a_suffix_that_contradicts_format_is_a_usage_error(run_cli, tmp_path):
    code, _, err = run_cli(
        "validate", "-f", "junit", "-o", str(tmp_path / "r.json"), str(TRANSCRIPT), stderr=True
    )
    assert code == 2 and "--format is junit" in err
    assert list(tmp_path.iterdir()) == []


# -- the README's first example is what a newcomer sees -------------------------------------


def test_readme_and_make_demo_run_the_example_without_the_repository_configuration():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    example = "msgcli validate --no-config fixtures/invalid/mixed-problems/agentscope-py-run.jsonl"
    assert f"$ {example}\n" in readme
    assert "$(BIN)/" + example in makefile
    # and the repository's configuration is why: without --no-config it is a negative fixture
    done = subprocess.run(
        [*MSGCLI, *example.replace("--no-config ", "").split()[1:]],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0 and "1 negative fixture, 1 as expected" in done.stdout


def test_the_directory_suffixes_are_listed_the_same_everywhere(run_cli, tmp_path):
    from msgcli.inputs import LOG_SUFFIXES

    (tmp_path / "notes.txt").write_text("not a log")
    code, out = run_cli("validate", str(tmp_path))
    assert code == 2
    listed = [f"*{s}" for s in LOG_SUFFIXES]
    message = out.splitlines()[0]
    assert "P010" in message and all(name in message for name in listed)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    inputs = readme.split("**Inputs.**", 1)[1].split("\n\n", 1)[0]
    assert all(f"`{name}`" in inputs for name in listed)
    # and a folder holding only those names is what a scan reads
    for suffix in LOG_SUFFIXES:
        folder = tmp_path / suffix.strip(".").replace(".", "-")
        folder.mkdir()
        target = folder / f"log{suffix}"
        if suffix.endswith(".gz"):
            import gzip

            target.write_bytes(gzip.compress(TRANSCRIPT.read_bytes()))
        elif suffix.endswith(".zst"):
            import zstandard

            target.write_bytes(zstandard.ZstdCompressor().compress(TRANSCRIPT.read_bytes()))
        else:
            shutil.copyfile(TRANSCRIPT, target)
        assert run_cli("validate", str(folder))[0] == 0, suffix


# -- replay of a message log ----------------------------------------------------------------


def test_replay_of_a_message_log_says_so_from_its_first_record(run_cli, tmp_path):
    """The verdict comes from the first record: a broken line further down is never
    reached (and never reported), however long the log."""
    lines = TRANSCRIPT.read_text(encoding="utf-8").splitlines()
    log = tmp_path / "messages.jsonl"
    log.write_text("\n".join([lines[0], '{"broken', *lines[1:]]) + "\n", encoding="utf-8")
    code, out, err = run_cli("replay", str(log), stderr=True)
    assert code == 2
    assert f"{log} is a message log, not an event log: nothing to replay" in err
    assert "P001" not in err
    assert out == ""


# -- contradictory options ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["validate", "-q", "-v"], "--quiet and --verbose contradict each other"),
        (["validate", "--config", "x.toml", "--no-config"], "--config and --no-config"),
        (["show", "--no-thinking", "--thinking", "full"], "--no-thinking and --thinking full"),
        (["show", "--head", "1", "--tail", "1"], "--head and --tail cannot be used together"),
        (["show", "--idle-timeout", "2"], "--idle-timeout is for --follow"),
        (["show", "--full", "--thinking", "fold"], "--full and --thinking fold"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_contradictory_options_are_refused_before_reading(run_cli, args, message):
    code, out, err = run_cli(*args, str(TRANSCRIPT), stderr=True)
    assert code == 2
    assert message in err and len(err.splitlines()) == 1
    assert out == ""


# -- format: a summary line, and -q ---------------------------------------------------------


def test_format_prints_a_summary_line_and_q_leaves_it_out(run_cli):
    log = FIXTURES / "readme" / "weather.jsonl"
    code, out, err = run_cli("format", str(log), stderr=True)
    assert code == 0
    request = json.loads(out)
    assert err == (
        f"Formatted 2 log messages as {len(request['messages'])} openai request messages "
        "(AgentScope Python OpenAIChatFormatter).\n"
    )
    code, out2, err = run_cli("format", "-q", str(log), stderr=True)
    assert code == 0 and out2 == out and err == ""
    # notes stay with -q; the summary counts them
    code, _, err = run_cli("format", str(TRANSCRIPT), "-p", "anthropic", stderr=True)
    notes = [line for line in err.splitlines() if line.startswith(f"{TRANSCRIPT}:")]
    assert notes and err.splitlines()[-1].endswith(
        f"; {len(notes)} notes on what it could not carry."
    )
    code, _, err = run_cli("format", "-q", str(TRANSCRIPT), "-p", "anthropic", stderr=True)
    assert err.splitlines() == notes


# -- stats: the order of the count maps ------------------------------------------------------


def test_stats_json_count_maps_are_most_frequent_first(run_cli):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "Every count map lists the most frequent first" in readme
    logs = [TRANSCRIPT, LOONGFLOW, EVENTS, LONG_RESULT, JAVA_IDS]
    code, out = run_cli("stats", "-f", "json", *map(str, logs))
    assert code == 0
    doc = json.loads(out)

    def count_maps(entry):
        yield entry["messages"]["by_role"]
        yield entry["messages"]["by_sender"]
        yield entry["blocks"]["by_type"]
        yield entry["blocks"]["media"]
        yield entry["tools"]["results"]
        yield entry["finish_reasons"]
        for tool in entry["tools"]["by_tool"].values():
            yield tool["results"]
        if entry["events"] is not None:
            yield entry["events"]["unknown_types"]
            yield entry["events"]["finished_reasons"]

    for entry in [*doc["files"], doc["total"]]:
        for counts in count_maps(entry):
            values = list(counts.values())
            assert values == sorted(values, reverse=True), counts
        calls = [t["calls"] for t in entry["tools"]["by_tool"].values()]
        assert calls == sorted(calls, reverse=True)
    # but the event types in the order the stream went through them, as the README says
    seen = []
    for line in EVENTS.read_text().splitlines():
        kind = json.loads(line)["type"]
        if kind not in seen:
            seen.append(kind)
    assert list(doc["files"][2]["events"]["by_type"]) == seen


# -- convert of an empty file ---------------------------------------------------------------


def test_convert_of_an_empty_file_fails_as_validate_does(run_cli, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    code, out = run_cli("validate", str(empty))
    finding = f"{empty}:0: error P008 the file is empty: it holds no records"
    assert code == 1 and finding in out
    code, out, err = run_cli("convert", str(empty), "--to", "loongflow", stderr=True)
    assert code == 1
    assert out == ""
    assert err.splitlines()[0] == finding


# -- msgcli rules CODE ------------------------------------------------------------------------


def test_every_rule_is_explained():
    from msgcli.dialects import rule_explained
    from msgcli.rule_docs import EXPLAINED
    from msgcli.rules import RULES

    # msgcli's own rules here, a dialect's own in its rule_docs
    explained = {code: EXPLAINED.get(code) or rule_explained(code) for code in RULES}
    assert set(EXPLAINED) <= set(RULES)
    for code, found in explained.items():
        assert found is not None, code
        example, fix = found
        assert len(example) > 20 and len(fix) > 20, code


def test_rules_code_explains_one_rule(run_cli):
    code, out = run_cli("rules", "t001")
    assert code == 0
    assert out.startswith("T001 orphan-tool-result (error by default)\n")
    for heading in ("Example:", "How to fix:", "How to ignore:"):
        assert f"\n{heading}\n" in out
    assert "answers no tool call in the file" in out
    assert "msgcli validate --ignore T001" in out
    assert 'ignore = ["T001"]' in out
    # by its name too, and as JSON
    assert run_cli("rules", "orphan-tool-result")[1] == out
    code, out = run_cli("rules", "T002", "-f", "json")
    doc = json.loads(out)
    assert doc["code"] == "T002" and doc["severity"] == "warning" and doc["example"]


def test_rules_of_an_unknown_or_retired_code(run_cli):
    code, _, err = run_cli("rules", "T01", stderr=True)
    assert code == 2 and "no rule 'T01'" in err and "T001" in err
    code, _, err = run_cli("rules", "D003", stderr=True)
    assert code == 2 and "retired" in err


@pytest.mark.project_config
def test_the_ways_to_ignore_a_rule_that_rules_gives_work(run_cli, tmp_path, monkeypatch):
    log = tmp_path / "tool-pairing.jsonl"
    shutil.copyfile(TOOLS, log)
    monkeypatch.chdir(tmp_path)
    _, out = run_cli("validate", str(log))
    assert " T001 " in out
    _, out = run_cli("validate", "--ignore", "T001", str(log))
    assert " T001 " not in out and " T002 " in out
    (tmp_path / "pyproject.toml").write_text('[tool.msgcli]\nignore = ["T001"]\n')
    _, out = run_cli("validate", str(log))
    assert " T001 " not in out and " T002 " in out


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX")
def test_follow_uses_the_terminals_width():
    """In a terminal 70 columns wide, --follow draws at 70 columns (not a fixed 100)."""
    import fcntl
    import pty
    import select
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 70, 0, 0))
    env = {**os.environ, "TERM": "xterm", "NO_COLOR": "1"}
    env.pop("COLUMNS", None)
    proc = subprocess.Popen(
        [*MSGCLI, "show", "--follow", "--idle-timeout", "1", str(TRANSCRIPT)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    seen = b""
    while select.select([master], [], [], 60)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    assert proc.wait(timeout=60) == 0
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen.decode("utf-8", "replace"))
    widths = [len(line) for line in text.replace("\r", "").split("\n")]
    assert 60 < max(widths) <= 70
