"""Hostile logs never crash msgcli, never reach the terminal raw, and never lose data.

The harness is ``tests/fuzz`` (``make fuzz`` runs 100,000 mutations of the real logs
through every command); here a seeded slice of it runs in the suite, hypothesis drives the
same mutator, and each kind of input the harness once broke msgcli with is kept as a test
of its own, run through the installed ``msgcli`` script as a user runs it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from conftest import FIXTURES, examples
from fuzz.drive import COMMANDS, UNSAFE, check, run_cli
from fuzz.mutate import ROOT, SWEEP_VALUES, inputs, seeds, sweep_cases
from fuzz.run import fuzz, round_trips, sweep
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

MSGCLI = Path(sys.executable).with_name("msgcli")


@pytest.mark.slow  # up to a minute of CPU: make test-all and CI run it, make test does not
def test_a_seeded_slice_of_the_fuzzer_finds_nothing():
    started = time.process_time()  # (the time it costs, whatever else the machine runs)
    # the commands that build tables (a DuckDB or Parquet file each time, 20-100 ms) get one
    # turn in every five the others get
    heavy = [name for name in COMMANDS if name.startswith(("export", "sql"))]
    light = [name for name in COMMANDS if name not in heavy]
    tally = fuzz(1300, seed="make-test", cli_every=26, commands=light * 5 + heavy)
    failures = [f"{kind} (input {tally.examples[kind][1]})" for kind in tally.kinds]
    assert failures == []
    assert set(tally.tried) == set(COMMANDS)  # every command had its share
    assert sum(tally.tried.values()) == 1300 and tally.cli == 50
    assert time.process_time() - started < 60


def test_clean_logs_come_back_byte_for_byte_through_every_dialect():
    assert round_trips(seeds()) == []


@settings(
    max_examples=examples(60),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.sampled_from(sorted(COMMANDS)), inputs())
def test_any_mutation_through_any_command(tmp_path_factory, command, case):
    name, data = case
    path = tmp_path_factory.mktemp("fuzz") / ("input" + Path(name).suffix)
    path.write_bytes(data)
    assert check(command, path, ROOT / name) == []


#: every command of msgcli that reads logs, and the ways of show that write files
READERS = {"validate", "replay", "show", "stats", "convert", "format", "diff", "query"}
READERS |= {"export", "sql", "view"}


def test_the_harness_runs_every_command_that_reads_logs(tmp_path):
    """Each command of the harness, on a real log, through the library and the command line,
    finds nothing; between them they are every command that reads logs, show's exports,
    and export to each table format."""
    assert {args[0] for _, args in COMMANDS.values()} == READERS
    names = " ".join(COMMANDS)
    for way in ("--export-html", "--export-markdown", ".sqlite", ".parquet", ".duckdb"):
        assert way in names
    log = tmp_path / "transcript.jsonl"
    log.write_bytes((FIXTURES / "real/agentscope-py/transcript.jsonl").read_bytes())
    clean = FIXTURES / "real/agentscope-py/transcript.jsonl"
    for command in COMMANDS:
        assert check(command, log, clean) == [], command
        assert run_cli(command, log, clean) == [], command
    assert sorted(tmp_path.iterdir()) == [log]  # every output went elsewhere


def test_the_harness_sees_the_log_as_live_markup_or_broken_tables(tmp_path):
    """What the harness holds of pages, Markdown and tables can fail."""
    from fuzz.drive import Case, bad_markdown, bad_page, read_tables

    out = tmp_path / "out"
    out.mkdir()
    log = FIXTURES / "real/agentscope-py/transcript.jsonl"
    run, _ = COMMANDS["show --export-html"]
    html = run(log, Case(log, out)).pages[0]
    assert bad_page(html) is None
    said = "Please answer in English and 中文."
    assert said in html
    for live in ("<script>alert(1)</script>", '<img src=x onerror="alert(1)">', "<iframe>"):
        assert bad_page(html.replace(said, live)) is not None, live
    run, _ = COMMANDS["show --export-markdown"]
    markdown = run(log, Case(log, out)).markdown
    assert markdown is not None and bad_markdown(markdown) is None
    assert bad_markdown(markdown.replace(said, "<script>x</script>")) is not None
    assert bad_markdown(markdown + "\n```\nopen") is not None
    (tmp_path / "t.sqlite").write_bytes(b"not a database")
    assert read_tables(tmp_path / "t.sqlite")


def test_the_sweep_sets_every_hostile_value_and_finds_nothing():
    """A sweep of two key paths (a Java message's, a Claude Code record's): every hostile
    value through validate and show; the values are each written into the record."""
    cases = [c for c in sweep_cases(seeds()) if c.path == ("role",)]
    assert cases
    _, data = cases[0].data(SWEEP_VALUES["HTML markup"])
    assert b'"role": "<script>alert(1)</script>' in data
    tally = sweep(limit=2, commands=["validate", "show"], cli_every=19)
    assert tally.tried == {"validate": 2 * len(SWEEP_VALUES), "show": 2 * len(SWEEP_VALUES)}
    assert tally.cli == 4
    assert [f"{kind} ({tally.examples[kind][0]})" for kind in tally.kinds] == []


# -- what broke msgcli once, as a user meets it -------------------------------------

REAL_PY = (FIXTURES / "real/agentscope-py/transcript.jsonl").read_text().splitlines()
REAL_LF = (FIXTURES / "real/loongflow/transcript.jsonl").read_text().splitlines()
REAL_JAVA = (FIXTURES / "real/agentscope-java/transcript.jsonl").read_text().splitlines()


def _with(line: str, old: str, new: str) -> str:
    assert old in line
    return line.replace(old, new)


DEEP = "[" * 1000 + "1" + "]" * 1000
#: name -> (the real log, which of its lines is changed, what, into what)
HOSTILE = {
    # nesting below the parser's 1,024 levels, where later stages recursed
    "deep-metadata": (REAL_PY, 1, '"metadata":{', f'"metadata":{{"deep":{DEEP},'),
    "deep-tool-args": (REAL_LF, 2, '"arguments": {', f'"arguments": {{"deep": {DEEP}, '),
    # (the conversation groups times: its key was the value's repr, 1,000 levels deep)
    "deep-conversation": (
        REAL_LF,
        2,
        '"conversation_id": "conv-7f3a9c"',
        f'"conversation_id": {DEEP}',
    ),
    # an integer beyond 64 bits, next to a NaN (the line goes the standard library's way)
    "huge-int": (
        REAL_LF,
        2,
        '"completion_tokens": 46',
        '"completion_tokens": NaN, "prompt_tokens2": 123456789012345678901234567890',
    ),
    # a lone surrogate next to a NaN: orjson refuses it; so must the other path
    "nan-surrogate": (
        REAL_LF,
        2,
        '"completion_tokens": 46',
        '"completion_tokens": NaN, "x": "\\ud800"',
    ),
    # a JSON object where the Java tool state is a string, a string where a count is
    "java-state-object": (REAL_JAVA, 1, '"state":"allowed"', '"state":{"s":"\\u001b[31m"}'),
    "java-usage-escape": (REAL_JAVA, 1, '"outputTokens":46', '"outputTokens":"\\u001b[2J"'),
    "loongflow-usage-object": (
        REAL_LF,
        2,
        '"usage": {',
        '"usage": {"prompt_tokens": {"\\u001b]0;x\\u0007": 1}, ',
    ),
    "loongflow-usage-escape": (
        REAL_LF,
        2,
        '"completion_tokens": 46',
        '"completion_tokens": "\\u001b]0;pwned\\u0007"',
    ),
}
ARGS = [
    ["validate"],
    ["validate", "-j", "2"],
    ["validate", "--format", "github"],
    ["replay"],
    ["show", "--no-pager"],
    ["show", "--no-pager", "--metadata", "--markdown", "--thinking", "full"],
    ["stats"],
    *(
        ["convert", "--to", d, "--zone", "UTC"]
        for d in ("agentscope-java", "agentscope-py", "loongflow")
    ),
    *(["format", "--provider", p] for p in ("openai", "dashscope", "anthropic")),
]


@pytest.mark.slow  # each command a msgcli process of its own: 6 s of CPU per dialect
@pytest.mark.parametrize("dialect", ["agentscope-java", "agentscope-py", "loongflow"])
def test_hostile_values_through_the_installed_command(tmp_path, dialect):
    """Every hostile line of one dialect, each a changed copy of a real record, in one real
    log: every command, as the installed script, on it."""
    source = {"agentscope-java": REAL_JAVA, "agentscope-py": REAL_PY, "loongflow": REAL_LF}
    lines = list(source[dialect])
    for real, index, old, new in HOSTILE.values():
        if real is source[dialect]:
            lines.append(_with(real[index], old, new))
    assert len(lines) > len(source[dialect])
    log = tmp_path / "hostile.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
    for args in ARGS:
        run = subprocess.run(
            [str(MSGCLI), *args, str(log)], capture_output=True, env=env, timeout=120
        )
        said = run.stderr.decode("utf-8")
        assert "internal error" not in said and "Traceback" not in said, (args, said)
        out = run.stdout.decode("utf-8")
        if args[0] in ("replay", "convert"):
            assert all(type(orjson.loads(x)) is dict for x in out.splitlines()), args
        elif args[0] != "format":
            assert not UNSAFE.search(out), (args, out)
        assert not UNSAFE.search(said), (args, said)


def test_the_footer_shows_an_escape_where_a_count_was_expected(tmp_path, run_cli):
    """A string in the token counts of an AgentScope Java message is shown, escaped."""
    line = _with(REAL_JAVA[1], '"outputTokens":46', '"outputTokens":"\\u001b[2Jx"')
    log = tmp_path / "footer.jsonl"
    log.write_text(line + "\n", encoding="utf-8")
    code, out = run_cli("show", "--no-pager", str(log))
    assert code == 0
    assert "\x1b" not in out
    assert "tokens in 812 · out \\e[2Jx" in out


#: address space a command may take on a small log (the interpreter and its libraries need
#: a few hundred megabytes; a memory bomb wants gigabytes)
SMALL_LOG_MEMORY = 2 * 1024**3


def _bounded_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (SMALL_LOG_MEMORY, SMALL_LOG_MEMORY))


@pytest.mark.skipif(sys.platform != "linux", reason="address-space limits as Linux sets them")
def test_an_index_in_a_small_stream_is_no_count_of_parts_to_make(tmp_path):
    """A real OpenAI Responses stream whose delta names content part 2**31 (and summary
    part 2**62): each is a located E002, the text still arrives, and no command asks for
    gigabytes of empty parts on the way."""
    lines = (FIXTURES / "real/openai-responses/events.jsonl").read_text().splitlines()
    lines[4] = _with(lines[4], '"summary_index":0', '"summary_index":4611686018427387904')
    lines[21] = _with(lines[21], '"content_index":0', '"content_index":2147483648')
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
    for args in (["replay"], ["validate"], ["show", "--no-pager"]):
        run = subprocess.run(
            [str(MSGCLI), *args, str(log)],
            capture_output=True,
            env=env,
            timeout=120,
            preexec_fn=_bounded_memory,
        )
        said = run.stderr.decode("utf-8")
        assert "internal error" not in said and "Traceback" not in said, (args, said)
        if args[0] in ("replay", "show"):
            assert "Lanterns of amber and rust" in run.stdout.decode("utf-8"), args
        else:
            report = run.stdout.decode("utf-8")
            assert run.returncode == 1
            assert f"{log}:22: error E002" in report and "content part 2147483648" in report
            assert f"{log}:5: error E002" in report and "summary part 4611686018427387904" in report


def test_show_a_message_id_nested_a_thousand_levels(tmp_path, run_cli):
    """A real Claude Code session whose assistant message id is an object 1,000 levels deep
    (the short ids are worked out before the messages are shown)."""
    lines = (FIXTURES / "real/claude-code/02-bash-ls/session.jsonl").read_text().splitlines()
    deep = '{"a":' * 1000 + "1" + "}" * 1000
    lines[5] = _with(lines[5], '"id":"msg_01zswfpHoj09e7z2mULGK07l"', f'"id":{deep}')
    log = tmp_path / "session.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out = run_cli("show", "--no-pager", str(log))
    assert code == 0, out
    assert "I'll list the files in the current directory." in out
    assert "#msg_01zs" in out  # the next message, with its own short id


def test_a_data_chunk_that_is_no_text_before_base64_chunks(tmp_path):
    """A real AgentScope Python stream whose first audio chunk of a tool result is a list:
    its line has the finding, and the chunks after it are still joined."""
    import base64

    real = (FIXTURES / "real/agentscope-py/runs/eight-tools-events.jsonl").read_text()
    lines = real.splitlines()
    first = orjson.loads(lines[50])
    assert first["type"] == "TOOL_RESULT_DATA_DELTA" and first["block_id"] == "audio1"
    lines[50] = _with(lines[50], f'"data": "{first["data"]}"', '"data": ["DEL\\bBS", 1]')
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {**os.environ, "NO_COLOR": "1"}
    run = subprocess.run([str(MSGCLI), "replay", str(log)], capture_output=True, env=env)
    said = run.stderr.decode("utf-8")
    assert "internal error" not in said, said
    assert f"{log}:51: error S001" in said
    later = [orjson.loads(lines[i])["data"] for i in (51, 52)]
    audio = [
        item["source"]["data"]
        for message in map(orjson.loads, run.stdout.splitlines())
        for block in message["content"]
        if block.get("type") == "tool_result"
        for item in block["output"]
        if type(item) is dict and item.get("id") == "audio1"
    ]
    assert audio and base64.b64decode(audio[0]) == b"".join(map(base64.b64decode, later))


def _msgcli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
    run = subprocess.run([str(MSGCLI), *args], capture_output=True, env=env, timeout=120)
    said = run.stderr.decode("utf-8")
    assert "internal error" not in said and "Traceback" not in said, (args, said)
    return run


def test_a_java_tool_result_whose_content_is_a_number(tmp_path):
    """A real AgentScope Java legacy event log whose TOOL_RESULT message holds a number where
    its content list belongs: one finding on its line, the rest is replayed."""
    lines = (FIXTURES / "real/agentscope-java/legacy-events.jsonl").read_text().splitlines()
    event = orjson.loads(lines[5])
    assert event["type"] == "TOOL_RESULT"
    event["message"]["content"] = 2**63 - 1
    lines[5] = orjson.dumps(event).decode()
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = _msgcli("validate", str(log))
    report = run.stdout.decode("utf-8")
    assert run.returncode == 1
    assert f"{log}:6: error S001" in report and "/message/content" in report
    assert "replayed 9 events into 3 messages" in report
    assert "messages  3" in _msgcli("stats", str(log)).stdout.decode("utf-8")


def test_a_stop_reason_nested_a_thousand_levels_in_a_provider_stream(tmp_path):
    """A real Anthropic stream whose message_delta's stop reason is an object 1,000 levels
    deep: stats counts it under a short form of it."""
    lines = (FIXTURES / "real/anthropic/events.jsonl").read_text().splitlines()
    deep = '{"a":' * 1000 + "1" + "}" * 1000
    lines[9] = _with(lines[9], '"stop_reason":"tool_use"', f'"stop_reason":{deep}')
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = _msgcli("stats", "--format", "json", str(log)).stdout.decode("utf-8")
    assert orjson.loads(out)
    # shown short: its first levels, then an ellipsis
    assert '"{\\"a\\":{\\"a\\":{\\"a\\":{\\"a\\":{\\"a\\":{\\"a\\":{\\"a\\":{\\"a\\"…": 1' in out


def test_a_claude_code_thinking_block_that_starts_as_an_object(tmp_path):
    """A real Claude Code stream whose thinking block starts with an object 1,000 levels deep
    where its text belongs: the thinking that streams after it is what the message holds."""
    path = FIXTURES / "real/claude-code/2.1.332/g04-thinking-partial/stream.jsonl"
    lines = path.read_text().splitlines()
    deep = '{"a":' * 1000 + "1" + "}" * 1000
    lines[3] = _with(lines[3], '"thinking":"","signature":""', f'"thinking":{deep},"signature":""')
    log = tmp_path / "stream.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = _msgcli("replay", str(log)).stdout.decode("utf-8")
    thinking = [
        block["thinking"]
        for record in map(orjson.loads, out.splitlines())
        for block in (record.get("message") or {}).get("content") or ()
        if type(block) is dict and block.get("type") == "thinking"
    ]
    assert "The user wants a listing; ls answers it." in thinking


def test_a_java_reply_chunk_whose_content_is_a_number(tmp_path):
    """A real AgentScope Java legacy event log whose third REASONING chunk holds a number
    where its content list belongs, and whose whole reply (the last chunk) never came: one
    finding on its line, the other chunks still make the reply."""
    lines = (FIXTURES / "real/agentscope-java/legacy-events.jsonl").read_text().splitlines()
    event = orjson.loads(lines[2])
    assert event["type"] == "REASONING" and event["isLast"] is False
    event["message"]["content"] = -1
    lines[2] = orjson.dumps(event).decode()
    assert orjson.loads(lines[4])["isLast"] is True
    del lines[4]  # the chunks are put together as the engine's accumulator does
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = _msgcli("validate", "--format", "github", str(log))
    assert run.returncode == 1
    assert f"file={log},line=3" in run.stdout.decode("utf-8")
    assert "Genf" in _msgcli("show", "--no-pager", str(log)).stdout.decode("utf-8")


def test_an_item_type_nested_a_thousand_levels_in_a_provider_conversation(tmp_path):
    """A real OpenAI Responses conversation whose function call's ``type`` is an object
    1,000 levels deep: convert keeps it as an unknown block, named short, and says so."""
    line = (FIXTURES / "real/openai-responses/conversations.jsonl").read_text().splitlines()[0]
    deep = '{"a":' * 1000 + "1" + "}" * 1000
    log = tmp_path / "conversations.jsonl"
    log.write_text(_with(line, '"type": "function_call"', f'"type": {deep}') + "\n")
    for target in ("loongflow", "agentscope-py", "agentscope-java"):
        run = _msgcli("convert", str(log), "--to", target)
        assert run.returncode in (0, 1)
        assert run.stdout.strip()  # the conversation is still written


def test_java_reply_chunks_and_results_whose_call_ids_are_objects(tmp_path):
    """A real AgentScope Java legacy event log, three times: once whose third REASONING chunk
    names its tool call by an object (and whose whole reply never came, so the chunks are put
    together), once whose TOOL_RESULT does while the call waits for it, once cut after the
    reply with a call, whose AGENT_RESULT repeats it with the call named by an object: an
    S001 on the line, and the rest is replayed."""
    lines = (FIXTURES / "real/agentscope-java/legacy-events.jsonl").read_text().splitlines()
    assert orjson.loads(lines[2])["message"]["content"][0]["type"] == "tool_use"
    assert orjson.loads(lines[5])["type"] == "TOOL_RESULT"
    chunk = list(lines)
    chunk[2] = _with(chunk[2], '"id":"call_L1"', '"id":{"k":1}')
    del chunk[4]  # the whole reply never came
    result = list(lines)
    result[5] = _with(result[5], '"id":"call_L1"', '"id":{"k":1}')
    reply, end = orjson.loads(lines[4]), orjson.loads(lines[8])
    assert reply["isLast"] is True and end["type"] == "AGENT_RESULT"
    end["message"] = reply["message"]
    paused = [*lines[:5], _with(orjson.dumps(end).decode(), '"id":"call_L1"', '"id":{"k":1}')]
    cases = [
        ("chunk", chunk, "3: error S001", "/message/content/0/id", 8, 3),
        ("result", result, "6: error S001", "/message/content/0/id", 9, 3),
        ("paused", paused, "6: error S001", "/message/content/2/id", 6, 1),
    ]
    for name, log_lines, finding, pointer, events, messages in cases:
        log = tmp_path / f"{name}.jsonl"
        log.write_text("\n".join(log_lines) + "\n", encoding="utf-8")
        run = _msgcli("validate", str(log))
        report = run.stdout.decode("utf-8")
        assert run.returncode == 1, report
        assert f"{log}:{finding}" in report and pointer in report, report
        assert f"replayed {events} events into {messages} message" in report, report
        shown = _msgcli("show", "--no-pager", str(log)).stdout.decode("utf-8")
        assert "Checking." in shown and "get_weather" in shown, shown
        if messages == 3:
            assert "Genf: 7 °C, light rain." in shown and "Genf: 7 °C." in shown, shown


def test_a_reply_end_whose_reason_nests_a_thousand_levels(tmp_path):
    """A real AgentScope Python event log of a run that failed mid-reply, whose REPLY_END's
    finished reason is a list 1,000 levels deep: the open blocks are a warning that names the
    reason short, and the reply is still replayed and shown."""
    path = FIXTURES / "real/agentscope-py/runs/error-401-events.jsonl"
    lines = path.read_text().splitlines()
    deep = "[" * 1000 + '"error"' + "]" * 1000
    lines[8] = _with(lines[8], '"finished_reason": "error"', f'"finished_reason": {deep}')
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = _msgcli("replay", str(log))
    said = run.stderr.decode("utf-8")
    assert f"{log}:9: warning E015 the reply ends ([[[[" in said and "still open" in said
    [message] = map(orjson.loads, run.stdout.splitlines())
    texts = [block.get("text") for block in message["content"] if block["type"] == "text"]
    assert texts == ["Let me "]
    assert "Look up the weather." in _msgcli("show", "--no-pager", str(log)).stdout.decode()
    assert "messages        1" in _msgcli("stats", str(log)).stdout.decode()


def test_a_claude_code_stream_whose_block_index_nests_a_thousand_levels(tmp_path):
    """A real Claude Code stream of partial messages whose first delta and first block stop
    name their block by a list 1,000 levels deep: each is an E002 on its line that names the
    block short, and the messages are still replayed."""
    path = FIXTURES / "real/claude-code/17-partial-messages/stream.jsonl"
    lines = path.read_text().splitlines()
    deep = "[" * 1000 + "1" + "]" * 1000
    assert '"content_block_delta"' in lines[5] and '"content_block_stop"' in lines[11]
    lines[5] = _with(lines[5], '"index":0,', f'"index":{deep},')
    lines[11] = _with(lines[11], '"index":0}', f'"index":{deep}}}')
    log = tmp_path / "stream.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = _msgcli("validate", str(log))
    report = run.stdout.decode("utf-8")
    assert run.returncode == 1, report
    assert f"{log}:6: error E002 a delta for block [[[[" in report
    assert f"{log}:12: error E002 content_block_stop for block [[[[" in report
    assert "into 3 messages" in report
    assert _msgcli("replay", str(log)).stdout.count(b"\n") == 3


def test_a_claude_code_stream_whose_usage_and_input_pieces_are_no_text(tmp_path):
    """A real Claude Code stream of partial messages whose first message_start holds a list
    where its usage object belongs, and whose first piece of a tool call's input is a list
    1,000 levels deep where its text belongs: the usage counts message_delta streams, the
    input is what the other pieces make."""
    path = FIXTURES / "real/claude-code/17-partial-messages/stream.jsonl"
    lines = path.read_text().splitlines()
    deep = "[" * 1000 + '"x"' + "]" * 1000
    lines[2] = _with(lines[2], '"usage":{"input_tokens":1757,', '"usage":[1],"was":{')
    lines[17] = _with(lines[17], '"partial_json":""', f'"partial_json":{deep}')
    log = tmp_path / "stream.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = _msgcli("replay", str(log))
    records = list(map(orjson.loads, run.stdout.splitlines()))
    calls = [
        block
        for record in records
        for block in record["message"]["content"]
        if block.get("type") == "tool_use"
    ]
    assert [call["input"]["command"] for call in calls] == ["cat notes.txt"]
    assert records[0]["message"]["usage"]["output_tokens"] == 171
    shown = _msgcli("show", "--no-pager", str(log)).stdout.decode("utf-8")
    assert "cat notes.txt" in shown and "Those are the three notes." in shown


def test_an_openai_responses_stream_with_numbers_where_its_lists_belong(tmp_path):
    """A real OpenAI Responses stream, three times: its reasoning item added with ``true``
    for its content, its completed response with ``true`` for its output, and with -1 for
    its reasoning summary: each a finding on the line where the schema has one, and both
    messages (the reasoning, the haiku) still shown and converted."""
    lines = (FIXTURES / "real/openai-responses/events.jsonl").read_text().splitlines()
    assert orjson.loads(lines[26])["type"] == "response.completed"
    added = list(lines)
    added[2] = _with(
        added[2], '"type":"reasoning","content":null', '"type":"reasoning","content":true'
    )
    output = orjson.loads(lines[26])
    output["response"]["output"] = True
    summary = orjson.loads(lines[26])
    summary["response"]["output"][0]["summary"] = -1
    cases = {
        "added": (added, None),
        "output": ([*lines[:26], orjson.dumps(output).decode()], "/response/output"),
        "summary": ([*lines[:26], orjson.dumps(summary).decode()], "/response/output/0/summary"),
    }
    for name, (log_lines, pointer) in cases.items():
        log = tmp_path / f"{name}.jsonl"
        log.write_text("\n".join(log_lines) + "\n", encoding="utf-8")
        report = _msgcli("validate", str(log)).stdout.decode("utf-8")
        if pointer is not None:
            assert f"{log}:27: error S001" in report and f"(at {pointer})" in report, report
        shown = _msgcli("show", "--no-pager", str(log)).stdout.decode("utf-8")
        assert "Lanterns of amber and rust" in shown, (name, shown)
        assert "The user wants a haiku about autumn." in shown, (name, shown)
        converted = _msgcli("convert", str(log), "--to", "loongflow", "-q").stdout
        assert len(converted.splitlines()) == 2, (name, converted)


def test_a_chat_completion_whose_choices_are_a_boolean(tmp_path):
    """The chat completion the OpenAI SDK built from a real stream, with ``true`` for its
    choices: an S001 on its line, where validate once failed."""
    final = orjson.loads(
        (FIXTURES / "provider-streams/openai-chat/text-then-tool/final.json").read_bytes()
    )
    assert final["object"] == "chat.completion" and type(final["choices"]) is list
    final["choices"] = True
    log = tmp_path / "completions.jsonl"
    log.write_bytes(orjson.dumps(final) + b"\n")
    run = _msgcli("validate", str(log))
    assert run.returncode == 1
    assert (
        f"{log}:1: error S001" in run.stdout.decode("utf-8")
        and "(at /choices)" in run.stdout.decode()
    )


def test_exports_of_a_replay_mark_that_holds_no_list_or_nests_deep(tmp_path):
    """A real AgentScope Python transcript whose user message carries a replay mark (what
    ``msgcli replay`` writes of an unfinished message) with a number for its open items, and
    whose next message carries one with a list 1,000 levels deep: the Markdown and HTML
    exports write every message, the marks named short."""
    lines = (FIXTURES / "real/agentscope-py/transcript.jsonl").read_text().splitlines()
    deep = "[" * 1000 + '"x"' + "]" * 1000
    lines[1] = _with(
        lines[1],
        '"metadata":{"channel"',
        '"metadata":{"msgcli_replay":{"state":"cut","open":5},"channel"',
    )
    lines[2] = _with(
        lines[2],
        '"metadata":{"session_id"',
        f'"metadata":{{"msgcli_replay":{{"state":"cut","open":[{deep}]}},"session_id"',
    )
    log = tmp_path / "transcript.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    markdown = _msgcli("show", "--export-markdown", "-", str(log)).stdout.decode("utf-8")
    html = tmp_path / "transcript.html"
    _msgcli("show", "--export-html", str(html), str(log))
    page = html.read_text(encoding="utf-8")
    for text in (markdown, page):
        assert "Please answer in English and 中文." in text
        assert text.count("incomplete: the stream stopped here") == 2
        assert "(open: [[[[" in text.replace("\\[", "[")
    assert markdown.count("\n---\n") >= 6  # every message of the log


def test_diff_of_a_message_whose_role_and_tool_name_nest_a_thousand_levels(tmp_path):
    """A real LoongFlow transcript whose assistant message has a list 1,000 levels deep for
    its role and an object as deep for the name of the tool it calls, compared with the
    clean transcript: the message is the one difference, in text and in JSON."""
    lines = list(REAL_LF)
    deep_list = "[" * 1000 + '"x"' + "]" * 1000
    deep_object = '{"a":' * 1000 + "1" + "}" * 1000
    lines[2] = _with(lines[2], '"role": "assistant"', f'"role": {deep_list}')
    lines[2] = _with(lines[2], '"target": "get_weather"', f'"target": {deep_object}')
    log = tmp_path / "transcript.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    clean = str(FIXTURES / "real/loongflow/transcript.jsonl")
    run = _msgcli("diff", clean, str(log))
    assert run.returncode == 1
    shown = run.stdout.decode("utf-8")
    assert "I should call get_weather." in shown and "2 same steps" in shown
    report = orjson.loads(_msgcli("diff", "--format", "json", clean, str(log)).stdout)
    lines_b = {d["b"]["line"] for d in report["differences"] if d.get("b")}
    assert lines_b == {3}, report["differences"]


def test_diff_of_a_message_without_a_role_and_of_arguments_nested_deep(tmp_path):
    """A real LoongFlow transcript whose assistant message has ``null`` for its role, and a
    real Anthropic conversation whose second call's city is a list 1,000 levels deep, each
    compared with the clean log (the second also with --ignore-path): the message (the
    argument) is what differs."""
    lines = list(REAL_LF)
    lines[2] = _with(lines[2], '"role": "assistant"', '"role": null')
    no_role = tmp_path / "transcript.jsonl"
    no_role.write_text("\n".join(lines) + "\n", encoding="utf-8")
    clean = str(FIXTURES / "real/loongflow/transcript.jsonl")
    report = orjson.loads(_msgcli("diff", "--format", "json", clean, str(no_role)).stdout)
    assert [(d["kind"], d["b"]["line"]) for d in report["differences"]] == [
        ("removed", 3),
        ("added", 3),
    ]
    assert "I should call get_weather." in _msgcli("diff", clean, str(no_role)).stdout.decode()

    source = FIXTURES / "real/anthropic/conversations.jsonl"
    lines = source.read_text().splitlines()
    deep = "[" * 1000 + '"x"' + "]" * 1000
    lines[0] = _with(lines[0], '"input": {"city": "Rome"}', f'"input": {{"city": {deep}}}')
    nested = tmp_path / "conversations.jsonl"
    nested.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = _msgcli("diff", "--format", "json", str(source), str(nested))
    assert run.returncode == 1
    pointers = [d["b"]["pointer"] for d in orjson.loads(run.stdout)["differences"]]
    assert pointers and all(p.startswith("/messages/1/content/1/input/city") for p in pointers)
    shown = _msgcli("diff", str(source), str(nested)).stdout.decode("utf-8")
    assert "/content/1/arguments/city" in shown
    # what --ignore-path leaves out is looked for at every depth of the value
    run = _msgcli("diff", "--stat", "--ignore-path", "/content/*/id", str(source), str(nested))
    assert run.returncode == 1 and "1 changed" in run.stdout.decode("utf-8")


def test_redact_a_value_nested_a_thousand_levels(tmp_path):
    """A real Anthropic conversation whose second tool call has an API key beside a city
    that is a list 1,000 levels deep holding it again, shown and exported with --redact: the
    conversation is shown, the key masked."""
    source = FIXTURES / "real/anthropic/conversations.jsonl"
    lines = source.read_text().splitlines()
    key = "sk-proj-" + "Ab1" * 10
    deep = "[" * 1000 + f'"{key}"' + "]" * 1000
    new = f'"input": {{"token": "{key}", "city": {deep}}}'
    lines[0] = _with(lines[0], '"input": {"city": "Rome"}', new)
    log = tmp_path / "conversations.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    shown = _msgcli("show", "--no-pager", "--redact", str(log))
    assert shown.returncode == 0
    assert "Compare the weather in Paris and Rome" in shown.stdout.decode("utf-8")
    markdown = _msgcli("show", "--redact", "--export-markdown", "-", str(log)).stdout.decode()
    assert "Compare the weather in Paris and Rome" in markdown
    assert key not in markdown
    assert key in _msgcli("show", "--export-markdown", "-", str(log)).stdout.decode()


def test_diff_of_a_long_repeated_text_that_differs_in_one_word(tmp_path):
    """A real AgentScope Python event log whose reply streams a text of 100 KB (a sentence
    said over and over), with one word of it changed, compared with the clean log: the word
    is marked in seconds, not minutes (matching every word of such texts against every other
    took minutes of CPU)."""
    import resource

    source = FIXTURES / "real/agentscope-py/runs/unicode-events.jsonl"
    lines = source.read_text(encoding="utf-8").split("\n")  # (its text holds U+2028)
    assert len(lines[7]) > 100_000 and lines[7].count("A 100 KB answer.") > 5_000
    middle = len(lines[7]) // 2
    at = lines[7].index("A 100 KB answer.", middle)
    lines[7] = lines[7][:at] + "B" + lines[7][at + 1 :]
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(lines), encoding="utf-8")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    run = _msgcli("diff", str(source), str(log))
    spent = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    shown = run.stdout.decode("utf-8")
    assert run.returncode == 1
    assert "[-A-] 100 KB answer." in shown and "{+B+} 100 KB answer." in shown
    assert spent < 10, spent
    said = _msgcli("diff", "--format", "github", str(source), str(log)).stdout.decode()
    assert "/content/2/text changed: …100 KB answer. [-A-]{+B+} 100 KB answer. …" in said


def test_diff_shows_a_message_whose_id_nests_a_thousand_levels(tmp_path):
    """A real AgentScope Java transcript whose first message's id is an object 1,000 levels
    deep, compared with the clean transcript, ids included: the message is shown (its header
    names the id short) with the id as what changed."""
    lines = list(REAL_JAVA)
    deep = '{"a":' * 1000 + "1" + "}" * 1000
    lines[0] = _with(lines[0], '"id":"bea6fd0d-d4b1-40c7-85f3-530abb702fae"', f'"id":{deep}')
    log = tmp_path / "transcript.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    clean = str(FIXTURES / "real/agentscope-java/transcript.jsonl")
    run = _msgcli("diff", "--compare", "ids", clean, str(log))
    assert run.returncode == 1
    shown = run.stdout.decode("utf-8")
    assert "USER  user" in shown and '"bea6fd0d-d4b1-40c7-85f3-530abb702fae"' in shown
    assert "1 changed" in shown.splitlines()[-1]


def test_sql_csv_of_a_text_with_a_carriage_return(tmp_path):
    """A real AgentScope Java transcript whose user text holds a lone carriage return: the
    CSV of sql reads back as written, one row a message, the text whole."""
    import csv
    import io

    lines = list(REAL_JAVA)
    lines[0] = _with(lines[0], "What's the weather in Zürich?", "What's the\\rweather in Zürich?")
    log = tmp_path / "transcript.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    statement = "SELECT line, text FROM messages ORDER BY line"
    run = _msgcli("sql", "--format", "csv", statement, str(log))
    rows = list(csv.reader(io.StringIO(run.stdout.decode("utf-8"), newline="")))
    assert rows[0] == ["line", "text"] and all(len(row) == 2 for row in rows)
    assert rows[1][0] == "1" and rows[1][1].startswith("What's the\rweather in Zürich?")
    assert len(rows) == 1 + len(REAL_JAVA)


def test_a_message_without_a_role_and_a_call_without_a_name_say_so(tmp_path):
    """A real LoongFlow transcript whose assistant message has ``null`` for its role and
    calls a tool named ``""``: diff labels the message ``? reasoner`` (as its text view heads
    it), and show, the Markdown and the HTML export head the call ``(no name)`` where the
    name would be (the Markdown once wrote an empty code span, two bare backticks)."""
    lines = list(REAL_LF)
    lines[2] = _with(lines[2], '"role": "assistant"', '"role": null')
    lines[2] = _with(lines[2], '"target": "get_weather"', '"target": ""')
    log = tmp_path / "transcript.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    clean = str(FIXTURES / "real/loongflow/transcript.jsonl")
    report = orjson.loads(_msgcli("diff", "--format", "json", clean, str(log)).stdout)
    assert [d["what"] for d in report["differences"]] == ["assistant reasoner", "? reasoner"]

    shown = _msgcli("show", "--no-pager", str(log)).stdout.decode("utf-8")
    assert "→ (no name)" in shown
    markdown = _msgcli("show", "--export-markdown", "-", str(log)).stdout.decode("utf-8")
    assert "**→** *(no name)*" in markdown and "``" not in markdown.replace("```", "")
    page = tmp_path / "transcript.html"
    _msgcli("show", "--export-html", str(page), str(log))
    assert '→ <span class="tool"><em>(no name)</em></span>' in page.read_text(encoding="utf-8")


def test_show_a_subagent_call_whose_prompt_is_an_object(tmp_path):
    """A real Claude Code session that ran a subagent, whose Agent call has an object where
    its prompt belongs: shown whole, with the subagent nested under the call where its meta
    file names the call's id, and without it (the prompt matched nothing) where it does not."""
    import shutil

    project = FIXTURES / "real/claude-code/2.1.332/g05-subagent/projects"
    [folder] = project.iterdir()
    prompt = '"prompt":"[gen-sub] Count the lines of README.md with wc -l and reply with the'
    for meta in (True, False):
        copy = tmp_path / ("meta" if meta else "no-meta")
        shutil.copytree(folder, copy)
        [session] = copy.glob("*.jsonl")
        lines = session.read_text(encoding="utf-8").splitlines()
        [at] = [i for i, line in enumerate(lines) if prompt in line and '"tool_use"' in line]
        lines[at] = re.sub(r'"prompt":"[^"]*"', '"prompt":{"k":"\\\\u001b[31m"}', lines[at])
        session.write_text("\n".join(lines) + "\n", encoding="utf-8")
        if not meta:
            [meta_file] = copy.glob("*/subagents/*.meta.json")
            meta_file.unlink()
        for args in (["show", "--no-pager"], ["show", "--export-markdown", "-"]):
            shown = _msgcli(*args, str(session)).stdout.decode("utf-8")
            assert "\x1b" not in shown
            assert shown.count("README.md has 3 lines.") == 2, (meta, args)
            assert ("3 README.md" in shown) is meta, (meta, args)


