"""Every command, run on one input, and what must hold of what it gives.

A command here is a name (``validate``, ``show --export-html``, ``convert --to loongflow``
…) and a function that runs it on a file through the library, returning what a user would
see: the text printed (text renderers), the lines written (replay, convert, query), the
document (format, stats, diff as JSON), the files written (exports, the pages of view,
tables), read back with their format's reader. The same command can be run through the
command line (:func:`run_cli`), in this process. Whatever a command writes goes to a
fresh temporary directory, never over the input; ``diff`` compares the input with the
clean log it was made from (the ``clean`` argument).

:func:`check` runs one and returns the failures: an exception that escaped, an internal
error exit, a control character in printed text, output that is not JSONL or JSON, text
that cannot be written as UTF-8, an HTML page where the log's text is live markup (a
script, an event handler, a tag that loads or embeds), Markdown with a raw tag from the
log, a table file its format's reader cannot read whole, an input changed by the run,
or a run slower than :data:`BOUND` seconds of CPU.
"""

from __future__ import annotations

import io
import re
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC
from html.parser import HTMLParser
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
    pages: list[str] = field(default_factory=list)  # HTML pages written
    markdown: str | None = None  # a Markdown export
    problems: list[str] = field(default_factory=list)  # what reading the files back found


@dataclass
class Case:
    """What a run may use beside its input: the clean log it was made from (``diff``
    compares with it) and an empty directory of its own to write in."""

    clean: Path
    tmp: Path


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


def _show(path: Path, full: bool = False, redact: bool = False) -> Output:
    from msgcli.render.thread import ShowOptions
    from msgcli.render.view import View, console_for

    out = io.StringIO()
    console = console_for(out, colour=False, width=100)
    options = (
        ShowOptions(thinking="full", markdown=True, metadata=True)
        if full
        else ShowOptions(thinking="fold")
    )
    View(console, options, redact=redact).run([str(path)], None)
    return Output(out.getvalue())


def _stats(path: Path) -> Output:
    from msgcli.stats import collect_stats

    report = collect_stats([str(path)])
    return Output(document=orjson.dumps(report.to_dict()))


def _convert(path: Path, to: str) -> Output:
    import msgcli
    from msgcli.writer import dumps

    result = msgcli.convert(str(path), to, zone=UTC)
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


def _export_page(path: Path, case: Case, findings: bool = False) -> Output:
    """``show --export-html`` (and, with validate's findings, a page of ``view``)."""
    from msgcli.render.export import findings_by_line, write_html
    from msgcli.render.html import HtmlOptions

    target = case.tmp / "page.html"
    options = HtmlOptions(
        title=str(path), findings=findings_by_line([str(path)], None) if findings else None
    )
    with open(target, "w", encoding="utf-8", errors="replace") as out:
        write_html([str(path)], out, options)
    return Output(pages=[target.read_text(encoding="utf-8")])


def _export_markdown(path: Path, case: Case) -> Output:
    from msgcli.render.export import write_markdown

    out = io.StringIO()
    write_markdown([str(path)], out)
    return Output(markdown=out.getvalue())


def _diff(path: Path, case: Case, fmt: str = "text", ignore: tuple[str, ...] = ()) -> Output:
    from msgcli.compare import DiffError, diff

    try:
        result = diff(str(case.clean), str(path), ignore_paths=ignore)
    except DiffError:
        return Output()  # a log that cannot be read: the command says so (exit 2)
    if fmt == "json":  # (as the command writes it)
        from msgcli.guard import json_text

        try:
            return Output(document=orjson.dumps(result.as_dict(), default=str))
        except TypeError:  # nested past orjson's 255 levels
            return Output(document=json_text(result.as_dict()).encode())
    from msgcli.render.diff import print_diff
    from msgcli.render.view import console_for

    out = io.StringIO()
    print_diff(console_for(out, colour=False, width=100), result, marks=True)
    return Output(out.getvalue())


def _query(path: Path, neutral: bool = False, **filters) -> Output:
    import msgcli
    from msgcli.filters import neutral as to_neutral
    from msgcli.writer import dumps

    lines = []
    for match in msgcli.query(str(path), **filters):
        if neutral:
            lines.append(dumps(to_neutral(match.message, match.dialect, match.path, match.line)))
            continue
        raw = match.raw
        if raw is not None and match.dialect is not None:
            raw = match.dialect.record_out(raw)
        lines.append(dumps(raw))
    return Output(jsonl=lines)


#: a --where expression that looks into every block and its values
WHERE = "content[?type=='tool_call'].arguments || text"


