"""Hostile logs never crash msgcli, never reach the terminal raw, and never lose data.

The harness is ``tests/fuzz`` (``make fuzz`` runs 100,000 mutations of the real logs
through every command); here a seeded slice of it runs in the suite, hypothesis drives the
same mutator, and each kind of input the harness once broke msgcli with is kept as a test
of its own, run through the installed ``msgcli`` script as a user runs it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from conftest import FIXTURES, examples
from fuzz.drive import COMMANDS, UNSAFE, check
from fuzz.mutate import inputs, seeds
from fuzz.run import fuzz, round_trips
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

MSGCLI = Path(sys.executable).with_name("msgcli")


@pytest.mark.slow  # up to a minute of CPU: make test-all and CI run it, make test does not
def test_a_seeded_slice_of_the_fuzzer_finds_nothing():
    started = time.process_time()  # (the time it costs, whatever else the machine runs)
    tally = fuzz(1300, seed="make-test", cli_every=26)
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
    assert check(command, path) == []


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