def test_diff_as_json_of_a_log_of_no_known_dialect_says_so_on_standard_error(tmp_path):
    """An event of a real AgentScope Java event log whose type is a list, whose time and
    the first letter of its reply id's key are cut out and whose tool call id is an object
    (no message of a known dialect is left), compared as JSON with the clean event: exit 2,
    one line on standard error, nothing on standard output, which the harness's run through
    the command line takes as the command's answer."""
    lines = (FIXTURES / "events/agentscope-java/parallel-tools.jsonl").read_text().splitlines()
    [end] = [line for line in lines if '"TOOL_CALL_END","id":"ff0fac34' in line]
    clean = tmp_path / "clean.jsonl"
    clean.write_text(end + "\n", encoding="utf-8")
    broken = _with(end, '{"type":"TOOL_CALL_END"', '{"type":[]')
    broken = _with(broken, '"createdAt":"2026-08-23T01:02:14.254947Z","r', '"')
    broken = _with(broken, '"toolCallId":"call_l6fHyRi7RwY8pjnX6wPovojZ"', '"toolCallId":{}')
    log = tmp_path / "events.jsonl"
    log.write_text(broken.replace(',"type":"TOOL_CALL_END"}', "}") + "\n", encoding="utf-8")
    run = _msgcli("diff", "--format", "json", str(clean), str(log))
    assert run.returncode == 2 and run.stdout == b""
    said = run.stderr.decode("utf-8")
    assert said == f"msgcli: {log}: no message of a known dialect: not a message or event log\n"
    assert run_cli("diff --format json", log, clean) == []