def _export_tables(path: Path, case: Case, suffix: str) -> Output:
    import msgcli

    target = case.tmp / f"tables{suffix}"
    counts = msgcli.export(str(path), target)
    return Output(problems=read_tables(target, counts.rows))


#: what ``diff --ignore-path`` leaves out: fields inside blocks, at every depth of a value
IGNORED = ("/content/*/id", "/content/*/arguments/*/x*")

#: statements over the tables ``msgcli sql`` makes, and how the command prints their rows:
#: between them every value of every table
SQL = {
    # (a table of whole texts takes rich seconds to lay out: the first 300 characters)
    "sql": ("SELECT * REPLACE (left(text, 300) AS text) FROM blocks", "table"),
    "sql --format csv": ("SELECT * FROM messages", "csv"),
    "sql --format json": (
        "SELECT 'tool_calls' AS t, to_json(c) AS row FROM tool_calls c "
        "UNION ALL SELECT 'findings', to_json(f) FROM findings f "
        "UNION ALL SELECT 'messages', to_json(m) FROM messages m",
        "json",
    ),
}


def _sql(path: Path, name: str) -> Output:
    import msgcli
    from msgcli.textsafe import visible

    statement, _ = SQL[name]
    columns, rows = msgcli.sql(statement, str(path))
    # printed as the command prints a table: every value made visible
    text = "\n".join(" | ".join(visible(str(v)) for v in row) for row in rows)
    return Output(" | ".join(columns) + "\n" + text)


def read_tables(target: Path, counts: dict | None = None) -> list[str]:
    """What is wrong with the tables written at ``target``, read back whole with the reader
    of its format (every row and value): a table missing, unreadable, with another number
    of rows than the export counted, or text that is not UTF-8."""
    tables = ("messages", "blocks", "tool_calls", "findings")
    found: dict[str, list[tuple]] = {}
    try:
        if target.suffix == ".sqlite":
            import sqlite3

            db = sqlite3.connect(f"file:{target}?mode=ro", uri=True)
            try:
                for table in tables:
                    found[table] = db.execute(f'SELECT * FROM "{table}"').fetchall()
            finally:
                db.close()
        elif target.suffix == ".duckdb":
            import duckdb

            ddb = duckdb.connect(str(target), read_only=True)
            try:
                for table in tables:
                    found[table] = ddb.execute(f'SELECT * FROM "{table}"').fetchall()
            finally:
                ddb.close()
        else:
            import pyarrow.parquet as pq

            for table in tables:
                found[table] = [
                    tuple(row.values())
                    for row in pq.read_table(target / f"{table}.parquet").to_pylist()
                ]
    except Exception as exc:
        return [f"{target.suffix} tables unreadable: {type(exc).__name__}: {str(exc)[:80]}"]
    problems = []
    for table, rows in found.items():
        if counts is not None and counts.get(table, 0) != len(rows):
            problems.append(f"{table}: {len(rows)} rows read, {counts.get(table)} written")
        for row in rows:
            for value in row:
                if isinstance(value, str):
                    try:
                        value.encode("utf-8")
                    except UnicodeEncodeError:
                        problems.append(f"{table}: a value that is not UTF-8")
                        break
    return problems


def _lib(run: Callable[[Path], Output]) -> Callable[[Path, Case], Output]:
    return lambda path, case: run(path)


#: name -> (library run, command-line arguments before the path); in the arguments,
#: ``{out}`` is a path in the run's own directory, ``{clean}`` the clean log
COMMANDS: dict[str, tuple[Callable[[Path, Case], Output], list[str]]] = {
    "validate": (_lib(_validate), ["validate", "-v"]),
    "validate -j 2": (_lib(lambda p: _validate(p, jobs=2)), ["validate", "-j", "2"]),
    "validate --format github": (
        _lib(lambda p: _validate(p, "github")),
        ["validate", "--format", "github"],
    ),
    "replay": (_lib(_replay), ["replay"]),
    "show": (_lib(_show), ["show", "--no-pager"]),
    "show --metadata --markdown --thinking full": (
        _lib(lambda p: _show(p, full=True)),
        ["show", "--no-pager", "--metadata", "--markdown", "--thinking", "full"],
    ),
    "stats": (_lib(_stats), ["stats"]),
}
for _to in DIALECTS:
    COMMANDS[f"convert --to {_to}"] = (
        _lib(lambda p, _to=_to: _convert(p, _to)),
        ["convert", "--to", _to, "--zone", "UTC", "-q"],
    )
for _provider in PROVIDERS:
    COMMANDS[f"format --provider {_provider}"] = (
        _lib(lambda p, _provider=_provider: _format(p, _provider)),
        ["format", "--provider", _provider],
    )
