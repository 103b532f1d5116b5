"""Every command, run on one input, and what must hold of what it gives.

A command here is a name (``validate``, ``show-full``, ``convert-loongflow`` …) and a
function that runs it on a file through the library, returning what a user would see:
the text printed (text renderers) or the lines written (replay, convert, format). The
same command can be run through the command line (:func:`run_cli`), in this process.

:func:`check` runs one and returns the failures: an exception that escaped, an internal
error exit, a control character in printed text, output that is not JSONL, text that
cannot be written as UTF-8, or a run slower than :data:`BOUND` seconds of CPU.
"""

from __future__ import annotations

import io
import re
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timezone
from pathlib import Path

import orjson

#: CPU seconds one command may take on one (small) mutated input
BOUND = 3.0

#: what must never reach a terminal: C0 controls but newline and tab, DEL, C1 controls,
#: bidirectional controls
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")

DIALECTS = ("agentscope-java", "agentscope-py", "loongflow")
PROVIDERS = ("openai", "dashscope", "anthropic")


@dataclass
class Output:
    text: str = ""  # what a text renderer printed
    jsonl: list[bytes] | None = None  # lines that must each be one JSON object
    document: bytes | None = None  # one JSON document (format)


def _validate(path: Path, fmt: str = "text", jobs: int = 1) -> Output:
    import msgcli
    from msgcli.report import get_reporter

    run = msgcli.validate(str(path), jobs=jobs)
    out = io.StringIO()
    get_reporter(fmt)(run, out, verbose=True, color=False)
    return Output(out.getvalue())


def _replay(path: Path) -> Output:
    import msgcli
    from msgcli.writer import dumps

    result = msgcli.replay(str(path))
    return Output(jsonl=[dumps(message) for message in result.messages])


def _show(path: Path, full: bool = False) -> Output:
    from msgcli.render.thread import ShowOptions
    from msgcli.render.view import View, console_for

    out = io.StringIO()
    console = console_for(out, colour=False, width=100)
    options = (
        ShowOptions(thinking="full", markdown=True, metadata=True)
        if full
        else ShowOptions(thinking="fold")
    )
    View(console, options).run([str(path)], None)
    return Output(out.getvalue())


def _stats(path: Path) -> Output:
    from msgcli.stats import collect_stats

    report = collect_stats([str(path)])
    return Output(document=orjson.dumps(report.to_dict()))


def _convert(path: Path, to: str) -> Output:
    import msgcli
    from msgcli.writer import dumps

    result = msgcli.convert(str(path), to, zone=timezone.utc)
    return Output(jsonl=[dumps(record) for record in result.records])


def _format(path: Path, provider: str) -> Output:
    from msgcli.formatters import DIALECTS as FORMATTED
    from msgcli.formatters import format_request
    from msgcli.reader import ReadError
    from msgcli.stream import LogReader

    reader = LogReader(str(path))
    messages, lines = [], []
    try:
        for item in reader.items(str(path)):
            if item.message is not None:
                messages.append(item.message)
                lines.append(item.line)
    except ReadError:
        return Output()
    if reader.dialect is None or reader.dialect.name not in FORMATTED:
        return Output()  # no formatter follows this dialect: the command says so (exit 2)
    result = format_request(messages, reader.dialect.name, provider, None, lines)
    # (the notes are printed by the command line, which the sample through it checks)
    return Output(document=orjson.dumps(result.request, option=orjson.OPT_INDENT_2))


#: name -> (library run, command-line arguments before the path)
COMMANDS: dict[str, tuple[Callable[[Path], Output], list[str]]] = {
    "validate": (_validate, ["validate", "-v"]),
    "validate -j 2": (lambda p: _validate(p, jobs=2), ["validate", "-j", "2"]),
    "validate --format github": (
        lambda p: _validate(p, "github"),
        ["validate", "--format", "github"],
    ),
    "replay": (_replay, ["replay"]),
    "show": (_show, ["show", "--no-pager"]),
    "show --metadata --markdown --thinking full": (
        lambda p: _show(p, full=True),
        ["show", "--no-pager", "--metadata", "--markdown", "--thinking", "full"],
    ),
    "stats": (_stats, ["stats"]),
}
for _to in DIALECTS:
    COMMANDS[f"convert --to {_to}"] = (
        lambda p, _to=_to: _convert(p, _to),
        ["convert", "--to", _to, "--zone", "UTC", "-q"],
    )