def test_validate_a_subagent_meta_file_whose_agent_call_is_named_by_an_object(tmp_path):
    """A real Claude Code session that ran a subagent, whose Agent call has an object where
    the tool's name belongs: the subagent's meta file, validated alone or with the session's
    folder, is a K014 on its toolUseId (no Agent call of the session has that id), where the
    clean session gives none."""
    import shutil

    [folder] = (FIXTURES / "real/claude-code/2.1.332/g05-subagent/projects").iterdir()
    for broken in (False, True):
        copy = tmp_path / ("broken" if broken else "clean")
        shutil.copytree(folder, copy)
        [session] = copy.glob("*.jsonl")
        [meta] = copy.glob("*/subagents/*.meta.json")
        if broken:
            lines = session.read_text(encoding="utf-8").splitlines()
            call = '"id":"toolu_0112e483a8636b4184b3e867","name":"Agent"'
            [at] = [i for i, line in enumerate(lines) if call in line]
            lines[at] = _with(lines[at], call, call.replace('"Agent"', '{"k":1}'))
            session.write_text("\n".join(lines) + "\n", encoding="utf-8")
        for target in (meta, copy):
            run = _msgcli("validate", str(target))
            report = run.stdout.decode("utf-8")
            finding = f"{meta}:1: error K014 the parent session"
            assert (finding in report) is broken, report
            assert run.returncode == (1 if broken else 0), report
            if broken:
                assert "(at /toolUseId)" in report