COMMANDS.update(
    {
        "show --export-markdown": (_export_markdown, ["show", "--export-markdown", "{out}.md"]),
        "show --export-html": (_export_page, ["show", "--export-html", "{out}.html"]),
        "view --findings": (
            lambda p, c: _export_page(p, c, findings=True),
            ["view", "--findings", "-o", "{out}"],
        ),
        "diff": (_diff, ["diff", "{clean}"]),
        "diff --format json": (
            lambda p, c: _diff(p, c, "json"),
            ["diff", "--format", "json", "{clean}"],
        ),
        "diff --ignore-path": (
            lambda p, c: _diff(p, c, ignore=IGNORED),
            ["diff", *(f"--ignore-path={pattern}" for pattern in IGNORED), "{clean}"],
        ),
        "query --errors": (_lib(lambda p: _query(p, errors=True)), ["query", "--errors"]),
        "query --neutral --where": (
            _lib(lambda p: _query(p, neutral=True, where=WHERE)),
            ["query", "--neutral", "--where", WHERE],
        ),
        "show --redact": (
            _lib(lambda p: _show(p, redact=True)),
            ["show", "--no-pager", "--redact"],
        ),
        "query --grep": (
            _lib(lambda p: _query(p, grep=["the"], ignore_case=True)),
            ["query", "--grep", "the", "-i"],
        ),
    }
)
for _suffix in (".sqlite", ".parquet", ".duckdb"):
    COMMANDS[f"export --to {_suffix}"] = (
        lambda p, c, _suffix=_suffix: _export_tables(p, c, _suffix),
        ["export", "-q", "--to", "{out}" + _suffix],
    )
for _name, (_statement, _fmt) in SQL.items():
    COMMANDS[_name] = (
        _lib(lambda p, _name=_name: _sql(p, _name)),
        ["sql", "--format", _fmt, _statement],
    )

#: the commands whose standard output is JSONL
JSONL_COMMANDS = ("replay", "convert", "query")


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


def bad_csv(data: bytes) -> str | None:
    """CSV (data, as a file holds it): UTF-8, and every row as wide as the header."""
    import csv

    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    except (UnicodeDecodeError, csv.Error) as exc:
        return f"CSV that cannot be read: {exc}"
    if rows and any(len(row) != len(rows[0]) for row in rows):
        return "CSV rows of different widths"
    return None


#: tags a page may hold only of its own making (each runs script, loads or embeds)
_LIVE_TAGS = {"script", "iframe", "object", "embed", "base", "link", "form", "frame", "svg"}


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.live: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "script":
            self.scripts += 1
        elif tag in _LIVE_TAGS:
            self.live.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on"):
                self.live.append(f"<{tag} {name}=...>")
            elif name in ("href", "src") and (value or "").strip().lower().startswith(
                "javascript:"
            ):
                self.live.append(f"<{tag} {name}=javascript:...>")


def bad_page(page: str) -> str | None:
    """Why an HTML page (an export, a page of view) lets the log's text be live markup:
    a second script (the page's own is one), an event handler, a ``javascript:`` link,
    a tag that loads or embeds; or text that is not UTF-8."""
    try:
        page.encode("utf-8")
    except UnicodeEncodeError:
        return "an HTML page that is not UTF-8"
    tags = _Tags()
    tags.feed(page)
    tags.close()
    if tags.scripts != 1:
        return f"an HTML page with {tags.scripts} <script> tags (its own is one)"
    if tags.live:
        return f"an HTML page with live markup: {tags.live[0]}"
    return None


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_RAW_TAG = re.compile(r"(?<!\\)<(script|iframe|img|svg|style|object|embed|!--|a\s)", re.IGNORECASE)