for _provider in PROVIDERS:
    COMMANDS[f"format --provider {_provider}"] = (
        lambda p, _provider=_provider: _format(p, _provider),
        ["format", "--provider", _provider],
    )

#: the commands whose standard output is JSONL
JSONL_COMMANDS = ("replay", "convert")


def unsafe_text(text: str) -> str | None:
    """Why ``text`` may not reach a terminal, or None."""
    match = UNSAFE.search(text)
    if match:
        return f"control character {match.group()!r} in printed text"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"text that is not UTF-8 ({exc.reason}: {text[exc.start : exc.end]!r})"
    return None


def bad_jsonl(lines: list[bytes]) -> str | None:
    for line in lines:
        if b"\n" in line:
            return "a record written over several lines"
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            return f"a line that is not JSON: {exc}"
        if type(value) is not dict:
            return "a line that is not a JSON object"
    return None


def _where(exc: BaseException) -> str:
    """The innermost frame in msgcli of an exception, as ``module.py:line``."""
    frames = traceback.extract_tb(exc.__traceback__)
    inside = [f for f in frames if "/msgcli/" in f.filename] or frames
    last = inside[-1] if inside else None
    return f"{Path(last.filename).name}:{last.lineno}" if last else "?"


def check(command: str, path: Path) -> list[str]:
    """Failures of ``command`` on the file ``path`` through the library."""
    run, _ = COMMANDS[command]
    start = time.process_time()
    try:
        out = run(path)
    except Exception as exc:
        return [f"{type(exc).__name__} at {_where(exc)}: {str(exc)[:80]}"]
    failures = []
    spent = time.process_time() - start
    if spent > BOUND:
        failures.append(f"slow: {spent:.1f} s of CPU")
    why = unsafe_text(out.text)
    if why:
        failures.append(why)
    if out.jsonl is not None:
        why = bad_jsonl(out.jsonl)
        if why:
            failures.append(why)
    if out.document is not None:
        try:
            orjson.loads(out.document)
        except orjson.JSONDecodeError as exc:
            failures.append(f"output that is not JSON: {exc}")
    return failures


_RUNNER = None


def run_cli(command: str, path: Path) -> list[str]:
    """Failures of ``command`` on ``path`` through the command line (in this process)."""
    global _RUNNER
    from typer.testing import CliRunner

    from msgcli.cli import app

    if _RUNNER is None:
        _RUNNER = CliRunner()
    _, args = COMMANDS[command]
    start = time.process_time()
    result = _RUNNER.invoke(app, [*args, str(path)], env={"NO_COLOR": "1", "COLUMNS": "100"})
    spent = time.process_time() - start
    failures = []
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        exc = result.exception
        failures.append(f"CLI {type(exc).__name__} at {_where(exc)}: {str(exc)[:80]}")
    elif "internal error" in result.stderr:
        failures.append(f"CLI exit {result.exit_code}: {result.stderr.strip()[:120]}")
    if spent > BOUND:
        failures.append(f"CLI slow: {spent:.1f} s of CPU")
    why = unsafe_text(result.stderr)
    if why:
        failures.append(f"CLI standard error: {why}")
    stdout = result.stdout_bytes
    if command.startswith(JSONL_COMMANDS):
        why = bad_jsonl([line for line in stdout.split(b"\n") if line])
    elif command.startswith("format") or (command == "stats" and stdout[:1] == b"{"):
        why = None
    else:
        try:
            why = unsafe_text(stdout.decode("utf-8"))
        except UnicodeDecodeError:
            why = "standard output that is not UTF-8"
    if why:
        failures.append(f"CLI standard output: {why}")
    return failures