def test_a_reasoning_summary_done_after_its_item_whose_part_is_text(tmp_path):
    """A real OpenAI Responses stream whose last three events of its reasoning item come in
    reverse (the item done first, its summary's last part a string with an escape where an
    object belongs, then the part's done events): an E018 on the text's done event, whose
    text the part then holds; the response is replayed and shown, without the escape."""
    lines = (FIXTURES / "real/openai-responses/events.jsonl").read_text().splitlines()
    kinds = [orjson.loads(line)["type"] for line in lines[15:18]]
    assert kinds == [
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.output_item.done",
    ]
    item = orjson.loads(lines[17])
    item["item"]["summary"][1] = "\x1b[2J5-7-5"
    lines[15:18] = [orjson.dumps(item).decode(), lines[16], lines[15]]
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = _msgcli("validate", str(log)).stdout.decode("utf-8")
    assert f"{log}:18: error E018 the summary text of output item 0 streamed as" in report
    assert "into 1 message" in report, report
    [response] = map(orjson.loads, _msgcli("replay", str(log)).stdout.splitlines())
    [reasoning] = [item for item in response["output"] if item["type"] == "reasoning"]
    assert reasoning["summary"][1] == {
        "type": "summary_text",
        "text": "**Checking**\n\n5-7-5 syllables.",
    }
    assert "messages" in _msgcli("stats", str(log)).stdout.decode("utf-8")
    shown = _msgcli("show", "--no-pager", "--thinking", "full", str(log)).stdout.decode()
    assert "Lanterns of amber and rust" in shown and "\x1b" not in shown