def bad_markdown(text: str) -> str | None:
    """Why a Markdown export lets the log's text be markup: a raw HTML tag outside code
    (the export's own tags are ``<details>`` and ``<summary>``), or an unclosed fence."""
    why = unsafe_text(text)
    if why:
        return why
    fence: str | None = None
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        if line.startswith(("    ", "\t")):
            continue
        outside = re.sub(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", "", line)
        tag = _RAW_TAG.search(outside)
        if tag:
            return f"a raw HTML tag in Markdown: {tag.group()!r}"
    if fence is not None:
        return "a Markdown fence left open"
    return None


def _where(exc: BaseException) -> str:
    """The innermost frame in msgcli of an exception, as ``module.py:line``."""
    frames = traceback.extract_tb(exc.__traceback__)
    inside = [f for f in frames if "/msgcli/" in f.filename] or frames
    last = inside[-1] if inside else None
    return f"{Path(last.filename).name}:{last.lineno}" if last else "?"


def judge(out: Output) -> list[str]:
    """What is wrong with what a command gave."""
    failures = []
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
    for page in out.pages:
        why = bad_page(page)
        if why:
            failures.append(why)
    if out.markdown is not None:
        why = bad_markdown(out.markdown)
        if why:
            failures.append(why)
    failures += out.problems
    return failures


def check(command: str, path: Path, clean: Path | None = None) -> list[str]:
    """Failures of ``command`` on the file ``path`` through the library (``clean``: the log
    ``path`` was made from, which ``diff`` compares with; by default ``path`` itself)."""
    run, _ = COMMANDS[command]
    before = path.read_bytes()
    with tempfile.TemporaryDirectory(prefix="msgcli-fuzz-out-") as tmp:
        start = time.process_time()
        try:
            out = run(path, Case(clean or path, Path(tmp)))
        except Exception as exc:
            return [f"{type(exc).__name__} at {_where(exc)}: {str(exc)[:80]}"]
        spent = time.process_time() - start
    failures = []
    if spent > BOUND:
        failures.append(f"slow: {spent:.1f} s of CPU")
    failures += judge(out)
    if path.read_bytes() != before:
        failures.append("the input changed")
    return failures


def _written(target: Path) -> Output:
    """What a command wrote at ``target``, to judge (an export, the pages of view, tables)."""
    if target.suffix == ".md":
        return Output(markdown=target.read_text(encoding="utf-8", errors="surrogateescape"))
    if target.suffix == ".html":
        return Output(pages=[target.read_text(encoding="utf-8", errors="surrogateescape")])
    if target.suffix in (".sqlite", ".parquet", ".duckdb"):
        return Output(problems=read_tables(target))
    pages = sorted(target.rglob("*.html"))
    return Output(pages=[p.read_text(encoding="utf-8", errors="surrogateescape") for p in pages])


_RUNNER = None


def run_cli(command: str, path: Path, clean: Path | None = None) -> list[str]:
    """Failures of ``command`` on ``path`` through the command line (in this process)."""
    global _RUNNER
    from typer.testing import CliRunner

    from msgcli.cli import app

    if _RUNNER is None:
        _RUNNER = CliRunner()
    _, args = COMMANDS[command]
    before = path.read_bytes()
    with tempfile.TemporaryDirectory(prefix="msgcli-fuzz-out-") as tmp:
        out = Path(tmp) / "out"
        given = [a.replace("{out}", str(out)).replace("{clean}", str(clean or path)) for a in args]
        start = time.process_time()
        result = _RUNNER.invoke(app, [*given, str(path)], env={"NO_COLOR": "1", "COLUMNS": "100"})
        spent = time.process_time() - start
        failures = []
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            exc = result.exception
            failures.append(f"CLI {type(exc).__name__} at {_where(exc)}: {str(exc)[:80]}")
        elif "internal error" in result.stderr:
            failures.append(f"CLI exit {result.exit_code}: {result.stderr.strip()[:120]}")
        written = [Path(a) for a in given if a.startswith(str(out))]
        if written and result.exit_code in (0, 1):
            if written[0].exists():
                failures += [f"CLI {why}" for why in judge(_written(written[0]))]
            else:
                failures.append(f"CLI exit {result.exit_code} and nothing written")
    if spent > BOUND:
        failures.append(f"CLI slow: {spent:.1f} s of CPU")
    why = unsafe_text(result.stderr)
    if why:
        failures.append(f"CLI standard error: {why}")
    stdout = result.stdout_bytes
    if command.startswith(JSONL_COMMANDS) or (command.startswith("sql") and "json" in args):
        why = bad_jsonl([line for line in stdout.split(b"\n") if line])
    elif command.startswith("format") or (command == "stats" and stdout[:1] == b"{"):
        why = None
    elif command.startswith("sql") and "csv" in args:
        why = bad_csv(stdout)
    elif command == "diff --format json":
        if not stdout and result.exit_code == 2 and result.stderr.strip():
            why = None  # a log it cannot compare: said on standard error, nothing on stdout
        else:
            try:
                orjson.loads(stdout)
                why = None
            except orjson.JSONDecodeError as exc:
                why = f"not JSON: {exc}"
    else:
        try:
            why = unsafe_text(stdout.decode("utf-8"))
        except UnicodeDecodeError:
            why = "standard output that is not UTF-8"
    if why:
        failures.append(f"CLI standard output: {why}")
    if path.read_bytes() != before:
        failures.append("CLI: the input changed")
    return failures