def test_a_message_whose_role_is_a_list_read_as_the_dialect_named(tmp_path):
    """The messages of a real OpenAI Chat conversation, one a line, the user's role a list,
    read with --dialect openai-chat: show says on the line that the record is no message
    of that dialect and shows the others, the other commands read it too (checking whether
    the record is a plain message failed with an internal error)."""
    conversation = (FIXTURES / "real/openai-chat/conversations.jsonl").read_text()
    messages = orjson.loads(conversation.splitlines()[0])["messages"]
    assert messages[1] == {"role": "user", "content": messages[1]["content"]}
    messages[1]["role"] = ["user"]
    log = tmp_path / "messages.jsonl"
    log.write_bytes(b"".join(orjson.dumps(m) + b"\n" for m in messages))
    forced = ("--dialect", "openai-chat")
    shown = _msgcli("show", "--no-pager", *forced, str(log)).stdout.decode("utf-8")
    no_message = "this record is no OpenAI Chat Completions message or event"
    assert f"line 2: D001 {no_message} (--dialect openai-chat)" in shown
    assert "You are a concise travel assistant." in shown and "get_weather" in shown
    report = _msgcli("validate", *forced, str(log)).stdout.decode("utf-8")
    assert f"{log}:2: error" in report and f"{len(messages)} records" in report
    for args in (["stats"], ["replay"], ["convert", "--to", "loongflow"], ["query", "--errors"]):
        _msgcli(*args, *forced, str(log))


def test_an_atif_tool_call_nested_a_thousand_levels(tmp_path, run_cli):
    """A real ATIF trajectory whose first tool call is an object nested 1,000 levels deep:
    the format's models reject it on its step, the rest is still checked (the copy of the
    document the check makes without its unknown fields went as deep as the value does)."""
    path = FIXTURES / "real/atif/atif-make/04-write-edit-read/trajectory.json"
    document = orjson.loads(path.read_bytes())
    step = next(s for s in document["steps"] if s.get("tool_calls"))
    step["tool_calls"][0] = "DEEP"
    step["unknown_to_atif"] = 1  # (an unknown field: the check copies the document)
    deep = '{"a":' * 999 + "{}" + "}" * 999
    text = orjson.dumps(document, option=orjson.OPT_INDENT_2).decode().replace('"DEEP"', deep)
    log = tmp_path / "trajectory.json"
    log.write_text(text, encoding="utf-8")
    code, out = run_cli("validate", str(log))
    assert code == 1, out
    assert "A001" in out and "internal error" not in out


def test_a_gemini_cli_message_whose_type_is_a_list(tmp_path, run_cli):
    """A real Gemini CLI session whose first message, as its ``$set`` patch rewrites the
    history, has a list for its type: show and its exports say what they can (the type is
    no role to look up among the conversation's)."""
    source = next((FIXTURES / "real/gemini-cli/08-resume/after-run1").rglob("session-*.jsonl"))
    lines = source.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith('{"$set":{"messages":'))
    lines[at] = lines[at].replace('"type":"user"', '"type":["user"]', 1)
    log = tmp_path / "session.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out = run_cli("show", "--no-pager", str(log))
    assert code == 0, out
    assert "internal error" not in out
    code, out = run_cli("show", str(log), "--export-html", str(tmp_path / "page.html"))
    assert code == 0, out
